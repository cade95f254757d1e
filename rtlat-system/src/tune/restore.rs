//! Restore files: the changes a tuning command made, saved as JSON so that
//! `rtlat irq|threads|cpufreq [--root DIR] --restore FILE` undoes them.
//!
//! ```json
//! {
//!   "format": "rtlat-restore-2",
//!   "command": "irq",
//!   "argv": ["rtlat", "irq", "--away-from", "3", "--apply"],
//!   "hostname": "rt-box",
//!   "machine_id": "3d1219c7c4c5404aaa1f6d2a48adfda4",
//!   "boot_id": "5c2e…",
//!   "kernel": "6.1.0-18-rt-amd64",
//!   "saved_unix": 1774000000,
//!   "saved_utc": "2026-03-20T09:46:40Z",
//!   "root": "/",
//!   "applied": true,
//!   "changes": [
//!     {"setting": "irq_affinity", "irq": 26, "actions": ["enp1s0"], "old": "0-3", "new": "0-2"},
//!     {"setting": "default_irq_affinity", "old": "f", "new": "7"},
//!     {"setting": "cpufreq_governor", "cpu": 2, "old": "ondemand", "new": "performance"},
//!     {"setting": "thread_scheduling", "pid": 1200, "tid": 1201, "name": "servo-rt",
//!      "start_time": 4711, "old": "fifo:80+reset-on-fork", "new": "fifo:98+reset-on-fork"}
//!   ]
//! }
//! ```
//!
//! `changes` are in the order they were made; a restore undoes them in reverse. `applied` is
//! false in the copy written just before the changes are made (so that a command killed
//! half-way still leaves a file that undoes what it did), true once they are made.
//!
//! A restore file can only undo what its command changed on this machine, this boot:
//!
//! - It names *what* was changed (an IRQ number, a CPU and a cpufreq setting, a thread and
//!   a scheduling setting), never a path: the kernel file written is derived from that and
//!   the root given on the command line (`--root`, default `/`); its `root` must be that
//!   root, or it is refused. Only `/proc/irq/N/smp_affinity_list`,
//!   `/proc/irq/default_smp_affinity` and `/sys/devices/system/cpu/cpuN/cpufreq/scaling_*`
//!   can be written, and never through a symbolic link (see [`super::file`]).
//! - It is refused as a whole, before anything is written, if it does not parse (format
//!   `rtlat-restore-2`, no unknown field), was saved on another machine (host name and
//!   `/etc/machine-id`) or in another boot (`boot_id`: IRQ numbers, thread ids and cpufreq
//!   settings do not survive a reboot), or if any change fails its check: the IRQ is gone or
//!   now has other handlers; a thread's id now names another thread (process `pid` has a
//!   thread `tid` of another name or start time); the CPU has no cpufreq; a value is not one of its setting's on this machine
//!   (CPU lists of its CPUs, one of the CPU's governors, a frequency in its range, a
//!   scheduling that parses); a file cannot be opened for writing by this user; a thread
//!   setting could not be set back by this user.
//! - What is written is only ever a value of the setting's kind, checked as above.
//! - A thread that is gone (process `pid` has no thread `tid` any more: it ended, or its
//!   whole process exited, as QEMU does when its guest powers off) is not a reason to refuse:
//!   its settings ended with it and nothing of the change is left. Its changes are reported
//!   as [`Undone::ThreadGone`] and the others restored. A thread id handed out again to a
//!   thread of *another* process leaves `/proc/PID/task/TID` absent too: that thread is not
//!   the one changed, and it is left alone. Thread changes are made by thread id only after
//!   the thread is checked to be still the one recorded (its process and start time).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::change::{Change, CpufreqSetting, Target, ThreadSetting};
use super::error::TuneError;
use super::{file, permission, thread_setting::SchedValue};
use crate::facts::{FactResultExt as _, Facts, Interrupts, parse_cpu_mask};
use rtlat_linux::cpuset::CpuSet;

/// The value of a restore file's `format`.
pub const FORMAT: &str = "rtlat-restore-2";

/// The most bytes of a restore file read.
pub const MAX_FILE: u64 = 16 << 20;

