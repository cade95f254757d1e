//! Raw declarations of Xenomai 3's C interface: the types, constants and functions this crate
//! calls, as `alchemy/task.h`, `alchemy/timer.h`, `copperplate/clockobj.h`,
//! `xenomai/init.h` and (Cobalt) `cobalt/sys/cobalt.h` and `cobalt/uapi/corectl.h` declare
//! them. The integration test `layout` compiles a C probe against the installed headers and
//! compares every size, alignment, field offset, constant and function type here with them.
//!
//! The functions are declared only when the crate was built with Xenomai (cfg
//! `rtlat_xenomai`); the types and constants always are. Calling them is `unsafe`; the crate
//! does so in small commented functions of its own (`call.rs`), and the safe types build on
//! those.

#![allow(non_camel_case_types, non_upper_case_globals)]

use core::ffi::{c_char, c_int};

/// A date or duration on the Alchemy clock, in clock ticks (`RTIME`; 1 ns per tick unless the
/// session was started with `--alchemy-clock-resolution`).
pub type RTIME = u64;
/// A signed date or duration on the Alchemy clock (`SRTIME`).
pub type SRTIME = i64;

/// Lowest Alchemy task priority (`T_LOPRIO`): the task runs SCHED_OTHER.
pub const T_LOPRIO: c_int = 0;
/// Highest Alchemy task priority (`T_HIPRIO`).
pub const T_HIPRIO: c_int = 99;
/// Mode bit: the task starts with the scheduler locked (`T_LOCK`).
pub const T_LOCK: c_int = 0x1;
/// Mode bit: SIGDEBUG on a switch to secondary mode (`T_WARNSW`; Cobalt only, no-op on
/// Mercury).
pub const T_WARNSW: c_int = 0x2;
/// Mode bit: switch to conforming mode (`T_CONFORMING`).
pub const T_CONFORMING: c_int = 0x4;
/// Creation mode bit: the task can be waited for with `rt_task_join` (`T_JOINABLE`).
pub const T_JOINABLE: c_int = 0x10000;

/// "No timeout" for blocking calls; as a period, stops a periodic timer (`TM_INFINITE`).
pub const TM_INFINITE: RTIME = 0;
/// "Now" as a start date (`TM_NOW`).
pub const TM_NOW: RTIME = 0;
/// "Do not block" (`TM_NONBLOCK`).
pub const TM_NONBLOCK: RTIME = u64::MAX;

/// Longest object name, terminating NUL included (`XNOBJECT_NAME_LEN`).
pub const XNOBJECT_NAME_LEN: usize = 32;

/// An Alchemy task descriptor (`RT_TASK`), allocated by the caller: 16 bytes on 64-bit.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RT_TASK {
    /// Xenomai's handle of the task object.
    pub handle: usize,
    /// The task's POSIX thread.
    pub thread: libc::pthread_t,
}

/// `NO_ALCHEMY_TASK`: a descriptor that refers to no task.
pub const NO_ALCHEMY_TASK: RT_TASK = RT_TASK {
    handle: 0,
    thread: 0,
};

/// A task's run-time figures (`struct threadobj_stat`, Mercury's).
#[cfg(not(xenomai_cobalt))]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct threadobj_stat {
    /// Current timeout value (ns).
    pub timeout: u64,
    /// Current CPU.
    pub cpu: c_int,
    /// Scheduler lock nesting count.
    pub schedlock: c_int,
    /// Mercury thread status bits.
    pub status: u32,
}

/// A task's run-time figures (`struct threadobj_stat`, Cobalt's).
#[cfg(xenomai_cobalt)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct threadobj_stat {
    /// Execution time in primary mode (ns).
    pub xtime: u64,
    /// Current timeout value (ns).
    pub timeout: u64,
    /// Primary-to-secondary mode switches.
    pub msw: u64,
    /// Context switches.
    pub csw: u64,
    /// Xenomai system calls.
    pub xsc: u64,
    /// Current CPU.
    pub cpu: c_int,
    /// Scheduler lock nesting count.
    pub schedlock: c_int,
    /// Cobalt thread status bits.
    pub status: u32,
    /// Page faults.
    pub pf: u32,
}

/// What `rt_task_inquire` reports (`RT_TASK_INFO`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RT_TASK_INFO {
    /// Current priority.
    pub prio: c_int,
    /// Run-time figures.
    pub stat: threadobj_stat,
    /// Name, NUL-terminated.
    pub name: [c_char; XNOBJECT_NAME_LEN],
    /// Host thread id.
    pub pid: libc::pid_t,
}

/// What `rt_timer_inquire` reports (`RT_TIMER_INFO`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RT_TIMER_INFO {
    /// Clock resolution in nanoseconds (nanoseconds per tick).
    pub period: RTIME,
    /// Current monotonic date in ticks.
    pub date: RTIME,
}

/// Copperplate's clock object (`struct clockobj`), only ever used through a pointer.
#[repr(C)]
pub struct clockobj {
    _opaque: [u8; 0],
}

