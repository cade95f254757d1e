//! The jitter monitor for C: `rtlat_jitter_init`, `rtlat_jitter_tick`,
//! `rtlat_jitter_get_report`, `rtlat_jitter_reset` (declared in `include/rtlat.h`).
//!
//! The monitor lives in memory the caller owns (a C static, a HAL component's instance,
//! a stack frame): [`RtlatJitterMonitor`] has the fixed size and alignment the header
//! declares, with room reserved so the monitor inside can grow without changing them.
//! Times go in as ticks of the caller's clock at the rate given to `rtlat_jitter_init`;
//! figures come out in nanoseconds.

use crate::ptr;
use crate::{ERR_NULL, ERR_ZERO, OK};
use core::mem::{align_of, size_of};
use core::num::NonZeroU64;
use rtlat_core::TickScale;
use rtlat_core::jitter::{JitterMonitor, JitterReport, Tick};

/// `RTLAT_JITTER_MONITOR_SIZE`: bytes of a `rtlat_jitter_monitor`.
pub const JITTER_MONITOR_SIZE: usize = 256;
/// `RTLAT_JITTER_MONITOR_ALIGN`: the alignment of a `rtlat_jitter_monitor`.
pub const JITTER_MONITOR_ALIGN: usize = 16;

/// Marks memory `rtlat_jitter_init` has written ("rtlatJM1"); zeroed or stale memory is
/// refused with `RTLAT_ERR_UNINIT` instead of being read as a monitor.
pub(crate) const INITIALISED: u64 = u64::from_le_bytes(*b"rtlatJM1");

/// What the caller's memory holds after the mark.
#[derive(Clone, Copy)]
pub(crate) struct State {
    /// The caller's tick rate.
    scale: TickScale,
    monitor: JitterMonitor,
    /// The latest tick's lateness, ns.
    last_lateness_ns: i64,
}

const fn round_up(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}

/// Bytes left over after the mark and the state (where the state starts, `repr(C)`).
const RESERVED: usize =
    JITTER_MONITOR_SIZE - round_up(size_of::<u64>(), align_of::<State>()) - size_of::<State>();

/// `rtlat_jitter_monitor`: one jitter monitor, in the caller's memory. C sees only its size
/// and alignment.
#[repr(C, align(16))]
pub struct RtlatJitterMonitor {
    /// [`INITIALISED`] once `rtlat_jitter_init` has run.
    pub(crate) initialised: u64,
    state: State,
    _reserved: [u8; RESERVED],
}

// The header's size and alignment hold, whatever the monitor inside becomes (a monitor
// larger than the reserve fails to compile here instead of overrunning C memory).
const _: () = assert!(size_of::<RtlatJitterMonitor>() == JITTER_MONITOR_SIZE);
const _: () = assert!(align_of::<RtlatJitterMonitor>() == JITTER_MONITOR_ALIGN);

impl RtlatJitterMonitor {
    pub(crate) const fn from_state(state: State) -> Self {
        RtlatJitterMonitor {
            initialised: INITIALISED,
            state,
            _reserved: [0; RESERVED],
        }
    }

    fn tick(&mut self, now_ticks: u64) -> RtlatJitterTickResult {
        let state = &mut self.state;
        let tick = state.monitor.tick(state.scale.to_ns(now_ticks));
        state.last_lateness_ns = tick.lateness_ns;
        tick.into()
    }

    fn report(&self) -> RtlatJitterReport {
        let mut report = RtlatJitterReport::from(self.state.monitor.report());
        if report.lateness_count > 0 {
            report.last_lateness_ns = self.state.last_lateness_ns;
        }
        report
    }

    fn reset(&mut self) {
        self.state.monitor.reset();
        self.state.last_lateness_ns = 0;
    }
}

/// `rtlat_jitter_tick_result`: what one tick measured.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtlatJitterTickResult {
    /// Time since the previous tick, ns (0 without `has_interval`).
    pub interval_ns: u64,
    /// Interval minus period, ns (0 without `has_interval`).
    pub jitter_ns: i64,
    /// This tick minus its deadline, ns (0 without `has_lateness`).
    pub lateness_ns: i64,
    /// Periods missed entirely before this tick.
    pub overruns: u64,
    /// 0 on the first tick after init or reset (no interval yet), else 1.
    pub has_interval: u32,
    /// 1 when the tick had a deadline to be late against, else 0.
    pub has_lateness: u32,
}

impl From<Tick> for RtlatJitterTickResult {
    fn from(tick: Tick) -> Self {
        RtlatJitterTickResult {
            interval_ns: tick.interval_ns.unwrap_or(0),
            jitter_ns: tick.jitter_ns.unwrap_or(0),
            lateness_ns: tick.lateness_ns,
            overruns: tick.overruns,
            has_interval: tick.interval_ns.is_some().into(),
            has_lateness: 1,
        }
    }
}