/// A restore file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreFile {
    /// The command that made the changes: `irq`, `threads` or `cpufreq`.
    pub command: String,
    /// Its command line.
    pub argv: Vec<String>,
    /// The machine and boot the changes were made on.
    pub machine: Machine,
    /// When it was saved, in seconds since 1970 (UTC).
    pub saved_unix: u64,
    /// The root the files were written under (`/` on a live system), as the command line
    /// gave it, made absolute.
    pub root: PathBuf,
    /// Whether the changes were made (false in the copy saved just before).
    pub applied: bool,
    /// The changes, in the order they were made.
    pub changes: Vec<Change>,
}

/// Which machine, and which boot of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// The host name (`/proc/sys/kernel/hostname`).
    pub hostname: String,
    /// `/etc/machine-id` under the root, where there is one: cloned images share a host name.
    pub machine_id: Option<String>,
    /// The boot's id (`/proc/sys/kernel/random/boot_id`).
    pub boot_id: String,
    /// The kernel release under the root (for people: the boot id decides).
    pub kernel: String,
}

impl Machine {
    /// This machine, now, with the root `root`.
    pub fn here(root: &Path) -> Machine {
        let text = |path: &Path| {
            std::fs::read_to_string(path)
                .ok()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
        };
        Machine {
            hostname: text(Path::new("/proc/sys/kernel/hostname")).unwrap_or_default(),
            machine_id: text(&root.join("etc/machine-id")),
            boot_id: text(Path::new("/proc/sys/kernel/random/boot_id")).unwrap_or_default(),
            kernel: Facts::at(root).os_release().unwrap_or_default(),
        }
    }
}

/// One change of a restore, made or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The undoing change: from the value found now to the value saved as old (for a thread
    /// that is gone, from the value saved as new).
    pub change: Change,
    /// Whether it was made, or had nothing left to undo.
    pub result: Result<Undone, TuneError>,
}

/// How a change of a restore file was undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undone {
    /// The saved old value was set.
    Set,
    /// The thread changed is gone (it ended, or its process exited): its settings ended with
    /// it, so there was nothing to set, and nothing was.
    ThreadGone,
}

/// The file as it is on disk.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct OnDisk {
    format: String,
    command: String,
    argv: Vec<String>,
    hostname: String,
    machine_id: Option<String>,
    boot_id: String,
    kernel: String,
    saved_unix: u64,
    #[serde(default)]
    saved_utc: String,
    root: String,
    applied: bool,
    changes: Vec<Record>,
}

/// One change as it is on disk: what was set, old and new value.
#[derive(Serialize, Deserialize)]
#[serde(tag = "setting", rename_all = "snake_case", deny_unknown_fields)]
enum Record {
    IrqAffinity {
        irq: u32,
        actions: Vec<String>,
        old: String,
        new: String,
    },
    DefaultIrqAffinity {
        old: String,
        new: String,
    },
    CpufreqGovernor {
        cpu: usize,
        old: String,
        new: String,
    },
    CpufreqMinFreq {
        cpu: usize,
        old: String,
        new: String,
    },
    IdleStateDisable {
        cpu: usize,
        state: u32,
        old: String,
        new: String,
    },
    CpufreqMaxFreq {
        cpu: usize,
        old: String,
        new: String,
    },
    ThreadScheduling {
        pid: u32,
        tid: u32,
        name: String,
        start_time: u64,
        old: String,
        new: String,
    },
    ThreadNice {
        pid: u32,
        tid: u32,
        name: String,
        start_time: u64,
        old: String,
        new: String,
    },
    ThreadAffinity {
        pid: u32,
        tid: u32,
        name: String,
        start_time: u64,
        old: String,
        new: String,
    },
}

impl Record {
    fn of(change: &Change) -> Record {
        let (old, new) = (change.old.clone(), change.new.clone());
        match &change.target {
            Target::IrqAffinity { irq, actions } => Record::IrqAffinity {
                irq: *irq,
                actions: actions.clone(),
                old,
                new,
            },
            Target::DefaultIrqAffinity => Record::DefaultIrqAffinity { old, new },
            Target::IdleStateDisable { cpu, state } => Record::IdleStateDisable {
                cpu: *cpu,
                state: *state,
                old,
                new,
            },
            Target::Cpufreq { cpu, setting } => {
                let cpu = *cpu;
                match setting {
                    CpufreqSetting::Governor => Record::CpufreqGovernor { cpu, old, new },
                    CpufreqSetting::MinFreq => Record::CpufreqMinFreq { cpu, old, new },
                    CpufreqSetting::MaxFreq => Record::CpufreqMaxFreq { cpu, old, new },
                }
            }
            Target::Thread {
                pid,
                tid,
                name,
                start_time,
                setting,
            } => {
                let (pid, tid, name, start_time) = (*pid, *tid, name.clone(), *start_time);
                match setting {
                    ThreadSetting::Scheduling => Record::ThreadScheduling {
                        pid,
                        tid,
                        name,
                        start_time,
                        old,
                        new,
                    },
                    ThreadSetting::Nice => Record::ThreadNice {
                        pid,
                        tid,
                        name,
                        start_time,
                        old,
                        new,
                    },
                    ThreadSetting::Affinity => Record::ThreadAffinity {
                        pid,
                        tid,
                        name,
                        start_time,
                        old,
                        new,
                    },
                }
            }
        }
    }

