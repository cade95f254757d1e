//! The crate's system calls: nix's where nix has them, and every `unsafe` call of the crate,
//! each in a small function with its reason, where it has not.
//!
//! The wrappers speak libc's types and return `Result<_, Errno>`; the modules above turn an
//! [`Errno`] into their area's error, which names the call and what to do. Nothing here
//! allocates except [`sched_getaffinity`] and [`sched_setaffinity`] (set-up calls).
//!
//! What stays on raw libc, and why (nix 0.30):
//! - the scheduling calls (`sched_setscheduler`, `sched_getscheduler`, `sched_getparam`,
//!   `sched_get_priority_min/max`), `setpriority`/`getpriority`, `nanosleep`,
//!   `pthread_getattr_np`, `capget`, `tgkill`, `localtime_r`: nix has none of them;
//! - `sched_setaffinity`/`sched_getaffinity`: nix's `CpuSet` is the fixed 1024-CPU
//!   `cpu_set_t`, and rtlat pins to CPUs up to [`MAX_CPU`](crate::thread::MAX_CPU) (8191) and
//!   reads the mask of machines with more than 1024 CPUs (the kernel refuses a shorter mask);
//! - the signal sets, handlers, masks and waits, and POSIX timers: nix's `Signal` is an enum
//!   of the standard signals, without the real-time ones that rtlat uses throughout (the wake
//!   signal `SIGRTMIN + 1` in handlers and masks, a POSIX timer's `SIGRTMIN` in masks,
//!   `sigwaitinfo` and `SIGEV_THREAD_ID`), and it has no `sigwaitinfo`/`sigtimedwait`;
//! - the absolute sleep of every cycle is rustix's system call made in line, not nix's
//!   `clock_nanosleep` (glibc's wrapper: see [`clock_nanosleep_abs`]).

use core::ffi::{CStr, c_void};
use core::mem::{self, MaybeUninit};
use core::ptr;
use std::os::fd::BorrowedFd;

use libc::{c_int, c_ulong, clockid_t, pid_t, sigset_t, timespec};
use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::sys::time::TimeSpec;
use nix::time::{ClockId, ClockNanosleepFlags};

use crate::errno::Errno;

/// `errno` of the last failed call on this thread.
#[inline]
pub(crate) fn last_errno() -> Errno {
    Errno::from(nix::errno::Errno::last())
}

/// Maps a `-1`-and-`errno` return to a `Result`.
#[inline]
fn check(rc: c_int) -> Result<c_int, Errno> {
    Ok(nix::errno::Errno::result(rc)?)
}

/// Maps an error-number return (0 = success, as the pthread and `clock_nanosleep` calls do).
#[inline]
fn check_direct(rc: c_int) -> Result<(), Errno> {
    if rc == 0 {
        Ok(())
    } else {
        Err(Errno::from_raw(rc))
    }
}

// ---- time ----------------------------------------------------------------------------------

/// C's `time_t`. The libc crate marks its alias deprecated on musl (it announces a change to
/// 64 bits there, which 64-bit targets already have); the type of `timespec::tv_sec` is what
/// the C library uses, whatever the crate ends up calling it.
#[allow(deprecated)]
pub(crate) type TimeT = libc::time_t;

/// A `timespec` of `sec` seconds and `nsec` nanoseconds (padding, on the 32-bit targets that
/// have it, zeroed).
#[inline]
pub(crate) fn timespec(sec: TimeT, nsec: libc::c_long) -> timespec {
    *TimeSpec::new(sec, nsec).as_ref()
}

/// `clock_gettime(clock)`: glibc's, which calls the vDSO (no system call on x86-64 and
/// arm64). Not rustix's: its own vDSO lookup crashes under valgrind (rustix issue 1559),
/// and rtlat is profiled with valgrind. Not nix's either, which makes the same glibc call
/// but costs one more user-space instruction per measurement cycle (callgrind, `rtlat run`),
/// on the path measured every cycle.
#[inline(always)]
pub(crate) fn clock_gettime(clock: ClockId) -> Result<timespec, Errno> {
    let mut ts = MaybeUninit::<timespec>::uninit();
    // SAFETY: `ts` is valid, writable memory for a `timespec` for the duration of the call,
    // which fills it completely when it returns 0; it is read only then.
    let rc = unsafe { libc::clock_gettime(clock.as_raw(), ts.as_mut_ptr()) };
    if rc == 0 {
        // SAFETY: a 0 return means the call wrote the whole `timespec`.
        Ok(unsafe { ts.assume_init() })
    } else {
        Err(last_errno())
    }
}

