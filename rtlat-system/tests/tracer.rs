//! The osnoise tracer path (noise/tracer.rs): the live probe on this machine (whose kernel has
//! no osnoise tracer), the trace parser on text in the kernel's format, the overlap window and
//! the ranked causes, start and restore on a constructed tracefs tree, and the atomic save.

use std::path::{Path, PathBuf};
use std::process::Command;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::Facts;
use rtlat_system::noise::Spike;
use rtlat_system::noise::tracer::{
    NOISE_EVENTS, NoiseEvent, NoiseKind, NoiseTrace, TracerError, TracerPath, causes,
    events_overlapping, parse, probe,
};

const NOT_MOUNTED: &str =
    "absent: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)";

/// What `probe` must say of a tracefs whose `available_tracers` reads `available`.
fn expected_for(available: &str, tracefs: &Path) -> TracerPath {
    let words: Vec<&str> = available.split_whitespace().collect();
    if words.contains(&"osnoise") {
        let options = std::fs::read_to_string(tracefs.join("osnoise/options")).unwrap_or_default();
        if options.contains("OSNOISE_WORKLOAD") {
            return TracerPath::Available(tracefs.to_path_buf());
        }
        return TracerPath::Absent(
            "absent: this kernel's osnoise tracer has no NO_OSNOISE_WORKLOAD option (Linux 6.3+): it would run its own workload threads on the measured CPUs and perturb the measurement, so it is not started".into(),
        );
    }
    TracerPath::Absent(format!(
        "absent: this kernel's tracefs lists no osnoise tracer (available: {})",
        words.join(" ")
    ))
}

#[test]
fn the_live_probe_names_why_the_tracer_is_absent() {
    let found = probe(&Facts::live());
    eprintln!("live probe: {found:?}");
    match rtlat_linux::find_tracefs(Path::new("/")) {
        Err(_) => assert_eq!(found, TracerPath::Absent(NOT_MOUNTED.into())),
        Ok(dir) => {
            let available = std::fs::read_to_string(dir.join("available_tracers")).unwrap();
            assert_eq!(found, expected_for(&available, &dir));
        }
    }
}

/// Set by the test below for the copy of this binary it runs in a private mount namespace.
const PRIVATE_MOUNTS: &str = "RTLAT_TEST_PRIVATE_MOUNTS";

/// With tracefs mounted (in a private mount namespace, so the machine's mounts are not
/// changed), the probe reads this kernel's `available_tracers`: here `blk function nop`, no
/// osnoise.
#[test]
fn the_probe_reads_this_kernels_tracers_with_tracefs_mounted_privately() {
    let exe = std::env::current_exe().unwrap();
    let output = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "--"])
        .arg(&exe)
        .args([
            "tracer::probe_in_a_private_mount_namespace",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PRIVATE_MOUNTS, "1")
        .output()
        .expect("unshare (util-linux) runs: the test needs it");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(output.status.success(), "the namespaced probe failed");
    assert!(
        stdout.contains("1 passed"),
        "the namespaced probe did not run"
    );
    assert!(
        stderr.contains("namespaced probe: "),
        "the namespaced probe printed nothing"
    );
}

#[test]
#[ignore = "run in a private mount namespace by the_probe_reads_this_kernels_tracers_with_tracefs_mounted_privately"]
fn probe_in_a_private_mount_namespace() {
    assert_eq!(
        std::env::var(PRIVATE_MOUNTS).as_deref(),
        Ok("1"),
        "mounts tracefs: run only in the private mount namespace the other test makes"
    );
    let dir = Path::new("/sys/kernel/tracing");
    if !dir.join("trace_marker").exists() {
        let status = Command::new("mount")
            .args(["-t", "tracefs", "nodev"])
            .arg(dir)
            .status()
            .unwrap();
        assert!(status.success(), "mount -t tracefs failed");
    }
    let available = std::fs::read_to_string(dir.join("available_tracers")).unwrap();
    let found = probe(&Facts::live());
    eprintln!("namespaced probe: {found:?}");
    let tracefs = rtlat_linux::find_tracefs(Path::new("/")).unwrap();
    assert_eq!(found, expected_for(&available, &tracefs));
    if !available.split_whitespace().any(|t| t == "osnoise") {
        let TracerPath::Absent(reason) = found else {
            unreachable!()
        };
        assert!(
            reason
                .starts_with("absent: this kernel's tracefs lists no osnoise tracer (available: ")
        );
    }
}

