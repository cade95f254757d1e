//! The crate's integration tests, one binary with its own `main` (`harness = false`):
//! Xenomai must be initialised on the process's main thread, and libtest runs each test on a
//! thread of its own. `main` calls `init()` once, then runs the cases in order.
//!
//! Built without Xenomai the cases that need it print "skipped: no Xenomai (set
//! XENO_CONFIG)". `cargo test -p rtlat-xenomai-ffi --test tests -- NAME` runs the cases
//! whose name contains NAME.

mod cobalt;
mod errors;
mod layout;
mod periodic;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;

use rtlat_xenomai_ffi::{CORE, Core, Error, init};

/// What a case needs to run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Needs {
    /// Runs in every build.
    Nothing,
    /// The headers and `cc` (a build with Xenomai).
    Headers,
    /// A successful `init()`: Mercury here, Cobalt on a Cobalt kernel.
    Running,
    /// A Cobalt build (`XENO_CONFIG_COBALT`) and a kernel without Cobalt.
    CobaltBuild,
}

/// One test case.
struct Case {
    name: &'static str,
    needs: Needs,
    run: fn(),
}

const CASES: &[Case] = &[
    Case {
        name: "init_outcome_matches_the_build",
        needs: Needs::Nothing,
        run: init_outcome_matches_the_build,
    },
    Case {
        name: "layout::matches_the_headers",
        needs: Needs::Headers,
        run: layout::matches_the_headers,
    },
    Case {
        name: "layout::a_wrong_value_fails",
        needs: Needs::Headers,
        run: layout::a_wrong_value_fails,
    },
    Case {
        name: "periodic::wakes_at_or_after_each_deadline",
        needs: Needs::Running,
        run: periodic::wakes_at_or_after_each_deadline,
    },
    Case {
        name: "periodic::overruns_are_reported_and_counted",
        needs: Needs::Running,
        run: periodic::overruns_are_reported_and_counted,
    },
    Case {
        name: "periodic::skipped_deadlines_keep_the_grid",
        needs: Needs::Running,
        run: periodic::skipped_deadlines_keep_the_grid,
    },
    Case {
        name: "errors::duplicate_name_is_eexist",
        needs: Needs::Running,
        run: errors::duplicate_name_is_eexist,
    },
    Case {
        name: "errors::plain_thread_is_eperm",
        needs: Needs::Running,
        run: errors::plain_thread_is_eperm,
    },
    Case {
        name: "errors::spawned_task_has_its_priority_and_cpu",
        needs: Needs::Running,
        run: errors::spawned_task_has_its_priority_and_cpu,
    },
    Case {
        name: "errors::failed_spawn_frees_its_name",
        needs: Needs::Running,
        run: errors::failed_spawn_frees_its_name,
    },
    Case {
        name: "errors::a_panicking_task_is_joined",
        needs: Needs::Running,
        run: errors::a_panicking_task_is_joined,
    },
    Case {
        name: "cobalt::linked_binary_refuses_without_the_core",
        needs: Needs::CobaltBuild,
        run: cobalt::linked_binary_refuses_without_the_core,
    },
];

/// `init()` succeeds on Mercury and on a Cobalt kernel, refuses with the documented error
/// built without Xenomai or on Cobalt without the core, and never panics or exits.
fn init_outcome_matches_the_build() {
    let outcome = init();
    match CORE {
        None => {
            assert_eq!(outcome, Err(Error::NotBuilt));
            assert_eq!(
                Error::NotBuilt.to_string(),
                "built without Xenomai (set XENO_CONFIG)"
            );
        }
        Some(Core::Mercury) => assert_eq!(outcome, Ok(())),
        Some(Core::Cobalt) if cobalt::kernel_has_cobalt() => assert_eq!(outcome, Ok(())),
        Some(Core::Cobalt) => {
            assert_eq!(outcome, Err(Error::CobaltCoreMissing));
            assert!(
                outcome
                    .unwrap_err()
                    .to_string()
                    .starts_with("Cobalt core not enabled in this kernel")
            );
        }
    }
    // A second call gives the same outcome, from any thread.
    assert_eq!(std::thread::spawn(init).join().unwrap(), outcome);
}

fn main() -> ExitCode {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let list = std::env::args().any(|a| a == "--list");
    let initialised = init();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for case in CASES {
        if filter.as_deref().is_some_and(|f| !case.name.contains(f)) {
            continue;
        }
        if list {
            println!("{}: test", case.name);
            continue;
        }
        let skip = match case.needs {
            Needs::Nothing => None,
            Needs::Headers | Needs::Running if CORE.is_none() => {
                Some("no Xenomai (set XENO_CONFIG)".to_string())
            }
            Needs::Headers => None,
            Needs::Running => initialised.err().map(|e| e.to_string()),
            Needs::CobaltBuild => cobalt::skip_reason(),
        };
        if let Some(why) = skip {
            println!("test {} ... skipped: {why}", case.name);
            skipped += 1;
            continue;
        }
        match catch_unwind(AssertUnwindSafe(case.run)) {
            Ok(()) => {
                println!("test {} ... ok", case.name);
                passed += 1;
            }
            Err(_) => {
                println!("test {} ... FAILED", case.name);
                failed += 1;
            }
        }
    }
    if list {
        return ExitCode::SUCCESS;
    }
    println!(
        "\ntest result: {}. {passed} passed; {failed} failed; {skipped} skipped",
        if failed == 0 { "ok" } else { "FAILED" }
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
