//! [`PosixTimer`] (cyclictest `-x`): a periodic `timer_create` timer whose expiries arrive as a
//! blocked real-time signal aimed at the measuring thread, taken with `sigwaitinfo`.

use core::marker::PhantomData;
use core::sync::atomic::{AtomicUsize, Ordering};

use libc::{c_int, sigset_t};
use rtlat_core::Timer;

use super::error::{SleepError, TimerCall, TimerError};
use crate::clock::{ClockId, timespec_from_ns};
use crate::errno::Errno;
use crate::sys::{self, PosixTimerHandle};

/// The signal a [`PosixTimer`] uses unless told otherwise: `SIGRTMIN + 0`, the first real-time
/// signal left to applications (34 with glibc, which keeps 32 and 33 for itself).
///
/// A real-time signal, unlike `SIGALRM`, has no other user in a normal program and no default
/// meaning for the shell. Timer expiries never queue up in it: while one is pending, further
/// expiries only raise its overrun count, which the timer reads.
pub fn default_timer_signal() -> i32 {
    sys::sigrtmin()
}

/// Tags each timer's signal value, so that a wait can tell its own expiries from another
/// sender's signal of the same number.
static NEXT_TOKEN: AtomicUsize = AtomicUsize::new(1);

/// A POSIX timer (`timer_create` with `SIGEV_THREAD_ID`) armed once, periodic, with
/// `TIMER_ABSTIME`; each [`sleep_until`](Timer::sleep_until) waits for the next expiry with
/// `sigwaitinfo` on the timer's signal, which is blocked on the measuring thread.
///
/// **Create it on the measuring thread**: the signal is aimed at the thread that calls
/// [`new`](Self::new) and blocked there; the type is neither `Send` nor `Sync`, so it cannot
/// leave that thread.
///
/// When a deadline is not the expiry the timer expects next (the first sleep, or after the
/// schedule skipped deadlines the timer already passed), the timer is re-armed: disarmed,
/// drained of any stale expiry, armed at the new deadline. Only that path makes more than
/// one system call.
///
/// Signals with handlers (e.g. `SIGUSR1`) interrupt the wait with `EINTR`; it waits again
/// (or returns [`SleepError::Cancelled`] once the measurement was cancelled).
/// A signal of the timer's number that is not one of its expiries (sent with `kill`, or from
/// another timer) is taken and ignored.
///
/// On drop the timer is disarmed and deleted and a pending expiry is taken. The signal stays
/// blocked on the thread: unblocked, a stray instance of it would terminate the process (the
/// default action of real-time signals), and another timer on the thread may still use it.
#[derive(Debug)]
pub struct PosixTimer {
    timer: PosixTimerHandle,
    clock: ClockId,
    interval: u64,
    signal: c_int,
    set: sigset_t,
    token: usize,
    /// The expiry the armed timer signals next; `None` before the first arming.
    expected: Option<u64>,
    /// Tied to the thread its signal is aimed at and blocked on.
    _not_send: PhantomData<*const ()>,
}

impl PosixTimer {
    /// A timer on `clock` for deadlines `interval_ns` apart, signalling with
    /// [`default_timer_signal`]. Error for a zero interval or if the kernel refuses the timer.
    pub fn new(clock: ClockId, interval_ns: u64) -> Result<Self, TimerError> {
        Self::with_signal(clock, interval_ns, default_timer_signal())
    }

    /// Like [`new`](Self::new) with the real-time signal `signo` (SIGRTMIN..=SIGRTMAX).
    pub fn with_signal(clock: ClockId, interval_ns: u64, signo: i32) -> Result<Self, TimerError> {
        if interval_ns == 0 {
            return Err(TimerError::ZeroInterval);
        }
        let (min, max) = (sys::sigrtmin(), sys::sigrtmax());
        if !(min..=max).contains(&signo) {
            return Err(TimerError::InvalidSignal { signo, min, max });
        }
        let setup = |call| move |errno| TimerError::TimerSetup { call, errno };
        let set = sys::sigset_of(signo).map_err(setup(TimerCall::Sigaddset))?;
        sys::block_signals(&set).map_err(setup(TimerCall::PthreadSigmask))?;
        let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        let timer = PosixTimerHandle::create(clock.raw(), signo, sys::gettid(), token)
            .map_err(setup(TimerCall::TimerCreate))?;
        Ok(PosixTimer {
            timer,
            clock,
            interval: interval_ns,
            signal: signo,
            set,
            token,
            expected: None,
            _not_send: PhantomData,
        })
    }

    /// The clock the timer runs on.
    pub fn clock(&self) -> ClockId {
        self.clock
    }

    /// The signal carrying the expiries.
    pub fn signal(&self) -> i32 {
        self.signal
    }

    /// The period in nanoseconds.
    pub fn interval_ns(&self) -> u64 {
        self.interval
    }

    /// Disarms the timer, takes any expiry still pending, and arms it periodic from
    /// `deadline` (an absolute time; a value in the past fires at once).
    #[cold]
    fn arm(&mut self, deadline: u64) -> Result<(), SleepError> {
        let setup = |call| move |errno| SleepError::TimerSetup { call, errno };
        let zero = sys::timespec(0, 0);
        if self.expected.is_some() {
            self.timer
                .settime(0, &sys::itimerspec(zero, zero))
                .map_err(setup(TimerCall::TimerSettime))?;
            self.drain().map_err(setup(TimerCall::Sigtimedwait))?;
        }
        // An all-zero value would disarm: the earliest time is 1 ns.
        let value = timespec_from_ns(deadline.max(1));
        let spec = sys::itimerspec(value, timespec_from_ns(self.interval));
        self.timer
            .settime(libc::TIMER_ABSTIME, &spec)
            .map_err(setup(TimerCall::TimerSettime))?;
        self.expected = Some(deadline);
        Ok(())
    }

    /// Takes every pending instance of the signal without waiting.
    fn drain(&self) -> Result<(), Errno> {
        while sys::sigpoll(&self.set)?.is_some() {}
        Ok(())
    }
}

impl Timer for PosixTimer {
    type Error = SleepError;

    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), SleepError> {
        if self.expected != Some(deadline) {
            self.arm(deadline)?;
        }
        loop {
            match sys::sigwaitinfo(&self.set) {
                Ok(taken) if taken.code == libc::SI_TIMER && taken.value == self.token => {
                    // This expiry is `deadline`; `overrun` more passed while it was pending.
                    let periods = 1 + u64::try_from(taken.overrun).unwrap_or(0);
                    self.expected =
                        Some(deadline.saturating_add(periods.saturating_mul(self.interval)));
                    return Ok(());
                }
                Ok(_) => {
                    // Our own number sent by someone else; also how a wake-up arrives if the
                    // timer was given the wake-up signal's number.
                    sys::note_foreign_signal();
                    if crate::signals::measurement_cancelled() {
                        return Err(SleepError::Cancelled);
                    }
                }
                Err(Errno::EINTR) => super::retry::interrupted()?,
                Err(errno) => {
                    return Err(SleepError::TimerWait {
                        call: TimerCall::Sigwaitinfo,
                        errno,
                    });
                }
            }
        }
    }
}

impl Drop for PosixTimer {
    fn drop(&mut self) {
        // Disarm first so that nothing new arrives; the handle's own drop deletes the timer.
        let zero = sys::timespec(0, 0);
        let _ = self.timer.settime(0, &sys::itimerspec(zero, zero));
        let _ = self.drain();
    }
}