/// `clock_getres(clock)`.
pub(crate) fn clock_getres(clock: ClockId) -> Result<timespec, Errno> {
    Ok(*nix::time::clock_getres(clock)?.as_ref())
}

/// `clock_nanosleep(clock, TIMER_ABSTIME, deadline)` as a direct system call (rustix's, made
/// in line). Returns `EINTR` when a signal handler ran; the caller sleeps again to the same
/// deadline.
///
/// glibc's wrapper makes the call a thread-cancellation point, enabling and disabling
/// asynchronous cancellation around it, and `libc::syscall` shuffles its variadic arguments
/// and goes through `errno`: 30 to 50 instructions per cycle that rtlat (which never cancels
/// threads) does not need, on the path measured every cycle.
#[inline(always)]
pub(crate) fn clock_nanosleep_abs(
    clock: rustix::time::ClockId,
    deadline: &rustix::time::Timespec,
) -> Result<(), Errno> {
    rustix::thread::clock_nanosleep_absolute(clock, deadline)
        .map_err(|e| Errno::from_raw(e.raw_os_error()))
}

/// `clock_nanosleep(clock, 0, duration)`: a relative sleep (the remainder nix returns is not
/// used).
#[inline]
pub(crate) fn clock_nanosleep_rel(clock: ClockId, duration: &timespec) -> Result<(), Errno> {
    let duration = TimeSpec::from(*duration);
    match nix::time::clock_nanosleep(clock, ClockNanosleepFlags::empty(), &duration) {
        Ok(_remainder) => Ok(()),
        Err(errno) => Err(errno.into()),
    }
}

/// `nanosleep(duration)`; the remainder is not asked for.
#[inline]
pub(crate) fn nanosleep(duration: &timespec) -> Result<(), Errno> {
    // SAFETY: `duration` is a valid `timespec`; a null remainder pointer is allowed.
    check(unsafe { libc::nanosleep(duration, ptr::null_mut()) }).map(drop)
}

/// An `itimerspec` firing first at `value` and then every `interval`.
#[inline]
pub(crate) fn itimerspec(value: timespec, interval: timespec) -> libc::itimerspec {
    libc::itimerspec {
        it_interval: interval,
        it_value: value,
    }
}

// ---- threads, scheduling -------------------------------------------------------------------

/// The kernel thread id of the calling thread.
#[inline]
pub(crate) fn gettid() -> pid_t {
    nix::unistd::gettid().as_raw()
}

/// The process id.
#[cfg(test)]
pub(crate) fn getpid() -> pid_t {
    nix::unistd::getpid().as_raw()
}

/// `sched_get_priority_min(policy)`.
pub(crate) fn sched_get_priority_min(policy: c_int) -> Result<c_int, Errno> {
    // SAFETY: plain integer argument, no memory involved.
    check(unsafe { libc::sched_get_priority_min(policy) })
}

/// `sched_get_priority_max(policy)`.
pub(crate) fn sched_get_priority_max(policy: c_int) -> Result<c_int, Errno> {
    // SAFETY: plain integer argument, no memory involved.
    check(unsafe { libc::sched_get_priority_max(policy) })
}

/// `sched_setscheduler(tid, policy, {priority})`: on Linux this sets one thread.
pub(crate) fn sched_setscheduler(tid: pid_t, policy: c_int, priority: c_int) -> Result<(), Errno> {
    let mut param = zeroed_sched_param();
    param.sched_priority = priority;
    // The system call, not the C library's wrapper: Linux applies it to the one thread `tid`,
    // which POSIX's process-wide function does not promise, so musl's wrapper refuses with
    // ENOSYS (glibc's passes it through).
    // SAFETY: `param` is a valid `sched_param` for the duration of the call.
    check(unsafe {
        libc::syscall(
            libc::SYS_sched_setscheduler,
            tid,
            policy,
            &param as *const libc::sched_param,
        ) as c_int
    })
    .map(drop)
}

