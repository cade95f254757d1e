//! What a kernel command line isolates: the `isolcpus=`, `nohz_full=`, `rcu_nocbs=` and
//! `irqaffinity=` in force, read with the kernel's rules for repeated parameters.
//!
//! - `isolcpus=` and `nohz_full=`: the first occurrence the kernel accepts is in force; a
//!   later one with a different CPU list is ignored ("Housekeeping: nohz_full= must match
//!   isolcpus=", `housekeeping_setup()` in `kernel/sched/isolation.c`). One the kernel cannot
//!   parse is ignored whole.
//! - `rcu_nocbs=` and `irqaffinity=`: each occurrence overwrites the mask, so the last is in
//!   force. A malformed `rcu_nocbs=` list offloads every CPU ("rcu_nocbs= bad CPU range, all
//!   CPUs set"); a bare `rcu_nocbs` offloads none at boot.

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::cmdline::{Isolcpus, KernelCmdline, Param, parse_kernel_cpu_list};

/// One parameter as the kernel takes it: the occurrence in force, its parsed value, and the
/// other occurrences the kernel ignores.
#[derive(Debug, Clone)]
pub struct InForce<T> {
    /// The occurrence in force (for an unparsable parameter: the one the kernel tried).
    pub param: Param,
    /// Its value, or why the kernel does not accept it.
    pub value: Result<T, String>,
    /// Other occurrences with a different value, which the kernel ignores.
    pub ignored: Vec<Param>,
}

/// The offloaded CPUs of `rcu_nocbs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RcuNocbs {
    /// `rcu_nocbs=LIST`.
    Cpus(CpuSet),
    /// A bare `rcu_nocbs`: offloading prepared, no CPU offloaded at boot.
    NoneAtBoot,
    /// A malformed list: the kernel offloads every CPU.
    All,
}

/// The isolation parameters of a command line.
#[derive(Debug, Clone, Default)]
pub struct LineIsolation {
    /// `isolcpus=`.
    pub isolcpus: Option<InForce<Isolcpus>>,
    /// `nohz_full=`.
    pub nohz_full: Option<InForce<CpuSet>>,
    /// `rcu_nocbs`.
    pub rcu_nocbs: Option<InForce<RcuNocbs>>,
    /// `irqaffinity=`.
    pub irqaffinity: Option<InForce<CpuSet>>,
}

fn cpu_list(param: &Param, last_cpu: Option<usize>) -> Result<CpuSet, String> {
    match param.value() {
        None => Err(format!(
            "`{param}` has no CPU list (write {}=CPUS)",
            param.name()
        )),
        Some(value) => parse_kernel_cpu_list(value, last_cpu).map_err(|e| e.to_string()),
    }
}

/// The first occurrence that parses is in force; the others whose value differs from it (as
/// parsed: `2,3` is `2-3`) are ignored.
fn first_accepted<T: PartialEq>(
    line: &KernelCmdline,
    name: &str,
    parse: impl Fn(&Param) -> Result<T, String>,
) -> Option<InForce<T>> {
    let all: Vec<&Param> = line.all(name).collect();
    let first = *all.first()?;
    let chosen = all
        .iter()
        .copied()
        .find(|p| parse(p).is_ok())
        .unwrap_or(first);
    let value = parse(chosen);
    let ignored = all
        .iter()
        .filter(|p| parse(p) != value)
        .map(|p| (*p).clone())
        .collect();
    Some(InForce {
        param: chosen.clone(),
        value,
        ignored,
    })
}

/// The last occurrence is in force.
fn last_wins<T: PartialEq>(
    line: &KernelCmdline,
    name: &str,
    parse: impl Fn(&Param) -> Result<T, String>,
) -> Option<InForce<T>> {
    let last = line.last(name)?;
    let value = parse(last);
    let ignored = line
        .all(name)
        .filter(|p| parse(p) != value)
        .cloned()
        .collect();
    Some(InForce {
        param: last.clone(),
        value,
        ignored,
    })
}

impl LineIsolation {
    /// Reads the isolation parameters of `line`; `last_cpu` (the highest possible CPU) gives
    /// `N` and `all` in CPU lists their meaning.
    pub fn of(line: &KernelCmdline, last_cpu: Option<usize>) -> LineIsolation {
        LineIsolation {
            isolcpus: first_accepted(line, "isolcpus", |p| match p.value() {
                None => Err("`isolcpus` has no CPU list (write isolcpus=CPUS)".to_owned()),
                Some(value) => Isolcpus::parse(value, last_cpu).map_err(|e| e.to_string()),
            }),
            nohz_full: first_accepted(line, "nohz_full", |p| cpu_list(p, last_cpu)),
            rcu_nocbs: last_wins(line, "rcu_nocbs", |p| match p.value() {
                None => Ok(RcuNocbs::NoneAtBoot),
                Some(_) => Ok(cpu_list(p, last_cpu).map_or(RcuNocbs::All, RcuNocbs::Cpus)),
            }),
            irqaffinity: last_wins(line, "irqaffinity", |p| cpu_list(p, last_cpu)),
        }
    }

