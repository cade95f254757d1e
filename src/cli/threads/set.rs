//! `rtlat threads --tid TID --set POLICY --pin CPUS` (or `--pid PID`/`--name REGEX` instead of
//! `--tid`): find each thread, read its settings, plan the changes, then dry run or apply
//! through the shared flow.
//!
//! A selection (`--pid`, `--name`, or both: the threads of PID whose thread name matches) is
//! resolved once, when the command starts; rtlat's own threads are never in it, and one that
//! matches no thread is refused. Every change names its thread by process, id and start time,
//! and is made only while the thread is still that one (`rtlat_system::tune::Change::apply`):
//! a thread that ends between the selection and the change makes the whole command undone and
//! refused, as with `--tid`.

use std::process::ExitCode;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::{FactResultExt as _, Facts};
use rtlat_system::tune::thread::{find_thread, thread_changes};
use rtlat_system::tune::{SchedRequest, ThreadRef};

use super::options::{Change, Selection, Threads};
use crate::cli::tuning::apply::{Request, run as run_request};

/// Plans and prints (and with `--apply` makes) the changes; returns the exit status.
pub fn run(change: Change) -> ExitCode {
    let facts = Facts::live();
    let refuse = |message: String| {
        errln!("rtlat threads: {message}");
        rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
    };
    // Each thread with what to set: (named as the user did, thread, scheduling, CPUs).
    let mut wanted: Vec<(String, ThreadRef, Option<SchedRequest>, Option<CpuSet>)> = Vec::new();
    match change.threads {
        Threads::Tids(tids) => {
            for w in tids {
                match find_thread(&facts, w.tid) {
                    Ok(thread) => wanted.push((format!("--tid {}", w.tid), thread, w.set, w.pin)),
                    Err(e) => return refuse(format!("--tid {}: {e}", w.tid)),
                }
            }
        }
        Threads::Selected {
            selection,
            set,
            pin,
        } => match select(&facts, &selection) {
            Ok(threads) => wanted.extend(
                threads
                    .into_iter()
                    .map(|thread| (selection.words(), thread, set, pin.clone())),
            ),
            Err(message) => return refuse(message),
        },
    }
    for line in shared_fifo_cpus(&wanted) {
        errln!("rtlat threads: warning: {line}");
    }
    let mut changes = Vec::new();
    for (named, thread, set, pin) in &wanted {
        match thread_changes(thread, set.as_ref(), pin.as_ref()) {
            Ok(found) if found.is_empty() => outln!(
                "# thread {} \"{}\" (pid {}) is already as asked",
                thread.tid,
                thread.name,
                thread.pid
            ),
            Ok(found) => changes.extend(found),
            Err(e) => return refuse(format!("{named}: {e}; nothing was changed")),
        }
    }
    run_request(&Request {
        command: "threads",
        argv: change.argv,
        root: facts.root().to_path_buf(),
        changes,
        apply: change.apply,
        save: change.save,
        skip: |_| false,
        skipped_as: "refused",
    })
}

/// The threads `selection` selects, now: those of process `--pid` (all of them without
/// `--name`) whose *thread* name matches `--name`, by process then thread id, rtlat's own
/// left out. None is an error, in words, ending in `nothing was changed`.
fn select(facts: &Facts, selection: &Selection) -> Result<Vec<ThreadRef>, String> {
    let words = selection.words();
    let threads = match selection.pid {
        Some(pid) => facts
            .threads_of(pid)
            .optional()
            .map_err(|e| format!("{words}: {e}; nothing was changed"))?
            .ok_or_else(|| format!("{words}: there is no process {pid}; nothing was changed"))?,
        None => facts
            .all_threads()
            .map_err(|e| format!("{words}: {e}; nothing was changed"))?,
    };
    let own = std::process::id();
    let selected: Vec<ThreadRef> = threads
        .into_iter()
        .filter(|t| t.pid != own)
        .filter(|t| {
            selection
                .name
                .as_ref()
                .is_none_or(|(_, pattern)| pattern.is_match(t.name()))
        })
        .map(|t| ThreadRef {
            pid: t.pid,
            tid: t.tid,
            name: t.stat.comm,
            start_time: t.stat.start_time,
        })
        .collect();
    if selected.is_empty() {
        let which = match (&selection.name, selection.pid) {
            (Some(_), Some(pid)) => {
                format!("no thread of process {pid} has a thread name it matches")
            }
            (Some(_), None) => "no thread has a thread name it matches".to_owned(),
            (None, Some(pid)) => format!("process {pid} has no thread left"),
            (None, None) => "no thread".to_owned(),
        };
        let hint = match selection.pid {
            Some(pid) => format!("`rtlat threads --pid {pid}` lists its threads"),
            None => "`rtlat threads` lists the threads".to_owned(),
        };
        return Err(format!(
            "{words} selects no thread: {which} ({hint}; rtlat's own are never selected); nothing was changed"
        ));
    }
    Ok(selected)
}

