//! Test-only helpers that need `unsafe`: a no-op signal handler, thread-directed signals, and
//! running one test of this binary in a child process with fewer privileges.

use core::sync::atomic::{AtomicU64, Ordering};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Once;

use libc::c_int;

use crate::errno::Errno;
use crate::sys;

/// Held for reading while a child is forked, for writing by a test that a `fork` would
/// disturb: a fork makes every private page of the process copy-on-write again, so the
/// next write to an already-touched stack page takes a minor fault.
pub(crate) static FORK_LOCK: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Set in a child's environment; child-only tests do nothing without it.
const CHILD_ENV: &str = "RTLAT_LINUX_TEST_CHILD";

/// Runs of the no-op handler, over all threads.
static HANDLED: AtomicU64 = AtomicU64::new(0);

extern "C" fn count_signal(_signo: c_int) {
    // An atomic add is async-signal-safe.
    HANDLED.fetch_add(1, Ordering::Relaxed);
}

/// Installs a handler for `SIGUSR1` that only counts, **without `SA_RESTART`**: an interrupted
/// sleep returns `EINTR` instead of being restarted by the kernel.
pub(crate) fn install_sigusr1_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: an all-zero `sigaction` is valid (no flags, empty mask); the handler is set
        // to a function that only does an atomic add, which is async-signal-safe.
        let rc = unsafe {
            let mut action: libc::sigaction = core::mem::zeroed();
            action.sa_sigaction = count_signal as extern "C" fn(c_int) as usize;
            action.sa_flags = 0;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGUSR1, &action, core::ptr::null_mut())
        };
        assert_eq!(rc, 0, "sigaction(SIGUSR1)");
    });
}

/// Runs of the `SIGUSR1` handler so far (all threads).
pub(crate) fn handled() -> u64 {
    HANDLED.load(Ordering::Relaxed)
}

/// Sends `signo` to thread `tid` of this process (`tgkill`).
pub(crate) fn send_signal(tid: i32, signo: c_int) -> Result<(), Errno> {
    // SAFETY: plain integer arguments; `tgkill` only targets a thread of this process.
    let rc = unsafe { libc::syscall(libc::SYS_tgkill, sys::getpid(), tid, signo) };
    if rc == -1 {
        Err(sys::last_errno())
    } else {
        Ok(())
    }
}

/// Added to a child's failure on aarch64: the child is this test binary, exec'd by the kernel.
/// On an x86_64 host under qemu-user, the kernel can only exec it through a binfmt_misc entry
/// for qemu-aarch64, and the child's qemu finds the aarch64 loader only through
/// `QEMU_LD_PREFIX` (the runner's `-L` is not passed on); without them the exec fails and
/// glibc hands the binary to `/bin/sh`. `.ci/run` sets up both.
const EXEC_HINT: &str = if cfg!(target_arch = "aarch64") {
    " (under qemu-user on another host: is qemu-aarch64 registered in \
     /proc/sys/fs/binfmt_misc and QEMU_LD_PREFIX set to the aarch64 sysroot? see .ci/run)"
} else {
    ""
};

/// Whether this process is a child started by [`run_child`].
pub(crate) fn is_child() -> bool {
    let child = std::env::var_os(CHILD_ENV).is_some();
    if !child {
        println!("this test runs only as a child process of another test");
    }
    child
}

/// How to start a child.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Child {
    /// Run as uid/gid 65534 (`nobody`) with no supplementary groups.
    pub nobody: bool,
    /// `RLIMIT_RTPRIO` (soft and hard) to set.
    pub rtprio: Option<u64>,
    /// `RLIMIT_MEMLOCK` in bytes (soft and hard) to set.
    pub memlock: Option<u64>,
}

/// Runs the ignored test `name` of this test binary in a child process set up as `child`, and
/// asserts that it ran and passed. As `nobody`, the binary is run from a world-readable copy
/// in the temporary directory (the target directory may not be reachable for `nobody`).
pub(crate) fn run_child(name: &str, child: Child) {
    try_run_child(name, child).unwrap();
}

/// Like [`run_child`], but a child that cannot be set up (e.g. a limit that may not be raised)
/// is returned as the error of its set-up.
pub(crate) fn try_run_child(name: &str, child: Child) -> std::io::Result<()> {
    let exe = std::env::current_exe().unwrap();
    let copy = child.nobody.then(|| {
        let copy: PathBuf = std::env::temp_dir().join(format!(
            "rtlat-linux-test-{}-{}",
            std::process::id(),
            name.replace("::", "-")
        ));
        // Written while no other test forks: a child forked meanwhile would hold the copy's
        // write descriptor until its own exec, and executing the copy would then fail with
        // ETXTBSY ("Text file busy"; seen under qemu-aarch64 on a loaded machine).
        let _no_fork = FORK_LOCK.write().unwrap_or_else(|e| e.into_inner());
        std::fs::copy(&exe, &copy).unwrap();
        std::fs::set_permissions(&copy, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        copy
    });
    let mut command = Command::new(copy.as_ref().unwrap_or(&exe));
    command
        .args([
            name,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, "1")
        .current_dir("/");
    let limits = [
        (libc::RLIMIT_RTPRIO, child.rtprio),
        (libc::RLIMIT_MEMLOCK, child.memlock),
    ];
    let nobody = child.nobody;
    // SAFETY: the closure runs in the forked child before `exec` and only makes
    // async-signal-safe system calls (`setrlimit`, `setgroups`, `setgid`, `setuid`) on values
    // computed before the fork; it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            for (resource, value) in limits {
                if let Some(value) = value {
                    let limit = libc::rlimit {
                        rlim_cur: value as _,
                        rlim_max: value as _,
                    };
                    if libc::setrlimit(resource, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
            }
            if nobody
                && (libc::setgroups(0, core::ptr::null()) != 0
                    || libc::setgid(65534) != 0
                    || libc::setuid(65534) != 0)
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = {
        let _no_exclusive_test = FORK_LOCK.read().unwrap_or_else(|e| e.into_inner());
        // A fork outside FORK_LOCK (a std::process::Command of another test) can still hold
        // the copy open for the moment between its fork and its exec: try again then.
        let mut tries = 0;
        loop {
            match command.output() {
                Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                output => break output,
            }
        }
    };
    if let Some(copy) = &copy {
        let _ = std::fs::remove_file(copy);
    }
    let output = output?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("--- child {name} ({child:?}) ---\n{stdout}{stderr}--- end of child ---");
    assert!(
        output.status.success(),
        "child test {name} failed: {}{EXEC_HINT}",
        output.status
    );
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "child test {name} did not run exactly one test"
    );
    Ok(())
}

/// The test binary's allocator: the system one, counting allocations per thread, so that a
/// test can assert that a hot path allocates nothing.
struct CountingAlloc;

thread_local! {
    static ALLOCATIONS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator, which upholds the
// `GlobalAlloc` contract; the counter is a const-initialised thread-local without destructor,
// so touching it never allocates or panics (`try_with` covers thread teardown).
unsafe impl std::alloc::GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAlloc = CountingAlloc;

/// Allocations made by the calling thread so far.
pub(crate) fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}