/// Cobalt `corectl` request: the core's version code (`_CC_COBALT_GET_VERSION`).
pub const _CC_COBALT_GET_VERSION: c_int = 0;
/// Cobalt `corectl` request: the core's run state (`_CC_COBALT_GET_CORE_STATUS`), one of
/// the `COBALT_STATE_*` values.
pub const _CC_COBALT_GET_CORE_STATUS: c_int = 6;
/// Cobalt core state: disabled at boot (`xenomai.state=disabled`).
pub const COBALT_STATE_DISABLED: c_int = 0;
/// Cobalt core state: running.
pub const COBALT_STATE_RUNNING: c_int = 1;
/// Cobalt core state: stopped (`corectl --stop`).
pub const COBALT_STATE_STOPPED: c_int = 2;
/// Cobalt core state: being stopped.
pub const COBALT_STATE_TEARDOWN: c_int = 3;
/// Cobalt core state: starting.
pub const COBALT_STATE_WARMUP: c_int = 4;

/// The entry point of an Alchemy task created by `rt_task_create`.
pub type TaskEntry = unsafe extern "C" fn(arg: *mut core::ffi::c_void);

#[cfg(rtlat_xenomai)]
unsafe extern "C" {
    /// `rt_task_create`: creates a task (not started yet).
    pub fn rt_task_create(
        task: *mut RT_TASK,
        name: *const c_char,
        stksize: c_int,
        prio: c_int,
        mode: c_int,
    ) -> c_int;
    /// `rt_task_start`: starts a created task at `entry(arg)`.
    pub fn rt_task_start(
        task: *mut RT_TASK,
        entry: Option<TaskEntry>,
        arg: *mut core::ffi::c_void,
    ) -> c_int;
    /// `rt_task_shadow`: turns the calling thread into an Alchemy task.
    pub fn rt_task_shadow(
        task: *mut RT_TASK,
        name: *const c_char,
        prio: c_int,
        mode: c_int,
    ) -> c_int;
    /// `rt_task_join`: waits for a `T_JOINABLE` task to end.
    pub fn rt_task_join(task: *mut RT_TASK) -> c_int;
    /// `rt_task_delete`: deletes a task.
    pub fn rt_task_delete(task: *mut RT_TASK) -> c_int;
    /// `rt_task_set_periodic`: first release `idate` and `period`, in ticks (NULL: the
    /// calling task).
    pub fn rt_task_set_periodic(task: *mut RT_TASK, idate: RTIME, period: RTIME) -> c_int;
    /// `rt_task_wait_period`: waits for the next release; `-ETIMEDOUT` with the count in
    /// `*overruns_r` when releases were missed.
    pub fn rt_task_wait_period(overruns_r: *mut core::ffi::c_ulong) -> c_int;
    /// `rt_task_sleep_until`: sleeps until an absolute date in ticks.
    pub fn rt_task_sleep_until(date: RTIME) -> c_int;
    /// `rt_task_set_priority`: changes a task's base priority (NULL: the calling task).
    pub fn rt_task_set_priority(task: *mut RT_TASK, prio: c_int) -> c_int;
    /// `rt_task_set_affinity`: changes a task's CPU affinity (NULL: the calling task).
    pub fn rt_task_set_affinity(task: *mut RT_TASK, cpus: *const libc::cpu_set_t) -> c_int;
    /// `rt_task_inquire`: a task's name, priority, host pid and figures (NULL: the calling
    /// task).
    pub fn rt_task_inquire(task: *mut RT_TASK, info: *mut RT_TASK_INFO) -> c_int;
    /// `rt_task_self`: the calling task's descriptor, NULL when it is not an Alchemy task.
    pub fn rt_task_self() -> *mut RT_TASK;
    /// `rt_timer_inquire`: the Alchemy clock's resolution and date.
    pub fn rt_timer_inquire(info: *mut RT_TIMER_INFO);
    /// `clockobj_get_time`: a clock's monotonic date in its ticks (what the `static inline`
    /// `rt_timer_read()` calls with `&alchemy_clock`).
    pub fn clockobj_get_time(clkobj: *mut clockobj) -> u64;
    /// The Alchemy clock.
    pub static mut alchemy_clock: clockobj;
    /// `xenomai_init`: initialises Xenomai (once, on the main thread) from an argument
    /// vector, removing the options it consumed.
    pub fn xenomai_init(argcp: *mut c_int, argvp: *mut *const *mut c_char);
}

#[cfg(xenomai_cobalt)]
unsafe extern "C" {
    /// `cobalt_corectl`: queries or controls the Cobalt core; `-ENOSYS` when the kernel has
    /// none. Usable before `xenomai_init`.
    pub fn cobalt_corectl(request: c_int, buf: *mut core::ffi::c_void, bufsz: usize) -> c_int;
    /// `cobalt_read_ns`: Cobalt's monotonic clock in ns (after `xenomai_init`).
    pub fn cobalt_read_ns() -> u64;
}
