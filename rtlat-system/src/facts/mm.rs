//! Memory management the audit checks: transparent huge pages, swap, KSM.

use super::error::{FactError, Malformed};
use super::read;
use super::root::Facts;

/// A sysfs choice file such as `always [madvise] never`: the choices, the selected one in
/// brackets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The selected choice (the bracketed word).
    pub selected: String,
    /// Every choice, in the file's order.
    pub available: Vec<String>,
}

impl Choice {
    /// Parses `a [b] c`: exactly one word must be in brackets.
    pub fn parse(text: &str) -> Result<Choice, Malformed> {
        let bad = || {
            Malformed::new(
                "choices with the selected one in brackets, e.g. `always [madvise] never`",
                text.trim(),
            )
        };
        let mut selected = None;
        let mut available = Vec::new();
        for word in text.split_whitespace() {
            let choice = match word.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
                Some(inner) => {
                    if selected.is_some() || inner.is_empty() {
                        return Err(bad());
                    }
                    selected = Some(inner.to_owned());
                    inner
                }
                None => word,
            };
            if choice.contains(['[', ']']) {
                return Err(bad());
            }
            available.push(choice.to_owned());
        }
        Ok(Choice {
            selected: selected.ok_or_else(bad)?,
            available,
        })
    }
}

/// An active swap area (a line of `/proc/swaps`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swap {
    /// The device or file (octal escapes such as `\040` decoded).
    pub filename: String,
    /// `partition` or `file`.
    pub kind: String,
    /// The size in KiB.
    pub size_kib: u64,
    /// The KiB in use.
    pub used_kib: u64,
    /// The priority (higher is used first).
    pub priority: i32,
}

impl Swap {
    /// Parses `/proc/swaps`: a header line, then one line per active swap area.
    pub fn parse_all(text: &str) -> Result<Vec<Swap>, Malformed> {
        let mut lines = text.lines();
        match lines.next() {
            Some(header) if header.starts_with("Filename") => {}
            other => {
                return Err(Malformed::new(
                    "the header `Filename Type Size Used Priority`",
                    other.unwrap_or(""),
                ));
            }
        }
        lines
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                let bad = || Malformed::new("a swap line `FILENAME TYPE SIZE USED PRIORITY`", line);
                let fields: Vec<&str> = line.split_whitespace().collect();
                let [filename, kind, size, used, priority] = fields[..] else {
                    return Err(bad());
                };
                Ok(Swap {
                    filename: unescape_octal(filename),
                    kind: kind.to_owned(),
                    size_kib: size.parse().map_err(|_| bad())?,
                    used_kib: used.parse().map_err(|_| bad())?,
                    priority: priority.parse().map_err(|_| bad())?,
                })
            })
            .collect()
    }
}

/// Decodes the kernel's `\ooo` escapes (space, tab, newline, backslash in paths).
fn unescape_octal(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let code = bytes
            .get(i + 1..i + 4)
            .filter(|d| byte == b'\\' && d.iter().all(|b| (b'0'..=b'7').contains(b)))
            .and_then(|d| u8::from_str_radix(std::str::from_utf8(d).ok()?, 8).ok());
        match code {
            Some(code) => {
                out.push(code);
                i += 4;
            }
            None => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The state of kernel same-page merging (`/sys/kernel/mm/ksm/run`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KsmRun {
    /// `0`: not merging (merged pages stay merged).
    Stopped,
    /// `1`: `ksmd` scans and merges pages.
    Running,
    /// `2`: unmerging every merged page.
    Unmerging,
}

impl Facts {
    /// `/sys/kernel/mm/transparent_hugepage/enabled`.
    pub fn transparent_hugepage(&self) -> Result<Choice, FactError> {
        self.choice("sys/kernel/mm/transparent_hugepage/enabled")
    }

    /// `/sys/kernel/mm/transparent_hugepage/defrag`.
    pub fn transparent_hugepage_defrag(&self) -> Result<Choice, FactError> {
        self.choice("sys/kernel/mm/transparent_hugepage/defrag")
    }

    fn choice(&self, relative: &str) -> Result<Choice, FactError> {
        let path = self.path(relative);
        Choice::parse(&read::text(&path)?).map_err(|e| FactError::malformed(&path, e))
    }

    /// `/proc/swaps`: the active swap areas (empty when there is no swap).
    pub fn swaps(&self) -> Result<Vec<Swap>, FactError> {
        let path = self.path("proc/swaps");
        Swap::parse_all(&read::text(&path)?).map_err(|e| FactError::malformed(&path, e))
    }

    /// `/sys/kernel/mm/ksm/run` (absent without `CONFIG_KSM`).
    pub fn ksm_run(&self) -> Result<KsmRun, FactError> {
        let path = self.path("sys/kernel/mm/ksm/run");
        match read::trimmed(&path)?.as_str() {
            "0" => Ok(KsmRun::Stopped),
            "1" => Ok(KsmRun::Running),
            "2" => Ok(KsmRun::Unmerging),
            other => Err(FactError::malformed(
                &path,
                Malformed::new("0, 1 or 2", other),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices() {
        let thp = Choice::parse("always [madvise] never\n").unwrap();
        assert_eq!(thp.selected, "madvise");
        assert_eq!(thp.available, ["always", "madvise", "never"]);
        assert_eq!(Choice::parse("[never]").unwrap().selected, "never");
        for bad in ["", "always madvise", "[a] [b]", "[]", "a[b]", "[a"] {
            assert!(Choice::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn swaps() {
        let text = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                    /dev/sda3                               partition\t8388604\t\t1024\t\t-2\n\
                    /swap\\040file                           file\t\t1048572\t\t0\t\t-3\n";
        let swaps = Swap::parse_all(text).unwrap();
        assert_eq!(swaps.len(), 2);
        assert_eq!(swaps[0].filename, "/dev/sda3");
        assert_eq!(
            (swaps[0].size_kib, swaps[0].used_kib, swaps[0].priority),
            (8388604, 1024, -2)
        );
        assert_eq!(swaps[1].filename, "/swap file");
        assert_eq!(swaps[1].kind, "file");
        assert!(
            Swap::parse_all("Filename\tType\tSize\tUsed\tPriority\n")
                .unwrap()
                .is_empty()
        );
        assert!(Swap::parse_all("").is_err());
        assert!(Swap::parse_all("Filename\n/dev/sda3 partition x 0 -2\n").is_err());
        assert!(Swap::parse_all("Filename\n/dev/sda3 partition 1 0\n").is_err());
    }

    #[test]
    fn octal_escapes() {
        assert_eq!(unescape_octal("a\\040b\\011c\\134"), "a b\tc\\");
        assert_eq!(unescape_octal("\\04"), "\\04");
        assert_eq!(unescape_octal("\\999"), "\\999");
        assert_eq!(unescape_octal("é\\"), "é\\");
    }
}