/// An all-zero `sched_param`: glibc's has only `sched_priority`, musl's adds the
/// SCHED_SPORADIC fields, which Linux ignores.
fn zeroed_sched_param() -> libc::sched_param {
    // SAFETY: `sched_param` is plain integers (and timespecs of integers); all-zero is valid.
    unsafe { mem::zeroed() }
}

/// `sched_getscheduler(tid)`, the policy number (may carry `SCHED_RESET_ON_FORK`).
pub(crate) fn sched_getscheduler(tid: pid_t) -> Result<c_int, Errno> {
    // The system call, as for `sched_setscheduler` (musl's wrapper returns ENOSYS).
    // SAFETY: plain integer argument, no memory involved.
    check(unsafe { libc::syscall(libc::SYS_sched_getscheduler, tid) as c_int })
}

/// `sched_getparam(tid)`, the static priority.
pub(crate) fn sched_getparam(tid: pid_t) -> Result<c_int, Errno> {
    let mut param = zeroed_sched_param();
    // The system call, as for `sched_setscheduler` (musl's wrapper returns ENOSYS).
    // SAFETY: `param` is a valid, writable `sched_param` for the duration of the call.
    check(unsafe {
        libc::syscall(
            libc::SYS_sched_getparam,
            tid,
            &mut param as *mut libc::sched_param,
        ) as c_int
    })?;
    Ok(param.sched_priority)
}

/// Bits in one word of a CPU mask.
const MASK_BITS: usize = c_ulong::BITS as usize;

/// `sched_setaffinity(tid, cpus)` with a mask just large enough for the highest CPU.
pub(crate) fn sched_setaffinity(tid: pid_t, cpus: &[usize]) -> Result<(), Errno> {
    let highest = cpus.iter().copied().max().unwrap_or(0);
    let mut mask: Vec<c_ulong> = vec![0; highest / MASK_BITS + 1];
    for &cpu in cpus {
        mask[cpu / MASK_BITS] |= 1 << (cpu % MASK_BITS);
    }
    let bytes = mask.len() * mem::size_of::<c_ulong>();
    // SAFETY: the kernel reads `bytes` bytes of CPU mask from `mask`, which holds exactly that
    // many; a mask shorter than the kernel's own is zero-extended by the kernel, and the
    // pointer cast only renames the buffer's type (the syscall takes raw mask words).
    check(unsafe { libc::sched_setaffinity(tid, bytes, mask.as_ptr().cast()) }).map(drop)
}

/// `sched_getaffinity(tid)` as a list of CPU indices, growing the mask for large machines.
pub(crate) fn sched_getaffinity(tid: pid_t) -> Result<Vec<usize>, Errno> {
    let mut words = 1024 / MASK_BITS;
    loop {
        let mut mask: Vec<c_ulong> = vec![0; words];
        let bytes = words * mem::size_of::<c_ulong>();
        // SAFETY: the kernel writes at most `bytes` bytes into `mask`, which holds that many.
        let rc = unsafe { libc::sched_getaffinity(tid, bytes, mask.as_mut_ptr().cast()) };
        match check(rc) {
            Ok(_) => {
                let cpus = (0..words * MASK_BITS)
                    .filter(|cpu| mask[cpu / MASK_BITS] & (1 << (cpu % MASK_BITS)) != 0)
                    .collect();
                return Ok(cpus);
            }
            // EINVAL: the mask is smaller than the kernel's CPU count; try a larger one.
            Err(e) if e == Errno::EINVAL && words < (1 << 16) => words *= 4,
            Err(e) => return Err(e),
        }
    }
}

/// `setpriority(PRIO_PROCESS, tid, nice)`: on Linux this sets one thread's nice value.
pub(crate) fn set_thread_nice(tid: pid_t, nice: c_int) -> Result<(), Errno> {
    // SAFETY: plain integer arguments, no memory involved. The cast adapts `tid` to the
    // `id_t` parameter (a thread id is never negative).
    check(unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) }).map(drop)
}