/// A trace as the kernel prints it with `trace_clock` = `mono`: the events' `start` on the
/// tracer's local clock, 1 s behind `mono` here; durations in whole µs where nothing
/// interrupted the noise, so the line's µs timestamp is exact.
const TRACE: &str = "\
# tracer: osnoise
#
#                                _-----=> irqs-off
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||   TIMESTAMP  FUNCTION
#              | |         |   |||||      |         |
          <idle>-0       [002] d.h1.   633.807501: irq_noise: local_timer:236 start 632.807500000 duration 1000 ns
          <idle>-0       [002] d.h1.   633.807642: irq_noise: local_timer:236 start 632.807640000 duration 2000 ns
          <idle>-0       [002] d.Z1.   633.807701: nmi_noise: start 632.807700000 duration 1000 ns
     kworker/2:1-147     [002] d..3.   633.807832: thread_noise: kworker/2:1:147 start 632.807800000 duration 30000 ns
          <idle>-0       [002] ..s1.   633.807904: softirq_noise:    TIMER:1 start 632.807900000 duration 4000 ns
           rtlat-50      [002] d..3.   633.807970: thread_noise:    rtlat:50 start 632.807950000 duration 20000 ns
          <idle>-0       [002] d.h1.   633.808643: irq_noise: local_timer:236 start 632.808640000 duration 3000 ns
          <idle>-0       [001] d.h1.   633.808700: irq_noise: enp1s0:24 start 632.808695000 duration 5000 ns
          <idle>-0       [002] d.h1.   633.809005: irq_noise: enp1s0:24 start 632.809000000 duration 5000 ns
 Web Content-3141        [002] d..3.   633.809200: thread_noise: Web Content:3141 start 632.809100000 duration 100000 ns
           <...>-859     [002] .....   634.000000: 1000000        190  99.98100       9     18      0   1007     18      1
          <idle>-0       [002] d.h1.   633.809300: sample_threshold: start 632.809290000 duration 10000 ns interference 1
CPU:2 [LOST 12 EVENTS]
          <idle>-0       [002] d.h1.   633.809400: irq_noise: local_timer:236 start 633.8 duration 2296 ns
          <idle>-0       [002] d.h1.   633.809500: irq_noise: local_timer:236 start 632.809400000 duration
          <idle>-0       [002] d.Z1.   633.809600: nmi_noise: ghost start 632.809500000 duration 100 ns
     kworker/2:1-147     [002] d..3.   633.809700: thread_noise: kworker/2:1:147 start 632.809600000 duration abc ns
          <idle>-0       [002] d.h1.   633.809800: irq_noise: local_timer start 632.809700000 duration 2000 ns
";

const S: u64 = 1_000_000_000;

fn at(seconds: u64, ns: u64) -> u64 {
    seconds * S + ns
}

/// An event as a tuple: CPU, kind, name, pid, start, duration, end.
type Row<'a> = (usize, NoiseKind, &'a str, Option<u32>, u64, u64, u64);

