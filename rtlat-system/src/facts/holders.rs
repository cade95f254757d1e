//! Which processes hold a file open: the links `/proc/PID/fd/N`, read (never followed) and
//! compared with the file's path — how `/dev/cpu_dma_latency`'s holders are found.
//!
//! A captured tree keeps such links as symbolic links to the same absolute path; they are only
//! read with `readlink`, so they never lead out of the tree.

use std::path::Path;

use super::error::FactError;
use super::read;
use super::root::Facts;

/// The processes found holding a file open.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Holders {
    /// The PIDs of the processes holding it, ascending.
    pub pids: Vec<u32>,
    /// The processes searched (every numbered entry of `/proc`).
    pub searched: usize,
    /// The processes whose `fd/` could not be read (another user's without root).
    pub unreadable: usize,
}

impl Facts {
    /// The processes that have `file` (an absolute system path such as
    /// `/dev/cpu_dma_latency`) open.
    pub fn holders_of(&self, file: &str) -> Result<Holders, FactError> {
        let mut holders = Holders::default();
        for pid in self.pids()? {
            holders.searched += 1;
            let dir = self.path(&format!("proc/{pid}/fd"));
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                // Exited since listed, or a tree that kept no fd/ for it.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(_) => {
                    holders.unreadable += 1;
                    continue;
                }
            };
            let holds = entries.filter_map(Result::ok).any(|entry| {
                read::number_of(&entry.file_name().to_string_lossy()).is_some()
                    && std::fs::read_link(entry.path())
                        .is_ok_and(|target| target == Path::new(file))
            });
            if holds {
                holders.pids.push(pid);
            }
        }
        Ok(holders)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_found_holding_a_file_it_opened() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let path = file.path().canonicalize().unwrap();
        let _open = std::fs::File::open(&path).unwrap();
        let holders = Facts::live().holders_of(path.to_str().unwrap()).unwrap();
        assert!(holders.pids.contains(&std::process::id()), "{holders:?}");
        assert!(holders.searched >= holders.pids.len());
        let none = Facts::live().holders_of("/nonexistent/file").unwrap();
        assert!(none.pids.is_empty());
    }
}
