//! [`Facts`]: the root directory every fact is read under (`/` on a live system, a tree
//! captured from another machine in tests); the files of this folder add its methods.

use std::path::{Path, PathBuf};

/// System facts under a root directory (`/` on a live system, a captured tree in tests).
///
/// Holds only the root: each method reads its file(s) when called, so a `Facts` is cheap to
/// make and always current.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Facts {
    root: PathBuf,
}

impl Facts {
    /// Facts of the system whose root directory is `root` (`/proc` and `/sys` are read under
    /// it).
    pub fn at(root: impl AsRef<Path>) -> Facts {
        Facts {
            root: root.as_ref().to_path_buf(),
        }
    }

    /// Facts of the running system (root `/`).
    pub fn live() -> Facts {
        Facts::at("/")
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `relative` (e.g. `proc/irq/24/smp_affinity_list`) under the root, for the
    /// commands that write what these facts read. A leading `/` is ignored, so an absolute
    /// system path names the same file under the root.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative.trim_start_matches('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_under_the_root() {
        let facts = Facts::at("/tmp/tree");
        assert_eq!(
            facts.path("proc/cmdline"),
            Path::new("/tmp/tree/proc/cmdline")
        );
        assert_eq!(
            facts.path("/proc/cmdline"),
            Path::new("/tmp/tree/proc/cmdline")
        );
        assert_eq!(
            Facts::live().path("/proc/cmdline"),
            Path::new("/proc/cmdline")
        );
        assert_eq!(facts.root(), Path::new("/tmp/tree"));
    }
}
