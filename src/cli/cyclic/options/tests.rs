use std::path::PathBuf;
use std::time::Duration;

use rtlat_linux::ProcessCpus;
use rtlat_linux::cpuset::CpuSet;

use super::*;

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_owned).collect()
}

fn run(line: &str) -> RunConfig {
    match parse(&words(line), false) {
        Ok(Parsed::Run(config)) => config,
        other => panic!("`{line}` gave {other:?}"),
    }
}

fn error(line: &str) -> String {
    match parse(&words(line), false) {
        Err(err) => err.to_string(),
        Ok(other) => panic!("`{line}` was accepted: {other:?}"),
    }
}

fn cpus(list: &str) -> CpuSet {
    CpuSet::parse(list).unwrap()
}

/// A machine whose `online` CPUs are all in the process's affinity mask.
fn machine(online: &str) -> ProcessCpus {
    ProcessCpus::new(cpus(online), cpus(online))
}

fn plan(line: &str, online: &str) -> Plan {
    run(line)
        .plan(&machine(online))
        .unwrap_or_else(|err| panic!("`{line}`: {err}"))
}

fn plan_error(line: &str, online: &str) -> String {
    plan_error_on(line, &machine(online))
}

fn plan_error_on(line: &str, machine: &ProcessCpus) -> String {
    match run(line).plan(machine) {
        Err(err) => err.to_string(),
        Ok(plan) => panic!("`{line}` was planned: {plan:?}"),
    }
}

/// (cpu, priority, interval) of each thread.
fn layout(plan: &Plan) -> Vec<(usize, u8, u64)> {
    plan.threads
        .iter()
        .map(|t| (t.cpu, t.priority, t.interval_us))
        .collect()
}

#[test]
fn every_option_has_one_table_entry() {
    let mut seen = std::collections::HashSet::new();
    for spec in SPECS {
        assert!(seen.insert(format!("{:?}", spec.id)), "{:?} twice", spec.id);
        assert_eq!(spec_of(spec.id).long, spec.long);
    }
    let shorts: Vec<char> = SPECS.iter().filter_map(|s| s.short).collect();
    let mut unique = shorts.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(shorts.len(), unique.len());
}

#[test]
fn defaults_are_cyclictests() {
    let config = run("");
    assert_eq!(config, RunConfig::default());
    assert_eq!(config.threads, Threads::Count(1));
    assert_eq!(config.interval_us, 1000);
    assert_eq!(config.distance_us(), 500);
    assert_eq!(config.loops, 0);
    assert_eq!(config.duration, None);
    assert_eq!(config.policy(), Policy::Other);
    assert_eq!(config.timer, TimerKind::Absolute);
    assert_eq!(config.clock, Clock::Monotonic);
    assert_eq!(config.unit, Unit::Us);
    assert_eq!(config.dma_latency_us(), Some(0));
    assert_eq!(config.spike_nodes, 1024);
    let plan = plan("", "0-3");
    assert_eq!(layout(&plan), [(0, 0, 1000)]);
    assert_eq!(plan.threads[0].policy, Policy::Other);
    assert!(plan.notices.is_empty());
}

#[test]
fn smp_run_with_histogram_as_in_the_brief() {
    let config = run("-m -S -p 80 -i 500 -l 4000 -q -h 400");
    assert!(config.mlockall && config.quiet && config.smp);
    assert_eq!(config.loops, 4000);
    assert_eq!(
        config.histogram,
        Some(Histogram {
            buckets: 400,
            with_total: false
        })
    );
    assert_eq!(config.distance_us(), 0);
    let plan = config.plan(&machine("0-1")).unwrap();
    assert_eq!(layout(&plan), [(0, 80, 500), (1, 80, 500)]);
    assert!(plan.threads.iter().all(|t| t.policy == Policy::Fifo));
    assert_eq!(
        plan.threads.iter().map(|t| t.index).collect::<Vec<_>>(),
        [0, 1]
    );
}

#[test]
fn intervals_grow_by_the_distance() {
    assert_eq!(
        layout(&plan("-t 2 -i 1000", "0-1")),
        [(0, 0, 1000), (1, 0, 1500)]
    );
    assert_eq!(
        layout(&plan("-t3 -i100 -d10", "0-1")),
        [(0, 0, 100), (1, 0, 110), (0, 0, 120)]
    );
    assert_eq!(
        layout(&plan("-t 2 -d 0", "0-1")),
        [(0, 0, 1000), (1, 0, 1000)]
    );
    // cyclictest 2.40 keeps the distance with -S (only -h/-H force 0).
    assert_eq!(layout(&plan("-S", "0-1")), [(0, 0, 1000), (1, 0, 1500)]);
    assert_eq!(
        layout(&plan("-t 2 -H 100", "0-1")),
        [(0, 0, 1000), (1, 0, 1000)]
    );
}

#[test]
fn priospread_counts_down() {
    assert_eq!(
        layout(&plan("-t 3 -p 80 --priospread", "0-3")),
        [(0, 80, 1000), (1, 79, 1500), (2, 78, 2000)]
    );
    // -S does not stop it (as in cyclictest 2.40).
    assert_eq!(
        layout(&plan("-S -p 80 --priospread", "0-1")),
        [(0, 80, 1000), (1, 79, 1500)]
    );
    // Without -p: threads + 1, counted down, with a notice; as cyclictest.
    let spread = plan("-t 3 --priospread", "0-3");
    assert_eq!(
        spread
            .threads
            .iter()
            .map(|t| t.priority)
            .collect::<Vec<_>>(),
        [4, 3, 2]
    );
    assert_eq!(spread.threads[0].policy, Policy::Fifo);
    assert_eq!(
        spread.notices,
        [
            "defaulting realtime priority to 4",
            "policy and priority don't match: setting policy to SCHED_FIFO"
        ],
        "cyclictest's words"
    );
    assert!(
        spread.notices[0].contains("priority to 4"),
        "{:?}",
        spread.notices
    );
    assert_eq!(
        layout(&plan("-t 2 -p 2 --priospread -d 0", "0-1")),
        [(0, 2, 1000), (1, 1, 1000)]
    );
}

