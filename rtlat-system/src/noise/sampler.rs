//! [`Sampler`]: reads the measured CPUs' counters once per period and keeps the deltas in an
//! [`IntervalRing`]; [`SamplerThread`] runs it on a non-real-time thread.
//!
//! Cost per sample, in system calls: one `pread` each for `/proc/interrupts`,
//! `/proc/softirqs`, `/proc/schedstat`, and per measured CPU its `scaling_cur_freq`, its two
//! thermal-throttle counts and two files per idle state; one `pread` of `schedstat` per task
//! of the system (files kept open), and of `stat` for each task that ran during the interval;
//! two per measuring thread; one of `/proc/loadavg`, whose last PID tells when a task was
//! created: the task list is read again then, and every [`Config::rescan_every`] samples
//! (a task created and gone within one period is not seen, nor the last interval of a task
//! that ended before the sample: its `/proc` entry is gone). Steady-state sampling allocates
//! nothing from the third sample on (tested with a counting allocator); a rescan allocates
//! the new task list, a changed set of IRQ lines a new catalog.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::counters::{self, SOFTIRQS};
use super::interval::{CpuInterval, Interval, IntervalRing, TaskRun, ThreadInterval};
use super::source::Source;
use crate::facts::{FactResultExt, Facts};

/// The bound on `/proc/interrupts` (a 1024-CPU machine's is a few MiB).
const BIG_FILE: usize = 4 << 20;
/// The bound on every other file read.
const SMALL_FILE: usize = 4096;
/// The most tasks followed (two open files each).
const MAX_TASKS: usize = 8192;

/// How often to sample and how much to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// The sampling period (default 5 ms: a spike is placed within 5 ms, at a cost measured in
    /// the module's docs).
    pub period: Duration,
    /// How many intervals the ring keeps (default 400: 2 s at 5 ms).
    pub history: usize,
    /// Read the task list again every this many samples (default 20: every 100 ms at 5 ms).
    pub rescan_every: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            period: Duration::from_millis(5),
            history: 400,
            rescan_every: 20,
        }
    }
}

/// A line of `/proc/interrupts` as named in verdicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrqLine {
    /// The label (`24`, `LOC`, `NMI`).
    pub label: String,
    /// The IRQ number of a numbered line.
    pub irq: Option<u32>,
    /// Its handlers (numbered lines) or description (`Local timer interrupts`).
    pub name: String,
}

/// An idle state as named in verdicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdleName {
    /// `C1`, `C6`, `POLL`.
    pub name: String,
    /// Its exit latency in µs.
    pub latency_us: u64,
}

/// The names behind the indices of an [`Interval`]: IRQ lines and idle states.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    /// The lines of `/proc/interrupts`, by the index [`CpuInterval::irqs`] uses.
    pub irqs: Vec<IrqLine>,
    /// The idle states of each measured CPU (same order as [`Interval::cpus`]).
    pub idle: Vec<Vec<IdleName>>,
}

/// A thread whose preemptions and migrations are followed (the measuring threads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watched {
    /// Its process id.
    pub pid: u32,
    /// Its thread id.
    pub tid: u32,
}

#[derive(Debug)]
struct CpuSources {
    cpu: usize,
    freq: Source,
    throttle: [Source; 2],
    idle_usage: Vec<Source>,
    idle_time: Vec<Source>,
}

#[derive(Debug, Clone, Default)]
struct Counters {
    irqs: Vec<u64>,
    softirqs: [u64; SOFTIRQS.len()],
    schedules: Option<u64>,
    idle_usage: Vec<u64>,
    idle_time: Vec<u64>,
    throttles: u64,
}

#[derive(Debug)]
struct Task {
    pid: u32,
    tid: u32,
    schedstat: Source,
    stat: Source,
    ran_ns: u64,
}

#[derive(Debug)]
struct WatchedState {
    watched: Watched,
    status: Source,
    stat: Source,
    preempted: Option<u64>,
    sched: Source,
    migrations: Option<u64>,
    cpu: Option<u32>,
    rt_priority: u32,
}

