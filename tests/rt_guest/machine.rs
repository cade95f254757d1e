//! The guest machine: Debian's PREEMPT_RT kernels fetched once (`fetch-kernels.sh`), a
//! throw-away initramfs of rtlat and the peers it is compared with ([`super::initramfs`]),
//! QEMU started on them, and the results the guest sends back ([`Results`]).
//!
//! One guest runs at a time in a test process (two TCG guests on two host CPUs would each
//! run at half speed, and the protocol test changes the host's scheduling of one).

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use super::initramfs;

/// The guest's architecture (and the kernel's folder in the cache).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    /// x86_64, `qemu-system-x86_64 -M pc`: results over the second serial port.
    X86_64,
    /// arm64, `qemu-system-aarch64 -M virt`: one UART, results on the console.
    Aarch64,
}

impl Arch {
    /// The folder name in the cache, and the name of `uname -m`.
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
        }
    }

    fn qemu(self) -> &'static str {
        match self {
            Arch::X86_64 => "qemu-system-x86_64",
            Arch::Aarch64 => "qemu-system-aarch64",
        }
    }

    fn console(self) -> &'static str {
        match self {
            Arch::X86_64 => "ttyS0",
            Arch::Aarch64 => "ttyAMA0",
        }
    }
}

/// What `RTLAT_GUEST` asks: `required` (CI: a guest test that cannot run fails), `off` (none
/// runs; each says so), or unset (they run where the tools are, and say plainly where not).
fn policy() -> String {
    std::env::var("RTLAT_GUEST").unwrap_or_default()
}