    fn into_change(self) -> Change {
        let thread = |pid, tid, name, start_time, setting| Target::Thread {
            pid,
            tid,
            name,
            start_time,
            setting,
        };
        let cpufreq = |cpu, setting| Target::Cpufreq { cpu, setting };
        let (target, old, new) = match self {
            Record::IrqAffinity {
                irq,
                actions,
                old,
                new,
            } => (Target::IrqAffinity { irq, actions }, old, new),
            Record::DefaultIrqAffinity { old, new } => (Target::DefaultIrqAffinity, old, new),
            Record::CpufreqGovernor { cpu, old, new } => {
                (cpufreq(cpu, CpufreqSetting::Governor), old, new)
            }
            Record::CpufreqMinFreq { cpu, old, new } => {
                (cpufreq(cpu, CpufreqSetting::MinFreq), old, new)
            }
            Record::CpufreqMaxFreq { cpu, old, new } => {
                (cpufreq(cpu, CpufreqSetting::MaxFreq), old, new)
            }
            Record::IdleStateDisable {
                cpu,
                state,
                old,
                new,
            } => (Target::IdleStateDisable { cpu, state }, old, new),
            Record::ThreadScheduling {
                pid,
                tid,
                name,
                start_time,
                old,
                new,
            } => (
                thread(pid, tid, name, start_time, ThreadSetting::Scheduling),
                old,
                new,
            ),
            Record::ThreadNice {
                pid,
                tid,
                name,
                start_time,
                old,
                new,
            } => (
                thread(pid, tid, name, start_time, ThreadSetting::Nice),
                old,
                new,
            ),
            Record::ThreadAffinity {
                pid,
                tid,
                name,
                start_time,
                old,
                new,
            } => (
                thread(pid, tid, name, start_time, ThreadSetting::Affinity),
                old,
                new,
            ),
        };
        Change { target, old, new }
    }
}

/// Only `format`, to tell an older file from a broken one.
#[derive(Deserialize)]
struct FormatOnly {
    format: Option<serde_json::Value>,
}

impl RestoreFile {
    /// A restore file for `changes` made by `command` under `root`, now, on this machine.
    /// `root` is made absolute (as [`check`](Self::check) compares it).
    pub fn new(command: &str, argv: &[String], root: &Path, changes: Vec<Change>) -> Self {
        RestoreFile {
            command: command.to_owned(),
            argv: argv.to_vec(),
            machine: Machine::here(root),
            saved_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            root: canonical_root(root),
            applied: false,
            changes,
        }
    }

