//! Helpers shared by the integration tests that run the `rtlat` binary: temporary folders,
//! rtlat under the name `cyclictest`, the real cyclictest, running with a timeout, sending
//! signals, comparing cyclictest-style output by shape, and an order-preserving JSON reader.

#![allow(dead_code)] // Each test file uses its own subset.

pub mod xenomai;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The `rtlat` binary under test.
pub fn rtlat() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtlat"))
}

/// Measurement runs share two CPUs: one at a time inside a test binary, so that tests do not
/// disturb each other's timing (and SCHED_FIFO threads of parallel tests do not pile up).
pub fn measuring() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A fresh folder under the system's temporary folder, removed on drop.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `rtlat-it-<tag>-<pid>-<n>`.
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("rtlat-it-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create a temporary folder");
        TempDir { path }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A path inside the folder.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The names in the folder, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.path)
            .expect("read the temporary folder")
            .map(|e| {
                e.expect("folder entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// rtlat under the name `cyclictest`: a symlink in a folder of its own.
pub struct Alias {
    dir: TempDir,
}

impl Alias {
    /// Makes the symlink.
    pub fn new() -> Alias {
        let dir = TempDir::new("alias");
        std::os::unix::fs::symlink(rtlat(), dir.join("cyclictest"))
            .expect("symlink rtlat as cyclictest");
        Alias { dir }
    }

    /// The path of the symlink (its file name is `cyclictest`).
    pub fn path(&self) -> PathBuf {
        self.dir.join("cyclictest")
    }
}

/// The real cyclictest (rt-tests). Panics with the install command if it is missing: the
/// comparison tests must fail, not pass silently, on a machine without it.
pub fn real_cyclictest() -> PathBuf {
    let ours = std::fs::canonicalize(rtlat()).ok();
    let mut candidates = vec![PathBuf::from("/usr/bin/cyclictest")];
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("cyclictest")));
    }
    for c in candidates {
        if c.is_file() && std::fs::canonicalize(&c).ok() != ours {
            return c;
        }
    }
    panic!(
        "the real cyclictest is not installed, so rtlat cannot be compared with it: \
         run `apt-get install rt-tests` (Debian/Ubuntu) and run the tests again"
    );
}

/// What a finished process left.
#[derive(Debug)]
pub struct Outcome {
    /// Exit status (`None` if it had to be killed after the timeout).
    pub status: Option<ExitStatus>,
    /// Everything written to stdout.
    pub stdout: String,
    /// Everything written to stderr.
    pub stderr: String,
    /// Wall time until exit (or until the kill).
    pub elapsed: Duration,
}

impl Outcome {
    /// A refused invocation: exit status 2 and one stderr line containing `fragment`
    /// (`what` names the invocation in a failure).
    pub fn assert_refused(&self, what: &dyn std::fmt::Debug, fragment: &str) {
        assert_eq!(self.code(), 2, "{what:?}: {}", self.stdout);
        assert_eq!(self.stderr.lines().count(), 1, "{what:?}: {}", self.stderr);
        assert!(self.stderr.contains(fragment), "{what:?}: {}", self.stderr);
    }

    /// The exit code; panics (with the output) if the process was killed or signalled.
    pub fn code(&self) -> i32 {
        match self.status.and_then(|s| s.code()) {
            Some(code) => code,
            None => panic!(
                "the process did not exit normally ({:?}) after {:?}\nstdout:\n{}\nstderr:\n{}",
                self.status, self.elapsed, self.stdout, self.stderr
            ),
        }
    }
}

/// A running child whose stdout and stderr are collected in the background.
pub struct Running {
    child: Child,
    started: Instant,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
}

fn collect(mut from: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => into
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend_from_slice(&buf[..n]),
            }
        }
    })
}

/// Starts `program args` in `cwd` (the current folder if `None`).
pub fn spawn(program: &Path, args: &[&str], cwd: Option<&Path>) -> Running {
    spawn_with(program, args, cwd, None)
}

