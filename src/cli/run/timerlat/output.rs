//! `--timerlat`'s figures after the results and in the JSON: per thread, each part's
//! summary and, with `--explain`, its CPU's worst wake-ups in parts, each part with its share
//! of the thread latency and what to do about it.

use std::fmt::Write as _;

use rtlat_core::Summary;
use rtlat_engine::run::RunHistogram;
use rtlat_formats::schema::rtlat as schema;
use rtlat_formats::schema::{Count, Field};
use rtlat_system::noise::breakdown::{Part, PartKind};
use rtlat_system::noise::timerlat::Workload;
use serde_json::{Number, Value};

use super::TimerlatFigures;
use super::collect::Spike;

/// The word for a workload in the text and the JSON.
fn workload_name(workload: Workload) -> &'static str {
    match workload {
        Workload::User => "user",
        Workload::Kernel => "kernel",
    }
}

/// The text after the run: per thread, each part's count, min, avg, max and p99 (µs, or ns
/// with `-N`), cyclictest's way of truncating.
/// `rows`: each thread's label (`T: 0`, `servo`) and CPU.
pub fn text(
    out: &mut String,
    figures: &TimerlatFigures,
    rows: &[(String, usize)],
    nanoseconds: bool,
) {
    let unit = if nanoseconds { 1 } else { 1000 };
    let _ = writeln!(
        out,
        "# timerlat: period {} us, workload {} ({})",
        figures.period_us,
        workload_name(figures.workload),
        match figures.workload {
            Workload::User => "IRQ, Thd and Usr are rtlat's own wake-ups",
            Workload::Kernel => "the tracer's timerlat/N threads beside rtlat's",
        }
    );
    for (label, at) in rows {
        let Some(cpu) = figures.cpus.get(at) else {
            let _ = writeln!(out, "{label} CPU:{at:3} timerlat: no samples");
            continue;
        };
        let mut parts = vec![("IRQ", &cpu.irq), ("Thd", &cpu.thread)];
        if figures.workload == Workload::User {
            parts.push(("Usr", &cpu.user));
        }
        for (name, h) in parts {
            let s = h.summary();
            let _ = writeln!(
                out,
                "{label} CPU:{at:3} {name} C:{:9} Min:{:7} Avg:{:7} Max:{:8} p99:{:8}",
                s.count(),
                s.min().map_or(0, |v| v / unit),
                s.mean().map_or(0, |m| (m / unit as f64) as i64),
                s.max().map_or(0, |v| v / unit),
                h.percentile(99.0).map_or(0, |v| v / unit),
            );
        }
        if cpu.lost > 0 {
            let _ = writeln!(
                out,
                "{label} CPU:{at:3} timerlat: {} events lost by the ring buffer",
                cpu.lost
            );
        }
        for spike in &cpu.spikes {
            spike_text(out, label, spike, nanoseconds);
        }
    }
}

/// A value in the run's unit: µs with one decimal, or ns.
fn shown(ns: u64, nanoseconds: bool) -> String {
    if nanoseconds {
        format!("{ns} ns")
    } else {
        format!("{:.1} µs", ns as f64 / 1000.0)
    }
}

/// One wake-up in parts: its latencies, then a line per part (share, what, remedy).
fn spike_text(out: &mut String, label: &str, spike: &Spike, nanoseconds: bool) {
    let b = &spike.breakdown;
    let whole = b.whole_ns();
    let thread = b.period.thread.1;
    let irq = b.period.irq.1.min(thread);
    let _ = write!(
        out,
        "# {} timerlat period #{} on CPU {}: ",
        label.replace(' ', ""),
        b.period.seq,
        b.period.cpu,
    );
    if let Some(user) = spike.user_ns {
        let _ = write!(
            out,
            "Usr {} = Thd + back to its wait {}; ",
            shown(user, nanoseconds),
            shown(whole - thread, nanoseconds)
        );
    }
    let _ = writeln!(
        out,
        "Thd {} = IRQ {} + after the IRQ {}",
        shown(thread, nanoseconds),
        shown(irq, nanoseconds),
        shown(thread - irq, nanoseconds),
    );
    for part in &b.parts {
        let (remedy, audit) = remedy(part, b.period.cpu);
        let _ = write!(
            out,
            "#   {:>12} {:5.1} %  {}{}: {remedy}",
            shown(part.ns, nanoseconds),
            percent(part.ns, whole),
            part.kind.name(),
            if part.name.is_empty() {
                String::new()
            } else {
                format!(" {}", part.name)
            },
        );
        match audit {
            Some(check) => {
                let _ = writeln!(out, " (rtlat audit: {check})");
            }
            None => out.push('\n'),
        }
    }
}

