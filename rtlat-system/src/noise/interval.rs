//! What happened on the measured CPUs during one sampling interval (counter deltas), and the
//! bounded ring that keeps the last intervals ([`IntervalRing`]): slots are allocated once and
//! overwritten, so the ring never grows.

use super::counters::SOFTIRQS;

/// The most tasks kept per CPU and interval (the ones that ran longest).
pub const TASKS_PER_CPU: usize = 8;

/// A task that ran on a measured CPU during an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskRun {
    /// The process (thread group) id.
    pub pid: u32,
    /// The thread id.
    pub tid: u32,
    /// Time on a CPU during the interval, in ns (from its `schedstat`).
    pub ran_ns: u64,
    /// The policy number (`SCHED_OTHER` 0, `SCHED_FIFO` 1, `SCHED_RR` 2, …).
    pub policy: u32,
    /// The real-time priority (0 under non-real-time policies).
    pub rt_priority: u32,
    comm: [u8; 16],
    comm_len: u8,
}

impl TaskRun {
    /// A task run; `comm` is cut to 16 bytes (the kernel's `TASK_COMM_LEN`).
    pub fn new(pid: u32, tid: u32, comm: &str, ran_ns: u64, policy: u32, rt_priority: u32) -> Self {
        let mut bytes = [0u8; 16];
        let mut len = comm.len().min(16);
        while !comm.is_char_boundary(len) {
            len -= 1;
        }
        bytes[..len].copy_from_slice(&comm.as_bytes()[..len]);
        TaskRun {
            pid,
            tid,
            ran_ns,
            policy,
            rt_priority,
            comm: bytes,
            comm_len: len as u8,
        }
    }

    /// The task's name (`comm`).
    pub fn comm(&self) -> &str {
        std::str::from_utf8(&self.comm[..self.comm_len as usize]).unwrap_or("?")
    }

    /// The policy's name as `chrt` prints it.
    pub fn policy_name(&self) -> &'static str {
        match self.policy {
            0 => "SCHED_OTHER",
            1 => "SCHED_FIFO",
            2 => "SCHED_RR",
            3 => "SCHED_BATCH",
            5 => "SCHED_IDLE",
            6 => "SCHED_DEADLINE",
            _ => "SCHED_?",
        }
    }

    /// Whether the policy is real-time (`SCHED_FIFO`, `SCHED_RR` or `SCHED_DEADLINE`).
    pub fn is_real_time(&self) -> bool {
        matches!(self.policy, 1 | 2 | 6)
    }
}

/// One measured CPU during one interval: counter deltas.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuInterval {
    /// The CPU.
    pub cpu: usize,
    /// Interrupts per `/proc/interrupts` line on this CPU, by line index (see
    /// [`Catalog::irqs`](super::Catalog::irqs)).
    pub irqs: Vec<u64>,
    /// Softirqs per type ([`SOFTIRQS`] order) on this CPU.
    pub softirqs: [u64; SOFTIRQS.len()],
    /// `schedule()` calls on this CPU (`/proc/schedstat`; `None` without `CONFIG_SCHEDSTATS`).
    pub schedules: Option<u64>,
    /// The tasks other than the measuring threads that ran on this CPU, longest first, at most
    /// [`TASKS_PER_CPU`].
    pub tasks: Vec<TaskRun>,
    /// Tasks that ran here but did not fit in [`tasks`](Self::tasks).
    pub tasks_left_off: u32,
    /// Entries into each idle state, by state index (empty without cpuidle).
    pub idle_usage: Vec<u64>,
    /// Time in each idle state in µs, by state index.
    pub idle_time_us: Vec<u64>,
    /// `scaling_cur_freq` at the end of the interval, in kHz (`None` without cpufreq).
    pub freq_khz: Option<u64>,
    /// Thermal throttling events (core and package counts) during the interval.
    pub throttles: u64,
}

impl CpuInterval {
    /// Records that `task` ran, keeping the [`TASKS_PER_CPU`] longest runs (no allocation
    /// once the vector has its capacity).
    pub fn add_task(&mut self, task: TaskRun) {
        if self.tasks.len() < TASKS_PER_CPU {
            self.tasks.push(task);
        } else {
            self.tasks_left_off += 1;
            let shortest = self
                .tasks
                .iter()
                .enumerate()
                .min_by_key(|(_, t)| t.ran_ns)
                .map(|(i, _)| i);
            if let Some(i) = shortest.filter(|&i| self.tasks[i].ran_ns < task.ran_ns) {
                self.tasks[i] = task;
            }
        }
    }

    fn clear(&mut self) {
        self.irqs.iter_mut().for_each(|n| *n = 0);
        self.softirqs = [0; SOFTIRQS.len()];
        self.schedules = None;
        self.tasks.clear();
        self.tasks_left_off = 0;
        self.idle_usage.iter_mut().for_each(|n| *n = 0);
        self.idle_time_us.iter_mut().for_each(|n| *n = 0);
        self.freq_khz = None;
        self.throttles = 0;
    }
}

