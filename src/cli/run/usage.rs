//! The text `--help` / `-?` prints for `rtlat run` (and for rtlat invoked as `cyclictest`).

/// The usage text; `invoked_as_cyclictest` names the program `cyclictest` and leaves out
/// rtlat's own options, which that name refuses.
pub fn usage(invoked_as_cyclictest: bool) -> String {
    let program = if invoked_as_cyclictest {
        "cyclictest"
    } else {
        "rtlat run"
    };
    let mut text = format!(
        "Usage: {program} [OPTIONS]\n\
         \n\
         Measures wake-up latency: each thread sleeps until a deadline, again and again, and\n\
         records how late it woke. Options and defaults are cyclictest's.\n\
         \n\
         Threads and scheduling:\n\
         \x20 -t, --threads[=N]      N threads (default 1); bare -t: one per CPU of this\n\
         \x20                        process's affinity mask\n\
         \x20 -a, --affinity[=CPUS]  pin threads round-robin over CPUS, any online ones, isolated\n\
         \x20                        CPUs included (0-3,5; all: every online CPU; !0, +0: of the\n\
         \x20                        affinity mask); bare -a or no -a: thread i on the i-th CPU\n\
         \x20                        of the affinity mask (which isolcpus= leaves isolated CPUs\n\
         \x20                        out of: they are measured when named)\n\
         \x20 -S, --smp              one thread per CPU, each pinned (same as -t -a)\n\
         \x20 -p, --priority=PRIO    real-time priority 1..99 of thread 0 (SCHED_FIFO unless\n\
         \x20                        --policy rr); without -p threads run SCHED_OTHER\n\
         \x20     --policy=NAME      other (or normal), batch, idle, fifo or rr\n\
         \x20     --priospread       thread i gets priority PRIO - i\n\
         \x20     --mainaffinity=CPUS  CPUs for the main thread only (any online ones)\n\
         \n\
         Timing:\n\
         \x20 -i, --interval=US      interval of thread 0 in µs (default 1000)\n\
         \x20 -d, --distance=US      thread i's interval is -i + i × US (default 500)\n\
         \x20 -l, --loops=N          stop when a thread has done N cycles (default 0: no limit)\n\
         \x20 -D, --duration=TIME    stop after TIME: seconds, or a number with s, m, h or d\n\
         \x20 -c, --clock=N          0 or monotonic: CLOCK_MONOTONIC (default), 1 or realtime:\n\
         \x20                        CLOCK_REALTIME, cntvct: the ARM generic timer, read in user\n\
         \x20                        space (aarch64 only; absolute sleeps)\n\
         \x20 -r, --relative         sleep relative to now instead of to an absolute deadline\n\
         \x20 -s, --system           sleep with plain nanosleep\n\
         \x20 -x, --posix_timers     wake from a periodic POSIX timer\n\
         \x20 -A, --aligned[=US]     start threads from a common time, thread i offset i × US\n\
         \x20     --secaligned[=US]  start threads at the next full second plus US\n\
         \n\
         Output:\n\
         \x20 -q, --quiet            print the summary only at the end\n\
         \x20 -N, --nsecs            print nanoseconds (also the unit of -b, -h and --spike)\n\
         \x20 -v, --verbose          print every sample as thread:cycle:latency\n\
         \x20 -u, --unbuffered       do not buffer standard output\n\
         \x20 -M, --refresh_on_max   redraw the live lines only on a new maximum\n\
         \x20 -h, --histogram=N      histogram of N one-unit buckets per thread (then -d is 0)\n\
         \x20 -H, --histofall=N      like -h, plus a column summing all threads\n\
         \x20     --histfile=PATH    write the histogram to PATH instead of standard output\n\
         \x20     --json=PATH        write the results to PATH as JSON\n\
         \x20 -F, --fifo=PATH        a named pipe at PATH: each reader gets the current T: lines\n\
         \x20 -b, --breaktrace=N     stop when a latency exceeds N\n\
         \x20     --tracemark        with -b: mark the break in the ftrace buffer, stop tracing\n\
         \x20     --spike=N          record every latency above N\n\
         \x20     --spike-nodes=N    keep up to N spikes (default 1024)\n\
         \x20     --smi              count System Management Interrupts (x86)\n\
         \n\
         System:\n\
         \x20 -m, --mlockall        lock all memory\n\
         \x20     --latency=US       value written to /dev/cpu_dma_latency (default 0)\n\
         \x20     --laptop           leave /dev/cpu_dma_latency alone (save battery)\n\
         \x20     --default-system   leave /dev/cpu_dma_latency alone (measure the system as is)\n\
         \x20     --deepest-idle-state=N  keep the run's CPUs (-a, else all) out of idle states\n\
         \x20                        deeper than N (-1: all) for the run; restored at exit\n"
    );
    if !invoked_as_cyclictest {
        text.push_str(
            "\n\
             rtlat options (full names only):\n\
             \x20     --fail-above=US    exit with status 1 if a thread's maximum exceeds US µs\n\
             \x20     --load=TEXT        what runs beside the run, kept in --json's provenance;\n\
             \x20                        stress-ng: start rtlat's built-in load (stress-ng on\n\
             \x20                        every default CPU: compute, I/O, memory, 10 kHz timers)\n\
             \x20                        for the run and stop it at the end\n\
             \x20     --unit=us|ns       unit of printed values (--unit ns is -N)\n\
             \x20     --timer=KIND       abs (default), rel (-r), nanosleep (-s), posix (-x), timerfd\n\
             \x20     --governor=NAME    cpufreq governor of the threads' CPUs for this run only\n\
             \x20                        (e.g. performance); the previous one is restored at exit\n\
             \x20     --backend=linux|xenomai  what the threads sleep on: linux (default), or\n\
             \x20                        Xenomai Alchemy tasks on their periodic timers (a binary\n\
             \x20                        built with the xenomai feature; same output and JSON)\n\
             \x20     --explain          name the likely causes of each spike: a sampler on the\n\
             \x20                        CPUs no thread measures reads IRQs, softirqs, the tasks\n\
             \x20                        that ran, idle states, frequency and the threads' own\n\
             \x20                        preemptions and migrations every 5 ms; a verdict per\n\
             \x20                        spike after the results and in --json (spikes[])\n\
             \x20     --explain-above=N  explain every latency above N (unit of -b); default -b's\n\
             \x20                        value, else each thread's p99.9 once known\n\
             \x20     --explain-nodes=N  keep the records of the worst N spikes per thread\n\
             \x20                        (default 1024)\n\
             \x20     --timerlat         the kernel's timerlat tracer times each thread's CPU: its\n\
             \x20                        timer IRQ (IRQ), the woken thread (Thd) and, where the\n\
             \x20                        threads are its workload (timerlat_fd, Linux 6.5+), their\n\
             \x20                        return from user space (Usr); after the results and in\n\
             \x20                        --json (rtlat.timerlat). One thread per CPU, -d 0\n",
        );
        text.push_str(&format!(
            "\x20     --profile=NAME     a board's settings as defaults: one thread per board CPU\n\
             \x20                        (-t -a CPUS), --policy, -p, --governor, the frequency held\n\
             \x20                        for the run, and its rtlat audit checks (told on stderr);\n\
             \x20                        options given override it. NAME: {}\n",
            crate::cli::cyclic::options::board_names()
        ));
    }
    if invoked_as_cyclictest {
        text.push('\n');
        text.push_str(DIFFERENCES);
    }
    text.push_str(
        "\n\
         \x20 -?, --help             print this help\n\
         \n\
         Long options may be shortened to any unambiguous prefix (rtlat's own excepted).\n\
         Invalid or contradictory options, and outputs that cannot be written, are refused\n\
         before the run.\n\
         \n",
    );
    text.push_str(rtlat::exit_status::HELP);
    text.push('\n');
    text
}