/// Samples the measured CPUs' counters (see the module docs for what and at what cost).
#[derive(Debug)]
pub struct Sampler {
    facts: Facts,
    config: Config,
    catalog: Catalog,
    interrupts: Source,
    softirqs: Source,
    loadavg: Source,
    last_pid: Option<u64>,
    schedstat: Source,
    cpus: Vec<CpuSources>,
    previous: Vec<Counters>,
    current: Vec<Counters>,
    watched: Vec<WatchedState>,
    tasks: Vec<Task>,
    since_rescan: u32,
    big: Vec<u8>,
    small: Vec<u8>,
    ring: IntervalRing,
    last_ns: Option<u64>,
}

impl Sampler {
    /// A sampler of `cpus` under `facts`' root, following the `watched` threads.
    pub fn new(facts: Facts, cpus: &[usize], watched: &[Watched], config: Config) -> Self {
        let mut catalog = Catalog::default();
        let cpu_sources: Vec<CpuSources> = cpus
            .iter()
            .map(|&cpu| {
                let dir = facts.path(&format!("sys/devices/system/cpu/cpu{cpu}"));
                let states = facts
                    .cpuidle_states(cpu)
                    .optional()
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                catalog.idle.push(
                    states
                        .iter()
                        .map(|s| IdleName {
                            name: s.name.clone(),
                            latency_us: s.latency_us,
                        })
                        .collect(),
                );
                let state = |s: &crate::facts::IdleState, file: &str| {
                    Source::new(dir.join(format!("cpuidle/state{}/{file}", s.index)))
                };
                CpuSources {
                    cpu,
                    freq: Source::new(dir.join("cpufreq/scaling_cur_freq")),
                    throttle: [
                        Source::new(dir.join("thermal_throttle/core_throttle_count")),
                        Source::new(dir.join("thermal_throttle/package_throttle_count")),
                    ],
                    idle_usage: states.iter().map(|s| state(s, "usage")).collect(),
                    idle_time: states.iter().map(|s| state(s, "time")).collect(),
                }
            })
            .collect();
        // The IRQ lines as they are now, so every slot is sized for them from the start.
        let mut big = vec![0; BIG_FILE];
        let mut interrupts = Source::new(facts.path("proc/interrupts"));
        catalog.irqs = crate::facts::Interrupts::parse(interrupts.read(&mut big).unwrap_or(""))
            .map(|parsed| irq_lines(&parsed))
            .unwrap_or_default();
        let template = Interval {
            start_ns: 0,
            end_ns: 0,
            cpus: cpu_sources
                .iter()
                .map(|c| CpuInterval {
                    cpu: c.cpu,
                    irqs: vec![0; catalog.irqs.len()],
                    tasks: Vec::with_capacity(super::interval::TASKS_PER_CPU),
                    idle_usage: vec![0; c.idle_usage.len()],
                    idle_time_us: vec![0; c.idle_usage.len()],
                    ..Default::default()
                })
                .collect(),
            threads: watched
                .iter()
                .map(|w| ThreadInterval {
                    tid: w.tid,
                    ..Default::default()
                })
                .collect(),
        };
        let task_dir = |w: &Watched| facts.path(&format!("proc/{}/task/{}", w.pid, w.tid));
        let mut sampler = Sampler {
            interrupts,
            softirqs: Source::new(facts.path("proc/softirqs")),
            loadavg: Source::new(facts.path("proc/loadavg")),
            last_pid: None,
            schedstat: Source::new(facts.path("proc/schedstat")),
            previous: vec![Counters::default(); cpus.len()],
            current: vec![Counters::default(); cpus.len()],
            watched: watched
                .iter()
                .map(|w| WatchedState {
                    watched: *w,
                    status: Source::new(task_dir(w).join("status")),
                    stat: Source::new(task_dir(w).join("stat")),
                    preempted: None,
                    sched: Source::new(task_dir(w).join("sched")),
                    migrations: None,
                    cpu: None,
                    rt_priority: 0,
                })
                .collect(),
            cpus: cpu_sources,
            tasks: Vec::new(),
            since_rescan: 0,
            big,
            small: vec![0; SMALL_FILE],
            ring: IntervalRing::new(config.history, &template),
            last_ns: None,
            catalog,
            facts,
            config,
        };
        sampler.rescan_tasks();
        sampler
    }

