//! Allocation-free parsers of the per-CPU counters the [sampler](super::sampler) reads: one
//! CPU's column of `/proc/interrupts` and `/proc/softirqs`, the `schedule()` count of a CPU in
//! `/proc/schedstat`, a task's `schedstat` and the few `stat`/`status` fields it needs.
//!
//! Every function takes the file's text (read into a reused, bounded buffer) and writes into
//! storage the caller owns; content not in the kernel's format gives `None`, never a panic.

/// The softirq types of `/proc/softirqs`, in the kernel's order (`include/linux/interrupt.h`).
pub const SOFTIRQS: [&str; 10] = [
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
];

/// The column of `cpu` in a header line `CPU0 CPU1 …` (offline CPUs have no column).
pub fn column_of(header: &str, cpu: usize) -> Option<usize> {
    header.split_ascii_whitespace().position(|word| {
        word.strip_prefix("CPU")
            .and_then(|n| n.parse::<usize>().ok())
            == Some(cpu)
    })
}

/// For every line of a `/proc/interrupts` text after the header: calls `each(index, label,
/// count)` with the line's count in `column` (lines without that column, `ERR`/`MIS`, give
/// 0). Returns the number of lines.
pub fn interrupt_column(
    text: &str,
    column: usize,
    mut each: impl FnMut(usize, &str, u64),
) -> usize {
    let mut index = 0;
    for line in text.lines().skip(1) {
        let Some((label, rest)) = line.split_once(':') else {
            continue;
        };
        let count = rest
            .split_ascii_whitespace()
            .nth(column)
            .and_then(|word| word.parse::<u64>().ok())
            .unwrap_or(0);
        each(index, label.trim(), count);
        index += 1;
    }
    index
}

/// The counts of `/proc/softirqs` in `column`, by [`SOFTIRQS`] index (unknown types skipped).
pub fn softirq_column(text: &str, column: usize, counts: &mut [u64; SOFTIRQS.len()]) {
    for line in text.lines().skip(1) {
        let Some((label, rest)) = line.split_once(':') else {
            continue;
        };
        if let Some(kind) = SOFTIRQS.iter().position(|&name| name == label.trim()) {
            counts[kind] = rest
                .split_ascii_whitespace()
                .nth(column)
                .and_then(|word| word.parse().ok())
                .unwrap_or(0);
        }
    }
}

/// The `schedule()` count (`sched_count`, the third number) of the line `cpuN` in
/// `/proc/schedstat` (versions 10 to 17 put it there).
pub fn schedstat_schedules(text: &str, cpu: usize) -> Option<u64> {
    text.lines().find_map(|line| {
        let mut words = line.split_ascii_whitespace();
        let name = words.next()?;
        if name.strip_prefix("cpu")?.parse::<usize>().ok()? != cpu {
            return None;
        }
        words.nth(2)?.parse().ok()
    })
}

/// A task's `schedstat`: time on a CPU (ns), time waiting to run (ns), timeslices run.
pub fn task_schedstat(text: &str) -> Option<(u64, u64, u64)> {
    let mut words = text.split_ascii_whitespace().map(|w| w.parse::<u64>().ok());
    Some((words.next()??, words.next()??, words.next()??))
}

/// The fields of a task's `stat` line the sampler uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatFields<'a> {
    /// (2) The name, without parentheses.
    pub comm: &'a str,
    /// (39) The CPU the task last ran on.
    pub processor: u32,
    /// (40) The real-time priority (0 for non-real-time policies).
    pub rt_priority: u32,
    /// (41) The policy number (`SCHED_OTHER` 0, `SCHED_FIFO` 1, `SCHED_RR` 2, …).
    pub policy: u32,
}

/// Fields 2, 39, 40 and 41 of a task's `stat` line.
pub fn stat_fields(text: &str) -> Option<StatFields<'_>> {
    let open = text.find('(')?;
    let close = text.rfind(')').filter(|&c| c > open)?;
    // The first word after `)` is field 3.
    let mut words = text[close + 1..].split_ascii_whitespace();
    let processor = words.nth(39 - 3)?.parse().ok()?;
    let rt_priority = words.next()?.parse().ok()?;
    let policy = words.next()?.parse().ok()?;
    Some(StatFields {
        comm: &text[open + 1..close],
        processor,
        rt_priority,
        policy,
    })
}

