//! One wake-up of the timerlat tracer split into parts that add up to its latency, as
//! `rtla timerlat`'s auto-analysis splits a spike: from the timer's expiry to its IRQ (the
//! IRQ latency, less the interrupts and NMIs that ran first), then from the IRQ to the woken
//! thread (each NMI, IRQ, softirq and thread that ran on the CPU in between, the thread that
//! was running when the IRQ came named as the blocking one, and what is left: the timer
//! IRQ's own run and the switch to the thread).
//!
//! A user-space workload (rtlat's own threads on `timerlat_fd`) has a third window: from
//! its wake-up in the kernel until it is back waiting, the `user-ret` latency. A thread held
//! up there (preempted after its wake-up, before its next `read`) waits again late, and its
//! next cycle is late by as much; the tracer's thread latency does not show it. With a
//! `user-ret` sample the whole is that latency, and the window gets its interference named
//! and a remainder: the thread's own run back to its wait.
//!
//! Times are the trace's: a sample's line is stamped when it is recorded (µs resolution),
//! the IRQ's right after its latency is read, so the expiry is its stamp less its latency; a
//! noise event's span ends at its line's stamp and lasts its (net) duration. Each part is
//! clipped to its window, so the parts never add up to more than the whole, and the
//! remainders make them add up to exactly the whole.

use super::tracer::{NoiseEvent, NoiseKind};

/// A period of the tracer on one CPU: its IRQ and thread samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    /// The CPU.
    pub cpu: usize,
    /// The tracer's period count on that CPU.
    pub seq: u64,
    /// The IRQ sample's stamp and latency, ns.
    pub irq: (u64, u64),
    /// The thread sample's stamp and latency, ns.
    pub thread: (u64, u64),
    /// The `user-ret` sample's stamp and latency, ns (a user-space workload's).
    pub user: Option<(u64, u64)>,
}

/// What a part of a wake-up's latency was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PartKind {
    /// An NMI or IRQ that ran between the expiry and the timer's IRQ, delaying it.
    IrqDelay,
    /// The rest of the IRQ's latency: the hardware, an exit from idle, interrupts disabled.
    IrqLatency,
    /// The thread that was running when the IRQ came and ran on before the woken thread.
    Blocking,
    /// An NMI between the IRQ and the thread (or on the thread's way back to its wait).
    Nmi,
    /// An IRQ between the IRQ and the thread (or on the thread's way back to its wait).
    Irq,
    /// A softirq between the IRQ and the thread (or on the thread's way back to its wait).
    Softirq,
    /// Another thread that ran between the IRQ and the thread (or on its way back).
    Thread,
    /// The rest: the timer IRQ's own run and the switch to the woken thread.
    Scheduling,
    /// The rest of the `user-ret` window: the woken thread's own run back to its wait.
    ReturnToWait,
}

impl PartKind {
    /// Its name in the text and the JSON.
    pub fn name(self) -> &'static str {
        match self {
            PartKind::IrqDelay => "irq_delay",
            PartKind::IrqLatency => "irq_latency",
            PartKind::Blocking => "blocking_thread",
            PartKind::Nmi => "nmi_interference",
            PartKind::Irq => "irq_interference",
            PartKind::Softirq => "softirq_interference",
            PartKind::Thread => "thread_interference",
            PartKind::Scheduling => "irq_duration_and_switch",
            PartKind::ReturnToWait => "return_to_wait",
        }
    }
}

/// One part of a wake-up's latency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// What it was.
    pub kind: PartKind,
    /// The IRQ, softirq or thread (`comm:pid`) as the trace names it; empty for an NMI and
    /// the remainders.
    pub name: String,
    /// How much of the latency, ns.
    pub ns: u64,
}

/// A wake-up's latency in parts that add up to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakdown {
    /// The period.
    pub period: Period,
    /// The parts, window by window (the IRQ's, then up to the thread, then back to its
    /// wait), each window's interference largest first and its remainder last.
    pub parts: Vec<Part>,
}

impl Period {
    /// The whole: the `user-ret` latency where the trace has one, else the thread latency,
    /// ns (never below the thread latency).
    pub fn whole_ns(&self) -> u64 {
        self.user
            .map_or(self.thread.1, |(_, user)| user.max(self.thread.1))
    }
}

impl Breakdown {
    /// The whole the parts add up to: [`Period::whole_ns`].
    pub fn whole_ns(&self) -> u64 {
        self.period.whole_ns()
    }
}

