//! The verdict: a thread's max jitter read as LinuxCNC's documentation reads it.

use rtlat_engine::servo::{Figures, Plan};

/// Where the verdict's bands and wording come from.
pub const DOCUMENTATION: &str = "LinuxCNC documentation, Latency Testing (install/latency-test.adoc), as revised in November 2025, after 2.9";

/// Max jitter below this: very nice results, software stepping or a hardware card
/// (LinuxCNC: "less than about 20,000 nanoseconds").
pub const GOOD_BELOW_NS: u64 = 20_000;
/// From this on, no software stepping (LinuxCNC: "between 50,000 and 500,000").
pub const NO_STEPPING_FROM_NS: u64 = 50_000;
/// Above this, not acceptable even with a hardware card (LinuxCNC: "above 500,000").
pub const UNUSABLE_ABOVE_NS: u64 = 500_000;

/// LinuxCNC's reading of a max jitter (its documentation's four bands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rating {
    /// Below 20 µs.
    Good,
    /// 20 µs to below 50 µs.
    Limited,
    /// 50 µs to 500 µs.
    NoSoftwareStepping,
    /// Above 500 µs.
    Unusable,
}

impl Rating {
    /// The rating of `max_jitter_ns`.
    pub fn of(max_jitter_ns: u64) -> Rating {
        if max_jitter_ns < GOOD_BELOW_NS {
            Rating::Good
        } else if max_jitter_ns < NO_STEPPING_FROM_NS {
            Rating::Limited
        } else if max_jitter_ns <= UNUSABLE_ABOVE_NS {
            Rating::NoSoftwareStepping
        } else {
            Rating::Unusable
        }
    }

    /// Its name in the JSON.
    pub fn key(self) -> &'static str {
        match self {
            Rating::Good => "good",
            Rating::Limited => "limited",
            Rating::NoSoftwareStepping => "no_software_stepping",
            Rating::Unusable => "unusable",
        }
    }

    /// What it means for the base thread's max jitter (software stepping, or a hardware
    /// card), after LinuxCNC's documentation.
    pub fn text(self) -> &'static str {
        match self {
            Rating::Good => {
                "under 20 µs: very nice results with software stepping or with a hardware card (e.g. Mesa)"
            }
            Rating::Limited => {
                "20 to 50 µs: software stepping works, but its maximum step rate may disappoint; a hardware card gives excellent results"
            }
            Rating::NoSoftwareStepping => {
                "50 to 500 µs: no software stepping; a hardware card gives acceptable results"
            }
            Rating::Unusable => {
                "over 500 µs: not acceptable for LinuxCNC, with software stepping or with a hardware card"
            }
        }
    }

    /// What it means for the servo thread's max jitter when there is no base thread (a
    /// hardware-card setup): the hardware-card part of the same bands.
    pub fn servo_only_text(self) -> &'static str {
        match self {
            Rating::Good => "under 20 µs: very nice results with a hardware card (e.g. Mesa)",
            Rating::Limited => "20 to 50 µs: excellent results with a hardware card",
            Rating::NoSoftwareStepping => "50 to 500 µs: acceptable results with a hardware card",
            Rating::Unusable => {
                "over 500 µs: not acceptable for LinuxCNC, even with a hardware card"
            }
        }
    }
}

/// The verdict: the base thread's max jitter, as LinuxCNC's documentation reads it for
/// software stepping; without a base thread, the servo thread's, read for a hardware card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// `base` or `servo`.
    pub thread: &'static str,
    /// Its max jitter, ns.
    pub max_jitter_ns: u64,
    /// The band.
    pub rating: Rating,
}

impl Verdict {
    /// The verdict on the threads run (`plans` and their figures, in the same order); `None`
    /// before the judged thread has measured an interval.
    pub(super) fn of(plans: &[Plan], figures: &[Figures]) -> Option<Verdict> {
        let judged = plans
            .iter()
            .position(|p| p.name == "base")
            .or_else(|| plans.iter().position(|p| p.name == "servo"))?;
        let max_jitter_ns = figures.get(judged)?.max_jitter_ns?;
        Some(Verdict {
            thread: plans[judged].name,
            max_jitter_ns,
            rating: Rating::of(max_jitter_ns),
        })
    }

    /// Its text.
    pub fn text(&self) -> &'static str {
        if self.thread == "base" {
            self.rating.text()
        } else {
            self.rating.servo_only_text()
        }
    }
}