/// [`spawn`], running `before_exec` in the child between fork and exec (e.g. to block or
/// ignore signals: a process inherits its signal mask and ignored signals across exec). It
/// must only make async-signal-safe calls.
pub fn spawn_with(
    program: &Path,
    args: &[&str],
    cwd: Option<&Path>,
    before_exec: Option<fn() -> std::io::Result<()>>,
) -> Running {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("LC_ALL", "C");
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    if let Some(f) = before_exec {
        use std::os::unix::process::CommandExt as _;
        // SAFETY: the callers pass functions that only make async-signal-safe calls
        // (sigprocmask, sigaction), as a child between fork and exec requires.
        unsafe { cmd.pre_exec(f) };
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let stdout = Arc::new(Mutex::new(Vec::new()));
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let readers = vec![
        collect(child.stdout.take().expect("piped stdout"), stdout.clone()),
        collect(child.stderr.take().expect("piped stderr"), stderr.clone()),
    ];
    Running {
        child,
        started: Instant::now(),
        stdout,
        stderr,
        readers,
    }
}

impl Running {
    /// The process id.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends `signal` to the process.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on the pid of our own child, which has not been reaped yet.
        let rc = unsafe { libc::kill(self.pid(), signal) };
        assert_eq!(rc, 0, "kill({}, {signal}) failed", self.pid());
    }

    /// What the process wrote on stderr so far.
    pub fn stderr_so_far(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }

    /// Waits until stderr contains `needle` or `timeout` passes; returns whether it did.
    pub fn wait_for_stderr(&self, needle: &str, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        while Instant::now() < until {
            if self.stderr_so_far().contains(needle) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stderr_so_far().contains(needle)
    }

    /// What the process wrote on stdout so far.
    pub fn stdout_so_far(&self) -> String {
        String::from_utf8_lossy(&self.stdout.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }

    /// Waits until stdout contains `needle` or `timeout` passes; returns whether it did.
    pub fn wait_for_stdout(&self, needle: &str, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        while Instant::now() < until {
            if self.stdout_so_far().contains(needle) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stdout_so_far().contains(needle)
    }

    /// Whether the process has exited.
    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Waits for the exit, killing the process after `timeout`.
    pub fn finish(mut self, timeout: Duration) -> Outcome {
        let until = self.started + timeout;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break None;
                }
            }
        };
        let elapsed = self.started.elapsed();
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        let text = |b: &Arc<Mutex<Vec<u8>>>| {
            String::from_utf8_lossy(&b.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
        };
        Outcome {
            status,
            stdout: text(&self.stdout),
            stderr: text(&self.stderr),
            elapsed,
        }
    }

    /// Waits up to `timeout` for the exit, measured from now; returns the outcome and the time
    /// the exit took.
    pub fn finish_within(self, timeout: Duration) -> (Outcome, Duration) {
        let asked = Instant::now();
        let budget = (asked - self.started) + timeout;
        let outcome = self.finish(budget);
        (outcome, asked.elapsed())
    }
}

/// Runs `program args` to the end (killed after `timeout`).
pub fn run(program: &Path, args: &[&str], cwd: Option<&Path>, timeout: Duration) -> Outcome {
    spawn(program, args, cwd).finish(timeout)
}

/// `rtlat COMMAND ARGS` to the end (killed after `timeout`).
pub fn rtlat_command(
    command: &str,
    args: &[&str],
    cwd: Option<&Path>,
    timeout: Duration,
) -> Outcome {
    let mut all = vec![command];
    all.extend_from_slice(args);
    run(&rtlat(), &all, cwd, timeout)
}

/// `rtlat run ARGS`.
pub fn rtlat_run(args: &[&str], cwd: Option<&Path>, timeout: Duration) -> Outcome {
    rtlat_command("run", args, cwd, timeout)
}

/// The CPUs listed in /sys/devices/system/cpu/online.
pub fn online_cpus() -> Vec<usize> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online")
        .expect("read /sys/devices/system/cpu/online");
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// The lowest CPU number that is not online.
pub fn offline_cpu() -> usize {
    let online = online_cpus();
    (0..)
        .find(|c| !online.contains(c))
        .expect("some CPU is offline")
}

// ---------------------------------------------------------------------------------------------
// Comparing cyclictest-style text by shape.

/// One piece of an output line: literal text, or a number with its printf padding.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    /// Leading spaces or zeros included: `"     12"`, `"000098"`, `"1000"`.
    Number(String),
}

