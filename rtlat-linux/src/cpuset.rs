//! [`CpuSet`]: a set of CPU indices, parsed from and printed as the kernel's CPU-list syntax
//! (`0-3,5`), and read from `/sys/devices/system/cpu/{online,possible}` under a root path.
//!
//! # Accepted syntax
//!
//! A list of elements separated by commas, with leading and trailing whitespace (a trailing
//! newline from sysfs included) ignored:
//!
//! | element        | meaning                                                   | example      |
//! |----------------|-----------------------------------------------------------|--------------|
//! | `N`            | CPU N                                                     | `5`          |
//! | `A-B`          | CPUs A to B inclusive (`A <= B`)                          | `0-3`        |
//! | `A-B:S`        | every S-th CPU from A to B (util-linux `taskset` stride)  | `0-7:2`      |
//! | `A-B:U/G`      | the first U CPUs of each group of G from A (kernel form)  | `0-15:2/8`   |
//!
//! CPU numbers are decimal and below [`MAX_CPUS`]. Unlike the kernel, an empty element
//! (`1,,2`), whitespace inside an element and the kernel's `N` (last CPU) token are refused,
//! and [`CpuSet::parse`] refuses an empty list (use [`CpuSet::parse_allowing_empty`] for files
//! such as `/sys/devices/system/cpu/offline` that may legitimately be empty).
//!
//! # Example
//!
//! ```
//! use rtlat_linux::cpuset::CpuSet;
//!
//! let set = CpuSet::parse("5,0-3\n").unwrap();
//! assert_eq!(set.to_string(), "0-3,5");
//! assert_eq!(set.len(), 5);
//! assert!(set.contains(2) && !set.contains(4));
//! assert_eq!(set.iter().collect::<Vec<_>>(), [0, 1, 2, 3, 5]);
//! assert_eq!(CpuSet::parse("0-7:2").unwrap().to_string(), "0,2,4,6");
//! ```

use core::fmt;
use std::path::{Path, PathBuf};

/// The number of CPUs a [`CpuSet`] can hold: indices `0..MAX_CPUS` (the kernel's largest
/// `NR_CPUS`, and the size of the affinity masks rtlat passes to `sched_setaffinity`).
pub const MAX_CPUS: usize = 8192;

const WORD_BITS: usize = 64;

/// A set of CPU indices below [`MAX_CPUS`], iterated in ascending order.
///
/// Stored as a bitmap that grows to the highest CPU it holds (no trailing zero words, so two
/// equal sets compare equal).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct CpuSet {
    words: Vec<u64>,
}

/// What was wrong with a CPU list given to [`CpuSet::parse`].
///
/// Every message names the offending piece and says what is accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CpuListError {
    /// The list was empty (or only whitespace).
    Empty,
    /// An element between two commas was empty (`1,,2`, `,1`, `1,`).
    EmptyElement,
    /// An element was not a number, a range, or a range with a stride or group.
    Malformed {
        /// The element as written.
        element: String,
    },
    /// A CPU number was at or above [`MAX_CPUS`] (or did not fit an integer at all).
    TooLarge {
        /// The number as written.
        number: String,
    },
    /// A range's start was above its end (`5-3`).
    Reversed {
        /// The range's first CPU.
        start: usize,
        /// The range's last CPU.
        end: usize,
    },
    /// A stride (`A-B:S`) was zero.
    ZeroStride {
        /// The element as written.
        element: String,
    },
    /// A group (`A-B:U/G`) had `U` or `G` zero, or `U > G`.
    BadGroup {
        /// The element as written.
        element: String,
    },
}

/// The accepted CPU-list syntax, quoted by every [`CpuListError`] message.
const ACCEPTED: &str = "expected comma-separated CPU numbers or ranges \
                        (N, A-B, A-B:STRIDE or A-B:USED/GROUP), e.g. 0-3,5";

