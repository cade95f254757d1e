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
