//! A profile's run-time part as [`Change`]s, for `rtlat tune apply` to print, make and save
//! as the tuning commands do: IRQs away from CPUs, governors, idle states, then each running
//! thread a rule names (its CPUs, then its scheduling). The kernel command line cannot be
//! changed at run time: the parameters the running kernel lacks are listed beside, for
//! `--persist`.

use regex::Regex;

use super::{Profile, ProfileError};
use crate::facts::Facts;
use crate::tune::thread::{SchedRequest, find_thread, thread_changes};
use crate::tune::{Change, TuneError, cpufreq, cpuidle, irq};
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::thread::Policy;

/// What applying a profile would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The run-time changes, in the order to make them.
    pub changes: Vec<Change>,
    /// The profile's command-line parameters the running kernel lacks (they need a boot
    /// with the persisted line).
    pub cmdline_missing: Vec<String>,
    /// What was noted (a rule no running thread matches, IRQs the kernel does not let move).
    pub notes: Vec<String>,
}

/// Why a profile cannot be planned: the profile's own fault, or the machine's.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The profile (a thread rule's regular expression).
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// Reading the machine.
    #[error(transparent)]
    Tune(#[from] TuneError),
}

/// The policy a rule names (checked when the profile was read).
fn policy(name: &str) -> Policy {
    match name {
        "fifo" => Policy::Fifo,
        "rr" => Policy::RoundRobin,
        "batch" => Policy::Batch,
        "idle" => Policy::Idle,
        _ => Policy::Other,
    }
}

fn cpus(list: &str) -> CpuSet {
    CpuSet::parse(list).unwrap_or_default()
}

/// Plans `profile` against the machine under `facts`; `live`: thread rules are planned (a
/// thread's settings are read and set through system calls, so only on the running machine).
pub fn plan(profile: &Profile, facts: &Facts, live: bool) -> Result<Planned, PlanError> {
    let mut planned = Planned {
        changes: Vec::new(),
        cmdline_missing: Vec::new(),
        notes: Vec::new(),
    };
    if let Some(kernel) = &profile.kernel {
        let running = facts.cmdline().map_err(TuneError::from)?.to_string();
        let words: Vec<&str> = running.split_whitespace().collect();
        for p in &kernel.cmdline {
            let name = p.split_once('=').map_or(p.as_str(), |(n, _)| n);
            let last = words
                .iter()
                .rev()
                .find(|w| w.split_once('=').map_or(**w, |(n, _)| n) == name);
            if last != Some(&p.as_str()) {
                planned.cmdline_missing.push(p.clone());
            }
        }
    }
    if let Some(want) = &profile.irq {
        let plan = irq::away_from(facts, &cpus(&want.away_from))?;
        planned
            .changes
            .extend(plan.moves.into_iter().map(|m| m.change));
        planned.changes.extend(plan.default_change);
        if !plan.fixed.is_empty() {
            let fixed: Vec<String> = plan.fixed.iter().map(|i| i.irq.to_string()).collect();
            planned.notes.push(format!(
                "IRQs {} stay: the kernel does not let them move (per-CPU or managed)",
                fixed.join(" ")
            ));
        }
    }
    if let Some(f) = &profile.cpufreq {
        planned.changes.extend(cpufreq::governor_changes(
            facts,
            &cpus(&f.cpus),
            &f.governor,
        )?);
        if let Some(khz) = f.frequency_khz {
            planned
                .changes
                .extend(cpufreq::frequency_changes(facts, &cpus(&f.cpus), khz)?);
        }
    }
    if let Some(qos) = &profile.cpu_dma_latency {
        planned.notes.push(format!(
            "cpu_dma_latency (at most {} µs) holds only while a process keeps /dev/cpu_dma_latency open: the real-time application must hold it (rtlat run holds it during a run); rtlat verify checks it",
            qos.max_us
        ));
    }
    if let Some(idle) = &profile.idle {
        planned.changes.extend(cpuidle::deepest_state_changes(
            facts,
            &cpus(&idle.cpus),
            idle.deepest_state,
        )?);
    }
    if profile.threads.is_empty() {
        return Ok(planned);
    }
    if !live {
        planned.notes.push(
            "thread rules are left out: threads are set on the running machine only (no --root)"
                .into(),
        );
        return Ok(planned);
    }
    let all = facts.all_threads().map_err(TuneError::from)?;
    for (i, rule) in profile.threads.iter().enumerate() {
        let re = Regex::new(&rule.name).map_err(|e| {
            ProfileError(
                format!("threads[{i}].name: {e}")
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })?;
        let request = SchedRequest {
            policy: policy(&rule.policy),
            priority: i32::from(rule.priority),
            nice: None,
        };
        let pin = rule.cpus.as_deref().map(cpus);
        let mut matched = 0;
        for t in all.iter().filter(|t| re.is_match(t.name())) {
            matched += 1;
            // A thread that ended since the list was read is passed over.
            let Ok(thread) = find_thread(facts, t.tid) else {
                continue;
            };
            match thread_changes(&thread, Some(&request), pin.as_ref()) {
                Ok(changes) => planned.changes.extend(changes),
                Err(e) if e.is_thread_gone() => {}
                Err(e) => return Err(e.into()),
            }
        }
        if matched == 0 {
            planned.notes.push(format!(
                "threads[{i}]: no running thread's name matches {:?}: nothing to set",
                rule.name
            ));
        }
    }
    Ok(planned)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of the HP t630 tree, to plan against (nothing is written).
    fn t630() -> Facts {
        Facts::at(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hp-t630"))
    }

    #[test]
    fn the_run_time_part_is_planned_and_the_missing_parameters_listed() {
        let profile = Profile::parse(
            "version = 1\n[kernel]\ncmdline = [\"nohz_full=3\", \"rcu_nocbs=3\"]\n[irq]\naway_from = \"3\"\n[[threads]]\nname = \"x\"\npolicy = \"other\"\n",
        )
        .unwrap();
        let planned = plan(&profile, &t630(), false).unwrap();
        assert_eq!(planned.cmdline_missing, ["rcu_nocbs=3"]);
        // The tree's IRQs on CPU 3 each get a change, as `rtlat irq --away-from 3` plans.
        let irqs = irq::away_from(&t630(), &cpus("3")).unwrap();
        assert_eq!(
            planned.changes.len(),
            irqs.moves.len() + usize::from(irqs.default_change.is_some())
        );
        assert!(
            planned
                .notes
                .iter()
                .any(|n| n.contains("thread rules are left out"))
        );
    }
}
