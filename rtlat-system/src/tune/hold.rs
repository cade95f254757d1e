//! [`Hold`]: changes held for a while (a measurement run) and undone when it is dropped,
//! whichever way the holder ends: normal return, error, panic, or a SIGINT/SIGTERM that the
//! run turns into a clean end.

use std::path::{Path, PathBuf};

use super::change::Change;
use super::error::TuneError;
use super::transaction::{self, Failed};

/// Changes in effect until [`release`](Hold::release) or drop, which undo them in reverse.
///
/// ```no_run
/// use rtlat_linux::cpuset::CpuSet;
/// use rtlat_system::facts::Facts;
/// use rtlat_system::tune::{Hold, cpufreq};
///
/// let facts = Facts::live();
/// let cpus = CpuSet::parse("2-3")?;
/// let changes = cpufreq::governor_changes(&facts, &cpus, "performance")?;
/// let hold = Hold::apply(facts.root(), changes).map_err(|failed| failed.error)?;
/// // … measure …
/// for (change, result) in hold.release() {
///     println!("restored {change}: {result:?}");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Hold {
    root: PathBuf,
    changes: Vec<Change>,
}

impl Hold {
    /// Makes `changes` (all or nothing, see [`transaction::apply`]) and holds them.
    pub fn apply(root: &Path, changes: Vec<Change>) -> Result<Hold, Box<Failed>> {
        let applied = transaction::apply(root, &changes, |_, _| false)?;
        Ok(Hold {
            root: root.to_path_buf(),
            changes: applied.done,
        })
    }

    /// The changes in effect.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// The root the changes were made under.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Undoes the changes now, in reverse; returns each inverse change with its result.
    pub fn release(mut self) -> Vec<(Change, Result<(), TuneError>)> {
        self.undo()
    }

    fn undo(&mut self) -> Vec<(Change, Result<(), TuneError>)> {
        let changes = std::mem::take(&mut self.changes);
        changes
            .iter()
            .rev()
            .map(|change| {
                let inverse = change.inverse();
                let result = inverse.apply(&self.root);
                (inverse, result)
            })
            .collect()
    }
}

impl Drop for Hold {
    /// Undoes what [`release`](Hold::release) has not (errors are ignored: nobody is left to
    /// tell).
    fn drop(&mut self) {
        let _ = self.undo();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_and_release_restore() {
        let root = std::env::temp_dir().join(format!("rtlat-hold-{}", std::process::id()));
        let dir = root.join("sys/devices/system/cpu/cpu0/cpufreq");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("scaling_governor");
        std::fs::write(&file, "ondemand\n").unwrap();
        let change = Change::new(
            crate::tune::target::Target::Cpufreq {
                cpu: 0,
                setting: crate::tune::target::CpufreqSetting::Governor,
            },
            "ondemand",
            "performance",
        );
        {
            let hold = Hold::apply(&root, vec![change.clone()]).unwrap();
            assert_eq!(hold.changes(), std::slice::from_ref(&change));
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "performance\n");
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "ondemand\n");

        let hold = Hold::apply(&root, vec![change.clone()]).unwrap();
        let released = hold.release();
        assert_eq!(released.len(), 1);
        assert_eq!(released[0].0, change.inverse());
        assert!(released[0].1.is_ok());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "ondemand\n");

        let result = std::panic::catch_unwind(|| {
            let _hold = Hold::apply(&root, vec![change.clone()]).unwrap();
            panic!("the run failed");
        });
        assert!(result.is_err());
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "ondemand\n",
            "undone on unwind"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
