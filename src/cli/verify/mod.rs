//! `rtlat verify PROFILE [--json] [--root DIR]`: a tuning profile (rtlat-system's
//! `profile`) against the running machine, item by item; exit status 1 when anything
//! drifted. Read-only.

use std::path::Path;
use std::process::ExitCode;

use rtlat::exit_status;
use rtlat::options::{self, CliError, Grammar, Spec, UsageError};
use rtlat_formats::schema::verify as schema;
use rtlat_system::facts::Facts;
use rtlat_system::profile::verify::{Verification, verify};
use rtlat_system::profile::{Profile, ProfileError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Json,
    Root,
    Help,
}

const SPECS: &[Spec<Opt>] = &[
    Spec::new(Opt::Json)
        .long("json")
        .help("print the items as JSON"),
    Spec::new(Opt::Root)
        .long("root")
        .value("DIR", "a directory (the root of /proc and /sys)")
        .help("read the machine under DIR (a captured tree) instead of /"),
    Spec::new(Opt::Help)
        .short('h')
        .long("help")
        .help("this help"),
];

fn usage() -> String {
    format!(
        "Usage: rtlat verify PROFILE [--json] [--root DIR]

Checks a tuning profile (the TOML file rtlat tune apply sets and rtlat audit --suggest
--profile-out writes) against the running machine, item by item: each kernel command-line
parameter, each movable IRQ on the CPUs the profile keeps them from, each CPU's governor and
idle states, each running thread a rule names. Nothing is changed.

Options:
{}
Exit status: 0 when nothing drifted, 1 when an item differs from the profile, 2 for a
profile that cannot be read.",
        options::help::options(SPECS, 14)
    )
}

/// What the command line asks for.
struct Parsed {
    profile: String,
    json: bool,
    root: String,
}

fn parse(args: &[String]) -> Result<Option<Parsed>, CliError> {
    let grammar = Grammar {
        operands: true,
        ..Grammar::default()
    };
    let scanned = options::scan_with(args, SPECS, &(), grammar).map_err(|e| match e {
        UsageError::UnknownOption { option } => {
            format!("unknown option '{option}'; accepted: --json, --root DIR, --help")
        }
        other => other.to_string(),
    })?;
    if scanned.options.iter().any(|f| f.id == Opt::Help) {
        return Ok(None);
    }
    let [profile] = scanned.operands.as_slice() else {
        return Err(format!(
            "needs one profile file (got {}); usage: rtlat verify PROFILE [--json] [--root DIR]",
            scanned.operands.len()
        )
        .into());
    };
    let root = scanned
        .options
        .iter()
        .rev()
        .find(|f| f.id == Opt::Root)
        .and_then(|f| f.value.clone())
        .unwrap_or_else(|| "/".to_owned());
    Ok(Some(Parsed {
        profile: profile.clone(),
        json: scanned.options.iter().any(|f| f.id == Opt::Json),
        root,
    }))
}

/// Runs `rtlat verify ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    let parsed = match parse(args) {
        Ok(Some(p)) => p,
        Ok(None) => {
            outln!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            errln!("rtlat verify: {e}");
            return exit_status::code(exit_status::of(&e));
        }
    };
    let checked = Profile::read(Path::new(&parsed.profile))
        .and_then(|p| {
            verify(&p, &Facts::at(&parsed.root))
                .map_err(|e| ProfileError(format!("{}: {}", parsed.profile, e.0)))
        })
        .map_err(|e| e.to_string());
    let verification = match checked {
        Ok(v) => v,
        Err(e) => {
            errln!("rtlat verify: {e}");
            return exit_status::code(exit_status::BAD_INPUT);
        }
    };
    if parsed.json {
        out!("{}", json(&parsed.profile, &verification));
    } else {
        out!("{}", text(&parsed.profile, &verification));
    }
    ExitCode::from(u8::from(verification.drifted().count() > 0))
}

/// The report as people read it: a summary line, then each item (drift first), then notes.
pub fn text(profile: &str, v: &Verification) -> String {
    let drifted = v.drifted().count();
    let mut out = format!(
        "rtlat verify {profile}: {}\n",
        if drifted == 0 {
            format!("all {} items as the profile sets them", v.items.len())
        } else {
            format!("{drifted} of {} items drifted", v.items.len())
        }
    );
    let width = v
        .items
        .iter()
        .map(|i| i.id.chars().count())
        .max()
        .unwrap_or(0);
    let (drift, ok): (Vec<_>, Vec<_>) = v.items.iter().partition(|i| i.drift);
    for i in drift.into_iter().chain(ok) {
        out.push_str(&format!(
            "{:<6} {:<width$}  want {}; have {}\n",
            if i.drift { "DRIFT" } else { "ok" },
            i.id,
            i.want,
            i.have
        ));
    }
    for note in &v.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

/// The report as JSON ([`schema::Report`]).
pub fn json(profile: &str, v: &Verification) -> String {
    let report = schema::Report {
        profile: profile.to_owned(),
        drifted: v.drifted().count(),
        items: v
            .items
            .iter()
            .map(|i| schema::Item {
                id: i.id.clone(),
                want: i.want.clone(),
                have: i.have.clone(),
                drift: i.drift,
            })
            .collect(),
        notes: v.notes.clone(),
    };
    serde_json::to_string_pretty(&report).unwrap_or_else(|_| "{}".into()) + "\n"
}