impl fmt::Display for CpuListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuListError::Empty => write!(f, "the CPU list is empty: {ACCEPTED}"),
            CpuListError::EmptyElement => {
                write!(
                    f,
                    "the CPU list has an empty element (two commas in a row, or a comma at an end): {ACCEPTED}"
                )
            }
            CpuListError::Malformed { element } => {
                write!(f, "'{element}' is not a CPU number or range: {ACCEPTED}")
            }
            CpuListError::TooLarge { number } => {
                write!(
                    f,
                    "CPU {number} is too large: CPU numbers go from 0 to {}",
                    MAX_CPUS - 1
                )
            }
            CpuListError::Reversed { start, end } => {
                write!(
                    f,
                    "the CPU range {start}-{end} is reversed: write it as {end}-{start}"
                )
            }
            CpuListError::ZeroStride { element } => {
                write!(
                    f,
                    "the stride in '{element}' is zero: A-B:STRIDE needs a stride of at least 1"
                )
            }
            CpuListError::BadGroup { element } => write!(
                f,
                "the group in '{element}' is invalid: A-B:USED/GROUP needs 1 <= USED <= GROUP"
            ),
        }
    }
}

impl std::error::Error for CpuListError {}

/// Why a CPU-list file (e.g. `/sys/devices/system/cpu/online`) could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum CpuSetReadError {
    /// The file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file did not hold a CPU list.
    Parse {
        /// The file.
        path: PathBuf,
        /// What was wrong with its content.
        source: CpuListError,
    },
}

impl fmt::Display for CpuSetReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuSetReadError::Io { path, source } => write!(
                f,
                "cannot read {}: {source}; is sysfs mounted (or is the root path right)?",
                path.display()
            ),
            CpuSetReadError::Parse { path, source } => {
                write!(f, "{} does not hold a CPU list: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for CpuSetReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CpuSetReadError::Io { source, .. } => Some(source),
            CpuSetReadError::Parse { source, .. } => Some(source),
        }
    }
}

impl CpuSet {
    /// The empty set.
    pub const fn new() -> Self {
        CpuSet { words: Vec::new() }
    }

    /// Parses a CPU list (see the [module docs](self) for the syntax). An empty list is an
    /// error.
    pub fn parse(list: &str) -> Result<CpuSet, CpuListError> {
        let set = CpuSet::parse_allowing_empty(list)?;
        if set.is_empty() {
            Err(CpuListError::Empty)
        } else {
            Ok(set)
        }
    }

    /// Parses a CPU list like [`CpuSet::parse`], but an empty (or all-whitespace) list gives
    /// the empty set, as in `/sys/devices/system/cpu/offline` on a machine with every CPU
    /// online.
    pub fn parse_allowing_empty(list: &str) -> Result<CpuSet, CpuListError> {
        let list = list.trim();
        let mut set = CpuSet::new();
        if list.is_empty() {
            return Ok(set);
        }
        for element in list.split(',') {
            if element.is_empty() {
                return Err(CpuListError::EmptyElement);
            }
            set.add_element(element)?;
        }
        Ok(set)
    }

