//! `/proc/PID/stat` and `/proc/PID/task/TID/stat`: one line of space-separated fields, the
//! second of which is the thread's name in parentheses. The name may itself hold spaces and
//! parentheses (`1234 (my (weird) comm) S …`), so it runs from the first `(` to the **last**
//! `)`, and the fields are counted after it.

use super::error::Malformed;
use rtlat_linux::thread::Policy;

/// The `PF_KTHREAD` bit of the `flags` field: the task is a kernel thread.
pub const PF_KTHREAD: u32 = 0x0020_0000;

/// The fields of a stat line the audit and `rtlat threads` use (numbered as in `proc(5)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStat {
    /// (1) The task's id: the PID in `/proc/PID/stat`, the TID in `task/TID/stat`.
    pub pid: u32,
    /// (2) The name (`comm`), without the parentheses.
    pub comm: String,
    /// (3) The state: `R` running, `S` sleeping, `D` disk sleep, `Z` zombie, `T` stopped,
    /// `I` idle kernel thread, …
    pub state: char,
    /// (4) The parent's PID (2, `kthreadd`, for kernel threads).
    pub ppid: u32,
    /// (9) The kernel's `PF_*` flags ([`PF_KTHREAD`] marks a kernel thread).
    pub flags: u32,
    /// (18) The kernel's priority value (−2 to −100 for real-time tasks, 100 + 20 + nice
    /// minus 100 otherwise).
    pub priority: i32,
    /// (19) The nice value, −20 to 19.
    pub nice: i32,
    /// (20) The number of threads of the process.
    pub num_threads: u32,
    /// (22) When the task started, in clock ticks after boot: with the boot id, it tells a
    /// task from a later one given the same id.
    pub start_time: u64,
    /// (39) The CPU the task last ran on.
    pub processor: usize,
    /// (40) The real-time priority, 1 to 99 (0 for non-real-time policies).
    pub rt_priority: u32,
    /// (41) The scheduling policy number (`SCHED_OTHER` 0, `SCHED_FIFO` 1, `SCHED_RR` 2,
    /// `SCHED_BATCH` 3, `SCHED_IDLE` 5, `SCHED_DEADLINE` 6).
    pub policy: u32,
}

const LINE: &str = "a stat line `PID (COMM) STATE PPID …` with at least 41 fields";

