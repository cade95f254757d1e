//! The tuning protocol of the seeds, end to end, as one test: a QEMU guest on Debian's 6.12
//! PREEMPT_RT kernel booted untuned and measured; on the host, QEMU's vCPU threads made
//! SCHED_FIFO 98 and pinned with `rtlat threads --pid QEMU --name '^CPU 1/' --set fifo:98 --pin
//! N --apply`; the guest booted again with CPU 1 isolated (`isolcpus=1 nohz_full=1
//! rcu_nocbs=1 irqaffinity=0`), IRQs moved away from CPU 1 inside it with `rtlat irq
//! --away-from 1 --apply`, measured again and the IRQs restored; the host's threads restored
//! from their restore file while QEMU still lives; `rtlat compare` and `rtlat plot` on the two
//! results. Only the vCPU of the guest's isolated CPU (`CPU 1/TCG`) is made real-time, as in
//! the seeds ("vCPU 1 FIFO 98"): two vCPU threads of one guest at the same SCHED_FIFO
//! priority on one host CPU stop the guest (FIFO never lets the second run while the first
//! spins waiting for it, as a booting kernel does for its other CPUs; seen here: the guest
//! never reached /init). Under TCG the latencies are emulation noise: what is checked is the flow, the
//! files and that every change, on both sides, is undone.
//!
//! A new QEMU process is the "reboot" (a kernel's command line is QEMU's `-append`): it is
//! started paused (`-S`) so that its vCPU threads exist, get their priority and CPU before
//! the guest runs a single instruction, and kept after the guest powers off
//! (`-no-shutdown`) so that the restore finds them.

use std::path::Path;
use std::time::Duration;

use super::machine::{Arch, Boot, Guest, Results, accel, kernel, not_run, tell, tools};
use super::x86::ISOLATED;
use crate::common::{self, Json, JsonExt, TempDir};

const TEST: &str = "rt_guest::protocol::the_seeds_protocol_end_to_end";
const LIMIT: Duration = Duration::from_secs(600);
const QUICK: Duration = Duration::from_secs(60);

/// A thread's scheduling as `/proc` shows it: (policy, rt_priority, Cpus_allowed_list).
fn scheduling(pid: u32, tid: u32) -> (u32, u32, String) {
    let task = format!("/proc/{pid}/task/{tid}");
    let stat = std::fs::read_to_string(format!("{task}/stat")).expect("the thread's stat");
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    // fields[0] is field 3: rt_priority is field 40, policy 41.
    let priority = fields[40 - 3].parse().unwrap();
    let policy = fields[41 - 3].trim().parse().unwrap();
    let status = std::fs::read_to_string(format!("{task}/status")).unwrap();
    let allowed = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_owned();
    (policy, priority, allowed)
}