    /// Adds the CPUs of one list element (`N`, `A-B`, `A-B:S` or `A-B:U/G`).
    fn add_element(&mut self, element: &str) -> Result<(), CpuListError> {
        let malformed = || CpuListError::Malformed {
            element: element.to_owned(),
        };
        let (range, pattern) = match element.split_once(':') {
            Some((range, pattern)) => (range, Some(pattern)),
            None => (element, None),
        };
        let (start, end) = match range.split_once('-') {
            Some((start, end)) => (cpu_number(start, element)?, cpu_number(end, element)?),
            None => {
                let cpu = cpu_number(range, element)?;
                (cpu, cpu)
            }
        };
        if pattern.is_some() && !range.contains('-') {
            // A stride or group only makes sense on a range (as in the kernel).
            return Err(malformed());
        }
        if start > end {
            return Err(CpuListError::Reversed { start, end });
        }
        // `used` CPUs out of every `group`, starting at `start`.
        let (used, group) = match pattern {
            None => (1, 1),
            Some(pattern) => match pattern.split_once('/') {
                None => {
                    let stride = count(pattern, element)?;
                    if stride == 0 {
                        return Err(CpuListError::ZeroStride {
                            element: element.to_owned(),
                        });
                    }
                    (1, stride)
                }
                Some((used, group)) => {
                    let used = count(used, element)?;
                    let group = count(group, element)?;
                    if used == 0 || group == 0 || used > group {
                        return Err(CpuListError::BadGroup {
                            element: element.to_owned(),
                        });
                    }
                    (used, group)
                }
            },
        };
        // `end < MAX_CPUS` is guaranteed by `cpu_number`, so no insert below can fail, and
        // `cpu + group` cannot overflow (`group` is capped too).
        let mut base = start;
        while base <= end {
            let last = end.min(base + (used - 1));
            for cpu in base..=last {
                self.set_bit(cpu);
            }
            base += group;
        }
        Ok(())
    }

    /// The set of `cpus`, or an error naming the first one at or above [`MAX_CPUS`].
    pub fn from_cpus<I: IntoIterator<Item = usize>>(cpus: I) -> Result<CpuSet, CpuListError> {
        let mut set = CpuSet::new();
        for cpu in cpus {
            set.insert(cpu)?;
        }
        Ok(set)
    }

    /// Adds `cpu`; `Ok(true)` if it was not in the set yet. A CPU at or above [`MAX_CPUS`] is
    /// an error.
    pub fn insert(&mut self, cpu: usize) -> Result<bool, CpuListError> {
        if cpu >= MAX_CPUS {
            return Err(CpuListError::TooLarge {
                number: cpu.to_string(),
            });
        }
        let had = self.contains(cpu);
        self.set_bit(cpu);
        Ok(!had)
    }

    /// Removes `cpu`; `true` if it was in the set.
    pub fn remove(&mut self, cpu: usize) -> bool {
        if !self.contains(cpu) {
            return false;
        }
        let (word, bit) = (cpu / WORD_BITS, cpu % WORD_BITS);
        if let Some(w) = self.words.get_mut(word) {
            *w &= !(1u64 << bit);
        }
        self.trim();
        true
    }

    /// Sets the bit of a CPU already known to be below `MAX_CPUS`.
    fn set_bit(&mut self, cpu: usize) {
        let (word, bit) = (cpu / WORD_BITS, cpu % WORD_BITS);
        if self.words.len() <= word {
            self.words.resize(word + 1, 0);
        }
        if let Some(w) = self.words.get_mut(word) {
            *w |= 1u64 << bit;
        }
    }

    /// Drops trailing zero words (the representation invariant behind `PartialEq`).
    fn trim(&mut self) {
        while self.words.last() == Some(&0) {
            self.words.pop();
        }
    }

    /// Whether `cpu` is in the set (any index is accepted; one too large is simply absent).
    pub fn contains(&self, cpu: usize) -> bool {
        self.words
            .get(cpu / WORD_BITS)
            .is_some_and(|w| w & (1u64 << (cpu % WORD_BITS)) != 0)
    }

