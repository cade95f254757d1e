//! Third-party programs that drive cyclictest and parse what it prints, run against the real
//! cyclictest and against rtlat as `cyclictest`, their parsed results compared (issue 11).
//!
//! Only one such client installs from a package registry: rt-tests' own
//! `get_cyclictest_snapshot` (Debian's `rt-tests`), which runs for real in
//! `cyclictest_runtime.rs`. None of the others is packaged for Debian or PyPI (checked:
//! rteval, Linaro's test-definitions, ChromiumOS's audiotest are only in their source
//! repositories, which CI cannot fetch). For those, what follows records as facts, in our own
//! words, the command line each runs and the rules by which it reads the output; each test
//! runs that command line with both binaries and reads both outputs by those rules.
//!
//! - rteval (Red Hat's real-time evaluation, `rteval/modules/measurement/cyclictest.py`):
//!   runs `cyclictest -i100 -qmu '-h 3500' -p95 -t<cores> -a<cpulist>` with stderr to
//!   /dev/null, ends it with SIGINT, then reads stdout line by line: a line starting with `#`
//!   is skipped unless it starts with `# Break value: ` (an integer after the colon) or
//!   `# Max Latencies: ` (whitespace-separated integers after the colon, one per core);
//!   any other line is split on white space, its first field read as an integer (lines where
//!   it is not are skipped) being the bucket, and field `i + 1` the count of core `i`.
//! - Linaro test-definitions (`automated/linux/cyclictest/cyclictest.sh` and
//!   `automated/lib/parse_rt_tests_results.py`): runs `cyclictest -p 98 -i 1000 -t 1 -a 0
//!   -D 1m -m` in live mode into a log, then reads only what follows the last ESC byte of the
//!   log (the whole log if there is none); each line starting with `T:` is split on runs of
//!   spaces, colons and newlines, lowercased, and the token after each of `t`, `min`, `avg`
//!   and `max` taken as that field.
//! - ChromiumOS audiotest (`script/cyclic_bench.py`): runs `cyclictest --verbose
//!   --distance=0 --policy=rr --interval=N --threads=N --loops=N --breaktrace=N
//!   [--tracemark] --priority=P`, requires exit status 0, then reads stdout: a line made of
//!   white space then three integers separated by a colon and white space is a sample (thread,
//!   cycle, latency); `# Thread Ids: ` followed by the thread ids; `# Break thread: N` (an id
//!   from that list) and `# Break value: N` add the break value to that thread's samples.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{Alias, measuring, real_cyclictest};

const GUARD: Duration = Duration::from_secs(120);

