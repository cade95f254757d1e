//! Alchemy tasks: the calling thread made one ([`Task::shadow`]), or a new one
//! ([`spawn`]), with a priority and a CPU.

use core::ffi::CStr;
use core::marker::PhantomData;
use std::ffi::CString;
use std::sync::{Arc, Mutex};

use crate::sys::{self, RT_TASK, RT_TASK_INFO};
use crate::{Error, PeriodicTimer, call, init};

/// The calling thread's Alchemy task. Not `Send`: Xenomai's task calls act on the calling
/// thread, so the handle stays on it. The task ends with its thread.
#[derive(Debug)]
pub struct Task {
    raw: RT_TASK,
    _this_thread: PhantomData<*const ()>,
}

/// What Xenomai reports about a task (`rt_task_inquire`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInfo {
    /// The task's name.
    pub name: String,
    /// Its current priority (0: SCHED_OTHER, 1–99: SCHED_FIFO).
    pub priority: i32,
    /// The host thread id.
    pub tid: i32,
    /// The CPU it runs on.
    pub cpu: i32,
    /// Switches from primary to secondary mode (Cobalt; `None` on Mercury).
    pub mode_switches: Option<u64>,
}

/// A name for Xenomai: `None` for an empty one (Xenomai makes up a unique name).
fn task_name(name: &str) -> Result<Option<CString>, Error> {
    if name.is_empty() {
        return Ok(None);
    }
    if name.len() >= sys::XNOBJECT_NAME_LEN {
        return Err(Error::InvalidName);
    }
    CString::new(name).map(Some).map_err(|_| Error::InvalidName)
}

/// Refuses a CPU number a `cpu_set_t` cannot hold.
fn check_cpu(cpu: usize) -> Result<(), Error> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(Error::InvalidCpu(cpu));
    }
    Ok(())
}

/// `0`-or-`-errno` to a `Result`.
fn check(call: &'static str, ret: i32) -> Result<(), Error> {
    if ret == 0 {
        Ok(())
    } else {
        Err(Error::call(call, ret))
    }
}

impl Task {
    /// Makes the calling thread an Alchemy task named `name` (unique in the session; empty:
    /// Xenomai makes one up) at `priority` (1–99 SCHED_FIFO, 0 SCHED_OTHER), pinned to `cpu`
    /// if given. Needs [`init`](crate::init) first.
    pub fn shadow(name: &str, priority: u8, cpu: Option<usize>) -> Result<Task, Error> {
        init::initialized()?;
        let name = task_name(name)?;
        if let Some(cpu) = cpu {
            check_cpu(cpu)?;
        }
        let mut raw = sys::NO_ALCHEMY_TASK;
        check(
            "rt_task_shadow",
            call::task_shadow(&mut raw, name.as_deref(), priority.into(), 0),
        )?;
        let task = Task::from_raw(raw);
        if let Some(cpu) = cpu {
            task.set_cpu(cpu)?;
        }
        Ok(task)
    }

    /// The calling thread's task; `EPERM` ("not a Xenomai task") when it is none.
    pub fn current() -> Result<Task, Error> {
        init::initialized()?;
        // rt_task_inquire(NULL) gives Xenomai's own answer for a thread that is no task.
        let mut info = empty_info();
        check("rt_task_inquire", call::inquire_self(&mut info))?;
        let raw = call::task_self().ok_or(Error::call("rt_task_self", -libc::EPERM))?;
        Ok(Task::from_raw(raw))
    }

    fn from_raw(raw: RT_TASK) -> Task {
        Task {
            raw,
            _this_thread: PhantomData,
        }
    }

    /// The raw descriptor.
    pub fn raw(&self) -> RT_TASK {
        self.raw
    }

    /// Name, priority, thread id, CPU (and on Cobalt mode switches) of this task.
    pub fn info(&self) -> Result<TaskInfo, Error> {
        let mut info = empty_info();
        check("rt_task_inquire", call::inquire_self(&mut info))?;
        // The name is a NUL-terminated char array Xenomai filled in (strcpy of the task's).
        // c_char is i8 on x86-64 and u8 on aarch64: its byte, either way.
        let bytes: Vec<u8> = info.name.iter().map(|c| c.to_ne_bytes()[0]).collect();
        let name = CStr::from_bytes_until_nul(&bytes)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        #[cfg(xenomai_cobalt)]
        let mode_switches = Some(info.stat.msw);
        #[cfg(not(xenomai_cobalt))]
        let mode_switches = None;
        Ok(TaskInfo {
            name,
            priority: info.prio,
            tid: info.pid,
            cpu: info.stat.cpu,
            mode_switches,
        })
    }