#[test]
fn the_parser_reads_the_four_events_and_counts_the_malformed_lines() {
    let parsed = parse(TRACE);
    assert_eq!(parsed.malformed, 5, "{parsed:#?}");
    assert_eq!(parsed.lost, 12);
    let summary: Vec<Row> = parsed
        .events
        .iter()
        .map(|e| {
            (
                e.cpu,
                e.kind,
                e.name.as_str(),
                e.pid,
                e.start_ns,
                e.duration_ns,
                e.end_ns,
            )
        })
        .collect();
    use NoiseKind::*;
    assert_eq!(
        summary,
        [
            (
                2,
                Irq,
                "local_timer:236",
                None,
                at(633, 807_500_000),
                1000,
                at(633, 807_501_000)
            ),
            (
                2,
                Irq,
                "local_timer:236",
                None,
                at(633, 807_640_000),
                2000,
                at(633, 807_642_000)
            ),
            (
                2,
                Nmi,
                "",
                None,
                at(633, 807_700_000),
                1000,
                at(633, 807_701_000)
            ),
            // Interrupted for 2 µs: its start is its own, not the timestamp − duration.
            (
                2,
                Thread,
                "kworker/2:1:147",
                Some(147),
                at(633, 807_800_000),
                30_000,
                at(633, 807_832_000)
            ),
            (
                2,
                Softirq,
                "TIMER:1",
                None,
                at(633, 807_900_000),
                4000,
                at(633, 807_904_000)
            ),
            (
                2,
                Thread,
                "rtlat:50",
                Some(50),
                at(633, 807_950_000),
                20_000,
                at(633, 807_970_000)
            ),
            (
                2,
                Irq,
                "local_timer:236",
                None,
                at(633, 808_640_000),
                3000,
                at(633, 808_643_000)
            ),
            (
                1,
                Irq,
                "enp1s0:24",
                None,
                at(633, 808_695_000),
                5000,
                at(633, 808_700_000)
            ),
            (
                2,
                Irq,
                "enp1s0:24",
                None,
                at(633, 809_000_000),
                5000,
                at(633, 809_005_000)
            ),
            (
                2,
                Thread,
                "Web Content:3141",
                Some(3141),
                at(633, 809_100_000),
                100_000,
                at(633, 809_200_000)
            ),
        ]
    );
}

#[test]
fn the_clocks_offset_is_found_near_each_event() {
    // Mono 5 µs behind the local clock around 10 s, 7 µs around 12 s. The threads ran 30 µs
    // with 5 µs of IRQs inside: the one within 10 ms of an IRQ takes that IRQ's offset
    // (its true start), the one alone takes its own (late by the 5 µs inside it).
    let text = "\
  <idle>-0 [000] d.h1. 10.000105: irq_noise: local_timer:236 start 10.000105000 duration 5000 ns
  worker-9 [000] d..3. 10.005030: thread_noise: worker:9 start 10.005000000 duration 30000 ns
  <idle>-0 [000] d.h1. 12.000203: irq_noise: local_timer:236 start 12.000200000 duration 10000 ns
  worker-9 [000] d..3. 12.500028: thread_noise: worker:9 start 12.500000000 duration 30000 ns
";
    let parsed = parse(text);
    let starts: Vec<u64> = parsed.events.iter().map(|e| e.start_ns).collect();
    assert_eq!(
        starts,
        [
            at(10, 100_000),
            at(10, 4_995_000),
            at(12, 193_000),
            at(12, 499_998_000)
        ]
    );
}

fn event(cpu: usize, kind: NoiseKind, name: &str, start_ns: u64, duration_ns: u64) -> NoiseEvent {
    NoiseEvent {
        cpu,
        kind,
        name: name.into(),
        pid: (kind == NoiseKind::Thread).then(|| name.rsplit_once(':').unwrap().1.parse().unwrap()),
        start_ns,
        duration_ns,
        end_ns: start_ns + duration_ns,
    }
}

#[test]
fn the_window_keeps_events_touching_its_edges_on_the_spikes_cpu_but_not_the_measuring_thread() {
    use NoiseKind::*;
    let spike = Spike {
        cpu: 2,
        tid: Some(50),
        previous_wake_ns: 1_000,
        wake_ns: 2_000,
        latency_ns: 500,
    };
    let events = [
        event(2, Irq, "ends-before:1", 0, 999),
        event(2, Irq, "ends-at-start:2", 0, 1_000),
        event(2, Irq, "inside:3", 1_200, 100),
        event(2, Thread, "spans:4", 500, 5_000),
        event(2, Irq, "starts-at-wake:5", 2_000, 10),
        event(2, Irq, "starts-after:6", 2_001, 10),
        event(1, Irq, "other-cpu:7", 1_200, 100),
        event(2, Thread, "rtlat:50", 1_000, 500),
    ];
    let kept: Vec<&str> = events_overlapping(&events, &spike)
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(
        kept,
        ["ends-at-start:2", "inside:3", "spans:4", "starts-at-wake:5"]
    );
    // Without the measuring thread's tid, its runs are evidence like any other thread's.
    let anonymous = Spike { tid: None, ..spike };
    assert_eq!(events_overlapping(&events, &anonymous).len(), 5);
}