/// A measuring thread during one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadInterval {
    /// The thread id.
    pub tid: u32,
    /// Times it was preempted (its `nonvoluntary_ctxt_switches` delta).
    pub preempted: u64,
    /// The CPU it last ran on at the start of the interval.
    pub cpu_before: Option<u32>,
    /// The CPU it last ran on at the end of the interval.
    pub cpu_after: Option<u32>,
    /// Its real-time priority (0 under non-real-time policies).
    pub rt_priority: u32,
    /// Times it moved between CPUs (its `se.nr_migrations` delta; 0 where the kernel has
    /// no `sched` file): counts a move and a move back within one interval.
    pub migrations: u64,
}

impl ThreadInterval {
    /// Whether the thread changed CPUs during the interval (it ended on another, or moved
    /// and came back).
    pub fn migrated(&self) -> bool {
        self.migrations > 0
            || matches!((self.cpu_before, self.cpu_after), (Some(a), Some(b)) if a != b)
    }
}

/// One sampling interval: `[start_ns, end_ns]` on `CLOCK_MONOTONIC`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interval {
    /// When the interval began (the previous sample), ns on `CLOCK_MONOTONIC`.
    pub start_ns: u64,
    /// When it ended (this sample).
    pub end_ns: u64,
    /// The measured CPUs.
    pub cpus: Vec<CpuInterval>,
    /// The measuring threads.
    pub threads: Vec<ThreadInterval>,
}

impl Interval {
    /// Whether `[start_ns, end_ns]` overlaps this interval.
    pub fn overlaps(&self, start_ns: u64, end_ns: u64) -> bool {
        self.start_ns < end_ns && start_ns < self.end_ns
    }

    /// The interval's length in ns.
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    /// The entry of `cpu`.
    pub fn cpu(&self, cpu: usize) -> Option<&CpuInterval> {
        self.cpus.iter().find(|c| c.cpu == cpu)
    }

    pub(crate) fn clear(&mut self) {
        self.cpus.iter_mut().for_each(CpuInterval::clear);
        self.threads.iter_mut().for_each(|t| {
            *t = ThreadInterval {
                tid: t.tid,
                ..Default::default()
            }
        });
    }
}

/// The last intervals, oldest first, in slots allocated once.
#[derive(Debug, Clone)]
pub struct IntervalRing {
    slots: Vec<Interval>,
    next: usize,
    len: usize,
}

impl IntervalRing {
    /// A ring of `capacity` (at least 1) copies of `template`, each with room for
    /// [`TASKS_PER_CPU`] tasks per CPU (so filling a slot allocates nothing).
    pub fn new(capacity: usize, template: &Interval) -> Self {
        let mut slots = vec![template.clone(); capacity.max(1)];
        for cpu in slots.iter_mut().flat_map(|slot| slot.cpus.iter_mut()) {
            cpu.tasks.reserve_exact(TASKS_PER_CPU);
        }
        IntervalRing {
            slots,
            next: 0,
            len: 0,
        }
    }

    /// How many intervals it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many it can hold.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// The slot the next interval goes into (the oldest is overwritten), cleared; call
    /// [`commit`](Self::commit) once it is filled.
    pub fn next_slot(&mut self) -> &mut Interval {
        let slot = &mut self.slots[self.next];
        slot.clear();
        slot
    }

    /// Makes the slot from [`next_slot`](Self::next_slot) the newest interval.
    pub fn commit(&mut self) {
        self.next = (self.next + 1) % self.slots.len();
        self.len = (self.len + 1).min(self.slots.len());
    }

    /// The intervals, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Interval> {
        let capacity = self.slots.len();
        let first = (self.next + capacity - self.len) % capacity;
        (0..self.len).map(move |i| &self.slots[(first + i) % capacity])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_overwrites_the_oldest_and_never_grows() {
        let mut ring = IntervalRing::new(3, &Interval::default());
        for i in 0..5u64 {
            let slot = ring.next_slot();
            slot.start_ns = i;
            slot.end_ns = i + 1;
            ring.commit();
        }
        assert_eq!(ring.len(), 3);
        assert_eq!(ring.capacity(), 3);
        let starts: Vec<u64> = ring.iter().map(|i| i.start_ns).collect();
        assert_eq!(starts, [2, 3, 4]);
        assert!(ring.iter().next().unwrap().overlaps(0, 3));
        assert!(!ring.iter().next().unwrap().overlaps(3, 9));
    }

    #[test]
    fn a_cpu_keeps_its_longest_tasks() {
        let mut cpu = CpuInterval::default();
        for i in 0..20u64 {
            cpu.add_task(TaskRun::new(
                1,
                i as u32,
                "a-very-long-task-name",
                i * 10,
                0,
                0,
            ));
        }
        assert_eq!(cpu.tasks.len(), TASKS_PER_CPU);
        assert_eq!(cpu.tasks_left_off, 20 - TASKS_PER_CPU as u32);
        assert!(cpu.tasks.iter().all(|t| t.ran_ns >= 120));
        assert_eq!(cpu.tasks[0].comm(), "a-very-long-task");
    }
}