/// Warnings for threads of one process that the change puts on the same single CPU at the
/// same SCHED_FIFO priority: FIFO never runs one of them while the other keeps the CPU, so
/// one that spins waiting for the other spins for ever (RT throttling aside). QEMU's vCPU
/// threads do: a booting guest's CPU 0 waits for its CPU 1 (seen in tests/rt_guest: the
/// guest never reached its /init). One line per CPU and priority, naming the threads.
fn shared_fifo_cpus(
    wanted: &[(String, ThreadRef, Option<SchedRequest>, Option<CpuSet>)],
) -> Vec<String> {
    use std::collections::BTreeMap;
    let mut groups: BTreeMap<(u32, usize, i32), Vec<&ThreadRef>> = BTreeMap::new();
    for (_, thread, set, pin) in wanted {
        let (Some(set), Some(pin)) = (set, pin) else {
            continue;
        };
        if set.policy != rtlat_linux::Policy::Fifo || pin.len() != 1 {
            continue;
        }
        if let Some(cpu) = pin.first() {
            groups
                .entry((thread.pid, cpu, set.priority))
                .or_default()
                .push(thread);
        }
    }
    groups
        .into_iter()
        .filter(|(_, threads)| threads.len() > 1)
        .map(|((pid, cpu, priority), threads)| {
            let names: Vec<String> = threads
                .iter()
                .map(|t| format!("{} \"{}\"", t.tid, t.name))
                .collect();
            format!(
                "{} threads of process {pid} ({}) would share CPU {cpu} at SCHED_FIFO {priority}, which never runs one while another keeps the CPU: a vCPU that waits for another stops its guest; give each a CPU of its own (--tid TID --pin CPU) or make only the isolated CPU's vCPU real-time",
                threads.len(),
                names.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_linux::Policy;

    fn thread(pid: u32, tid: u32, name: &str) -> ThreadRef {
        ThreadRef {
            pid,
            tid,
            name: name.to_owned(),
            start_time: 1,
        }
    }

    fn wanted(
        pid: u32,
        tid: u32,
        name: &str,
        policy: Policy,
        priority: i32,
        pin: &str,
    ) -> (String, ThreadRef, Option<SchedRequest>, Option<CpuSet>) {
        (
            "--name x".to_owned(),
            thread(pid, tid, name),
            Some(SchedRequest {
                policy,
                priority,
                nice: None,
            }),
            Some(CpuSet::parse(pin).unwrap()),
        )
    }

    #[test]
    fn two_vcpus_on_one_cpu_at_one_fifo_priority_are_warned_of() {
        let vcpus = [
            wanted(40, 41, "CPU 0/TCG", Policy::Fifo, 98, "2"),
            wanted(40, 42, "CPU 1/TCG", Policy::Fifo, 98, "2"),
        ];
        let lines = shared_fifo_cpus(&vcpus);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with(
                "2 threads of process 40 (41 \"CPU 0/TCG\", 42 \"CPU 1/TCG\") would share CPU 2 at SCHED_FIFO 98"
            ),
            "{lines:?}"
        );
    }

    #[test]
    fn cpus_of_their_own_other_priorities_rr_and_other_processes_are_not() {
        for pair in [
            // A CPU each.
            [
                wanted(40, 41, "CPU 0/TCG", Policy::Fifo, 98, "2"),
                wanted(40, 42, "CPU 1/TCG", Policy::Fifo, 98, "3"),
            ],
            // Several CPUs to move between.
            [
                wanted(40, 41, "CPU 0/TCG", Policy::Fifo, 98, "2-3"),
                wanted(40, 42, "CPU 1/TCG", Policy::Fifo, 98, "2-3"),
            ],
            // Different priorities: the higher one runs, as asked.
            [
                wanted(40, 41, "CPU 0/TCG", Policy::Fifo, 97, "2"),
                wanted(40, 42, "CPU 1/TCG", Policy::Fifo, 98, "2"),
            ],
            // Round robin shares the CPU between equal priorities.
            [
                wanted(40, 41, "CPU 0/TCG", Policy::RoundRobin, 98, "2"),
                wanted(40, 42, "CPU 1/TCG", Policy::RoundRobin, 98, "2"),
            ],
            // Two guests, one vCPU each.
            [
                wanted(40, 41, "CPU 0/TCG", Policy::Fifo, 98, "2"),
                wanted(50, 51, "CPU 0/TCG", Policy::Fifo, 98, "2"),
            ],
        ] {
            assert_eq!(shared_fifo_cpus(&pair), Vec::<String>::new(), "{pair:?}");
        }
    }
}