#[test]
fn causes_are_ranked_by_total_duration_with_evidence_and_audit_checks() {
    let parsed = parse(TRACE);
    let spike = Spike {
        cpu: 2,
        tid: Some(50),
        previous_wake_ns: at(633, 807_642_000),
        wake_ns: at(633, 809_000_000),
        latency_ns: 400_000,
    };
    let window = parsed.overlapping(&spike);
    assert_eq!(window.len(), 6, "{window:#?}");
    let lines: Vec<String> = causes(window).iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "thread_noise kworker/2:1:147 ran 1× for 30 µs on CPU 2 (osnoise tracer) (rtlat audit: threads.on_isolated)",
            "irq_noise enp1s0:24 ran 1× for 5.0 µs on CPU 2 (osnoise tracer): move IRQ 24 with rtlat irq --away-from 2 (rtlat audit: irq.on_isolated)",
            "irq_noise local_timer:236 ran 2× for 5.0 µs on CPU 2 (osnoise tracer)",
            "softirq_noise TIMER:1 ran 1× for 4.0 µs on CPU 2 (osnoise tracer)",
            "nmi_noise ran 1× for 1.0 µs on CPU 2 (osnoise tracer)",
        ]
    );
    let scores: Vec<u64> = causes(parsed.overlapping(&spike))
        .iter()
        .map(|c| c.score)
        .collect();
    assert_eq!(scores, [30_000, 5_000, 5_000, 4_000, 1_000]);
    assert!(causes(Vec::<&NoiseEvent>::new()).is_empty());
}

/// A directory built like tracefs with the osnoise tracer (Linux 6.3+), under
/// `<root>/sys/kernel/tracing`.
struct Tree {
    _root: tempfile::TempDir,
    facts: Facts,
    tracefs: PathBuf,
}

const ORIGINAL: [(&str, &str); 12] = [
    ("trace_marker", ""),
    ("available_tracers", "osnoise timerlat function nop\n"),
    ("current_tracer", "nop\n"),
    ("tracing_on", "1\n"),
    (
        "trace_clock",
        "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n",
    ),
    ("osnoise/cpus", "0-3\n"),
    (
        "osnoise/options",
        "DEFAULTS OSNOISE_WORKLOAD NO_PANIC_ON_STOP NO_OSNOISE_PREEMPT_DISABLE NO_OSNOISE_IRQ_DISABLE\n",
    ),
    ("events/osnoise/irq_noise/enable", "0\n"),
    ("events/osnoise/softirq_noise/enable", "0\n"),
    ("events/osnoise/thread_noise/enable", "1\n"),
    ("events/osnoise/nmi_noise/enable", "0\n"),
    ("trace", TRACE),
];

impl Tree {
    fn new() -> Tree {
        let root = tempfile::tempdir().unwrap();
        let tracefs = root.path().join("sys/kernel/tracing");
        for (file, text) in ORIGINAL {
            let path = tracefs.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Tree {
            facts: Facts::at(root.path()),
            tracefs,
            _root: root,
        }
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.tracefs.join(file)).unwrap()
    }

