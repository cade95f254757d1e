//! Every `unsafe` call of the crate, each in a small function with its reason.
//!
//! The wrappers return Xenomai's `0`-or-`-errno` as it comes; the safe types turn it into an
//! [`Error`](crate::Error) naming the call. Built without Xenomai (no cfg `rtlat_xenomai`)
//! they return `-ENOSYS` without calling anything; the safe layer never gets that far, since
//! [`init`](crate::init) refuses first.

#![cfg_attr(not(rtlat_xenomai), allow(unused_variables))]

use core::ffi::{CStr, c_int, c_ulong, c_void};
use core::ptr;

#[cfg(rtlat_xenomai)]
use crate::sys;
use crate::sys::{RT_TASK, RT_TASK_INFO, RT_TIMER_INFO, TaskEntry};

/// Whether the calling thread is the process's main thread.
pub(crate) fn is_main_thread() -> bool {
    // SAFETY: gettid and getpid take no arguments and cannot fail.
    unsafe { libc::gettid() == libc::getpid() }
}

/// `xenomai_init` with an argument vector of the program name only, so Xenomai acts on none
/// of the user's options (`--help` included). On Cobalt it binds to the core, on both cores
/// it locks memory; it exits the process on failure (hence the Cobalt probe before it).
pub(crate) fn xenomai_init(program: &'static CStr) {
    #[cfg(rtlat_xenomai)]
    {
        let mut argv: [*mut core::ffi::c_char; 2] = [program.as_ptr().cast_mut(), ptr::null_mut()];
        let mut argc: c_int = 1;
        let mut argvp: *const *mut core::ffi::c_char = argv.as_mut_ptr();
        // SAFETY: argc/argv describe a valid NULL-terminated vector of one NUL-terminated
        // string that outlives the call; Xenomai copies it (prep_args) and only reads the
        // string, and it writes a vector of its own into `argvp`, which we then ignore.
        // The caller guarantees this runs once, on the main thread.
        unsafe { sys::xenomai_init(&mut argc, &mut argvp) };
    }
}

/// Cobalt's core state (`corectl` `_CC_COBALT_GET_CORE_STATUS`): `Ok(state)`, or the
/// negative code (`-ENOSYS`: the kernel has no Cobalt core).
#[cfg(xenomai_cobalt)]
pub(crate) fn cobalt_core_state() -> Result<c_int, c_int> {
    let mut state: c_int = -1;
    // SAFETY: the buffer is a valid, writable int of the size passed; corectl is a
    // "probing" system call, allowed before xenomai_init, and returns -ENOSYS (x86, arm64)
    // on a kernel without Cobalt.
    let ret = unsafe {
        sys::cobalt_corectl(
            sys::_CC_COBALT_GET_CORE_STATUS,
            (&raw mut state).cast::<c_void>(),
            size_of::<c_int>(),
        )
    };
    if ret < 0 { Err(ret) } else { Ok(state) }
}

/// `rt_task_shadow(task, name, prio, mode)` on the calling thread.
pub(crate) fn task_shadow(
    task: &mut RT_TASK,
    name: Option<&CStr>,
    prio: c_int,
    mode: c_int,
) -> c_int {
    let name = name.map_or(ptr::null(), CStr::as_ptr);
    #[cfg(rtlat_xenomai)]
    // SAFETY: `task` is a valid descriptor to fill in; `name` is NULL (Xenomai makes one up)
    // or a NUL-terminated string Xenomai copies.
    return unsafe { sys::rt_task_shadow(task, name, prio, mode) };
    #[cfg(not(rtlat_xenomai))]
    -libc::ENOSYS
}

/// `rt_task_create(task, name, 0, prio, mode)` (default stack size).
pub(crate) fn task_create(
    task: &mut RT_TASK,
    name: Option<&CStr>,
    prio: c_int,
    mode: c_int,
) -> c_int {
    let name = name.map_or(ptr::null(), CStr::as_ptr);
    #[cfg(rtlat_xenomai)]
    // SAFETY: as task_shadow; a stack size of 0 asks for Xenomai's default.
    return unsafe { sys::rt_task_create(task, name, 0, prio, mode) };
    #[cfg(not(rtlat_xenomai))]
    -libc::ENOSYS
}

/// Runs the boxed closure `arg` points to: the entry point of a task [`task_start_boxed`]
/// started. `extern "C"`: a panic escaping `F` aborts (the closure catches its own).
unsafe extern "C" fn run_boxed<F: FnOnce()>(arg: *mut c_void) {
    // SAFETY: `arg` is the `Box<F>` task_start_boxed leaked for this task, taken back
    // exactly once, here.
    let f = unsafe { Box::from_raw(arg.cast::<F>()) };
    f();
}

/// `rt_task_start(task, …)` running `f` on the new task's thread.
pub(crate) fn task_start_boxed<F: FnOnce() + Send + 'static>(task: &mut RT_TASK, f: F) -> c_int {
    let arg = Box::into_raw(Box::new(f)).cast::<c_void>();
    let entry: TaskEntry = run_boxed::<F>;
    #[cfg(rtlat_xenomai)]
    // SAFETY: `task` is a created, not yet started task; run_boxed::<F> takes back the box
    // `arg` points to, once, on the task's thread (F is Send).
    let ret = unsafe { sys::rt_task_start(task, Some(entry), arg) };
    #[cfg(not(rtlat_xenomai))]
    let ret = {
        let _ = entry;
        -libc::ENOSYS
    };
    if ret != 0 {
        // SAFETY: the task did not start, so the box was not taken: it is still ours.
        drop(unsafe { Box::from_raw(arg.cast::<F>()) });
    }
    ret
}

