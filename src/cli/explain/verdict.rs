//! A verdict's one text and JSON rendering, for every front's `--explain`.

use std::fmt::Write as _;

use rtlat_formats::schema::Field;
use rtlat_formats::schema::rtlat::SpikeCause;
use rtlat_system::noise::Verdict;

/// A verdict's lines under its spike: `#   1. <cause>` each, most likely first; `#   no cause
/// found`; or `#   no verdict: <why>`.
pub fn lines(out: &mut String, verdict: &Verdict) {
    match verdict {
        Verdict::Unexplained(why) => {
            let _ = writeln!(out, "#   no verdict: {why}");
        }
        Verdict::Causes(causes) if causes.is_empty() => {
            let _ = writeln!(out, "#   no cause found");
        }
        Verdict::Causes(causes) => {
            for (rank, cause) in causes.iter().enumerate() {
                let _ = writeln!(out, "#   {}. {cause}", rank + 1);
            }
        }
    }
}

/// A verdict in the JSON: its `causes` (empty when there is none) and, without a verdict,
/// the `unexplained` reason.
pub fn json(verdict: &Verdict) -> (Vec<Field<SpikeCause>>, Field<String>) {
    match verdict {
        Verdict::Causes(causes) => (
            causes
                .iter()
                .map(|c| {
                    Field::from(SpikeCause {
                        text: c.text.clone().into(),
                        audit: c.audit.map(str::to_string).into(),
                        score: c.score.into(),
                    })
                })
                .collect(),
            Field::Absent,
        ),
        Verdict::Unexplained(why) => (Vec::new(), Field::from(why.clone())),
    }
}
