//! Making a list of [`Change`]s all or nothing: in order; a change that fails makes the ones
//! already made undone, in reverse, so that a refused command leaves the system as it found it.
//! Some failures are expected and only reported (an IRQ the kernel does not let move): the
//! caller says which.

use std::path::Path;

use super::change::Change;
use super::error::TuneError;

/// What [`apply`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The changes made, in order.
    pub done: Vec<Change>,
    /// The changes the kernel refused and the caller accepted to skip, with why.
    pub skipped: Vec<(Change, TuneError)>,
}

/// Why [`apply`] stopped, and how far undoing what it had made went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    /// The change that failed.
    pub change: Change,
    /// Its error.
    pub error: TuneError,
    /// The changes made before it and undone again (in the order they were undone), or
    /// whose thread has ended since, taking its settings with it.
    pub undone: Vec<Change>,
    /// The changes made before it that could not be undone: they are still in effect.
    pub not_undone: Vec<(Change, TuneError)>,
}

/// Makes `changes` in order (files under `root`). A change whose error `skip` accepts is
/// left out and reported in [`Applied::skipped`]; any other error undoes the changes made so
/// far, in reverse, and returns [`Failed`].
pub fn apply(
    root: &Path,
    changes: &[Change],
    skip: impl Fn(&Change, &TuneError) -> bool,
) -> Result<Applied, Box<Failed>> {
    let mut applied = Applied {
        done: Vec::new(),
        skipped: Vec::new(),
    };
    for change in changes {
        match change.apply(root) {
            Ok(()) => applied.done.push(change.clone()),
            Err(error) if skip(change, &error) => applied.skipped.push((change.clone(), error)),
            Err(error) => {
                let (undone, not_undone) = undo(root, &applied.done);
                return Err(Box::new(Failed {
                    change: change.clone(),
                    error,
                    undone,
                    not_undone,
                }));
            }
        }
    }
    Ok(applied)
}

/// Undoes `done` in reverse: (undone, could not be undone with why). A thread change whose
/// thread has ended counts as undone: its settings ended with it.
pub fn undo(root: &Path, done: &[Change]) -> (Vec<Change>, Vec<(Change, TuneError)>) {
    let mut undone = Vec::new();
    let mut not_undone = Vec::new();
    for change in done.iter().rev() {
        match change.inverse().apply(root) {
            Ok(()) => undone.push(change.clone()),
            // A thread that has ended took its settings with it: nothing of the change is
            // left (and a thread given its id since is left alone).
            Err(e) if e.is_thread_gone() => undone.push(change.clone()),
            Err(e) => not_undone.push((change.clone(), e)),
        }
    }
    (undone, not_undone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_linux::Errno;

    #[test]
    fn a_change_of_a_thread_that_has_ended_is_undone_with_it() {
        use crate::tune::target::{Target, ThreadSetting};
        let pid = std::process::id();
        let (tid, start_time) = crate::tune::restore::tests::ended_thread();
        let change = Change::new(
            Target::Thread {
                pid,
                tid,
                name: "ended".into(),
                start_time,
                setting: ThreadSetting::Nice,
            },
            "0",
            "5",
        );
        let (undone, not_undone) = undo(Path::new("/"), std::slice::from_ref(&change));
        assert_eq!(undone, [change]);
        assert!(not_undone.is_empty(), "{not_undone:?}");
    }

    #[test]
    fn a_failure_undoes_what_was_made() {
        let root = std::env::temp_dir().join(format!("rtlat-tx-{}", std::process::id()));
        std::fs::create_dir_all(root.join("proc/irq/1")).unwrap();
        std::fs::create_dir_all(root.join("proc/irq/2")).unwrap();
        std::fs::write(root.join("proc/irq/1/smp_affinity_list"), "0-3\n").unwrap();
        std::fs::write(root.join("proc/irq/2/smp_affinity_list"), "0-3\n").unwrap();
        let irq = |irq| {
            Change::new(
                crate::tune::target::Target::IrqAffinity {
                    irq,
                    actions: Vec::new(),
                },
                "0-3",
                "0-2",
            )
        };
        let changes = [irq(1), irq(2), irq(3)];
        let failed = apply(&root, &changes, |_, _| false).unwrap_err();
        assert_eq!(failed.change, changes[2]);
        assert_eq!(failed.undone, [changes[1].clone(), changes[0].clone()]);
        assert!(failed.not_undone.is_empty());
        for irq in [1, 2] {
            let text =
                std::fs::read_to_string(root.join(format!("proc/irq/{irq}/smp_affinity_list")));
            assert_eq!(text.unwrap(), "0-3\n", "IRQ {irq} is back");
        }

        // The same with the missing file accepted as skipped.
        let applied = apply(
            &root,
            &changes,
            |_, e| matches!(e, TuneError::Write { errno, .. } if *errno == Errno::ENOENT),
        )
        .unwrap();
        assert_eq!(applied.done, changes[..2]);
        assert_eq!(applied.skipped.len(), 1);
        let text = std::fs::read_to_string(root.join("proc/irq/1/smp_affinity_list")).unwrap();
        assert_eq!(text, "0-2\n");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