/// `getpriority(PRIO_PROCESS, tid)`: one thread's nice value.
pub(crate) fn thread_nice(tid: pid_t) -> Result<c_int, Errno> {
    // `getpriority` may legitimately return -1, so errno is cleared first and read after.
    // SAFETY: `__errno_location` returns this thread's errno slot, valid for the thread's life.
    unsafe { *libc::__errno_location() = 0 };
    // SAFETY: plain integer arguments, no memory involved.
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t) };
    if nice == -1 {
        let errno = last_errno();
        if errno.raw() != 0 {
            return Err(errno);
        }
    }
    Ok(nice)
}

// ---- memory --------------------------------------------------------------------------------

/// `mlockall(MCL_CURRENT | MCL_FUTURE)`.
pub(crate) fn mlockall() -> Result<(), Errno> {
    use nix::sys::mman::MlockAllFlags;
    Ok(nix::sys::mman::mlockall(
        MlockAllFlags::MCL_CURRENT | MlockAllFlags::MCL_FUTURE,
    )?)
}

/// `munlockall()`.
pub(crate) fn munlockall() -> Result<(), Errno> {
    Ok(nix::sys::mman::munlockall()?)
}

/// `getrusage(RUSAGE_THREAD)`: (minor faults, major faults) of the calling thread.
pub(crate) fn thread_faults() -> Result<(u64, u64), Errno> {
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_THREAD)?;
    Ok((
        usage.minor_page_faults() as u64,
        usage.major_page_faults() as u64,
    ))
}

/// The calling thread's stack as `(lowest address, size in bytes)`.
pub(crate) fn current_thread_stack() -> Result<(usize, usize), Errno> {
    let mut attr = MaybeUninit::<libc::pthread_attr_t>::uninit();
    // SAFETY: `pthread_getattr_np` initialises `attr` when it returns 0.
    check_direct(unsafe { libc::pthread_getattr_np(libc::pthread_self(), attr.as_mut_ptr()) })?;
    let mut addr: *mut c_void = ptr::null_mut();
    let mut size: libc::size_t = 0;
    // SAFETY: `attr` was initialised above; `addr` and `size` are valid for writes.
    let rc = unsafe { libc::pthread_attr_getstack(attr.as_ptr(), &mut addr, &mut size) };
    // SAFETY: `attr` was initialised by `pthread_getattr_np` and is destroyed exactly once.
    unsafe { libc::pthread_attr_destroy(attr.as_mut_ptr()) };
    check_direct(rc)?;
    Ok((addr as usize, size))
}

// ---- privileges ----------------------------------------------------------------------------

/// The effective user id.
pub(crate) fn geteuid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// `RLIMIT_RTPRIO` as (soft, hard); `None` is unlimited.
pub(crate) fn rtprio_limit() -> Result<(Option<u64>, Option<u64>), Errno> {
    let (soft, hard) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_RTPRIO)?;
    // `rlim_t` is not `u64` on every target.
    #[allow(clippy::unnecessary_cast)]
    let finite = |v: libc::rlim_t| (v != libc::RLIM_INFINITY).then_some(v as u64);
    Ok((finite(soft), finite(hard)))
}

/// `capget` header, `_LINUX_CAPABILITY_VERSION_3` layout.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: c_int,
}

/// `capget` data: version 3 uses two of these (capabilities 0–31 and 32–63).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// The calling thread's effective capability set as a 64-bit mask.
pub(crate) fn capget_effective() -> Result<u64, Errno> {
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    let mut header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: for version 3 the kernel reads one header and writes two `CapData`, which is
    // exactly what the pointers refer to; both outlive the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_capget,
            &mut header as *mut CapHeader,
            data.as_mut_ptr(),
        )
    };
    if rc == -1 {
        return Err(last_errno());
    }
    Ok(u64::from(data[0].effective) | (u64::from(data[1].effective) << 32))
}

unsafe extern "C" {
    /// POSIX `tzset(3)` (not bound by the libc crate): reads `TZ` into libc's time zone state.
    fn tzset();
}

