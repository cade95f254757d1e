//! The wake-ups `rtlat run --timerlat --explain` split into the timerlat tracer's parts, in
//! the spikes section: per series the worst [`SPIKES_SHOWN`], each with its largest parts
//! (at most [`PARTS_SHOWN`]) and their share of the wake-up's latency (its user-ret latency
//! where the file has one, else its thread latency).

use rtlat_formats::Series;
use rtlat_formats::schema::explain::TimerlatSpikeRecord;

use super::report::micros;
use super::spikes::SPIKES_SHOWN;

/// Parts shown per wake-up, the largest first.
pub const PARTS_SHOWN: usize = 4;

/// The lines for `series` (none without timerlat spikes), to indent under its label.
pub fn lines(series: &Series) -> Vec<String> {
    let spikes = &series.timerlat_spikes;
    if spikes.is_empty() {
        return Vec::new();
    }
    let mut out = vec!["timerlat, the worst wake-ups in the tracer's parts:".to_string()];
    let mut worst: Vec<&TimerlatSpikeRecord> = spikes.iter().collect();
    worst.sort_by_key(|s| std::cmp::Reverse(s.whole_ns()));
    for spike in worst.iter().take(SPIKES_SHOWN) {
        out.push(spike_line(spike));
        let mut parts: Vec<_> = spike.parts.iter().collect();
        parts.sort_by_key(|p| std::cmp::Reverse(p.ns));
        for part in parts.iter().take(PARTS_SHOWN) {
            let share = if spike.whole_ns() == 0 {
                0.0
            } else {
                part.ns as f64 * 100.0 / spike.whole_ns() as f64
            };
            let name = if part.name.is_empty() {
                String::new()
            } else {
                format!(" {}", part.name)
            };
            out.push(format!(
                "  {share:5.1} % {} {}{name}",
                micros(part.ns as f64),
                part.part
            ));
        }
        if parts.len() > PARTS_SHOWN {
            out.push(format!("  … {} more parts", parts.len() - PARTS_SHOWN));
        }
    }
    if worst.len() > SPIKES_SHOWN {
        out.push(format!(
            "… {} more wake-ups (rtlat compare --json lists them all)",
            worst.len() - SPIKES_SHOWN
        ));
    }
    out
}

fn spike_line(s: &TimerlatSpikeRecord) -> String {
    let mut beside = Vec::new();
    if let Some(irq) = s.irq_ns {
        beside.push(format!("IRQ {}", micros(irq as f64)));
    }
    if let Some(user) = s.user_ns {
        beside.push(format!("Usr {}", micros(user as f64)));
    }
    let period = s
        .seq
        .map_or_else(String::new, |seq| format!(", period #{seq}"));
    if beside.is_empty() {
        format!("Thd {}{period}", micros(s.thread_ns as f64))
    } else {
        format!(
            "Thd {} ({}){period}",
            micros(s.thread_ns as f64),
            beside.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_formats::schema::explain::TimerlatPartRecord;

    fn part(part: &str, name: &str, ns: u64) -> TimerlatPartRecord {
        TimerlatPartRecord {
            part: part.into(),
            name: name.into(),
            ns,
        }
    }

    #[test]
    fn the_worst_wake_ups_come_with_their_largest_parts() {
        let mut s = Series::new("T0");
        assert!(lines(&s).is_empty());
        s.timerlat_spikes = vec![
            TimerlatSpikeRecord {
                seq: Some(9),
                thread_ns: 20_000,
                irq_ns: None,
                user_ns: None,
                parts: vec![part("irq_latency", "", 20_000)],
            },
            TimerlatSpikeRecord {
                seq: Some(2),
                thread_ns: 705_000,
                irq_ns: Some(5_000),
                user_ns: Some(715_000),
                parts: vec![
                    part("irq_latency", "", 5_000),
                    part("thread_interference", "sh:400", 600_000),
                    part("irq_interference", "local_timer:236", 5_000),
                    part("softirq_interference", "TIMER:1", 1_000),
                    part("irq_duration_and_switch", "", 94_000),
                    part("return_to_wait", "", 10_000),
                ],
            },
            // Woken on time, then held up before its next wait: worst by its user-ret.
            TimerlatSpikeRecord {
                seq: Some(5),
                thread_ns: 30_000,
                irq_ns: Some(5_000),
                user_ns: Some(900_000),
                parts: vec![
                    part("irq_latency", "", 5_000),
                    part("irq_duration_and_switch", "", 25_000),
                    part("thread_interference", "sh:401", 860_000),
                    part("return_to_wait", "", 10_000),
                ],
            },
        ];
        assert_eq!(
            lines(&s),
            [
                "timerlat, the worst wake-ups in the tracer's parts:",
                "Thd 30.0 µs (IRQ 5.0 µs, Usr 900.0 µs), period #5",
                "   95.6 % 860.0 µs thread_interference sh:401",
                "    2.8 % 25.0 µs irq_duration_and_switch",
                "    1.1 % 10.0 µs return_to_wait",
                "    0.6 % 5.0 µs irq_latency",
                "Thd 705.0 µs (IRQ 5.0 µs, Usr 715.0 µs), period #2",
                "   83.9 % 600.0 µs thread_interference sh:400",
                "   13.1 % 94.0 µs irq_duration_and_switch",
                "    1.4 % 10.0 µs return_to_wait",
                "    0.7 % 5.0 µs irq_latency",
                "  … 2 more parts",
                "Thd 20.0 µs, period #9",
                "  100.0 % 20.0 µs irq_latency",
            ]
        );
    }
}
