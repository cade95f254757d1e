//! Keeping the measurement free of page faults: [`lock_memory`] (`mlockall`), and
//! [`prefault_stack`], which touches the calling thread's stack ahead of time.
//!
//! A page fault in the measuring loop shows as latency the system does not have. `mlockall`
//! keeps mapped pages resident and, with `MCL_FUTURE`, faults in every later mapping (thread
//! stacks included) when it is made; the stack prefault covers a thread whose stack grows
//! on demand (the main thread) or a run without `mlockall`.
//!
//! A `fork` of the process (e.g. `std::process::Command` with `pre_exec`; a plain `spawn` uses
//! `posix_spawn` and does not fork) makes every private page copy-on-write again, locked or
//! not, so the next write to each one faults: start helper processes before the measurement.

use core::hint::black_box;

use crate::errno::{Errno, OsError};
use crate::sys;

/// Locking memory or prefaulting the stack failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// `mlockall` failed.
    #[error(
        "mlockall failed: {errno}; raise `ulimit -l` (e.g. `ulimit -l unlimited`) or run as root"
    )]
    MemoryLock {
        /// The OS error.
        errno: Errno,
    },
    /// The stack prefault asked for more stack than the thread has left.
    #[error(
        "cannot prefault {requested} bytes of stack: the thread has {available} bytes left; prefault less or spawn the measuring thread with a larger stack"
    )]
    StackTooSmall {
        /// Bytes asked for.
        requested: usize,
        /// Bytes safely usable below the caller.
        available: usize,
    },
    /// Asking for the thread's stack failed.
    #[error(transparent)]
    Os(#[from] OsError),
}

impl MemoryError {
    /// The OS error number behind this error, if there is one.
    pub const fn errno(&self) -> Option<Errno> {
        match *self {
            MemoryError::MemoryLock { errno } | MemoryError::Os(OsError { errno, .. }) => {
                Some(errno)
            }
            MemoryError::StackTooSmall { .. } => None,
        }
    }
}

/// Bytes of stack [`ThreadSetup`](crate::ThreadSetup) prefaults unless told otherwise.
pub const DEFAULT_STACK_PREFAULT: usize = 64 * 1024;

/// Bytes kept free below the deepest prefaulted byte: the guard page, the frames of calls
/// made at that depth, and signal handlers running on the thread's stack.
const STACK_MARGIN: usize = 64 * 1024;

/// The stack frame size of one prefault step.
const CHUNK: usize = 8 * 1024;

/// Locks the process's current and future memory (`mlockall(MCL_CURRENT | MCL_FUTURE)`).
///
/// Process-wide: call it once, from the main thread, before the measuring threads start (their
/// stacks are then locked and faulted in as they are created). Needs root, `CAP_IPC_LOCK`, or
/// an `RLIMIT_MEMLOCK` (`ulimit -l`) larger than the process; else [`MemoryError::MemoryLock`].
pub fn lock_memory() -> Result<(), MemoryError> {
    sys::mlockall().map_err(|errno| MemoryError::MemoryLock { errno })
}

/// Undoes [`lock_memory`] (`munlockall`).
pub fn unlock_memory() -> Result<(), OsError> {
    sys::munlockall().map_err(|errno| OsError {
        call: "munlockall",
        errno,
    })
}

/// Bytes of stack safely usable below the caller on the calling thread (its stack size
/// minus what is in use minus a margin for the guard page and signal handlers).
pub fn stack_room() -> Result<usize, OsError> {
    let (low, size) = sys::current_thread_stack().map_err(|errno| OsError {
        call: "pthread_getattr_np",
        errno,
    })?;
    let here = black_box(0u8);
    let sp = core::ptr::addr_of!(here) as usize;
    let high = low.saturating_add(size);
    if sp <= low || sp > high {
        // The reported stack does not contain this frame (an alternate stack, a green
        // thread): nothing can be said safely.
        return Ok(0);
    }
    Ok((sp - low).saturating_sub(STACK_MARGIN))
}

/// Touches `bytes` of the calling thread's stack below the caller, so that the measuring loop
/// never takes a page fault on its stack. Call it on the measuring thread, before the first
/// cycle, from a shallow frame.
///
/// Safe code: a function with a `CHUNK`-sized local array writes it and calls itself until
/// the depth is reached; [`black_box`] keeps the writes and the frames from being optimised
/// away. The request is checked against [`stack_room`] first, so a request the thread cannot
/// hold is [`MemoryError::StackTooSmall`] instead of a stack overflow.
pub fn prefault_stack(bytes: usize) -> Result<(), MemoryError> {
    if bytes == 0 {
        return Ok(());
    }
    let available = stack_room()?;
    // Each frame holds a CHUNK plus a few words of call overhead.
    let needed = bytes.saturating_add(bytes / 64).saturating_add(CHUNK);
    if needed > available {
        return Err(MemoryError::StackTooSmall {
            requested: bytes,
            available,
        });
    }
    touch_stack(bytes);
    Ok(())
}

/// Writes a `CHUNK` on the stack, then recurses until `bytes` are covered.
#[inline(never)]
fn touch_stack(bytes: usize) {
    let mut chunk = [0u8; CHUNK];
    // The compiler must assume `black_box` reads the array: the zeroes are really stored.
    black_box(&mut chunk);
    if bytes > CHUNK {
        touch_stack(bytes - CHUNK);
    }
    // Used after the call, so the frame stays alive (no tail call) while deeper ones exist.
    black_box(&chunk);
}