/// The local time zone's offset from UTC, in seconds east, at `unix` (seconds since the epoch),
/// from `localtime_r` (which honours `TZ`).
pub(crate) fn utc_offset(unix: TimeT) -> Result<i64, Errno> {
    // SAFETY: tzset only reads the environment and initialises libc's time zone state; an
    // all-zero `tm` is a valid value for localtime_r to overwrite; both pointers are valid for
    // the duration of the call.
    unsafe {
        tzset();
        let mut tm: libc::tm = mem::zeroed();
        if libc::localtime_r(&unix, &mut tm).is_null() {
            return Err(last_errno());
        }
        Ok(tm.tm_gmtoff as i64)
    }
}

// ---- named pipes ---------------------------------------------------------------------------

/// `mkfifo(path, mode)` (the process umask applies, as for cyclictest's `mkfifo(path, 0666)`).
pub(crate) fn mkfifo(path: &CStr, mode: libc::mode_t) -> Result<(), Errno> {
    Ok(nix::unistd::mkfifo(
        path,
        nix::sys::stat::Mode::from_bits_retain(mode),
    )?)
}

// ---- signals -------------------------------------------------------------------------------

/// The lowest real-time signal number usable by applications (glibc keeps two for itself).
pub(crate) fn sigrtmin() -> c_int {
    libc::SIGRTMIN()
}

/// The highest real-time signal number.
pub(crate) fn sigrtmax() -> c_int {
    libc::SIGRTMAX()
}

/// A signal set holding `signo` only.
pub(crate) fn sigset_of(signo: c_int) -> Result<sigset_t, Errno> {
    let mut set = MaybeUninit::<sigset_t>::uninit();
    // SAFETY: `sigemptyset` initialises the set; `sigaddset` then adds to the initialised set.
    unsafe {
        check(libc::sigemptyset(set.as_mut_ptr()))?;
        check(libc::sigaddset(set.as_mut_ptr(), signo))?;
        Ok(set.assume_init())
    }
}

/// Adds `signo` to the initialised set `set`.
pub(crate) fn sigset_add(set: &mut sigset_t, signo: c_int) -> Result<(), Errno> {
    // SAFETY: `set` is an initialised, writable signal set.
    check(unsafe { libc::sigaddset(set, signo) })?;
    Ok(())
}

/// Installs `handler` for `signo` with an empty mask and no `SA_RESTART`, so a blocking call
/// in the main thread returns `EINTR` and it sees the flag the handler set at once.
pub(crate) fn set_signal_handler(signo: c_int, handler: extern "C" fn(c_int)) -> Result<(), Errno> {
    // SAFETY: an all-zero `sigaction` is valid (no flags, empty mask); only the handler field
    // is then set, to a function with the signature the kernel calls for a non-SA_SIGINFO
    // handler. The old action is not asked for.
    unsafe {
        let mut action: libc::sigaction = mem::zeroed();
        action.sa_sigaction = handler as usize;
        check(libc::sigemptyset(&mut action.sa_mask))?;
        check(libc::sigaction(signo, &action, ptr::null_mut()))?;
    }
    Ok(())
}

/// Blocks the signals of `set` on the calling thread.
pub(crate) fn block_signals(set: &sigset_t) -> Result<(), Errno> {
    // SAFETY: `set` is an initialised set; the old mask is not asked for.
    check_direct(unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, set, ptr::null_mut()) })
}

/// Unblocks the signals of `set` on the calling thread (a pending one is delivered at once).
pub(crate) fn unblock_signals(set: &sigset_t) -> Result<(), Errno> {
    // SAFETY: `set` is an initialised set; the old mask is not asked for.
    check_direct(unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, set, ptr::null_mut()) })
}

/// Whether `signo` is ignored (`SIG_IGN`) in this process, as `nohup` leaves `SIGHUP`.
pub(crate) fn signal_ignored(signo: c_int) -> Result<bool, Errno> {
    // SAFETY: a null new action only reads the current one into `old`, which `sigaction`
    // fills in full; an all-zero `sigaction` is a valid value to start from.
    unsafe {
        let mut old: libc::sigaction = mem::zeroed();
        check(libc::sigaction(signo, ptr::null(), &mut old))?;
        Ok(old.sa_sigaction == libc::SIG_IGN)
    }
}