/// Rewrites the parts of a line whose text legitimately differs between two runs into fixed
/// markers: the load average of the live header and the cycle list of an overflow line.
fn canonical(line: &str) -> String {
    // `policy: fifo: loadavg: 0.42 0.63 0.89 2/83 32493          `
    if let Some(at) = line.find("loadavg: ") {
        let head = &line[..at + "loadavg: ".len()];
        let rest = &line[head.len()..];
        let body = rest.trim_end_matches(' ');
        let trailing = rest.len() - body.len();
        let fields: Vec<&str> = body.split(' ').collect();
        let looks_like_loadavg = fields.len() == 5
            && fields[..3].iter().all(|f| f.parse::<f64>().is_ok())
            && fields[3].contains('/');
        if looks_like_loadavg {
            return format!("{head}<loadavg>{}", " ".repeat(trailing));
        }
    }
    // `# Thread 0: 00367 00368 # 00012 others`: how many overflows is timing.
    if let Some(rest) = line.strip_prefix("# Thread ")
        && let Some((n, list)) = rest.split_once(':')
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        let list = match list.split_once(" # ") {
            Some((cycles, others)) => {
                let ok = others
                    .strip_suffix(" others")
                    .is_some_and(|c| c.len() >= 5 && c.bytes().all(|b| b.is_ascii_digit()));
                if !ok {
                    return line.to_string();
                }
                cycles
            }
            None => list,
        };
        let ok = list.is_empty()
            || (list.starts_with(' ')
                && list[1..]
                    .split(' ')
                    .all(|c| c.len() >= 5 && c.bytes().all(|b| b.is_ascii_digit())));
        if ok {
            return format!("# Thread {n}: <overflow cycles>");
        }
    }
    line.to_string()
}

fn pieces(line: &str) -> Vec<Piece> {
    let line = canonical(line);
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == 0x1b {
            // An escape sequence (`ESC[3A`) is literal text, its digits included.
            let mut j = i + 1;
            while j < b.len() && !b[j].is_ascii_alphabetic() {
                j += 1;
            }
            j = (j + 1).min(b.len());
            text.push_str(&line[i..j]);
            i = j;
            continue;
        }
        if b[i] == b' ' || b[i].is_ascii_digit() {
            let mut j = i;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if j < b.len() && b[j].is_ascii_digit() {
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Number(line[i..j].to_string()));
                i = j;
                continue;
            }
            text.push_str(&line[i..j.max(i + 1)]);
            i = j.max(i + 1);
            continue;
        }
        let ch = line[i..].chars().next().unwrap_or(' ');
        text.push(ch);
        i += ch.len_utf8();
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// A printed number: its leading spaces, and its digits (zero-padded if they start with 0).
fn split_number(n: &str) -> (usize, &str) {
    let digits = n.trim_start_matches(' ');
    (n.len() - digits.len(), digits)
}

fn zero_padded(digits: &str) -> bool {
    digits.len() > 1 && digits.starts_with('0')
}

/// Whether two numbers could come from the same printf conversion (`%5ld`, `%05lu`, `%ld`)
/// after the same literal text. The leading spaces of a number are the literal separator
/// plus the field's space padding, so: zero-padded fields have the same spaces before them
/// and digits of the same width, unless one value overflowed the width; space-padded fields
/// have the same total width, unless one value overflowed it (then that one has only the
/// separator's spaces before it).
fn same_conversion(a: &str, b: &str) -> bool {
    let ((sa, da), (sb, db)) = (split_number(a), split_number(b));
    match (zero_padded(da), zero_padded(db)) {
        (true, true) => sa == sb && da.len() == db.len(),
        (true, false) => sa == sb && db.len() >= da.len(),
        (false, true) => sa == sb && da.len() >= db.len(),
        (false, false) => {
            a.len() == b.len()
                || if a.len() > b.len() {
                    sa <= sb
                } else {
                    sb <= sa
                }
        }
    }
}

/// Whether two lines have the same shape: same literal text, numbers of the same printf
/// conversion in the same places.
pub fn same_shape(a: &str, b: &str) -> bool {
    let (pa, pb) = (pieces(a), pieces(b));
    pa.len() == pb.len()
        && pa.iter().zip(&pb).all(|(x, y)| match (x, y) {
            (Piece::Text(x), Piece::Text(y)) => x == y,
            (Piece::Number(x), Piece::Number(y)) => same_conversion(x, y),
            _ => false,
        })
}

/// A line with its numbers replaced by `<width>` (for messages and de-duplication).
pub fn shape(line: &str) -> String {
    pieces(line)
        .iter()
        .map(|p| match p {
            Piece::Text(t) => t.escape_debug().to_string(),
            Piece::Number(n) => {
                let (spaces, digits) = split_number(n);
                let zeros = if zero_padded(digits) { "0" } else { "" };
                format!("<{spaces}:{zeros}{}>", digits.len())
            }
        })
        .collect()
}