    /// The file's JSON text.
    pub fn to_json(&self) -> String {
        let disk = OnDisk {
            format: FORMAT.to_owned(),
            command: self.command.clone(),
            argv: self.argv.clone(),
            hostname: self.machine.hostname.clone(),
            machine_id: self.machine.machine_id.clone(),
            boot_id: self.machine.boot_id.clone(),
            kernel: self.machine.kernel.clone(),
            saved_unix: self.saved_unix,
            saved_utc: utc_text(self.saved_unix),
            root: self.root.to_string_lossy().into_owned(),
            applied: self.applied,
            changes: self.changes.iter().map(Record::of).collect(),
        };
        // Strings, numbers and lists only: serialising cannot fail.
        let mut text = serde_json::to_string_pretty(&disk).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Parses a restore file's text and checks every value for its setting's kind (not yet
    /// against a machine: see [`check`](Self::check)); the error is the reason, in words.
    pub fn parse(text: &str) -> Result<RestoreFile, String> {
        let format = serde_json::from_str::<FormatOnly>(text)
            .map_err(|e| e.to_string())?
            .format;
        match format.as_ref().and_then(serde_json::Value::as_str) {
            Some(FORMAT) => {}
            Some("rtlat-restore-1") => {
                return Err(
                    "it was written by an older rtlat (format rtlat-restore-1), whose restore files named the paths to write and are no longer trusted: set the `old` values it lists by hand"
                        .into(),
                );
            }
            _ => return Err(format!("no `\"format\": \"{FORMAT}\"`")),
        }
        let disk: OnDisk = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let changes: Vec<Change> = disk.changes.into_iter().map(Record::into_change).collect();
        for (i, change) in changes.iter().enumerate() {
            check_kind(change).map_err(|e| format!("change {}: {e}", i + 1))?;
        }
        Ok(RestoreFile {
            command: disk.command,
            argv: disk.argv,
            machine: Machine {
                hostname: disk.hostname,
                machine_id: disk.machine_id,
                boot_id: disk.boot_id,
                kernel: disk.kernel,
            },
            saved_unix: disk.saved_unix,
            root: PathBuf::from(disk.root),
            applied: disk.applied,
            changes,
        })
    }

    /// Reads and parses the restore file at `path` ([`TuneError::RestoreFile`] saying why not).
    pub fn read(path: &Path) -> Result<RestoreFile, TuneError> {
        use std::io::Read as _;
        let refuse = |reason: String| TuneError::RestoreFile {
            path: path.to_path_buf(),
            reason: one_line(&reason),
        };
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE + 1).read_to_end(&mut bytes))
            .map_err(|e| refuse(format!("cannot read it: {e}")))?;
        if bytes.len() as u64 > MAX_FILE {
            return Err(refuse(format!(
                "not an rtlat restore file: larger than {} MiB",
                MAX_FILE >> 20
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| refuse("not an rtlat restore file: not UTF-8".into()))?;
        RestoreFile::parse(&text).map_err(|e| refuse(format!("not an rtlat restore file: {e}")))
    }

    /// Checks, before anything is written, that the changes can be undone here, under `root`
    /// (the command line's `--root`, `/` by default): the file's root is that root; same
    /// machine, same boot; every IRQ, CPU and thread still the one changed; every value one of
    /// its setting's on this machine; every file writable by this user, through no link; every
    /// thread setting one this user may set back. `path` is the restore file's, for the
    /// message. The first problem found refuses the whole file.
    pub fn check(&self, path: &Path, root: &Path) -> Result<(), TuneError> {
        let refuse = |reason: String| TuneError::RestoreFile {
            path: path.to_path_buf(),
            reason: one_line(&reason),
        };
        let root = canonical_root(root);
        if self.root != root {
            return Err(refuse(format!(
                "it undoes changes made under the root {}, and this restore acts on {}: give --root {} if that tree is meant",
                self.root.display(),
                root.display(),
                self.root.display()
            )));
        }
        let here = Machine::here(&root);
        if self.machine.hostname != here.hostname || self.machine.machine_id != here.machine_id {
            let id = |m: &Machine| {
                m.machine_id
                    .as_deref()
                    .map_or_else(String::new, |id| format!(", machine id {id}"))
            };
            return Err(refuse(format!(
                "saved on machine `{}`{}, this is `{}`{}: restore it there",
                self.machine.hostname,
                id(&self.machine),
                here.hostname,
                id(&here)
            )));
        }
        if self.machine.boot_id != here.boot_id {
            return Err(refuse(
                "saved before the machine last booted: IRQ numbers, thread ids and cpufreq settings do not survive a reboot, so there is nothing left to restore"
                    .into(),
            ));
        }
        let facts = Facts::at(&root);
        let live = Facts::live();
        let irqs = self
            .changes
            .iter()
            .any(|c| matches!(c.target, Target::IrqAffinity { .. }));
        let interrupts = match irqs {
            true => facts
                .interrupts()
                .optional()
                .map_err(|e| refuse(e.to_string()))?,
            false => None,
        };
        for (i, change) in self.changes.iter().enumerate() {
            let n = i + 1;
            self.check_change(&facts, &live, interrupts.as_ref(), change)
                .map_err(|e| refuse(format!("change {n}: {e}")))?;
        }
        Ok(())
    }

    /// The check of one change (see [`check`](Self::check)); the error in words.
    fn check_change(
        &self,
        facts: &Facts,
        live: &Facts,
        interrupts: Option<&Interrupts>,
        change: &Change,
    ) -> Result<(), String> {
        let mut gone = false;
        match &change.target {
            Target::IrqAffinity { irq, actions } => {
                if !facts.irq_dir(*irq).is_dir() {
                    return Err(format!("IRQ {irq} no longer exists"));
                }
                let now = interrupts
                    .and_then(|all| all.irq(*irq))
                    .map(|line| line.actions.clone())
                    .unwrap_or_default();
                if now != *actions {
                    return Err(format!(
                        "IRQ {irq} was {} and is now {}: it is another device's now",
                        handlers(actions),
                        handlers(&now)
                    ));
                }
            }
            Target::DefaultIrqAffinity => {}
            Target::IdleStateDisable { cpu, state } => {
                if !facts
                    .cpuidle_states(*cpu)
                    .is_ok_and(|all| all.iter().any(|s| s.index == *state))
                {
                    return Err(format!("CPU {cpu} has no idle state {state} any more"));
                }
            }
            Target::Cpufreq { cpu, setting } => {
                let cpufreq = facts.cpufreq(*cpu);
                if !cpufreq.exists() {
                    return Err(format!("CPU {cpu} has no cpufreq any more"));
                }
                for value in [&change.old, &change.new] {
                    check_cpufreq_value(facts, *cpu, *setting, value)?;
                }
            }
            Target::Thread {
                pid,
                tid,
                name,
                start_time,
                ..
            } => {
                // Gone (no thread TID in process PID any more): nothing to check, nothing to
                // restore, once the values are known to be of their kind (above and below).
                let stat = live
                    .task_stat(*pid, *tid)
                    .optional()
                    .map_err(|e| e.to_string())?;
                gone = stat.is_none();
                if let Some(stat) = stat
                    && (stat.comm != *name || stat.start_time != *start_time)
                {
                    return Err(format!(
                        "thread {tid} is now \"{}\", not the \"{name}\" changed: the thread ended and its id was reused",
                        stat.comm
                    ));
                }
            }
        }
        if let Some(cpus) = cpu_values(change) {
            let machine = facts
                .possible_cpus()
                .or_else(|_| facts.online_cpus())
                .map_err(|e| e.to_string())?;
            for value in cpus {
                let set = value?;
                if !set.is_subset(&machine) {
                    return Err(format!(
                        "{}: {set} names CPUs this machine does not have ({}; its CPUs are {machine})",
                        change.target_text(&self.root),
                        set.difference(&machine)
                    ));
                }
            }
        }
        match change.target.system_path() {
            Some(path) => file::check_writable(&self.root, &path).map_err(|e| e.to_string()),
            None if gone => Ok(()),
            None => {
                let now = match change.current(&self.root) {
                    Ok(now) => now,
                    // Ended since (an exiting thread is in /proc a little longer).
                    Err(TuneError::NoSuchThread { .. }) => return Ok(()),
                    Err(e) => return Err(e.to_string()),
                };
                let undo = Change::new(change.target.clone(), now, change.old.clone());
                permission::check_threads(live, &[undo], false).map_err(|e| e.to_string())
            }
        }
    }

    /// Undoes the changes, last first, each from the value found now to the saved old value;
    /// a change that fails does not stop the others. A thread change whose thread is gone
    /// (see the module's notes), before or while it is undone, is [`Undone::ThreadGone`], and
    /// nothing is set. Call [`check`](Self::check) first.
    pub fn restore(&self) -> Vec<Restored> {
        let live = Facts::live();
        self.changes
            .iter()
            .rev()
            .map(|change| {
                let gone = |change: Change| Restored {
                    change,
                    result: Ok(Undone::ThreadGone),
                };
                if let Target::Thread { pid, tid, .. } = &change.target
                    && matches!(live.task_stat(*pid, *tid).optional(), Ok(None))
                {
                    return gone(change.inverse());
                }
                let found = change
                    .current(&self.root)
                    .unwrap_or_else(|_| change.new.clone());
                let undo = Change::new(change.target.clone(), found, change.old.clone());
                match undo.apply(&self.root) {
                    Ok(()) => Restored {
                        change: undo,
                        result: Ok(Undone::Set),
                    },
                    // It ended since it was checked (its id may name another thread now,
                    // which `apply` left alone).
                    Err(e) if e.is_thread_gone() => gone(undo),
                    Err(e) => Restored {
                        change: undo,
                        result: Err(e),
                    },
                }
            })
            .collect()
    }
}

/// `text` with its control characters escaped (`\n`): what a file holds is quoted on one
/// line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `root` made absolute, as restore files hold it (as given if that fails).
fn canonical_root(root: &Path) -> PathBuf {
    std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())
}

/// `enp1s0`, `ehci_hcd:usb1, uhci_hcd:usb2`, or `without a handler`.
fn handlers(actions: &[String]) -> String {
    if actions.is_empty() {
        "without a handler".into()
    } else {
        format!("`{}`", actions.join(", "))
    }
}

/// The old and new value of a change that holds CPUs, parsed.
fn cpu_values(change: &Change) -> Option<Vec<Result<CpuSet, String>>> {
    let parse = |value: &str| -> Result<CpuSet, String> {
        match change.target {
            Target::DefaultIrqAffinity => parse_cpu_mask(value).map_err(|e| e.to_string()),
            _ => CpuSet::parse(value).map_err(|e| e.to_string()),
        }
    };
    match change.target {
        Target::IrqAffinity { .. }
        | Target::DefaultIrqAffinity
        | Target::Thread {
            setting: ThreadSetting::Affinity,
            ..
        } => Some(vec![parse(&change.old), parse(&change.new)]),
        _ => None,
    }
}

/// Checks that both values of `change` are of its setting's kind (not yet against a
/// machine); the error in words.
fn check_kind(change: &Change) -> Result<(), String> {
    for value in [&change.old, &change.new] {
        let valid = match &change.target {
            Target::IrqAffinity { .. } | Target::DefaultIrqAffinity => true,
            Target::IdleStateDisable { .. } => matches!(value.as_str(), "0" | "1"),
            Target::Cpufreq {
                setting: CpufreqSetting::Governor,
                ..
            } => is_governor_name(value),
            Target::Cpufreq { .. } => is_khz(value),
            Target::Thread { setting, .. } => match setting {
                ThreadSetting::Scheduling => value.parse::<SchedValue>().is_ok(),
                ThreadSetting::Nice => value.parse::<i32>().is_ok_and(|n| (-20..=19).contains(&n)),
                ThreadSetting::Affinity => true,
            },
        };
        if !valid {
            return Err(format!(
                "`{value}` is not a valid {}",
                kind_words(&change.target)
            ));
        }
    }
    if let Some(values) = cpu_values(change) {
        for value in values {
            value.map_err(|e| format!("not a valid {}: {e}", kind_words(&change.target)))?;
        }
    }
    match &change.target {
        Target::Thread { pid, tid, .. } if *pid == 0 || *tid == 0 => {
            Err("thread and process ids start at 1".into())
        }
        _ => Ok(()),
    }
}

fn kind_words(target: &Target) -> &'static str {
    match target {
        Target::IrqAffinity { .. } => "IRQ affinity",
        Target::DefaultIrqAffinity => "default IRQ affinity (a hex CPU mask)",
        Target::IdleStateDisable { .. } => "idle state switch (0 or 1)",
        Target::Cpufreq {
            setting: CpufreqSetting::Governor,
            ..
        } => "cpufreq governor",
        Target::Cpufreq { .. } => "frequency (whole kHz)",
        Target::Thread { setting, .. } => setting.words(),
    }
}

/// Whether `name` can be a cpufreq governor's name: letters, digits, `_`, `-`, 1 to 15 of
/// them.
fn is_governor_name(name: &str) -> bool {
    (1..=15).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn is_khz(value: &str) -> bool {
    (1..=12).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_digit())
}

/// Checks `value` against CPU `cpu`'s cpufreq: one of its governors, a frequency in its
/// hardware range.
fn check_cpufreq_value(
    facts: &Facts,
    cpu: usize,
    setting: CpufreqSetting,
    value: &str,
) -> Result<(), String> {
    let cpufreq = facts.cpufreq(cpu);
    match setting {
        CpufreqSetting::Governor => {
            let available = cpufreq
                .available_governors()
                .optional()
                .map_err(|e| e.to_string())?
                .unwrap_or_default();
            if !available.iter().any(|g| g == value) {
                return Err(format!(
                    "CPU {cpu} has no cpufreq governor `{value}`: its governors are {}",
                    available.join(" ")
                ));
            }
        }
        CpufreqSetting::MinFreq | CpufreqSetting::MaxFreq => {
            let khz: u64 = value
                .parse()
                .map_err(|_| format!("`{value}` is not a frequency in kHz"))?;
            let low = cpufreq.cpuinfo_min_khz().map_err(|e| e.to_string())?;
            let high = cpufreq.cpuinfo_max_khz().map_err(|e| e.to_string())?;
            if !(low..=high).contains(&khz) {
                return Err(format!(
                    "{khz} kHz is outside CPU {cpu}'s range, {low} to {high} kHz"
                ));
            }
        }
    }
    Ok(())
}

/// `unix` (seconds since 1970) as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_text(unix: u64) -> String {
    let days = unix / 86_400;
    let seconds = unix % 86_400;
    // Howard Hinnant's civil_from_days, for days since 1970-01-01 (never negative here).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    fn thread(setting: ThreadSetting, old: &str, new: &str) -> Change {
        Change::new(
            Target::Thread {
                pid: 1200,
                tid: 1201,
                name: "my \"weird\" (comm)".into(),
                start_time: 4711,
                setting,
            },
            old,
            new,
        )
    }

    fn sample() -> RestoreFile {
        let mut file = RestoreFile::new(
            "threads",
            &[
                "rtlat".into(),
                "threads".into(),
                "--tid".into(),
                "1201".into(),
            ],
            Path::new("/"),
            vec![
                Change::new(
                    Target::IrqAffinity {
                        irq: 26,
                        actions: vec!["enp1s0".into()],
                    },
                    "0-3",
                    "0-2",
                ),
                Change::new(Target::DefaultIrqAffinity, "f", "7"),
                Change::new(
                    Target::Cpufreq {
                        cpu: 2,
                        setting: CpufreqSetting::Governor,
                    },
                    "ondemand",
                    "performance",
                ),
                Change::new(
                    Target::Cpufreq {
                        cpu: 2,
                        setting: CpufreqSetting::MaxFreq,
                    },
                    "2000000",
                    "1600000",
                ),
                thread(ThreadSetting::Scheduling, "other+reset-on-fork", "fifo:98"),
                thread(ThreadSetting::Nice, "0", "-5"),
                thread(ThreadSetting::Affinity, "0-3", "3"),
            ],
        );
        file.applied = true;
        file
    }

    #[test]
    fn round_trips() {
        let file = sample();
        let text = file.to_json();
        assert_eq!(RestoreFile::parse(&text), Ok(file.clone()));
        assert!(text.contains("\"format\": \"rtlat-restore-2\""), "{text}");
        assert!(!text.contains("\"path\""), "no paths in the file: {text}");
        let empty = RestoreFile {
            changes: Vec::new(),
            ..file
        };
        assert_eq!(RestoreFile::parse(&empty.to_json()), Ok(empty));
    }

    #[test]
    fn refuses_paths_and_values_not_of_their_kind() {
        let text = sample().to_json();
        for (from, to, reason) in [
            (
                "\"irq\": 26,",
                "\"irq\": 26, \"path\": \"/etc/passwd\",",
                "unknown field `path`",
            ),
            ("\"irq\": 26", "\"irq\": \"../../etc\"", "invalid type"),
            ("\"cpu\": 2", "\"cpu\": -1", "invalid value"),
            ("\"fifo:98\"", "\"fifo:100\"", "not a valid scheduling"),
            ("\"-5\"", "\"-21\"", "not a valid nice value"),
            (
                "\"0-3\",\n      \"new\": \"3\"",
                "\"0-3\",\n      \"new\": \"x\"",
                "not a valid CPU affinity",
            ),
            (
                "\"0-3\",\n      \"new\": \"0-2\"",
                "\"0-3\\n/etc\",\n      \"new\": \"0-2\"",
                "not a valid IRQ affinity",
            ),
            ("\"f\"", "\"xyz\"", "not a valid default IRQ affinity"),
            (
                "\"performance\"",
                "\"perf ormance\"",
                "not a valid cpufreq governor",
            ),
            ("\"1600000\"", "\"1.6GHz\"", "not a valid frequency"),
            (
                "\"thread_nice\"",
                "\"thread_deadline\"",
                "unknown variant `thread_deadline`",
            ),
            ("\"tid\": 1201", "\"tid\": 0", "ids start at 1"),
            ("rtlat-restore-2", "rtlat-restore-9", "format"),
            ("rtlat-restore-2", "rtlat-restore-1", "older rtlat"),
            ("\"applied\": true", "\"applied\": 1", "invalid type"),
            (
                "\"root\": \"/\",",
                "\"root\": \"/\", \"root2\": \"/\",",
                "unknown field",
            ),
        ] {
            let bad = text.replacen(from, to, 1);
            assert_ne!(bad, text, "{from}");
            let err = RestoreFile::parse(&bad).unwrap_err();
            assert!(err.contains(reason), "{to}: {err}");
        }
        assert!(RestoreFile::parse("").is_err());
        assert!(RestoreFile::parse("{}").is_err());
    }

    #[test]
    fn another_root_machine_or_boot_is_refused() {
        let path = Path::new("r.json");
        let mut file = sample();
        file.changes.clear();
        file.check(path, Path::new("/")).unwrap();
        let err = file.check(path, Path::new("/tmp")).unwrap_err().to_string();
        assert!(
            err.contains("made under the root /, and this restore acts on /tmp"),
            "{err}"
        );
        let mut other = file.clone();
        other.machine.hostname = "clone".into();
        let err = other.check(path, Path::new("/")).unwrap_err().to_string();
        assert!(err.contains("saved on machine `clone`"), "{err}");
        if file.machine.machine_id.is_some() {
            let mut other = file.clone();
            other.machine.machine_id = Some("0123".into());
            let err = other.check(path, Path::new("/")).unwrap_err().to_string();
            assert!(err.contains("machine id 0123"), "{err}");
        }
        let mut other = file.clone();
        other.machine.boot_id = "another boot".into();
        let err = other.check(path, Path::new("/")).unwrap_err().to_string();
        assert!(
            err.contains("saved before the machine last booted"),
            "{err}"
        );
    }

    /// The id and start time of a thread of this process that has ended (and left `/proc`,
    /// which a thread does a little after `join` returns).
    pub(crate) fn ended_thread() -> (u32, u64) {
        let pid = std::process::id();
        let (tid, start_time) = std::thread::spawn(move || {
            let tid = u32::try_from(rtlat_linux::gettid()).unwrap();
            (tid, Facts::live().task_stat(pid, tid).unwrap().start_time)
        })
        .join()
        .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while Path::new(&format!("/proc/{pid}/task/{tid}")).exists() {
            assert!(
                std::time::Instant::now() < until,
                "thread {tid} never left /proc"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        (tid, start_time)
    }

    #[test]
    fn a_thread_that_is_gone_has_nothing_to_restore_and_a_reused_id_is_refused() {
        let pid = std::process::id();
        let (tid, start_time) = ended_thread();
        let change = |tid, name: &str, start_time| {
            Change::new(
                Target::Thread {
                    pid,
                    tid,
                    name: name.into(),
                    start_time,
                    setting: ThreadSetting::Scheduling,
                },
                "other",
                "fifo:98",
            )
        };
        let path = Path::new("r.json");
        let mut file = RestoreFile::new("threads", &[], Path::new("/"), Vec::new());
        file.applied = true;
        file.changes = vec![change(tid, "CPU 0/KVM", start_time)];
        file.check(path, Path::new("/")).unwrap();
        let restored = file.restore();
        assert_eq!(restored.len(), 1);
        assert_eq!(restored[0].result, Ok(Undone::ThreadGone));
        assert_eq!(restored[0].change, file.changes[0].inverse());

        // This thread, with another start time: its id was reused; the whole file refused.
        let me = u32::try_from(rtlat_linux::gettid()).unwrap();
        let stat = Facts::live().task_stat(pid, me).unwrap();
        file.changes
            .push(change(me, &stat.comm, stat.start_time + 1));
        let err = file.check(path, Path::new("/")).unwrap_err().to_string();
        assert!(
            err.contains("change 2: thread") && err.contains("its id was reused"),
            "{err}"
        );
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc_text(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_text(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_text(1_774_000_000), "2026-03-20T09:46:40Z");
        assert_eq!(utc_text(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    proptest! {
        #[test]
        fn never_panics(text in ".{0,200}") {
            let _ = RestoreFile::parse(&text);
        }

        #[test]
        fn never_panics_on_edited_files(cut in 0usize..3000, junk in "[\\[\\]{}\",:0-9a-z]{0,4}") {
            let text = sample().to_json();
            let mut at = cut.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let edited = format!("{}{junk}{}", &text[..at], &text[at..]);
            let _ = RestoreFile::parse(&edited);
        }
    }
}
