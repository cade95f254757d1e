//! `rtlat tune`: a tuning profile (rtlat-system's `profile`) made real.
//!
//! ```text
//! rtlat tune apply PROFILE [--apply] [--save FILE] [--root DIR]   the run-time part
//! rtlat tune apply PROFILE --persist [--apply] [--root DIR]       and at every boot
//! rtlat tune apply --unpersist [--apply] [--root DIR]             remove what --persist wrote
//! rtlat tune [--root DIR] --restore FILE                          undo what --apply changed
//! ```
//!
//! The run-time part (IRQs, governors, idle states, threads) goes through the tuning
//! commands' flow: printed, made only with `--apply`, saved to a restore file. The kernel
//! command line cannot change at run time: the parameters the running kernel lacks are
//! printed, and `--persist` puts them where the boot loader takes them ([`persist`]).

pub mod persist;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rtlat::exit_status::{self, BAD_INPUT, OK};
use rtlat::options::CliError;
use rtlat_system::profile::Profile;
use rtlat_system::profile::plan::plan;
use rtlat_system::tune::irq::is_unmovable;

use crate::cli::tuning::apply::{Request, run as run_request};
use crate::cli::tuning::args::{APPLY, HELP, RESTORE, ROOT, SAVE, Spec, Start, machine, start};

const SPECS: &[Spec] = &[
    APPLY,
    SAVE.help(
        "where --apply saves what it changed (default:\n./rtlat-tune-restore-DATE-PID.json; an existing file is refused)",
    ),
    Spec::new("--persist")
        .long("persist")
        .help("also make it survive a reboot: the kernel line (GRUB's drop-in)\nand a systemd unit that applies the run-time part at boot"),
    Spec::new("--before")
        .long("before")
        .value("UNIT", "a systemd unit name such as cnc.service")
        .help("with --persist: the real-time application's unit, which the tuning\nunit runs before"),
    Spec::new("--unpersist")
        .long("unpersist")
        .help("remove exactly what --persist wrote (no PROFILE)"),
    RESTORE,
    ROOT.help("the system's root (default /): change a copy of a machine's tree"),
    HELP,
];

