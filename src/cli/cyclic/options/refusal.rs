//! Where cyclictest itself refuses a command line, and how it ends: the cyclictest front ends
//! the same way (checked against cyclictest 2.40 side by side, `tests/cyclictest_compat.rs`).
//!
//! cyclictest reads its options in order with `getopt_long` and `atoi`, and ends:
//!
//! - on getopt's complaint (an unknown option such as the obsolete `-n`, a missing value, an
//!   ambiguous prefix; also `-?`, which is not in its option string): glibc's line on stderr,
//!   its usage on stdout, **status 0**;
//! - on a value it cannot use (`-p 100`, `-h 0`, `-c -1`, `-t0`, `-a` naming a CPU it does not
//!   have, `-A` with `--secaligned`, `-o 0`): its usage on stdout, **status 1**;
//! - on a fatal setting (`-a` then `-S`, `--smi` where there is no SMI counter; `-a !LIST` or
//!   `-a +LIST` keeping none of the process's default CPUs, after a warning): a `FATAL: ...`
//!   line on stderr, **status 1**.

use rtlat_linux::ProcessCpus;

use super::{CpuSpec, Expectations, Opt, Unusable, specs};
use rtlat::options::{self as getopt, Found};

/// How cyclictest ends on a command line it refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// getopt's complaint (without the program name): the front prints
    /// `PROGRAM: COMPLAINT` on stderr, the usage on stdout, and exits 0.
    Getopt(String),
    /// cyclictest prints its usage on stdout and exits 1. The front prints its own line
    /// naming the value on stderr, then the usage, and exits 1.
    Usage,
    /// cyclictest's `FATAL: ...` line, printed as it is on stderr; status 1.
    Fatal(String),
    /// `-a !LIST` or `-a +LIST` keeps none of the process's default CPUs: cyclictest warns
    /// that it cannot move its main thread there, then ends with its FATAL line
    /// ([`NO_ALLOWABLE_CPUS`], both on stderr); status 1.
    NoAllowableCpus,
}

/// cyclictest's two lines on stderr for [`Refusal::NoAllowableCpus`].
pub const NO_ALLOWABLE_CPUS: [&str; 2] = [
    "WARN: Couldn't setaffinity in main thread: Invalid argument",
    "FATAL: No allowable cpus to run on",
];

