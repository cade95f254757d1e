//! `--backend linux|xenomai` of `rtlat run` and `rtlat latency`: which system the measuring
//! threads sleep on. `linux` (the default): rtlat-linux's timers on a POSIX clock, on any
//! Linux kernel. `xenomai`: each thread becomes a Xenomai Alchemy task sleeping on its
//! periodic timer (`rt_task_wait_period`) and reading the Alchemy clock
//! (rtlat-engine's `xenomai` module), for a binary built with the `xenomai` feature against
//! a Xenomai 3 install (Mercury or Cobalt; `XENO_CONFIG`, see rtlat-xenomai-ffi's README).
//! The engine, the output, the JSON and the per-second series are the same for both.

#[cfg(not(feature = "xenomai"))]
use core::fmt;

use rtlat_engine::session::InitError;
use rtlat_engine::timers::ClockSource;

/// The accepted values, for usage text and errors.
pub const NAMES: &str = "linux, xenomai";

/// What the measuring threads sleep on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// rtlat-linux's timers on a POSIX clock.
    #[default]
    Linux,
    /// Xenomai's Alchemy tasks and their periodic timers.
    Xenomai,
}

impl Backend {
    /// `linux` or `xenomai` (what was typed only: whether this binary has it is
    /// [`Backend::start`]'s to say).
    pub fn parse(value: &str) -> Option<Backend> {
        match value {
            "linux" => Some(Backend::Linux),
            "xenomai" => Some(Backend::Xenomai),
            _ => None,
        }
    }

    /// The name as typed: `linux`, `xenomai`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Linux => "linux",
            Backend::Xenomai => "xenomai",
        }
    }

    /// Readies the backend for the run, on the main thread before any measuring thread
    /// starts: Xenomai's initialisation (which also locks the process's memory, as every
    /// Xenomai program does). A binary built without Xenomai, or built against Cobalt on a
    /// kernel without its core, is refused in one line that says what to do.
    pub fn start(self) -> Result<(), InitError> {
        match self {
            Backend::Linux => Ok(()),
            #[cfg(feature = "xenomai")]
            Backend::Xenomai => Ok(rtlat_engine::xenomai::init()?),
            #[cfg(not(feature = "xenomai"))]
            Backend::Xenomai => Err(Box::new(NotBuilt)),
        }
    }

    /// [`Backend::start`] as a session's initialisation (`None` for Linux: nothing to do).
    pub fn init(self) -> Option<fn() -> Result<(), InitError>> {
        match self {
            Backend::Linux => None,
            Backend::Xenomai => Some(|| Backend::Xenomai.start()),
        }
    }

    /// The Xenomai core this binary was built against, for reports (`None`: the Linux
    /// backend, or a build without Xenomai).
    pub fn core(self) -> Option<&'static str> {
        match self {
            Backend::Linux => None,
            #[cfg(feature = "xenomai")]
            Backend::Xenomai => rtlat_engine::xenomai::core(),
            #[cfg(not(feature = "xenomai"))]
            Backend::Xenomai => None,
        }
    }

    /// The clock a measuring thread at `priority` on `cpu` runs on: `posix` for Linux,
    /// Xenomai's task and clock for Xenomai.
    pub fn clock(self, posix: ClockSource, priority: i32, cpu: Option<usize>) -> ClockSource {
        match self {
            Backend::Linux => posix,
            #[cfg(feature = "xenomai")]
            Backend::Xenomai => ClockSource::Xenomai {
                priority: u8::try_from(priority.clamp(0, 99)).unwrap_or(0),
                cpu,
            },
            // Refused by `start` before any thread is planned.
            #[cfg(not(feature = "xenomai"))]
            Backend::Xenomai => {
                let _ = (priority, cpu);
                posix
            }
        }
    }
}

/// The refusal of `--backend xenomai` by a binary built without it.
#[cfg(not(feature = "xenomai"))]
pub const NOT_BUILT: &str = "--backend xenomai: this rtlat was built without Xenomai; build it with the xenomai feature against a Xenomai 3 install: XENO_CONFIG=/usr/xenomai/bin/xeno-config cargo build --release --features xenomai";

/// `--backend xenomai` in a binary built without Xenomai ([`NOT_BUILT`]).
#[cfg(not(feature = "xenomai"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotBuilt;

#[cfg(not(feature = "xenomai"))]
impl fmt::Display for NotBuilt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(NOT_BUILT)
    }
}

#[cfg(not(feature = "xenomai"))]
impl std::error::Error for NotBuilt {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values() {
        assert_eq!(Backend::parse("linux"), Some(Backend::Linux));
        assert_eq!(Backend::parse("xenomai"), Some(Backend::Xenomai));
        for bad in ["", "Xenomai", "cobalt", "mercury", "linux "] {
            assert_eq!(Backend::parse(bad), None, "{bad:?}");
        }
        for b in [Backend::Linux, Backend::Xenomai] {
            assert_eq!(Backend::parse(b.name()), Some(b));
            assert!(NAMES.contains(b.name()));
        }
        assert_eq!(Backend::default(), Backend::Linux);
        assert!(Backend::Linux.start().is_ok());
    }

    #[cfg(not(feature = "xenomai"))]
    #[test]
    fn without_the_feature_xenomai_is_refused_with_the_remedy() {
        let refusal = Backend::Xenomai.start().unwrap_err();
        assert!(refusal.is::<NotBuilt>(), "{refusal:?}");
        let refusal = refusal.to_string();
        assert_eq!(refusal, NOT_BUILT);
        assert!(!refusal.contains('\n'));
        assert!(refusal.contains("--features xenomai") && refusal.contains("XENO_CONFIG"));
    }
}