    fn write(&self, file: &str, text: &str) {
        let path = self.tracefs.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn unchanged(&self) {
        for (file, text) in ORIGINAL {
            assert_eq!(self.read(file), text, "{file} was changed");
        }
    }
}

#[test]
fn start_sets_the_tracer_on_the_measured_cpus_and_stop_puts_every_setting_back() {
    let tree = Tree::new();
    assert_eq!(
        probe(&tree.facts),
        TracerPath::Available(tree.tracefs.clone())
    );
    let cpus = CpuSet::parse("2-3").unwrap();
    let plan = NoiseTrace::plan(&tree.tracefs, &cpus).unwrap();
    tree.unchanged();
    let trace = NoiseTrace::start(&tree.tracefs, &cpus).unwrap();
    assert_eq!(trace.changes(), plan);
    let changes: Vec<String> = trace
        .changes()
        .iter()
        .map(|c| {
            format!(
                "{}: {} → {}",
                c.path.strip_prefix(&tree.tracefs).unwrap().display(),
                c.was,
                c.set
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            "tracing_on: 1 → 0",
            "trace_clock: local → mono",
            "osnoise/cpus: 0-3 → 2-3",
            "osnoise/options: OSNOISE_WORKLOAD → NO_OSNOISE_WORKLOAD",
            "events/osnoise/irq_noise/enable: 0 → 1",
            "events/osnoise/softirq_noise/enable: 0 → 1",
            // thread_noise was already on: not written, not listed.
            "events/osnoise/nmi_noise/enable: 0 → 1",
            "current_tracer: nop → osnoise",
            "tracing_on: 0 → 1",
        ]
    );
    assert!(
        trace.changes()[0]
            .to_string()
            .ends_with("tracing_on: 1 → 0 (restored at the end)")
    );
    for (file, text) in [
        ("tracing_on", "1\n"),
        ("trace_clock", "mono\n"),
        ("osnoise/cpus", "2-3\n"),
        ("osnoise/options", "NO_OSNOISE_WORKLOAD\n"),
        ("current_tracer", "osnoise\n"),
    ] {
        assert_eq!(tree.read(file), text, "{file}");
    }
    for event in NOISE_EVENTS {
        assert_eq!(tree.read(&format!("events/osnoise/{event}/enable")), "1\n");
    }
    // A break: recording stops, the trace is read and saved.
    trace.pause().unwrap();
    assert_eq!(tree.read("tracing_on"), "0\n");
    assert_eq!(trace.events().unwrap().events.len(), 10);
    assert_eq!(trace.read().unwrap(), TRACE, "the text a break saves");

    trace.stop().unwrap();
    // Every file written holds its value from before (the selected clock and the option's
    // word, which is what tracefs takes back; the files tracefs prints as written, exactly).
    for (file, text) in ORIGINAL {
        let expected = match file {
            "trace_clock" => "local\n",
            "osnoise/options" => "OSNOISE_WORKLOAD\n",
            _ => text,
        };
        assert_eq!(tree.read(file), expected, "{file} not restored");
    }
}

#[test]
fn dropping_the_trace_restores_too() {
    let tree = Tree::new();
    tree.write("trace_clock", "local global [mono]\n");
    tree.write("osnoise/options", "DEFAULTS NO_OSNOISE_WORKLOAD\n");
    let trace = NoiseTrace::start(&tree.tracefs, &CpuSet::parse("1").unwrap()).unwrap();
    // The clock and the option were already as needed: not changed.
    assert!(
        trace
            .changes()
            .iter()
            .all(|c| !c.path.ends_with("trace_clock") && !c.path.ends_with("options"))
    );
    assert_eq!(trace.changes().len(), 7);
    drop(trace);
    assert_eq!(tree.read("osnoise/cpus"), "0-3\n");
    assert_eq!(tree.read("current_tracer"), "nop\n");
    assert_eq!(tree.read("tracing_on"), "1\n");
    assert_eq!(tree.read("events/osnoise/irq_noise/enable"), "0\n");
    assert_eq!(tree.read("trace_clock"), "local global [mono]\n");
}

#[test]
fn start_refuses_without_the_workload_option_or_with_another_tracer_and_changes_nothing() {
    let tree = Tree::new();
    tree.write(
        "osnoise/options",
        "DEFAULTS NO_PANIC_ON_STOP NO_OSNOISE_PREEMPT_DISABLE\n",
    );
    let cpus = CpuSet::parse("2").unwrap();
    let error = NoiseTrace::start(&tree.tracefs, &cpus).unwrap_err();
    assert!(matches!(error, TracerError::NoWorkloadOption));
    assert!(
        error
            .to_string()
            .contains("would run its own workload threads on the measured CPUs")
    );
    let TracerPath::Absent(reason) = probe(&tree.facts) else {
        panic!("the probe must refuse a tracer without NO_OSNOISE_WORKLOAD")
    };
    assert!(reason.starts_with(
        "absent: this kernel's osnoise tracer has no NO_OSNOISE_WORKLOAD option (Linux 6.3+)"
    ));
    tree.write(
        "osnoise/options",
        ORIGINAL
            .iter()
            .find(|(f, _)| *f == "osnoise/options")
            .unwrap()
            .1,
    );

    tree.write("current_tracer", "function\n");
    let error = NoiseTrace::start(&tree.tracefs, &cpus).unwrap_err();
    assert!(matches!(error, TracerError::Busy { ref current, .. } if current == "function"));
    tree.write("current_tracer", "nop\n");

    // rtla's timerlat in an instance of its own: the shared osnoise settings stay its own.
    // A function tracer in another instance shares nothing with it and does not refuse.
    tree.write("instances/other/current_tracer", "function\n");
    tree.write("instances/timerlat_top/current_tracer", "timerlat\n");
    let error = NoiseTrace::start(&tree.tracefs, &cpus).unwrap_err();
    assert!(
        matches!(error, TracerError::InstanceBusy { ref current, ref path }
            if current == "timerlat" && path.ends_with("instances/timerlat_top/current_tracer")),
        "{error}"
    );
    assert!(error.to_string().contains("rtla"), "{error}");
    tree.write("instances/timerlat_top/current_tracer", "nop\n");

    tree.write("available_tracers", "blk function nop\n");
    let error = NoiseTrace::start(&tree.tracefs, &cpus).unwrap_err();
    assert_eq!(
        error.to_string(),
        "this kernel's tracefs lists no osnoise tracer (available: blk function nop)"
    );
    assert_eq!(
        probe(&tree.facts),
        TracerPath::Absent(
            "absent: this kernel's tracefs lists no osnoise tracer (available: blk function nop)"
                .into()
        )
    );
    tree.write("available_tracers", "osnoise timerlat function nop\n");

    assert!(matches!(
        NoiseTrace::start(&tree.tracefs, &CpuSet::parse_allowing_empty("").unwrap()),
        Err(TracerError::NoCpus)
    ));
    tree.unchanged();
}

#[test]
fn a_failure_half_way_puts_back_what_was_already_changed() {
    let tree = Tree::new();
    // A file that refuses the write (as tracefs refuses a value with EINVAL): /dev/full.
    let nmi = tree.tracefs.join("events/osnoise/nmi_noise/enable");
    std::fs::remove_file(&nmi).unwrap();
    std::os::unix::fs::symlink("/dev/full", &nmi).unwrap();
    let error = NoiseTrace::start(&tree.tracefs, &CpuSet::parse("2").unwrap()).unwrap_err();
    assert!(error.to_string().contains("nmi_noise/enable"), "{error}");
    assert_eq!(tree.read("tracing_on"), "1\n");
    assert_eq!(tree.read("trace_clock"), "local\n");
    assert_eq!(tree.read("osnoise/cpus"), "0-3\n");
    assert_eq!(tree.read("osnoise/options"), "OSNOISE_WORKLOAD\n");
    assert_eq!(tree.read("events/osnoise/irq_noise/enable"), "0\n");
    assert_eq!(tree.read("events/osnoise/softirq_noise/enable"), "0\n");
    assert_eq!(tree.read("current_tracer"), "nop\n");

    // A missing file is found before anything is written, and never created.
    let tree = Tree::new();
    let nmi = tree.tracefs.join("events/osnoise/nmi_noise/enable");
    std::fs::remove_file(&nmi).unwrap();
    let error = NoiseTrace::start(&tree.tracefs, &CpuSet::parse("2").unwrap()).unwrap_err();
    assert!(error.to_string().contains("nmi_noise/enable"), "{error}");
    assert!(!nmi.exists());
    for (file, text) in ORIGINAL {
        if !file.contains("nmi_noise") {
            assert_eq!(tree.read(file), text, "{file} was changed");
        }
    }
}

#[test]
fn not_mounted_tracefs_is_named_with_the_mount_command() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("sys/kernel/tracing")).unwrap();
    assert_eq!(
        probe(&Facts::at(root.path())),
        TracerPath::Absent(NOT_MOUNTED.into())
    );
}

