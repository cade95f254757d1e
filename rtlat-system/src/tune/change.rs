//! [`Change`]: one setting, its value before and its value after. Every tuning command is a
//! list of changes: printed before it is made (dry run), made in order, saved to a restore
//! file, undone in reverse.
//!
//! A change names *what* it sets (an IRQ, a CPU's cpufreq setting, a thread's setting), never
//! a path: the kernel file written is derived from that and the root, so nothing read back
//! from a restore file can choose where rtlat writes.

use core::fmt;
use std::path::{Path, PathBuf};

use super::error::TuneError;
use super::same_thread::check_same_thread;
pub use super::target::{CpufreqSetting, Target, ThreadSetting};
use super::{file, thread_setting};

/// One setting changed from `old` to `new` (both as text: a file's content, `fifo:98`, `-5`,
/// `0-3`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Change {
    /// What is set.
    pub target: Target,
    /// The value before.
    pub old: String,
    /// The value after.
    pub new: String,
}

impl Change {
    /// The change of `target` from `old` to `new`.
    pub fn new(target: Target, old: impl Into<String>, new: impl Into<String>) -> Self {
        Change {
            target,
            old: old.into(),
            new: new.into(),
        }
    }

    /// The change that undoes this one.
    pub fn inverse(&self) -> Change {
        Change {
            target: self.target.clone(),
            old: self.new.clone(),
            new: self.old.clone(),
        }
    }

    /// Sets the target to `new` (the kernel file under `root`, or the thread). A thread is
    /// first checked to be still the one the change names (its process and start time,
    /// [`check_same_thread`]): one that ended is [`TuneError::NoSuchThread`], one whose id
    /// names another thread now [`TuneError::ThreadReplaced`], and nothing is set.
    pub fn apply(&self, root: &Path) -> Result<(), TuneError> {
        match (&self.target, self.target.system_path()) {
            (
                Target::Thread {
                    pid,
                    tid,
                    name,
                    start_time,
                    setting,
                },
                _,
            ) => {
                check_same_thread(*pid, *tid, name, *start_time)?;
                thread_setting::set(*tid, *setting, &self.new)
            }
            (_, Some(path)) => file::write_value(root, &path, &self.new),
            (_, None) => Ok(()),
        }
    }

    /// The target's value now (as [`Change::old`] was read).
    pub fn current(&self, root: &Path) -> Result<String, TuneError> {
        match (&self.target, self.target.system_path()) {
            (Target::Thread { tid, setting, .. }, _) => thread_setting::current(*tid, *setting),
            (_, Some(path)) => file::read_kernel_file(root, &path),
            (_, None) => Ok(String::new()),
        }
    }

    /// The file written, under `root` (`None` for a thread setting).
    pub fn path_under(&self, root: &Path) -> Option<PathBuf> {
        self.target
            .system_path()
            .map(|path| file::under(root, &path))
    }

    /// The target in words: the file's path under `root`, or
    /// `thread 1201 "servo-rt" (pid 1200) scheduling`.
    pub fn target_text(&self, root: &Path) -> String {
        match &self.target {
            Target::Thread {
                pid,
                tid,
                name,
                setting,
                ..
            } => format!("thread {tid} \"{name}\" (pid {pid}) {}", setting.words()),
            _ => self
                .path_under(root)
                .map(|path| path.display().to_string())
                .unwrap_or_default(),
        }
    }

    /// `TARGET: OLD → NEW`.
    pub fn describe(&self, root: &Path) -> String {
        format!("{}: {} → {}", self.target_text(root), self.old, self.new)
    }
}

impl fmt::Display for Change {
    /// [`describe`](Change::describe) with the root `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(Path::new("/")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_and_inverts() {
        let change = Change::new(
            Target::IrqAffinity {
                irq: 26,
                actions: vec!["enp1s0".into()],
            },
            "0-3",
            "0-2",
        );
        assert_eq!(
            change.to_string(),
            "/proc/irq/26/smp_affinity_list: 0-3 → 0-2"
        );
        assert_eq!(
            change.describe(Path::new("/tmp/tree")),
            "/tmp/tree/proc/irq/26/smp_affinity_list: 0-3 → 0-2"
        );
        assert_eq!(change.inverse().inverse(), change);
        assert_eq!(change.inverse().new, "0-3");
        let governor = Change::new(
            Target::Cpufreq {
                cpu: 2,
                setting: CpufreqSetting::Governor,
            },
            "ondemand",
            "performance",
        );
        assert_eq!(
            governor.to_string(),
            "/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor: ondemand → performance"
        );
        assert_eq!(
            Target::DefaultIrqAffinity.system_path().as_deref(),
            Some("/proc/irq/default_smp_affinity")
        );

        let thread = Change::new(
            Target::Thread {
                pid: 1200,
                tid: 1201,
                name: "servo-rt".into(),
                start_time: 77,
                setting: ThreadSetting::Scheduling,
            },
            "fifo:80",
            "fifo:98",
        );
        assert_eq!(
            thread.to_string(),
            "thread 1201 \"servo-rt\" (pid 1200) scheduling: fifo:80 → fifo:98"
        );
        assert_eq!(thread.path_under(Path::new("/")), None);
        for setting in [
            ThreadSetting::Scheduling,
            ThreadSetting::Nice,
            ThreadSetting::Affinity,
        ] {
            assert_eq!(ThreadSetting::from_name(setting.name()), Some(setting));
        }
        assert_eq!(ThreadSetting::from_name("cpus"), None);
    }
}