#[test]
fn priospread_below_one_is_refused() {
    let message = plan_error("-t 2 -p 1 --priospread", "0-1");
    assert!(
        message.starts_with("--priospread conflicts with -p 1 and 2 threads"),
        "{message}"
    );
    assert!(message.contains("use -p 2 or more"), "{message}");
}

#[test]
fn policies_and_priorities() {
    let rr = plan("--policy rr -p 10 -t 2", "0-1");
    assert!(
        rr.threads
            .iter()
            .all(|t| t.policy == Policy::RoundRobin && t.priority == 10)
    );
    let fifo = plan("--policy fifo -t 2", "0-1");
    assert_eq!(layout(&fifo), [(0, 3, 1000), (1, 3, 1500)]);
    assert_eq!(fifo.notices.len(), 1);
    let batch = plan("--policy batch", "0");
    assert_eq!(
        (batch.threads[0].policy, batch.threads[0].priority),
        (Policy::Batch, 0)
    );
    assert_eq!(run("--policy=NORMAL").policy(), Policy::Other);
    assert_eq!(run("-p 0 --policy other").priority, Some(0));
    assert_eq!(run("--policy idle -p 0").policy(), Policy::Idle);
    assert_eq!(run("-p 99").policy(), Policy::Fifo);
    assert_eq!(run("-p 1 --policy rr").policy(), Policy::RoundRobin);
    let message = plan_error("--policy fifo -t 99", "0");
    assert!(
        message.contains("--policy fifo") && message.contains("give -p"),
        "{message}"
    );
}

#[test]
fn affinity_round_robin() {
    // The help text's example: -a 3-5,0 -t 5 runs threads on 0, 3, 4, 5, 0.
    let cpus_of = |plan: &Plan| plan.threads.iter().map(|t| t.cpu).collect::<Vec<_>>();
    assert_eq!(cpus_of(&plan("-a 3-5,0 -t 5", "0-7")), [0, 3, 4, 5, 0]);
    assert_eq!(cpus_of(&plan("-a 2 -t 3", "0-3")), [2, 2, 2]);
    assert_eq!(cpus_of(&plan("-t 3", "0-1")), [0, 1, 0]);
    assert_eq!(cpus_of(&plan("-t 3 -a", "2-3")), [2, 3, 2]);
    // Bare -t: one per CPU of the -a set, else per available CPU, in either order.
    assert_eq!(cpus_of(&plan("-t -a 1-2", "0-3")), [1, 2]);
    assert_eq!(cpus_of(&plan("-a 1-2 -t", "0-3")), [1, 2]);
    assert_eq!(cpus_of(&plan("-t", "0-3")), [0, 1, 2, 3]);
    assert_eq!(cpus_of(&plan("-a -t", "1,3")), [1, 3]);
    assert_eq!(cpus_of(&plan("-S", "0,2,5")), [0, 2, 5]);
    assert_eq!(cpus_of(&plan("-S -t -a", "0-1")), [0, 1]);
    // libnuma's forms.
    assert_eq!(cpus_of(&plan("-t -a all", "0-2")), [0, 1, 2]);
    assert_eq!(cpus_of(&plan("-t -a !0", "0-2")), [1, 2]);
    assert_eq!(cpus_of(&plan("-t -a +1", "4-6")), [5]);
    assert_eq!(cpus_of(&plan("-t --affinity=0-7:2", "0-7")), [0, 2, 4, 6]);
    assert_eq!(
        plan("--mainaffinity 1", "0-1").main_affinity,
        Some(cpus("1"))
    );
}

#[test]
fn cpus_not_online_are_refused_naming_the_online_ones() {
    assert_eq!(
        plan_error("-a 5", "0-1"),
        "invalid value '5' for -a/--affinity: CPU 5 is not online (online CPUs: 0-1; isolated CPUs are accepted)"
    );
    assert!(plan_error("-a 1-3", "0-1").contains("CPUs 2-3 are not online"));
    assert!(plan_error("--mainaffinity 4", "0-3").contains("--mainaffinity"));
    assert!(plan_error("-a !0-1", "0-1").contains("leaves no online CPU"));
    assert!(plan_error("-a !5", "0-1").contains("CPU 5 is not online"));
    assert!(plan_error("-a +2", "0-1").contains("position 2 is past the 2 online CPUs"));
    let nothing = ProcessCpus::new(CpuSet::new(), CpuSet::new());
    assert_eq!(run("").plan(&nothing), Err(UsageError::NoCpus));
}

/// Online CPUs 0-3, CPU 3 isolated (booted with isolcpus=3): the process's affinity mask,
/// and so its default set, is 0-2.
fn isolated_3() -> ProcessCpus {
    ProcessCpus::new(cpus("0-3"), cpus("0-2"))
}

fn cpus_on(line: &str, machine: &ProcessCpus) -> Vec<usize> {
    run(line)
        .plan(machine)
        .unwrap_or_else(|err| panic!("`{line}`: {err}"))
        .threads
        .iter()
        .map(|t| t.cpu)
        .collect()
}

