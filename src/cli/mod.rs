//! The `rtlat` command line, one folder per subcommand. `rtlat` (src/main.rs) runs the
//! measuring commands, `run` (and `cyclictest`), `latency` and `servo`; `rtlat-tools`
//! (src/bin/rtlat-tools.rs, feature `tools`) runs the others. Each binary links only what
//! its commands use.

pub mod backend;
// The cyclictest-style measurement `run` and `monitor` share.
pub mod cyclic;
// --explain's evidence and verdicts, for run, servo and monitor.
pub mod explain;
// `rtlat hwnoise`: hwlatdetect's hardware noise.
pub mod hwnoise;
pub mod latency;
// How the machine was tuned, for the result files of run, latency and servo.
pub mod provenance;
// `rtlat noise`: oslat's busy-poll noise.
pub mod noise;
pub mod run;
pub mod servo;

// The drop-in outputs against golden files.
#[cfg(test)]
mod drop_in;

// `rtlat cpufreq` runs in rtlat-tools; `run --governor` and `--profile` hold a governor
// with its code, and the tuning commands share `tuning`.
pub mod cpufreq;
pub mod tuning;

#[cfg(feature = "tools")]
pub mod audit;
#[cfg(feature = "tools")]
pub mod compare;
#[cfg(feature = "tools")]
pub mod irq;
// `rtlat tune apply PROFILE`: a tuning profile made real (and persisted); `rtlat verify
// PROFILE`: the profile against the machine.
#[cfg(feature = "tools")]
pub mod tune;
#[cfg(feature = "tools")]
pub mod verify;
// `rtlat monitor` runs in rtlat-monitor (feature `monitor`).
#[cfg(feature = "monitor")]
pub mod monitor;
// `rtlat plot` runs in rtlat-plot (feature `plot`); the drawing is the rtlat-plot crate's.
#[cfg(feature = "plot")]
pub mod plot;
#[cfg(feature = "tools")]
pub mod threads;
