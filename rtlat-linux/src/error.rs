//! The crate's one error type, [`Error`], and [`Errno`], the OS error number it carries.
//!
//! Every message says what failed and what the user can do about it. Variants produced on a
//! measuring thread's hot path (`Clock`, `Sleep`, `TimerWait`, `Cancelled`) hold only `Copy` data, so
//! returning them allocates nothing.

use core::fmt;
use std::path::PathBuf;

use crate::clock::ClockId;
use crate::facts::FactError;
use crate::thread::Policy;

/// An OS error number (`errno`), printed with the system's description.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(i32);

impl Errno {
    /// Interrupted system call.
    pub const EINTR: Errno = Errno(libc::EINTR);
    /// Try again (also: no signal pending).
    pub const EAGAIN: Errno = Errno(libc::EAGAIN);
    /// Invalid argument.
    pub const EINVAL: Errno = Errno(libc::EINVAL);
    /// Operation not permitted.
    pub const EPERM: Errno = Errno(libc::EPERM);
    /// Permission denied.
    pub const EACCES: Errno = Errno(libc::EACCES);
    /// No such file or directory.
    pub const ENOENT: Errno = Errno(libc::ENOENT);
    /// Out of memory (also: `mlockall` over `RLIMIT_MEMLOCK`).
    pub const ENOMEM: Errno = Errno(libc::ENOMEM);
    /// Input/output error (also used here for a short read or write).
    pub const EIO: Errno = Errno(libc::EIO);

    /// The error number `raw`.
    pub const fn from_raw(raw: i32) -> Self {
        Errno(raw)
    }

    /// The raw error number.
    pub const fn raw(self) -> i32 {
        self.0
    }

    /// The error number of an I/O error (`EIO` when it has none, e.g. a short write).
    pub fn from_io(err: &std::io::Error) -> Self {
        Errno(err.raw_os_error().unwrap_or(libc::EIO))
    }
}

impl fmt::Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Errno({})", self.0)
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // e.g. "Operation not permitted (os error 1)"
        fmt::Display::fmt(&std::io::Error::from_raw_os_error(self.0), f)
    }
}

impl std::error::Error for Errno {}

impl From<Errno> for std::io::Error {
    fn from(errno: Errno) -> Self {
        std::io::Error::from_raw_os_error(errno.0)
    }
}

