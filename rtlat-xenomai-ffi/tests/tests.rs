//! The crate's integration tests, one binary with its own `main` (`harness = false`):
//! Xenomai must be initialised on the process's main thread, and libtest runs each test on a
//! thread of its own. `main` calls `init()` once, then runs the cases in order.
//!
//! Built with Xenomai (`XENO_CONFIG`) every case runs, and a case whose needs are not met
//! (`init()` failing, no Cobalt build to be had) fails with the reason. Built without it (the
//! README's plain `cargo test`), the binary runs the cases that need no Xenomai, then gets
//! Xenomai 3.3.1 Mercury (built once into `<target dir>/xenomai/mercury-3.3.1`) and runs itself
//! again built against it (`nested.rs`). Where no Xenomai can be had (no `XENO_CONFIG`, no
//! source in `RTLAT_XENOMAI_SRC` or `../shared/third_party/xenomai/`: a clone on its own), each
//! case that needs it is listed as `NOT RUN` with the reason and the summary counts them as
//! not run; with `CI=true` that is a failure instead. None is ever reported as passed unrun.
//! `cargo test -p rtlat-xenomai-ffi --test tests -- NAME` runs the cases whose name contains
//! NAME.

mod cobalt;
mod delay;
mod errors;
mod layout;
mod nested;
mod periodic;
mod xenomai;

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
    /// A Cobalt build (`XENO_CONFIG_COBALT`, or one built here).
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
        name: "delay::a_task_delay_is_never_short",
        needs: Needs::Running,
        run: delay::a_task_delay_is_never_short,
    },
    Case {
        name: "delay::a_periodic_timers_delay_leaves_the_grid",
        needs: Needs::Running,
        run: delay::a_periodic_timers_delay_leaves_the_grid,
    },
    Case {
        name: "cobalt::linked_binary_runs_only_on_a_cobalt_kernel",
        needs: Needs::CobaltBuild,
        run: cobalt::linked_binary_runs_only_on_a_cobalt_kernel,
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
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let filter = args.iter().find(|a| !a.starts_with('-'));
    let selected: Vec<&Case> = CASES
        .iter()
        .filter(|case| filter.is_none_or(|f| case.name.contains(f.as_str())))
        .collect();
    if args.iter().any(|a| a == "--list") {
        for case in &selected {
            println!("{}: test", case.name);
        }
        return ExitCode::SUCCESS;
    }
    let initialised = init();
    // Built without Xenomai: the cases that need none run here, the others in a nested run
    // against Xenomai (the Cobalt build only when a selected case needs it).
    let (here, elsewhere): (Vec<&Case>, Vec<&Case>) = selected
        .iter()
        .partition(|case| CORE.is_some() || case.needs == Needs::Nothing);
    let what = match CORE {
        None => "built without Xenomai",
        Some(Core::Mercury) => "built against Xenomai Mercury",
        Some(Core::Cobalt) => "built against Xenomai Cobalt",
    };
    println!(
        "\nrunning {} test{} ({what})",
        here.len(),
        if here.len() == 1 { "" } else { "s" }
    );
    let (mut passed, mut failed) = (0, 0);
    for case in here {
        let unmet = match case.needs {
            Needs::Running => initialised.err().map(|e| format!("init() failed: {e}")),
            Needs::Nothing | Needs::Headers | Needs::CobaltBuild => None,
        };
        if let Some(why) = unmet {
            println!("test {} ... FAILED: {why}", case.name);
            failed += 1;
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
    println!(
        "\ntest result: {}. {passed} passed; {failed} failed",
        if failed == 0 { "ok" } else { "FAILED" }
    );
    let mut ok = failed == 0;
    if !elsewhere.is_empty() {
        let cobalt = elsewhere
            .iter()
            .any(|case| case.needs == Needs::CobaltBuild);
        let names: Vec<&str> = elsewhere.iter().map(|case| case.name).collect();
        ok &= nested::run(&args, &names, cobalt);
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
