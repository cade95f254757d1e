//! The poll method, where the kernel has no hwlat tracer (or `--method poll`): one thread per
//! CPU at SCHED_FIFO 99 busy-polls `CLOCK_MONOTONIC` for `width` of every `window`
//! (rtlat-engine's windowed poll), and counts, right before and right after each width, what
//! Linux did on the CPU: its interrupts of every kind and the thread's context switches
//! (rtlat-system's `LinuxEvents`). User space cannot turn interrupts off, so each such event
//! may have made one gap; Linux is given the largest gaps, one per event, and the gaps left
//! over are noise Linux did not make (SMIs, firmware, a hypervisor). Every figure is a lower
//! bound: on a CPU with few events in a width (an isolated, `nohz_full` CPU) it is tight; on a
//! CPU with many, it says little, and the output says how many events there were.

use std::sync::atomic::{AtomicUsize, Ordering};

use rtlat_engine::poll::{PollPlan, PollReport, PollShared, Width, Window, WindowSink, run_thread};
use rtlat_engine::run::new_run_histogram;
use rtlat_engine::session::{Notice, Session, SessionPlan};
use rtlat_engine::setup::Setup;
use rtlat_engine::{OnThread, ThreadName};
use rtlat_linux::Policy;
use rtlat_system::noise::linux_events::{EventCounts, LinuxEvents};

use super::CpuNoise;
use super::options::Config;
use crate::cli::noise::Polling;

/// The polling threads' default priority: above every thread Linux may run at SCHED_FIFO, so
/// only interrupts and the stop class take the CPU (both counted).
const PRIORITY: i32 = 99;
/// Stack bytes each polling thread prefaults.
const STACK_PREFAULT: usize = 16 * 1024;

/// What one CPU's widths added up to.
#[derive(Debug, Default)]
struct Attribution {
    events: LinuxEventsOf,
    noise: CpuNoise,
}

/// The CPU's counters and the last reading before a width.
#[derive(Debug, Default)]
struct LinuxEventsOf {
    reader: Option<LinuxEvents>,
    before: Option<EventCounts>,
    unreadable: bool,
}

impl WindowSink for Attribution {
    fn before(&mut self) {
        self.events.before = self.events.reader.as_mut().and_then(LinuxEvents::read);
    }

    fn after(&mut self, width: &Width) {
        let after = self.events.reader.as_mut().and_then(LinuxEvents::read);
        let noise = &mut self.noise;
        noise.sampled_ns += width.end_ns - width.start_ns;
        noise.gaps_above += width.spikes;
        let (events, nmis) = match (self.events.before, after) {
            (Some(before), Some(after)) => (
                after.events_since(&before),
                after.nmis.saturating_sub(before.nmis),
            ),
            // Without counts, every gap could be Linux's: none is called hardware noise.
            _ => {
                self.events.unreadable = true;
                (u64::MAX, 0)
            }
        };
        noise.linux_events = noise.linux_events.saturating_add(events);
        noise.nmi_count += nmis;
        let unexplained = width.unexplained(events);
        if unexplained.count > 0 {
            noise.samples += 1;
            noise.spikes += unexplained.count;
            noise.total_ns += unexplained.total_ns;
            noise.max_ns = noise.max_ns.max(Some(unexplained.max_ns));
            noise.exact &= unexplained.exact;
        }
    }
}

/// Polls each of `cpus` as `config` says; the per-CPU figures, in `cpus`' order.
pub fn run(config: &Config, cpus: &[usize]) -> Result<Vec<CpuNoise>, String> {
    let session_plan = SessionPlan {
        realtime: None,
        housekeeping: None,
        lock_memory: true,
        dma_latency_us: None,
        init: None,
    };
    let session = Session::start(&session_plan, |notice| match notice {
        Notice::MemoryNotLocked(e) => {
            errln!("warning: {e}; the run continues, but page faults may add gaps")
        }
        Notice::DmaLatencyNotHeld(e) => errln!("warning: {e}"),
        Notice::DmaLatencyHeld(_) => {}
    })
    .map_err(|e| e.to_string())?;
    let plans: Vec<PollPlan> = cpus
        .iter()
        .map(|&cpu| PollPlan {
            setup: Setup {
                cpu: Some(cpu),
                policy: Policy::Fifo,
                priority: config.priority.unwrap_or(PRIORITY),
                prefault_stack: STACK_PREFAULT,
            },
            duration_ns: Some(config.duration.as_nanos() as u64),
            micros: 2,
            threshold_ns: config.threshold_us * 1000,
            window: Some(Window {
                window_ns: config.window_us * 1000,
                width_ns: config.width_us * 1000,
            }),
        })
        .collect();
    let shared = PollShared::default();
    let done = AtomicUsize::new(0);
    // Made here, on the main thread's large stack (a debug build builds them on the stack).
    let histograms: Vec<_> = plans.iter().map(|_| new_run_histogram()).collect();
    let threads = plans
        .iter()
        .zip(histograms)
        .enumerate()
        .map(|(index, (plan, histogram))| {
            let (shared, done) = (&shared, &done);
            let cpu = plan.setup.cpu.unwrap_or(0);
            (format!("rtlat-hwnoise-{index}"), move || {
                let mut attribution = Attribution {
                    events: LinuxEventsOf {
                        reader: Some(LinuxEvents::new("/", cpu)),
                        ..LinuxEventsOf::default()
                    },
                    noise: CpuNoise {
                        cpu,
                        exact: true,
                        ..CpuNoise::default()
                    },
                };
                let report = run_thread(
                    plan,
                    shared,
                    histogram,
                    crate::allocations::this_thread,
                    &mut attribution,
                );
                done.fetch_add(1, Ordering::Release);
                report
                    .map(|report| (report, attribution))
                    .map_err(|error| OnThread {
                        thread: ThreadName::Index(index),
                        error,
                    })
            })
        });
    let supervisor = Polling {
        shared: &shared,
        done: &done,
        threads: plans.len(),
    };
    let (reports, _) = session
        .measure(threads, |_| supervisor)
        .map_err(|e| e.to_string())?;
    drop(session);
    Ok(reports
        .into_iter()
        .map(|(report, attribution): (PollReport, Attribution)| {
            if attribution.events.unreadable {
                errln!(
                    "warning: CPU {}: /proc/interrupts or the thread's status could not be read for every width: those widths' gaps were all given to Linux",
                    attribution.noise.cpu
                );
            }
            let mut noise = attribution.noise;
            noise.allocations = Some(report.allocations);
            noise.max_gap_ns = report.histogram.max().map(|ns| ns.max(0) as u64);
            noise
        })
        .collect())
}