    /// The sampling settings.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The names behind the intervals' indices.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The intervals kept.
    pub fn ring(&self) -> &IntervalRing {
        &self.ring
    }

    /// Whether the task `tid` is followed (seen by the last rescan and still readable).
    pub fn follows(&self, tid: u32) -> bool {
        self.tasks
            .iter()
            .any(|t| t.tid == tid && t.schedstat.exists())
    }

    /// How many tasks are followed.
    pub fn tasks_followed(&self) -> usize {
        self.tasks.len()
    }

    /// Reads every counter at `now_ns` (`CLOCK_MONOTONIC`) and, after the first call, adds the
    /// interval since the previous call to the ring.
    pub fn sample(&mut self, now_ns: u64) {
        self.since_rescan += 1;
        // The last PID handed out (`/proc/loadavg`'s last field, threads included): a new
        // task since the last sample triggers a rescan now.
        let last_pid = self
            .loadavg
            .read(&mut self.small)
            .and_then(|text| text.split_ascii_whitespace().last()?.parse().ok());
        let born = last_pid.is_some() && last_pid != self.last_pid;
        self.last_pid = last_pid;
        if born || self.since_rescan >= self.config.rescan_every.max(1) {
            self.since_rescan = 0;
            self.rescan_tasks();
        }
        let first = self.last_ns.is_none();
        let catalog_changed = self.read_cpu_counters();
        let start_ns = self.last_ns.replace(now_ns).unwrap_or(now_ns);
        let slot = self.ring.next_slot();
        slot.start_ns = start_ns;
        slot.end_ns = now_ns;
        let lines = self.catalog.irqs.len();
        for (i, cpu) in slot.cpus.iter_mut().enumerate() {
            let (now, before) = (&self.current[i], &self.previous[i]);
            cpu.irqs.resize(lines, 0);
            if !catalog_changed {
                deltas(&mut cpu.irqs, &now.irqs, &before.irqs);
            }
            deltas(&mut cpu.softirqs, &now.softirqs, &before.softirqs);
            cpu.schedules = now
                .schedules
                .zip(before.schedules)
                .map(|(a, b)| a.saturating_sub(b));
            deltas(&mut cpu.idle_usage, &now.idle_usage, &before.idle_usage);
            deltas(&mut cpu.idle_time_us, &now.idle_time, &before.idle_time);
            cpu.throttles = now.throttles.saturating_sub(before.throttles);
            cpu.freq_khz = self.cpus[i].freq.number(&mut self.small);
        }
        // Tasks: time on a CPU since the last sample; those that ran, by their last CPU.
        for task in &mut self.tasks {
            let Some((ran_ns, _, _)) = task
                .schedstat
                .read(&mut self.small)
                .and_then(counters::task_schedstat)
            else {
                continue;
            };
            let delta = ran_ns.saturating_sub(task.ran_ns);
            task.ran_ns = ran_ns;
            if delta == 0 || first || self.watched.iter().any(|w| w.watched.tid == task.tid) {
                continue;
            }
            let Some(fields) = task
                .stat
                .read(&mut self.small)
                .and_then(counters::stat_fields)
            else {
                continue;
            };
            if let Some(cpu) = slot
                .cpus
                .iter_mut()
                .find(|c| c.cpu == fields.processor as usize)
            {
                cpu.add_task(TaskRun::new(
                    task.pid,
                    task.tid,
                    fields.comm,
                    delta,
                    fields.policy,
                    fields.rt_priority,
                ));
            }
        }
        for cpu in &mut slot.cpus {
            cpu.tasks
                .sort_unstable_by_key(|t| std::cmp::Reverse(t.ran_ns));
        }
        for (state, thread) in self.watched.iter_mut().zip(slot.threads.iter_mut()) {
            let preempted = state
                .status
                .read(&mut self.small)
                .and_then(counters::nonvoluntary_switches);
            let migrations = state
                .sched
                .read(&mut self.small)
                .and_then(counters::sched_migrations);
            let fields = state
                .stat
                .read(&mut self.small)
                .and_then(counters::stat_fields);
            let cpu = fields.map(|f| f.processor);
            thread.preempted = preempted
                .zip(state.preempted)
                .map_or(0, |(a, b)| a.saturating_sub(b));
            thread.migrations = migrations
                .zip(state.migrations)
                .map_or(0, |(a, b)| a.saturating_sub(b));
            state.migrations = migrations.or(state.migrations);
            thread.cpu_before = state.cpu;
            thread.cpu_after = cpu;
            thread.rt_priority = fields.map_or(state.rt_priority, |f| f.rt_priority);
            state.preempted = preempted.or(state.preempted);
            state.cpu = cpu.or(state.cpu);
            state.rt_priority = thread.rt_priority;
        }
        std::mem::swap(&mut self.previous, &mut self.current);
        if !first {
            self.ring.commit();
        }
    }