/// A real trace: Debian's 6.12 PREEMPT_RT kernel under QEMU (tests/rt_guest), `rtlat run -a 1
/// -p 80 --explain -b 50000` on the isolated CPU 1 while a SCHED_FIFO 95 shell loop (`sh`,
/// pid 525) held it for 240 ms; the header, the tracer's first events and the events around
/// the hog, as the kernel wrote them.
const REAL_TRACE: &str = include_str!("data/osnoise-6.12-rt-fifo-hog.trace");

#[test]
fn on_a_real_trace_the_hog_is_the_cause_and_the_idle_task_never() {
    let events = parse(REAL_TRACE);
    assert_eq!(events.malformed, 0);
    assert_eq!(events.events.len(), 33);
    // The measuring thread (523) woke at 61.294 s, then not until the hog left at 61.535 s.
    let spike = Spike {
        cpu: 1,
        tid: Some(523),
        previous_wake_ns: at(61, 294_063_000),
        wake_ns: at(61, 534_900_000),
        latency_ns: 240_000_000,
    };
    let overlapping = events_overlapping(&events.events, &spike);
    let names: Vec<&str> = overlapping.iter().map(|e| e.name.as_str()).collect();
    assert!(names.contains(&"sh:525"), "{names:?}");
    // The idle task (swapper/1, pid 0) ran in the window: the CPU waited for the hog's
    // arrival; it is never evidence, nor is the measuring thread itself.
    assert!(
        REAL_TRACE.contains("thread_noise: swapper/1:0 start 61.323958503"),
        "the excerpt holds an idle run inside the window"
    );
    assert!(
        !names.iter().any(|n| n.starts_with("swapper/")),
        "{names:?}"
    );
    assert!(!names.contains(&"rtlat-t0:523"), "{names:?}");
    let causes = causes(overlapping);
    assert!(
        causes[0]
            .text
            .starts_with("thread_noise sh:525 ran 1× for 239.9 ms on CPU 1 (osnoise tracer)"),
        "{causes:#?}"
    );
    assert!(
        causes.iter().all(|c| !c.text.contains("swapper")),
        "{causes:#?}"
    );
}