/// Gives the standard signal `signal` its default action again (`SIG_DFL`), unblocks it on the
/// calling thread and sends it to the calling thread (`raise`). For a signal whose default
/// action ends the process (SIGPIPE), this does not return.
pub(crate) fn raise_with_default_action(signal: Signal) -> Result<(), Errno> {
    let default = SigAction::new(SigHandler::SigDfl, SaFlags::empty(), SigSet::empty());
    // SAFETY: `SIG_DFL` installs no handler, so no code of ours can run in a signal context;
    // nix's `sigaction` is `unsafe` only for the handlers it may install.
    unsafe { nix::sys::signal::sigaction(signal, &default) }?;
    SigSet::from(signal).thread_unblock()?;
    Ok(nix::sys::signal::raise(signal)?)
}

/// Sends `signo` to thread `tid` of this process (`tgkill`): only that thread takes it.
pub(crate) fn signal_thread(tid: pid_t, signo: c_int) -> Result<(), Errno> {
    // SAFETY: plain integer arguments; `tgkill` with our own process id can only reach a
    // thread of this process, and an id that is gone gives ESRCH.
    let rc = unsafe { libc::syscall(libc::SYS_tgkill, libc::getpid(), tid, signo) };
    if rc == -1 { Err(last_errno()) } else { Ok(()) }
}

/// What [`sigwaitinfo`] took: the signal and, for a POSIX timer's, its value and overruns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TakenSignal {
    /// `si_code`: `SI_TIMER` for a POSIX timer expiry.
    pub code: c_int,
    /// `si_value` as an integer (the timer's token); meaningful for `SI_TIMER` only.
    pub value: usize,
    /// `si_overrun`: further expiries while the signal was pending; `SI_TIMER` only.
    pub overrun: c_int,
}

/// The timer fields of the kernel's `siginfo_t` (`_sifields._timer`), which libc does not expose
/// on every target. The union starts after three `int`s, at pointer alignment, so `#[repr(C)]`
/// with a pointer-sized member gives the kernel's offsets on 32- and 64-bit targets alike.
#[repr(C)]
struct SigInfoTimer {
    signo: c_int,
    errno_or_code: c_int,
    code_or_errno: c_int,
    tid: c_int,
    overrun: c_int,
    value: *mut c_void,
}

const _: () = assert!(mem::size_of::<SigInfoTimer>() <= mem::size_of::<libc::siginfo_t>());

/// Reads a taken signal's code, value and overrun count.
fn taken(info: &libc::siginfo_t) -> TakenSignal {
    // SAFETY: `SigInfoTimer` is no larger than `siginfo_t` (checked at compile time) and every
    // bit pattern is valid for its integer and pointer fields; `read_unaligned` does not
    // require `siginfo_t`'s alignment to match. The pointer is only converted to an integer.
    let timer =
        unsafe { ptr::read_unaligned((info as *const libc::siginfo_t).cast::<SigInfoTimer>()) };
    TakenSignal {
        code: info.si_code,
        value: timer.value as usize,
        overrun: timer.overrun,
    }
}

/// `sigwaitinfo(set)`: waits for one blocked signal of `set`. `EINTR` when an unblocked
/// signal's handler ran meanwhile.
#[inline]
pub(crate) fn sigwaitinfo(set: &sigset_t) -> Result<TakenSignal, Errno> {
    let mut info = MaybeUninit::<libc::siginfo_t>::zeroed();
    // SAFETY: `set` is initialised; `info` is valid for writes for the duration of the call.
    check(unsafe { libc::sigwaitinfo(set, info.as_mut_ptr()) })?;
    // SAFETY: zero-initialised, then filled in by the successful call.
    Ok(taken(unsafe { info.assume_init_ref() }))
}

