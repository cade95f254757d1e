//! The crate's error: a failed Xenomai call with Xenomai's meaning of its code, or a reason
//! the call was not made.

use core::fmt;

/// What went wrong. Small and `Copy`: the periodic timer returns it from the hot path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The crate was built without `xeno-config`: nothing Xenomai can run.
    NotBuilt,
    /// [`init`](crate::init) was called on a thread other than the process's main thread
    /// (Xenomai asserts that it runs there).
    NotMainThread,
    /// A task or clock was asked for before [`init`](crate::init) succeeded.
    NotInitialized,
    /// Built against Cobalt, and the running kernel has no Cobalt core.
    CobaltCoreMissing,
    /// Built against Cobalt, and the kernel's Cobalt core is not running (the state
    /// `corectl` reports: disabled, stopped, teardown or warm-up).
    CobaltCoreNotRunning(i32),
    /// A task name longer than 31 bytes or holding a NUL byte.
    InvalidName,
    /// A CPU number beyond what a CPU set holds.
    InvalidCpu(usize),
    /// A Xenomai call returned `-errno`.
    Call {
        /// The C function.
        call: &'static str,
        /// The positive error number.
        errno: i32,
    },
}

impl Error {
    /// The error number of a failed call.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Call { errno, .. } => Some(*errno),
            _ => None,
        }
    }

    /// A call's negative return value as an error.
    pub(crate) fn call(call: &'static str, ret: i32) -> Error {
        Error::Call {
            call,
            errno: ret.saturating_neg(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::NotBuilt => f.write_str("built without Xenomai (set XENO_CONFIG)"),
            Error::NotMainThread => {
                f.write_str("Xenomai must be initialised on the main thread (call init() first in main)")
            }
            Error::NotInitialized => {
                f.write_str("Xenomai is not initialised (call rtlat_xenomai_ffi::init() first in main)")
            }
            Error::CobaltCoreMissing => f.write_str(
                "Cobalt core not enabled in this kernel (boot a Xenomai Cobalt kernel, or build with XENO_CONFIG of a Mercury install)",
            ),
            Error::CobaltCoreNotRunning(state) => write!(
                f,
                "Cobalt core present but not running (state {}): start it with `corectl --start` or boot without xenomai.state=disabled",
                cobalt_state_name(state)
            ),
            Error::InvalidName => {
                f.write_str("Xenomai task names are at most 31 bytes, without NUL bytes")
            }
            Error::InvalidCpu(cpu) => write!(f, "CPU {cpu} is beyond what a CPU set holds"),
            Error::Call { call, errno } => {
                write!(f, "{call}: ")?;
                meaning(f, call, errno)
            }
        }
    }
}

impl std::error::Error for Error {}

/// Xenomai's meaning of `errno` for `call` (the Alchemy manual's return values).
fn meaning(f: &mut fmt::Formatter<'_>, call: &str, errno: i32) -> fmt::Result {
    match errno {
        libc::EPERM => f.write_str(
            "the calling thread is not a Xenomai task (EPERM): make it one with Task::shadow, or call from a task",
        ),
        libc::ETIMEDOUT if call == "rt_task_set_periodic" => {
            f.write_str("the first release date is already past (ETIMEDOUT)")
        }
        libc::ETIMEDOUT => f.write_str("overrun: a release point was missed (ETIMEDOUT)"),
        libc::EEXIST => f.write_str(
            "a Xenomai task of this name already exists (EEXIST): task names are unique in a session",
        ),
        libc::EWOULDBLOCK => f.write_str(
            "the task is not periodic (EWOULDBLOCK): rt_task_set_periodic was not called",
        ),
        libc::EINVAL => f.write_str(
            "invalid argument (EINVAL): priority outside 0-99, an empty or unknown CPU set, not a task descriptor, or (Cobalt) a period below the core's scheduling latency",
        ),
        libc::EINTR => f.write_str("interrupted (EINTR): rt_task_unblock was called for the task"),
        libc::EBUSY => f.write_str("the calling thread already is a Xenomai task (EBUSY)"),
        libc::ENOMEM => f.write_str(
            "not enough memory for the task (ENOMEM): raise Xenomai's main heap (--mem-pool-size)",
        ),
        libc::ESRCH | libc::EIDRM => f.write_str("no such task: it was deleted (ESRCH)"),
        libc::ENOSYS => f.write_str("not supported by this Xenomai core (ENOSYS)"),
        other => write!(f, "{}", std::io::Error::from_raw_os_error(other)),
    }
}

/// The name of a Cobalt core state.
fn cobalt_state_name(state: i32) -> &'static str {
    use crate::sys;
    match state {
        sys::COBALT_STATE_DISABLED => "disabled",
        sys::COBALT_STATE_RUNNING => "running",
        sys::COBALT_STATE_STOPPED => "stopped",
        sys::COBALT_STATE_TEARDOWN => "teardown",
        sys::COBALT_STATE_WARMUP => "warm-up",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_xenomai_means() {
        let e = Error::call("rt_task_wait_period", -libc::EPERM);
        assert_eq!(e.errno(), Some(libc::EPERM));
        assert!(e.to_string().contains("not a Xenomai task"), "{e}");
        let e = Error::call("rt_task_shadow", -libc::EEXIST);
        assert!(e.to_string().contains("already exists"), "{e}");
        let e = Error::call("rt_task_wait_period", -libc::ETIMEDOUT);
        assert!(e.to_string().contains("overrun"), "{e}");
        let e = Error::call("rt_task_set_periodic", -libc::ETIMEDOUT);
        assert!(e.to_string().contains("already past"), "{e}");
        assert_eq!(
            Error::NotBuilt.to_string(),
            "built without Xenomai (set XENO_CONFIG)"
        );
        assert!(
            Error::CobaltCoreMissing
                .to_string()
                .starts_with("Cobalt core not enabled in this kernel")
        );
    }
}
