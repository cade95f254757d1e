//! `rtlat threads --tid TID --set POLICY --pin CPUS`: find each thread, read its settings,
//! plan the changes, then dry run or apply through the shared flow.

use std::process::ExitCode;

use rtlat_system::facts::Facts;
use rtlat_system::tune::thread::{find_thread, thread_changes};

use super::options::Change;
use crate::cli::tuning::apply::{Request, run as run_request};

/// Plans and prints (and with `--apply` makes) the changes; returns the exit status.
pub fn run(change: Change) -> ExitCode {
    let facts = Facts::live();
    let mut changes = Vec::new();
    for wanted in &change.threads {
        let tid = wanted.tid;
        let planned = find_thread(&facts, tid).and_then(|thread| {
            let found = thread_changes(&thread, wanted.set.as_ref(), wanted.pin.as_ref())?;
            if found.is_empty() {
                outln!(
                    "# thread {tid} \"{}\" (pid {}) is already as asked",
                    thread.name,
                    thread.pid
                );
            }
            Ok(found)
        });
        match planned {
            Ok(found) => changes.extend(found),
            Err(e) => {
                errln!("rtlat threads: --tid {tid}: {e}");
                return rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT);
            }
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
