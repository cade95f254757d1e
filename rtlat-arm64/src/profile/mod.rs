//! Board profiles: a named preset of the tuning and run settings for one board — the CPUs
//! and how threads are laid out on them, the real-time policy and priority, the CPU
//! frequency to hold during the run, the `rtlat audit` checks that matter on the board, and
//! the reference runs its users compare against.
//!
//! A profile is plain `'static` data (no `std`, no allocation), so firmware and the CLI read
//! the same presets.
//!
//! # Adding a board
//!
//! Write one file, `src/profile/<board>.rs`, holding one `pub const` [`BoardProfile`]
//! (copy `bubblegum96.rs`), then name it in `mod` and in [`ALL`] below. The tests in this
//! module check every profile in [`ALL`] (unique names, sane CPU layout, known audit ids).

mod bubblegum96;

pub use bubblegum96::BUBBLEGUM96;

/// Every board profile, in the order `rtlat` lists them.
pub const ALL: &[&BoardProfile] = &[&BUBBLEGUM96];

/// A named preset of the tuning and run settings for one board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardProfile {
    /// The name given to `--profile` (lower case, no spaces): `bubblegum96`.
    pub name: &'static str,
    /// The board as its users name it, with the SoC and cores.
    pub description: &'static str,
    /// The CPUs the measurement threads run on (Linux CPU numbers).
    pub cpus: &'static [u32],
    /// How measurement threads are laid out on [`cpus`](Self::cpus).
    pub threads: ThreadLayout,
    /// The real-time scheduling policy of the measurement threads.
    pub policy: RtPolicy,
    /// Their real-time priority (1–99).
    pub priority: u8,
    /// The CPU frequency held for the run (and restored after).
    pub frequency: CpuFrequency,
    /// The `rtlat audit` findings (ids as `rtlat audit` reports them) that matter on this
    /// board: the ones a profile run checks first and reports.
    pub audit_checks: &'static [&'static str],
    /// The runs this board's users compare against.
    pub reference_runs: &'static [ReferenceRun],
}

impl BoardProfile {
    /// The profile named `name` (ASCII case-insensitive; `-` and `_` are ignored, so
    /// `Bubblegum-96` finds `bubblegum96`), or `None`.
    pub fn by_name(name: &str) -> Option<&'static BoardProfile> {
        ALL.iter()
            .copied()
            .find(|profile| same_name(profile.name, name))
    }

    /// The names of every profile, for a usage message.
    pub fn names() -> impl Iterator<Item = &'static str> {
        ALL.iter().map(|profile| profile.name)
    }

    /// How many measurement threads the profile runs.
    pub const fn thread_count(&self) -> usize {
        match self.threads {
            ThreadLayout::OnePerCpu => self.cpus.len(),
        }
    }

    /// The CPU measurement thread `index` is pinned to, or `None` past the last thread.
    pub fn cpu_of_thread(&self, index: usize) -> Option<u32> {
        match self.threads {
            ThreadLayout::OnePerCpu => self.cpus.get(index).copied(),
        }
    }
}

/// Compares profile names ignoring ASCII case, `-` and `_`.
fn same_name(a: &str, b: &str) -> bool {
    let mut x = a.bytes().filter(|c| !matches!(c, b'-' | b'_'));
    let mut y = b.bytes().filter(|c| !matches!(c, b'-' | b'_'));
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p.eq_ignore_ascii_case(&q) => {}
            _ => return false,
        }
    }
}

/// How measurement threads are placed on a profile's CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadLayout {
    /// One thread per CPU, each pinned to its own CPU (cyclictest `-a -t`).
    OnePerCpu,
}

/// The real-time scheduling policy of the measurement threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtPolicy {
    /// `SCHED_FIFO`.
    Fifo,
    /// `SCHED_RR`.
    RoundRobin,
}

impl RtPolicy {
    /// The policy's name as `rtlat run --policy` and cyclictest's `--policy` take it.
    pub const fn name(self) -> &'static str {
        match self {
            RtPolicy::Fifo => "fifo",
            RtPolicy::RoundRobin => "rr",
        }
    }
}

