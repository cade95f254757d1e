//! A profile against the running machine, item by item: each kernel parameter, each movable
//! IRQ on the CPUs it keeps them from, each CPU's governor and idle states, each thread a
//! rule names. An item that differs is drift: a parameter missing since an update, an IRQ
//! moved back by irqbalance, a governor reset, a thread's priority lost after a restart.
//! Read-only.

use regex::Regex;

use super::{Profile, ProfileError};
use crate::cmdline::KernelCmdline;
use crate::facts::{FactError, Facts};
use crate::tune::irq;
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::thread::Policy;

/// One thing the profile sets, as the machine has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Stable: `cmdline.isolcpus`, `irq.24`, `irq.default`, `cpufreq.cpu2`, `idle.cpu2`,
    /// `thread.0.1234` (rule, then tid), `thread.0` (a rule no thread matches).
    pub id: String,
    /// What the profile wants.
    pub want: String,
    /// What the machine has (`unreadable: …` where it could not be read).
    pub have: String,
    /// Whether they differ.
    pub drift: bool,
}

/// The profile against the machine: every item, in the profile's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// Every item checked.
    pub items: Vec<Item>,
    /// What was noted but is not drift (a rule no running thread matches).
    pub notes: Vec<String>,
}

impl Verification {
    /// The items that drifted.
    pub fn drifted(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.drift)
    }
}

fn item(id: String, want: impl Into<String>, have: impl Into<String>, drift: bool) -> Item {
    Item {
        id,
        want: want.into(),
        have: have.into(),
        drift,
    }
}

fn unreadable(e: &FactError) -> String {
    format!("unreadable: {e}")
}

/// The profile's name for a policy.
fn policy_name(policy: Option<Policy>) -> &'static str {
    match policy {
        Some(Policy::Fifo) => "fifo",
        Some(Policy::RoundRobin) => "rr",
        Some(Policy::Other) => "other",
        Some(Policy::Batch) => "batch",
        Some(Policy::Idle) => "idle",
        None => "unknown",
    }
}

/// Checks `profile` against the machine under `facts`. A thread rule's regular expression
/// that does not compile is the one error (the profile's own).
pub fn verify(profile: &Profile, facts: &Facts) -> Result<Verification, ProfileError> {
    let rules: Vec<Regex> = profile
        .threads
        .iter()
        .enumerate()
        .map(|(i, r)| {
            Regex::new(&r.name)
                .map_err(|e| ProfileError(format!("threads[{i}].name: {}", one_line(&e))))
        })
        .collect::<Result<_, _>>()?;
    let mut v = Verification {
        items: Vec::new(),
        notes: Vec::new(),
    };
    if let Some(kernel) = &profile.kernel {
        cmdline(&kernel.cmdline, facts, &mut v);
    }
    if let Some(want) = &profile.irq {
        irqs(&want.away_from, facts, &mut v);
    }
    if let Some(f) = &profile.cpufreq {
        for cpu in cpus(&f.cpus).iter() {
            let id = format!("cpufreq.cpu{cpu}");
            v.items.push(match facts.cpufreq(cpu).governor() {
                Ok(have) => {
                    let drift = have != f.governor;
                    item(id, &f.governor, have, drift)
                }
                Err(e) => item(id, &f.governor, unreadable(&e), true),
            });
            if let Some(khz) = f.frequency_khz {
                let freq = facts.cpufreq(cpu);
                let want = format!("fixed at {khz} kHz");
                let id = format!("cpufreq.cpu{cpu}.frequency");
                v.items
                    .push(match (freq.scaling_min_khz(), freq.scaling_max_khz()) {
                        (Ok(min), Ok(max)) => item(
                            id,
                            want,
                            format!("{min} to {max} kHz"),
                            min != khz || max != khz,
                        ),
                        (Err(e), _) | (_, Err(e)) => item(id, want, unreadable(&e), true),
                    });
            }
        }
    }
    if let Some(qos) = &profile.cpu_dma_latency {
        let want = format!("at most {} µs", qos.max_us);
        v.items.push(match dma_latency(facts) {
            Ok(us) => item(
                "cpu_dma_latency".to_owned(),
                want,
                format!("{us} µs"),
                us > i64::from(qos.max_us),
            ),
            Err(why) => item("cpu_dma_latency".to_owned(), want, why, true),
        });
    }
    if let Some(idle) = &profile.idle {
        for cpu in cpus(&idle.cpus).iter() {
            let id = format!("idle.cpu{cpu}");
            let want = if idle.deepest_state < 0 {
                "every state off".to_owned()
            } else {
                format!("states above {} off", idle.deepest_state)
            };
            v.items.push(match facts.cpuidle_states(cpu) {
                Ok(states) => {
                    let wrong: Vec<String> = states
                        .iter()
                        .filter(|s| {
                            let should_be_off = i64::from(s.index) > i64::from(idle.deepest_state);
                            s.disabled != should_be_off
                        })
                        .map(|s| format!("{} {}", s.name, if s.disabled { "off" } else { "on" }))
                        .collect();
                    let have = if wrong.is_empty() {
                        want.clone()
                    } else {
                        wrong.join(", ")
                    };
                    item(id, want, have, !wrong.is_empty())
                }
                Err(e) => item(id, want, unreadable(&e), true),
            });
        }
    }
    if !profile.threads.is_empty() {
        threads(profile, &rules, facts, &mut v);
    }
    Ok(v)
}