    /// The CPUs `isolcpus=` names, if it is valid.
    pub fn isolcpus_cpus(&self) -> Option<&CpuSet> {
        self.isolcpus.as_ref()?.value.as_ref().ok().map(|i| &i.cpus)
    }

    /// The CPUs `isolcpus=` takes out of load balancing (its `domain` flag, explicit or
    /// implied).
    pub fn domain_cpus(&self) -> CpuSet {
        match self.isolcpus.as_ref().map(|i| &i.value) {
            Some(Ok(iso)) if iso.effective_flags().domain => iso.cpus.clone(),
            _ => CpuSet::new(),
        }
    }

    /// The CPUs of a valid `nohz_full=`.
    pub fn nohz_full_cpus(&self) -> Option<&CpuSet> {
        self.nohz_full.as_ref()?.value.as_ref().ok()
    }

    /// The tickless CPUs: `nohz_full=` or `isolcpus=nohz,…` (the same housekeeping type, so
    /// the first accepted of the two is in force).
    pub fn tickless_cpus(&self) -> CpuSet {
        if let Some(cpus) = self.nohz_full_cpus() {
            return cpus.clone();
        }
        match self.isolcpus.as_ref().map(|i| &i.value) {
            Some(Ok(iso)) if iso.flags.nohz => iso.cpus.clone(),
            _ => CpuSet::new(),
        }
    }

    /// Every CPU the line isolates in some way (`isolcpus=` with any flag, `nohz_full=`).
    pub fn isolated_cpus(&self) -> CpuSet {
        let isolcpus = self.isolcpus_cpus().cloned().unwrap_or_default();
        isolcpus.union(&self.tickless_cpus())
    }

    /// The CPUs whose RCU callbacks are offloaded: `rcu_nocbs=` and (implied) the tickless
    /// CPUs. `None` for "every CPU" (a malformed `rcu_nocbs=` list).
    pub fn offloaded_cpus(&self) -> Option<CpuSet> {
        let listed = match self.rcu_nocbs.as_ref().map(|r| &r.value) {
            Some(Ok(RcuNocbs::All)) => return None,
            Some(Ok(RcuNocbs::Cpus(cpus))) => cpus.clone(),
            _ => CpuSet::new(),
        };
        Some(listed.union(&self.tickless_cpus()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str) -> LineIsolation {
        LineIsolation::of(&KernelCmdline::parse(text), Some(7))
    }

    #[test]
    fn the_first_isolcpus_and_nohz_full_are_in_force() {
        let iso = of("isolcpus=x-y isolcpus=domain,2-3 isolcpus=4 nohz_full=2-3 nohz_full=2-N");
        let isolcpus = iso.isolcpus.as_ref().unwrap();
        assert_eq!(isolcpus.param.raw(), "isolcpus=domain,2-3");
        assert_eq!(isolcpus.ignored.len(), 2);
        assert_eq!(iso.isolcpus_cpus().unwrap().to_string(), "2-3");
        assert_eq!(iso.nohz_full_cpus().unwrap().to_string(), "2-3");
        assert_eq!(iso.nohz_full.as_ref().unwrap().ignored.len(), 1);
        assert_eq!(iso.isolated_cpus().to_string(), "2-3");
        assert_eq!(iso.domain_cpus().to_string(), "2-3");
    }

    #[test]
    fn the_last_rcu_nocbs_and_irqaffinity_are_in_force() {
        let iso = of("rcu_nocbs=1 rcu_nocbs=2-3 irqaffinity=0 irqaffinity=0-1 nohz_full=4");
        assert_eq!(iso.offloaded_cpus().unwrap().to_string(), "2-4");
        assert_eq!(
            iso.irqaffinity
                .as_ref()
                .unwrap()
                .value
                .as_ref()
                .unwrap()
                .to_string(),
            "0-1"
        );
        assert_eq!(of("rcu_nocbs=x").offloaded_cpus(), None);
        assert_eq!(
            of("rcu_nocbs").rcu_nocbs.unwrap().value,
            Ok(RcuNocbs::NoneAtBoot)
        );
    }

    #[test]
    fn bad_values_are_errors_not_panics() {
        let iso = of("isolcpus isolcpus=domain nohz_full nohz_full=9999999 irqaffinity=");
        assert!(iso.isolcpus.as_ref().unwrap().value.is_err());
        assert!(iso.nohz_full.as_ref().unwrap().value.is_err());
        assert!(iso.irqaffinity.as_ref().unwrap().value.is_err());
        assert!(iso.isolated_cpus().is_empty());
        let nohz = of("isolcpus=nohz,domain,5-N");
        assert_eq!(nohz.tickless_cpus().to_string(), "5-7");
    }
}