fn usage() -> String {
    format!(
        "\
Usage: rtlat tune apply PROFILE [--apply] [--save FILE] [--persist [--before UNIT]] [--root DIR]
       rtlat tune apply --unpersist [--apply] [--root DIR]
       rtlat tune [--root DIR] --restore FILE

Sets what a tuning profile names (the TOML file rtlat verify checks; rtlat audit --suggest
--profile-out writes one): IRQs away from CPUs, governors, idle states and the policy,
priority and CPUs of the threads its rules name, printed first and made only with --apply,
saved to a restore file that --restore undoes. The kernel command line cannot change while
the kernel runs: its parameters the running kernel lacks are printed, and --persist writes
them where GRUB takes them (/etc/default/grub.d/rtlat.cfg, then update-grub; elsewhere the
line is printed for your boot loader), with a systemd unit (rtlat-tune.service, enabled)
that applies the run-time part at every boot and a copy of the profile (/etc/rtlat/tune.toml).
--unpersist removes exactly those files (only while they carry rtlat's mark).

{}",
        rtlat::options::help::options(SPECS, 22)
    )
}

/// Runs `rtlat tune ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(error) => {
            errln!("rtlat tune: {error}");
            exit_status::code(exit_status::of(&error))
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, CliError> {
    // `apply PROFILE` first; everything else is an option.
    let (profile_path, rest): (Option<PathBuf>, &[String]) = match args {
        [apply, rest @ ..] if apply == "apply" => match rest {
            [profile, rest @ ..] if !profile.starts_with('-') => {
                (Some(PathBuf::from(profile)), rest)
            }
            rest => (None, rest),
        },
        _ if args.iter().any(|a| a == "--help" || a == "-h") => {
            out!("{}\n{}\n", usage(), exit_status::HELP);
            return Ok(ExitCode::SUCCESS);
        }
        rest if rest
            .iter()
            .any(|a| a == "--restore" || a.starts_with("--restore=")) =>
        {
            (None, rest)
        }
        _ => {
            return Err(
                "expected `apply PROFILE`, `apply --unpersist` or `--restore FILE` (`rtlat tune --help`)"
                    .to_string()
                    .into(),
            );
        }
    };
    let (options, root) = match start("rtlat tune", rest, SPECS)? {
        Start::Help => {
            out!("{}\n{}\n", usage(), exit_status::HELP);
            return Ok(ExitCode::SUCCESS);
        }
        Start::Restore { file, root } => {
            return Ok(crate::cli::tuning::restore::restore("tune", &file, &root));
        }
        Start::Run(options, root) => (options, root),
    };
    let facts = machine(&root)?;
    let apply = options.given("--apply");
    if options.given("--unpersist") {
        if profile_path.is_some() || options.given("--persist") || options.given("--save") {
            return Err("--unpersist takes no PROFILE, --persist or --save: it removes what --persist wrote".to_string().into());
        }
        return Ok(unpersist(&root, apply));
    }
    let Some(profile_path) = profile_path else {
        return Err("apply needs a PROFILE (a TOML file; rtlat tune --help)"
            .to_string()
            .into());
    };
    if let Some(unit) = options.value("--before") {
        if !options.given("--persist") {
            return Err("--before goes with --persist: it orders the boot-time unit"
                .to_string()
                .into());
        }
        if !persist::is_unit_name(&unit) {
            return Err(crate::cli::tuning::args::invalid(
                "--before",
                &unit,
                "expected a systemd unit name: letters, digits, :_.@- and .service or .target",
            )
            .into());
        }
    }
    let profile = Profile::read(&profile_path).map_err(|e| e.to_string())?;
    let live = root == Path::new("/");
    let planned =
        plan(&profile, &facts, live).map_err(|e| format!("{}: {e}", profile_path.display()))?;
    for note in &planned.notes {
        outln!("# {note}");
    }
    if !planned.cmdline_missing.is_empty() {
        outln!(
            "# the running kernel lacks: {} (a boot with them: {})",
            planned.cmdline_missing.join(" "),
            if options.given("--persist") {
                "--persist writes them for the next boot"
            } else {
                "add --persist, or add them to your boot loader's line"
            }
        );
    }
    let argv = std::iter::once("apply".to_owned())
        .chain(std::iter::once(profile_path.display().to_string()))
        .chain(rest.iter().cloned())
        .collect::<Vec<_>>();
    let code = run_request(&Request {
        command: "tune",
        argv: crate::cli::tuning::args::command_line("tune", &argv),
        root: root.clone(),
        changes: planned.changes,
        apply,
        save: options.value("--save").map(PathBuf::from),
        skip: is_unmovable,
        skipped_as: "not movable",
    });
    if !options.given("--persist") || code != exit_status::code(OK) {
        return Ok(code);
    }
    let before = options.value("--before");
    Ok(persist_profile(&root, &profile, apply, before.as_deref()))
}

/// `--persist`: the files, printed first, written with `--apply`.
fn persist_profile(root: &Path, profile: &Profile, apply: bool, before: Option<&str>) -> ExitCode {
    let rtlat = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("rtlat")))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("/usr/local/bin/rtlat"));
    let cmdline = profile
        .kernel
        .as_ref()
        .map(|k| k.cmdline.join(" "))
        .unwrap_or_default();
    if !apply {
        let grub = root.join("etc/default/grub").is_file() && !cmdline.is_empty();
        outln!(
            "# --persist would write /{}{}, /{} and enable it (/{})",
            persist::PROFILE,
            if grub {
                format!(", /{}", persist::GRUB_DROP_IN)
            } else {
                String::new()
            },
            persist::UNIT,
            persist::WANTS
        );
        outln!("# dry run: nothing written; add --apply to persist");
        return exit_status::code(OK);
    }
    match persist::persist(root, profile, &rtlat, before) {
        Ok(done) => {
            for path in &done.written {
                outln!("# persisted: {path}");
            }
            if done.cmdline.is_empty() {
                return exit_status::code(OK);
            }
            if !done.grub {
                outln!(
                    "# no GRUB here (/etc/default/grub): add to your boot loader's kernel line: {cmdline}"
                );
                return exit_status::code(OK);
            }
            run_update_grub(root)
        }
        Err(e) => {
            errln!("rtlat tune: --persist: {e}");
            exit_status::code(BAD_INPUT)
        }
    }
}

/// `update-grub` on a live system (the drop-in takes effect through it); under `--root`, the
/// command to run is printed.
fn run_update_grub(root: &Path) -> ExitCode {
    match persist::update_grub(root) {
        Some(program) => match std::process::Command::new(&program).status() {
            Ok(status) if status.success() => {
                outln!("# {} done: the next boot takes the line", program.display());
                exit_status::code(OK)
            }
            Ok(status) => {
                errln!(
                    "rtlat tune: {} failed ({status}): run it again once fixed",
                    program.display()
                );
                exit_status::code(exit_status::NOT_UNDONE)
            }
            Err(e) => {
                errln!("rtlat tune: cannot run {}: {e}", program.display());
                exit_status::code(exit_status::NOT_UNDONE)
            }
        },
        None => {
            outln!("# run update-grub (or grub-mkconfig -o /boot/grub/grub.cfg) on that system");
            exit_status::code(OK)
        }
    }
}

/// `--unpersist`: what would go, removed with `--apply`.
fn unpersist(root: &Path, apply: bool) -> ExitCode {
    if !apply {
        for relative in [
            persist::WANTS,
            persist::UNIT,
            persist::GRUB_DROP_IN,
            persist::PROFILE,
        ] {
            if root.join(relative).symlink_metadata().is_ok() {
                outln!("# would remove /{relative} (if rtlat wrote it)");
            }
        }
        outln!("# dry run: nothing removed; add --apply to remove");
        return exit_status::code(OK);
    }
    match persist::unpersist(root) {
        Ok(done) => {
            for path in &done.removed {
                outln!("# removed: {path}");
            }
            for left in &done.left {
                outln!("# left: {left}");
            }
            if done.removed.is_empty() {
                outln!("# nothing to remove");
            }
            if done.grub {
                return run_update_grub(root);
            }
            exit_status::code(OK)
        }
        Err(e) => {
            errln!("rtlat tune: --unpersist: {e}");
            exit_status::code(BAD_INPUT)
        }
    }
}
