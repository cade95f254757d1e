//! POSIX clocks as an [`rtlat_core::Clock`]: [`ClockId`] names the clock, [`PosixClock`] reads
//! it in nanosecond ticks with one `clock_gettime` (a vDSO call, no system call on x86-64 and
//! arm64).

use core::fmt;
use core::str::FromStr;

use libc::{clockid_t, timespec};

use crate::errno::{Errno, OsError};
use crate::sys;

/// Nanoseconds per second: the tick rate of every clock and timer of this crate.
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// Which POSIX clock to read and to sleep on (cyclictest's `-c`: 0 monotonic, 1 realtime).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ClockId {
    // The discriminants are the libc ids, so `raw` is a plain widening (it runs twice a
    // cycle).
    /// `CLOCK_MONOTONIC`: never jumps; what cyclictest uses by default.
    #[default]
    Monotonic = libc::CLOCK_MONOTONIC as isize,
    /// `CLOCK_REALTIME`: wall-clock time; jumps when the time is set.
    Realtime = libc::CLOCK_REALTIME as isize,
}

impl ClockId {
    /// The libc clock id.
    #[inline(always)]
    pub const fn raw(self) -> clockid_t {
        self as clockid_t
    }

    /// The clock as nix names it (the calls other than the absolute sleep go through nix).
    #[inline(always)]
    pub(crate) const fn nix(self) -> nix::time::ClockId {
        nix::time::ClockId::from_raw(self.raw())
    }

    /// The clock as rustix names it (the absolute sleep of every cycle goes through rustix).
    #[inline(always)]
    pub(crate) const fn rustix(self) -> rustix::time::ClockId {
        match self {
            ClockId::Monotonic => rustix::time::ClockId::Monotonic,
            ClockId::Realtime => rustix::time::ClockId::Realtime,
        }
    }

    /// The clock's name as in C: `CLOCK_MONOTONIC`, `CLOCK_REALTIME`.
    pub const fn c_name(self) -> &'static str {
        match self {
            ClockId::Monotonic => "CLOCK_MONOTONIC",
            ClockId::Realtime => "CLOCK_REALTIME",
        }
    }

    /// The clock's resolution in nanoseconds (`clock_getres`): 1 with high-resolution timers,
    /// a jiffy (1–10 ms) without them.
    pub fn resolution_ns(self) -> Result<u64, ClockError> {
        sys::clock_getres(self.nix())
            .map(ns_from_timespec)
            .map_err(|errno| ClockError { clock: self, errno })
    }
}

impl fmt::Display for ClockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.c_name())
    }
}

impl FromStr for ClockId {
    type Err = UnknownClock;

    /// `monotonic` or `0`, `realtime` or `1` (case-insensitive; a `CLOCK_` prefix is allowed).
    fn from_str(s: &str) -> Result<Self, UnknownClock> {
        let lower = s.trim().to_ascii_lowercase();
        match lower.strip_prefix("clock_").unwrap_or(&lower) {
            "monotonic" | "0" => Ok(ClockId::Monotonic),
            "realtime" | "1" => Ok(ClockId::Realtime),
            _ => Err(UnknownClock(s.to_owned())),
        }
    }
}

/// Reading a clock failed (only for a clock the kernel does not support): the clock's error
/// on the hot path, 8 bytes and `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("clock_gettime({clock}) failed: {errno}; this kernel does not support that clock")]
pub struct ClockError {
    /// The clock.
    pub clock: ClockId,
    /// The OS error.
    pub errno: Errno,
}

/// A clock name that is not one of [`ClockId`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown clock `{0}`: use monotonic or realtime")]
pub struct UnknownClock(pub String);

/// A POSIX clock in nanosecond ticks (rate 10⁹ Hz): `tv_sec · 10⁹ + tv_nsec`.
///
/// [`now`](rtlat_core::Clock::now) is exactly one `clock_gettime` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PosixClock {
    id: ClockId,
}

impl PosixClock {
    /// The clock `id`.
    pub const fn new(id: ClockId) -> Self {
        PosixClock { id }
    }

    /// `CLOCK_MONOTONIC`.
    pub const fn monotonic() -> Self {
        PosixClock::new(ClockId::Monotonic)
    }

    /// `CLOCK_REALTIME`.
    pub const fn realtime() -> Self {
        PosixClock::new(ClockId::Realtime)
    }

    /// Which clock this is.
    pub const fn id(&self) -> ClockId {
        self.id
    }

    /// The current time in nanoseconds (same as [`Clock::now`](rtlat_core::Clock::now), without
    /// needing `&mut`).
    #[inline]
    pub fn now_ns(&self) -> Result<u64, ClockError> {
        match sys::clock_gettime(self.id.nix()) {
            Ok(ts) => Ok(ns_from_timespec(ts)),
            Err(errno) => Err(ClockError {
                clock: self.id,
                errno,
            }),
        }
    }
}

impl rtlat_core::Clock for PosixClock {
    type Error = ClockError;

    #[inline]
    fn now(&mut self) -> Result<u64, ClockError> {
        self.now_ns()
    }

    #[inline]
    fn rate_hz(&self) -> u64 {
        NANOS_PER_SEC
    }
}

