//! `rtlat audit`: checks the machine's real-time tuning, read-only, and reports findings
//! (id, severity, evidence, remedy) as a table or JSON; `--suggest --isolate CPUS` prints the
//! kernel command line that isolates those CPUs instead.
//!
//! Everything is read through a root path (`--root`, default `/`), so the same code audits
//! the live system and trees captured from other machines. Nothing is written.

mod checks;
mod cmdline_file;
mod context;
mod finding;
mod guest;
mod isolation;
mod known_params;
mod options;
mod report;
mod selected;
mod suggest;
mod tsc_watchdog;

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use rtlat_system::facts::Facts;

use context::Context;
use options::Options;
use report::Report;

fn usage_error(message: &str) -> ExitCode {
    errln!("rtlat audit: {message}");
    rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
}

/// Why `root` cannot be audited, if it cannot: it must be a directory holding `proc/` or
/// `sys/`.
fn check_root(root: &Path) -> Result<(), String> {
    let shown = root.display();
    match std::fs::metadata(root) {
        Err(e) => Err(format!(
            "--root {shown}: {}; give the directory that holds proc/ and sys/ (default /)",
            error_text(&e)
        )),
        Ok(meta) if !meta.is_dir() => Err(format!(
            "--root {shown}: not a directory; give the directory that holds proc/ and sys/ (default /)"
        )),
        Ok(_) if !root.join("proc").is_dir() && !root.join("sys").is_dir() => Err(format!(
            "--root {shown}: holds neither proc/ nor sys/; give the root of a Linux system or of a tree captured from one"
        )),
        Ok(_) => Ok(()),
    }
}

/// An I/O error without Rust's " (os error N)" suffix.
fn error_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
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
            rtlat_formats::input::InputError::Io(e) => error_text(&e),
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
    if let Err(message) = check_root(&options.root) {
        return usage_error(&message);
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

fn audit(options: &Options, ctx: &Context, mut findings: Vec<finding::Finding>) -> ExitCode {
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
        report::json::render(&report)
    } else {
        report::table::render(
            &report,
            report::table::Style::for_stdout(),
            report::table::width(),
        )
    };
    print(&text);
    ExitCode::from(finding::Summary::of(&findings).exit_status())
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
    match suggest::suggest(&line, &source, isolate, &machine) {
        Ok(suggestion) if options.json => {
            let mut text = serde_json::to_string_pretty(&suggestion.json()).unwrap_or_default();
            text.push('\n');
            print(&text)
        }
        Ok(suggestion) => print(&suggestion.render()),
        Err(message) => usage_error(&message),
    }
}