#[test]
fn an_isolated_cpu_is_measured_when_named() {
    let m = isolated_3();
    // A list names any online CPU, the isolated one included.
    assert_eq!(cpus_on("-a 3", &m), [3]);
    assert_eq!(cpus_on("-t 2 -a 2-3", &m), [2, 3]);
    assert_eq!(cpus_on("-t -a 1,3", &m), [1, 3]);
    // all: every online CPU.
    assert_eq!(cpus_on("-t -a all", &m), [0, 1, 2, 3]);
    // --mainaffinity too.
    let main = run("--mainaffinity 3").plan(&m).unwrap().main_affinity;
    assert_eq!(main, Some(cpus("3")));
}

#[test]
fn without_a_cpu_named_the_default_set_is_used() {
    let m = isolated_3();
    assert_eq!(cpus_on("", &m), [0]);
    assert_eq!(cpus_on("-t 4", &m), [0, 1, 2, 0]);
    assert_eq!(cpus_on("-t", &m), [0, 1, 2]);
    assert_eq!(cpus_on("-S", &m), [0, 1, 2]);
    assert_eq!(cpus_on("-t -a", &m), [0, 1, 2]);
}

#[test]
fn relative_lists_count_from_the_online_cpus_and_keep_to_the_default_set() {
    let m = isolated_3();
    // !LIST: the online CPUs but these, of the default set.
    assert_eq!(cpus_on("-t -a !0", &m), [1, 2]);
    assert_eq!(cpus_on("-t -a !1-2", &m), [0]);
    // +LIST: the online CPUs at these positions, of the default set.
    assert_eq!(cpus_on("-t -a +0-1", &m), [0, 1]);
    assert_eq!(cpus_on("-t -a +1-3", &m), [1, 2]);
    // Nothing of the default set left: refused, naming the CPUs to give instead.
    assert_eq!(
        plan_error_on("-a !0-2", &m),
        "invalid value '!0-2' for -a/--affinity: it picks CPU 3, outside this process's default CPUs (0-2) that !LIST and +LIST keep to; to measure on an isolated CPU, name it by number: 3"
    );
    assert!(plan_error_on("-a +3", &m).contains("it picks CPU 3, outside"));
    // Every online CPU named, or a position past them: as on any machine.
    assert!(plan_error_on("-a !0-3", &m).contains("leaves no online CPU (online CPUs: 0-3)"));
    assert!(plan_error_on("-a +4", &m).contains("position 4 is past the 4 online CPUs (0-3)"));
    // Not online: refused, naming the online CPUs.
    assert_eq!(
        plan_error_on("-a 4", &m),
        "invalid value '4' for -a/--affinity: CPU 4 is not online (online CPUs: 0-3; isolated CPUs are accepted)"
    );
    // As cyclictest under `taskset -c 1` (default set 1 of 0-1): +0 is CPU 0, not CPU 1.
    let taskset_1 = ProcessCpus::new(cpus("0-1"), cpus("1"));
    assert!(plan_error_on("-a +0", &taskset_1).contains("it picks CPU 0, outside"));
    assert_eq!(cpus_on("-a +1", &taskset_1), [1]);
}

#[test]
fn last_thread_interval_must_fit() {
    let message = plan_error("-t 3 -i 3599999999 -d 1", "0");
    assert!(message.contains("-d 1 and 3 threads"), "{message}");
    assert_eq!(
        layout(&plan("-t 2 -i 3599999999 -d 1", "0"))[1].2,
        3_600_000_000
    );
}

#[test]
fn durations() {
    assert_eq!(run("-D 5m").duration, Some(Duration::from_secs(300)));
    assert_eq!(run("-D 10").duration, Some(Duration::from_secs(10)));
    assert_eq!(run("-D10s").duration, Some(Duration::from_secs(10)));
    assert_eq!(
        run("--duration=2h").duration,
        Some(Duration::from_secs(7200))
    );
    assert_eq!(
        run("--duration 1d").duration,
        Some(Duration::from_secs(86400))
    );
    assert_eq!(run("-D 0").duration, None);
}

#[test]
fn spellings_are_equivalent() {
    let same = [
        ("--json=x.json", "--json x.json"),
        ("-t5", "-t 5"),
        ("-t5", "--threads=5"),
        ("-t 5", "--threads 5"),
        ("-t 5", "--thr 5"),
        ("-mq", "-m -q"),
        ("-mqi500", "-m -q -i 500"),
        ("-i500", "--interval=500"),
        ("-i 500", "--int 500"),
        ("-a1", "-a 1"),
        ("-a 1", "--affinity=1"),
        ("-a 1", "--affinity 1"),
        ("-A 50", "--aligned=50"),
        ("-A50", "--aligned 50"),
        ("--secaligned 5", "--secaligned=5"),
        ("-S", "--smp"),
        ("-N", "--nsecs"),
        ("-N", "--unit ns"),
        ("-h 40", "--histogram=40"),
        ("-H 40", "--histofall 40"),
        ("-b 5", "--breaktrace=5"),
        ("-c 1", "--clock=1"),
        ("-d 0", "--distance 0"),
        ("-l 9", "--loops=9"),
        ("-p 9", "--priority 9"),
        ("-p 9", "--prior=9"),
        ("-r", "--relative"),
        ("-r", "--timer rel"),
        ("-s", "--system"),
        ("-s", "--timer nanosleep"),
        ("-s -r", "--timer nanosleep"),
        ("-x", "--posix_timers"),
        ("-x", "--timer posix"),
        ("-x --timer posix", "-x"),
        ("-v -u -M", "--verbose --unbuffered --refresh_on_max"),
        ("-m", "--mlockall"),
        ("-m", "--ml"),
        ("-q", "--quiet"),
        ("--laptop", "--lap"),
        ("-i 1 -i 2", "-i 2"),
        ("-t 4 -t", "-t"),
        ("-h 10 -H 20", "-H 20"),
        ("-t -- ", "-t"),
    ];
    for (a, b) in same {
        assert_eq!(run(a), run(b), "`{a}` vs `{b}`");
    }
    assert_eq!(run("--json=x.json").json, Some(PathBuf::from("x.json")));
}

