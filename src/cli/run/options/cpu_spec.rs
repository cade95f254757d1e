//! A CPU list as typed (`0-3,5`, `all`, `!LIST`, `+LIST`), and its resolution against the CPUs
//! a run may use.

use core::fmt;

use rtlat_linux::cpuset::CpuSet;

use super::UsageError;
use super::values;

/// A CPU list as given to `-a` or `--mainaffinity`, resolved against the available CPUs by
/// [`super::RunConfig::plan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpuSpec {
    /// `0-3,5`: these CPUs.
    List(CpuSet),
    /// `all`: every available CPU.
    All,
    /// `!LIST`: every available CPU but these.
    AllBut(CpuSet),
    /// `+LIST`: the available CPUs at these positions (0 = the lowest available CPU).
    Relative(CpuSet),
}

impl fmt::Display for CpuSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuSpec::List(set) => write!(f, "{set}"),
            CpuSpec::All => f.write_str("all"),
            CpuSpec::AllBut(set) => write!(f, "!{set}"),
            CpuSpec::Relative(set) => write!(f, "+{set}"),
        }
    }
}

impl CpuSpec {
    /// Parses `all`, `!LIST`, `+LIST` or `LIST`.
    pub(super) fn parse(given: &str, option: &str) -> Result<CpuSpec, UsageError> {
        // As cyclictest (libnuma) reads it, white space around the list is skipped.
        let text = values::trim_c_space(given);
        let list = |body: &str| {
            CpuSet::parse(body).map_err(|err| UsageError::InvalidCpuList {
                option: option.to_owned(),
                value: given.to_owned(),
                reason: err.to_string(),
            })
        };
        if text == "all" {
            Ok(CpuSpec::All)
        } else if let Some(body) = text.strip_prefix('!') {
            Ok(CpuSpec::AllBut(list(body)?))
        } else if let Some(body) = text.strip_prefix('+') {
            Ok(CpuSpec::Relative(list(body)?))
        } else {
            Ok(CpuSpec::List(list(text)?))
        }
    }

    /// The CPUs this names among `available`; an error if it names an unavailable CPU or none.
    pub fn resolve(&self, available: &CpuSet, option: &str) -> Result<CpuSet, UsageError> {
        let refuse = |reason: String| UsageError::InvalidCpuList {
            option: option.to_owned(),
            value: self.to_string(),
            reason,
        };
        let set = match self {
            CpuSpec::List(set) => {
                let missing = set.difference(available);
                if !missing.is_empty() {
                    return Err(refuse(format!(
                        "CPU {missing} is not online or not allowed for this process (available CPUs: {available})"
                    )));
                }
                set.clone()
            }
            CpuSpec::All => available.clone(),
            CpuSpec::AllBut(set) => available.difference(set),
            CpuSpec::Relative(positions) => {
                let mut set = CpuSet::new();
                for position in positions {
                    let Some(cpu) = available.nth(position) else {
                        return Err(refuse(format!(
                            "position {position} is past the {} available CPUs ({available}); positions start at 0",
                            available.len()
                        )));
                    };
                    // `cpu` comes from a CpuSet, so it is in range.
                    let _ = set.insert(cpu);
                }
                set
            }
        };
        if set.is_empty() {
            return Err(refuse(format!(
                "that leaves no CPU (available CPUs: {available})"
            )));
        }
        Ok(set)
    }
}
