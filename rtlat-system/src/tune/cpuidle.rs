//! Limiting the CPU idle states a CPU may enter, what cyclictest's `--deepest-idle-state N`
//! (and rtla's) does through libcpupower, as [`Change`]s of the files
//! `/sys/devices/system/cpu/cpuN/cpuidle/stateK/disable`: every state numbered above `N` is
//! disabled (all of them for `N = -1`), the others are left as they are.

use super::change::{Change, Target};
use super::error::TuneError;
use crate::facts::{FactResultExt as _, Facts};
use rtlat_linux::cpuset::CpuSet;

/// The changes that keep `cpus` out of every idle state deeper than `deepest` (-1: out of
/// every idle state). States already disabled give no change; a CPU without idle states
/// (no `cpuidle` directory: `cpuidle.off=1`, most VMs) gives none either, as with
/// libcpupower.
pub fn deepest_state_changes(
    facts: &Facts,
    cpus: &CpuSet,
    deepest: i32,
) -> Result<Vec<Change>, TuneError> {
    let mut changes = Vec::new();
    for cpu in cpus {
        let states = facts.cpuidle_states(cpu).optional()?.unwrap_or_default();
        for state in states {
            let deeper = i64::from(state.index) > i64::from(deepest);
            if deeper && !state.disabled {
                changes.push(Change::new(
                    Target::IdleStateDisable {
                        cpu,
                        state: state.index,
                    },
                    "0",
                    "1",
                ));
            }
        }
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::hold::Hold;

    /// A tree with CPUs 0 and 1, each with states 0..=3 (state 3 of CPU 1 already disabled).
    fn tree() -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!(
            "rtlat-cpuidle-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        for cpu in 0..2 {
            for state in 0..4 {
                let dir = root.join(format!(
                    "sys/devices/system/cpu/cpu{cpu}/cpuidle/state{state}"
                ));
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("name"), format!("C{state}\n")).unwrap();
                std::fs::write(dir.join("latency"), format!("{}\n", state * 10)).unwrap();
                let disabled = cpu == 1 && state == 3;
                std::fs::write(dir.join("disable"), if disabled { "1\n" } else { "0\n" }).unwrap();
            }
        }
        root
    }

    fn disabled(root: &std::path::Path, cpu: usize) -> Vec<bool> {
        Facts::at(root)
            .cpuidle_states(cpu)
            .unwrap()
            .iter()
            .map(|s| s.disabled)
            .collect()
    }

    #[test]
    fn disables_the_deeper_states_and_restores_them() {
        let root = tree();
        let facts = Facts::at(&root);
        let cpus = CpuSet::parse("0-1").unwrap();
        let changes = deepest_state_changes(&facts, &cpus, 1).unwrap();
        let names: Vec<String> = changes.iter().map(|c| c.describe(&root)).collect();
        assert_eq!(changes.len(), 3, "{names:?}");
        let hold = Hold::apply(&root, changes).unwrap();
        assert_eq!(disabled(&root, 0), [false, false, true, true]);
        assert_eq!(disabled(&root, 1), [false, false, true, true]);
        drop(hold);
        assert_eq!(disabled(&root, 0), [false; 4]);
        // The state disabled before is left disabled.
        assert_eq!(disabled(&root, 1), [false, false, false, true]);
        // -1: every state.
        assert_eq!(deepest_state_changes(&facts, &cpus, -1).unwrap().len(), 7);
        assert!(deepest_state_changes(&facts, &cpus, 3).unwrap().is_empty());
        // A CPU without cpuidle: nothing to change.
        let none = CpuSet::parse("5").unwrap();
        assert!(deepest_state_changes(&facts, &none, 0).unwrap().is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
