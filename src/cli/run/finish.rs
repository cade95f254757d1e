//! The end of a run: cyclictest's text (the quiet lines, the histogram, spikes, the break,
//! `--explain`'s verdicts), the JSON document, `--fail-above`, and the exit status. Every
//! output is attempted; each that cannot be written is a line naming it, and status 4.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use rtlat_engine::LiveFigures;
use rtlat_engine::run::{RunShared, ThreadReport};
use rtlat_formats::schema::provenance::Provenance;
use rtlat_formats::schema::rtlat as schema;

use super::live;
use super::output::IoText;
use super::output::{cyclictest as text, json as json_out};
use super::timerlat::TimerlatFigures;
use crate::cli::cyclic::explain::{self, Explained};
use crate::cli::cyclic::options::{self, Plan, RunConfig, Unit};
use rtlat::atomic_file::{write_atomically, write_atomically_with};
use rtlat::exit_status;

/// A measured run, to report.
pub struct Finished<'a> {
    /// The options.
    pub config: &'a RunConfig,
    /// The threads' plan.
    pub plan: &'a Plan,
    /// What the threads shared (the `-v` rings' losses, the break's thread).
    pub shared: &'a RunShared,
    /// Each thread's report.
    pub reports: &'a [ThreadReport],
    /// `-N`/`--unit ns`.
    pub nanoseconds: bool,
    /// Invoked as `cyclictest`.
    pub as_cyclictest: bool,
    /// The command line (after the program name).
    pub args: &'a [String],
    /// The run's start and end, Unix seconds.
    pub unix_times: (u64, u64),
    /// `--profile`'s settings and audit.
    pub profile: Option<&'a schema::Profile>,
    /// `--explain`'s verdicts.
    pub explained: Option<&'a Explained>,
    /// `--timerlat`'s figures.
    pub timerlat: Option<&'a TimerlatFigures>,
    /// How the machine was tuned as the run started (with `--json`).
    pub provenance: Option<&'a Provenance>,
}

/// Reports the run as its options ask; its exit status (1 above `--fail-above`, 4 when an
/// output could not be written).
pub fn finish(run: &Finished<'_>) -> Result<ExitCode, String> {
    let Finished {
        config,
        plan,
        shared,
        reports,
        nanoseconds,
        as_cyclictest,
        explained,
        timerlat,
        ..
    } = *run;
    let program = if as_cyclictest {
        "cyclictest"
    } else {
        "rtlat run"
    };
    // Every output is attempted; each one that fails is a line naming it, and status 4.
    let mut all_written = true;
    let mut not_written = |what: String, e: std::io::Error| {
        errln!("{program}: cannot write {what}: {e}");
        all_written = false;
    };
    let mut out = String::new();
    if config.quiet && config.histogram.is_none() {
        for (t, r) in plan.threads.iter().zip(reports) {
            let f = final_figures(r);
            text::thread_line(&mut out, live::header(t, shared), &f, nanoseconds);
            if !as_cyclictest {
                live::append_overruns(&mut out, r.overruns);
            }
        }
    }
    if let Some(h) = config.histogram {
        write_histogram(run, h.with_total, &mut out, &mut not_written);
    }
    if config.spike.is_some() {
        text::spikes(&mut out, reports, config.spike_nodes as usize, nanoseconds);
    }
    let break_tid = shared.break_tid.load(Ordering::Acquire);
    if config.breaktrace.is_some() {
        text::break_lines(&mut out, reports, break_tid, nanoseconds);
    }
    if let Some(explained) = explained {
        out.push_str(&explain::text(explained, plan, nanoseconds));
    }
    if let Some(figures) = timerlat {
        let rows: Vec<(String, usize)> = plan
            .threads
            .iter()
            .map(|t| (format!("T:{:2}", t.index), t.cpu))
            .collect();
        super::timerlat::text(&mut out, figures, &rows, nanoseconds);
    }
    let lost: Vec<u64> = shared
        .rings
        .iter()
        .zip(shared.smi_rings.iter().chain(std::iter::repeat(&None)))
        .map(|(r, s)| {
            r.as_ref().map_or(0, |ring| ring.lost()) + s.as_ref().map_or(0, |ring| ring.lost())
        })
        .collect();
    // Samples -v could not print because its reader went away are not news to anyone.
    if lost.iter().any(|&l| l > 0) && !rtlat::stdio::reader_gone() {
        errln!(
            "warning: -v could not print {} samples (output slower than the measurement); they are in the statistics and histograms",
            lost.iter().sum::<u64>()
        );
    }
    out!("{out}");
    let _ = std::io::stdout().flush();

    let worst = reports.iter().filter_map(|r| r.summary().max()).max();
    let failed = config
        .fail_above_us
        .is_some_and(|limit| worst.is_some_and(|w| w > (limit as i64) * 1000));
    let code = u8::from(failed);
    if config.json.is_some() {
        write_json(run, code, break_tid, lost, &mut not_written);
    }
    if failed {
        errln!(
            "worst latency {} µs is above --fail-above {} µs",
            worst.unwrap_or(0) / 1000,
            config.fail_above_us.unwrap_or(0)
        );
    }
    Ok(exit_status::code(exit_status::finished(code, all_written)))
}

