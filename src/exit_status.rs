//! The exit statuses of every rtlat command, in one table. Each command returns one of these
//! and nothing else; `--help` and the README show the same table.
//!
//! | status | meaning |
//! | --- | --- |
//! | 0 | done: measured and written, changed, or checked and found good |
//! | 1 | done, and over the line: a latency above `--fail-above` (`run`, `servo`) or `-m` (`latency`), a warning from `audit` |
//! | 2 | bad input, refused: nothing was measured, changed or written (one line on stderr names what was wrong and what is accepted) |
//! | 3 | `audit` only: a failing finding (no bounded latency on this machine as it is) |
//! | 4 | measured (or changed), but a result could not be written: the line on stderr names the file; what could be written was |
//! | 5 | a change to the system failed part-way and not all of it could be undone: the lines on stderr name what is left |
//!
//! When two apply, the larger status is returned, except that 1 (the verdict a CI gate
//! waits for) is never hidden by 4: a run over its threshold whose file could not be written
//! exits 1, and says on stderr that the file was not written.
//!
//! Under the names `cyclictest` and `latency` the real tool's statuses rule where they
//! differ (see each front's `--help`).

use std::process::ExitCode;

/// Done.
pub const OK: u8 = 0;
/// Done, and over the line (threshold exceeded, audit warning).
pub const OVER_THRESHOLD: u8 = 1;
/// Bad input, refused before anything was measured, changed or written.
pub const BAD_INPUT: u8 = 2;
/// `audit`: a failing finding.
pub const AUDIT_FAIL: u8 = 3;
/// Measured or changed, but a result could not be written.
pub const NOT_WRITTEN: u8 = 4;
/// A change to the system failed part-way and could not all be undone.
pub const NOT_UNDONE: u8 = 5;

/// The table above, as `--help` prints it.
pub const HELP: &str = "\
Exit status (the same in every rtlat command):
  0  done
  1  over the line: latency above --fail-above (-m for latency), or an audit warning
  2  bad input, refused: nothing measured, changed or written
  3  audit: a failing finding
  4  measured or changed, but a result file could not be written (stderr names it)
  5  a change to the system failed part-way and could not all be undone";

/// The status of a finished command that wrote its results (`written` false when one of
/// them could not be) with verdict `verdict` (`OK` or `OVER_THRESHOLD`): 1 is never hidden.
pub fn finished(verdict: u8, written: bool) -> u8 {
    if verdict == OVER_THRESHOLD || written {
        verdict
    } else {
        NOT_WRITTEN
    }
}

/// The status of a command whose command line (or what it names on this machine) was
/// refused: every [`CliError`](crate::options::CliError) is bad input.
pub fn of(error: &crate::options::CliError) -> u8 {
    use crate::options::CliError;
    match error {
        CliError::Usage(_) | CliError::Refused(_) => BAD_INPUT,
    }
}

/// `status` as an [`ExitCode`].
pub fn code(status: u8) -> ExitCode {
    ExitCode::from(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_verdict_is_never_hidden_by_a_write_failure() {
        assert_eq!(finished(OVER_THRESHOLD, false), OVER_THRESHOLD);
        assert_eq!(finished(OK, false), NOT_WRITTEN);
        assert_eq!(finished(OK, true), OK);
        assert_eq!(finished(OVER_THRESHOLD, true), OVER_THRESHOLD);
    }

    #[test]
    fn the_help_table_lists_every_status() {
        for status in [
            OK,
            OVER_THRESHOLD,
            BAD_INPUT,
            AUDIT_FAIL,
            NOT_WRITTEN,
            NOT_UNDONE,
        ] {
            assert!(HELP.contains(&format!("\n  {status}  ")), "{status}");
        }
    }
}