fn show(line: &str) -> String {
    format!("{line:?}")
}

/// Line-by-line comparison: same number of lines, each of the same shape.
pub fn compare_lines(what: &str, real: &str, ours: &str) -> Result<(), String> {
    let (r, o): (Vec<&str>, Vec<&str>) = (real.split('\n').collect(), ours.split('\n').collect());
    let mut problems = Vec::new();
    if r.len() != o.len() {
        problems.push(format!(
            "{what}: cyclictest wrote {} lines, rtlat {}",
            r.len(),
            o.len()
        ));
    }
    for (i, (a, b)) in r.iter().zip(&o).enumerate() {
        if !same_shape(a, b) {
            problems.push(format!(
                "{what}: line {} differs\n  cyclictest: {}\n  rtlat:      {}",
                i + 1,
                show(a),
                show(b)
            ));
        }
    }
    if r.len() != o.len() {
        let n = r.len().min(o.len());
        for extra in &r[n..] {
            problems.push(format!("  only cyclictest: {}", show(extra)));
        }
        for extra in &o[n..] {
            problems.push(format!("  only rtlat:      {}", show(extra)));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Comparison of the distinct line shapes (for outputs whose line count is timing): every
/// line of each output has the shape of some line of the other.
pub fn compare_line_sets(what: &str, real: &str, ours: &str) -> Result<(), String> {
    let distinct = |text: &str| {
        let mut seen = std::collections::BTreeMap::new();
        for line in text.split('\n') {
            seen.entry(shape(line)).or_insert_with(|| line.to_string());
        }
        seen.into_values().collect::<Vec<String>>()
    };
    let (r, o) = (distinct(real), distinct(ours));
    let mut problems = Vec::new();
    for line in &o {
        if !r.iter().any(|x| same_shape(x, line)) {
            problems.push(format!(
                "{what}: rtlat wrote a line of a shape cyclictest never writes: {}",
                show(line)
            ));
        }
    }
    for line in &r {
        if !o.iter().any(|x| same_shape(x, line)) {
            problems.push(format!(
                "{what}: cyclictest wrote a line of a shape rtlat never writes: {}",
                show(line)
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

// ---------------------------------------------------------------------------------------------
// JSON with its key order, whatever serde_json's features.

/// A JSON value that keeps its object keys in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number as written.
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Parses a whole document (panics with the position on malformed input).
    pub fn parse(text: &str) -> Json {
        let mut p = JsonParser {
            b: text.as_bytes(),
            i: 0,
        };
        let v = p.value();
        p.ws();
        assert_eq!(
            p.i,
            p.b.len(),
            "trailing characters after the JSON document"
        );
        v
    }

    /// The keys of an object, in order (empty for anything else).
    pub fn keys(&self) -> Vec<&str> {
        match self {
            Json::Object(fields) => fields.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// `self[key]`, panicking with the key if absent.
    pub fn at(&self, key: &str) -> &Json {
        self.get(key)
            .unwrap_or_else(|| panic!("no key {key:?} in {:?}", self.keys()))
    }

    /// The kind, for comparing value types: `null`, `bool`, `integer`, `float`, `string`,
    /// `array`, `object`.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "bool",
            Json::Number(n) if n.contains(['.', 'e', 'E']) => "float",
            Json::Number(_) => "integer",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// An integer value.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// A numeric value.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// A string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
}

struct JsonParser<'a> {
    b: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn fail(&self, what: &str) -> ! {
        panic!("malformed JSON at byte {}: {what}", self.i)
    }

    fn eat(&mut self, c: u8) {
        self.ws();
        if self.b.get(self.i) != Some(&c) {
            self.fail(&format!("expected {:?}", c as char));
        }
        self.i += 1;
    }

    fn value(&mut self) -> Json {
        self.ws();
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Json::Object(fields);
                }
                loop {
                    self.ws();
                    let key = self.string();
                    self.eat(b':');
                    let v = self.value();
                    fields.push((key, v));
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Json::Object(fields);
                        }
                        _ => self.fail("expected , or }"),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Json::Array(items);
                }
                loop {
                    items.push(self.value());
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Json::Array(items);
                        }
                        _ => self.fail("expected , or ]"),
                    }
                }
            }
            Some(b'"') => Json::String(self.string()),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                self.i += 1;
                while self.i < self.b.len()
                    && matches!(
                        self.b[self.i],
                        b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'
                    )
                {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.b[start..self.i]).unwrap_or_default();
                if text.parse::<f64>().is_err() {
                    self.fail("bad number");
                }
                Json::Number(text.to_string())
            }
            _ => self.fail("expected a value"),
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Json {
        if self.b[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            v
        } else {
            self.fail(&format!("expected {w}"))
        }
    }

    fn string(&mut self) -> String {
        if self.b.get(self.i) != Some(&b'"') {
            self.fail("expected a string");
        }
        self.i += 1;
        let start = self.i;
        let mut escaped = false;
        while self.i < self.b.len() {
            let c = self.b[self.i];
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                let raw = std::str::from_utf8(&self.b[start..self.i]).unwrap_or_default();
                self.i += 1;
                // Decode the escapes through serde_json (the raw text is a valid JSON string).
                return serde_json::from_str::<String>(&format!("\"{raw}\""))
                    .unwrap_or_else(|_| self.fail("bad string escape"));
            } else if c < 0x20 {
                self.fail("control character in a string");
            }
            self.i += 1;
        }
        self.fail("unterminated string")
    }
}

/// The constructed hp-t630 machine tree (rtlat-linux/tests/data/hp-t630).
pub fn hp_t630_tree() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rtlat-linux/tests/data/hp-t630")
}

/// Copies the folder `from` into `to`, recursively.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Whether every file under `a` has the same contents under `b`.
pub fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    std::fs::read_dir(a).unwrap().all(|entry| {
        let entry = entry.unwrap();
        let other = b.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            same_dir(&entry.path(), &other)
        } else {
            std::fs::read(entry.path()).ok() == std::fs::read(&other).ok()
        }
    })
}