impl TaskStat {
    /// Parses a stat line.
    pub fn parse(text: &str) -> Result<TaskStat, Malformed> {
        let bad = |expected| Malformed::new(expected, text.trim_end());
        let open = text.find('(').ok_or_else(|| bad(LINE))?;
        let close = text
            .rfind(')')
            .filter(|&c| c > open)
            .ok_or_else(|| bad(LINE))?;
        let pid = text[..open]
            .trim()
            .parse()
            .map_err(|_| bad("a PID before the name"))?;
        let comm = text[open + 1..close].to_owned();
        // fields[0] is field 3.
        let fields: Vec<&str> = text[close + 1..].split_ascii_whitespace().collect();
        let field = |number: usize| fields.get(number - 3).copied().ok_or_else(|| bad(LINE));
        fn num<T: core::str::FromStr>(
            word: &str,
            bad: impl Fn(&'static str) -> Malformed,
            what: &'static str,
        ) -> Result<T, Malformed> {
            word.parse().map_err(|_| bad(what))
        }
        let mut state_chars = field(3)?.chars();
        let state = match (state_chars.next(), state_chars.next()) {
            (Some(state), None) => state,
            _ => return Err(bad("a one-letter state in field 3")),
        };
        Ok(TaskStat {
            pid,
            comm,
            state,
            ppid: num(field(4)?, bad, "a parent PID in field 4")?,
            flags: num(field(9)?, bad, "flags in field 9")?,
            priority: num(field(18)?, bad, "a priority in field 18")?,
            nice: num(field(19)?, bad, "a nice value in field 19")?,
            num_threads: num(field(20)?, bad, "a thread count in field 20")?,
            start_time: num(field(22)?, bad, "a start time in field 22")?,
            processor: num(field(39)?, bad, "a CPU number in field 39")?,
            rt_priority: num(field(40)?, bad, "a real-time priority in field 40")?,
            policy: num(field(41)?, bad, "a policy number in field 41")?,
        })
    }

    /// Whether the task is a kernel thread: [`PF_KTHREAD`] in its flags, or `kthreadd`
    /// itself (PID 2) or one of its children.
    pub fn is_kernel_thread(&self) -> bool {
        self.flags & PF_KTHREAD != 0 || self.pid == 2 || self.ppid == 2
    }

    /// The scheduling policy, if rtlat models it (not `SCHED_DEADLINE`).
    pub fn sched_policy(&self) -> Option<Policy> {
        i32::try_from(self.policy).ok().and_then(Policy::from_raw)
    }

    /// Whether the task runs under a real-time policy (`SCHED_FIFO` or `SCHED_RR`).
    pub fn is_real_time(&self) -> bool {
        matches!(self.sched_policy(), Some(Policy::Fifo | Policy::RoundRobin))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KSOFTIRQD: &str = "14 (ksoftirqd/0) S 2 0 0 0 -1 69238848 0 0 0 0 12 0 0 0 20 0 1 0 26 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

    #[test]
    fn parses_a_kernel_thread() {
        let stat = TaskStat::parse(KSOFTIRQD).unwrap();
        assert_eq!(stat.pid, 14);
        assert_eq!(stat.comm, "ksoftirqd/0");
        assert_eq!(stat.state, 'S');
        assert_eq!(stat.ppid, 2);
        assert_eq!(stat.flags, 69238848);
        assert!(stat.flags & PF_KTHREAD != 0 && stat.is_kernel_thread());
        assert_eq!((stat.priority, stat.nice, stat.num_threads), (20, 0, 1));
        assert_eq!((stat.processor, stat.rt_priority, stat.policy), (0, 0, 0));
        assert_eq!(stat.sched_policy(), Some(Policy::Other));
        assert!(!stat.is_real_time());
    }

    #[test]
    fn the_name_runs_to_the_last_parenthesis() {
        let line = KSOFTIRQD
            .replace("14 (ksoftirqd/0) S 2", "4242 (my (weird) comm) R 1")
            .replace(" 69238848 ", " 4194368 ")
            .replace(" 17 0 0 0 0 0", " 17 3 80 1 0 0");
        let stat = TaskStat::parse(&line).unwrap();
        assert_eq!(stat.comm, "my (weird) comm");
        assert_eq!((stat.pid, stat.ppid, stat.state), (4242, 1, 'R'));
        assert!(!stat.is_kernel_thread());
        assert_eq!((stat.processor, stat.rt_priority), (3, 80));
        assert_eq!(stat.sched_policy(), Some(Policy::Fifo));
        assert!(stat.is_real_time());
        // A name of ") (" and an empty name.
        let odd = KSOFTIRQD.replace("(ksoftirqd/0)", "() ()");
        assert_eq!(TaskStat::parse(&odd).unwrap().comm, ") (");
        let empty = KSOFTIRQD.replace("(ksoftirqd/0)", "()");
        assert_eq!(TaskStat::parse(&empty).unwrap().comm, "");
    }

    #[test]
    fn deadline_is_not_modelled() {
        let line = KSOFTIRQD.replace(" 17 0 0 0 0 0", " 17 0 0 6 0 0");
        let stat = TaskStat::parse(&line).unwrap();
        assert_eq!(stat.policy, 6);
        assert_eq!(stat.sched_policy(), None);
    }

    #[test]
    fn refuses_malformed_lines() {
        let cases = [
            ("", "at least 41 fields"),
            ("14 ksoftirqd S 2", "at least 41 fields"),
            (") 14 (x", "at least 41 fields"),
            ("14 (x) S 2 0 0", "at least 41 fields"),
            ("x (a) S", "a PID"),
        ];
        for (line, expected) in cases {
            let err = TaskStat::parse(line).unwrap_err();
            assert!(err.expected.contains(expected), "{line:?}: {err}");
        }
        let bad_state = KSOFTIRQD.replace(") S ", ") SS ");
        assert!(
            TaskStat::parse(&bad_state)
                .unwrap_err()
                .expected
                .contains("state")
        );
        let bad_cpu = KSOFTIRQD.replace(" 17 0 0 0 0 0", " 17 -1 0 0 0 0");
        assert!(
            TaskStat::parse(&bad_cpu)
                .unwrap_err()
                .expected
                .contains("field 39")
        );
        let truncated: String = KSOFTIRQD.split(' ').take(40).collect::<Vec<_>>().join(" ");
        assert!(TaskStat::parse(&truncated).is_err());
    }

    proptest! {
        #[test]
        fn never_panics(text in ".{0,120}") {
            let _ = TaskStat::parse(&text);
        }

        #[test]
        fn any_name_parses_back(comm in "[^\n]{0,16}") {
            let line = KSOFTIRQD.replace("ksoftirqd/0", &comm);
            let stat = TaskStat::parse(&line).unwrap();
            prop_assert_eq!(stat.comm, comm);
            prop_assert_eq!(stat.processor, 0);
        }
    }
}