/// Everything that can go wrong in rtlat-linux.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading a clock failed (only for a clock the kernel does not support).
    #[error("clock_gettime({clock}) failed: {errno}; this kernel does not support that clock")]
    Clock {
        /// The clock.
        clock: ClockId,
        /// The OS error.
        errno: Errno,
    },
    /// A sleep failed for a reason other than a signal (signals are handled by sleeping again).
    #[error(
        "{call} failed: {errno}; this is a bug in rtlat or an unsupported kernel, please report it"
    )]
    Sleep {
        /// The sleeping call.
        call: &'static str,
        /// The OS error.
        errno: Errno,
    },
    /// A sleep or timer wait was cut short because the run is ending
    /// ([`cancel_measurement`](crate::signals::cancel_measurement)): not a failure, the
    /// end of the measurement. The interrupted cycle is not measured.
    #[error("the sleep was cancelled: the run is ending")]
    Cancelled,
    /// Waiting for a POSIX timer or timerfd expiry failed.
    #[error(
        "{call} failed while waiting for a timer expiry: {errno}; use another timer kind (the default clock_nanosleep needs no signals)"
    )]
    TimerWait {
        /// The waiting call.
        call: &'static str,
        /// The OS error.
        errno: Errno,
    },
    /// Installing a signal handler or changing a signal mask failed.
    #[error("{call} failed: {errno}; the run cannot stop cleanly on SIGINT/SIGTERM without it")]
    Signals {
        /// The failing call.
        call: &'static str,
        /// The OS error.
        errno: Errno,
    },
    /// Creating or arming a POSIX timer or timerfd failed.
    #[error(
        "{call} failed: {errno}; if it says `Resource temporarily unavailable`, raise `ulimit -i` (pending signals)"
    )]
    TimerSetup {
        /// The failing call.
        call: &'static str,
        /// The OS error.
        errno: Errno,
    },
    /// The signal asked for a POSIX timer cannot be used.
    #[error(
        "signal {signo} cannot carry timer expiries: use a real-time signal between {min} and {max} (SIGRTMIN..SIGRTMAX)"
    )]
    InvalidSignal {
        /// The signal asked for.
        signo: i32,
        /// `SIGRTMIN` on this system.
        min: i32,
        /// `SIGRTMAX` on this system.
        max: i32,
    },
    /// A zero interval was given to a periodic timer.
    #[error("the timer interval must be greater than zero")]
    ZeroInterval,
    /// A scheduling-policy name was not understood.
    #[error("unknown scheduling policy `{0}`: use fifo, rr, other (or normal), batch or idle")]
    UnknownPolicy(String),
    /// A timer-kind name was not understood.
    #[error("unknown timer `{0}`: use absolute, relative, nanosleep, posix or timerfd")]
    UnknownTimer(String),
    /// A clock name was not understood.
    #[error("unknown clock `{0}`: use monotonic or realtime")]
    UnknownClock(String),
    /// The kernel reported a policy this crate does not model (e.g. `SCHED_DEADLINE`).
    #[error(
        "thread runs under scheduling policy {0}, which rtlat does not handle; reset it with `chrt -o -p 0 PID`"
    )]
    UnsupportedPolicy(i32),
    /// A priority outside the policy's range.
    #[error("priority {priority} is out of range for {}: use {min}..={max}", policy.sched_name())]
    InvalidPriority {
        /// The policy.
        policy: Policy,
        /// The priority asked for.
        priority: i32,
        /// The policy's lowest priority.
        min: i32,
        /// The policy's highest priority.
        max: i32,
    },
    /// The process may not use a real-time policy at this priority.
    #[error("{} priority {priority} needs root, CAP_SYS_NICE or an rtprio limit of at least {priority}: run as root or set `ulimit -r 99` (already root? give the cgroup real-time runtime: cpu.rt_runtime_us)", policy.sched_name())]
    SchedPermission {
        /// The policy.
        policy: Policy,
        /// The priority asked for.
        priority: i32,
    },
    /// A scheduling call failed for another reason.
    #[error("{call} failed: {errno}")]
    Sched {
        /// The failing call.
        call: &'static str,
        /// The OS error.
        errno: Errno,
    },
    /// A nice value outside -20..=19.
    #[error("nice value {0} is out of range: use -20..=19")]
    InvalidNice(i32),
    /// Lowering the nice value was refused.
    #[error("nice {nice} was refused: {errno}; run as root or raise `ulimit -e`")]
    NicePermission {
        /// The nice value asked for.
        nice: i32,
        /// The OS error.
        errno: Errno,
    },
    /// An empty CPU list was given for affinity.
    #[error("the CPU list is empty: name at least one CPU (e.g. `-a 1`)")]
    NoCpus,
    /// A CPU index beyond what this crate can put in a mask.
    #[error("CPU {cpu} is beyond the highest supported CPU index {max}")]
    CpuOutOfRange {
        /// The CPU asked for.
        cpu: usize,
        /// The highest accepted index.
        max: usize,
    },
    /// `sched_setaffinity` refused the CPU list.
    #[error(
        "cannot pin the thread to CPUs {cpus:?}: {errno}; name online CPUs that the process's cpuset allows (see `taskset -pc $$` and /sys/devices/system/cpu/online)"
    )]
    Affinity {
        /// The CPUs asked for.
        cpus: Vec<usize>,
        /// The OS error.
        errno: Errno,
    },
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
    /// A process-accounting call (`getrusage`, `pthread_getattr_np`, `capget`, …) failed.
    #[error("{call} failed: {errno}")]
    Os {
        /// The failing call.
        call: &'static str,
        /// The OS error.
        errno: Errno,
    },
    /// `/dev/cpu_dma_latency` does not exist.
    #[error("{}: no such file; this kernel has no PM QoS CPU latency device, run without the cpu_dma_latency request", path.display())]
    DmaLatencyMissing {
        /// The device path.
        path: PathBuf,
    },
    /// `/dev/cpu_dma_latency` cannot be opened for writing.
    #[error("cannot open {}: {errno}; run as root, or run without the cpu_dma_latency request", path.display())]
    DmaLatencyDenied {
        /// The device path.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// A negative cpu_dma_latency value.
    #[error("cpu_dma_latency value {0} µs is negative: use 0 or more")]
    InvalidDmaLatency(i32),
    /// Reading or writing `/dev/cpu_dma_latency` failed after it was opened.
    #[error("{call} {} failed: {errno}", path.display())]
    DmaLatency {
        /// `read` or `write`.
        call: &'static str,
        /// The device path.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// The device returned something that is not a latency value.
    #[error("{} returned {got:?}, not a latency value", path.display())]
    DmaLatencyFormat {
        /// The device path.
        path: PathBuf,
        /// What was read.
        got: Vec<u8>,
    },
    /// No tracefs was found under the root.
    #[error("tracefs not found under {}: mount it with `mount -t tracefs nodev /sys/kernel/tracing`", root.display())]
    TracefsNotFound {
        /// The root searched.
        root: PathBuf,
    },
    /// An ftrace file could not be opened or written.
    #[error("cannot {call} {}: {errno}; run as root (tracefs files are root-only)", path.display())]
    Ftrace {
        /// `open` or `write`.
        call: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// A system file (e.g. `/proc/mounts`) could not be read.
    #[error("cannot read {}: {errno}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// A system fact (see [`crate::facts`]) could not be read.
    #[error(transparent)]
    Fact(#[from] FactError),
    /// Writing a kernel file (see [`crate::tune`]) was refused for lack of privilege.
    #[error("writing {} needs {privilege}: {errno}", path.display())]
    WriteDenied {
        /// The file.
        path: PathBuf,
        /// Who may write it, e.g. `root (or CAP_DAC_OVERRIDE: the file is root's, mode 644)`.
        privilege: String,
        /// The OS error (`EACCES` or `EPERM`).
        errno: Errno,
    },
    /// The kernel refused the value written to one of its files (`EINVAL`, `EIO`): e.g. an
    /// IRQ that cannot be moved, or a governor the driver does not have.
    #[error("the kernel refused `{value}` for {}: {errno}", path.display())]
    WriteRefused {
        /// The file.
        path: PathBuf,
        /// What was written.
        value: String,
        /// The OS error.
        errno: Errno,
    },
    /// Writing a kernel file failed for another reason (it vanished, a short write, …).
    #[error("cannot write {}: {errno}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// A file rtlat was to read or write as a kernel file is not one as the kernel makes it:
    /// a symbolic link where the kernel has none, not a regular file, or a path outside the
    /// folders rtlat tunes.
    #[error(
        "refusing {}: {reason}; rtlat writes only the kernel's own files under /proc/irq and /sys/devices/system/cpu, never through a link",
        path.display()
    )]
    NotKernelFile {
        /// The path, under the root.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The machine has no CPU frequency scaling (most VMs): there is nothing to set.
    #[error("no cpufreq on this machine ({} missing): nothing to set", path.display())]
    NoCpufreq {
        /// The cpufreq directory that does not exist.
        path: PathBuf,
    },
    /// A governor the CPU's cpufreq driver does not offer.
    #[error("CPU {cpu} has no cpufreq governor `{governor}`: its governors are {available}")]
    UnknownGovernor {
        /// The CPU.
        cpu: usize,
        /// The governor asked for.
        governor: String,
        /// `scaling_available_governors`, space-separated.
        available: String,
    },
    /// A frequency the CPU does not offer.
    #[error("CPU {cpu} does not offer {asked}: {offered}")]
    FrequencyNotOffered {
        /// The CPU.
        cpu: usize,
        /// The frequency asked for, formatted (e.g. `1.7GHz (1700000 kHz)`).
        asked: String,
        /// What it offers, in words (its frequency table, or its range).
        offered: String,
    },
    /// Changing another thread's scheduling, nice value or affinity was refused.
    #[error(
        "changing the {setting} of thread {tid} needs CAP_SYS_NICE: run as root (without it a user may change only their own threads, with real-time priorities up to `ulimit -r`)"
    )]
    ThreadPermission {
        /// The thread.
        tid: u32,
        /// `scheduling`, `nice value` or `CPU affinity`.
        setting: &'static str,
    },
    /// A thread change this process could make but not undo: refused before it is made.
    #[error(
        "thread {tid} \"{name}\": its {setting} could be changed from {from} to {to} but this user could not change it back ({needs}), so the change is refused: run as root (CAP_SYS_NICE)"
    )]
    UndoNotPermitted {
        /// The thread.
        tid: u32,
        /// Its name.
        name: String,
        /// `scheduling`, `nice value` or `CPU affinity`.
        setting: &'static str,
        /// The value now.
        from: String,
        /// The value asked for.
        to: String,
        /// What undoing it would need, in words.
        needs: String,
    },
    /// A thread that does not exist (or exited).
    #[error("thread {tid} does not exist (any more): `rtlat threads` lists the threads")]
    NoSuchThread {
        /// The thread id.
        tid: u32,
    },
    /// The kernel refused a thread setting for a reason other than privilege.
    #[error("cannot set the {setting} of thread {tid} to {value}: {errno}{hint}")]
    ThreadSetting {
        /// The thread.
        tid: u32,
        /// `scheduling`, `nice value` or `CPU affinity`.
        setting: &'static str,
        /// The value asked for.
        value: String,
        /// The OS error.
        errno: Errno,
        /// What may be the cause (starts with `; ` when not empty).
        hint: &'static str,
    },
    /// Moving IRQs away from these CPUs would leave none for them.
    #[error(
        "moving IRQs away from CPUs {away_from} leaves no online CPU for them (online CPUs: {online}): keep at least one housekeeping CPU"
    )]
    NoHousekeepingCpu {
        /// The CPUs to keep IRQs away from.
        away_from: String,
        /// The online CPUs.
        online: String,
    },
    /// A restore file that cannot be used.
    #[error("{}: {reason}", path.display())]
    RestoreFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

