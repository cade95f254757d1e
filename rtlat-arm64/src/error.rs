//! [`Error`]: everything this crate can refuse, with messages that say what to do.

use core::fmt;

/// The architecture of this build, as `std::env::consts::ARCH` names it (kept `no_std`).
pub(crate) const TARGET_ARCH: &str = if cfg!(target_arch = "aarch64") {
    "aarch64"
} else if cfg!(target_arch = "x86_64") {
    "x86_64"
} else if cfg!(target_arch = "x86") {
    "x86"
} else if cfg!(target_arch = "arm") {
    "arm"
} else if cfg!(target_arch = "riscv64") {
    "riscv64"
} else if cfg!(target_arch = "riscv32") {
    "riscv32"
} else if cfg!(target_arch = "powerpc64") {
    "powerpc64"
} else if cfg!(target_arch = "loongarch64") {
    "loongarch64"
} else if cfg!(target_arch = "s390x") {
    "s390x"
} else {
    "this architecture"
};

/// The errors of rtlat-arm64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// `CNTFRQ_EL0` reads 0: the firmware never programmed the generic-timer frequency.
    ZeroFrequency,
    /// The counter does not run at the rate `CNTFRQ_EL0` states, measured against
    /// `CLOCK_MONOTONIC` (more than 0.1 % apart).
    RateMismatch {
        /// The stated rate, Hz.
        stated_hz: u64,
        /// The rate measured against CLOCK_MONOTONIC, Hz.
        measured_hz: u64,
    },
    /// The generic-timer clock was asked for on another architecture.
    NotAarch64 {
        /// The architecture of this build (`x86_64`, …).
        arch: &'static str,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ZeroFrequency => f.write_str(
                "CNTFRQ_EL0 reads 0: the firmware did not program the generic-timer frequency; \
                 give the board's counter rate explicitly (GenericTimer::with_rate) \
                 or fix the boot firmware",
            ),
            Error::RateMismatch {
                stated_hz,
                measured_hz,
            } => write!(
                f,
                "the generic-timer counter runs at {measured_hz} Hz against CLOCK_MONOTONIC, \
                 but CNTFRQ_EL0 says {stated_hz} Hz (more than 0.1 % apart): its latencies would \
                 be wrong; fix the firmware's CNTFRQ_EL0, or measure on CLOCK_MONOTONIC (-c 0)"
            ),
            Error::NotAarch64 { arch } => write!(
                f,
                "the ARM generic timer (CNTVCT_EL0) exists only on aarch64, and this is {arch}; \
                 use the monotonic clock here"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}