    /// The number of CPUs in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set holds no CPU.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The CPUs in ascending order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            words: &self.words,
            word: 0,
            rest: self.words.first().copied().unwrap_or(0),
        }
    }

    /// The lowest CPU, if any.
    pub fn first(&self) -> Option<usize> {
        self.iter().next()
    }

    /// The highest CPU, if any.
    pub fn last(&self) -> Option<usize> {
        let word = self.words.len().checked_sub(1)?;
        let w = self.words.get(word)?;
        Some(word * WORD_BITS + (WORD_BITS - 1 - w.leading_zeros() as usize))
    }

    /// The `n`-th CPU in ascending order (0-based), if the set has more than `n` CPUs. This is
    /// how cyclictest places thread `i` of a round-robin: `set.nth(i % set.len())`.
    pub fn nth(&self, n: usize) -> Option<usize> {
        self.iter().nth(n)
    }

    /// Whether every CPU of `self` is in `other`.
    pub fn is_subset(&self, other: &CpuSet) -> bool {
        self.words
            .iter()
            .enumerate()
            .all(|(i, w)| w & !other.words.get(i).copied().unwrap_or(0) == 0)
    }

    /// The CPUs in both sets.
    pub fn intersection(&self, other: &CpuSet) -> CpuSet {
        let mut words: Vec<u64> = self
            .words
            .iter()
            .zip(other.words.iter())
            .map(|(a, b)| a & b)
            .collect();
        while words.last() == Some(&0) {
            words.pop();
        }
        CpuSet { words }
    }

    /// The CPUs in `self` but not in `other`.
    pub fn difference(&self, other: &CpuSet) -> CpuSet {
        let mut set = CpuSet {
            words: self
                .words
                .iter()
                .enumerate()
                .map(|(i, w)| w & !other.words.get(i).copied().unwrap_or(0))
                .collect(),
        };
        set.trim();
        set
    }

    /// The CPUs in either set.
    pub fn union(&self, other: &CpuSet) -> CpuSet {
        let len = self.words.len().max(other.words.len());
        let words = (0..len)
            .map(|i| {
                self.words.get(i).copied().unwrap_or(0) | other.words.get(i).copied().unwrap_or(0)
            })
            .collect();
        CpuSet { words }
    }

    /// The online CPUs: `<root>/sys/devices/system/cpu/online` (`root` is `/` on a live
    /// system, a captured tree in tests).
    pub fn online(root: &Path) -> Result<CpuSet, CpuSetReadError> {
        CpuSet::read_list_file(&root.join("sys/devices/system/cpu/online"))
    }

    /// The CPUs that could ever be online: `<root>/sys/devices/system/cpu/possible`.
    pub fn possible(root: &Path) -> Result<CpuSet, CpuSetReadError> {
        CpuSet::read_list_file(&root.join("sys/devices/system/cpu/possible"))
    }

    /// Reads a file holding a CPU list; an empty file gives the empty set (as sysfs writes for
    /// `offline` or `isolated` when there are none).
    pub fn read_list_file(path: &Path) -> Result<CpuSet, CpuSetReadError> {
        let text = std::fs::read_to_string(path).map_err(|source| CpuSetReadError::Io {
            path: path.to_owned(),
            source,
        })?;
        CpuSet::parse_allowing_empty(&text).map_err(|source| CpuSetReadError::Parse {
            path: path.to_owned(),
            source,
        })
    }
}

/// Parses a CPU number of `element`: decimal digits only, below [`MAX_CPUS`].
fn cpu_number(text: &str, element: &str) -> Result<usize, CpuListError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CpuListError::Malformed {
            element: element.to_owned(),
        });
    }
    match text.parse::<usize>() {
        Ok(cpu) if cpu < MAX_CPUS => Ok(cpu),
        _ => Err(CpuListError::TooLarge {
            number: text.to_owned(),
        }),
    }
}

/// Parses a stride or group size of `element`: decimal digits, at most [`MAX_CPUS`] (a larger
/// one selects the same CPUs as `MAX_CPUS` would, so it is capped, never refused for size).
fn count(text: &str, element: &str) -> Result<usize, CpuListError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CpuListError::Malformed {
            element: element.to_owned(),
        });
    }
    // All digits: parsing fails only on overflow, which is "very large".
    Ok(text.parse::<usize>().map_or(MAX_CPUS, |n| n.min(MAX_CPUS)))
}

