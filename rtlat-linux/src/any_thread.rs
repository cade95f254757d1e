//! Any thread's scheduling, nice value and CPUs, named by its kernel thread id (TID), with the
//! bare [`Errno`]: the calls a tuning tool (rtlat-system's `tune::thread_setting`) makes on
//! threads it does not run, which words its own errors (who may change what, and how to undo
//! it).
//!
//! A TID of 0 names the calling thread, as the kernel reads it; a caller that means another
//! thread refuses 0 itself.

use crate::errno::Errno;
use crate::sys;

/// The raw policy number of thread `tid` (`sched_getscheduler`), `SCHED_RESET_ON_FORK`
/// included when set; [`Policy::from_raw`](crate::thread::Policy::from_raw) names it.
pub fn policy_raw(tid: i32) -> Result<i32, Errno> {
    sys::sched_getscheduler(tid)
}

/// The static priority of thread `tid` (`sched_getparam`).
pub fn priority(tid: i32) -> Result<i32, Errno> {
    sys::sched_getparam(tid)
}

/// Sets thread `tid`'s raw policy number (flags such as `SCHED_RESET_ON_FORK` or'ed in) and
/// priority (`sched_setscheduler`).
pub fn set_scheduler_raw(tid: i32, policy_raw: i32, priority: i32) -> Result<(), Errno> {
    sys::sched_setscheduler(tid, policy_raw, priority)
}

/// The nice value of thread `tid` (`getpriority(PRIO_PROCESS, tid)`).
pub fn nice(tid: i32) -> Result<i32, Errno> {
    sys::thread_nice(tid)
}

/// Sets the nice value of thread `tid` (`setpriority(PRIO_PROCESS, tid, nice)`).
pub fn set_nice(tid: i32, nice: i32) -> Result<(), Errno> {
    sys::set_thread_nice(tid, nice)
}

/// The CPUs thread `tid` may run on, ascending (`sched_getaffinity`).
pub fn cpus(tid: i32) -> Result<Vec<usize>, Errno> {
    sys::sched_getaffinity(tid)
}

/// Pins thread `tid` to `cpus` (`sched_setaffinity`).
pub fn set_cpus(tid: i32, cpus: &[usize]) -> Result<(), Errno> {
    sys::sched_setaffinity(tid, cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_sets_this_thread_by_its_tid() {
        std::thread::spawn(|| {
            let tid = crate::thread::gettid();
            let raw = policy_raw(tid).unwrap();
            assert!(crate::thread::Policy::from_raw(raw).is_some(), "{raw}");
            assert!(priority(tid).is_ok());
            let now = nice(tid).unwrap();
            set_nice(tid, now).unwrap();
            let allowed = cpus(tid).unwrap();
            assert!(!allowed.is_empty());
            set_cpus(tid, &allowed).unwrap();
            assert_eq!(cpus(tid).unwrap(), allowed);
            set_scheduler_raw(tid, raw, priority(tid).unwrap()).unwrap();
            // The highest pid the kernel hands out is below 2^22.
            assert_eq!(nice(0x7fff_fff0), Err(Errno::from_raw(libc::ESRCH)));
        })
        .join()
        .unwrap();
    }
}
