//! A CPU list as typed (`0-3,5`, `all`, `!LIST`, `+LIST`), and its resolution against the
//! machine's CPUs ([`ProcessCpus`]), as cyclictest 2.40 resolves it:
//!
//! | typed | resolves to | refused (cyclictest: usage, status 1) | none left (cyclictest: FATAL, status 1) |
//! | --- | --- | --- | --- |
//! | `LIST` | these CPUs, isolated ones included | a CPU not online | — |
//! | `all` | every online CPU | — | — |
//! | `!LIST` | the online CPUs but these, of the default set | a CPU not online; every online CPU named | none of the default set left |
//! | `+LIST` | the online CPUs at these positions (0 first), of the default set | a position past the online CPUs | none of the default set |
//!
//! The default set is the process's affinity mask ([`ProcessCpus::default_cpus`]): with
//! `isolcpus=`, every CPU but the isolated ones. cyclictest reads the list with libnuma over
//! every CPU and keeps only the affinity mask's CPUs for `!` and `+` (checked side by side
//! under `taskset`: `taskset -c 1 cyclictest -a +0` ends FATAL, `-a +1` runs on CPU 1).

use core::fmt;

use rtlat_linux::ProcessCpus;
use rtlat_linux::cpuset::CpuSet;

use super::UsageError;
use super::values;

/// A CPU list as given to `-a` or `--mainaffinity`, resolved against the machine's CPUs by
/// [`super::RunConfig::plan`] (all, `!LIST` and `+LIST` as cyclictest reads them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpuSpec {
    /// `0-3,5`: these CPUs, each online (isolated CPUs included).
    List(CpuSet),
    /// `all`: every online CPU.
    All,
    /// `!LIST`: every online CPU but these, kept to the default set.
    AllBut(CpuSet),
    /// `+LIST`: the online CPUs at these positions (0 = the lowest online CPU), kept to the
    /// default set.
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

    /// The CPUs this names on a machine with `cpus`; an error line (after `option` and the
    /// value) if it names a CPU that is not online or leaves none.
    pub fn resolve(&self, cpus: &ProcessCpus, option: &str) -> Result<CpuSet, UsageError> {
        self.resolve_as_cyclictest(cpus)
            .map_err(|unusable| UsageError::InvalidCpuList {
                option: option.to_owned(),
                value: self.to_string(),
                reason: unusable.reason().to_owned(),
            })
    }

    /// [`CpuSpec::resolve`], with the class of the refusal, which cyclictest ends on in
    /// two ways.
    pub fn resolve_as_cyclictest(&self, cpus: &ProcessCpus) -> Result<CpuSet, Unusable> {
        let online = cpus.online();
        let default = cpus.default_cpus();
        let all_online = |set: &CpuSet| {
            let missing = set.difference(online);
            if missing.is_empty() {
                return Ok(());
            }
            let (s, are) = if missing.len() == 1 {
                ("", "is")
            } else {
                ("s", "are")
            };
            Err(Unusable::Usage(format!(
                "CPU{s} {missing} {are} not online (online CPUs: {online}; isolated CPUs are accepted)"
            )))
        };
        // What `!LIST` and `+LIST` pick among the online CPUs, then kept to the default set.
        let picked = match self {
            CpuSpec::List(set) => {
                all_online(set)?;
                return Ok(set.clone());
            }
            CpuSpec::All => return Ok(online.clone()),
            CpuSpec::AllBut(set) => {
                all_online(set)?;
                let left = online.difference(set);
                if left.is_empty() {
                    return Err(Unusable::Usage(format!(
                        "that leaves no online CPU (online CPUs: {online})"
                    )));
                }
                left
            }
            CpuSpec::Relative(positions) => {
                let mut picked = CpuSet::new();
                for position in positions {
                    let Some(cpu) = online.nth(position) else {
                        return Err(Unusable::Usage(format!(
                            "position {position} is past the {} online CPUs ({online}); positions start at 0",
                            online.len()
                        )));
                    };
                    // `cpu` comes from a CpuSet, so it is in range.
                    let _ = picked.insert(cpu);
                }
                picked
            }
        };
        let kept = picked.intersection(default);
        if kept.is_empty() {
            let (s, it) = if picked.len() == 1 {
                ("", "it")
            } else {
                ("s", "them")
            };
            return Err(Unusable::NoneOfDefault(format!(
                "it picks CPU{s} {picked}, outside this process's default CPUs ({default}) that !LIST and +LIST keep to; to measure on an isolated CPU, name {it} by number: {picked}"
            )));
        }
        Ok(kept)
    }
}

/// Why a CPU list names no CPU a run can use, in the two classes cyclictest ends on
/// differently; each holds the reason, one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// A CPU or position that is not online, or `!LIST` naming every online CPU: cyclictest
    /// (libnuma) refuses the list and prints its usage, status 1.
    Usage(String),
    /// `!LIST` or `+LIST` keeps none of the default CPUs: cyclictest cannot move its main
    /// thread there (a warning) and ends with `FATAL: No allowable cpus to run on`, status 1.
    NoneOfDefault(String),
}

impl Unusable {
    /// The reason, one line.
    pub fn reason(&self) -> &str {
        match self {
            Unusable::Usage(reason) | Unusable::NoneOfDefault(reason) => reason,
        }
    }
}
