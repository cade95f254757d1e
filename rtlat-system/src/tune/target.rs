//! What a [`Change`](super::Change) sets: an IRQ's CPUs, a CPU's cpufreq setting or idle
//! state, one setting of one thread ([`Target`]), named so that the kernel file it is can be
//! derived from it and a root, never read from a restore file.

/// What a change sets.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// The CPUs an IRQ may run on: `/proc/irq/N/smp_affinity_list`.
    IrqAffinity {
        /// The IRQ number.
        irq: u32,
        /// Its handlers (`/proc/interrupts`) when the change was planned, to recognise it
        /// later (IRQ numbers are handed out again when devices come and go).
        actions: Vec<String>,
    },
    /// The affinity new IRQs get: `/proc/irq/default_smp_affinity` (a hex mask).
    DefaultIrqAffinity,
    /// One cpufreq setting of one CPU's policy:
    /// `/sys/devices/system/cpu/cpuN/cpufreq/scaling_*`.
    Cpufreq {
        /// The CPU (the lowest of its policy among those changed).
        cpu: usize,
        /// Which setting.
        setting: CpufreqSetting,
    },
    /// Whether one idle state of one CPU is disabled:
    /// `/sys/devices/system/cpu/cpuN/cpuidle/stateK/disable` (`0` or `1`).
    IdleStateDisable {
        /// The CPU.
        cpu: usize,
        /// The idle state's index `K`.
        state: u32,
    },
    /// One setting of one thread.
    Thread {
        /// The process id.
        pid: u32,
        /// The thread id.
        tid: u32,
        /// The thread's name (`comm`) when the change was planned, to recognise it later.
        name: String,
        /// When the thread started, in clock ticks after boot (`/proc/PID/task/TID/stat`
        /// field 22): with the boot, it tells the thread from a later one given the same id.
        start_time: u64,
        /// Which setting.
        setting: ThreadSetting,
    },
}

/// A cpufreq setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CpufreqSetting {
    /// `scaling_governor`.
    Governor,
    /// `scaling_min_freq` (kHz).
    MinFreq,
    /// `scaling_max_freq` (kHz).
    MaxFreq,
}

impl CpufreqSetting {
    /// The file in the CPU's cpufreq folder.
    pub const fn file_name(self) -> &'static str {
        match self {
            CpufreqSetting::Governor => "scaling_governor",
            CpufreqSetting::MinFreq => "scaling_min_freq",
            CpufreqSetting::MaxFreq => "scaling_max_freq",
        }
    }
}

/// A thread setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadSetting {
    /// Policy, real-time priority and the reset-on-fork flag (`fifo:98`, `other`,
    /// `fifo:20+reset-on-fork`), as `chrt` sets them.
    Scheduling,
    /// The nice value (`-5`), as `renice` sets it.
    Nice,
    /// The CPUs it may run on (`0-3`), as `taskset` sets them.
    Affinity,
}

impl ThreadSetting {
    /// The name in restore files: `scheduling`, `nice`, `affinity`.
    pub const fn name(self) -> &'static str {
        match self {
            ThreadSetting::Scheduling => "scheduling",
            ThreadSetting::Nice => "nice",
            ThreadSetting::Affinity => "affinity",
        }
    }

    /// The setting in words, for messages: `scheduling`, `nice value`, `CPU affinity`.
    pub const fn words(self) -> &'static str {
        match self {
            ThreadSetting::Scheduling => "scheduling",
            ThreadSetting::Nice => "nice value",
            ThreadSetting::Affinity => "CPU affinity",
        }
    }

    /// The setting named `name` (see [`name`](Self::name)).
    pub fn from_name(name: &str) -> Option<ThreadSetting> {
        [
            ThreadSetting::Scheduling,
            ThreadSetting::Nice,
            ThreadSetting::Affinity,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }
}

impl Target {
    /// The kernel file this target is, as a system path (`/proc/irq/26/smp_affinity_list`);
    /// `None` for a thread setting.
    pub fn system_path(&self) -> Option<String> {
        match self {
            Target::IrqAffinity { irq, .. } => Some(format!("/proc/irq/{irq}/smp_affinity_list")),
            Target::DefaultIrqAffinity => Some("/proc/irq/default_smp_affinity".to_owned()),
            Target::Cpufreq { cpu, setting } => Some(format!(
                "/sys/devices/system/cpu/cpu{cpu}/cpufreq/{}",
                setting.file_name()
            )),
            Target::IdleStateDisable { cpu, state } => Some(format!(
                "/sys/devices/system/cpu/cpu{cpu}/cpuidle/state{state}/disable"
            )),
            Target::Thread { .. } => None,
        }
    }
}
