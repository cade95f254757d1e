//! Xenomai's error codes through the safe layer, with their meaning in the message; tasks'
//! priority, CPU and results.

use std::sync::mpsc;

use rtlat_xenomai_ffi::{Task, spawn};

/// A second task of a name in use: `EEXIST`, for a shadowed thread and a created task alike.
pub fn duplicate_name_is_eexist() {
    let (ready_tx, ready_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let task = Task::shadow("rtlat-dup", 0, None);
        ready_tx.send(task.is_ok()).unwrap();
        let _ = done_rx.recv();
        drop(task);
    });
    assert!(ready_rx.recv().unwrap(), "the first task of the name");
    let second = std::thread::spawn(|| Task::shadow("rtlat-dup", 0, None).map(|_| ()))
        .join()
        .unwrap();
    let created = spawn("rtlat-dup", 0, None, |_| ()).map(|_| ());
    done_tx.send(()).unwrap();
    holder.join().unwrap();
    for outcome in [second, created] {
        let e = outcome.expect_err("a duplicate name");
        assert_eq!(e.errno(), Some(libc::EEXIST), "{e}");
        assert!(e.to_string().contains("already exists"), "{e}");
    }
    assert_eq!(
        Task::shadow(&"x".repeat(32), 0, None).unwrap_err(),
        rtlat_xenomai_ffi::Error::InvalidName
    );
}

/// A plain thread asking for its task: Xenomai's `EPERM`, "not a Xenomai task".
pub fn plain_thread_is_eperm() {
    let e = std::thread::spawn(|| Task::current().map(|_| ()))
        .join()
        .unwrap()
        .expect_err("a plain thread is no task");
    assert_eq!(e.errno(), Some(libc::EPERM), "{e}");
    assert!(e.to_string().contains("not a Xenomai task"), "{e}");
}

/// A task created at a priority on a CPU reports them, and so does a shadowed thread.
pub fn spawned_task_has_its_priority_and_cpu() {
    let cpu = std::thread::available_parallelism().map_or(1, |n| n.get()) - 1;
    let info = spawn("rtlat-info", 42, Some(cpu), |task| task.info())
        .unwrap()
        .join()
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(info.name, "rtlat-info");
    assert_eq!(info.priority, 42);
    assert_eq!(info.cpu as usize, cpu);
    let info = std::thread::spawn(move || {
        let task = Task::shadow("rtlat-shadow", 7, Some(0))?;
        task.set_priority(9)?;
        let info = task.info()?;
        Task::current()?;
        Ok::<_, rtlat_xenomai_ffi::Error>(info)
    })
    .join()
    .unwrap()
    .unwrap();
    assert_eq!(
        (info.name.as_str(), info.priority, info.cpu),
        ("rtlat-shadow", 9, 0)
    );
    assert!(info.tid > 0);
}

/// A task that panics is joined, and the panic comes back as its result.
pub fn a_panicking_task_is_joined() {
    // The panic is expected: keep its message off the test output.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = spawn("rtlat-panic", 0, None, |_| -> u32 { panic!("on purpose") })
        .unwrap()
        .join();
    std::panic::set_hook(hook);
    let panic = outcome.unwrap().expect_err("the task panicked");
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"on purpose"));
    let value = spawn("rtlat-value", 0, None, |_| 7u32)
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(value.unwrap(), 7);
}

/// A spawn that fails after creating its task (a CPU the machine does not have) reports
/// Xenomai's `EINVAL` and deletes the task, so its name can be used again.
pub fn failed_spawn_frees_its_name() {
    let e = spawn("rtlat-badcpu", 0, Some(1000), |_| 0u32)
        .map(|_| ())
        .expect_err("CPU 1000");
    assert_eq!(e.errno(), Some(libc::EINVAL), "{e}");
    let again = spawn("rtlat-badcpu", 0, None, |_| 1u32).expect("the name is free again");
    assert_eq!(again.join().unwrap().unwrap(), 1);
}
