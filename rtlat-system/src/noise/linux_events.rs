//! What Linux did on one CPU, as counts a thread can read between two busy-poll widths: the
//! CPU's interrupts of every kind (`/proc/interrupts`, its column of every line: device IRQs,
//! the local timer, IPIs, NMIs) and the reading thread's own context switches
//! (`/proc/thread-self/status`). Each such event takes the CPU from a polling thread at most
//! once, so a width with `k` events explains at most `k` of its gaps: hwnoise's poll method
//! counts the rest as noise Linux did not make (firmware, SMIs, a hypervisor).

use std::path::PathBuf;

use super::counters::{column_of, interrupt_column};

/// The counts at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventCounts {
    /// Interrupts of every kind on the CPU, NMIs included.
    pub interrupts: u64,
    /// NMIs alone (the `NMI` line).
    pub nmis: u64,
    /// The thread's voluntary and involuntary context switches.
    pub switches: u64,
}

impl EventCounts {
    /// The events from `earlier` to `self`: interrupts plus switches (a counter that went
    /// back counts 0).
    pub fn events_since(&self, earlier: &EventCounts) -> u64 {
        self.interrupts.saturating_sub(earlier.interrupts)
            + self.switches.saturating_sub(earlier.switches)
    }
}

/// Reads [`EventCounts`] for one CPU, from the calling thread, into buffers it reuses.
#[derive(Debug)]
pub struct LinuxEvents {
    cpu: usize,
    root: PathBuf,
    text: String,
}

impl LinuxEvents {
    /// For `cpu`, reading the files under `root` (`/` on a live system).
    pub fn new(root: impl Into<PathBuf>, cpu: usize) -> LinuxEvents {
        LinuxEvents {
            cpu,
            root: root.into(),
            text: String::with_capacity(64 << 10),
        }
    }

    /// The counts now; `None` when a file cannot be read or has no column for the CPU.
    pub fn read(&mut self) -> Option<EventCounts> {
        use std::io::Read as _;
        let read = |name: &str, text: &mut String| {
            text.clear();
            std::fs::File::open(self.root.join(name))
                .and_then(|f| f.take(4 << 20).read_to_string(text))
                .ok()
        };
        read("proc/interrupts", &mut self.text)?;
        let column = column_of(self.text.lines().next()?, self.cpu)?;
        let (mut interrupts, mut nmis) = (0u64, 0u64);
        interrupt_column(&self.text, column, |_, label, count| {
            interrupts = interrupts.saturating_add(count);
            if label == "NMI" {
                nmis = count;
            }
        });
        read("proc/thread-self/status", &mut self.text)?;
        let field = |name: &str| {
            self.text.lines().find_map(|l| {
                l.strip_prefix(name)?
                    .strip_prefix(':')?
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
        };
        let switches = field("voluntary_ctxt_switches")? + field("nonvoluntary_ctxt_switches")?;
        Some(EventCounts {
            interrupts,
            nmis,
            switches,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_come_from_the_cpus_column_and_the_threads_switches() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("proc/thread-self")).unwrap();
        std::fs::write(
            dir.path().join("proc/interrupts"),
            "           CPU0       CPU1\n  0:         40          2   IO-APIC   2-edge      timer\nNMI:          3          7   Non-maskable interrupts\nLOC:       1000        500   Local timer interrupts\nERR:          0\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("proc/thread-self/status"),
            "Name:\tx\nvoluntary_ctxt_switches:\t4\nnonvoluntary_ctxt_switches:\t6\n",
        )
        .unwrap();
        let counts = LinuxEvents::new(dir.path(), 1).read().unwrap();
        assert_eq!(
            counts,
            EventCounts {
                interrupts: 2 + 7 + 500,
                nmis: 7,
                switches: 10
            }
        );
        assert_eq!(
            LinuxEvents::new(dir.path(), 5).read(),
            None,
            "no column for CPU 5"
        );
        let later = EventCounts {
            interrupts: 520,
            nmis: 7,
            switches: 9,
        };
        assert_eq!(
            later.events_since(&counts),
            11,
            "a counter gone back counts 0"
        );
    }

    #[test]
    fn this_machines_counts_only_grow_while_a_thread_sleeps() {
        let mut events = LinuxEvents::new("/", 0);
        let before = events.read().expect("/proc/interrupts has CPU0");
        std::thread::sleep(std::time::Duration::from_millis(20));
        let after = events.read().unwrap();
        assert!(after.interrupts >= before.interrupts);
        assert!(
            after.switches > before.switches,
            "a sleep is a voluntary switch"
        );
    }
}