/// A temporary folder holding a writable copy of the hp-t630 tree in `root/`.
pub fn copy_of_hp_t630(tag: &str) -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new(tag);
    let root = dir.join("root");
    copy_dir(&hp_t630_tree(), &root);
    (dir, root)
}

// ---------------------------------------------------------------------------------------------
// `rtlat run` over a copied cpufreq tree, in a private mount namespace.

/// Puts the rtlat binary at `to` (another name, or a folder of its own): a hard link where the
/// file system allows one, else a copy. A link is never open for writing, so no child that
/// another test thread forks in the meantime can hold it open and make executing it fail
/// with ETXTBSY ("Text file busy"), as a fresh copy can.
pub fn place_rtlat(to: &Path) {
    place(&rtlat(), to);
}

/// Puts `rtlat-tools`, which `rtlat` execs for audit, threads, irq, cpufreq and compare, in
/// the folder `dir` (beside an rtlat placed there), as [`place_rtlat`] places rtlat.
pub fn place_rtlat_tools(dir: &Path) {
    place(
        &rtlat().with_file_name("rtlat-tools"),
        &dir.join("rtlat-tools"),
    );
}

/// `from` at `to`: a hard link where the file system allows one, else a copy.
fn place(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to).unwrap();
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Runs rtlat as user `nobody` with no capabilities (`setpriv`, util-linux), from a copy of
/// the binary in a world-readable temporary folder, in that folder. Needs root.
pub fn as_nobody(args: &[&str]) -> std::process::Output {
    use std::os::unix::fs::PermissionsExt as _;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rtlat-nobody-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = as_nobody_in(&dir, args);
    std::fs::remove_dir_all(&dir).unwrap();
    out
}

/// Runs rtlat as user `nobody` with no capabilities from `dir` (world-readable), where the
/// binary is placed as `dir/rtlat`, with `rtlat-tools` beside it. Needs root.
pub fn as_nobody_in(dir: &Path, args: &[&str]) -> std::process::Output {
    assert!(
        is_root(),
        "these tests switch to user nobody and need to run as root"
    );
    let binary = dir.join("rtlat");
    place_rtlat(&binary);
    place_rtlat_tools(dir);
    // Where only a copy was possible, a child that another test thread forks while the copy
    // is still open for writing holds that descriptor until it execs: executing the copy in
    // that moment fails with ETXTBSY ("Text file busy"). It is gone a moment later.
    let mut attempts = 0;
    loop {
        let out = std::process::Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--inh-caps=-all",
            ])
            .arg(&binary)
            .args(args)
            .current_dir(dir)
            .output()
            .expect("setpriv (util-linux) must be installed");
        attempts += 1;
        let busy = String::from_utf8_lossy(&out.stderr).contains("Text file busy");
        if !busy || attempts == 50 {
            break out;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether the tests run as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .is_some_and(|l| l.split_whitespace().nth(2) == Some("0"))
}