#[test]
fn values_land_in_their_fields() {
    let config = run(
        "-b 50 --tracemark --latency 10 -c 1 -A 20 --mainaffinity 0 --spike 30 --spike-nodes 9 \
         -v -u -M --histfile h.txt -h 5 --fail-above 100 --timer timerfd -N -D 1h -l 7",
    );
    assert_eq!(config.breaktrace, Some(50));
    assert!(config.tracemark && config.verbose && config.unbuffered && config.refresh_on_max);
    assert_eq!(config.latency_target_us, Some(10));
    assert_eq!(config.dma_latency_us(), Some(10));
    assert_eq!(config.clock, Clock::Realtime);
    assert_eq!(config.align, Some(Align::Aligned { offset_us: 20 }));
    assert_eq!(config.main_affinity, Some(CpuSpec::List(cpus("0"))));
    assert_eq!((config.spike, config.spike_nodes), (Some(30), 9));
    assert_eq!(config.histfile, Some(PathBuf::from("h.txt")));
    assert_eq!(config.fail_above_us, Some(100));
    assert_eq!(config.timer, TimerKind::TimerFd);
    assert_eq!(config.unit, Unit::Ns);
    assert_eq!(config.duration, Some(Duration::from_secs(3600)));
    assert_eq!(config.loops, 7);
    assert_eq!(
        run("--secaligned").align,
        Some(Align::SecAligned { offset_us: 0 })
    );
    assert_eq!(run("-A").align, Some(Align::Aligned { offset_us: 0 }));
    assert_eq!(run("--laptop").dma_latency_us(), None);
    assert_eq!(run("--default-system").dma_latency_us(), None);
    // --smi needs the processor's SMI counter: where this machine has none (a test that
    // runs on an Intel machine takes the option), it is refused before anything, naming why.
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    match rtlat_linux::msr::smi_support(&cpuinfo) {
        Ok(()) if cfg!(target_arch = "x86_64") => assert!(run("--smi -a 0").smi),
        _ => {
            let refused = error("--smi");
            assert!(
                refused.contains("SMI counting is not supported here"),
                "{refused}"
            );
            assert!(refused.contains("run without --smi"), "{refused}");
        }
    }
}

#[test]
fn help() {
    assert_eq!(parse(&words("--help"), false), Ok(Parsed::Help));
    assert_eq!(parse(&words("-?"), false), Ok(Parsed::Help));
    assert_eq!(parse(&words("--help"), true), Ok(Parsed::Help));
    assert_eq!(parse(&words("-m -i 0 --help"), false), Ok(Parsed::Help));
    assert_eq!(parse(&words("--he"), false), Ok(Parsed::Help));
}

#[test]
fn rtlat_options_are_refused_under_the_cyclictest_name() {
    for line in [
        "--fail-above 5",
        "--unit ns",
        "--timer abs",
        "--governor performance",
        "--profile bubblegum96",
    ] {
        let err = parse(&words(line), true).unwrap_err();
        assert!(matches!(err, UsageError::RtlatOnly { .. }), "{line}: {err}");
        let option = line.split(' ').next().unwrap();
        assert!(err.to_string().starts_with(option), "{err}");
    }
    // And cyclictest's own options work as usual under that name.
    let Ok(Parsed::Run(config)) = parse(&words("-t 2 -p 80 -q"), true) else {
        panic!()
    };
    assert!(config.invoked_as_cyclictest);
}