/// cyclictest's `atoi`: white space, a sign, digits up to the first other character; 0 when
/// there are none.
fn atoi(text: &str) -> i64 {
    let text = text.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let value = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |n, d| {
            n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    if negative { -value } else { value }
}

/// How cyclictest 2.40 would end on `args` (without the program name), if it refuses them;
/// `None` when it would run. `cpus`: the machine's CPUs (`-a` naming a CPU that is not
/// online is refused by cyclictest too; unknown, `-a` is not checked).
pub fn cyclictest_refusal(args: &[String], cpus: Option<&ProcessCpus>) -> Option<Refusal> {
    let found = match getopt::scan_detailed(args, &specs(true), &Expectations) {
        Ok(found) => found,
        Err(err) => return err.getopt.map(Refusal::Getopt),
    };
    refusal_of(&found, cpus)
}

fn refusal_of(found: &[Found<Opt>], cpus: Option<&ProcessCpus>) -> Option<Refusal> {
    let fatal = |line: &str| Some(Refusal::Fatal(format!("FATAL: {line}")));
    let (mut smp, mut numa, mut smi, mut verbose) = (false, false, false, false);
    let (mut aligned, mut secaligned) = (false, false);
    let (mut priority, mut clock, mut histogram, mut threads) = (0, 0, 0, 1);
    let mut oscope = None;
    // `-a` keeping none of the default CPUs: cyclictest finds out when it starts the threads,
    // after every other check.
    let mut no_allowable_cpus = false;
    // In cyclictest's order: what it checks while reading the options.
    for item in found {
        let value = item.value.as_deref().unwrap_or("");
        match item.id {
            Opt::Histogram | Opt::Histofall => {
                histogram = atoi(value);
                if histogram == 0 {
                    return Some(Refusal::Usage);
                }
            }
            Opt::Affinity if !smp => {
                numa = true;
                no_allowable_cpus = false;
                if item.value.is_some() {
                    let Ok(spec) = CpuSpec::parse(value, "-a") else {
                        return Some(Refusal::Usage);
                    };
                    match cpus.map(|cpus| spec.resolve_as_cyclictest(cpus)) {
                        Some(Err(Unusable::Usage(_))) => return Some(Refusal::Usage),
                        Some(Err(Unusable::NoneOfDefault(_))) => no_allowable_cpus = true,
                        Some(Ok(_)) | None => {}
                    }
                }
            }
            Opt::Smp if numa => return fatal("numa and smp options are mutually exclusive"),
            Opt::Smp => {
                smp = true;
                threads = -1;
            }
            Opt::Smi if !cfg!(any(target_arch = "x86", target_arch = "x86_64")) => {
                return fatal("--smi is not available on your arch");
            }
            Opt::Smi => smi = true,
            Opt::Threads if !smp => {
                threads = match &item.value {
                    Some(value) if !item.peeked || atoi(value) != 0 => atoi(value),
                    _ => -1,
                };
            }
            Opt::Priority => priority = atoi(value),
            Opt::Clock => clock = atoi(value),
            Opt::Oscope => oscope = Some(atoi(value)),
            Opt::Verbose => verbose = true,
            Opt::Aligned => aligned = true,
            Opt::Secaligned => secaligned = true,
            _ => {}
        }
    }
    // After reading them, in cyclictest's order.
    if smi && !super::super::smi::cyclictest_sees_a_counter() {
        return fatal("SMI counter is not supported on this processor");
    }
    let oscope_bad = oscope.is_some_and(|o| o < 1 || (o > 1 && !verbose));
    let bad = !(0..=2).contains(&clock)
        || oscope_bad
        || histogram < 0
        || !(0..=99).contains(&priority)
        || (threads < 1 && threads != -1)
        || (aligned && secaligned);
    if bad {
        Some(Refusal::Usage)
    } else {
        no_allowable_cpus.then_some(Refusal::NoAllowableCpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use rtlat_linux::cpuset::CpuSet;

    fn refusal_on(line: &str, online: &str, default: &str) -> Option<Refusal> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let cpus = ProcessCpus::new(
            CpuSet::parse(online).unwrap(),
            CpuSet::parse(default).unwrap(),
        );
        cyclictest_refusal(&args, Some(&cpus))
    }

    fn refusal(line: &str) -> Option<Refusal> {
        refusal_on(line, "0-1", "0-1")
    }

    #[test]
    fn atoi_reads_as_c_does() {
        assert_eq!(atoi(" 3500"), 3500);
        assert_eq!(atoi("80x"), 80);
        assert_eq!(atoi("x"), 0);
        assert_eq!(atoi("-5"), -5);
        assert_eq!(atoi("+7"), 7);
        assert_eq!(atoi(""), 0);
    }

    #[test]
    fn as_cyclictest_2_40_ends() {
        let getopt = |s: &str| Some(Refusal::Getopt(s.into()));
        assert_eq!(refusal("-n"), getopt("invalid option -- 'n'"));
        assert_eq!(refusal("-?"), getopt("invalid option -- '?'"));
        assert_eq!(
            refusal("--nanosleep"),
            getopt("unrecognized option '--nanosleep'")
        );
        assert_eq!(
            refusal("--frobnicate"),
            getopt("unrecognized option '--frobnicate'")
        );
        assert_eq!(
            refusal("-q -l"),
            getopt("option requires an argument -- 'l'")
        );
        for usage in [
            "-p 100",
            "-p -1",
            "-h 0",
            "-h x",
            "-H -1",
            "-c -1",
            "-c 3",
            "-t0",
            "--threads=0",
            "-a 5",
            "-a 0-",
            "-A --secaligned",
            "-o 0 -v",
            "-o 5",
        ] {
            assert_eq!(refusal(usage), Some(Refusal::Usage), "{usage}");
        }
        let fatal = |s: &str| Some(Refusal::Fatal(format!("FATAL: {s}")));
        assert_eq!(
            refusal("-a 1 -S"),
            fatal("numa and smp options are mutually exclusive")
        );
        assert_eq!(
            refusal("-a -S"),
            fatal("numa and smp options are mutually exclusive")
        );
        if cfg!(target_arch = "x86_64") && !crate::cli::cyclic::smi::cyclictest_sees_a_counter() {
            assert_eq!(
                refusal("--smi -a"),
                fatal("SMI counter is not supported on this processor")
            );
        }
        for runs in [
            "",
            "-p 80x",
            "-p x",
            "-p 0",
            "-i 1000x",
            "-t 0",
            "-t-1",
            "-S -a 1",
            "-S -t 1",
            "-h 10 -d 5",
            "-c 2",
            "-c realtime",
            "-p 80 --policy=batch",
            "-o 1",
            "--help",
            "-a 1 -t 2",
        ] {
            assert_eq!(refusal(runs), None, "{runs}");
        }
    }

    /// Under an affinity mask of CPU 0 on two CPUs (`taskset -c 0`, or `isolcpus=1`), as
    /// cyclictest 2.40 ends there (measured side by side, `tests/cpus.rs`).
    #[test]
    fn cpus_outside_the_affinity_mask_end_as_in_cyclictest() {
        let isolated = |line: &str| refusal_on(line, "0-1", "0");
        for runs in [
            "-a 1",
            "-t 2 -a 0-1",
            "-t -a all",
            "-a +0",
            "-a !1",
            "-a !0 -a 1",
            "-S",
        ] {
            assert_eq!(isolated(runs), None, "{runs}");
        }
        for usage in [
            "-a 5",
            "-a !0-1",
            "-a +5",
            "-a !5",
            "-a !0 -p 100",
            "-a !0 -a 5",
        ] {
            assert_eq!(isolated(usage), Some(Refusal::Usage), "{usage}");
        }
        for fatal in ["-a !0", "-a +1", "-t 2 -a +1", "-a 1 -a !0"] {
            assert_eq!(isolated(fatal), Some(Refusal::NoAllowableCpus), "{fatal}");
        }
        // `+N` counts among the online CPUs, not the mask's (taskset -c 1: +0 is CPU 0).
        assert_eq!(
            refusal_on("-a +0", "0-1", "1"),
            Some(Refusal::NoAllowableCpus)
        );
        assert_eq!(refusal_on("-a +1", "0-1", "1"), None);
        // The numa/smp conflict is found first, as in cyclictest.
        assert_eq!(
            isolated("-a !0 -S"),
            Some(Refusal::Fatal(
                "FATAL: numa and smp options are mutually exclusive".into()
            ))
        );
    }
}