/// A stand-in for `/sys/devices/system/cpu` in `dir/cpu`: this machine's online and possible
/// CPU lists, and for each online CPU the cpufreq files of the hp-t630's CPU 0 (`ondemand`,
/// 1.2 to 2 GHz, 1.6 GHz among its frequencies).
pub fn fake_cpu_dir(dir: &TempDir) -> PathBuf {
    let fake = dir.join("cpu");
    std::fs::create_dir_all(&fake).unwrap();
    for list in ["online", "possible"] {
        let text = std::fs::read_to_string(format!("/sys/devices/system/cpu/{list}")).unwrap();
        std::fs::write(fake.join(list), text).unwrap();
    }
    for cpu in online_cpus() {
        copy_dir(
            &hp_t630_tree().join("sys/devices/system/cpu/cpu0/cpufreq"),
            &fake.join(format!("cpu{cpu}/cpufreq")),
        );
    }
    fake
}

/// `rtlat run ARGS` in a private mount namespace where `fake` is `/sys/devices/system/cpu`.
pub fn spawn_with_fake_cpus(fake: &Path, args: &[&str]) -> Running {
    assert!(is_root(), "the namespace tests need root (unshare --mount)");
    let script = format!(
        "mount --bind '{}' /sys/devices/system/cpu && exec '{}' run \"$@\"",
        fake.display(),
        rtlat().display()
    );
    let mut all = vec![
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        &script,
        "sh",
    ];
    all.extend_from_slice(args);
    spawn(Path::new("unshare"), &all, None)
}

/// The pid of the one child of `pid` (unshare forks the namespaced shell, which execs rtlat),
/// or `pid` itself if it has none (after 20 s).
pub fn child_of(pid: i32) -> i32 {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let children =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        if let Some(child) = children.split_whitespace().next() {
            return child.parse().unwrap();
        }
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
        if exe.file_name().is_some_and(|n| n == "rtlat") || Instant::now() > until {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod self_tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(same_shape(
            "T: 0 (31999) P:80 I:1000 C:    200 Min:     12 Act:   13 Avg:   14 Max:      28",
            "T: 0 (  522) P:80 I:1000 C:     10 Min:   1234 Act:  100 Avg:   14 Max:12345678",
        ));
        assert!(!same_shape("Min:     12", "Min:      12"));
        assert!(!same_shape("Min:     12", "Min:12"));
        assert!(!same_shape("I:1000", "I: 1000"));
        assert!(same_shape("I:1000", "I:500"));
        assert!(!same_shape("x 000012", "x     12"));
        assert!(!same_shape(
            "# Max Latencies: 00098",
            "# Max Latencies:    98"
        ));
        assert!(same_shape(
            "# Max Latencies: 00098",
            "# Max Latencies: 123456"
        ));
        assert!(same_shape("# Thread 0: 00367 00368", "# Thread 0:"));
        assert!(same_shape(
            "# Thread 1:",
            "# Thread 1: 00001 # 00004 others"
        ));
        assert!(!same_shape("# Thread 1:", "# Thread 1: 1"));
        assert!(same_shape(
            "\x1b[3Apolicy: fifo: loadavg: 0.42 0.63 0.89 2/83 32493          ",
            "\x1b[3Apolicy: fifo: loadavg: 10.42 0.63 0.89 12/183 3          ",
        ));
        assert!(!same_shape("\x1b[3Apolicy: fifo:", "\x1b[4Apolicy: fifo:"));
        assert!(!same_shape("000001 000000\t000000", "000001 000000 000000"));
    }

    #[test]
    fn json_keeps_key_order() {
        let j = Json::parse(r#"{"b": 1, "a": {"y": [1, 2.5, "x\"y"], "x": null}, "h": {      }}"#);
        assert_eq!(j.keys(), ["b", "a", "h"]);
        assert_eq!(j.at("a").keys(), ["y", "x"]);
        assert_eq!(j.at("b").kind(), "integer");
        assert_eq!(j.at("h"), &Json::Object(Vec::new()));
    }
}