/// Invalid invocations: the exact error line, which must name the option.
#[test]
fn invalid_invocations() {
    #[rustfmt::skip]
    let table: &[(&str, &str, &str)] = &[
        ("-i 0", "-i/--interval", "invalid value '0' for -i/--interval: expected an interval of 1 to 3600000000 µs"),
        ("-i -5", "-i/--interval", "invalid value '-5' for -i/--interval: expected an interval of 1 to 3600000000 µs"),
        ("-i 1000x", "-i/--interval", "invalid value '1000x' for -i/--interval: expected an interval of 1 to 3600000000 µs"),
        ("--interval=", "-i/--interval", "invalid value '' for -i/--interval: expected an interval of 1 to 3600000000 µs"),
        ("-i 99999999999999999999", "-i/--interval", "invalid value '99999999999999999999' for -i/--interval: expected an interval of 1 to 3600000000 µs"),
        ("-i", "-i/--interval", "option -i/--interval needs a value: expected an interval of 1 to 3600000000 µs"),
        ("-p 100", "-p/--priority", "invalid value '100' for -p/--priority: expected a priority of 1 to 99 for SCHED_FIFO (0: the default)"),
        ("-p 100 --policy rr", "-p/--priority", "invalid value '100' for -p/--priority: expected a priority of 1 to 99 for SCHED_RR (0: the default)"),
        ("-p -1", "-p/--priority", "invalid value '-1' for -p/--priority: expected a priority of 1 to 99 for SCHED_FIFO (0: the default)"),
        ("--policy deadline", "--policy", "invalid value 'deadline' for --policy: expected one of other, normal, batch, idle, fifo, rr"),
        ("--policy fifo2", "--policy", "invalid value 'fifo2' for --policy: expected one of other, normal, batch, idle, fifo, rr"),
        ("-t 0", "-t/--threads", "invalid value '0' for -t/--threads: expected a thread count of 1 to 8192 (bare -t: one per CPU)"),
        ("-t -1", "-t/--threads", "invalid value '-1' for -t/--threads: expected a thread count of 1 to 8192 (bare -t: one per CPU)"),
        ("-t 9000", "-t/--threads", "invalid value '9000' for -t/--threads: expected a thread count of 1 to 8192 (bare -t: one per CPU)"),
        ("-t 2x", "-t/--threads", "invalid value '2x' for -t/--threads: expected a thread count of 1 to 8192 (bare -t: one per CPU)"),
        ("-a x", "-a/--affinity", "invalid value 'x' for -a/--affinity: expected a CPU list such as 0-3,5 (or all, !LIST, +LIST)"),
        ("-a 5-3", "-a/--affinity", "invalid value '5-3' for -a/--affinity: the CPU range 5-3 is reversed: write it as 3-5"),
        ("-a 0,,1", "-a/--affinity", "invalid value '0,,1' for -a/--affinity: the CPU list has an empty element (two commas in a row, or a comma at an end): expected comma-separated CPU numbers or ranges (N, A-B, A-B:STRIDE or A-B:USED/GROUP), e.g. 0-3,5"),
        ("--affinity=abc", "-a/--affinity", "invalid value 'abc' for -a/--affinity: 'abc' is not a CPU number or range: expected comma-separated CPU numbers or ranges (N, A-B, A-B:STRIDE or A-B:USED/GROUP), e.g. 0-3,5"),
        ("-a 9999", "-a/--affinity", "invalid value '9999' for -a/--affinity: CPU 9999 is too large: CPU numbers go from 0 to 8191"),
        ("--mainaffinity", "--mainaffinity", "option --mainaffinity needs a value: expected a CPU list such as 0-3,5 (or all, !LIST, +LIST)"),
        ("--mainaffinity x", "--mainaffinity", "invalid value 'x' for --mainaffinity: 'x' is not a CPU number or range: expected comma-separated CPU numbers or ranges (N, A-B, A-B:STRIDE or A-B:USED/GROUP), e.g. 0-3,5"),
        ("-D 10x", "-D/--duration", "invalid value '10x' for -D/--duration: expected a whole number of seconds, optionally followed by s, m, h or d (e.g. 30, 10s, 5m, 2h, 1d), at most 4294967295 s"),
        ("-D 1.5m", "-D/--duration", "invalid value '1.5m' for -D/--duration: expected a whole number of seconds, optionally followed by s, m, h or d (e.g. 30, 10s, 5m, 2h, 1d), at most 4294967295 s"),
        ("-D 99999999999d", "-D/--duration", "invalid value '99999999999d' for -D/--duration: expected a whole number of seconds, optionally followed by s, m, h or d (e.g. 30, 10s, 5m, 2h, 1d), at most 4294967295 s"),
        ("-D -5", "-D/--duration", "invalid value '-5' for -D/--duration: expected a whole number of seconds, optionally followed by s, m, h or d (e.g. 30, 10s, 5m, 2h, 1d), at most 4294967295 s"),
        ("-h 0", "-h/--histogram", "invalid value '0' for -h/--histogram: expected a histogram size of 1 to 1000000 buckets (µs, or ns with -N/--unit ns)"),
        ("-h 1000001", "-h/--histogram", "invalid value '1000001' for -h/--histogram: expected a histogram size of 1 to 1000000 buckets (µs, or ns with -N/--unit ns)"),
        ("-H -3", "-H/--histofall", "invalid value '-3' for -H/--histofall: expected a histogram size of 1 to 1000000 buckets (µs, or ns with -N/--unit ns)"),
        ("-h", "-h/--histogram", "option -h/--histogram needs a value: expected a histogram size of 1 to 1000000 buckets (µs, or ns with -N/--unit ns)"),
        ("-l -1", "-l/--loops", "invalid value '-1' for -l/--loops: expected a number of loops, 0 for no limit"),
        ("-l 18446744073709551616", "-l/--loops", "invalid value '18446744073709551616' for -l/--loops: expected a number of loops, 0 for no limit"),
        ("-d -1", "-d/--distance", "invalid value '-1' for -d/--distance: expected a distance of 0 to 3600000000 µs"),
        ("-b 0", "-b/--breaktrace", "invalid value '0' for -b/--breaktrace: expected a latency threshold of 1 to 3600000000 (µs, or ns with -N/--unit ns)"),
        ("--spike=0", "--spike", "invalid value '0' for --spike: expected a latency threshold of 1 to 3600000000 (µs, or ns with -N/--unit ns)"),
        ("--spike-nodes 5", "--spike-nodes", "--spike-nodes has no effect without --spike: add it or drop --spike-nodes"),
        ("--spike 5 --spike-nodes 0", "--spike-nodes", "invalid value '0' for --spike-nodes: expected a number of spikes to keep, 1 to 1048576"),
        ("--latency -1", "--latency", "invalid value '-1' for --latency: expected a PM QoS latency of 0 to 2147483647 µs"),
        ("--latency 2147483648", "--latency", "invalid value '2147483648' for --latency: expected a PM QoS latency of 0 to 2147483647 µs"),
        ("--latency 0 --laptop", "--latency", "--latency conflicts with --laptop: --laptop leaves /dev/cpu_dma_latency alone; drop one of them"),
        ("--default-system --latency 5", "--latency", "--latency conflicts with --default-system: --default-system leaves /dev/cpu_dma_latency alone; drop one of them"),
        ("-A -5", "-A/--aligned", "invalid value '-5' for -A/--aligned: expected an offset of 0 to 3600000000 µs"),
        ("-A 5 --secaligned", "-A/--aligned", "-A/--aligned conflicts with --secaligned: a run is aligned one way; keep one of them"),
        ("--secaligned=x", "--secaligned", "invalid value 'x' for --secaligned: expected an offset of 0 to 3600000000 µs"),
        ("-r -x", "-r/--relative", "-r/--relative conflicts with -x/--posix_timers: a POSIX timer (-x) is periodic, so there is no relative mode to pick; keep one"),
        ("-r --timer abs", "--timer", "--timer abs conflicts with -r/--relative: -r/--relative means --timer rel; keep one"),
        ("--timer hrtimer", "--timer", "invalid value 'hrtimer' for --timer: expected one of abs, rel, nanosleep, posix, timerfd"),
        ("--timerlat -r", "--timerlat", "--timerlat conflicts with -r/--relative: the timerlat tracer's timer wakes the threads; drop the timer option"),
        ("--timerlat --timer timerfd", "--timerlat", "--timerlat conflicts with --timer timerfd: the timerlat tracer's timer wakes the threads; drop the timer option"),
        ("--timerlat -c 1", "--timerlat", "--timerlat conflicts with -c/--clock: the timerlat tracer's timer runs on CLOCK_MONOTONIC; drop -c or use -c 0"),
        ("--timerlat=1", "--timerlat", "option --timerlat takes no value, but '--timerlat=1' gives it one"),
        ("--unit ms", "--unit", "invalid value 'ms' for --unit: expected us or ns"),
        ("-N --unit us", "-N/--nsecs", "--unit us conflicts with -N/--nsecs: -N prints nanoseconds; drop one of them"),
        ("--fail-above=-1", "--fail-above", "invalid value '-1' for --fail-above: expected a latency of 0 to 3600000000 µs"),
        ("--fail", "--fail", "unknown option '--fail' (--help lists the options)"),
        ("--deepest-idle-state=-2", "--deepest-idle-state", "invalid value '-2' for --deepest-idle-state: expected an idle state number of 0 to 1023 (states above it are disabled for the run), or -1 (all of them)"),
        ("--deepest-idle-state 1x", "--deepest-idle-state", "invalid value '1x' for --deepest-idle-state: expected an idle state number of 0 to 1023 (states above it are disabled for the run), or -1 (all of them)"),
        ("--histfile h.txt", "--histfile", "--histfile has no effect without -h/--histogram or -H/--histofall: add it or drop --histfile"),
        ("--tracemark", "--tracemark", "--tracemark has no effect without -b/--breaktrace: add it or drop --tracemark"),
        ("--json", "--json", "option --json needs a value: expected a file path"),
        ("--json -q", "--json", "invalid value '-q' for --json: expected a file path, not something that looks like an option (write ./-q if that is the file)"),
        ("--json=", "--json", "invalid value '' for --json: expected a file path"),
        ("-n", "-n", "-n/--nanosleep is a cyclictest option that rtlat does not support: cyclictest 2.0 removed it, as clock_nanosleep is the default sleep; drop -n"),
        ("--nanosleep", "--nanosleep", "-n/--nanosleep is a cyclictest option that rtlat does not support: cyclictest 2.0 removed it, as clock_nanosleep is the default sleep; drop -n"),
        ("--hist=4", "--hist", "option '--hist' is ambiguous: it could be --histogram, --histofall, --histfile; type more of the name"),
        ("--threads=", "-t/--threads", "invalid value '' for -t/--threads: expected a thread count of 1 to 8192 (bare -t: one per CPU)"),
        ("--affinity=", "-a/--affinity", "invalid value '' for -a/--affinity: the CPU list is empty: expected comma-separated CPU numbers or ranges (N, A-B, A-B:STRIDE or A-B:USED/GROUP), e.g. 0-3,5"),
        ("--aligned=", "-A/--aligned", "invalid value '' for -A/--aligned: expected an offset of 0 to 3600000000 µs"),
        ("--prio=9", "--prio", "option '--prio' is ambiguous: it could be --priority, --priospread; type more of the name"),
        ("--mlockall=1", "--mlockall", "option --mlockall takes no value, but '--mlockall=1' gives it one"),
        ("5", "'5'", "unexpected argument '5': every setting is an option (e.g. -t 4, not 4; --help lists them)"),
        ("-F", "-F/--fifo", "option -F/--fifo needs a value: expected a file path"),
        ("-o 10", "-o/--oscope", "-o/--oscope is a cyclictest option that rtlat does not support: use -v and reduce the samples with another tool"),
        ("-R", "-R/--resolution", "-R/--resolution is a cyclictest option that rtlat does not support: rtlat reports clock facts in `rtlat audit`"),
    ];
    assert!(table.len() >= 35);
    for (line, option, want) in table {
        let got = error(line);
        assert_eq!(&got, want, "`{line}`");
        assert!(got.contains(option), "`{line}`: {got}");
        assert!(!got.contains('\n'), "`{line}`: {got}");
    }
}