    /// Reads the per-CPU counters into `current`; true if the interrupt lines changed (then
    /// the catalog is rebuilt and this interval has no IRQ deltas).
    fn read_cpu_counters(&mut self) -> bool {
        let mut changed = false;
        if let Some(text) = self.interrupts.read(&mut self.big) {
            let header = text.lines().next().unwrap_or("");
            let mut lines = 0;
            for (i, cpu) in self.cpus.iter().enumerate() {
                let counts = &mut self.current[i].irqs;
                let Some(column) = counters::column_of(header, cpu.cpu) else {
                    continue;
                };
                let catalog = &self.catalog.irqs;
                lines = counters::interrupt_column(text, column, |index, label, count| {
                    if catalog.get(index).is_none_or(|line| line.label != label) {
                        changed = true;
                    }
                    if index >= counts.len() {
                        counts.push(0);
                    }
                    counts[index] = count;
                });
                counts.truncate(lines);
            }
            if changed || lines != self.catalog.irqs.len() {
                changed = true;
                self.catalog.irqs = crate::facts::Interrupts::parse(text)
                    .map(|parsed| irq_lines(&parsed))
                    .unwrap_or_default();
            }
        }
        if let Some(text) = self.softirqs.read(&mut self.small) {
            let header = text.lines().next().unwrap_or("");
            for (i, cpu) in self.cpus.iter().enumerate() {
                if let Some(column) = counters::column_of(header, cpu.cpu) {
                    counters::softirq_column(text, column, &mut self.current[i].softirqs);
                }
            }
        }
        let schedstat = self.schedstat.read(&mut self.big);
        for (i, cpu) in self.cpus.iter_mut().enumerate() {
            let current = &mut self.current[i];
            current.schedules =
                schedstat.and_then(|text| counters::schedstat_schedules(text, cpu.cpu));
            current.idle_usage.resize(cpu.idle_usage.len(), 0);
            current.idle_time.resize(cpu.idle_time.len(), 0);
            for (k, source) in cpu.idle_usage.iter_mut().enumerate() {
                current.idle_usage[k] = source.number(&mut self.small).unwrap_or(0);
            }
            for (k, source) in cpu.idle_time.iter_mut().enumerate() {
                current.idle_time[k] = source.number(&mut self.small).unwrap_or(0);
            }
            current.throttles = cpu
                .throttle
                .iter_mut()
                .filter_map(|s| s.number(&mut self.small))
                .sum();
        }
        changed
    }