/// Says on the terminal (not through the test harness's capture, which hides a passing
/// test's output) that `test` did not run and why; fails instead under
/// `RTLAT_GUEST=required`.
pub fn not_run(test: &str, why: &str) {
    if policy() == "required" {
        panic!("{test}: the guest could not run (RTLAT_GUEST=required): {why}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "\n{test}: NOT RUN: {why} (tests/rt_guest/mod.rs says what these tests need)"
    );
}

/// Says on the terminal, past the harness's capture, what a guest did (accelerator, times).
pub fn tell(line: &str) {
    let _ = writeln!(std::io::stderr(), "\n{line}");
}

/// The folder the kernels are cached in: `RTLAT_GUEST_CACHE`, else `rt-guest` in cargo's
/// temporary folder of the target directory (what `.ci/run` fills).
pub fn cache_dir() -> PathBuf {
    std::env::var_os("RTLAT_GUEST_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("rt-guest"))
}

/// A program on the PATH, or `None`.
pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// A kernel in the cache.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// Its architecture.
    pub arch: Arch,
    /// The image.
    pub vmlinuz: PathBuf,
    /// The Debian package it came from (`linux-image-…-unsigned`).
    pub package: String,
}

/// The kernel `arch`/`series` from the cache, fetched first (once per test process) if it
/// is not there; `Err` says why it cannot be had.
pub fn kernel(arch: Arch, series: &'static str) -> Result<Kernel, String> {
    let dir = cache_dir().join(arch.name()).join(series);
    // x86_64's come with their msr driver (the SMI suite loads it).
    if !dir.join("vmlinuz").is_file() || (arch == Arch::X86_64 && !dir.join("msr.ko").is_file()) {
        fetched()?;
    }
    let vmlinuz = dir.join("vmlinuz");
    if !vmlinuz.is_file() {
        return Err(format!("{} is missing after fetching", vmlinuz.display()));
    }
    let package = std::fs::read_to_string(dir.join("package"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Package: "))
        .unwrap_or("?")
        .to_owned();
    Ok(Kernel {
        arch,
        vmlinuz,
        package,
    })
}

/// Runs `fetch-kernels.sh` once per test process.
fn fetched() -> Result<(), String> {
    static FETCHED: OnceLock<Result<(), String>> = OnceLock::new();
    FETCHED
        .get_or_init(|| {
            for tool in ["apt-get", "apt-cache", "dpkg-deb"] {
                if which(tool).is_none() {
                    return Err(format!(
                        "no kernel in {} and no {tool} to fetch one with (run tests/rt_guest/fetch-kernels.sh {} on a Debian machine)",
                        cache_dir().display(),
                        cache_dir().display()
                    ));
                }
            }
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rt_guest/fetch-kernels.sh");
            let out = Command::new("bash")
                .arg(&script)
                .arg(cache_dir())
                .output()
                .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
            if out.status.success() {
                tell(&format!("rt_guest: fetched the kernels:\n{}", String::from_utf8_lossy(&out.stdout)));
                Ok(())
            } else {
                Err(format!(
                    "fetch-kernels.sh failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ))
            }
        })
        .clone()
}

/// The tools a guest of `arch` needs on the host, or what is missing (with the package); or
/// that `RTLAT_GUEST=off` asked for no guest (every guest test starts here).
pub fn tools(arch: Arch) -> Result<(), String> {
    if policy() == "off" {
        return Err("RTLAT_GUEST=off".to_owned());
    }
    let mut needed = vec![(
        arch.qemu(),
        match arch {
            Arch::X86_64 => "qemu-system-x86",
            Arch::Aarch64 => "qemu-system-arm",
        },
    )];
    if arch == Arch::X86_64 {
        needed.extend([
            ("busybox", "busybox-static"),
            ("cyclictest", "rt-tests"),
            ("rtla", "rtla"),
            ("chrt", "util-linux"),
            ("taskset", "util-linux"),
            ("ldd", "libc-bin"),
        ]);
    }
    let missing: Vec<String> = needed
        .iter()
        .filter(|(tool, _)| which(tool).is_none())
        .map(|(tool, package)| format!("{tool} (apt-get install {package})"))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("missing on this machine: {}", missing.join(", ")))
    }
}

/// How QEMU runs the guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accel {
    /// Hardware virtualisation (`/dev/kvm` worked: a probe guest booted).
    Kvm,
    /// Emulation; the reason KVM was not used.
    Tcg(String),
}

impl Accel {
    /// QEMU's options; `single_threaded`: TCG's vCPUs on one host thread ([`Boot`]).
    fn args(&self, arch: Arch, single_threaded: bool) -> Vec<&'static str> {
        match (self, arch) {
            (Accel::Kvm, _) => vec!["-accel", "kvm", "-cpu", "host"],
            (Accel::Tcg(_), Arch::X86_64) if single_threaded => {
                vec!["-accel", "tcg,thread=single", "-cpu", "max"]
            }
            (Accel::Tcg(_), Arch::X86_64) => vec!["-accel", "tcg", "-cpu", "max"],
            // Pointer authentication's architected algorithm is slow to emulate; the
            // implementation-defined one is not (QEMU's docs).
            (Accel::Tcg(_), Arch::Aarch64) => vec!["-accel", "tcg", "-cpu", "max,pauth-impdef=on"],
        }
    }

    /// `KVM` or `TCG (why not KVM)`.
    pub fn describe(&self) -> String {
        match self {
            Accel::Kvm => "KVM".to_owned(),
            Accel::Tcg(why) => format!("TCG ({why})"),
        }
    }
}

/// KVM where it works for an x86_64 guest on this host, else TCG: a nested, software KVM
/// may refuse the guest's CPU model or run a stock kernel orders of magnitude slower than
/// TCG, so the probe boots the kernel under KVM with a suite that powers off at once and
/// takes KVM only if that is done within 20 s. Once per test process.
pub fn accel(arch: Arch, kernel: &Kernel) -> Accel {
    static X86: OnceLock<Accel> = OnceLock::new();
    if arch != Arch::X86_64 || std::env::consts::ARCH != "x86_64" {
        return Accel::Tcg(format!(
            "a {} guest on an {} host",
            arch.name(),
            std::env::consts::ARCH
        ));
    }
    X86.get_or_init(|| {
        if std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/kvm")
            .is_err()
        {
            return Accel::Tcg("/dev/kvm cannot be opened".to_owned());
        }
        let started = Instant::now();
        let probe = Guest::start(&Boot {
            single_threaded: false,
            kernel,
            accel: Accel::Kvm,
            cmdline: "",
            suite: "probe",
            smp: 1,
            paused: false,
            keep_after_poweroff: false,
            cpu: None,
        });
        match probe {
            Ok(mut guest) => {
                let results = guest.wait(Duration::from_secs(20));
                if results.done {
                    Accel::Kvm
                } else {
                    let said = results
                        .qemu_stderr
                        .lines()
                        .chain(results.console.lines())
                        .find(|l| !l.trim().is_empty())
                        .unwrap_or("no output")
                        .trim()
                        .to_owned();
                    Accel::Tcg(format!(
                        "the KVM probe guest did not finish in {:.1} s: {said}",
                        started.elapsed().as_secs_f64()
                    ))
                }
            }
            Err(e) => Accel::Tcg(format!("the KVM probe could not start: {e}")),
        }
    })
    .clone()
}

/// How to boot a guest.
pub struct Boot<'a> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// KVM or TCG.
    pub accel: Accel,
    /// Kernel parameters besides the console and the suite (`isolcpus=1 …`).
    pub cmdline: &'a str,
    /// The suite the guest runs (`guest/suites/NAME.sh`).
    pub suite: &'a str,
    /// Its CPUs.
    pub smp: u32,
    /// Started paused (`-S`): [`Guest::resume`] starts it, once the host has done what it
    /// does to QEMU's threads.
    pub paused: bool,
    /// After the guest powers off, QEMU stays (`-no-shutdown`) until [`Guest::quit`]: its
    /// threads can still be restored.
    pub keep_after_poweroff: bool,
    /// Under TCG, both vCPUs on one host thread (`-accel tcg,thread=single`): the kernel's
    /// live code patching (each tracer switched on or off patches its tracepoints with
    /// int3) is never seen half done by the other vCPU, which multi-threaded TCG allowed
    /// (int3 oopses in the code just patched, after a few dozen tracer switches). Slower.
    pub single_threaded: bool,
    /// Under TCG, the CPU model in place of `max` (`-cpu`), e.g. an Intel one for the SMI
    /// counter; `None`: `max`.
    pub cpu: Option<&'a str>,
}