impl fmt::Display for CpuSet {
    /// The canonical list form the kernel prints: ascending, runs of two or more as `A-B`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut cpus = self.iter().peekable();
        let mut first = true;
        while let Some(start) = cpus.next() {
            let mut end = start;
            while cpus.peek() == Some(&(end + 1)) {
                end += 1;
                cpus.next();
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if start == end {
                write!(f, "{start}")?;
            } else {
                write!(f, "{start}-{end}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CpuSet({self})")
    }
}

impl core::str::FromStr for CpuSet {
    type Err = CpuListError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CpuSet::parse(s)
    }
}

impl<'a> IntoIterator for &'a CpuSet {
    type Item = usize;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The CPUs of a [`CpuSet`] in ascending order.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    words: &'a [u64],
    /// Index of the word `rest` came from.
    word: usize,
    /// The bits of that word not yielded yet.
    rest: u64,
}

impl Iterator for Iter<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        loop {
            if self.rest != 0 {
                let bit = self.rest.trailing_zeros() as usize;
                self.rest &= self.rest - 1;
                return Some(self.word * WORD_BITS + bit);
            }
            self.word += 1;
            self.rest = *self.words.get(self.word)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cpus(list: &str) -> Vec<usize> {
        CpuSet::parse(list).unwrap().iter().collect()
    }

    #[test]
    fn parses_the_kernel_forms() {
        assert_eq!(cpus("0"), [0]);
        assert_eq!(cpus("0-3,5"), [0, 1, 2, 3, 5]);
        assert_eq!(cpus("5,0-3"), [0, 1, 2, 3, 5]);
        assert_eq!(cpus("1,1,1-2"), [1, 2]);
        assert_eq!(cpus("0-7:2"), [0, 2, 4, 6]);
        assert_eq!(cpus("1-8:3"), [1, 4, 7]);
        assert_eq!(cpus("0-15:2/8"), [0, 1, 8, 9]);
        assert_eq!(cpus("0-1023:2/256"), [0, 1, 256, 257, 512, 513, 768, 769]);
        assert_eq!(cpus("0-9:3/3"), (0..=9).collect::<Vec<_>>());
        assert_eq!(cpus("4-4"), [4]);
        assert_eq!(cpus("007"), [7]);
        assert_eq!(cpus("8191"), [8191]);
        assert_eq!(cpus("0-3:99999999999999999999999"), [0]);
    }

    #[test]
    fn trims_whitespace_and_newlines() {
        assert_eq!(cpus("0-1\n"), [0, 1]);
        assert_eq!(cpus("  2,3 \t\n"), [2, 3]);
    }