/// `rtlat_jitter_report`: everything the monitor saw, in ns. Fields that need an interval
/// (or a lateness) are 0 while `has_intervals` (or `has_lateness`) is 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtlatJitterReport {
    /// The nominal period, ns.
    pub period_ns: u64,
    /// Ticks seen.
    pub ticks: u64,
    /// Shortest interval between ticks, ns.
    pub min_interval_ns: u64,
    /// Longest interval between ticks, ns.
    pub max_interval_ns: u64,
    /// `max(max_interval − period, period − min_interval)`, ns: LinuxCNC's "max jitter".
    pub max_jitter_ns: u64,
    /// Latenesses recorded.
    pub lateness_count: u64,
    /// Smallest (most negative: earliest) lateness, ns.
    pub lateness_min_ns: i64,
    /// Largest lateness, ns.
    pub lateness_max_ns: i64,
    /// Mean lateness, ns, truncated toward zero.
    pub lateness_mean_ns: i64,
    /// The latest tick's lateness, ns.
    pub last_lateness_ns: i64,
    /// Periods missed entirely.
    pub overruns: u64,
    /// 1 once an interval was measured (the interval fields mean something), else 0.
    pub has_intervals: u32,
    /// 1 once a lateness was measured (`lateness_count > 0`), else 0.
    pub has_lateness: u32,
}

impl From<JitterReport> for RtlatJitterReport {
    fn from(report: JitterReport) -> Self {
        let lateness = report.lateness;
        RtlatJitterReport {
            period_ns: report.period_ns,
            ticks: report.ticks,
            min_interval_ns: report.min_interval_ns.unwrap_or(0),
            max_interval_ns: report.max_interval_ns.unwrap_or(0),
            max_jitter_ns: report.max_jitter_ns.unwrap_or(0),
            lateness_count: lateness.count(),
            lateness_min_ns: lateness.min().unwrap_or(0),
            lateness_max_ns: lateness.max().unwrap_or(0),
            lateness_mean_ns: lateness.mean_truncated().unwrap_or(0),
            last_lateness_ns: 0,
            overruns: report.overruns,
            has_intervals: report.min_interval_ns.is_some().into(),
            has_lateness: (lateness.count() > 0).into(),
        }
    }
}

/// The status C sees for a result.
fn status(result: Result<(), i32>) -> i32 {
    match result {
        Ok(()) => OK,
        Err(code) => code,
    }
}

/// `int rtlat_jitter_init(rtlat_jitter_monitor *monitor, uint64_t period_ticks,
/// uint64_t tick_rate_hz)`: makes `monitor` a fresh monitor for activity with period
/// `period_ticks` of a clock counting `tick_rate_hz` ticks per second (1000000000 for a
/// nanosecond clock). `RTLAT_ERR_ZERO` if either is zero (or the period is under 1 ns).
///
/// # Safety
/// `monitor` is NULL or points to `RTLAT_JITTER_MONITOR_SIZE` writable bytes that no other
/// thread uses during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_jitter_init(
    monitor: *mut RtlatJitterMonitor,
    period_ticks: u64,
    tick_rate_hz: u64,
) -> i32 {
    let Ok(scale) = TickScale::new(tick_rate_hz) else {
        return ERR_ZERO;
    };
    let Some(period) = NonZeroU64::new(scale.to_ns(period_ticks)) else {
        return ERR_ZERO;
    };
    let state = State {
        scale,
        monitor: JitterMonitor::new(period),
        last_lateness_ns: 0,
    };
    // SAFETY: the caller's promise is write_monitor's.
    status(unsafe { ptr::write_monitor(monitor, state) })
}

/// `int rtlat_jitter_tick(rtlat_jitter_monitor *monitor, uint64_t now_ticks,
/// rtlat_jitter_tick_result *result)`: records a tick at `now_ticks` (the time at the top of
/// the period); the first tick after init or reset fixes the schedule. `result` may be NULL.
///
/// # Safety
/// `monitor` is NULL, or zeroed memory, or was given to `rtlat_jitter_init`, and no other
/// thread uses it during the call; `result` is NULL or points to a writable
/// `rtlat_jitter_tick_result`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_jitter_tick(
    monitor: *mut RtlatJitterMonitor,
    now_ticks: u64,
    result: *mut RtlatJitterTickResult,
) -> i32 {
    // SAFETY: the caller's promise is monitor_mut's, then write_out's.
    status(unsafe { ptr::monitor_mut(monitor) }.and_then(|monitor| {
        let tick = monitor.tick(now_ticks);
        unsafe { ptr::write_out(result, tick) }
    }))
}

/// `int rtlat_jitter_get_report(const rtlat_jitter_monitor *monitor, rtlat_jitter_report
/// *report)`: everything measured since init or reset.
///
/// # Safety
/// `monitor` is NULL, or zeroed memory, or was given to `rtlat_jitter_init`, and no thread
/// changes it during the call; `report` is NULL or points to a writable
/// `rtlat_jitter_report`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_jitter_get_report(
    monitor: *const RtlatJitterMonitor,
    report: *mut RtlatJitterReport,
) -> i32 {
    if report.is_null() {
        return ERR_NULL;
    }
    // SAFETY: the caller's promise is monitor_ref's, then write_out's.
    status(
        unsafe { ptr::monitor_ref(monitor) }
            .and_then(|monitor| unsafe { ptr::write_out(report, monitor.report()) }),
    )
}

/// `int rtlat_jitter_reset(rtlat_jitter_monitor *monitor)`: forgets everything measured;
/// the next tick fixes a new schedule. Period and tick rate stay.
///
/// # Safety
/// As [`rtlat_jitter_tick`]'s `monitor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_jitter_reset(monitor: *mut RtlatJitterMonitor) -> i32 {
    // SAFETY: the caller's promise is monitor_mut's.
    status(unsafe { ptr::monitor_mut(monitor) }.map(RtlatJitterMonitor::reset))
}