/// A running QEMU.
pub struct Guest {
    child: Child,
    dir: PathBuf,
    arch: Arch,
    started: Instant,
    _one_at_a_time: MutexGuard<'static, ()>,
}

/// Guests run one at a time in a test process.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

impl Guest {
    /// Starts QEMU on `boot` (the initramfs built first, once per process and arch).
    pub fn start(boot: &Boot<'_>) -> Result<Guest, String> {
        let arch = boot.kernel.arch;
        let initrd = initramfs::build(arch)?;
        let lock = one_at_a_time();
        let dir = cache_dir().join(format!("run-{}-{}", std::process::id(), next_run()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let cmdline = format!(
            "console={} panic=-1 quiet loglevel=3 {} rtlat.suite={}",
            arch.console(),
            boot.cmdline,
            boot.suite
        );
        let mut args: Vec<String> = Vec::new();
        if arch == Arch::Aarch64 {
            args.extend(["-M".into(), "virt".into()]);
        }
        args.extend(
            boot.accel
                .args(arch, boot.single_threaded)
                .into_iter()
                .map(String::from),
        );
        if let (Some(cpu), Accel::Tcg(_)) = (boot.cpu, &boot.accel)
            && let Some(model) = args.iter().position(|a| a == "-cpu").map(|at| at + 1)
        {
            args[model] = cpu.to_owned();
        }
        args.extend([
            "-smp".into(),
            boot.smp.to_string(),
            "-m".into(),
            "1024".into(),
            "-name".into(),
            "rtlat-guest,debug-threads=on".into(),
            "-display".into(),
            "none".into(),
            "-nodefaults".into(),
            "-no-reboot".into(),
            "-kernel".into(),
            boot.kernel.vmlinuz.display().to_string(),
            "-initrd".into(),
            initrd.display().to_string(),
            "-append".into(),
            cmdline,
            "-serial".into(),
            format!("file:{}", dir.join("console.log").display()),
        ]);
        if arch == Arch::X86_64 {
            args.extend([
                "-serial".into(),
                format!("file:{}", dir.join("results.log").display()),
            ]);
        }
        args.extend([
            "-monitor".into(),
            format!("unix:{},server=on,wait=off", dir.join("monitor").display()),
        ]);
        if boot.paused {
            args.push("-S".into());
        }
        if boot.keep_after_poweroff {
            args.push("-no-shutdown".into());
        }
        std::fs::write(dir.join("qemu.args"), args.join("\n")).ok();
        let child = Command::new(arch.qemu())
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(dir.join("qemu.stderr"))
                    .map_err(|e| format!("qemu.stderr: {e}"))?,
            )
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", arch.qemu()))?;
        Ok(Guest {
            child,
            dir,
            arch,
            started: Instant::now(),
            _one_at_a_time: lock,
        })
    }

    /// QEMU's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// QEMU's vCPU threads (`CPU N/TCG`, `CPU N/KVM`) as (tid, name), by vCPU.
    pub fn vcpu_threads(&self) -> Vec<(u32, String)> {
        let mut threads = Vec::new();
        let task = PathBuf::from(format!("/proc/{}/task", self.pid()));
        for entry in std::fs::read_dir(&task).into_iter().flatten().flatten() {
            let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
            let comm = comm.trim_end();
            if comm.starts_with("CPU ")
                && comm.contains('/')
                && let Ok(tid) = entry.file_name().to_string_lossy().parse()
            {
                threads.push((tid, comm.to_owned()));
            }
        }
        threads.sort_by(|a, b| a.1.cmp(&b.1));
        threads
    }

    /// Sends a command to QEMU's monitor (`cont`, `quit`) and returns what it answered.
    pub fn monitor(&self, command: &str) -> Result<String, String> {
        let path = self.dir.join("monitor");
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut stream = loop {
            match UnixStream::connect(&path) {
                Ok(s) => break s,
                Err(e) if Instant::now() > deadline => {
                    return Err(format!("QEMU's monitor {}: {e}", path.display()));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        // The banner ends with the prompt.
        while !answer.ends_with(b"(qemu) ") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
        stream
            .write_all(format!("{command}\n").as_bytes())
            .map_err(|e| format!("QEMU's monitor: {e}"))?;
        answer.clear();
        while !answer.ends_with(b"(qemu) ") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
        Ok(String::from_utf8_lossy(&answer).into_owned())
    }

    /// Starts a guest booted paused.
    pub fn resume(&self) -> Result<(), String> {
        self.monitor("cont").map(drop)
    }

    /// Waits until the guest has sent `@@done` (or QEMU exited, or `limit` passed) and
    /// returns what it sent. QEMU is killed at the limit; a guest kept after power-off
    /// stays until [`Guest::quit`].
    pub fn wait(&mut self, limit: Duration) -> Results {
        let deadline = self.started + limit;
        let mut killed = false;
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            if self
                .results_text()
                .lines()
                .any(|l| l.trim_end() == "@@done")
            {
                // Powered off: QEMU exits (or, kept, stays stopped) in a moment.
                let grace = Instant::now() + Duration::from_secs(5);
                while Instant::now() < grace {
                    if let Ok(Some(_)) = self.child.try_wait() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                break;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                killed = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut results = Results::parse(&self.results_text());
        results.console = std::fs::read_to_string(self.dir.join("console.log")).unwrap_or_default();
        results.qemu_stderr =
            std::fs::read_to_string(self.dir.join("qemu.stderr")).unwrap_or_default();
        results.elapsed = self.started.elapsed();
        results.killed_at_limit = killed.then_some(limit);
        results.keep(&self.dir);
        results
    }

    /// Boots `boot`, waits up to `limit` for its suite, and boots once more when the guest
    /// kernel itself crashed (printing the oops). Seen once, on 6.12 under QEMU 7.2's
    /// multi-threaded TCG on a loaded host: in the reschedule IPI's handler a branch landed
    /// one byte into an instruction as `rtla timerlat` switched its tracer on (the kernel
    /// patches its own text then; most likely QEMU's cross-vCPU code invalidation). Not a
    /// result of rtlat's; a second crash is a failure with both oopses.
    pub fn run_suite(boot: &Boot<'_>, limit: Duration) -> Result<Results, String> {
        let mut guest = Guest::start(boot)?;
        let first = guest.wait(limit);
        drop(guest);
        if first.hung() {
            // Seen once on 6.1 under TCG, after the side-by-side records, as rtla timerlat
            // started: no record and no console line for the rest of the limit (the console
            // shows only KERN_CRIT and above, so a stall report does not reach it).
            tell(&format!(
                "rt_guest: the {} guest sent nothing more and did not finish its suite within {} s, with no oops (a stall under emulation, not an rtlat result); booting it once more",
                boot.kernel.package,
                limit.as_secs()
            ));
            let mut guest = Guest::start(boot)?;
            let second = guest.wait(limit);
            if second.hung() {
                return Err(format!(
                    "the {} guest did not finish its suite within {} s, twice",
                    boot.kernel.package,
                    limit.as_secs()
                ));
            }
            return Ok(second);
        }
        let Some(oops) = first.kernel_crash() else {
            return Ok(first);
        };
        tell(&format!(
            "rt_guest: the {} guest kernel crashed (not an rtlat failure); booting it once more. Its oops:\n{oops}",
            boot.kernel.package
        ));
        let mut guest = Guest::start(boot)?;
        let second = guest.wait(limit);
        if let Some(again) = second.kernel_crash() {
            return Err(format!(
                "the {} guest kernel crashed twice:\n{oops}\n--- and again:\n{again}",
                boot.kernel.package
            ));
        }
        Ok(second)
    }

    /// Ends QEMU (a guest kept after power-off, or one still running).
    pub fn quit(mut self) {
        let _ = self.monitor("quit");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn results_text(&self) -> String {
        let file = match self.arch {
            Arch::X86_64 => "results.log",
            Arch::Aarch64 => "console.log",
        };
        let bytes = std::fs::read(self.dir.join(file)).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Drop for Guest {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // The run's folder holds only what the guest sent and QEMU's own files.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn next_run() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUN: AtomicUsize = AtomicUsize::new(0);
    RUN.fetch_add(1, Ordering::Relaxed)
}

/// What a guest sent back: records by key, and what QEMU and the console show.
#[derive(Debug, Default)]
pub struct Results {
    records: BTreeMap<String, Vec<u8>>,
    /// Records whose hex did not read (key, the first bad line).
    pub corrupt: Vec<(String, String)>,
    /// The guest sent `@@done` (its suite ran to the end).
    pub done: bool,
    /// The guest's console.
    pub console: String,
    /// QEMU's stderr.
    pub qemu_stderr: String,
    /// From QEMU's start to the end of the wait.
    pub elapsed: Duration,
    /// QEMU was killed at this limit.
    pub killed_at_limit: Option<Duration>,
}

impl Results {
    /// Reads the records of a result port's text (see `guest/lib.sh`).
    pub fn parse(text: &str) -> Results {
        let mut results = Results::default();
        let mut open: Option<(String, Vec<u8>, Option<String>)> = None;
        for line in text.lines() {
            let line = line.trim_end_matches('\r');
            if let Some(key) = line.strip_prefix("@@begin ") {
                open = Some((key.to_owned(), Vec::new(), None));
            } else if let Some(key) = line.strip_prefix("@@end ") {
                if let Some((k, bytes, bad)) = open.take() {
                    match bad {
                        _ if k != key => results.corrupt.push((k, format!("ended as {key}"))),
                        Some(bad) => results.corrupt.push((k, bad)),
                        None => {
                            results.records.insert(k, bytes);
                        }
                    }
                }
            } else if line == "@@done" {
                results.done = true;
            } else if let Some((_, bytes, bad)) = open.as_mut()
                && bad.is_none()
                && !decode_hex(line, bytes)
            {
                *bad = Some(line.to_owned());
            }
        }
        results
    }

    /// With `RTLAT_GUEST_KEEP=DIR`, writes every record to `DIR/<run>/KEY` (and the console
    /// to `DIR/<run>/console.log`), for reading a failure's whole evidence.
    fn keep(&self, run: &Path) {
        let Some(dir) = std::env::var_os("RTLAT_GUEST_KEEP") else {
            return;
        };
        let dir = Path::new(&dir).join(run.file_name().unwrap_or_default());
        let _ = std::fs::create_dir_all(&dir);
        for (key, bytes) in &self.records {
            let _ = std::fs::write(dir.join(key), bytes);
        }
        let _ = std::fs::write(dir.join("console.log"), &self.console);
        tell(&format!("rt_guest: records kept in {}", dir.display()));
    }

    /// Whether the guest sent `key`.
    pub fn has(&self, key: &str) -> bool {
        self.records.contains_key(key)
    }

    /// Record `key` as text; panics, saying what the guest did send, when it is missing.
    pub fn text(&self, key: &str) -> String {
        match self.records.get(key) {
            Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            None => panic!("the guest sent no `{key}`\n{}", self.context()),
        }
    }

    /// Record `key` as bytes.
    pub fn bytes(&self, key: &str) -> &[u8] {
        match self.records.get(key) {
            Some(bytes) => bytes,
            None => panic!("the guest sent no `{key}`\n{}", self.context()),
        }
    }

    /// The exit status of the guest command `key` (`run KEY …`).
    pub fn rc(&self, key: &str) -> i32 {
        let text = self.text(&format!("{key}.rc"));
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{key}.rc is {text:?}"))
    }

    /// The guest command `key`'s stdout.
    pub fn out(&self, key: &str) -> String {
        self.text(&format!("{key}.out"))
    }

    /// The guest command `key`'s stderr.
    pub fn err(&self, key: &str) -> String {
        self.text(&format!("{key}.err"))
    }

    /// The guest command `key` in one block, for a failure's message.
    pub fn show(&self, key: &str) -> String {
        let get = |suffix: &str| {
            self.records
                .get(&format!("{key}.{suffix}"))
                .map_or("(not sent)".to_owned(), |b| {
                    String::from_utf8_lossy(b).into_owned()
                })
        };
        format!(
            "guest command {key}: exit {}\n--- stdout\n{}\n--- stderr\n{}",
            get("rc").trim(),
            get("out"),
            get("err")
        )
    }

    /// Asserts that the guest command `key` exited with `code`.
    pub fn assert_rc(&self, key: &str, code: i32) {
        assert_eq!(self.rc(key), code, "{}", self.show(key));
    }

    /// The keys sent, QEMU's stderr, the guest kernel's crash if it crashed, and the
    /// console's end: what a failure needs to say.
    pub fn context(&self) -> String {
        let crash = self.kernel_crash().map_or(String::new(), |oops| {
            format!("the guest kernel crashed:\n{oops}\n")
        });
        format!(
            "guest finished: {} (killed at {:?}); records: {}\ncorrupt: {:?}\nQEMU stderr: {}\n{crash}console (end):\n{}",
            self.done,
            self.killed_at_limit,
            self.records.keys().cloned().collect::<Vec<_>>().join(" "),
            self.corrupt,
            self.qemu_stderr.trim(),
            self.console_tail(30)
        )
    }

    /// The console's last `n` lines.
    pub fn console_tail(&self, n: usize) -> String {
        let lines: Vec<&str> = self.console.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    /// Whether the guest was stopped at its limit without finishing its suite and without a
    /// kernel crash on its console.
    pub fn hung(&self) -> bool {
        !self.done && self.killed_at_limit.is_some() && self.kernel_crash().is_none()
    }

    /// The guest kernel's own crash, when it died before the suite's end: the console from
    /// the first oops line (`BUG:`, `Oops:`, a trap, `cut here`) to the panic, at most 40
    /// lines. A crashed kernel is the kernel's (or QEMU's) failure, not a result of rtlat's.
    pub fn kernel_crash(&self) -> Option<String> {
        if self.done || !self.console.contains("Kernel panic - not syncing") {
            return None;
        }
        let lines: Vec<&str> = self.console.lines().collect();
        let first = lines
            .iter()
            .position(|l| {
                [
                    "BUG:",
                    "Oops:",
                    "invalid opcode",
                    "general protection",
                    "cut here",
                ]
                .iter()
                .any(|m| l.contains(m))
            })
            .or_else(|| lines.iter().position(|l| l.contains("Kernel panic")))?;
        Some(
            lines[first..]
                .iter()
                .take(40)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }

    /// Asserts the guest ran its suite to the end.
    pub fn assert_done(&self) {
        assert!(self.done && self.corrupt.is_empty(), "{}", self.context());
    }
}

/// Appends the bytes of a line of hex to `into`; false if it is not hex.
fn decode_hex(line: &str, into: &mut Vec<u8>) -> bool {
    let line = line.trim();
    if !line.len().is_multiple_of(2) {
        return false;
    }
    let digit = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    };
    let mut bytes = Vec::with_capacity(line.len() / 2);
    for pair in line.as_bytes().chunks(2) {
        match (digit(pair[0]), digit(pair[1])) {
            (Some(h), Some(l)) => bytes.push(h << 4 | l),
            _ => return false,
        }
    }
    into.extend_from_slice(&bytes);
    true
}

#[test]
fn records_are_read_from_interleaved_text() {
    let text = "boot noise\r\n@@begin a.rc\r\n300a\r\n@@end a.rc\r\n[  1.0] kernel line\n\
                @@begin b\n6869\n0a\n@@end b\n@@begin c\nzz\n@@end c\n@@done\n";
    let r = Results::parse(text);
    assert_eq!(r.text("a.rc"), "0\n");
    assert_eq!(r.rc("a"), 0);
    assert_eq!(r.text("b"), "hi\n");
    assert!(!r.has("c"));
    assert_eq!(r.corrupt, vec![("c".to_owned(), "zz".to_owned())]);
    assert!(r.done);
}

#[test]
fn a_guest_kernel_crash_is_told_from_its_first_oops_line() {
    let console = "[    1.0] boot\n\
                   [   77.90] invalid opcode: 0000 [#1] PREEMPT_RT SMP NOPTI\n\
                   [   77.91] RIP: 0010:sysvec_reschedule_ipi+0x4c/0x100\n\
                   [   77.92] Kernel panic - not syncing: Fatal exception in interrupt\n";
    let crashed = Results {
        console: console.to_owned(),
        ..Results::default()
    };
    let oops = crashed.kernel_crash().expect("a crash");
    assert!(oops.starts_with("[   77.90] invalid opcode"), "{oops}");
    assert!(oops.ends_with("Fatal exception in interrupt"), "{oops}");
    assert!(crashed.context().contains("the guest kernel crashed:"));
    // A suite that ran to its end, or a console with no panic, is no crash.
    let done = Results {
        console: console.to_owned(),
        done: true,
        ..Results::default()
    };
    assert_eq!(done.kernel_crash(), None);
    let quiet = Results {
        console: "[    1.0] boot\n[   77.90] BUG: spinlock\n".to_owned(),
        ..Results::default()
    };
    assert_eq!(quiet.kernel_crash(), None);
}
