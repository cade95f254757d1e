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
