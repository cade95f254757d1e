//! [`Change`]: one setting, its value before and its value after. Every tuning command is a
//! list of changes: printed before it is made (dry run), made in order, saved to a restore
//! file, undone in reverse.

use core::fmt;
use std::path::{Path, PathBuf};

use super::{file, thread};
use crate::error::Error;

/// What a change sets.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// A kernel file, by its path on the system (`/proc/irq/26/smp_affinity_list`); the
    /// file written is that path under the root.
    File {
        /// The system path, starting with `/`.
        path: String,
    },
    /// One setting of one thread.
    Thread {
        /// The process id.
        pid: u32,
        /// The thread id.
        tid: u32,
        /// The thread's name (`comm`) when the change was planned, to recognise it later.
        name: String,
        /// Which setting.
        setting: ThreadSetting,
    },
}

/// A thread setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadSetting {
    /// Policy and real-time priority (`fifo:98`, `other`), as `chrt` sets them.
    Scheduling,
    /// The nice value (`-5`), as `renice` sets it.
    Nice,
    /// The CPUs it may run on (`0-3`), as `taskset` sets them.
    Affinity,
}

impl ThreadSetting {
    /// The name in restore files: `scheduling`, `nice`, `affinity`.
    pub const fn name(self) -> &'static str {
        match self {
            ThreadSetting::Scheduling => "scheduling",
            ThreadSetting::Nice => "nice",
            ThreadSetting::Affinity => "affinity",
        }
    }

    /// The setting in words, for messages: `scheduling`, `nice value`, `CPU affinity`.
    pub const fn words(self) -> &'static str {
        match self {
            ThreadSetting::Scheduling => "scheduling",
            ThreadSetting::Nice => "nice value",
            ThreadSetting::Affinity => "CPU affinity",
        }
    }

    /// The setting named `name` (see [`name`](Self::name)).
    pub fn from_name(name: &str) -> Option<ThreadSetting> {
        [
            ThreadSetting::Scheduling,
            ThreadSetting::Nice,
            ThreadSetting::Affinity,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }
}

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
    /// A kernel file change; `path` is the system path (`/proc/irq/26/smp_affinity_list`).
    pub fn file(path: impl Into<String>, old: impl Into<String>, new: impl Into<String>) -> Self {
        Change {
            target: Target::File { path: path.into() },
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

    /// Sets the target to `new` (the file under `root`, or the thread).
    pub fn apply(&self, root: &Path) -> Result<(), Error> {
        match &self.target {
            Target::File { path } => file::write_value(&under(root, path), &self.new),
            Target::Thread { tid, setting, .. } => thread::set(*tid, *setting, &self.new),
        }
    }

    /// The target's value now (as [`Change::old`] was read).
    pub fn current(&self, root: &Path) -> Result<String, Error> {
        match &self.target {
            Target::File { path } => file::read_value(&under(root, path)),
            Target::Thread { tid, setting, .. } => thread::current(*tid, *setting),
        }
    }

    /// The file written, under `root` (`None` for a thread setting).
    pub fn path_under(&self, root: &Path) -> Option<PathBuf> {
        match &self.target {
            Target::File { path } => Some(under(root, path)),
            Target::Thread { .. } => None,
        }
    }

    /// The target in words: the file's path under `root`, or
    /// `thread 1201 "servo-rt" (pid 1200) scheduling`.
    pub fn target_text(&self, root: &Path) -> String {
        match &self.target {
            Target::File { path } => under(root, path).display().to_string(),
            Target::Thread {
                pid,
                tid,
                name,
                setting,
            } => format!("thread {tid} \"{name}\" (pid {pid}) {}", setting.words()),
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

/// The system path `path` under `root`.
pub(crate) fn under(root: &Path, path: &str) -> PathBuf {
    root.join(path.trim_start_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_and_inverts() {
        let change = Change::file("/proc/irq/26/smp_affinity_list", "0-3", "0-2");
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

        let thread = Change {
            target: Target::Thread {
                pid: 1200,
                tid: 1201,
                name: "servo-rt".into(),
                setting: ThreadSetting::Scheduling,
            },
            old: "fifo:80".into(),
            new: "fifo:98".into(),
        };
        assert_eq!(
            thread.to_string(),
            "thread 1201 \"servo-rt\" (pid 1200) scheduling: fifo:80 → fifo:98"
        );
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