fn percent(ns: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        ns as f64 * 100.0 / whole as f64
    }
}

/// What to do about a part, and the audit check that covers it.
fn remedy(part: &Part, cpu: usize) -> (String, Option<&'static str>) {
    match part.kind {
        PartKind::IrqDelay | PartKind::Irq if part.name.starts_with("local_timer") => (
            format!(
                "the local timer interrupt of CPU {cpu} (the tick, or another hrtimer): isolate the CPU with nohz_full="
            ),
            None,
        ),
        PartKind::IrqDelay | PartKind::Irq => (
            format!("move the IRQ off CPU {cpu}: rtlat irq --away-from {cpu}"),
            Some("irq.on_isolated"),
        ),
        PartKind::IrqLatency => (
            format!(
                "the timer IRQ itself came late: an exit from a deep idle state (hold /dev/cpu_dma_latency), interrupts disabled, or time Linux does not see (SMIs, a hypervisor: rtlat hwnoise --cpu-list {cpu})"
            ),
            Some("cpuidle.dma_latency"),
        ),
        PartKind::Blocking => (
            format!(
                "it held CPU {cpu} when the timer fired and ran on before the thread: move it off the CPU, or find what it ran with preemption disabled"
            ),
            Some("threads.on_isolated"),
        ),
        PartKind::Thread => (
            format!(
                "it ran on CPU {cpu} while the woken thread waited for it: move it off the CPU or below the thread's priority"
            ),
            Some("threads.on_isolated"),
        ),
        PartKind::Softirq => (
            format!(
                "softirq work on CPU {cpu}: move the IRQs that raise it away (rtlat irq --away-from {cpu})"
            ),
            Some("irq.on_isolated"),
        ),
        PartKind::Nmi => (
            format!(
                "NMIs on CPU {cpu} (the NMI watchdog, perf): nmi_watchdog=0; rtlat hwnoise --cpu-list {cpu} counts what else"
            ),
            None,
        ),
        PartKind::Scheduling => (
            "the timer IRQ's own run and the switch to the thread".to_string(),
            None,
        ),
        PartKind::ReturnToWait => (
            "the woken thread's own run until it waited again (its cycle's work)".to_string(),
            None,
        ),
    }
}

/// A thread's `rtlat.timerlat` object; `None` for a CPU that was not traced.
pub fn json(figures: &TimerlatFigures, cpu: usize) -> schema::Timerlat {
    let found = figures.cpus.get(&cpu);
    let part = |h: Option<&RunHistogram>| -> Field<schema::TimerlatPart> {
        let empty = Summary::new();
        let s = h.map_or(&empty, |h| h.summary());
        schema::TimerlatPart {
            samples: Count(s.count()).into(),
            min: s.min().map(Number::from).into(),
            max: s.max().map(Number::from).into(),
            mean: s.mean().into(),
            percentiles: crate::cli::run::output::json::percentiles(h).into(),
            histogram: Field::from_value(
                h.and_then(|h| serde_json::to_value(h).ok())
                    .unwrap_or(Value::Null),
            ),
        }
        .into()
    };
    schema::Timerlat {
        workload: workload_name(figures.workload).to_string().into(),
        cpu: (cpu as u64).into(),
        period_us: figures.period_us.into(),
        irq: part(found.map(|f| &*f.irq)),
        thread: part(found.map(|f| &*f.thread)),
        user: match figures.workload {
            Workload::User => part(found.map(|f| &*f.user)),
            Workload::Kernel => Field::Absent,
        },
        lost_events: found.map_or(0, |f| f.lost).into(),
        spikes: match found {
            Some(f) if !f.spikes.is_empty() => f
                .spikes
                .iter()
                .map(|spike| spike_json(spike).into())
                .collect::<Vec<_>>()
                .into(),
            _ => Field::Absent,
        },
    }
}

fn spike_json(spike: &Spike) -> schema::TimerlatSpike {
    let b = &spike.breakdown;
    let whole = b.whole_ns();
    schema::TimerlatSpike {
        seq: b.period.seq.into(),
        thread: b.period.thread.1.into(),
        irq: b.period.irq.1.into(),
        user: spike.user_ns.into(),
        parts: b
            .parts
            .iter()
            .map(|part| {
                let (remedy, audit) = remedy(part, b.period.cpu);
                schema::TimerlatSpikePart {
                    part: part.kind.name().to_string().into(),
                    name: part.name.clone().into(),
                    ns: part.ns.into(),
                    percent: percent(part.ns, whole).into(),
                    remedy: remedy.into(),
                    audit: audit.map(String::from).into(),
                }
                .into()
            })
            .collect::<Vec<_>>()
            .into(),
    }
}