/// Every way rtlat as `cyclictest` differs from cyclictest 2.40 (rt-tests), on purpose; the
/// README carries the same list. Checked side by side in `tests/cyclictest_compat.rs`.
pub const DIFFERENCES: &str = "\
Where this cyclictest differs from cyclictest 2.40, on purpose:
- It ends as cyclictest does on an unknown option (the usage, status 0), on a value
  cyclictest cannot use (the usage, status 1, after a line naming the value) and on a FATAL
  setting (status 1), and warns where cyclictest warns. Other bad input is refused with
  status 2 and one line: what cyclictest would silently get wrong, listed below.
- Numbers: white space before them and a + sign are read as strtol reads them ('-h 3500' as
  one word); trailing garbage is refused (-i 1000x, -p 80x, -l 1.5, -D 10x, -D 1.5m), where
  cyclictest's atoi keeps the prefix or reads 0, and so are overflows.
- Values cyclictest misuses: -i 0 (it spins), -c 2 (every sleep fails), -t 0 as a separate
  word (read as bare -t), -b 0 and --spike 0 (off), -d, -A, --secaligned or --latency below
  0, -h/-H above 1000000 (clamped), an unknown --policy name or a prefix (fifo2).
- Settings cyclictest drops silently: --latency with --laptop or --default-system,
  --histfile without -h/-H, --tracemark without -b, --spike-nodes without --spike, -r with
  -x, a word that is not an option (cyclictest 5), a path value that starts with - (--json
  -q: write ./-q), a value that looks like an option (-l -q).