/// The noise events of `period`'s CPU that `keep` keeps, in parts (see the module's
/// documentation). `keep` leaves out the workload itself and the idle task.
pub fn breakdown<'a>(
    period: &Period,
    events: impl IntoIterator<Item = &'a NoiseEvent>,
    keep: impl Fn(&NoiseEvent) -> bool,
) -> Breakdown {
    let (irq_stamp, irq_ns) = period.irq;
    let (thread_stamp, thread_ns) = period.thread;
    // The IRQ's latency is at most the thread's (the IRQ wakes the thread).
    let irq_ns = irq_ns.min(thread_ns);
    let expiry = irq_stamp.saturating_sub(irq_ns);
    let overlap =
        |e: &NoiseEvent, from: u64, to: u64| e.end_ns.min(to).saturating_sub(e.start_ns.max(from));
    let whole = period.whole_ns();
    // The `user-ret` sample is stamped when it is recorded, as the thread's is.
    let back_stamp = period
        .user
        .map_or(thread_stamp, |(stamp, _)| stamp.max(thread_stamp));
    let mut before: Vec<Part> = Vec::new();
    let mut after: Vec<Part> = Vec::new();
    let mut back: Vec<Part> = Vec::new();
    let add = |parts: &mut Vec<Part>, kind: PartKind, name: &str, ns: u64| {
        if ns == 0 {
            return;
        }
        match parts.iter_mut().find(|p| p.kind == kind && p.name == name) {
            Some(part) => part.ns += ns,
            None => parts.push(Part {
                kind,
                name: name.to_owned(),
                ns,
            }),
        }
    };
    for e in events {
        if e.cpu != period.cpu || !keep(e) {
            continue;
        }
        match e.kind {
            NoiseKind::Nmi | NoiseKind::Irq => add(
                &mut before,
                PartKind::IrqDelay,
                &e.name,
                overlap(e, expiry, irq_stamp),
            ),
            NoiseKind::Softirq | NoiseKind::Thread => {}
        }
        let kind = match e.kind {
            NoiseKind::Nmi => PartKind::Nmi,
            NoiseKind::Irq => PartKind::Irq,
            NoiseKind::Softirq => PartKind::Softirq,
            NoiseKind::Thread if e.start_ns < irq_stamp => PartKind::Blocking,
            NoiseKind::Thread => PartKind::Thread,
        };
        add(
            &mut after,
            kind,
            &e.name,
            overlap(e, irq_stamp, thread_stamp),
        );
        // Back to the wait, a thread holding the CPU is interference whenever it began.
        let kind = if kind == PartKind::Blocking {
            PartKind::Thread
        } else {
            kind
        };
        add(
            &mut back,
            kind,
            &e.name,
            overlap(e, thread_stamp, back_stamp),
        );
    }
    let mut parts = fill(before, irq_ns, PartKind::IrqLatency);
    parts.extend(fill(after, thread_ns - irq_ns, PartKind::Scheduling));
    parts.extend(fill(back, whole - thread_ns, PartKind::ReturnToWait));
    Breakdown {
        period: *period,
        parts,
    }
}