/// `tv_sec · 10⁹ + tv_nsec`, saturating (a negative time, impossible for these clocks, is 0).
#[inline]
pub(crate) fn ns_from_timespec(ts: timespec) -> u64 {
    // Runs every cycle, so no checked arithmetic: a negative second count (a wall clock set
    // before 1970) reads as 0, and 2^64 ns is the year 2554.
    (ts.tv_sec.max(0) as u64)
        .wrapping_mul(NANOS_PER_SEC)
        .wrapping_add(ts.tv_nsec as u64)
}

/// Nanoseconds as a `timespec`. The division is by a constant, which the compiler turns into a
/// multiply and a shift. Saturates where `time_t` is 32 bits.
#[inline]
pub(crate) fn timespec_from_ns(ns: u64) -> timespec {
    let sec = sys::TimeT::try_from(ns / NANOS_PER_SEC).unwrap_or(sys::TimeT::MAX);
    // Below 10⁹, so it fits any `c_long`.
    let nsec = (ns % NANOS_PER_SEC) as libc::c_long;
    sys::timespec(sec, nsec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_core::Clock;

    #[test]
    fn timespec_conversion_round_trips() {
        for ns in [
            0,
            1,
            999_999_999,
            1_000_000_000,
            1_234_567_890_123,
            u64::MAX / 2,
        ] {
            assert_eq!(ns_from_timespec(timespec_from_ns(ns)), ns);
        }
        let ts = timespec_from_ns(3_000_000_007);
        assert_eq!((ts.tv_sec, ts.tv_nsec), (3, 7));
        assert_eq!(ns_from_timespec(sys::timespec(-1, 5)), 5);
    }

    #[test]
    fn monotonic_clock_never_goes_back_and_counts_nanoseconds() {
        let mut clock = PosixClock::monotonic();
        assert_eq!(clock.rate_hz(), NANOS_PER_SEC);
        let mut last = clock.now().unwrap();
        for _ in 0..10_000 {
            let now = clock.now().unwrap();
            assert!(now >= last, "CLOCK_MONOTONIC went back: {now} < {last}");
            last = now;
        }
        // Compare against std's own monotonic clock over a sleep, each clock's pair of reads
        // inside the other's in turn: the outer span can only be the longer one, however long
        // the thread is preempted between reads (no tolerance to beat on a loaded machine). A
        // clock that counted anything but nanoseconds would be 1000 times off one way.
        let sleep = std::time::Duration::from_millis(20);
        let start = clock.now().unwrap();
        let std_start = std::time::Instant::now();
        std::thread::sleep(sleep);
        let theirs = std_start.elapsed().as_nanos() as u64;
        let ours = clock.now().unwrap() - start;
        assert!(ours >= theirs, "ours {ours} ns around std's {theirs} ns");
        assert!(ours >= 20_000_000, "slept 20 ms, clock advanced {ours} ns");
        let std_start = std::time::Instant::now();
        let start = clock.now().unwrap();
        std::thread::sleep(sleep);
        let ours = clock.now().unwrap() - start;
        let theirs = std_start.elapsed().as_nanos() as u64;
        assert!(theirs >= ours, "std's {theirs} ns around ours {ours} ns");
        assert!(ours >= 20_000_000, "slept 20 ms, clock advanced {ours} ns");
    }

    #[test]
    fn realtime_clock_matches_system_time() {
        let ours = PosixClock::realtime().now_ns().unwrap();
        let std_now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        assert!(
            ours.abs_diff(std_now) < 1_000_000_000,
            "{ours} vs {std_now}"
        );
    }

    #[test]
    fn resolution_is_reported() {
        let res = ClockId::Monotonic.resolution_ns().unwrap();
        println!("CLOCK_MONOTONIC resolution: {res} ns");
        assert!((1..=10_000_000).contains(&res), "{res}");
    }

    #[test]
    fn clock_names_parse() {
        assert_eq!("monotonic".parse::<ClockId>().unwrap(), ClockId::Monotonic);
        assert_eq!(
            "CLOCK_REALTIME".parse::<ClockId>().unwrap(),
            ClockId::Realtime
        );
        assert_eq!("1".parse::<ClockId>().unwrap(), ClockId::Realtime);
        assert!(matches!("boottime".parse::<ClockId>(), Err(UnknownClock(s)) if s == "boottime"));
        assert_eq!(ClockId::Monotonic.to_string(), "CLOCK_MONOTONIC");
    }
}

/// The local time zone's offset from UTC in seconds (east positive) at `unix_secs`, as
/// `localtime_r` sees it (the `TZ` variable, else /etc/localtime). For report time stamps.
pub fn utc_offset_seconds(unix_secs: i64) -> Result<i64, OsError> {
    crate::sys::utc_offset(unix_secs as crate::sys::TimeT).map_err(|errno| OsError {
        call: "localtime_r",
        errno,
    })
}

#[cfg(test)]
mod utc_offset_tests {
    #[test]
    fn utc_offset_is_within_a_day() {
        let offset = super::utc_offset_seconds(1_795_978_027).unwrap();
        assert!(offset.abs() <= 14 * 3600, "{offset}");
    }
}