- -a/--mainaffinity: a CPU that is not online is refused naming the online ones, and so is
  one a cgroup cpuset excludes (cyclictest warns and runs the thread elsewhere); isolated
  CPUs are accepted. -a !LIST or +LIST keeping none of the affinity mask's CPUs ends with
  cyclictest's WARN and FATAL lines, status 1, before anything is changed (cyclictest has
  set /dev/cpu_dma_latency and says so on stdout); --mainaffinity doing so is refused
  (cyclictest warns and runs). --priospread below priority 1 is refused (cyclictest runs
  that thread SCHED_OTHER).
- With -a, the main thread stays on the affinity mask's CPUs (cyclictest moves it onto the -a
  CPUs, where it shares the isolated CPU with the thread it measures); --mainaffinity moves it.
- --policy batch or idle without -p applies that policy (cyclictest runs SCHED_OTHER);
  --policy other|batch|idle before -p, and -t N before -S, warn as the other order does
  (cyclictest is silent in this order).
- -c also takes monotonic and realtime (cyclictest 2.40 reads both as 0, monotonic).
- -F PATH: a named pipe already at PATH is used and left; anything else there is refused
  (cyclictest deletes it).
- --deepest-idle-state (newer cyclictest) writes the cpuidle files itself (no libcpupower).
- -o/--oscope, -R/--resolution, --dbg_cyclictest and rtlat's own options are refused by
  name (run `rtlat run` for --fail-above, --unit, --timer, --governor, --profile,
  --backend).
- --json and --histfile are checked before the run (status 2 if they cannot be written); a
  write that fails after the run exits 4 (cyclictest: 0, the results lost).
- -t -N (a negative count as a separate word) is refused (cyclictest: invalid option, usage, 0).
- A reader gone (-v | head): the run is ended and undone and its files written, then the
  process dies of SIGPIPE (cyclictest dies at once, its /dev/shm file left behind).
- Each SIGUSR2 snapshot replaces the last from the file's first byte (cyclictest's file keeps
  NUL bytes from the second snapshot on).
- --tracemark uses tracefs where it is mounted and never mounts debugfs itself.
- A run whose interval is longer than its -D ends about a second after the duration, not at
  the next wake-up.
- Avg (thread lines, # Avg Latencies, the JSON's avg) is the mean of the exact latencies;
  cyclictest averages each cycle's value truncated to µs, about 0.5 µs lower (not with -N).
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_every_option_once_per_mode() {
        let rtlat = usage(false);
        let cyclictest = usage(true);
        for option in [
            "--threads",
            "--affinity",
            "--smp",
            "--json",
            "--histfile",
            "--secaligned",
        ] {
            assert!(
                rtlat.contains(option) && cyclictest.contains(option),
                "{option}"
            );
        }
        assert!(rtlat.contains("--timer=KIND") && !cyclictest.contains("--timer=KIND"));
        assert!(rtlat.contains("--profile=NAME") && !cyclictest.contains("--profile=NAME"));
        assert!(rtlat.contains("NAME: bubblegum96"));
        assert!(cyclictest.starts_with("Usage: cyclictest"));
        assert!(cyclictest.contains(DIFFERENCES) && !rtlat.contains(DIFFERENCES));
        for option in ["--deepest-idle-state", "--fifo", "monotonic"] {
            assert!(
                rtlat.contains(option) && cyclictest.contains(option),
                "{option}"
            );
        }
        assert!(
            cyclictest.lines().all(|l| l.chars().count() <= 100),
            "lines stay readable"
        );
        // The README carries the same list.
        let readme = include_str!("../../../README.md");
        for line in DIFFERENCES.lines().skip(1) {
            assert!(readme.contains(line.trim_start()), "README lacks: {line}");
        }
        assert!(
            rtlat.lines().all(|l| l.chars().count() <= 100),
            "lines stay readable"
        );
    }
}