#[test]
fn the_seeds_protocol_end_to_end() {
    if let Err(why) = tools(Arch::X86_64) {
        return not_run(TEST, &why);
    }
    let kernel = match kernel(Arch::X86_64, "6.12") {
        Ok(k) => k,
        Err(why) => return not_run(TEST, &why),
    };
    let accel = accel(Arch::X86_64, &kernel);
    // The host's scheduling changes: no measurement test beside it.
    let _alone = common::measuring();
    let dir = TempDir::new("protocol");

    // 1. The guest as installed: nothing isolated.
    let mut untuned = Guest::start(&Boot {
        single_threaded: false,
        kernel: &kernel,
        accel: accel.clone(),
        cmdline: "",
        suite: "protocol_before",
        smp: 2,
        paused: false,
        keep_after_poweroff: false,
        cpu: None,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let before = untuned.wait(LIMIT);
    drop(untuned);
    before.assert_done();
    before.assert_rc("before", 0);
    std::fs::write(dir.join("before.json"), before.bytes("before.json")).unwrap();
    let audit = Json::parse(&before.out("audit"));
    assert!(
        audit
            .at("findings")
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.at("id") == "cpus.isolated"
                || f.at("title")
                    .as_str()
                    .unwrap_or("")
                    .contains("No CPU is isolated")),
        "the untuned guest's audit does not say that no CPU is isolated: {audit:#}"
    );

    // 2. The reboot with CPU 1 isolated, in a QEMU whose vCPU threads the host tunes first.
    let mut tuned = Guest::start(&Boot {
        single_threaded: false,
        kernel: &kernel,
        accel: accel.clone(),
        cmdline: ISOLATED,
        suite: "protocol_after",
        smp: 2,
        paused: true,
        keep_after_poweroff: true,
        cpu: None,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let qemu = tuned.pid();
    let vcpus = wait_for_vcpus(&tuned);
    let host_cpu = *common::online_cpus().last().unwrap();
    let untouched: Vec<(u32, u32, String)> = vcpus
        .iter()
        .map(|(tid, _)| scheduling(qemu, *tid))
        .collect();
    let restore = dir.join("threads-restore.json");
    let (pid, pin) = (qemu.to_string(), host_cpu.to_string());
    let apply = common::rtlat_command(
        "threads",
        &[
            "--pid",
            &pid,
            "--name",
            "^CPU 1/",
            "--set",
            "fifo:98",
            "--pin",
            &pin,
            "--apply",
            "--save",
            restore.to_str().unwrap(),
        ],
        Some(dir.path()),
        QUICK,
    );
    assert_eq!(apply.code(), 0, "{}\n{}", apply.stdout, apply.stderr);
    for ((tid, name), was) in vcpus.iter().zip(&untouched) {
        if name.starts_with("CPU 1/") {
            // SCHED_FIFO is policy 1.
            assert_eq!(
                scheduling(qemu, *tid),
                (1, 98, pin.clone()),
                "{name} ({tid})"
            );
            assert!(
                apply.stdout.contains(name.as_str()),
                "{name}: {}",
                apply.stdout
            );
        } else {
            assert_eq!(
                &scheduling(qemu, *tid),
                was,
                "{name} ({tid}) was not selected"
            );
        }
    }
    tuned.resume().unwrap_or_else(|e| panic!("{e}"));
    let after = tuned.wait(LIMIT);
    // The guest is off, QEMU stays: its threads are restored while they exist.
    let undo = common::rtlat_command(
        "threads",
        &["--restore", restore.to_str().unwrap()],
        Some(dir.path()),
        QUICK,
    );
    let restored: Vec<(u32, u32, String)> = vcpus
        .iter()
        .map(|(tid, _)| scheduling(qemu, *tid))
        .collect();
    tuned.quit();
    assert_eq!(undo.code(), 0, "{}\n{}", undo.stdout, undo.stderr);
    assert_eq!(restored, untouched, "the vCPU threads after --restore");
    assert!(
        !Path::new(&format!("/proc/{qemu}")).exists(),
        "QEMU {qemu} still runs after quit"
    );
    after.assert_done();
    check_inside(&after);
    std::fs::write(dir.join("after.json"), after.bytes("after.json")).unwrap();

    // 3. The comparison and the plot, on the host.
    let compare = common::rtlat_command(
        "compare",
        &["before.json", "after.json"],
        Some(dir.path()),
        QUICK,
    );
    assert_eq!(compare.code(), 0, "{}\n{}", compare.stdout, compare.stderr);
    assert!(
        compare.stdout.contains("before.json") && compare.stdout.contains("after.json"),
        "{}",
        compare.stdout
    );
    let compared = common::rtlat_command(
        "compare",
        &["before.json", "after.json", "--json"],
        Some(dir.path()),
        QUICK,
    );
    assert_eq!(compared.code(), 0, "{}", compared.stderr);
    let json = Json::parse(&compared.stdout);
    assert_eq!(json.at("files").as_array().unwrap().len(), 2, "{json:#}");
    let plot = common::rtlat_command(
        "plot",
        &["before.json", "after.json", "-o", "latency.png"],
        Some(dir.path()),
        QUICK,
    );
    assert_eq!(plot.code(), 0, "{}\n{}", plot.stdout, plot.stderr);
    let png = std::fs::read(dir.join("latency.png")).expect("latency.png");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );

    // Nothing left behind: the restore file consumed, no other file written but the results.
    let mut names = dir.names();
    names.sort();
    assert_eq!(
        names,
        [
            "after.json",
            "before.json",
            "latency.png",
            "threads-restore.json"
        ]
    );
    tell(&format!(
        "rt_guest: protocol on {}: untuned boot {:.1} s, tuned boot {:.1} s; {}",
        kernel.package,
        before.elapsed.as_secs_f64(),
        after.elapsed.as_secs_f64(),
        compare
            .stdout
            .lines()
            .filter(|l| l.contains("max") || l.contains("worst"))
            .collect::<Vec<_>>()
            .join(" | ")
    ));
}

/// QEMU's vCPU threads once they exist (a paused QEMU creates them at once).
fn wait_for_vcpus(guest: &Guest) -> Vec<(u32, String)> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let vcpus = guest.vcpu_threads();
        if vcpus.len() == 2 {
            return vcpus;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "QEMU's vCPU threads: {vcpus:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Inside the tuned guest: the IRQs put on CPU 1 were moved away and restored, the
/// measurement ran on the isolated CPU, and the audit sees the isolation.
fn check_inside(after: &Results) {
    let before = after.text("irq.before");
    let moved = after.text("irq.moved");
    let restored = after.text("irq.after");
    assert!(
        before.contains("\n4: 0-1\n") && before.contains("\n8: 1\n"),
        "{before}"
    );
    after.assert_rc("irq.away", 0);
    for line in moved.lines() {
        let cpus = line.split_once(": ").map_or("", |(_, c)| c);
        assert!(
            !cpus.split(',').any(|c| c == "1" || c.ends_with("-1")),
            "still on CPU 1: {line}\n{moved}"
        );
    }
    after.assert_rc("irq.restore", 0);
    assert_eq!(restored, before, "the IRQs after --restore");
    after.assert_rc("after", 0);
    let json = Json::parse(&after.text("after.json"));
    assert_eq!(json.at("thread").at("0").at("cpu"), 1);
    assert_eq!(json.at("thread").at("0").at("cycles"), 5000);
    let audit = Json::parse(&after.out("audit"));
    let isolated = audit
        .at("findings")
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f.at("id") == "cpus.isolated_mismatch")
        .expect("cpus.isolated_mismatch");
    assert_eq!(isolated.at("severity"), "ok", "{isolated:#}");
}