    #[test]
    fn refuses_bad_lists_with_a_message_naming_the_piece() {
        let cases: &[(&str, CpuListError, &str)] = &[
            ("", CpuListError::Empty, "empty"),
            (" \n", CpuListError::Empty, "empty"),
            ("1,,2", CpuListError::EmptyElement, "empty element"),
            (",1", CpuListError::EmptyElement, "empty element"),
            ("1,", CpuListError::EmptyElement, "empty element"),
            (
                "x",
                CpuListError::Malformed {
                    element: "x".into(),
                },
                "'x'",
            ),
            (
                "-1",
                CpuListError::Malformed {
                    element: "-1".into(),
                },
                "'-1'",
            ),
            (
                "1-",
                CpuListError::Malformed {
                    element: "1-".into(),
                },
                "'1-'",
            ),
            (
                "1-2-3",
                CpuListError::Malformed {
                    element: "1-2-3".into(),
                },
                "'1-2-3'",
            ),
            (
                "+1",
                CpuListError::Malformed {
                    element: "+1".into(),
                },
                "'+1'",
            ),
            (
                "1 - 2",
                CpuListError::Malformed {
                    element: "1 - 2".into(),
                },
                "'1 - 2'",
            ),
            (
                "0-N",
                CpuListError::Malformed {
                    element: "0-N".into(),
                },
                "'0-N'",
            ),
            (
                "3:2",
                CpuListError::Malformed {
                    element: "3:2".into(),
                },
                "'3:2'",
            ),
            (
                "0-7:",
                CpuListError::Malformed {
                    element: "0-7:".into(),
                },
                "'0-7:'",
            ),
            (
                "0-7:2/",
                CpuListError::Malformed {
                    element: "0-7:2/".into(),
                },
                "'0-7:2/'",
            ),
            (
                "8192",
                CpuListError::TooLarge {
                    number: "8192".into(),
                },
                "8192",
            ),
            (
                "0-99999999999999999999999",
                CpuListError::TooLarge {
                    number: "99999999999999999999999".into(),
                },
                "too large",
            ),
            ("5-3", CpuListError::Reversed { start: 5, end: 3 }, "5-3"),
            (
                "0-7:0",
                CpuListError::ZeroStride {
                    element: "0-7:0".into(),
                },
                "'0-7:0'",
            ),
            (
                "0-7:3/2",
                CpuListError::BadGroup {
                    element: "0-7:3/2".into(),
                },
                "'0-7:3/2'",
            ),
            (
                "0-7:0/2",
                CpuListError::BadGroup {
                    element: "0-7:0/2".into(),
                },
                "'0-7:0/2'",
            ),
            (
                "0-7:1/0",
                CpuListError::BadGroup {
                    element: "0-7:1/0".into(),
                },
                "'0-7:1/0'",
            ),
        ];
        for (input, error, fragment) in cases {
            let got = CpuSet::parse(input).unwrap_err();
            assert_eq!(&got, error, "input {input:?}");
            let message = got.to_string();
            assert!(message.contains(fragment), "{input:?}: {message}");
            assert!(!message.contains('\n'), "{input:?}: {message}");
        }
    }

    #[test]
    fn empty_is_allowed_only_when_asked() {
        assert!(CpuSet::parse_allowing_empty("\n").unwrap().is_empty());
        assert_eq!(
            CpuSet::parse_allowing_empty("1\n").unwrap().to_string(),
            "1"
        );
    }

    #[test]
    fn displays_the_canonical_list() {
        assert_eq!(
            CpuSet::parse("3,0,1,2,5,7,8").unwrap().to_string(),
            "0-3,5,7-8"
        );
        assert_eq!(CpuSet::parse("0-1").unwrap().to_string(), "0-1");
        assert_eq!(CpuSet::new().to_string(), "");
        assert_eq!(
            format!("{:?}", CpuSet::parse("1-2").unwrap()),
            "CpuSet(1-2)"
        );
        assert_eq!(
            CpuSet::parse("63-64,127-128").unwrap().to_string(),
            "63-64,127-128"
        );
    }

    #[test]
    fn set_operations() {
        let a = CpuSet::parse("0-5").unwrap();
        let b = CpuSet::parse("4-70").unwrap();
        assert_eq!(a.intersection(&b).to_string(), "4-5");
        assert_eq!(a.difference(&b).to_string(), "0-3");
        assert_eq!(b.difference(&a).to_string(), "6-70");
        assert_eq!(a.union(&b).to_string(), "0-70");
        assert!(CpuSet::parse("1-2").unwrap().is_subset(&a));
        assert!(!b.is_subset(&a));
        assert!(CpuSet::new().is_subset(&a));
        assert_eq!(b.first(), Some(4));
        assert_eq!(b.last(), Some(70));
        assert_eq!(b.nth(2), Some(6));
        assert_eq!(a.nth(6), None);
        assert_eq!(CpuSet::new().last(), None);
        // A difference that empties the high words still equals the directly built set.
        assert_eq!(
            b.difference(&CpuSet::parse("64-70").unwrap()),
            CpuSet::parse("4-63").unwrap()
        );
    }