/// Page faults taken by the calling thread so far (`getrusage(RUSAGE_THREAD)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PageFaults {
    /// Minor faults: a page mapped without I/O (first touch, copy-on-write).
    pub minor: u64,
    /// Major faults: a page read from disk.
    pub major: u64,
}

impl PageFaults {
    /// The calling thread's counts. Compare two readings around a run to report faults taken
    /// during the measurement.
    pub fn current() -> Result<Self, OsError> {
        let (minor, major) = sys::thread_faults().map_err(|errno| OsError {
            call: "getrusage",
            errno,
        })?;
        Ok(PageFaults { minor, major })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{self, Child};
    use std::thread;

    fn vm_locked_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmLck:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    #[test]
    fn prefault_touches_the_stack_once_and_for_all() {
        // An unusual stack size, so glibc cannot hand back another test's cached stack.
        const STACK: usize = 6 * 1024 * 1024 + 12 * 1024;
        const TOUCH: usize = 5 * 1024 * 1024;
        // A fork by a concurrent test would make the touched pages copy-on-write again.
        let _no_fork = test_support::FORK_LOCK
            .write()
            .unwrap_or_else(|e| e.into_inner());
        thread::Builder::new()
            .stack_size(STACK)
            .spawn(|| {
                let room = stack_room().unwrap();
                assert!(room > TOUCH && room < STACK, "room {room}");

                // Three rounds through the same code, not three copies of it. Under qemu-user
                // (the aarch64 CI), `getrusage` goes to the host kernel, which counts the
                // faults of the host thread that emulates this one: the guest's stack pages
                // are host pages, so their faults are real, but the first run of any guest
                // code also faults in pages of the emulator's translation buffer (1 or 2 per
                // run, seen with qemu 7.2). Rounds 2 and 3 run only code translated in round
                // 1, so there, as natively, they count the prefault's faults alone.
                let mut minor = [0u64; 3];
                for faults in &mut minor {
                    let before = PageFaults::current().unwrap();
                    prefault_stack(TOUCH).unwrap();
                    *faults = PageFaults::current().unwrap().minor - before.minor;
                }
                let [first, second, third] = minor;

                println!("prefault of {TOUCH} bytes: {first} minor faults, then {second}, {third}");
                // 5 MiB is 1280 pages of 4 KiB: the first touch must have faulted most of them
                // in (fewer if the kernel maps larger pages), the later ones none.
                assert!(first >= 64, "the first prefault faulted only {first} pages");
                assert_eq!(
                    [second, third],
                    [0, 0],
                    "a repeated prefault raised minor faults"
                );
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn messages_tell_the_user_what_to_do() {
        let e = MemoryError::MemoryLock {
            errno: Errno::ENOMEM,
        };
        let text = e.to_string();
        assert!(text.starts_with("mlockall failed: "), "{text}");
        assert!(
            text.contains("(os error 12)") && text.contains("ulimit -l"),
            "{text}"
        );
        assert_eq!(e.errno(), Some(Errno::ENOMEM));
    }

    #[test]
    fn prefault_beyond_the_stack_is_an_error_not_a_crash() {
        thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let room = stack_room().unwrap();
                match prefault_stack(1024 * 1024) {
                    Err(MemoryError::StackTooSmall {
                        requested,
                        available,
                    }) => {
                        assert_eq!(requested, 1024 * 1024);
                        assert!(available <= room);
                    }
                    other => panic!("expected StackTooSmall, got {other:?}"),
                }
                // What fits, works; zero is a no-op.
                prefault_stack(room / 2).unwrap();
                prefault_stack(0).unwrap();
            })
            .unwrap()
            .join()
            .unwrap();
    }

    /// Runs in a child process (root, capabilities intact): `mlockall` with `MCL_FUTURE` would
    /// otherwise lock every later allocation of the whole test process.
    #[test]
    #[ignore = "child process of lock_memory_locks_and_unlocks"]
    fn child_lock_memory() {
        if !test_support::is_child() {
            return;
        }
        assert_eq!(vm_locked_kib(), 0, "nothing locked before");
        lock_memory().unwrap();
        let locked = vm_locked_kib();
        println!("VmLck after mlockall: {locked} kB");
        assert!(locked > 0);
        // MCL_FUTURE: a new mapping is locked (and so resident) as soon as it is made.
        let before = vm_locked_kib();
        let big = vec![1u8; 8 * 1024 * 1024];
        assert!(
            vm_locked_kib() >= before + 8 * 1024,
            "new allocation not locked"
        );
        drop(big);
        unlock_memory().unwrap();
        assert_eq!(vm_locked_kib(), 0);
    }

    #[test]
    fn lock_memory_locks_and_unlocks() {
        test_support::run_child("memory::tests::child_lock_memory", Child::default());
    }

    /// Runs in a child process as `nobody` with `RLIMIT_MEMLOCK` 0.
    #[test]
    #[ignore = "child process of lock_memory_without_privilege_is_a_typed_error"]
    fn child_lock_memory_unprivileged() {
        if !test_support::is_child() {
            return;
        }
        match lock_memory() {
            Err(e @ MemoryError::MemoryLock { errno }) => {
                println!("as nobody: {e}");
                assert!(errno == Errno::EPERM || errno == Errno::ENOMEM, "{errno}");
                assert!(e.to_string().contains("ulimit -l"));
            }
            other => panic!("mlockall as nobody with no memlock limit: {other:?}"),
        }
    }

    #[test]
    fn lock_memory_without_privilege_is_a_typed_error() {
        test_support::run_child(
            "memory::tests::child_lock_memory_unprivileged",
            Child {
                nobody: true,
                memlock: Some(0),
                ..Child::default()
            },
        );
    }
}