#[test]
fn an_event_with_no_start_does_not_move_the_clocks_offset() {
    // The idle task's first event after the tracer starts has `start 0.000000000` and the
    // uptime as its duration: no time at all. Made longer, it would be the smallest
    // `stamp - start - duration` near it and shift its neighbours' starts.
    let line = "thread_noise: swapper/1:0 start 0.000000000 duration 59620439132 ns";
    assert!(REAL_TRACE.contains(line));
    let longer = REAL_TRACE.replace(
        line,
        "thread_noise: swapper/1:0 start 0.000000000 duration 59720439132 ns",
    );
    let (real, shifted) = (parse(REAL_TRACE), parse(&longer));
    let starts = |e: &rtlat_system::noise::tracer::Events| {
        e.events
            .iter()
            .filter(|e| e.pid != Some(0))
            .map(|e| e.start_ns)
            .collect::<Vec<_>>()
    };
    assert_eq!(starts(&real), starts(&shifted));
    // The neighbour's start lands on the trace clock: it ran 3.6 ms up to its stamp.
    let first = real
        .events
        .iter()
        .find(|e| e.name == "rtlat-t0:523")
        .unwrap();
    assert_eq!(first.end_ns, at(59, 594_177_000));
    assert!(
        first.start_ns.abs_diff(at(59, 594_177_000) - 3_604_983) < 20_000,
        "{first:?}"
    );
}