/// The two binaries a client could find as `cyclictest`.
fn both(alias: &Alias) -> [(&'static str, std::path::PathBuf); 2] {
    [
        ("cyclictest", real_cyclictest()),
        ("rtlat as cyclictest", alias.path()),
    ]
}

/// What rteval's rules read from a `-h` run.
#[derive(Debug, PartialEq)]
struct Rteval {
    /// Per core, the sum of its bucket counts.
    samples: Vec<u64>,
    /// Bucket indices read, in order.
    buckets: Vec<u64>,
    /// `# Max Latencies:` values.
    max_latencies: Vec<u64>,
    /// `# Break value:`.
    break_value: Option<u64>,
}

fn rteval_parse(stdout: &str, cores: usize) -> Rteval {
    let mut parsed = Rteval {
        samples: vec![0; cores],
        buckets: Vec::new(),
        max_latencies: Vec::new(),
        break_value: None,
    };
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix('#') {
            let after_colon = || rest.split_once(':').map_or("", |(_, v)| v);
            if line.starts_with("# Break value: ") {
                parsed.break_value = Some(after_colon().trim().parse().unwrap());
            } else if line.starts_with("# Max Latencies: ") {
                parsed.max_latencies = after_colon()
                    .split_whitespace()
                    .map(|v| v.parse().unwrap())
                    .collect();
            }
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let Some(Ok(bucket)) = fields.first().map(|f| f.parse::<u64>()) else {
            continue;
        };
        parsed.buckets.push(bucket);
        for (core, count) in parsed.samples.iter_mut().enumerate() {
            *count += fields[core + 1].parse::<u64>().unwrap();
        }
    }
    parsed
}

/// rteval's command line (two cores, a 100 µs interval), ended by SIGINT after a second, read
/// by rteval's rules: both binaries give 3500 buckets 0..3499, one count column and one
/// `# Max Latencies:` value per core, samples counted in every column, no break.
#[test]
fn rteval_reads_rtlat_as_it_reads_cyclictest() {
    let _serial = measuring();
    let alias = Alias::new();
    let cpus = common::online_cpus();
    let cores = cpus.len().min(2);
    let cpulist = cpus[..cores]
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let threads = format!("-t{cores}");
    let affinity = format!("-a{cpulist}");
    // rteval passes the histogram option as the one argument '-h 3500' (the value with a
    // leading space, which cyclictest reads as strtol does).
    let args = ["-i100", "-qmu", "-h 3500", "-p95", &threads, &affinity];
    let mut results = Vec::new();
    for (name, program) in both(&alias) {
        let child = common::spawn(&program, &args, None);
        std::thread::sleep(Duration::from_secs(1));
        child.signal(libc::SIGINT);
        let out = child.finish(GUARD);
        assert_eq!(out.code(), 0, "{name}: {}", out.stderr);
        let parsed = rteval_parse(&out.stdout, cores);
        assert_eq!(parsed.buckets, (0..3500).collect::<Vec<u64>>(), "{name}");
        assert_eq!(parsed.max_latencies.len(), cores, "{name}: {}", out.stdout);
        assert!(parsed.samples.iter().all(|&n| n > 0), "{name}: {parsed:?}");
        assert_eq!(parsed.break_value, None, "{name}");
        results.push(parsed);
    }
    assert_eq!(results[0].buckets, results[1].buckets);
}

/// What Linaro's parser reads: per `T:` line after the last ESC, (t, min, avg, max).
fn linaro_parse(log: &[u8]) -> Vec<[String; 4]> {
    let tail = match log.iter().rposition(|&b| b == 0x1b) {
        Some(at) => &log[at..],
        None => log,
    };
    let text = String::from_utf8_lossy(tail);
    let splitter = regex::Regex::new("[ :\n]+").unwrap();
    text.split_inclusive('\n')
        .filter(|line| line.starts_with("T:"))
        .map(|line| {
            let tokens: Vec<String> = splitter.split(line).map(str::to_lowercase).collect();
            let after = |key: &str| {
                tokens
                    .iter()
                    .position(|t| t == key)
                    .and_then(|i| tokens.get(i + 1))
                    .cloned()
                    .unwrap_or_default()
            };
            [after("t"), after("min"), after("avg"), after("max")]
        })
        .collect()
}

/// Linaro's command line (live mode, `-D` shortened from a minute to two seconds), read by
/// its rules: both binaries give one thread `0` whose min, avg and max are integers with
/// min <= avg <= max.
#[test]
fn linaro_test_definitions_read_rtlat_as_they_read_cyclictest() {
    let _serial = measuring();
    let alias = Alias::new();
    let args = [
        "-p", "98", "-i", "1000", "-t", "1", "-a", "0", "-D", "2", "-m",
    ];
    for (name, program) in both(&alias) {
        let out = common::run(&program, &args, None, GUARD);
        assert_eq!(out.code(), 0, "{name}: {}", out.stderr);
        let rows = linaro_parse(out.stdout.as_bytes());
        assert_eq!(rows.len(), 1, "{name}: {:?}", out.stdout);
        let [t, min, avg, max] = &rows[0];
        assert_eq!(t, "0", "{name}");
        let n = |v: &str| {
            v.parse::<u64>()
                .unwrap_or_else(|_| panic!("{name}: {v:?} is not a number"))
        };
        assert!(n(min) <= n(avg) && n(avg) <= n(max), "{name}: {rows:?}");
    }
}

/// What ChromiumOS's cyclic_bench reads: samples per thread (its break value included).
fn chromiumos_parse(stdout: &str, threads: usize) -> Vec<Vec<u64>> {
    let sample = regex::Regex::new(r"^[ \t]+\d+:[ \t]+\d+:[ \t]+\d+$").unwrap();
    let number = regex::Regex::new(r"\d+").unwrap();
    let ints = |line: &str| -> Vec<u64> {
        number
            .find_iter(line)
            .map(|m| m.as_str().parse().unwrap())
            .collect()
    };
    let mut latencies = vec![Vec::new(); threads];
    let mut ids = Vec::new();
    let mut break_thread = None;
    for line in stdout.lines() {
        if sample.is_match(line) {
            let v = ints(line);
            latencies[v[0] as usize].push(v[2]);
        } else if line.starts_with("# Thread Ids: ") {
            ids = ints(line);
        } else if let Some(id) = line.strip_prefix("# Break thread: ") {
            let id: u64 = id.parse().unwrap();
            break_thread = ids.iter().position(|&t| t == id);
        } else if let Some(value) = line.strip_prefix("# Break value: ") {
            let thread = break_thread.expect("# Break thread comes before # Break value");
            latencies[thread].push(value.parse().unwrap());
        }
    }
    latencies
}

/// ChromiumOS's command line (200 loops of 1 ms instead of 6000 of 10 ms), read by its rules:
/// both binaries exit 0 and give samples for both threads, at most the loops for each (a
/// break above 3 ms, possible on a loaded machine, ends the run early and adds its value).
#[test]
fn chromiumos_cyclic_bench_reads_rtlat_as_it_reads_cyclictest() {
    let _serial = measuring();
    let alias = Alias::new();
    let args = [
        "--verbose",
        "--distance=0",
        "--policy=rr",
        "--interval=1000",
        "--threads=2",
        "--loops=200",
        "--breaktrace=3000",
        "--priority=20",
    ];
    for (name, program) in both(&alias) {
        let out = common::run(&program, &args, None, GUARD);
        assert_eq!(out.code(), 0, "{name}: {}", out.stderr);
        assert!(
            out.stdout.lines().any(|l| l.starts_with("# Thread Ids: ")),
            "{name}: {}",
            out.stdout
        );
        let latencies = chromiumos_parse(&out.stdout, 2);
        for (thread, samples) in latencies.iter().enumerate() {
            assert!(
                !samples.is_empty() && samples.len() <= 201,
                "{name}: thread {thread}: {} samples",
                samples.len()
            );
        }
    }
}

/// The facts above name real files of the tools' repositories; this keeps the list honest
/// about which client is installed and run for real.
#[test]
fn get_cyclictest_snapshot_is_the_packaged_client() {
    assert!(
        Path::new("/usr/sbin/get_cyclictest_snapshot").exists()
            || std::env::var_os("PATH")
                .is_some_and(|p| std::env::split_paths(&p)
                    .any(|d| d.join("get_cyclictest_snapshot").exists())),
        "rt-tests installs get_cyclictest_snapshot: apt-get install rt-tests"
    );
}
