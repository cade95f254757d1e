//! The periodic timer driving rtlat-core's cycle engine on a real Alchemy task (Mercury
//! here). Structure and counts only, never how late: the VM is shared.

use rtlat_core::{Clock, CycleConfig, CycleEngine, Outcome, Summary, Timer};
use rtlat_xenomai_ffi::{AlchemyClock, Error, spawn};

/// Runs `f` on a fresh SCHED_FIFO Alchemy task and returns its result.
fn on_task<T: Send + 'static>(
    name: &str,
    f: impl FnOnce(&rtlat_xenomai_ffi::Task) -> Result<T, Error> + Send + 'static,
) -> T {
    let handle = spawn(name, 80, None, f).expect("spawn");
    match handle.join().expect("join") {
        Ok(Ok(value)) => value,
        Ok(Err(e)) => panic!("{name}: {e}"),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// 50 periods of 1 ms: 50 samples, each wake-up at or after its deadline (Mercury's timer
/// is a POSIX timer on the clock the Alchemy clock reads, which never fires early).
pub fn wakes_at_or_after_each_deadline() {
    let (samples, negative, cycles, reported) = on_task("rtlat-periodic", |task| {
        let clock = AlchemyClock::new()?;
        assert_eq!(
            clock.rate_hz(),
            1_000_000_000,
            "the Alchemy clock ticks in ns"
        );
        let timer = task.periodic_timer(1_000_000)?;
        let mut config = CycleConfig::new(1_000_000);
        config.loops = Some(50);
        let mut engine = CycleEngine::new(clock, timer, config).unwrap();
        let mut summary = Summary::new();
        let (mut samples, mut negative) = (0u64, 0u64);
        loop {
            match engine.step(&mut summary) {
                Ok(Outcome::Sample(s)) => {
                    samples += 1;
                    negative += u64::from(s.latency_ns < 0);
                }
                Ok(Outcome::Done) => break,
                Ok(Outcome::Break(_)) => unreachable!("no break threshold"),
                Err(rtlat_core::Error::Timer(e)) => return Err(e),
                Err(e) => panic!("{e:?}"),
            }
        }
        let reported = engine.timer_mut().overruns_total();
        Ok((samples, negative, engine.cycles(), reported))
    });
    assert_eq!(samples, 50);
    assert_eq!(cycles, 50);
    assert_eq!(negative, 0, "a wake-up before its deadline");
    // Xenomai's reported overruns stay readable; none are asserted here (a loaded VM may
    // miss a 1 ms release), only that the count is a count.
    assert!(reported <= 50_000);
}

/// A 10 µs period with 50 µs of work per cycle: every wait finds releases missed, Xenomai
/// says `-ETIMEDOUT` with the count, the timer adds it up, and `take_overruns` hands it
/// over once.
pub fn overruns_are_reported_and_counted() {
    let (taken, again, total, engine_overruns) = on_task("rtlat-overrun", |task| {
        let mut clock = AlchemyClock::new()?;
        let timer = task.periodic_timer(10_000)?;
        let mut config = CycleConfig::new(10_000);
        config.loops = Some(20);
        let mut engine = CycleEngine::new(clock, timer, config).unwrap();
        let mut summary = Summary::new();
        while let Outcome::Sample(_) = engine.step(&mut summary).map_err(timer_error)? {
            let busy_until = clock.ticks() + 50_000;
            while clock.now().unwrap() < busy_until {}
        }
        let timer = engine.timer_mut();
        let total = timer.overruns_total();
        let taken = timer.take_overruns();
        let again = timer.take_overruns();
        Ok((taken, again, total, engine.overruns()))
    });
    assert!(
        taken >= 19,
        "each of the 19 waits after busy work misses releases: {taken}"
    );
    assert_eq!(again, 0, "take_overruns resets the count");
    assert_eq!(total, taken);
    assert!(
        engine_overruns >= 19,
        "the engine counts skipped deadlines too: {engine_overruns}"
    );
}

/// The timer against deadlines that skip grid points, and one already released: it returns
/// at or after each deadline and never earlier.
pub fn skipped_deadlines_keep_the_grid() {
    let late = on_task("rtlat-grid", |task| {
        let clock = AlchemyClock::new()?;
        let period = 200_000;
        let mut timer = task.periodic_timer(period)?;
        let start = clock.ticks() + 2 * period;
        let mut early = 0u32;
        for k in [0u64, 1, 4, 5, 5, 9] {
            let deadline = start + k * period;
            timer.sleep_until(deadline)?;
            early += u32::from(clock.ticks() < deadline);
        }
        Ok(early)
    });
    assert_eq!(late, 0, "a return before its deadline");
}

fn timer_error(e: rtlat_core::Error<core::convert::Infallible, Error>) -> Error {
    match e {
        rtlat_core::Error::Timer(e) => e,
        other => panic!("{other:?}"),
    }
}