    /// Reads the task list again: keeps the tasks still there (with their open files), opens
    /// the new ones (at most [`MAX_TASKS`]), drops the gone ones.
    fn rescan_tasks(&mut self) {
        let Ok(pids) = self.facts.pids() else {
            return;
        };
        let mut old = std::mem::take(&mut self.tasks);
        old.sort_unstable_by_key(|t| t.tid);
        // Searched by tid while the tasks are taken out of `old` (so the keys stay sorted).
        let old_tids: Vec<u32> = old.iter().map(|t| t.tid).collect();
        let mut old: Vec<Option<Task>> = old.into_iter().map(Some).collect();
        let mut tasks = Vec::with_capacity(old.len() + 16);
        'pids: for pid in pids {
            let Ok(tids) = self.facts.tids(pid) else {
                continue;
            };
            for tid in tids {
                if tasks.len() >= MAX_TASKS {
                    break 'pids;
                }
                let kept = old_tids
                    .binary_search(&tid)
                    .ok()
                    .and_then(|i| old[i].take())
                    .filter(|task| task.pid == pid && task.schedstat.exists());
                match kept {
                    Some(task) => tasks.push(task),
                    None => {
                        let dir: PathBuf = self.facts.path(&format!("proc/{pid}/task/{tid}"));
                        let mut schedstat = Source::new(dir.join("schedstat"));
                        let ran_ns = schedstat
                            .read(&mut self.small)
                            .and_then(counters::task_schedstat)
                            .map_or(0, |(ran, _, _)| ran);
                        tasks.push(Task {
                            pid,
                            tid,
                            schedstat,
                            stat: Source::new(dir.join("stat")),
                            ran_ns,
                        });
                    }
                }
            }
        }
        self.tasks = tasks;
    }
}

/// The catalog's names of the lines of `/proc/interrupts`.
fn irq_lines(parsed: &crate::facts::Interrupts) -> Vec<IrqLine> {
    parsed
        .lines
        .iter()
        .map(|line| IrqLine {
            label: line.label.clone(),
            irq: line.irq,
            name: line.name(),
        })
        .collect()
}

/// `out[k] = now[k] − before[k]` where both exist (counters only grow; a reset gives 0).
fn deltas(out: &mut [u64], now: &[u64], before: &[u64]) {
    for (delta, (a, b)) in out.iter_mut().zip(now.iter().zip(before)) {
        *delta = a.saturating_sub(*b);
    }
}

/// A [`Sampler`] on its own thread, sampling every [`Config::period`] until dropped or
/// [`stop`](Self::stop)ped (within one period). The thread runs under `SCHED_OTHER` (set at
/// its start, whatever its spawner runs as) and on the `housekeeping` CPUs if given.
#[derive(Debug)]
pub struct SamplerThread {
    sampler: Option<Arc<Mutex<Sampler>>>,
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl SamplerThread {
    /// Starts sampling.
    pub fn spawn(sampler: Sampler, housekeeping: &[usize]) -> std::io::Result<SamplerThread> {
        let period = sampler.config.period;
        let sampler = Arc::new(Mutex::new(sampler));
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopping) = (Arc::clone(&sampler), Arc::clone(&stop));
        let housekeeping = housekeeping.to_vec();
        let clock = rtlat_linux::PosixClock::monotonic();
        let handle = std::thread::Builder::new()
            .name("rtlat-noise".into())
            .spawn(move || {
                // Never real-time, whatever the spawning thread runs as: the sampler must not
                // be the noise it looks for.
                let _ = rtlat_linux::thread::set_scheduler(rtlat_linux::thread::Policy::Other, 0);
                if !housekeeping.is_empty() {
                    // Best effort: without the affinity the sampler still works, only noisier.
                    let _ = rtlat_linux::thread::set_affinity(&housekeeping);
                }
                while !stopping.load(Ordering::Relaxed) {
                    if let Ok(now) = clock.now_ns() {
                        let mut sampler = shared.lock().unwrap_or_else(|e| e.into_inner());
                        sampler.sample(now);
                    }
                    std::thread::sleep(period);
                }
            })?;
        Ok(SamplerThread {
            sampler: Some(sampler),
            stop,
            handle: Some(handle),
        })
    }

    /// Runs `f` on the sampler (between two samples).
    pub fn with<R>(&self, f: impl FnOnce(&Sampler) -> R) -> R {
        let sampler = self.sampler.as_ref().expect("present until stop");
        f(&sampler.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Stops the thread and waits for it.
    pub fn stop(mut self) -> Sampler {
        self.halt();
        let sampler = self.sampler.take().expect("present until stop");
        // The thread that held the other reference was joined (or unwound), so this is the
        // only one left.
        match Arc::try_unwrap(sampler) {
            Ok(mutex) => mutex.into_inner().unwrap_or_else(|e| e.into_inner()),
            Err(_) => unreachable!("the sampling thread was joined"),
        }
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

impl Drop for SamplerThread {
    fn drop(&mut self) {
        self.halt();
    }
}