/// `rt_task_join(task)`.
pub(crate) fn task_join(task: &mut RT_TASK) -> c_int {
    #[cfg(rtlat_xenomai)]
    // SAFETY: `task` is the descriptor of a task created joinable by this process.
    return unsafe { sys::rt_task_join(task) };
    #[cfg(not(rtlat_xenomai))]
    -libc::ENOSYS
}

/// `rt_task_delete(task)`: deletes a created task that was never started (a failed spawn);
/// nothing to report if that fails too.
pub(crate) fn task_delete(task: &mut RT_TASK) {
    #[cfg(rtlat_xenomai)]
    // SAFETY: `task` is the descriptor of a task this process created and did not start.
    unsafe {
        sys::rt_task_delete(task);
    }
}

/// `rt_task_set_priority(NULL, prio)`: the calling task's priority.
pub(crate) fn set_own_priority(prio: c_int) -> c_int {
    #[cfg(rtlat_xenomai)]
    // SAFETY: NULL names the calling task; -EPERM if it is none.
    return unsafe { sys::rt_task_set_priority(ptr::null_mut(), prio) };
    #[cfg(not(rtlat_xenomai))]
    -libc::ENOSYS
}

/// `rt_task_set_affinity(task or NULL, {cpu})`.
pub(crate) fn set_affinity(task: Option<&mut RT_TASK>, cpu: usize) -> c_int {
    // SAFETY: an all-zero cpu_set_t is the empty set; CPU_SET writes inside it, and the
    // caller checked `cpu` < CPU_SETSIZE.
    let set = unsafe {
        let mut set: libc::cpu_set_t = core::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        set
    };
    let task = task.map_or(ptr::null_mut(), |t| t as *mut RT_TASK);
    #[cfg(rtlat_xenomai)]
    // SAFETY: `task` is NULL (the calling task) or a valid descriptor; Xenomai copies the set.
    return unsafe { sys::rt_task_set_affinity(task, &set) };
    #[cfg(not(rtlat_xenomai))]
    -libc::ENOSYS
}

/// `rt_task_inquire(NULL, info)`: the calling task's name, priority and figures.
pub(crate) fn inquire_self(info: &mut RT_TASK_INFO) -> c_int {
    #[cfg(rtlat_xenomai)]
    // SAFETY: `info` is a valid, writable RT_TASK_INFO; NULL names the calling task.
    return unsafe { sys::rt_task_inquire(ptr::null_mut(), info) };
    #[cfg(not(rtlat_xenomai))]
    -libc::ENOSYS
}

/// `rt_task_self()`: the calling task's descriptor, if it is one.
pub(crate) fn task_self() -> Option<RT_TASK> {
    #[cfg(rtlat_xenomai)]
    // SAFETY: rt_task_self takes nothing and returns NULL or a pointer to the calling
    // task's own descriptor, valid while the task lives (we copy it at once).
    return unsafe { sys::rt_task_self().as_ref().copied() };
    #[cfg(not(rtlat_xenomai))]
    None
}

/// `rt_task_set_periodic(NULL, idate, period)`: the calling task's periodic timer
/// (`period` TM_INFINITE stops it).
pub(crate) fn set_own_periodic(idate: u64, period: u64) -> c_int {
    #[cfg(rtlat_xenomai)]
    // SAFETY: NULL names the calling task; -EPERM if it is none.
    return unsafe { sys::rt_task_set_periodic(ptr::null_mut(), idate, period) };
    #[cfg(not(rtlat_xenomai))]
    -libc::ENOSYS
}

/// `rt_task_wait_period(overruns)`: `overruns` is written on success (0) and on
/// -ETIMEDOUT (the count); the caller zeroes it before each call.
#[inline(always)]
pub(crate) fn wait_period(overruns: &mut c_ulong) -> c_int {
    #[cfg(rtlat_xenomai)]
    // SAFETY: `overruns` is a valid, writable unsigned long.
    return unsafe { sys::rt_task_wait_period(overruns) };
    #[cfg(not(rtlat_xenomai))]
    -libc::ENOSYS
}

/// `rt_task_sleep_until(date)`.
pub(crate) fn sleep_until(date: u64) -> c_int {
    #[cfg(rtlat_xenomai)]
    // SAFETY: plain value argument; -EPERM if the caller is not a task.
    return unsafe { sys::rt_task_sleep_until(date) };
    #[cfg(not(rtlat_xenomai))]
    -libc::ENOSYS
}

/// `rt_timer_inquire()`: the Alchemy clock's resolution and date.
pub(crate) fn timer_inquire() -> RT_TIMER_INFO {
    #[cfg_attr(not(rtlat_xenomai), allow(unused_mut))]
    let mut info = RT_TIMER_INFO::default();
    #[cfg(rtlat_xenomai)]
    // SAFETY: `info` is a valid, writable RT_TIMER_INFO.
    unsafe {
        sys::rt_timer_inquire(&mut info)
    };
    info
}

/// The Alchemy clock in ticks: what `rt_timer_read()` (a `static inline`, not exported)
/// returns, `clockobj_get_time(&alchemy_clock)`.
#[inline(always)]
pub(crate) fn alchemy_clock_ticks() -> u64 {
    #[cfg(rtlat_xenomai)]
    // SAFETY: alchemy_clock is the Alchemy library's clock object, initialised by
    // xenomai_init (callers hold proof of init); clockobj_get_time only reads it.
    return unsafe { sys::clockobj_get_time(&raw mut sys::alchemy_clock) };
    #[cfg(not(rtlat_xenomai))]
    0
}
