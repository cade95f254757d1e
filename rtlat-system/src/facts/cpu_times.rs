//! `/proc/stat`'s `cpu` lines: the time each CPU spent in each state since boot, in clock
//! ticks (`USER_HZ`, 100 per second). The eighth, `steal`, is time a virtual CPU wanted to run
//! while the host ran something else.

use super::error::{FactError, Malformed};
use super::read;
use super::root::Facts;

/// The clock ticks one `cpu` line counts (`proc(5)`); `guest` and `guest_nice` are left out,
/// since `user` and `nice` already include them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTimes {
    /// Normal processes in user mode.
    pub user: u64,
    /// Niced processes in user mode.
    pub nice: u64,
    /// Kernel mode.
    pub system: u64,
    /// Idle.
    pub idle: u64,
    /// Waiting for I/O (0 on kernels that do not count it).
    pub iowait: u64,
    /// Serving hardware interrupts.
    pub irq: u64,
    /// Serving softirqs.
    pub softirq: u64,
    /// Stolen: the virtual CPU was runnable while the host ran something else (0 on bare metal
    /// and on kernels before 2.6.11).
    pub steal: u64,
}

impl CpuTimes {
    /// Every tick counted (user through steal).
    pub fn total(&self) -> u64 {
        [
            self.user,
            self.nice,
            self.system,
            self.idle,
            self.iowait,
            self.irq,
            self.softirq,
            self.steal,
        ]
        .iter()
        .fold(0u64, |sum, t| sum.saturating_add(*t))
    }

    /// Parses the numbers after `cpu` or `cpuN` (at least user, nice, system and idle).
    fn parse(fields: &[&str], line: &str) -> Result<CpuTimes, Malformed> {
        const EXPECTED: &str = "a line `cpu USER NICE SYSTEM IDLE …` of tick counts";
        let numbers: Vec<u64> = fields
            .iter()
            .map(|f| f.parse())
            .collect::<Result<_, _>>()
            .map_err(|_| Malformed::new(EXPECTED, line))?;
        if numbers.len() < 4 {
            return Err(Malformed::new(EXPECTED, line));
        }
        let at = |i: usize| numbers.get(i).copied().unwrap_or(0);
        Ok(CpuTimes {
            user: at(0),
            nice: at(1),
            system: at(2),
            idle: at(3),
            iowait: at(4),
            irq: at(5),
            softirq: at(6),
            steal: at(7),
        })
    }
}

/// All CPUs' times and each CPU's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SystemCpuTimes {
    /// The `cpu` line: every CPU together.
    pub all: CpuTimes,
    /// The `cpuN` lines, by CPU number, ascending.
    pub per_cpu: Vec<(usize, CpuTimes)>,
}

impl SystemCpuTimes {
    /// Parses `/proc/stat` (only its `cpu` lines).
    pub fn parse(text: &str) -> Result<SystemCpuTimes, Malformed> {
        let mut all = None;
        let mut per_cpu = Vec::new();
        for line in text.lines() {
            let mut words = line.split_ascii_whitespace();
            let Some(name) = words.next() else { continue };
            let Some(rest) = name.strip_prefix("cpu") else {
                continue;
            };
            let fields: Vec<&str> = words.collect();
            let times = CpuTimes::parse(&fields, line)?;
            if rest.is_empty() {
                all = Some(times);
            } else {
                let cpu = read::number_of(rest)
                    .ok_or_else(|| Malformed::new("a line `cpuN …` with a CPU number", line))?;
                per_cpu.push((cpu as usize, times));
            }
        }
        let all =
            all.ok_or_else(|| Malformed::new("a `cpu …` line", text.lines().next().unwrap_or("")))?;
        per_cpu.sort_unstable_by_key(|(cpu, _)| *cpu);
        Ok(SystemCpuTimes { all, per_cpu })
    }
}

impl Facts {
    /// `/proc/stat`'s CPU times since boot.
    pub fn cpu_times(&self) -> Result<SystemCpuTimes, FactError> {
        let path = self.path("proc/stat");
        let text = read::text(&path)?;
        SystemCpuTimes::parse(&text).map_err(|e| FactError::malformed(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lines_with_steal() {
        let text = "cpu  241745 0 36910 132145 697 0 1110 388 0 0\ncpu0 120742 0 17939 67145 382 0 189 205 0 0\ncpu1 121002 0 18971 64999 315 0 921 183 0 0\nintr 1 2 3\nctxt 5\n";
        let times = SystemCpuTimes::parse(text).unwrap();
        assert_eq!(times.all.steal, 388);
        assert_eq!(
            times.all.total(),
            241745 + 36910 + 132145 + 697 + 1110 + 388
        );
        assert_eq!(times.per_cpu.len(), 2);
        assert_eq!(
            times.per_cpu[1],
            (
                1,
                CpuTimes {
                    user: 121002,
                    system: 18971,
                    idle: 64999,
                    iowait: 315,
                    softirq: 921,
                    steal: 183,
                    ..CpuTimes::default()
                }
            )
        );
        // An old kernel's four fields: no steal.
        let old = SystemCpuTimes::parse("cpu 1 2 3 4\n").unwrap();
        assert_eq!((old.all.steal, old.all.total()), (0, 10));
        for bad in [
            "",
            "intr 1",
            "cpu 1 2",
            "cpu 1 x 3 4",
            "cpu 1 2 3 4\ncpuX 1 2 3 4",
        ] {
            assert!(SystemCpuTimes::parse(bad).is_err(), "{bad:?}");
        }
    }
}
