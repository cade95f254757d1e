//! `/proc/PID/status` and `/proc/PID/task/TID/status`: `Key:<tab>value` lines. Only the keys
//! the audit needs are kept.

use super::error::Malformed;
use super::read;
use rtlat_linux::cpuset::CpuSet;

/// The fields of a status file the audit and `rtlat threads` use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStatus {
    /// `Name`: the thread's name, as the kernel escapes it (`\n` as `\\n`, `\` as `\\`).
    pub name: String,
    /// `Cpus_allowed_list`: the thread's CPU affinity.
    pub cpus_allowed: CpuSet,
    /// `Tgid`: the process id.
    pub tgid: Option<u32>,
    /// `Pid`: the thread id.
    pub pid: Option<u32>,
    /// `PPid`: the parent's process id.
    pub ppid: Option<u32>,
    /// `Kthread` (kernels since 6.1 or so): whether the task is a kernel thread.
    pub kthread: Option<bool>,
}

impl TaskStatus {
    /// Parses a status file; `Name` and `Cpus_allowed_list` are required, the other keys
    /// optional (older kernels lack `Kthread`).
    pub fn parse(text: &str) -> Result<TaskStatus, Malformed> {
        let mut name = None;
        let mut cpus_allowed = None;
        let mut status = TaskStatus {
            name: String::new(),
            cpus_allowed: CpuSet::new(),
            tgid: None,
            pid: None,
            ppid: None,
            kthread: None,
        };
        for line in text.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            // The value follows a tab; `Name`'s may hold spaces of its own.
            let value = value.strip_prefix('\t').unwrap_or(value);
            let number =
                |what| read::number_of(value.trim()).ok_or_else(|| Malformed::new(what, line));
            match key {
                "Name" => name = Some(value.to_owned()),
                "Cpus_allowed_list" => {
                    let set = CpuSet::parse_allowing_empty(value)
                        .map_err(|_| Malformed::new("a CPU list in Cpus_allowed_list", line))?;
                    cpus_allowed = Some(set);
                }
                "Tgid" => status.tgid = Some(number("a process id in Tgid")?),
                "Pid" => status.pid = Some(number("a thread id in Pid")?),
                "PPid" => status.ppid = Some(number("a process id in PPid")?),
                "Kthread" => {
                    status.kthread = Some(match value.trim() {
                        "0" => false,
                        "1" => true,
                        _ => return Err(Malformed::new("0 or 1 in Kthread", line)),
                    });
                }
                _ => {}
            }
        }
        status.name = name.ok_or_else(|| Malformed::new("a `Name:` line", ""))?;
        status.cpus_allowed =
            cpus_allowed.ok_or_else(|| Malformed::new("a `Cpus_allowed_list:` line", ""))?;
        Ok(status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_the_fields_used() {
        let text = "Name:\tmy (weird) comm\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t100\n\
                    Pid:\t105\nPPid:\t1\nKthread:\t0\nCpus_allowed:\t8\nCpus_allowed_list:\t3\n\
                    Mems_allowed_list:\t0\n";
        let status = TaskStatus::parse(text).unwrap();
        assert_eq!(status.name, "my (weird) comm");
        assert_eq!(status.cpus_allowed.to_string(), "3");
        assert_eq!(
            (status.tgid, status.pid, status.ppid),
            (Some(100), Some(105), Some(1))
        );
        assert_eq!(status.kthread, Some(false));

        let old = TaskStatus::parse("Name:\tinit\nCpus_allowed_list:\t0-3\n").unwrap();
        assert_eq!(old.kthread, None);
        assert_eq!(old.tgid, None);
    }

    #[test]
    fn refuses_missing_or_bad_fields() {
        let cases = [
            ("", "Name"),
            ("Name:\tx\n", "Cpus_allowed_list"),
            ("Name:\tx\nCpus_allowed_list:\tzero\n", "CPU list"),
            ("Name:\tx\nCpus_allowed_list:\t0\nPid:\t-1\n", "thread id"),
            (
                "Name:\tx\nCpus_allowed_list:\t0\nKthread:\tyes\n",
                "Kthread",
            ),
        ];
        for (text, fragment) in cases {
            let err = TaskStatus::parse(text).unwrap_err();
            assert!(err.to_string().contains(fragment), "{text:?}: {err}");
        }
    }

    proptest! {
        #[test]
        fn never_panics(text in "((Name|Pid|Kthread|Cpus_allowed_list|x):\t?[ -~]{0,10}\n){0,6}") {
            let _ = TaskStatus::parse(&text);
        }
    }
}
