//! The few small, total functions every fact reads its file with.

use std::path::Path;
use std::str::FromStr;

use super::error::{FactError, Malformed};
use rtlat_linux::cpuset::CpuSet;

/// The most bytes read from one file: far above any /proc or /sys file these facts read
/// (`/proc/interrupts` of a 1024-CPU machine is a few MiB), so a stray huge file in a
/// captured tree cannot exhaust memory.
const MAX_FILE: usize = 64 << 20;

/// The file's text (invalid UTF-8, e.g. in a thread name, replaced by U+FFFD).
/// Read as the kernel expects ([`rtlat_linux::kernel_file`]: every read offered a page).
pub(crate) fn text(path: &Path) -> Result<String, FactError> {
    rtlat_linux::kernel_file::read_text(path, MAX_FILE).map_err(|e| FactError::from_io(path, &e))
}

/// The file's text without the trailing newline and surrounding whitespace.
pub(crate) fn trimmed(path: &Path) -> Result<String, FactError> {
    let text = text(path)?;
    Ok(text.trim().to_owned())
}

/// The file's one word or number, parsed by `FromStr`.
pub(crate) fn value<T: FromStr>(path: &Path, expected: &'static str) -> Result<T, FactError> {
    let text = trimmed(path)?;
    text.parse()
        .map_err(|_| FactError::malformed(path, Malformed::new(expected, &text)))
}

/// A `0`/`1` switch.
pub(crate) fn switch(path: &Path) -> Result<bool, FactError> {
    match trimmed(path)?.as_str() {
        "0" => Ok(false),
        "1" => Ok(true),
        other => Err(FactError::malformed(path, Malformed::new("0 or 1", other))),
    }
}

/// A CPU list (`0-3,5`); empty content gives the empty set only if `allow_empty`.
pub(crate) fn cpu_list(path: &Path, allow_empty: bool) -> Result<CpuSet, FactError> {
    let text = text(path)?;
    let parsed = if allow_empty {
        CpuSet::parse_allowing_empty(&text)
    } else {
        CpuSet::parse(&text)
    };
    parsed.map_err(|source| FactError::CpuList {
        path: path.to_path_buf(),
        source,
    })
}

/// The entries of a directory whose names are decimal numbers (PIDs, IRQs, …), ascending.
pub(crate) fn numbered_entries(dir: &Path) -> Result<Vec<u32>, FactError> {
    let entries = std::fs::read_dir(dir).map_err(|e| FactError::from_io(dir, &e))?;
    let mut numbers: Vec<u32> = entries
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| number_of(&entry.file_name().to_string_lossy()))
        .collect();
    numbers.sort_unstable();
    Ok(numbers)
}

/// The entries of `dir` named `prefix` then a decimal number (`cpu3`, `state1`), as those
/// numbers, ascending.
pub(crate) fn prefixed_entries(dir: &Path, prefix: &str) -> Result<Vec<u32>, FactError> {
    let entries = std::fs::read_dir(dir).map_err(|e| FactError::from_io(dir, &e))?;
    let mut numbers: Vec<u32> = entries
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_prefix(prefix).and_then(number_of)
        })
        .collect();
    numbers.sort_unstable();
    Ok(numbers)
}

/// `text` as a number if it is only decimal digits (no sign, no spaces).
pub(crate) fn number_of(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_digits_only() {
        assert_eq!(number_of("42"), Some(42));
        assert_eq!(number_of("007"), Some(7));
        for bad in ["", "+1", "-1", " 1", "1a", "self", "99999999999"] {
            assert_eq!(number_of(bad), None, "{bad:?}");
        }
    }
}