/// `-h`/`-H`: the histogram, to `--histfile` or after `out` on standard output, streamed
/// line by line (a 10 000-bucket histogram is 200 KiB of text per thread).
fn write_histogram(
    run: &Finished<'_>,
    with_total: bool,
    out: &mut String,
    not_written: &mut impl FnMut(String, std::io::Error),
) {
    let write = |w: &mut dyn std::io::Write| {
        let mut text_out = IoText::new(w);
        let formatted = text::histogram(
            &mut text_out,
            run.reports,
            with_total,
            run.nanoseconds,
            !run.as_cyclictest,
        );
        let written = text_out.finish();
        written.and_then(|()| formatted.map_err(|_| std::io::Error::other("formatting failed")))
    };
    match &run.config.histfile {
        Some(path) => {
            if let Err(e) = write_atomically_with(path, |file| write(file)) {
                not_written(format!("the --histfile file '{}'", path.display()), e);
            }
        }
        None => {
            out!("{out}");
            out.clear();
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            if let Err(e) = write(&mut stdout).and_then(|()| stdout.flush())
                && !rtlat::stdio::note_reader_gone(&e)
            {
                not_written("the histogram to standard output".into(), e);
            }
        }
    }
}

/// `--json FILE` (or `-`): the document, written atomically.
fn write_json(
    run: &Finished<'_>,
    code: u8,
    break_tid: i32,
    lost_samples: Vec<u64>,
    not_written: &mut impl FnMut(String, std::io::Error),
) {
    let Some(path) = &run.config.json else {
        return;
    };
    let (start_unix, end_unix) = run.unix_times;
    let facts = json_out::RunFacts {
        cmdline: args_line(run.args, run.as_cyclictest),
        start_unix,
        end_unix,
        return_code: i32::from(code),
        nanoseconds: run.nanoseconds,
        config: {
            let mut config = config_json(run.config, run.plan, run.profile);
            // The tracer's timer woke the threads.
            if run
                .timerlat
                .is_some_and(|t| t.workload == rtlat_system::noise::timerlat::Workload::User)
            {
                config.timer = rtlat_linux::TimerKind::Timerlat.name().to_string();
            }
            config
        },
        break_tid: (break_tid != 0).then_some(break_tid),
        provenance: run.provenance.cloned(),
        lost_samples,
        numa_nodes: !run.config.smp,
        timerlat: run.timerlat.map_or_else(Vec::new, |figures| {
            run.plan
                .threads
                .iter()
                .map(|t| super::timerlat::json(figures, t.cpu))
                .collect()
        }),
        explained: run.explained.map_or_else(Vec::new, |e| {
            e.threads
                .iter()
                .map(|found| explain::json(e, found))
                .collect()
        }),
    };
    let doc = json_out::document(&facts, run.reports);
    if path.as_os_str() == "-" {
        out!("{doc}");
        let _ = std::io::stdout().flush();
    } else if let Err(e) = write_atomically(path, doc.as_bytes()) {
        not_written(format!("the --json file '{}'", path.display()), e);
    }
}

fn final_figures(r: &ThreadReport) -> LiveFigures {
    let s = r.summary();
    LiveFigures {
        cycles: s.count(),
        min_ns: s.min().unwrap_or(0),
        act_ns: r.last_ns,
        max_ns: s.max().unwrap_or(0),
        sum_ns: s.sum() as i64,
        overruns: r.overruns,
        smis: r.smis.unwrap_or(0),
    }
}

fn args_line(args: &[String], as_cyclictest: bool) -> String {
    // cyclictest's "cmdline:" is its argv joined by spaces, argv[0] as typed.
    let program = if as_cyclictest {
        rtlat::args::program().unwrap_or_else(|| "cyclictest".into())
    } else {
        "rtlat run".to_string()
    };
    std::iter::once(program)
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

fn config_json(
    config: &RunConfig,
    plan: &Plan,
    profile: Option<&schema::Profile>,
) -> schema::RunConfig {
    schema::RunConfig {
        threads: plan
            .threads
            .iter()
            .map(|t| schema::ThreadConfig {
                index: t.index,
                cpu: t.cpu,
                policy: t.policy.sched_name().to_string(),
                priority: t.priority,
                interval_us: t.interval_us,
            })
            .collect(),
        loops: config.loops,
        duration_s: config.duration.map(|d| d.as_secs_f64()),
        timer: options::timer_name(config.timer).to_string(),
        clock: config.clock.c_name().to_string(),
        mlockall: config.mlockall,
        cpu_dma_latency_us: config.dma_latency_us(),
        histogram_buckets: config.histogram.map(|h| h.buckets),
        unit: if config.unit == Unit::Ns { "ns" } else { "us" }.to_string(),
        breaktrace: config.breaktrace,
        fail_above_us: config.fail_above_us,
        backend: config.backend.name().to_string(),
        xenomai_core: config.backend.core().map(String::from),
        profile: profile.cloned(),
    }
}
