//! Restore files: the changes a tuning command made, saved as JSON so that
//! `rtlat irq|threads|cpufreq --restore FILE` undoes them.
//!
//! ```json
//! {
//!   "format": "rtlat-restore-1",
//!   "command": "irq",
//!   "argv": ["rtlat", "irq", "--away-from", "3", "--apply"],
//!   "machine": "rt-box",
//!   "boot_id": "5c2e…",
//!   "kernel": "6.1.0-18-rt-amd64",
//!   "saved_unix": 1774000000,
//!   "saved_utc": "2026-03-20T09:46:40Z",
//!   "root": "/",
//!   "applied": true,
//!   "changes": [
//!     {"path": "/proc/irq/26/smp_affinity_list", "old": "0-3", "new": "0-2"},
//!     {"pid": 1200, "tid": 1201, "name": "servo-rt", "setting": "scheduling", "old": "fifo:80", "new": "fifo:98"}
//!   ]
//! }
//! ```
//!
//! `changes` are in the order they were made; a restore undoes them in reverse. `applied` is
//! false in the copy written just before the changes are made (so that a command killed
//! half-way still leaves a file that undoes what it did), true once they are made.
//!
//! A restore file is refused as a whole, before anything is written, if it does not parse,
//! names a file outside `/proc/irq/` and `/sys/devices/system/cpu/` (a restore file run as
//! root must not be a way to write anywhere), holds a value that is not one of its setting's,
//! was saved on another machine, or names a file or thread that no longer exists (a thread
//! from before a reboot, or whose id now names another thread, counts as gone).

use std::path::{Component, Path, PathBuf};

use super::change::{Change, Target, ThreadSetting, under};
use super::json::{Json, quote};
use super::thread::SchedRequest;
use crate::cpuset::CpuSet;
use crate::error::Error;
use crate::facts::{FactResultExt as _, Facts};

/// The value of a restore file's `format`.
pub const FORMAT: &str = "rtlat-restore-1";

/// The system folders a restore file may write in.
const WRITABLE: [&str; 2] = ["/proc/irq/", "/sys/devices/system/cpu/"];

/// The most bytes of a restore file read.
const MAX_FILE: u64 = 16 << 20;

/// A restore file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreFile {
    /// The command that made the changes: `irq`, `threads` or `cpufreq`.
    pub command: String,
    /// Its command line.
    pub argv: Vec<String>,
    /// The host name of the machine.
    pub machine: String,
    /// The boot's id (`/proc/sys/kernel/random/boot_id`): thread ids mean nothing after a
    /// reboot.
    pub boot_id: String,
    /// The kernel release under the root.
    pub kernel: String,
    /// When it was saved, in seconds since 1970 (UTC).
    pub saved_unix: u64,
    /// The root the files were written under (`/` on a live system).
    pub root: PathBuf,
    /// Whether the changes were made (false in the copy saved just before).
    pub applied: bool,
    /// The changes, in the order they were made.
    pub changes: Vec<Change>,
}

/// One change of a restore, made or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The undoing change: from the value found now to the value saved as old.
    pub change: Change,
    /// Whether it was made.
    pub result: Result<(), Error>,
}

impl RestoreFile {
    /// A restore file for `changes` made by `command` under `root`, now, on this machine.
    pub fn new(command: &str, argv: &[String], root: &Path, changes: Vec<Change>) -> Self {
        let live = |path: &str| {
            std::fs::read_to_string(path)
                .map(|s| s.trim().to_owned())
                .unwrap_or_default()
        };
        RestoreFile {
            command: command.to_owned(),
            argv: argv.to_vec(),
            machine: live("/proc/sys/kernel/hostname"),
            boot_id: live("/proc/sys/kernel/random/boot_id"),
            kernel: Facts::at(root).os_release().unwrap_or_default(),
            saved_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            root: root.to_path_buf(),
            applied: false,
            changes,
        }
    }

