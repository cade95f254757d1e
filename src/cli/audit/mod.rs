//! `rtlat audit`: checks the machine's real-time tuning, read-only, and reports findings
//! (id, severity, evidence, remedy) as a table or JSON; `--suggest --isolate CPUS` prints the
//! kernel command line that isolates those CPUs instead.
//!
//! Everything is read through a root path (`--root`, default `/`), so the same code audits
//! the live system and trees captured from other machines. Nothing is written.

mod json;
mod options;

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use rtlat_system::facts::Facts;

use rtlat_audit::error::io_error_text;
use rtlat_audit::report::table;
use rtlat_audit::{Context, Finding, Report, Summary, checks, cmdline_file, selected, suggest};

use options::Options;

fn usage_error(message: &str) -> ExitCode {
    errln!("rtlat audit: {message}");
    rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
}

/// `--cmdline FILE`: its name, its command line, and whether it is a GRUB configuration.
struct CmdlineFile {
    source: String,
    line: String,
    grub: bool,
}

/// Reads `--cmdline FILE`.
fn read_cmdline_file(path: &Path) -> Result<CmdlineFile, String> {
    let bytes = rtlat_formats::input::read_bounded(path, rtlat_formats::input::TEXT_FILE_MAX).map_err(|e| {
        let why = match e {
            rtlat_formats::input::InputError::Io(e) => io_error_text(&e),
            e => e.to_string(),
        };
        format!(
            "--cmdline {}: {why}; give a file holding a kernel command line (or /etc/default/grub)",
            path.display(),
        )
    })?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(CmdlineFile {
        source: path.display().to_string(),
        line: cmdline_file::command_line(&text),
        grub: cmdline_file::is_grub_config(&text),
    })
}

fn print(text: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (rtlat audit | head) ends rtlat by SIGPIPE at the end of `main`, as it
    // ends any filter (see `rtlat::stdio`).
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        rtlat::stdio::stdout_failed(&e);
    }
    ExitCode::SUCCESS
}

/// Runs `rtlat audit ARGS`; returns the exit status (see `--help`).
pub fn main(args: &[String]) -> ExitCode {
    let options = match Options::parse(args) {
        Ok(options) => options,
        Err(error) => {
            errln!("rtlat audit: {error}");
            return rtlat::exit_status::code(rtlat::exit_status::of(&error));
        }
    };
    if options.help {
        return print(&options::usage());
    }
    if let Err(error) = rtlat_audit::check_root(&options.root) {
        return usage_error(&error.to_string());
    }
    let file = match options
        .cmdline
        .as_deref()
        .map(read_cmdline_file)
        .transpose()
    {
        Ok(file) => file,
        Err(message) => return usage_error(&message),
    };
    let from_grub = file.as_ref().is_some_and(|f| f.grub);
    let facts = Facts::at(&options.root);
    let (ctx, setup_findings) = Context::load(facts, file.map(|f| (f.source, f.line)));
    match &options.suggest {
        Some(isolate) => suggest(&options, &ctx, isolate, from_grub),
        None => audit(&options, &ctx, setup_findings),
    }
}

fn audit(options: &Options, ctx: &Context, mut findings: Vec<Finding>) -> ExitCode {
    findings.extend(checks::run(ctx));
    if let Some(ids) = &options.only {
        findings = selected::only(findings, ids);
    }
    let root = options.root.display().to_string();
    let report = Report {
        root: &root,
        cmdline_source: ctx.cmdline.as_ref().map(|c| c.source.as_str()),
        cmdline_running: ctx.cmdline.as_ref().is_some_and(|c| c.running),
        findings: &findings,
    };
    let text = if options.json {
        json::render(&report)
    } else {
        table::render(&report, style_for_stdout(), width())
    };
    print(&text);
    ExitCode::from(Summary::of(&findings).exit_status())
}

fn suggest(
    options: &Options,
    ctx: &Context,
    isolate: &rtlat_linux::cpuset::CpuSet,
    from_grub: bool,
) -> ExitCode {
    let Some(possible) = &ctx.possible else {
        return usage_error(&format!(
            "--suggest: cannot read {}: the machine's CPUs are needed to check --isolate",
            options
                .root
                .join("sys/devices/system/cpu/possible")
                .display()
        ));
    };
    let (line, source) = match &ctx.cmdline {
        Some(c) => (c.line.clone(), c.source.clone()),
        None => {
            return usage_error(&format!(
                "--suggest: cannot read {}; give the current line with --cmdline FILE",
                options.root.join("proc/cmdline").display()
            ));
        }
    };
    let machine = suggest::Machine {
        possible,
        online: ctx.online.as_ref(),
        from_grub,
    };
    let suggested = suggest::suggest(&line, &source, isolate, &machine);
    if let (Ok(suggestion), Some(path)) = (&suggested, &options.profile_out) {
        let profile = profile_of(suggestion, &ctx.facts);
        if let Err(e) = rtlat::atomic_file::write_atomically(path, profile.to_toml().as_bytes()) {
            return usage_error(&format!(
                "--profile-out {}: {}; nothing written",
                path.display(),
                io_error_text(&e)
            ));
        }
        errln!(
            "rtlat audit: the tuning profile is in {} (rtlat tune apply {0} sets it, rtlat verify {0} checks it)",
            path.display()
        );
    }
    match suggested {
        Ok(suggestion) if options.json => {
            let mut text =
                serde_json::to_string_pretty(&json::suggestion(&suggestion)).unwrap_or_default();
            text.push('\n');
            print(&text)
        }
        Ok(suggestion) => print(&suggestion.render()),
        Err(error) => usage_error(&error.to_string()),
    }
}

/// The tuning profile of a suggestion: its parameters, IRQs away from the CPUs it isolates,
/// and, where the machine has them, the `performance` governor and no idle state deeper
/// than C1 on those CPUs.
fn profile_of(suggestion: &suggest::Suggestion, facts: &Facts) -> rtlat_system::profile::Profile {
    use rtlat_system::profile::{CpuFreq, Idle, Irq, Kernel, Profile, VERSION};
    let cpus = suggestion.isolate.to_string();
    let has_cpufreq = suggestion
        .isolate
        .iter()
        .all(|cpu| facts.cpufreq(cpu).exists());
    let has_idle = suggestion
        .isolate
        .iter()
        .all(|cpu| facts.cpuidle_states(cpu).is_ok_and(|s| s.len() > 2));
    Profile {
        version: VERSION,
        kernel: Some(Kernel {
            cmdline: suggestion.set.iter().map(ToString::to_string).collect(),
        }),
        irq: Some(Irq {
            away_from: cpus.clone(),
        }),
        cpufreq: has_cpufreq.then(|| CpuFreq {
            cpus: cpus.clone(),
            governor: "performance".into(),
            frequency_khz: None,
        }),
        idle: has_idle.then(|| Idle {
            cpus: cpus.clone(),
            deepest_state: 1,
        }),
        // Held by the application, not at boot: left for the user to add.
        cpu_dma_latency: None,
        threads: Vec::new(),
    }
}

/// The report's colours: on a terminal, unless `NO_COLOR` is set.
fn style_for_stdout() -> table::Style {
    use std::io::IsTerminal;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    table::Style::new(std::io::stdout().is_terminal() && !no_color)
}

/// The width to wrap the report to: `COLUMNS` if set (at least 60), else 100.
fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .map_or(100, |c| c.max(60))
}