    #[test]
    fn insert_and_remove() {
        let mut set = CpuSet::new();
        assert_eq!(set.insert(100), Ok(true));
        assert_eq!(set.insert(100), Ok(false));
        assert!(set.insert(MAX_CPUS).is_err());
        assert!(set.insert(usize::MAX).is_err());
        assert!(set.contains(100) && !set.contains(usize::MAX));
        assert!(set.remove(100));
        assert!(!set.remove(100));
        assert_eq!(set, CpuSet::new());
        assert!(set.is_empty());
        assert_eq!(CpuSet::from_cpus([3, 1, 2]).unwrap().to_string(), "1-3");
        assert!(CpuSet::from_cpus([1, 9000]).is_err());
    }

    #[test]
    fn reads_online_and_possible_under_a_root() {
        let root = std::env::temp_dir().join(format!("rtlat-cpuset-{}", std::process::id()));
        let dir = root.join("sys/devices/system/cpu");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("online"), "0-2,4\n").unwrap();
        std::fs::write(dir.join("possible"), "0-7\n").unwrap();
        std::fs::write(dir.join("offline"), "\n").unwrap();
        assert_eq!(CpuSet::online(&root).unwrap().to_string(), "0-2,4");
        assert_eq!(CpuSet::possible(&root).unwrap().to_string(), "0-7");
        assert!(
            CpuSet::read_list_file(&dir.join("offline"))
                .unwrap()
                .is_empty()
        );
        std::fs::write(dir.join("online"), "zero\n").unwrap();
        let err = CpuSet::online(&root).unwrap_err();
        assert!(matches!(err, CpuSetReadError::Parse { .. }), "{err}");
        assert!(err.to_string().contains("online"), "{err}");
        std::fs::remove_dir_all(&root).unwrap();
        let err = CpuSet::online(&root).unwrap_err();
        assert!(matches!(err, CpuSetReadError::Io { .. }), "{err}");
    }

    #[test]
    fn reads_this_machine() {
        // sysfs is there on any Linux machine the tests run on.
        let online = CpuSet::online(Path::new("/")).unwrap();
        let possible = CpuSet::possible(Path::new("/")).unwrap();
        assert!(!online.is_empty());
        assert!(online.is_subset(&possible));
    }

    /// The model: the CPUs of an element, computed the obvious way.
    fn model(start: usize, end: usize, used: usize, group: usize) -> Vec<usize> {
        (start..=end)
            .filter(|cpu| (cpu - start) % group < used)
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn never_panics_on_any_text(text in ".{0,40}") {
            let _ = CpuSet::parse(&text);
            let _ = CpuSet::parse_allowing_empty(&text);
        }

        #[test]
        fn never_panics_on_list_like_text(text in "[0-9,:/ \n-]{0,30}") {
            if let Ok(set) = CpuSet::parse(&text) {
                prop_assert!(!set.is_empty());
                prop_assert_eq!(CpuSet::parse(&set.to_string()).unwrap(), set);
            }
        }

        #[test]
        fn display_parses_back(cpus in proptest::collection::btree_set(0..MAX_CPUS, 1..64)) {
            let set = CpuSet::from_cpus(cpus.iter().copied()).unwrap();
            let text = set.to_string();
            let back = CpuSet::parse(&text).unwrap();
            prop_assert_eq!(back.iter().collect::<Vec<_>>(), cpus.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(set.len(), cpus.len());
            prop_assert_eq!(back, set);
        }

        #[test]
        fn elements_match_the_model(
            start in 0..300usize, span in 0..300usize, group in 1..40usize, used_seed in 0..40usize,
        ) {
            let end = start + span;
            let used = used_seed % group + 1;
            let want = model(start, end, used, group);
            let got: Vec<usize> =
                CpuSet::parse(&format!("{start}-{end}:{used}/{group}")).unwrap().iter().collect();
            prop_assert_eq!(got, want);
            let got: Vec<usize> =
                CpuSet::parse(&format!("{start}-{end}:{group}")).unwrap().iter().collect();
            prop_assert_eq!(got, model(start, end, 1, group));
        }
    }
}