/// The PM QoS value in force, µs: `/dev/cpu_dma_latency` reads as the 4 bytes of an `s32`
/// (text on kernels that give it so). Nobody holding it reads as 2000000000.
fn dma_latency(facts: &Facts) -> Result<i64, String> {
    use std::io::Read;
    let path = facts.path("dev/cpu_dma_latency");
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| f.take(64).read_to_end(&mut bytes))
        .map_err(|e| format!("unreadable: {}: {e}", path.display()))?;
    if let Ok(four) = <[u8; 4]>::try_from(bytes.as_slice()) {
        return Ok(i64::from(i32::from_ne_bytes(four)));
    }
    String::from_utf8_lossy(&bytes)
        .trim()
        .parse()
        .map_err(|_| format!("unreadable: {}: not a value", path.display()))
}

fn cpus(list: &str) -> CpuSet {
    // Checked when the profile was read.
    CpuSet::parse(list).unwrap_or_default()
}

/// regex's message, on one line.
fn one_line(e: &regex::Error) -> String {
    e.to_string()
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("not a regular expression")
        .trim()
        .to_owned()
}

fn cmdline(params: &[String], facts: &Facts, v: &mut Verification) {
    let running = match facts.cmdline() {
        Ok(c) => c,
        Err(e) => {
            for p in params {
                v.items.push(item(
                    format!("cmdline.{}", name_of(p)),
                    p,
                    unreadable(&e),
                    true,
                ));
            }
            return;
        }
    };
    for p in params {
        let name = name_of(p);
        let have: Vec<String> = words(&running)
            .into_iter()
            .filter(|w| name_of(w) == name)
            .collect();
        // The last one given is the one the kernel keeps.
        let drift = have.last() != Some(p);
        let shown = if have.is_empty() {
            "absent".to_owned()
        } else {
            have.join(" ")
        };
        v.items
            .push(item(format!("cmdline.{name}"), p, shown, drift));
    }
}