#[test]
fn json_path_is_checked_for_writing() {
    let dir = std::env::temp_dir().join(format!("rtlat-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("out.json");
    assert_eq!(check_writable_parent(&file, "--json"), Ok(()));
    assert!(!file.exists(), "the probe file is removed");
    std::fs::write(&file, "keep").unwrap();
    assert_eq!(check_writable_parent(&file, "--json"), Ok(()));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "keep",
        "not truncated"
    );
    let err = check_writable_parent(&dir.join("missing/out.json"), "--json").unwrap_err();
    assert!(matches!(err, UsageError::NotWritable { .. }));
    assert!(
        err.to_string().starts_with("cannot write the --json file"),
        "{err}"
    );
    let err = check_writable_parent(&dir, "--histfile").unwrap_err();
    assert!(err.to_string().contains("is a directory"), "{err}");
    let err = check_writable_parent(&file.join("below-a-file"), "--json").unwrap_err();
    assert!(err.to_string().contains("not a directory"), "{err}");
    let config = RunConfig {
        json: Some(dir.join("nope/x.json")),
        ..RunConfig::default()
    };
    assert!(config.check_output_paths().is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn never_panics_on_odd_words() {
    let odd = [
        "",
        "-",
        "--",
        "---",
        "-=",
        "--=",
        "-é",
        "--é",
        "-\u{0}",
        "-t\u{e9}",
        "-aé",
        "-a !",
        "-a +",
        "-a all,1",
        "-t 99999999999999999999999",
        "-ttt",
        "-a -a -a",
        "--threads=",
        "--affinity=",
        "-A ",
        "-p 1e3",
        "-D s",
        "-D 0x10",
        "--policy=",
        "--unit=",
        "--timer=",
        "-ca",
        "-h 1 -Hx",
    ];
    let available = machine("0-3");
    for line in odd {
        for cyclictest in [false, true] {
            if let Ok(Parsed::Run(config)) = parse(&words(line), cyclictest) {
                let _ = config.plan(&available);
            }
        }
    }
    // Whole-word oddities (words() splits on spaces).
    for word in ["", " ", "-a ", "-t\n3", "--json=\u{0}"] {
        let _ = parse(&[word.to_owned()], false);
    }
}

#[test]
fn clocks() {
    assert_eq!(run("-c 0").clock, Clock::Monotonic);
    assert_eq!(run("--clock=1").clock, Clock::Realtime);
    assert_eq!(run("").clock.c_name(), "CLOCK_MONOTONIC");
    #[cfg(target_arch = "aarch64")]
    {
        let config = run("--clock cntvct");
        assert_eq!(
            (config.clock, config.timer),
            (Clock::Cntvct, TimerKind::Absolute)
        );
        assert_eq!(config.clock.c_name(), "CNTVCT_EL0");
        assert_eq!(run("-c cntvct --timer abs").clock, Clock::Cntvct);
        for (other, named) in [
            ("-r", "-r/--relative"),
            ("-s", "-s/--system"),
            ("-x", "-x/--posix_timers"),
            ("--timer timerfd", "--timer timerfd"),
            ("--timer rel", "--timer rel"),
        ] {
            let e = error(&format!("-c cntvct {other}"));
            assert!(
                e.starts_with(&format!("-c/--clock cntvct conflicts with {named}: ")),
                "{other}: {e}"
            );
        }
        let as_cyclictest = parse(&words("-c cntvct"), true).unwrap_err().to_string();
        assert!(
            as_cyclictest.contains("rtlat run -c cntvct"),
            "{as_cyclictest}"
        );
    }
    #[cfg(not(target_arch = "aarch64"))]
    {
        let e = error("--clock cntvct");
        assert!(e.contains("cntvct"), "{e}");
        assert!(
            e.contains("aarch64") && e.contains(std::env::consts::ARCH),
            "{e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
    }
    let accepted = if cfg!(target_arch = "aarch64") {
        "0 or monotonic (CLOCK_MONOTONIC), 1 or realtime (CLOCK_REALTIME), or cntvct (the ARM generic timer)".to_string()
    } else {
        format!(
            "0 or monotonic (CLOCK_MONOTONIC), 1 or realtime (CLOCK_REALTIME); cntvct (the ARM \
             generic timer) exists only on aarch64 and this rtlat is built for {}",
            std::env::consts::ARCH
        )
    };
    for value in ["2", "-1", "mono", "1x"] {
        assert_eq!(
            error(&format!("-c {value}")),
            format!("invalid value '{value}' for -c/--clock: expected {accepted}")
        );
    }
    // Symbolic names (newer cyclictest; 2.40 reads both as 0) and strtol's white space.
    assert_eq!(run("-c monotonic").clock, Clock::Monotonic);
    assert_eq!(run("-c realtime").clock, Clock::Realtime);
    assert_eq!(run("--clock=REALTIME").clock, Clock::Realtime);
    assert_eq!(run("--clock=CLOCK_REALTIME").clock, Clock::Realtime);
    assert_eq!(parse_words(&["-c", " 1"]).clock, Clock::Realtime);
}

fn parse_words(args: &[&str]) -> RunConfig {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    match parse(&args, false) {
        Ok(Parsed::Run(config)) => config,
        other => panic!("{args:?} gave {other:?}"),
    }
}

#[test]
fn numbers_are_read_as_strtol_reads_them() {
    // A harness passing '-h 3500' as one word: getopt gives -h the value ' 3500'.
    let config = parse_words(&["-h 3500", "-p 80", "-i 500", "-l 50", "-t 2", "-D 10"]);
    assert_eq!(config.histogram.map(|h| h.buckets), Some(3500));
    assert_eq!(config.priority, Some(80));
    assert_eq!(config.interval_us, 500);
    assert_eq!(config.loops, 50);
    assert_eq!(config.threads, Threads::Count(2));
    assert_eq!(config.duration, Some(Duration::from_secs(10)));
    let config = parse_words(&[
        "-p",
        " 80",
        "-i",
        "\t250",
        "-b",
        " 100",
        "-H",
        " 7",
        "-a",
        " 1",
        "-d",
        " 3",
        "-D",
        " 5m",
        "--latency",
        " 10",
        "--spike",
        "+9",
    ]);
    assert_eq!(config.priority, Some(80));
    assert_eq!(config.interval_us, 250);
    assert_eq!(config.breaktrace, Some(100));
    assert_eq!(
        config.histogram.map(|h| (h.buckets, h.with_total)),
        Some((7, true))
    );
    assert_eq!(config.affinity, Some(CpuSpec::List(cpus("1"))));
    assert_eq!(config.distance, Some(3));
    assert_eq!(config.duration, Some(Duration::from_secs(300)));
    assert_eq!(config.latency_target_us, Some(10));
    assert_eq!(config.spike, Some(9));
    // A value peeked after -t may start with white space too.
    assert_eq!(parse_words(&["-t", " 3"]).threads, Threads::Count(3));
    // Trailing garbage is still refused (cyclictest's atoi would silently drop it).
    for bad in [["-p", "80x"], ["-h", " 35 00"], ["-i", "1000x"]] {
        assert!(parse(&bad.map(String::from), false).is_err(), "{bad:?}");
    }
}

#[test]
fn what_cyclictest_warns_about_runs_with_its_warning() {
    let warned = |line: &str| run(line).warnings;
    // -S wins over -t and -a, with cyclictest's warnings.
    let config = run("-S -t 1");
    assert_eq!((config.threads, config.affinity), (Threads::PerCpu, None));
    assert_eq!(config.warnings, ["WARN: -t ignored due to smp mode"]);
    let config = run("-S -a 1");
    assert_eq!((config.threads, config.affinity), (Threads::PerCpu, None));
    assert_eq!(config.warnings, ["WARN: -a ignored due to smp mode"]);
    // cyclictest ignores the value after -S without reading it.
    assert_eq!(warned("-S -a 99"), ["WARN: -a ignored due to smp mode"]);
    assert_eq!(warned("-t 4 -S"), ["WARN: -t ignored due to smp mode"]);
    assert!(warned("-t -S").is_empty() && warned("-S -a 0").len() == 1);
    assert_eq!(
        layout(&plan("-S -t 1", "0-1")),
        [(0, 0, 1000), (1, 0, 1500)]
    );
    // A priority with a non-real-time policy: SCHED_FIFO, with cyclictest's words.
    let mismatch = "policy and priority don't match: setting policy to SCHED_FIFO";
    for line in [
        "--policy=other -p 80",
        "-p 80 --policy=batch",
        "--policy idle -p 5",
    ] {
        let config = run(line);
        assert_eq!(config.policy(), Policy::Fifo, "{line}");
        assert_eq!(config.warnings, [mismatch], "{line}");
        let plan = plan(line, "0");
        assert_eq!(plan.threads[0].policy, Policy::Fifo);
        assert_eq!(plan.notices, [mismatch]);
    }
    assert_eq!(run("-p 80 --policy=batch").priority, Some(80));
    let plan_spread = plan("--priospread --policy batch -t 2", "0-1");
    assert_eq!(
        plan_spread.notices,
        [mismatch, "defaulting realtime priority to 3"]
    );
    assert_eq!(layout(&plan_spread), [(0, 3, 1000), (1, 2, 1500)]);
    // -p 0: the default real-time priority (threads + 1), as cyclictest says.
    for line in ["-p 0", "-p 0 --policy fifo"] {
        let plan = plan(line, "0");
        assert_eq!(plan.threads[0].policy, Policy::Fifo, "{line}");
        assert_eq!(plan.threads[0].priority, 2, "{line}");
        assert_eq!(
            plan.notices,
            ["defaulting realtime priority to 2"],
            "{line}"
        );
    }
    // -p 0 with a non-real-time policy stays that policy.
    assert_eq!(
        plan("-p 0 --policy batch", "0").threads[0].policy,
        Policy::Batch
    );
    // A histogram sets the distance to 0, with cyclictest's warning when -d was given.
    let config = run("-h 100 -d 100");
    assert_eq!(config.distance_us(), 0);
    assert_eq!(
        config.warnings,
        ["WARN: distance is ignored and set to 0, if histogram enabled"]
    );
    // -s wins over -x.
    let config = run("-s -x");
    assert_eq!(config.timer, TimerKind::NanoSleep);
    assert_eq!(config.warnings.len(), 3);
    assert_eq!(config.warnings[2], "WARN: Using clock_nanosleep");
}

#[test]
fn deepest_idle_state() {
    assert_eq!(run("").deepest_idle_state, None);
    assert_eq!(run("--deepest-idle-state 1").deepest_idle_state, Some(1));
    assert_eq!(run("--deepest-idle-state=-1").deepest_idle_state, Some(-1));
    assert_eq!(run("--deepest 0").deepest_idle_state, Some(0));
}

#[test]
fn the_usage_names_every_option_of_the_table() {
    use crate::cli::run::usage::usage;
    // Refused by name (cyclictest's obsolete or unsupported options), told in DIFFERENCES.
    let refused = ["nanosleep", "oscope", "resolution", "dbg_cyclictest"];
    for cyclictest in [false, true] {
        let text = usage(cyclictest);
        for spec in specs(cyclictest) {
            let long = spec.long.unwrap_or_default();
            if refused.contains(&long) {
                continue;
            }
            if cyclictest && !spec.abbreviable {
                // rtlat's own options are not cyclictest's.
                assert!(!text.contains(&format!("--{long}=")), "{long}");
                continue;
            }
            let names = match spec.short {
                Some(short) => format!("-{short}, --{long}"),
                None => format!("--{long}"),
            };
            assert!(
                text.contains(&names),
                "{names} (as cyclictest: {cyclictest})"
            );
        }
    }
}
