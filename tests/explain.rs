//! `rtlat run --explain`, end to end on this machine (as root): spikes with known causes are
//! injected into a real run on the measured CPU, and the verdicts in the run's JSON must name
//! them. Structure only, no timing: each injection's time span is taken on CLOCK_MONOTONIC
//! (the clock of the spikes' `evidence_ns` windows) and every spike overlapping it is checked.
//! `RTLAT_EXPLAIN_ROUNDS` sets how many injections a test makes (default 3; the closing note's
//! figures use 20).

use std::net::UdpSocket;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rtlat_linux::PosixClock;
use rtlat_linux::thread::{Policy, gettid, set_affinity, set_scheduler};
use serde_json::Value;

use crate::common::TempDir;
use crate::common::{measuring, rtlat};

fn rounds() -> usize {
    std::env::var("RTLAT_EXPLAIN_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
}

fn now() -> u64 {
    PosixClock::monotonic().now_ns().expect("CLOCK_MONOTONIC")
}

/// The measured CPU: the last online one (CPU 0 keeps the test's own threads and the
/// sampler).
fn measured_cpu() -> usize {
    let online = rtlat_system::Facts::live()
        .online_cpus()
        .expect("online CPUs");
    online.iter().last().expect("a CPU")
}

/// `rtlat run --explain` on `cpu` at SCHED_FIFO 80, every `interval_us`, for `seconds`, its
/// JSON in `dir`.
fn start_run(
    dir: &TempDir,
    cpu: usize,
    interval_us: u64,
    seconds: u64,
    extra: &[&str],
) -> (Child, std::path::PathBuf) {
    let json = dir.join("run.json");
    let mut args = vec![
        "run".to_string(),
        "-q".into(),
        "-a".into(),
        cpu.to_string(),
        "-p".into(),
        "80".into(),
        "-i".into(),
        interval_us.to_string(),
        "-D".into(),
        seconds.to_string(),
        "--explain".into(),
        "--json".into(),
        json.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let child = Command::new(rtlat())
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rtlat run --explain");
    (child, json)
}

/// Waits for the run, checks its status, and gives its stdout and thread 0's `rtlat` object.
fn finish_run(child: Child, json: &std::path::Path) -> (String, Value) {
    let out = child.wait_with_output().expect("rtlat run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "rtlat run failed: {stderr}\n{stdout}");
    assert!(
        stderr.contains("# --explain: sampling the measured CPUs every 5 ms"),
        "the sampler's line: {stderr}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (stdout, doc["thread"]["0"]["rtlat"].clone())
}

/// The spikes whose evidence window overlaps `[from, to]`.
fn overlapping(thread: &Value, from: u64, to: u64) -> Vec<Value> {
    thread["spikes"]
        .as_array()
        .expect("spikes[]")
        .iter()
        .filter(|s| {
            let w = &s["evidence_ns"];
            match (w[0].as_u64(), w[1].as_u64()) {
                (Some(a), Some(b)) => a <= to && b >= from,
                _ => false,
            }
        })
        .cloned()
        .collect()
}

fn cause_texts(spike: &Value) -> Vec<String> {
    spike["causes"]
        .as_array()
        .map(|c| {
            c.iter()
                .map(|c| c["text"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Every run's JSON holds a well-formed record: the threshold, the sampler, the tracer's
/// state, and exactly one spike marked as the maximum, whose latency is the thread's max.
fn check_structure(thread: &Value) {
    let explain = &thread["explain"];
    assert_eq!(explain["sampler_period_ns"], 5_000_000);
    assert!(explain["tracer"].as_str().is_some(), "{explain}");
    let spikes = thread["spikes"].as_array().expect("spikes[]");
    let max: Vec<&Value> = spikes.iter().filter(|s| s["max"] == true).collect();
    assert_eq!(max.len(), 1, "one maximum in {spikes:#?}");
    assert_eq!(max[0]["latency"], thread["max"], "the maximum's record");
    let cycles: Vec<u64> = spikes
        .iter()
        .map(|s| s["cycle"].as_u64().unwrap())
        .collect();
    assert!(
        cycles.windows(2).all(|w| w[0] < w[1]),
        "in order: {cycles:?}"
    );
    for s in spikes {
        assert!(
            s["causes"].is_array()
                && (s["causes"].as_array().unwrap().is_empty() || s.get("unexplained").is_none()),
            "causes or a reason: {s}"
        );
    }
}

/// A hog: its tid, the sender that starts each spin, the spins' spans, the thread.
type Hog = (
    u32,
    mpsc::Sender<()>,
    mpsc::Receiver<(u64, u64)>,
    std::thread::JoinHandle<()>,
);

/// A thread pinned to `cpu` at SCHED_FIFO 95 that spins `spin` each time it is told to, and
/// lives on (so the sampler reads its last interval) until the sender is dropped.
fn hog(cpu: usize, spin: Duration) -> Hog {
    let (tid_tx, tid_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (span_tx, span_rx) = mpsc::channel();
    let handle = std::thread::Builder::new()
        .name("rtlat-hog".into())
        .spawn(move || {
            set_affinity(&[cpu]).expect("pin the hog");
            set_scheduler(Policy::Fifo, 95).expect("SCHED_FIFO 95 (the tests run as root)");
            tid_tx.send(gettid() as u32).unwrap();
            while go_rx.recv().is_ok() {
                let from = now();
                let until = Instant::now() + spin;
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
                let _ = span_tx.send((from, now()));
            }
        })
        .unwrap();
    (tid_rx.recv().unwrap(), go_tx, span_rx, handle)
}

#[test]
fn a_fifo_hog_on_the_measured_cpu_is_named_with_pid_and_priority() {
    let _one = measuring();
    let dir = TempDir::new("explain-hog");
    let cpu = measured_cpu();
    let rounds = rounds();
    let (hog_tid, go, spans, hog) = hog(cpu, Duration::from_millis(5));
    let (child, json) = start_run(
        &dir,
        cpu,
        1000,
        2 + (rounds as u64 * 4).div_ceil(10),
        &["--explain-above", "2000"],
    );
    std::thread::sleep(Duration::from_millis(1200));
    let mut bursts = Vec::new();
    for _ in 0..rounds {
        go.send(()).unwrap();
        bursts.push(spans.recv().unwrap());
        std::thread::sleep(Duration::from_millis(300));
    }
    let (stdout, thread) = finish_run(child, &json);
    drop(go);
    hog.join().unwrap();
    check_structure(&thread);
    let pid = std::process::id();
    let named =
        format!("SCHED_FIFO 95 task rtlat-hog (pid {pid}, tid {hog_tid}) ran on CPU {cpu} for ");
    let mut right = 0;
    for (from, to) in &bursts {
        let spikes = overlapping(&thread, *from, *to);
        assert!(
            !spikes.is_empty(),
            "a 5 ms SCHED_FIFO 95 spin on CPU {cpu} makes a spike above 2 ms: {thread:#}"
        );
        // The late wake-up the hog caused: its first cause is the hog.
        if spikes.iter().any(|s| {
            cause_texts(s)
                .first()
                .is_some_and(|c| c.starts_with(&named))
        }) {
            right += 1;
        } else {
            eprintln!("not named for the burst {from}..{to}: {spikes:#?}");
        }
    }
    eprintln!("explain: the hog named first for {right} of {rounds} bursts");
    assert_eq!(right, rounds, "{named:?} first for every burst\n{stdout}");
    assert!(
        stdout.contains(&format!("#   1. {named}")),
        "the verdict lines: {stdout}"
    );
}

/// Receive packet steering of the loopback device's traffic to one CPU, for one test:
/// `/sys/class/net/lo/queues/rx-0/rps_cpus`, restored when dropped.
struct SteerLoopback {
    file: &'static str,
    before: String,
}

impl SteerLoopback {
    fn to(cpu: usize) -> SteerLoopback {
        let file = "/sys/class/net/lo/queues/rx-0/rps_cpus";
        let before = std::fs::read_to_string(file).expect("lo's rps_cpus (CONFIG_RPS)");
        // The mask is comma-separated 32-bit hex words; one word holds CPUs 0-31.
        assert!(cpu < 32, "this test steers to CPUs 0-31");
        std::fs::write(file, format!("{:x}", 1u32 << cpu)).expect("steer lo's packets");
        SteerLoopback {
            file,
            before: before.trim().to_string(),
        }
    }
}

impl Drop for SteerLoopback {
    fn drop(&mut self) {
        let _ = std::fs::write(self.file, &self.before);
    }
}

#[test]
fn loopback_traffic_steered_to_the_measured_cpu_names_the_net_rx_softirq() {
    let _one = measuring();
    let dir = TempDir::new("explain-net");
    let cpu = measured_cpu();
    let other = (0..cpu).next().expect("this test needs two CPUs");
    let rounds = rounds();
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = receiver.local_addr().unwrap();
    // Sent from another CPU, received on the measured one: its NET_RX softirq (and the
    // steering's IPIs) run there in batches, as a NIC's traffic steered onto an isolated CPU
    // does. On this kernel a burst hardly delays a wake-up (a busy CPU wakes faster than an
    // idle one), so every cycle is a spike here (--explain-above 1, all kept): each one that
    // woke during a burst must name NET_RX on the CPU.
    let _steered = SteerLoopback::to(cpu);
    let (child, json) = start_run(
        &dir,
        cpu,
        1000,
        2 + (rounds as u64 * 17).div_ceil(10),
        &["--explain-above", "1", "--explain-nodes", "1000000"],
    );
    std::thread::sleep(Duration::from_millis(1200));
    let mut bursts = Vec::new();
    for _ in 0..rounds {
        // The span from the first datagram sent to the last.
        let span = std::thread::spawn(move || {
            set_affinity(&[other]).expect("pin the sender");
            // Real-time, so that a busy machine does not cut the burst into pieces.
            set_scheduler(Policy::Fifo, 50).expect("SCHED_FIFO 50 (the tests run as root)");
            let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
            let from = now();
            // A burst (~40 ms), not a flood: a cause present in more than a tenth of the
            // baseline's intervals is usual, not an event (verdict.rs).
            for _ in 0..5_000 {
                let _ = sender.send_to(&[0u8; 64], to);
            }
            (from, now())
        })
        .join()
        .unwrap();
        bursts.push(span);
        // Rare enough (~3 % of the time) that the bursts stay out of the verdict's baseline
        // (its 90th percentile over the sampler's intervals more than 250 ms away).
        std::thread::sleep(Duration::from_millis(1500));
    }
    let (_, thread) = finish_run(child, &json);
    check_structure(&thread);
    // The traffic's evidence on the CPU: its NET_RX softirq, or the steering's IPIs (function
    // call interrupts) when the softirq work itself was deferred past the spike's window (to
    // ksoftirqd, on a busy CPU).
    let on_cpu = format!(" on CPU {cpu} ");
    let names = |s: &Value, prefix: &str| {
        cause_texts(s)
            .iter()
            .any(|c| c.starts_with(prefix) && c.contains(&on_cpu))
    };
    let (mut inside, mut named, mut net_rx, mut bursts_with_spikes) = (0, 0, 0, 0);
    for (from, to) in &bursts {
        let spikes: Vec<Value> = overlapping(&thread, *from, *to)
            .into_iter()
            .filter(|s| {
                s["wake_ns"]
                    .as_u64()
                    .is_some_and(|w| w >= *from && w <= *to)
            })
            .collect();
        bursts_with_spikes += usize::from(!spikes.is_empty());
        for spike in &spikes {
            inside += 1;
            net_rx += usize::from(names(spike, "NET_RX softirq ×"));
            if names(spike, "NET_RX softirq ×") || names(spike, "CAL interrupts") {
                named += 1;
            } else {
                eprintln!("the traffic not named for a spike in the burst {from}..{to}: {spike:#}");
            }
        }
    }
    eprintln!(
        "explain: the traffic named for {named} of {inside} spikes inside {bursts_with_spikes} of {rounds} bursts (NET_RX itself for {net_rx})"
    );
    assert_eq!(
        bursts_with_spikes, rounds,
        "every cycle is a spike: {thread:#}"
    );
    assert_eq!(named, inside);
    assert!(
        net_rx * 2 >= inside,
        "NET_RX named for most: {net_rx} of {inside}"
    );
}

#[test]
fn a_quiet_run_names_none_of_the_injected_causes() {
    let _one = measuring();
    let dir = TempDir::new("explain-quiet");
    let cpu = measured_cpu();
    // The default threshold: each thread's p99.9 once known.
    let net_rx_before = net_rx_on(cpu);
    let (child, json) = start_run(&dir, cpu, 1000, 3, &[]);
    let (stdout, thread) = finish_run(child, &json);
    // The machine's own network traffic (CI fetching a package beside the tests: this VM's
    // NIC completes its transmits on the last CPU) raises NET_RX on the measured CPU for
    // real; then naming it is right, not a false cause.
    let net_rx = net_rx_on(cpu).saturating_sub(net_rx_before);
    if net_rx > 0 {
        eprintln!(
            "explain: NET_RX ran {net_rx}× on CPU {cpu} during the quiet run (the machine's own traffic): naming it is allowed"
        );
    }
    check_structure(&thread);
    assert_eq!(thread["explain"]["threshold_from"], "p99.9");
    for spike in thread["spikes"].as_array().unwrap() {
        for cause in cause_texts(spike) {
            assert!(
                !cause.contains("rtlat-hog")
                    && (net_rx > 0 || !cause.contains("NET_RX"))
                    && !cause.contains("migrated"),
                "a false cause in a quiet run: {cause}\n{stdout}\n{thread:#}"
            );
        }
    }
    assert!(stdout.contains("# explain T:0 (CPU "), "{stdout}");
}

#[test]
fn explain_options_are_refused_where_they_cannot_work() {
    for (args, says) in [
        (vec!["run", "--explain-above", "5"], "--explain-above"),
        (vec!["run", "--explain", "-c", "1"], "--explain"),
        (
            vec!["run", "--explain", "--explain-above", "0"],
            "--explain-above",
        ),
    ] {
        let out = Command::new(rtlat()).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// The NET_RX softirqs CPU `cpu` has run since boot (`/proc/softirqs`).
fn net_rx_on(cpu: usize) -> u64 {
    let text = std::fs::read_to_string("/proc/softirqs").expect("/proc/softirqs");
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix("NET_RX:"))
        .and_then(|counts| counts.split_whitespace().nth(cpu)?.parse().ok())
        .expect("NET_RX's count for the CPU in /proc/softirqs")
}

/// The thread id of `pid`'s thread named `name`.
fn thread_named(pid: u32, name: &str) -> Option<i32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .find_map(|e| {
            let e = e.ok()?;
            let comm = std::fs::read_to_string(e.path().join("comm")).ok()?;
            (comm.trim() == name).then(|| e.file_name().to_str()?.parse().ok())?
        })
}

/// Moves thread `tid` to `cpu` (`sched_setaffinity`).
fn move_thread(tid: i32, cpu: usize) {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes inside it; the call reads it.
    let ok = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    };
    assert!(ok, "move thread {tid} to CPU {cpu}");
}

#[test]
fn the_measuring_thread_moved_off_its_cpu_is_named_as_migrated() {
    let _one = measuring();
    let dir = TempDir::new("explain-move");
    let cpu = measured_cpu();
    let other = (0..cpu).next().expect("this test needs two CPUs");
    let rounds = rounds();
    // A hog on the other CPU: the moved thread waits there, so the move makes a spike.
    let (_, go, spans, hog) = hog(other, Duration::from_millis(5));
    let (child, json) = start_run(
        &dir,
        cpu,
        1000,
        2 + (rounds as u64 * 4).div_ceil(10),
        &["--explain-above", "2000"],
    );
    let measuring_tid = {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(tid) = thread_named(child.id(), "rtlat-t0") {
                break tid;
            }
            assert!(Instant::now() < deadline, "the measuring thread rtlat-t0");
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    std::thread::sleep(Duration::from_millis(1200));
    let mut bursts = Vec::new();
    for _ in 0..rounds {
        let from = now();
        move_thread(measuring_tid, other);
        go.send(()).unwrap();
        spans.recv().unwrap();
        move_thread(measuring_tid, cpu);
        std::thread::sleep(Duration::from_millis(20));
        bursts.push((from, now()));
        std::thread::sleep(Duration::from_millis(300));
    }
    let (_, thread) = finish_run(child, &json);
    drop(go);
    hog.join().unwrap();
    check_structure(&thread);
    // Moved and back between two samples: "migrated N× off CPU c and back"; still away at a
    // sample: "migrated from CPU c to CPU o".
    let moved = [
        format!("the measuring thread migrated from CPU {cpu} to CPU {other}"),
        format!("the measuring thread migrated from CPU {other} to CPU {cpu}"),
        "the measuring thread migrated ".to_string(),
    ];
    let mut right = 0;
    for (from, to) in &bursts {
        let spikes = overlapping(&thread, *from, *to);
        if spikes.iter().any(|s| {
            cause_texts(s).iter().any(|c| {
                moved[..2].iter().any(|m| c.starts_with(m))
                    || (c.starts_with(&moved[2]) && c.contains(&format!("off CPU {cpu} and back")))
            })
        }) {
            right += 1;
        } else {
            eprintln!("the move not named for {from}..{to}: {spikes:#?}");
        }
    }
    eprintln!("explain: the migration named for {right} of {rounds} moves");
    assert_eq!(right, rounds);
}