/// `nonvoluntary_ctxt_switches` of a task's `status`: the times it was preempted.
pub fn nonvoluntary_switches(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("nonvoluntary_ctxt_switches:"))
        .and_then(|value| value.trim().parse().ok())
}

/// `se.nr_migrations` of a task's `sched` (`CONFIG_SCHED_DEBUG`): the times it moved
/// between CPUs, even when it came back before the next sample.
pub fn sched_migrations(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("se.nr_migrations"))
        .and_then(|rest| rest.trim_start().strip_prefix(':'))
        .and_then(|value| value.trim().parse().ok())
}

/// The total of `thermal_throttle/core_throttle_count` style files is read by the sampler; this
/// parses one such number (a single decimal, surrounding whitespace ignored).
pub fn single_number(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tasks_migrations_are_read_from_its_sched_file() {
        let text = "rtlat-t0 (1234, #threads: 3)\n-------\nse.exec_start    :   1.5\nse.nr_migrations                             :                    7\nnr_switches : 9\n";
        assert_eq!(super::sched_migrations(text), Some(7));
        assert_eq!(super::sched_migrations("nr_switches : 9\n"), None);
    }

    use super::*;

    const INTERRUPTS: &str = "           CPU0       CPU1       \n  0:         44          0   IO-APIC   2-edge      timer\n 24:          3        812   PCI-MSI 49152-edge      virtio0-input.0\nLOC:    1234567    7654321   Local timer interrupts\nERR:          0\n";

    #[test]
    fn an_interrupt_column_gives_each_line_its_count_on_that_cpu() {
        let column = column_of(INTERRUPTS.lines().next().unwrap(), 1).unwrap();
        let mut seen = Vec::new();
        let lines = interrupt_column(INTERRUPTS, column, |i, label, n| {
            seen.push((i, label.to_owned(), n))
        });
        assert_eq!(lines, 4);
        assert_eq!(
            seen,
            [
                (0, "0".to_owned(), 0),
                (1, "24".to_owned(), 812),
                (2, "LOC".to_owned(), 7654321),
                (3, "ERR".to_owned(), 0)
            ]
        );
        assert_eq!(column_of("CPU0 CPU2", 2), Some(1));
        assert_eq!(column_of("CPU0 CPU2", 1), None);
    }

    #[test]
    fn softirqs_schedstat_stat_and_status_fields() {
        let text = "                    CPU0       CPU1\n          HI:          1          2\n       TIMER:    1152187    1482943\n      NET_RX:        10         20\n      WEIRD:  5 5\n";
        let mut counts = [0; SOFTIRQS.len()];
        softirq_column(text, 1, &mut counts);
        assert_eq!((counts[0], counts[1], counts[3]), (2, 1482943, 20));

        let schedstat = "version 15\ntimestamp 4295\ncpu0 0 0 100 50 60 30 999 888 77\ndomain0 3 1 2\ncpu1 0 0 200 50 60 30 999 888 77\n";
        assert_eq!(schedstat_schedules(schedstat, 1), Some(200));
        assert_eq!(schedstat_schedules(schedstat, 2), None);
        assert_eq!(
            task_schedstat("170166 3070811 2\n"),
            Some((170166, 3070811, 2))
        );
        assert_eq!(task_schedstat("1 x 2"), None);

        let stat = "1234 (stress (ng)) R 1 1234 1234 0 -1 4194560 100 0 0 0 5 6 0 0 -96 0 1 0 100 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 95 1 0 0 0\n";
        let fields = stat_fields(stat).unwrap();
        assert_eq!(
            fields,
            StatFields {
                comm: "stress (ng)",
                processor: 1,
                rt_priority: 95,
                policy: 1
            }
        );
        assert_eq!(stat_fields("1 (x) R 1"), None);
        assert_eq!(
            nonvoluntary_switches(
                "Name:\tx\nvoluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t7\n"
            ),
            Some(7)
        );
        assert_eq!(single_number(" 42\n"), Some(42));
    }
}
