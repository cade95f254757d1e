//! The spike-evidence sampler and its verdict, on this machine (tests run as root here): a
//! SCHED_FIFO hog pinned to a CPU, loopback traffic sent from a CPU, a thread migrated, a
//! quiet period, each between two samples; and on a captured tree. Structure only, no timing:
//! each cause is injected between two samples and the verdict must name it.

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use rtlat_linux::PosixClock;
use rtlat_linux::thread::{Policy, gettid, set_affinity, set_scheduler};
use rtlat_system::Facts;
use rtlat_system::noise::{Config, Sampler, Spike, Watched, explain};

/// The live tests inject noise on a CPU: one at a time.
static LIVE: Mutex<()> = Mutex::new(());

/// The measured CPU: the last online one.
fn measured_cpu() -> usize {
    let online = Facts::live().online_cpus().expect("online CPUs");
    online.iter().last().expect("a CPU")
}

fn now() -> u64 {
    PosixClock::monotonic().now_ns().expect("CLOCK_MONOTONIC")
}

/// Ten 5 ms intervals of whatever the machine does anyway.
fn baseline(sampler: &mut Sampler) {
    for _ in 0..11 {
        sampler.sample(now());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Samples, runs `inject`, samples: the causes of a spike spanning the injection.
fn verdict_on(
    sampler: &mut Sampler,
    cpu: usize,
    tid: Option<u32>,
    inject: impl FnOnce(),
) -> Vec<String> {
    let start = now();
    sampler.sample(start);
    inject();
    let end = now();
    sampler.sample(end);
    let spike = Spike {
        cpu,
        tid,
        previous_wake_ns: start + 1,
        wake_ns: end - 1,
        latency_ns: (end - start) as i64,
    };
    let causes: Vec<String> = explain(&spike, sampler.ring().iter(), sampler.catalog())
        .iter()
        .map(ToString::to_string)
        .collect();
    eprintln!("verdict on CPU {cpu}: {causes:#?}");
    causes
}

/// Spins for `duration`.
fn spin(duration: Duration) {
    let until = Instant::now() + duration;
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

/// A SCHED_OTHER thread pinned to `cpu`, spinning until `stop`: it stands for the measuring
/// thread (a running thread gets preempted; a sleeping one would simply wake late).
fn spinner(cpu: usize, stop: &Arc<AtomicBool>) -> (u32, std::thread::JoinHandle<()>) {
    let (tx, rx) = mpsc::channel();
    let stop = Arc::clone(stop);
    let handle = std::thread::spawn(move || {
        set_affinity(&[cpu]).expect("pin the spinner");
        tx.send(gettid() as u32).unwrap();
        while !stop.load(Ordering::Relaxed) {
            std::hint::spin_loop();
        }
    });
    (rx.recv().expect("the spinner's tid"), handle)
}

#[test]
fn a_fifo_hog_on_the_cpu_is_named_first_with_pid_and_priority() {
    let _live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let cpu = measured_cpu();
    let stop = Arc::new(AtomicBool::new(false));
    let (tid, spinning) = spinner(cpu, &stop);
    let pid = std::process::id();
    // The hog exists (so the sampler follows it) but waits for the release to run, and stays
    // until the sample after it ran (a task gone is not read); a dropped `exit` ends it.
    let release = Arc::new(Barrier::new(2));
    let (tx, rx) = mpsc::channel();
    let (spun_tx, spun_rx) = mpsc::channel::<()>();
    let (exit_tx, exit_rx) = mpsc::channel::<()>();
    let hog = {
        let release = Arc::clone(&release);
        std::thread::Builder::new()
            .name("rtlat-hog".into())
            .spawn(move || {
                set_affinity(&[cpu]).expect("pin the hog");
                let fifo = set_scheduler(Policy::Fifo, 95);
                tx.send((gettid() as u32, fifo.is_ok())).unwrap();
                release.wait();
                if fifo.is_ok() {
                    spin(Duration::from_millis(20));
                }
                let _ = spun_tx.send(());
                let _ = exit_rx.recv();
            })
            .unwrap()
    };
    let (hog_tid, fifo) = rx.recv().unwrap();
    if !fifo {
        release.wait();
        drop(exit_tx);
        stop.store(true, Ordering::Relaxed);
        panic!("SCHED_FIFO 95 refused: these tests run as root");
    }
    let mut sampler = Sampler::new(
        Facts::live(),
        &[0, cpu],
        &[Watched { pid, tid }],
        Config::default(),
    );
    assert!(sampler.follows(hog_tid), "the hog is followed");
    baseline(&mut sampler);
    let causes = verdict_on(&mut sampler, cpu, Some(tid), || {
        release.wait();
        spun_rx.recv().unwrap();
    });
    drop(exit_tx);
    hog.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    spinning.join().unwrap();
    let named =
        format!("SCHED_FIFO 95 task rtlat-hog (pid {pid}, tid {hog_tid}) ran on CPU {cpu} for ");
    assert!(
        causes[0].starts_with(&named),
        "{named:?} first in {causes:#?}"
    );
    // The spinner is preempted by the hog only if it was running when the hog woke (it may
    // have been waiting for the CPU): not asserted.
}

#[test]
fn loopback_traffic_from_the_cpu_names_the_net_softirq() {
    let _live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let cpu = measured_cpu();
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = receiver.local_addr().unwrap();
    let mut sampler = Sampler::new(Facts::live(), &[cpu], &[], Config::default());
    baseline(&mut sampler);
    let causes = verdict_on(&mut sampler, cpu, None, || {
        std::thread::spawn(move || {
            set_affinity(&[cpu]).expect("pin the sender");
            let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
            for _ in 0..20_000 {
                // A full receive queue drops the datagram after the softirq ran: fine.
                let _ = sender.send_to(&[0u8; 64], to);
            }
        })
        .join()
        .unwrap();
    });
    assert!(
        causes
            .iter()
            .any(|c| c.starts_with("NET_RX softirq ×") && c.contains(&format!(" on CPU {cpu} "))),
        "NET_RX named in {causes:#?}"
    );
}

#[test]
fn a_thread_moved_to_the_cpu_is_named_as_migrated() {
    let _live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let cpu = measured_cpu();
    let online = Facts::live().online_cpus().unwrap();
    let from = online
        .iter()
        .find(|&c| c != cpu)
        .expect("this test needs two CPUs");
    let (tx, rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let mover = std::thread::spawn(move || {
        set_affinity(&[from]).expect("pin to the first CPU");
        spin(Duration::from_millis(2));
        tx.send(gettid() as u32).unwrap();
        // Runs on `from` until told to move, then moves (an ended test also ends it).
        let _ = go_rx.recv();
        set_affinity(&[cpu]).expect("move to the measured CPU");
        spin(Duration::from_millis(2));
        let _ = done_tx.send(());
        let _ = go_rx.recv();
    });
    let tid = rx.recv().unwrap();
    let pid = std::process::id();
    let mut sampler = Sampler::new(
        Facts::live(),
        &[cpu],
        &[Watched { pid, tid }],
        Config::default(),
    );
    baseline(&mut sampler);
    let causes = verdict_on(&mut sampler, cpu, Some(tid), || {
        go_tx.send(()).unwrap();
        done_rx.recv().unwrap();
    });
    drop(go_tx);
    mover.join().unwrap();
    let migrated = format!(
        "the measuring thread migrated from CPU {from} to CPU {cpu}: pin it (rtlat run -a)"
    );
    assert!(causes.contains(&migrated), "{migrated:?} in {causes:#?}");
}

#[test]
fn a_quiet_period_names_none_of_the_injected_causes() {
    // Other tenants share this machine, so "quiet" means: none of what the other tests inject
    // (no real-time task, no network softirq burst, no preemption of a sleeping thread).
    let _live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let cpu = measured_cpu();
    let (tx, rx) = mpsc::channel();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let sleeper = std::thread::spawn(move || {
        set_affinity(&[cpu]).expect("pin the sleeper");
        tx.send(gettid() as u32).unwrap();
        while stop_rx.recv_timeout(Duration::from_millis(1)).is_err() {}
    });
    let tid = rx.recv().unwrap();
    let pid = std::process::id();
    let mut sampler = Sampler::new(
        Facts::live(),
        &[cpu],
        &[Watched { pid, tid }],
        Config::default(),
    );
    baseline(&mut sampler);
    let causes = verdict_on(&mut sampler, cpu, Some(tid), || {
        std::thread::sleep(Duration::from_millis(5))
    });
    stop_tx.send(()).unwrap();
    sleeper.join().unwrap();
    for cause in &causes {
        assert!(
            !cause.starts_with("SCHED_FIFO")
                && !cause.starts_with("SCHED_RR")
                && !cause.contains("NET_")
                && !cause.contains("migrated"),
            "a false cause in a quiet period: {causes:#?}"
        );
    }
}

#[test]
fn a_captured_tree_gives_bounded_intervals_without_deltas() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vm-2cpu");
    let config = Config {
        history: 4,
        ..Config::default()
    };
    let mut sampler = Sampler::new(Facts::at(&root), &[1], &[], config);
    for k in 0..10 {
        sampler.sample(k * 5_000_000);
    }
    assert!(
        !sampler.catalog().irqs.is_empty(),
        "the tree's /proc/interrupts is named"
    );
    assert_eq!(sampler.ring().len(), 4, "the ring keeps its capacity");
    for interval in sampler.ring().iter() {
        assert_eq!(interval.duration_ns(), 5_000_000);
        let cpu = interval.cpu(1).expect("CPU 1");
        assert_eq!(cpu.irqs.len(), sampler.catalog().irqs.len());
        assert!(
            cpu.irqs.iter().all(|&n| n == 0),
            "a captured file does not change"
        );
    }
}

/// This thread's time on a CPU, ns (its `schedstat`).
fn cpu_time_ns() -> u64 {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    text.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn the_sampler_thread_fills_its_ring_and_stops_and_its_cost_is_reported() {
    let _live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let cpu = measured_cpu();
    let config = Config {
        history: 8,
        ..Config::default()
    };
    let mut sampler = Sampler::new(Facts::live(), &[cpu], &[], config);
    let (samples, before) = (200u64, cpu_time_ns());
    for _ in 0..samples {
        sampler.sample(now());
    }
    let per_sample = (cpu_time_ns() - before) / samples;
    eprintln!(
        "sampler cost: {per_sample} ns of CPU per sample with {} tasks followed ({:.2} % of a CPU at a {:?} period)",
        sampler.tasks_followed(),
        per_sample as f64 / config.period.as_nanos() as f64 * 100.0,
        config.period
    );
    assert_eq!(sampler.ring().len(), 8, "the ring stays at its capacity");

    let running = rtlat_system::noise::SamplerThread::spawn(sampler, &[0]).unwrap();
    std::thread::sleep(Duration::from_millis(60));
    let newest = running.with(|s| s.ring().iter().last().map(|i| i.end_ns));
    let sampler = running.stop();
    let last = sampler.ring().iter().last().map(|i| i.end_ns);
    assert!(last >= newest && newest.is_some(), "the thread sampled");
    assert_eq!(sampler.ring().len(), 8);
}

/// Allocations made by this thread (counted per thread, so tests running beside do not
/// disturb a count; the same allocator as rtlat-linux's test support).
mod allocations {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static COUNT: Cell<u64> = const { Cell::new(0) };
    }

    pub struct Counting;

    // SAFETY: forwards to the system allocator; only counts.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
            // SAFETY: the caller's contract is passed on unchanged.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: the caller's contract is passed on unchanged.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
            // SAFETY: the caller's contract is passed on unchanged.
            unsafe { System.alloc_zeroed(layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
            // SAFETY: the caller's contract is passed on unchanged.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    /// Allocations so far on this thread.
    pub fn count() -> u64 {
        COUNT.with(Cell::get)
    }
}

/// Writes `text` to `root/relative` in place (same inode: a file the sampler holds open sees
/// the new content), making the directories.
fn put(root: &std::path::Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A constructed tree: CPU 1 with one idle state and cpufreq, one task (pid 100) and one
/// measuring thread (pid 200), all counters from `n`.
fn tree_at(root: &std::path::Path, n: u64, task_cpu: u32) {
    put(
        root,
        "proc/interrupts",
        &format!(
            "           CPU0       CPU1\n 24:          1 {:>10}   PCI-MSI 1-edge      enp1s0\nLOC:        100 {:>10}   Local timer interrupts\n",
            n,
            10 * n
        ),
    );
    put(
        root,
        "proc/softirqs",
        &format!(
            "                    CPU0       CPU1\n          HI:          0          0\n       TIMER:          0 {:>10}\n      NET_TX:          0          0\n      NET_RX:          0 {:>10}\n",
            n,
            100 * n
        ),
    );
    put(
        root,
        "proc/schedstat",
        &format!(
            "version 15\ntimestamp 1\ncpu0 0 0 5 0 0 0 0 0 0\ncpu1 0 0 {} 0 0 0 0 0 0\n",
            7 * n
        ),
    );
    put(root, "proc/loadavg", "0.00 0.00 0.00 1/2 200\n");
    put(
        root,
        "proc/100/task/100/schedstat",
        &format!("{} 0 {n}\n", 1_000_000 * n),
    );
    put(
        root,
        "proc/100/task/100/stat",
        &format!(
            "100 (stress-ng) R 1 100 100 0 -1 0 0 0 0 0 0 0 0 0 -96 0 1 0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 {task_cpu} 95 1 0 0 0\n"
        ),
    );
    put(root, "proc/200/task/200/schedstat", "0 0 0\n");
    put(
        root,
        "proc/200/task/200/stat",
        "200 (rtlat) S 1 200 200 0 -1 0 0 0 0 0 0 0 0 0 -81 0 1 0 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 80 1 0 0 0\n",
    );
    put(
        root,
        "proc/200/task/200/status",
        &format!("Name:\trtlat\nnonvoluntary_ctxt_switches:\t{n}\n"),
    );
    let cpu1 = "sys/devices/system/cpu/cpu1";
    put(root, &format!("{cpu1}/cpuidle/state0/name"), "C6\n");
    put(root, &format!("{cpu1}/cpuidle/state0/latency"), "133\n");
    put(root, &format!("{cpu1}/cpuidle/state0/disable"), "0\n");
    put(
        root,
        &format!("{cpu1}/cpuidle/state0/usage"),
        &format!("{}\n", 3 * n),
    );
    put(
        root,
        &format!("{cpu1}/cpuidle/state0/time"),
        &format!("{}\n", 1000 * n),
    );
    put(
        root,
        &format!("{cpu1}/cpufreq/scaling_cur_freq"),
        "2400000\n",
    );
    put(
        root,
        &format!("{cpu1}/thermal_throttle/core_throttle_count"),
        &format!("{n}\n"),
    );
}

#[test]
fn a_constructed_tree_gives_each_counter_its_delta_without_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    tree_at(root, 1, 1);
    let config = Config {
        history: 4,
        rescan_every: 1_000,
        ..Config::default()
    };
    let mut sampler = Sampler::new(
        Facts::at(root),
        &[1],
        &[Watched { pid: 200, tid: 200 }],
        config,
    );
    assert!(sampler.follows(100) && sampler.follows(200));
    sampler.sample(0);
    // Every counter grows by one step per sample; the loadavg PID stays (no rescan).
    tree_at(root, 2, 1);
    sampler.sample(5_000_000);
    // From the third sample on (the previous counters sized), a sample allocates nothing.
    for n in 3..=8 {
        tree_at(root, n, 1);
        let start = allocations::count();
        sampler.sample(n * 5_000_000);
        assert_eq!(allocations::count(), start, "sample {n} allocated");
    }
    assert_eq!(sampler.ring().len(), 4);
    let interval = sampler.ring().iter().last().unwrap();
    assert_eq!(
        (interval.start_ns, interval.end_ns),
        (35_000_000, 40_000_000)
    );
    let cpu = interval.cpu(1).unwrap();
    assert_eq!(cpu.irqs, [1, 10]);
    assert_eq!((cpu.softirqs[1], cpu.softirqs[3]), (1, 100));
    assert_eq!(cpu.schedules, Some(7));
    assert_eq!(
        (cpu.idle_usage.as_slice(), cpu.idle_time_us.as_slice()),
        (&[3][..], &[1000][..])
    );
    assert_eq!((cpu.freq_khz, cpu.throttles), (Some(2_400_000), 1));
    assert_eq!(
        cpu.tasks.len(),
        1,
        "the measuring thread is not among the tasks"
    );
    let task = cpu.tasks[0];
    assert_eq!(
        (
            task.pid,
            task.tid,
            task.comm(),
            task.ran_ns,
            task.policy,
            task.rt_priority
        ),
        (100, 100, "stress-ng", 1_000_000, 1, 95)
    );
    let thread = interval.threads[0];
    assert_eq!(
        (
            thread.tid,
            thread.preempted,
            thread.migrated(),
            thread.rt_priority
        ),
        (200, 1, false, 80)
    );
    let names: Vec<&str> = sampler
        .catalog()
        .irqs
        .iter()
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(names, ["enp1s0", "Local timer interrupts"]);
    assert_eq!(sampler.catalog().idle[0][0].name, "C6");

    // The task moved to CPU 0 (not measured): no longer on CPU 1.
    tree_at(root, 9, 0);
    sampler.sample(45_000_000);
    assert!(
        sampler
            .ring()
            .iter()
            .last()
            .unwrap()
            .cpu(1)
            .unwrap()
            .tasks
            .is_empty()
    );
}

#[test]
fn explain_now_waits_for_the_sampler_to_pass_the_wake_up_then_explains_it() {
    use rtlat_system::noise::{SpikeWatch, Threshold, Verdict, WatchedThread};
    let _live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let cpu = measured_cpu();
    let tid = gettid() as u32;
    let mut sampler = Sampler::new(
        Facts::live(),
        &[cpu],
        &[Watched {
            pid: std::process::id(),
            tid,
        }],
        Config::default(),
    );
    baseline(&mut sampler);
    let watch = SpikeWatch::new(
        WatchedThread {
            cpu: Some(cpu),
            tid,
            interval_ns: 1_000_000,
        },
        Threshold::P999,
        1,
    );
    let wake = now();
    assert_eq!(
        watch.explain_now(7, 500_000, wake, &sampler),
        None,
        "not sampled past yet"
    );
    std::thread::sleep(Duration::from_millis(5));
    sampler.sample(now());
    let record = watch
        .explain_now(7, 500_000, wake, &sampler)
        .expect("sampled past the wake-up");
    assert_eq!(
        (record.cycle, record.latency_ns, record.wake_ns, record.cpu),
        (7, 500_000, wake, Some(cpu))
    );
    assert_eq!(record.window_ns.1, wake);
    assert!(!record.max, "apart from the watch's own records");
    assert!(
        matches!(record.verdict, Verdict::Causes(_)),
        "{:?}",
        record.verdict
    );
}