impl Error {
    /// The OS error number behind this error, if there is one.
    pub fn errno(&self) -> Option<Errno> {
        match self {
            Error::Clock { errno, .. }
            | Error::Sleep { errno, .. }
            | Error::TimerWait { errno, .. }
            | Error::TimerSetup { errno, .. }
            | Error::Signals { errno, .. }
            | Error::Sched { errno, .. }
            | Error::NicePermission { errno, .. }
            | Error::Affinity { errno, .. }
            | Error::MemoryLock { errno }
            | Error::Os { errno, .. }
            | Error::DmaLatencyDenied { errno, .. }
            | Error::DmaLatency { errno, .. }
            | Error::Ftrace { errno, .. }
            | Error::Read { errno, .. }
            | Error::WriteDenied { errno, .. }
            | Error::WriteRefused { errno, .. }
            | Error::Write { errno, .. }
            | Error::ThreadSetting { errno, .. } => Some(*errno),
            Error::ThreadPermission { .. } | Error::UndoNotPermitted { .. } => Some(Errno::EPERM),
            Error::NoSuchThread { .. } => Some(Errno::from_raw(libc::ESRCH)),
            Error::NoCpufreq { .. } => Some(Errno::ENOENT),
            Error::SchedPermission { .. } => Some(Errno::EPERM),
            Error::DmaLatencyMissing { .. } => Some(Errno::ENOENT),
            Error::Fact(fact) => fact.errno(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_tell_the_user_what_to_do() {
        let e = Error::SchedPermission {
            policy: Policy::Fifo,
            priority: 80,
        };
        let text = e.to_string();
        assert!(
            text.starts_with("SCHED_FIFO priority 80 needs root, CAP_SYS_NICE"),
            "{text}"
        );
        assert!(text.contains("ulimit -r 99"), "{text}");
        assert_eq!(e.errno(), Some(Errno::EPERM));

        let e = Error::MemoryLock {
            errno: Errno::ENOMEM,
        };
        let text = e.to_string();
        assert!(text.starts_with("mlockall failed: "), "{text}");
        assert!(
            text.contains("(os error 12)") && text.contains("ulimit -l"),
            "{text}"
        );

        let e = Error::InvalidPriority {
            policy: Policy::RoundRobin,
            priority: 100,
            min: 1,
            max: 99,
        };
        assert_eq!(
            e.to_string(),
            "priority 100 is out of range for SCHED_RR: use 1..=99"
        );
        assert_eq!(e.errno(), None);
    }

    #[test]
    fn errno_round_trips_to_io_error() {
        let io: std::io::Error = Errno::EACCES.into();
        assert_eq!(io.raw_os_error(), Some(libc::EACCES));
        assert_eq!(Errno::from_io(&io), Errno::EACCES);
        let short = std::io::Error::from(std::io::ErrorKind::WriteZero);
        assert_eq!(Errno::from_io(&short), Errno::EIO);
        assert_eq!(format!("{:?}", Errno::EPERM), "Errno(1)");
    }
}