/// Takes one pending signal of `set` without waiting; `None` if none is pending.
pub(crate) fn sigpoll(set: &sigset_t) -> Result<Option<TakenSignal>, Errno> {
    let mut info = MaybeUninit::<libc::siginfo_t>::zeroed();
    let zero = timespec(0, 0);
    // SAFETY: `set` and `zero` are initialised; `info` is valid for writes during the call.
    match check(unsafe { libc::sigtimedwait(set, info.as_mut_ptr(), &zero) }) {
        // SAFETY: zero-initialised, then filled in by the successful call.
        Ok(_) => Ok(Some(taken(unsafe { info.assume_init_ref() }))),
        Err(e) if e == Errno::EAGAIN => Ok(None),
        Err(e) => Err(e),
    }
}

// ---- POSIX timers ----------------------------------------------------------------------------

/// A POSIX timer (`timer_t`), deleted on drop.
#[derive(Debug)]
pub(crate) struct PosixTimerHandle(libc::timer_t);

impl PosixTimerHandle {
    /// `timer_create(clock)` delivering `signo` to thread `tid` (`SIGEV_THREAD_ID`), with
    /// `token` as the signal's value.
    pub(crate) fn create(
        clock: clockid_t,
        signo: c_int,
        tid: pid_t,
        token: usize,
    ) -> Result<Self, Errno> {
        // SAFETY: `sigevent` is integers, a pointer-or-int union and padding; all-zero is valid.
        let mut event: libc::sigevent = unsafe { mem::zeroed() };
        event.sigev_notify = libc::SIGEV_THREAD_ID;
        event.sigev_signo = signo;
        event.sigev_notify_thread_id = tid;
        event.sigev_value = libc::sigval {
            sival_ptr: token as *mut c_void,
        };
        let mut timer: libc::timer_t = ptr::null_mut();
        // SAFETY: `event` is fully initialised and `timer` is valid for writes; the kernel
        // copies the event, so neither needs to outlive the call.
        check(unsafe { libc::timer_create(clock, &mut event, &mut timer) })?;
        Ok(PosixTimerHandle(timer))
    }

    /// `timer_settime(flags, spec)`; an all-zero value disarms.
    pub(crate) fn settime(&self, flags: c_int, spec: &libc::itimerspec) -> Result<(), Errno> {
        // SAFETY: `self.0` is a live timer (deleted only on drop); `spec` is valid; the old
        // value is not asked for.
        check(unsafe { libc::timer_settime(self.0, flags, spec, ptr::null_mut()) }).map(drop)
    }
}

impl Drop for PosixTimerHandle {
    fn drop(&mut self) {
        // SAFETY: `self.0` was returned by `timer_create` and is deleted exactly once, here.
        unsafe { libc::timer_delete(self.0) };
    }
}

// ---- timerfd ---------------------------------------------------------------------------------

/// One blocking `read` of a timerfd: the number of expiries since the last read. (Not nix's
/// `TimerFd::wait`, which drops the count and reads again after `EINTR`, where rtlat looks at
/// whether the measurement was cancelled.)
#[inline]
pub(crate) fn timerfd_read(fd: BorrowedFd<'_>) -> Result<u64, Errno> {
    let mut expiries = [0u8; 8];
    match nix::unistd::read(fd, &mut expiries) {
        Ok(8) => Ok(u64::from_ne_bytes(expiries)),
        Ok(_) => Err(Errno::EIO),
        Err(errno) => Err(errno.into()),
    }
}

// ---- test instrumentation ----------------------------------------------------------------------

#[cfg(test)]
thread_local! {
    /// Times a sleep on this thread was interrupted by a signal handler and restarted.
    pub(crate) static EINTR_RETRIES: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
    /// Times a POSIX timer's wait on this thread took a signal that was not its expiry.
    pub(crate) static FOREIGN_SIGNALS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

/// Notes one `EINTR` restart (counted in tests only; nothing in a normal build).
#[inline(always)]
pub(crate) fn note_eintr() {
    #[cfg(test)]
    EINTR_RETRIES.with(|c| c.set(c.get() + 1));
}

/// Notes one signal taken that was not the timer's own expiry (tests only).
#[inline(always)]
pub(crate) fn note_foreign_signal() {
    #[cfg(test)]
    FOREIGN_SIGNALS.with(|c| c.set(c.get() + 1));
}