    /// The file's JSON text (one change per line).
    pub fn to_json(&self) -> String {
        let argv: Vec<String> = self.argv.iter().map(|a| quote(a)).collect();
        let mut out = format!(
            "{{\n  \"format\": {},\n  \"command\": {},\n  \"argv\": [{}],\n  \"machine\": {},\n  \
             \"boot_id\": {},\n  \"kernel\": {},\n  \"saved_unix\": {},\n  \"saved_utc\": {},\n  \
             \"root\": {},\n  \"applied\": {},\n  \"changes\": [",
            quote(FORMAT),
            quote(&self.command),
            argv.join(", "),
            quote(&self.machine),
            quote(&self.boot_id),
            quote(&self.kernel),
            self.saved_unix,
            quote(&utc_text(self.saved_unix)),
            quote(&self.root.to_string_lossy()),
            self.applied,
        );
        for (i, change) in self.changes.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            out.push_str(&change_json(change));
        }
        out.push_str(if self.changes.is_empty() {
            "]\n}\n"
        } else {
            "\n  ]\n}\n"
        });
        out
    }

    /// Parses a restore file's text; the error is the reason, in words.
    pub fn parse(text: &str) -> Result<RestoreFile, String> {
        let doc = Json::parse(text)?;
        let string = |key: &str| {
            doc.get(key)
                .and_then(Json::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("no `{key}` string"))
        };
        if doc.get("format").and_then(Json::as_str) != Some(FORMAT) {
            return Err(format!("no `\"format\": \"{FORMAT}\"`"));
        }
        let argv = doc
            .get("argv")
            .and_then(Json::as_array)
            .ok_or("no `argv` list")?
            .iter()
            .map(|a| {
                a.as_str()
                    .map(str::to_owned)
                    .ok_or("`argv` holds a non-string")
            })
            .collect::<Result<Vec<_>, _>>()?;
        let applied = match doc.get("applied") {
            Some(Json::Bool(applied)) => *applied,
            _ => return Err("no `applied` true or false".into()),
        };
        let changes = doc
            .get("changes")
            .and_then(Json::as_array)
            .ok_or("no `changes` list")?
            .iter()
            .enumerate()
            .map(|(i, c)| parse_change(c).map_err(|e| format!("change {}: {e}", i + 1)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RestoreFile {
            command: string("command")?,
            argv,
            machine: string("machine")?,
            boot_id: string("boot_id")?,
            kernel: string("kernel")?,
            saved_unix: doc
                .get("saved_unix")
                .and_then(Json::as_u64)
                .ok_or("no `saved_unix` number")?,
            root: PathBuf::from(string("root")?),
            applied,
            changes,
        })
    }

    /// Reads and parses the restore file at `path` ([`Error::RestoreFile`] saying why not).
    pub fn read(path: &Path) -> Result<RestoreFile, Error> {
        use std::io::Read as _;
        let refuse = |reason: String| Error::RestoreFile {
            path: path.to_path_buf(),
            reason,
        };
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE).read_to_end(&mut bytes))
            .map_err(|e| refuse(format!("cannot read it: {e}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| refuse("not an rtlat restore file: not UTF-8".into()))?;
        RestoreFile::parse(&text).map_err(|e| refuse(format!("not an rtlat restore file: {e}")))
    }

    /// Checks, before anything is written, that the changes can be undone here: same
    /// machine, every file still there, every thread still there (same boot, same name).
    /// `path` is the restore file's, for the message.
    pub fn check(&self, path: &Path) -> Result<(), Error> {
        let refuse = |reason: String| Error::RestoreFile {
            path: path.to_path_buf(),
            reason,
        };
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|s| s.trim().to_owned())
            .unwrap_or_default();
        if self.machine != host {
            return Err(refuse(format!(
                "saved on machine `{}`, this is `{host}`: restore it there",
                self.machine
            )));
        }
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .map(|s| s.trim().to_owned())
            .unwrap_or_default();
        let live = Facts::live();
        for (i, change) in self.changes.iter().enumerate() {
            let n = i + 1;
            match &change.target {
                Target::File { path: file } => {
                    let at = under(&self.root, file);
                    if !at.exists() {
                        return Err(refuse(format!(
                            "change {n}: {} no longer exists",
                            at.display()
                        )));
                    }
                }
                Target::Thread { pid, tid, name, .. } => {
                    if self.boot_id != boot_id {
                        return Err(refuse(format!(
                            "change {n}: thread {tid} is gone: the machine was rebooted since the file was saved"
                        )));
                    }
                    let stat = live.task_stat(*pid, *tid).optional()?;
                    match stat {
                        None => {
                            return Err(refuse(format!(
                                "change {n}: thread {tid} of process {pid} (\"{name}\") no longer exists"
                            )));
                        }
                        Some(stat) if stat.comm != *name => {
                            return Err(refuse(format!(
                                "change {n}: thread {tid} is now \"{}\", not \"{name}\": the thread ended and its id was reused",
                                stat.comm
                            )));
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        Ok(())
    }

    /// Undoes the changes, last first, each from the value found now to the saved old value;
    /// a change that fails does not stop the others. Call [`check`](Self::check) first.
    pub fn restore(&self) -> Vec<Restored> {
        self.changes
            .iter()
            .rev()
            .map(|change| {
                let found = change
                    .current(&self.root)
                    .unwrap_or_else(|_| change.new.clone());
                let undo = Change {
                    target: change.target.clone(),
                    old: found,
                    new: change.old.clone(),
                };
                let result = undo.apply(&self.root);
                Restored {
                    change: undo,
                    result,
                }
            })
            .collect()
    }
}

fn change_json(change: &Change) -> String {
    match &change.target {
        Target::File { path } => format!(
            "{{\"path\": {}, \"old\": {}, \"new\": {}}}",
            quote(path),
            quote(&change.old),
            quote(&change.new)
        ),
        Target::Thread {
            pid,
            tid,
            name,
            setting,
        } => format!(
            "{{\"pid\": {pid}, \"tid\": {tid}, \"name\": {}, \"setting\": {}, \"old\": {}, \"new\": {}}}",
            quote(name),
            quote(setting.name()),
            quote(&change.old),
            quote(&change.new)
        ),
    }
}

fn parse_change(json: &Json) -> Result<Change, String> {
    let string = |key: &str| {
        json.get(key)
            .and_then(Json::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("no `{key}` string"))
    };
    let old = string("old")?;
    let new = string("new")?;
    for value in [&old, &new] {
        if value.chars().any(char::is_control) {
            return Err(format!("the value {value:?} holds a control character"));
        }
    }
    if json.get("path").is_some() {
        let path = string("path")?;
        let inside = WRITABLE.iter().any(|dir| path.starts_with(dir));
        let plain = Path::new(&path)
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        if !inside || !plain {
            return Err(format!(
                "`{path}` is not a file rtlat tunes (under {})",
                WRITABLE.join(" or ")
            ));
        }
        return Ok(Change::file(path, old, new));
    }
    let id = |key: &str| {
        json.get(key)
            .and_then(Json::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("no `{key}` (a `path`, or `pid` and `tid` numbers)"))
    };
    let (pid, tid) = (id("pid")?, id("tid")?);
    let setting_name = string("setting")?;
    let setting = ThreadSetting::from_name(&setting_name).ok_or_else(|| {
        format!("unknown setting `{setting_name}`: expected scheduling, nice or affinity")
    })?;
    for value in [&old, &new] {
        let valid = match setting {
            ThreadSetting::Scheduling => value
                .parse::<SchedRequest>()
                .is_ok_and(|r| r.nice.is_none()),
            ThreadSetting::Nice => value.parse::<i32>().is_ok_and(|n| (-20..=19).contains(&n)),
            ThreadSetting::Affinity => CpuSet::parse(value).is_ok(),
        };
        if !valid {
            return Err(format!("`{value}` is not a {} value", setting.words()));
        }
    }
    Ok(Change {
        target: Target::Thread {
            pid,
            tid,
            name: string("name")?,
            setting,
        },
        old,
        new,
    })
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
mod tests {
    use super::*;
    use proptest::prelude::*;

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
                Change::file("/proc/irq/26/smp_affinity_list", "0-3", "0-2"),
                Change {
                    target: Target::Thread {
                        pid: 1200,
                        tid: 1201,
                        name: "my \"weird\" (comm)".into(),
                        setting: ThreadSetting::Scheduling,
                    },
                    old: "other".into(),
                    new: "fifo:98".into(),
                },
                Change {
                    target: Target::Thread {
                        pid: 1200,
                        tid: 1201,
                        name: "x".into(),
                        setting: ThreadSetting::Affinity,
                    },
                    old: "0-3".into(),
                    new: "3".into(),
                },
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
        assert!(text.contains("\"format\": \"rtlat-restore-1\""), "{text}");
        let empty = RestoreFile {
            changes: Vec::new(),
            ..file
        };
        assert_eq!(RestoreFile::parse(&empty.to_json()), Ok(empty));
    }

    #[test]
    fn refuses_what_it_must_not_write() {
        let text = sample().to_json();
        for (from, to, reason) in [
            (
                "/proc/irq/26/smp_affinity_list",
                "/etc/passwd",
                "not a file rtlat tunes",
            ),
            (
                "/proc/irq/26/smp_affinity_list",
                "/proc/irq/../sys/x",
                "not a file rtlat tunes",
            ),
            ("\"fifo:98\"", "\"fifo:100\"", "not a scheduling value"),
            ("\"3\"", "\"x\"", "not a CPU affinity value"),
            ("\"scheduling\"", "\"deadline\"", "unknown setting"),
            ("\"tid\": 1201", "\"tid\": 0", "no `tid`"),
            ("\"0-2\"", "\"0-2\\n1\"", "control character"),
            ("rtlat-restore-1", "rtlat-restore-9", "format"),
            ("\"applied\": true", "\"applied\": 1", "applied"),
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
        fn never_panics_on_edited_files(cut in 0usize..2000, junk in "[\\[\\]{}\",:0-9a-z]{0,4}") {
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