/// `parts` largest first, clipped so they add up to at most `whole`, then the remainder as a
/// `rest` part: together exactly `whole`.
fn fill(mut parts: Vec<Part>, whole: u64, rest: PartKind) -> Vec<Part> {
    parts.sort_by(|a, b| b.ns.cmp(&a.ns).then_with(|| a.name.cmp(&b.name)));
    let mut left = whole;
    for part in &mut parts {
        part.ns = part.ns.min(left);
        left -= part.ns;
    }
    parts.retain(|p| p.ns > 0);
    if left > 0 {
        parts.push(Part {
            kind: rest,
            name: String::new(),
            ns: left,
        });
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: NoiseKind, name: &str, start_ns: u64, duration_ns: u64) -> NoiseEvent {
        NoiseEvent {
            cpu: 1,
            kind,
            name: name.into(),
            pid: None,
            start_ns,
            duration_ns,
            end_ns: start_ns + duration_ns,
        }
    }

    /// Expiry at 1 000 000 ns; the IRQ 10 µs late, the thread 300 µs late.
    const PERIOD: Period = Period {
        cpu: 1,
        seq: 7,
        irq: (1_010_000, 10_000),
        thread: (1_300_000, 300_000),
        user: None,
    };

    fn sum(b: &Breakdown) -> u64 {
        b.parts.iter().map(|p| p.ns).sum()
    }

    #[test]
    fn the_parts_add_up_to_the_thread_latency() {
        let events = [
            // An IRQ before the timer's: 4 µs of the IRQ's 10.
            event(NoiseKind::Irq, "eth0:40", 1_002_000, 4_000),
            // A thread running when the IRQ came, on for 100 µs after it.
            event(NoiseKind::Thread, "sh:345", 900_000, 210_000),
            // A higher-priority thread woken after the IRQ: 150 µs.
            event(NoiseKind::Thread, "hog:346", 1_120_000, 150_000),
            // A softirq, and an NMI.
            event(NoiseKind::Softirq, "TIMER:1", 1_280_000, 5_000),
            event(NoiseKind::Nmi, "", 1_290_000, 1_000),
            // Another CPU's, and the idle task's: left out.
            NoiseEvent {
                cpu: 0,
                ..event(NoiseKind::Thread, "other:9", 1_100_000, 100_000)
            },
            event(NoiseKind::Thread, "swapper/1:0", 1_000_000, 5_000),
        ];
        let b = breakdown(&PERIOD, &events, |e| !e.name.starts_with("swapper/"));
        assert_eq!(sum(&b), 300_000);
        let ns = |kind: PartKind, name: &str| {
            b.parts
                .iter()
                .find(|p| p.kind == kind && p.name == name)
                .map(|p| p.ns)
        };
        assert_eq!(ns(PartKind::IrqDelay, "eth0:40"), Some(4_000));
        assert_eq!(ns(PartKind::IrqLatency, ""), Some(6_000));
        assert_eq!(ns(PartKind::Blocking, "sh:345"), Some(100_000));
        assert_eq!(ns(PartKind::Thread, "hog:346"), Some(150_000));
        assert_eq!(ns(PartKind::Softirq, "TIMER:1"), Some(5_000));
        assert_eq!(ns(PartKind::Nmi, ""), Some(1_000));
        assert_eq!(
            ns(PartKind::Scheduling, ""),
            Some(300_000 - 10_000 - 256_000)
        );
        assert!(
            b.parts
                .iter()
                .all(|p| !p.name.starts_with("other") && !p.name.starts_with("swapper"))
        );
        // IRQ parts first, the remainder last.
        assert_eq!(b.parts[0].kind, PartKind::IrqDelay);
        assert_eq!(b.parts.last().unwrap().kind, PartKind::Scheduling);
    }

    #[test]
    fn noise_longer_than_its_window_is_clipped_to_it() {
        // A thread on the CPU for a second around the whole period.
        let events = [event(NoiseKind::Thread, "hog:1", 0, 5_000_000)];
        let b = breakdown(&PERIOD, &events, |_| true);
        assert_eq!(sum(&b), 300_000);
        assert_eq!(
            b.parts
                .iter()
                .find(|p| p.kind == PartKind::Blocking)
                .unwrap()
                .ns,
            290_000
        );
        // No noise at all: the IRQ latency and the remainder.
        let b = breakdown(&PERIOD, [], |_| true);
        assert_eq!(
            b.parts.iter().map(|p| (p.kind, p.ns)).collect::<Vec<_>>(),
            [
                (PartKind::IrqLatency, 10_000),
                (PartKind::Scheduling, 290_000)
            ]
        );
    }

    #[test]
    fn a_thread_held_up_after_its_wake_up_has_the_user_ret_window_in_parts() {
        // Woken 300 µs late, then preempted in user space by a hog for 1 s before its next
        // read: back waiting 1.3 ms after the expiry, the user-ret sample.
        let period = Period {
            user: Some((2_300_000, 1_300_000)),
            ..PERIOD
        };
        let events = [
            // The thread running when the IRQ came (before the wake-up).
            event(NoiseKind::Thread, "sh:345", 900_000, 400_000),
            // The hog, after the wake-up: 990 µs of the window's 1000.
            event(NoiseKind::Thread, "hog:9", 1_305_000, 990_000),
            event(NoiseKind::Irq, "local_timer:236", 1_800_000, 2_000),
        ];
        let b = breakdown(&period, &events, |_| true);
        assert_eq!(b.whole_ns(), 1_300_000);
        assert_eq!(sum(&b), 1_300_000);
        // The window's parts come last.
        let after_wake: Vec<_> = b.parts[b.parts.len() - 3..]
            .iter()
            .map(|p| (p.kind, p.name.as_str(), p.ns))
            .collect();
        assert_eq!(
            after_wake,
            [
                (PartKind::Thread, "hog:9", 990_000),
                (PartKind::Irq, "local_timer:236", 2_000),
                (PartKind::ReturnToWait, "", 8_000),
            ]
        );
        // Before the wake-up, the blocking thread as without the user-ret sample.
        assert!(
            b.parts
                .iter()
                .any(|p| p.kind == PartKind::Blocking && p.name == "sh:345" && p.ns == 290_000)
        );
        // A user-ret sample at the thread's stamp adds nothing.
        let period = Period {
            user: Some((1_300_000, 300_000)),
            ..PERIOD
        };
        assert_eq!(
            breakdown(&period, &events, |_| true),
            Breakdown {
                period,
                ..breakdown(&PERIOD, &events, |_| true)
            }
        );
    }

    #[test]
    fn an_irq_latency_above_the_threads_is_read_as_the_threads() {
        // Rounding of the stamps can put the IRQ's latency a µs above the thread's.
        let period = Period {
            irq: (1_010_000, 12_000),
            thread: (1_011_000, 11_000),
            ..PERIOD
        };
        let b = breakdown(&period, [], |_| true);
        assert_eq!(sum(&b), 11_000);
    }
}
