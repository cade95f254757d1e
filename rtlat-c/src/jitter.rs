//! The jitter monitor for C: `rtlat_jitter_init`, `rtlat_jitter_tick`,
//! `rtlat_jitter_tick_at`, `rtlat_jitter_get_report`, `rtlat_jitter_report_and_reset`,
//! `rtlat_jitter_reset` (declared in `include/rtlat.h`).
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
const INITIALISED: u64 = u64::from_le_bytes(*b"rtlatJM1");

/// What the caller's memory holds after the mark: the monitor, counting the caller's
/// clock ticks (converted to ns only in results and reports).
type State = JitterMonitor;

/// Bytes left over after the mark and the state (where the state starts, `repr(C)`).
const RESERVED: usize = JITTER_MONITOR_SIZE
    - size_of::<u64>().next_multiple_of(align_of::<State>())
    - size_of::<State>();

/// `rtlat_jitter_monitor`: one jitter monitor, in the caller's memory. C sees only its size
/// and alignment.
#[repr(C, align(16))]
pub struct RtlatJitterMonitor {
    /// [`INITIALISED`] once `rtlat_jitter_init` has run (first: `ptr::Marked`).
    initialised: u64,
    state: State,
    _reserved: [u8; RESERVED],
}

// The header's size and alignment hold, whatever the monitor inside becomes (a monitor
// larger than the reserve fails to compile here instead of overrunning C memory).
const _: () = assert!(size_of::<RtlatJitterMonitor>() == JITTER_MONITOR_SIZE);
const _: () = assert!(align_of::<RtlatJitterMonitor>() == JITTER_MONITOR_ALIGN);

impl ptr::Marked for RtlatJitterMonitor {
    const MARK: u64 = INITIALISED;
}

impl RtlatJitterMonitor {
    const fn from_state(state: State) -> Self {
        RtlatJitterMonitor {
            initialised: INITIALISED,
            state,
            _reserved: [0; RESERVED],
        }
    }

    fn tick(&mut self, now_ticks: u64) -> RtlatJitterTickResult {
        let tick = self.state.tick(now_ticks);
        RtlatJitterTickResult::new(tick, self.state.scale())
    }

    fn tick_at(&mut self, now_ticks: u64, deadline_ticks: u64) -> RtlatJitterTickResult {
        let tick = self.state.tick_at(now_ticks, deadline_ticks);
        RtlatJitterTickResult::new(tick, self.state.scale())
    }

    fn report(&self) -> RtlatJitterReport {
        self.state.report().into()
    }

    fn report_and_reset(&mut self) -> RtlatJitterReport {
        self.state.report_and_reset().into()
    }

    fn reset(&mut self) {
        self.state.reset();
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
    /// Deadlines this tick found already passed that no earlier tick was charged for.
    pub overruns: u64,
    /// 0 on the first tick after init or reset (no interval yet), else 1.
    pub has_interval: u32,
    /// 1 when the tick had a deadline to be late against, else 0.
    pub has_lateness: u32,
}

impl RtlatJitterTickResult {
    /// `tick` (in clock ticks) in ns.
    pub(crate) fn new(tick: Tick, scale: TickScale) -> Self {
        RtlatJitterTickResult {
            interval_ns: tick.interval.map_or(0, |t| scale.to_ns(t)),
            jitter_ns: tick.jitter.map_or(0, |t| scale.to_ns_signed(t)),
            lateness_ns: tick.lateness.map_or(0, |t| scale.to_ns_signed(t)),
            overruns: tick.overruns,
            has_interval: tick.interval.is_some().into(),
            has_lateness: tick.lateness.is_some().into(),
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
    /// Deadlines already passed when a tick came.
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
            last_lateness_ns: report.last_lateness_ns.unwrap_or(0),
            overruns: report.overruns,
            has_intervals: report.min_interval_ns.is_some().into(),
            has_lateness: (lateness.count() > 0).into(),
        }
    }
}

/// The status C sees for a result.
pub(crate) fn status(result: Result<(), i32>) -> i32 {
    match result {
        Ok(()) => OK,
        Err(code) => code,
    }
}

/// `int rtlat_jitter_init(rtlat_jitter_monitor *monitor, uint64_t period_ticks,
/// uint64_t tick_rate_hz)`: makes `monitor` a fresh monitor for activity with period
/// `period_ticks` of a clock counting `tick_rate_hz` ticks per second (1000000000 for a
/// nanosecond clock). `RTLAT_ERR_ZERO` if either is zero.
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
    let (Some(period), Some(rate)) = (NonZeroU64::new(period_ticks), NonZeroU64::new(tick_rate_hz))
    else {
        return ERR_ZERO;
    };
    let state = JitterMonitor::with_scale(period, TickScale::from_hz(rate));
    // SAFETY: the caller's promise is write_new's.
    status(unsafe { ptr::write_new(monitor, RtlatJitterMonitor::from_state(state)) })
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

/// `int rtlat_jitter_tick_at(rtlat_jitter_monitor *monitor, uint64_t now_ticks,
/// uint64_t deadline_ticks, rtlat_jitter_tick_result *result)`: records a tick at
/// `now_ticks` that was due at `deadline_ticks` (the caller's own schedule): the lateness
/// is `now − deadline` whatever the loop does after a stall (catch up or skip).
/// `result` may be NULL.
///
/// # Safety
/// As [`rtlat_jitter_tick`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_jitter_tick_at(
    monitor: *mut RtlatJitterMonitor,
    now_ticks: u64,
    deadline_ticks: u64,
    result: *mut RtlatJitterTickResult,
) -> i32 {
    // SAFETY: the caller's promise is monitor_mut's, then write_out's.
    status(unsafe { ptr::monitor_mut(monitor) }.and_then(|monitor| {
        let tick = monitor.tick_at(now_ticks, deadline_ticks);
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

/// `int rtlat_jitter_report_and_reset(rtlat_jitter_monitor *monitor, rtlat_jitter_report
/// *report)`: the report of the window that ends here, and a new window; the schedule goes
/// on, so the next tick's interval and lateness count in the next window (per-window lines).
///
/// # Safety
/// As [`rtlat_jitter_tick`]'s `monitor`; `report` is NULL or points to a writable
/// `rtlat_jitter_report`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_jitter_report_and_reset(
    monitor: *mut RtlatJitterMonitor,
    report: *mut RtlatJitterReport,
) -> i32 {
    if report.is_null() {
        return ERR_NULL;
    }
    // SAFETY: the caller's promise is monitor_mut's, then write_out's.
    status(unsafe { ptr::monitor_mut(monitor) }.and_then(|monitor| {
        let window = monitor.report_and_reset();
        unsafe { ptr::write_out(report, window) }
    }))
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