/// The CPU frequency a profile holds for the run: the cpufreq governor to set and, when the
/// board's measurements are compared at one frequency, the frequency to pin
/// (`scaling_min_freq = scaling_max_freq`). Whatever was set before is restored after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuFrequency {
    /// The cpufreq governor: `performance` (no DVFS transitions during the run).
    pub governor: &'static str,
    /// The frequency to hold, in kHz as cpufreq's sysfs writes it; `None` leaves the
    /// governor's choice (the highest, for `performance`).
    pub fixed_khz: Option<u32>,
}

/// One reference run: the cyclictest command line the board's users compare against, and the
/// background load (if any) it runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReferenceRun {
    /// A short name: `idle`, `stress`.
    pub name: &'static str,
    /// cyclictest's arguments (without the program name).
    pub cyclictest: &'static [&'static str],
    /// The load generator's command line (program first), or `None` for an idle machine.
    pub load: Option<&'static [&'static str]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The finding ids `rtlat audit` can report (src/cli/audit/checks) that profiles may
    /// name. A profile naming anything else is a typo the CLI would silently ignore.
    const AUDIT_IDS: &[&str] = &[
        "kernel.preempt_rt",
        "kernel.clocksource",
        "cpufreq.governor",
        "cpufreq.range",
        "cpufreq.absent",
        "cpuidle.states",
        "cpuidle.dma_latency",
        "cpus.isolated",
        "cpus.housekeeping",
        "irq.on_isolated",
        "irq.irqbalance",
        "irq.default_affinity",
        "threads.on_isolated",
        "sysctl.sched_rt_runtime_us",
        "mm.thp",
        "mm.swap",
    ];

    #[test]
    fn lookup_by_name() {
        assert_eq!(BoardProfile::by_name("bubblegum96"), Some(&BUBBLEGUM96));
        assert_eq!(BoardProfile::by_name("Bubblegum-96"), Some(&BUBBLEGUM96));
        assert_eq!(BoardProfile::by_name("BUBBLEGUM_96"), Some(&BUBBLEGUM96));
        assert_eq!(BoardProfile::by_name("bubblegum9"), None);
        assert_eq!(BoardProfile::by_name("bubblegum960"), None);
        assert_eq!(BoardProfile::by_name(""), None);
        assert_eq!(BoardProfile::by_name("rpi4"), None);
        assert!(BoardProfile::names().any(|n| n == "bubblegum96"));
    }

    #[test]
    fn every_profile_is_well_formed() {
        for (i, p) in ALL.iter().enumerate() {
            assert!(!p.name.is_empty());
            assert!(
                p.name
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
                "{}: names are lower case letters and digits",
                p.name
            );
            assert_eq!(
                BoardProfile::by_name(p.name),
                Some(*p),
                "{} is found",
                p.name
            );
            for q in &ALL[i + 1..] {
                assert!(!same_name(p.name, q.name), "{} twice", p.name);
            }
            assert!(!p.cpus.is_empty(), "{}: no CPUs", p.name);
            let mut cpus = p.cpus.to_vec();
            cpus.sort_unstable();
            cpus.dedup();
            assert_eq!(cpus.len(), p.cpus.len(), "{}: a CPU twice", p.name);
            assert!((1..=99).contains(&p.priority), "{}: priority", p.name);
            assert!(!p.frequency.governor.is_empty());
            for id in p.audit_checks {
                assert!(AUDIT_IDS.contains(id), "{}: unknown audit id {id}", p.name);
            }
            assert!(!p.reference_runs.is_empty(), "{}: no reference run", p.name);
            for run in p.reference_runs {
                assert!(!run.cyclictest.is_empty());
                if let Some(load) = run.load {
                    assert!(!load.is_empty());
                }
            }
        }
    }

    #[test]
    fn one_thread_per_cpu_layout() {
        let p = &BUBBLEGUM96;
        assert_eq!(p.thread_count(), p.cpus.len());
        for (i, &cpu) in p.cpus.iter().enumerate() {
            assert_eq!(p.cpu_of_thread(i), Some(cpu));
        }
        assert_eq!(p.cpu_of_thread(p.cpus.len()), None);
    }

    #[test]
    fn policy_names() {
        assert_eq!(RtPolicy::Fifo.name(), "fifo");
        assert_eq!(RtPolicy::RoundRobin.name(), "rr");
    }
}