    /// Changes this task's priority (1–99 SCHED_FIFO, 0 SCHED_OTHER).
    pub fn set_priority(&self, priority: u8) -> Result<(), Error> {
        check(
            "rt_task_set_priority",
            call::set_own_priority(priority.into()),
        )
    }

    /// Pins this task to `cpu`.
    pub fn set_cpu(&self, cpu: usize) -> Result<(), Error> {
        check_cpu(cpu)?;
        check("rt_task_set_affinity", call::set_affinity(None, cpu))
    }

    /// Sleeps until `date`, in Alchemy clock ticks (`rt_task_sleep_until`); a date already
    /// past returns at once.
    pub fn sleep_until(&self, date: u64) -> Result<(), Error> {
        match call::sleep_until(date) {
            0 => Ok(()),
            ret if ret == -libc::ETIMEDOUT => Ok(()),
            ret => Err(Error::call("rt_task_sleep_until", ret)),
        }
    }

    /// A periodic timer of `period_ns` for this task (see [`PeriodicTimer`]).
    pub fn periodic_timer(&self, period_ns: u64) -> Result<PeriodicTimer<&Task>, Error> {
        PeriodicTimer::new(self, period_ns)
    }

    /// The same, holding the task: for a caller that keeps the timer and not the task
    /// (rtlat's measuring threads make both and hand the engine the timer).
    pub fn into_periodic_timer(self, period_ns: u64) -> Result<PeriodicTimer<Task>, Error> {
        PeriodicTimer::new(self, period_ns)
    }
}

fn empty_info() -> RT_TASK_INFO {
    RT_TASK_INFO {
        prio: 0,
        stat: Default::default(),
        name: [0; sys::XNOBJECT_NAME_LEN],
        pid: 0,
    }
}

/// A task started by [`spawn`]; [`join`](Self::join) waits for it and gives its result.
/// Join it: a handle dropped without joining leaves the task running, and its thread is
/// never reclaimed.
#[derive(Debug)]
pub struct JoinHandle<T> {
    raw: RT_TASK,
    result: Arc<Mutex<Option<std::thread::Result<T>>>>,
}

/// Creates and starts an Alchemy task named `name` at `priority`, pinned to `cpu` if given,
/// running `f` with the new task's [`Task`]. The task is joinable: [`JoinHandle::join`] it.
pub fn spawn<F, T>(
    name: &str,
    priority: u8,
    cpu: Option<usize>,
    f: F,
) -> Result<JoinHandle<T>, Error>
where
    F: FnOnce(&Task) -> T + Send + 'static,
    T: Send + 'static,
{
    init::initialized()?;
    let name = task_name(name)?;
    if let Some(cpu) = cpu {
        check_cpu(cpu)?;
    }
    let mut raw = sys::NO_ALCHEMY_TASK;
    check(
        "rt_task_create",
        call::task_create(&mut raw, name.as_deref(), priority.into(), sys::T_JOINABLE),
    )?;
    let pinned = cpu.map_or(Ok(()), |cpu| {
        check(
            "rt_task_set_affinity",
            call::set_affinity(Some(&mut raw), cpu),
        )
    });
    if let Err(e) = pinned {
        call::task_delete(&mut raw);
        return Err(e);
    }
    let result = Arc::new(Mutex::new(None));
    let slot = Arc::clone(&result);
    let body = move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let task = match call::task_self() {
                Some(raw) => Task::from_raw(raw),
                None => unreachable!("an Alchemy task's entry runs in the task"),
            };
            f(&task)
        }));
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
    };
    if let Err(e) = check("rt_task_start", call::task_start_boxed(&mut raw, body)) {
        call::task_delete(&mut raw);
        return Err(e);
    }
    Ok(JoinHandle { raw, result })
}

impl<T> JoinHandle<T> {
    /// Waits for the task to end: its result, or the panic it ended with.
    pub fn join(mut self) -> Result<std::thread::Result<T>, Error> {
        check("rt_task_join", call::task_join(&mut self.raw))?;
        let outcome = self.result.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(outcome.unwrap_or_else(|| Err(Box::new("the task ended without a result"))))
    }
}
