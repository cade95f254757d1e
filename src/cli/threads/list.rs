//! `rtlat threads` listing: a table like `ps -eLo pid,tid,psr,cls,rtprio,ni,comm` with the
//! affinity and the process name, or a JSON array.

use std::process::ExitCode;

use rtlat_formats::schema::threads::Thread;
use rtlat_system::facts::{FactResultExt as _, Facts, ThreadInfo};

use super::options::Filter;

/// The policy name of a stat policy number (`deadline` too, which rtlat does not set).
fn policy_name(number: u32) -> String {
    match number {
        0 => "other".into(),
        1 => "fifo".into(),
        2 => "rr".into(),
        3 => "batch".into(),
        5 => "idle".into(),
        6 => "deadline".into(),
        n => n.to_string(),
    }
}

/// Prints the threads `filter` selects; returns the exit status.
pub fn list(facts: &Facts, filter: &Filter, json_out: bool) -> ExitCode {
    let threads = match select(facts, filter) {
        Ok(threads) => threads,
        Err(message) => {
            errln!("rtlat threads: {message}");
            return rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT);
        }
    };
    let process_name = |pid: u32| facts.process_stat(pid).map(|s| s.comm).unwrap_or_default();
    let mut names: Vec<(u32, String)> = Vec::new();
    let mut process_of = |pid: u32| -> String {
        if let Some((_, name)) = names.iter().find(|(p, _)| *p == pid) {
            return name.clone();
        }
        let name = process_name(pid);
        names.push((pid, name.clone()));
        name
    };
    if json_out {
        let rows: Vec<Thread> = threads
            .iter()
            .map(|t| Thread {
                pid: t.pid,
                tid: t.tid,
                process: process_of(t.pid),
                name: t.name().to_string(),
                cpu: t.stat.processor,
                policy: policy_name(t.stat.policy).to_string(),
                rt_priority: t.stat.rt_priority,
                nice: t.stat.nice,
                affinity: t.cpus_allowed.to_string(),
                state: t.stat.state.to_string(),
                kernel_thread: t.is_kernel_thread(),
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".into())
        );
        return ExitCode::SUCCESS;
    }
    let width = threads
        .iter()
        .map(|t| t.cpus_allowed.to_string().len())
        .max()
        .unwrap_or(0)
        .max("AFFINITY".len());
    outln!(
        "{:>7} {:>7} {:>3} {:<8} {:>6} {:>3}  {:<width$}  {:<15}  THREAD",
        "PID",
        "TID",
        "CPU",
        "POLICY",
        "RTPRIO",
        "NI",
        "AFFINITY",
        "PROCESS"
    );
    for t in &threads {
        let rtprio = if t.stat.is_real_time() {
            t.stat.rt_priority.to_string()
        } else {
            "-".into()
        };
        outln!(
            "{:>7} {:>7} {:>3} {:<8} {:>6} {:>3}  {:<width$}  {:<15}  {}",
            t.pid,
            t.tid,
            t.stat.processor,
            policy_name(t.stat.policy),
            rtprio,
            t.stat.nice,
            t.cpus_allowed.to_string(),
            process_of(t.pid),
            t.name()
        );
    }
    ExitCode::SUCCESS
}

fn select(facts: &Facts, filter: &Filter) -> Result<Vec<ThreadInfo>, String> {
    match filter {
        Filter::All => facts.all_threads().map_err(|e| e.to_string()),
        Filter::Pid(pid) => facts
            .threads_of(*pid)
            .optional()
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("--pid {pid}: there is no process {pid}")),
        Filter::Name(pattern) => {
            let mut threads = facts.all_threads().map_err(|e| e.to_string())?;
            let mut processes: Vec<(u32, bool)> = Vec::new();
            threads.retain(|t| {
                if pattern.is_match(t.name()) {
                    return true;
                }
                match processes.iter().find(|(p, _)| *p == t.pid) {
                    Some((_, matched)) => *matched,
                    None => {
                        let matched = facts
                            .process_stat(t.pid)
                            .is_ok_and(|s| pattern.is_match(&s.comm));
                        processes.push((t.pid, matched));
                        matched
                    }
                }
            });
            Ok(threads)
        }
        Filter::Tids(tids) => tids
            .iter()
            .map(|&tid| {
                let thread = rtlat_system::tune::thread::find_thread(facts, tid)
                    .map_err(|e| format!("--tid {tid}: {e}"))?;
                facts
                    .thread(thread.pid, tid)
                    .map_err(|e| format!("--tid {tid}: {e}"))
            })
            .collect(),
    }
}
