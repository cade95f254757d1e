#![doc = include_str!("../README.md")]
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod deadline_map;
#[cfg(target_arch = "aarch64")]
pub mod delay;
pub mod error;
#[cfg(target_arch = "aarch64")]
pub mod generic_timer;
#[cfg(all(target_arch = "aarch64", target_os = "linux", feature = "linux"))]
pub mod linux_sleep;
pub mod profile;

pub use deadline_map::DeadlineMap;
pub use error::Error;
#[cfg(target_arch = "aarch64")]
pub use generic_timer::{GenericTimer, read_cntfrq, read_cntvct};
#[cfg(all(target_arch = "aarch64", target_os = "linux", feature = "linux"))]
pub use linux_sleep::GenericTimerSleep;
pub use profile::{BoardProfile, CpuFrequency, ReferenceRun, RtPolicy, ThreadLayout};

/// The architecture this crate was compiled for, as Rust names it (`aarch64`, `x86_64`, …):
/// what an "unsupported architecture" message names.
pub const TARGET_ARCH: &str = error::TARGET_ARCH;

/// Whether the generic-timer clock exists in this build: `true` only on `aarch64`.
///
/// Elsewhere `GenericTimer` (module `generic_timer`) is absent, not faked;
/// [`require_generic_timer`] gives the error to show the user.
pub const HAS_GENERIC_TIMER: bool = cfg!(target_arch = "aarch64");

/// `Ok` on `aarch64`; elsewhere [`Error::NotAarch64`] naming this build's architecture, for a
/// front end that offers `--clock cntvct` on every host and must refuse it politely.
pub const fn require_generic_timer() -> Result<(), Error> {
    if HAS_GENERIC_TIMER {
        Ok(())
    } else {
        Err(Error::NotAarch64 { arch: TARGET_ARCH })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_timer_is_present_exactly_on_aarch64() {
        assert_eq!(HAS_GENERIC_TIMER, cfg!(target_arch = "aarch64"));
        assert_eq!(TARGET_ARCH, std::env::consts::ARCH);
        let result = require_generic_timer();
        assert_eq!(result.is_ok(), cfg!(target_arch = "aarch64"));
        if let Err(e) = result {
            assert_eq!(e, Error::NotAarch64 { arch: TARGET_ARCH });
            let msg = e.to_string();
            assert!(msg.contains(std::env::consts::ARCH), "{msg}");
            assert!(msg.contains("aarch64"), "{msg}");
        }
    }
}