fn words(cmdline: &KernelCmdline) -> Vec<String> {
    cmdline
        .to_string()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

fn name_of(param: &str) -> &str {
    param.split_once('=').map_or(param, |(n, _)| n)
}

fn irqs(away_from: &str, facts: &Facts, v: &mut Verification) {
    let away = cpus(away_from);
    match irq::away_from(facts, &away) {
        Ok(plan) => {
            let want = format!("not on CPUs {away_from}");
            for m in &plan.moves {
                v.items.push(item(
                    format!("irq.{}", m.irq.irq),
                    want.clone(),
                    format!("on CPUs {}", m.change.old),
                    true,
                ));
            }
            if plan.moves.is_empty() {
                v.items.push(item(
                    "irq.all".to_owned(),
                    want.clone(),
                    format!("{} movable IRQs away", plan.already_away.len()),
                    false,
                ));
            }
            if let Some(change) = &plan.default_change {
                v.items.push(item(
                    "irq.default".to_owned(),
                    want,
                    format!("default_smp_affinity {}", change.old),
                    true,
                ));
            }
        }
        Err(e) => v.items.push(item(
            "irq.all".to_owned(),
            format!("not on CPUs {away_from}"),
            format!("unreadable: {e}"),
            true,
        )),
    }
}

fn threads(profile: &Profile, rules: &[Regex], facts: &Facts, v: &mut Verification) {
    let all = match facts.all_threads() {
        Ok(all) => all,
        Err(e) => {
            v.items.push(item(
                "thread.all".to_owned(),
                "the threads the rules name",
                unreadable(&e),
                true,
            ));
            return;
        }
    };
    for (i, (rule, re)) in profile.threads.iter().zip(rules).enumerate() {
        let want = match &rule.cpus {
            Some(cpus) => format!("{} {} on CPUs {cpus}", rule.policy, rule.priority),
            None => format!("{} {}", rule.policy, rule.priority),
        };
        let mut matched = 0;
        for t in all.iter().filter(|t| re.is_match(t.name())) {
            matched += 1;
            let policy = policy_name(t.stat.sched_policy());
            let priority = t.stat.rt_priority;
            let mut have = format!("{policy} {priority}");
            let mut drift = policy != rule.policy || priority != u32::from(rule.priority);
            if let Some(cpus) = &rule.cpus {
                have.push_str(&format!(" on CPUs {}", t.cpus_allowed));
                drift |= t.cpus_allowed != self::cpus(cpus);
            }
            v.items.push(item(
                format!("thread.{i}.{}", t.tid),
                want.clone(),
                format!("{have} ({} pid {} tid {})", t.name(), t.pid, t.tid),
                drift,
            ));
        }
        if matched == 0 {
            v.notes.push(format!(
                "threads[{i}]: no running thread's name matches {:?} (the application may not run yet)",
                rule.name
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A captured machine: the HP t630 tree (CPU 3 isolated).
    fn t630() -> Facts {
        Facts::at(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hp-t630"))
    }

    #[test]
    fn the_command_line_is_checked_parameter_by_parameter() {
        let profile = Profile::parse(
            "version = 1\n[kernel]\ncmdline = [\"nohz_full=3\", \"rcu_nocbs=3\", \"skew_tick=1\", \"isolcpus=managed_irq,domain,3\"]",
        )
        .unwrap();
        let v = verify(&profile, &t630()).unwrap();
        let by = |id: &str| v.items.iter().find(|i| i.id == id).unwrap();
        assert!(!by("cmdline.nohz_full").drift);
        assert!(!by("cmdline.isolcpus").drift);
        assert!(!by("cmdline.skew_tick").drift);
        // The tree's line misspells it (rcunocbs=3): absent.
        let rcu = by("cmdline.rcu_nocbs");
        assert!(rcu.drift && rcu.have == "absent", "{rcu:?}");
    }

    #[test]
    fn a_thread_rule_that_matches_nothing_is_a_note_not_drift() {
        let profile = Profile::parse(
            "version = 1\n[[threads]]\nname = \"^no-such-thread$\"\npolicy = \"fifo\"\npriority = 90",
        )
        .unwrap();
        let v = verify(&profile, &t630()).unwrap();
        assert_eq!(v.drifted().count(), 0);
        assert_eq!(v.notes.len(), 1, "{:?}", v.notes);
        let bad =
            Profile::parse("version = 1\n[[threads]]\nname = \"(\"\npolicy = \"other\"").unwrap();
        let e = verify(&bad, &t630()).unwrap_err().to_string();
        assert!(
            e.starts_with("threads[0].name: ") && e.lines().count() == 1,
            "{e}"
        );
    }

    /// The real thing: `/dev/cpu_dma_latency` held at 0 (as rtlat run holds it) is in force
    /// for a profile asking at most 0 µs; the value read is the one held.
    #[test]
    fn the_running_machines_cpu_dma_latency_is_checked() {
        let profile = Profile::parse("version = 1\n[cpu_dma_latency]\nmax_us = 0\n").unwrap();
        let held = match rtlat_linux::dma_latency::DmaLatencyGuard::set(0) {
            Ok(held) => held,
            Err(e) => {
                eprintln!("NOT RUN: /dev/cpu_dma_latency cannot be held here: {e}");
                return;
            }
        };
        let v = verify(&profile, &Facts::live()).unwrap();
        assert_eq!(v.items.len(), 1);
        assert_eq!(
            (v.items[0].have.as_str(), v.items[0].drift),
            ("0 µs", false),
            "{v:?}"
        );
        drop(held);
        // A tree without the device: drift, saying why.
        let tree = verify(&profile, &t630()).unwrap();
        assert!(tree.items[0].drift && tree.items[0].have.starts_with("unreadable"));
    }

    /// The real thing: this machine's own threads. The test's thread runs SCHED_OTHER; a rule
    /// asking fifo 50 of it drifts, one asking other 0 does not.
    #[test]
    fn the_running_machines_threads_are_checked() {
        std::thread::Builder::new()
            .name("rtlat-verify-t".into())
            .spawn(|| {
                let rule = |policy: &str, priority: u8| {
                    Profile::parse(&format!(
                        "version = 1\n[[threads]]\nname = \"^rtlat-verify-t$\"\npolicy = \"{policy}\"\npriority = {priority}"
                    ))
                    .unwrap()
                };
                let live = Facts::live();
                let drifted = verify(&rule("fifo", 50), &live).unwrap();
                let items: Vec<&Item> = drifted.items.iter().collect();
                assert_eq!(items.len(), 1, "{drifted:?}");
                assert!(items[0].drift && items[0].have.starts_with("other 0"), "{items:?}");
                let clean = verify(&rule("other", 0), &live).unwrap();
                assert_eq!(clean.drifted().count(), 0, "{clean:?}");
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
