//! The kernel command line: [`KernelCmdline`] parses `/proc/cmdline` (or the text of a GRUB
//! `GRUB_CMDLINE_LINUX` value, without its shell quotes) into ordered [`Param`]s with the
//! kernel's own rules, and [`Isolcpus`] parses the value of `isolcpus=`.
//!
//! # The kernel's rules (`next_arg()` in `lib/cmdline.c`, `parse_args()` in `kernel/params.c`)
//!
//! - Parameters are separated by whitespace (space, tab, newline, `\v`, `\f`, `\r`).
//! - `name=value` splits at the first `=` (an `=` as the very first character does not count);
//!   a parameter without `=` has no value (`Param::value` is `None`), one with `name=` has an
//!   empty value.
//! - A double quote toggles "inside quotes", where whitespace does not separate. The quote
//!   opening a value (`name="a b"`) or a whole parameter (`"name=a b"`) is dropped with the
//!   parameter's last character when that is a quote; other quotes stay in the text. There is
//!   no escape character.
//! - A lone `--` ends the kernel's parameters; what follows goes to init
//!   ([`KernelCmdline::init_args`]).
//! - Dashes and underscores are the same in parameter names (`nohz-full` is `nohz_full`):
//!   [`Param::name`] keeps the spelling, [`Param::normalized_name`] and every lookup by name
//!   compare with `-` read as `_`.
//! - Most parameters take the value of their **last** occurrence ([`KernelCmdline::value`]).
//!
//! The kernel never refuses a command line, and neither does [`KernelCmdline::parse`]: an
//! unterminated quote swallows the rest of the line (as in the kernel) and is reported in
//! [`KernelCmdline::warnings`]; a NUL byte ends the line (the kernel's string ends there) and is
//! reported too. Unknown names are kept as they are: knowing which names exist (and spotting
//! `rcunocbs` for `rcu_nocbs`) is the audit's job.
//!
//! Unlike the kernel, the byte 0xA0 (which the kernel's `isspace` counts as whitespace) is not
//! a separator here: in UTF-8 text it is part of a character.
//!
//! # Example
//!
//! ```
//! use rtlat_system::cmdline::{Isolcpus, KernelCmdline};
//!
//! let line = KernelCmdline::parse("ro quiet isolcpus=managed_irq,domain,3 nohz-full=3 -- single\n");
//! assert_eq!(line.value("nohz_full"), Some("3"));
//! assert!(line.contains("quiet"));
//! assert_eq!(line.init_args()[0].name(), "single");
//!
//! let isolcpus = Isolcpus::parse(line.value("isolcpus").unwrap(), None).unwrap();
//! assert!(isolcpus.flags.managed_irq && isolcpus.flags.domain && !isolcpus.flags.nohz);
//! assert_eq!(isolcpus.cpus.to_string(), "3");
//! ```

use core::fmt;
use std::borrow::Cow;

use rtlat_linux::cpuset::{CpuListError, CpuSet};

/// A parsed kernel command line: the kernel's parameters in order, what follows `--` (init's
/// arguments), and what the kernel would have accepted only leniently.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelCmdline {
    params: Vec<Param>,
    /// `Some` when the line has a `--` separator (possibly followed by nothing).
    init_args: Option<Vec<Param>>,
    warnings: Vec<CmdlineWarning>,
}

/// One parameter: its exact text on the line, its name and its optional value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    raw: String,
    name: String,
    value: Option<String>,
}

/// Something the kernel accepts on a command line but that is probably not what was meant.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CmdlineWarning {
    /// A double quote was never closed: the parameter runs to the end of the line, and every
    /// parameter after the quote became part of its value.
    UnterminatedQuote {
        /// The parameter as written (from its first character to the end of the line).
        param: String,
    },
    /// The text held a NUL byte; the kernel's line ends there, so everything after it was
    /// ignored.
    NulByte {
        /// The byte offset of the NUL in the text given.
        offset: usize,
    },
}

impl fmt::Display for CmdlineWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CmdlineWarning::UnterminatedQuote { param } => write!(
                f,
                "the double quote in `{param}` is never closed, so the rest of the line is part of \
                 this parameter: close the quote"
            ),
            CmdlineWarning::NulByte { offset } => write!(
                f,
                "the command line holds a NUL byte at offset {offset}; the kernel ignores \
                 everything after it: remove it"
            ),
        }
    }
}

/// Why [`Param::new`] cannot build a parameter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// The name is empty.
    #[error("a kernel parameter needs a name")]
    EmptyName,
    /// The kernel would not read the text back as this one parameter (whitespace or `=` in the
    /// name, a quote the kernel cannot express, or a bare `--`).
    #[error(
        "`{text}` cannot be written as one kernel parameter: the kernel has no escapes, so names \
         cannot hold whitespace, `=` or quotes, and values cannot mix quotes with whitespace"
    )]
    NotRepresentable {
        /// The parameter as it would have been written.
        text: String,
    },
}

/// The kernel's `isspace()` on ASCII: space, `\t`, `\n`, `\v`, `\f`, `\r`.
const fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn skip_spaces(text: &str) -> &str {
    text.trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8))
}

/// One token cut by [`next_token`].
struct Token<'a> {
    param: Param,
    /// The token ended inside quotes (it runs to the end of the text).
    unterminated: bool,
    rest: &'a str,
}

/// The kernel's `next_arg()`: cuts the parameter at the start of `text` (which starts with a
/// non-space character) and returns it with the text after it, leading spaces skipped.
fn next_token(text: &str) -> Token<'_> {
    let bytes = text.as_bytes();
    let quoted = bytes.first() == Some(&b'"');
    let start = usize::from(quoted);
    let mut in_quote = quoted;
    let mut equals = None;
    let mut end = start;
    while let Some(&byte) = bytes.get(end) {
        if is_space(byte) && !in_quote {
            break;
        }
        // The kernel keeps `equals == 0` as "no `=` yet", so an `=` first does not count.
        if equals.is_none() && byte == b'=' && end != start {
            equals = Some(end);
        }
        if byte == b'"' {
            in_quote = !in_quote;
        }
        end += 1;
    }
    // Every index used below is at an ASCII byte or at the ends, so slicing cannot split a
    // character.
    let last_is_quote = end > start && bytes.get(end - 1) == Some(&b'"');
    let (name, value) = match equals {
        None => {
            let name_end = if quoted && last_is_quote {
                end - 1
            } else {
                end
            };
            (&text[start..name_end], None)
        }
        Some(eq) => {
            let mut value_start = eq + 1;
            let mut value_end = end;
            if bytes.get(value_start) == Some(&b'"') {
                value_start += 1;
                if last_is_quote {
                    value_end = end - 1;
                }
            }
            if quoted && last_is_quote {
                value_end = end - 1;
            }
            let value_end = value_end.max(value_start);
            (
                &text[start..eq],
                Some(&text[value_start.min(end)..value_end]),
            )
        }
    };
    Token {
        param: Param {
            raw: text[..end].to_owned(),
            name: name.to_owned(),
            value: value.map(str::to_owned),
        },
        unterminated: in_quote,
        rest: skip_spaces(&text[end..]),
    }
}

impl KernelCmdline {
    /// Parses a command line as the kernel does (see the [module docs](self)). Never fails:
    /// what the kernel accepts only leniently is listed in [`warnings`](Self::warnings).
    pub fn parse(text: &str) -> KernelCmdline {
        let mut line = KernelCmdline::default();
        let text = match text.find('\0') {
            Some(offset) => {
                line.warnings.push(CmdlineWarning::NulByte { offset });
                &text[..offset]
            }
            None => text,
        };
        let mut rest = skip_spaces(text);
        while !rest.is_empty() {
            let token = next_token(rest);
            rest = token.rest;
            if token.unterminated {
                line.warnings.push(CmdlineWarning::UnterminatedQuote {
                    param: token.param.raw.clone(),
                });
            }
            let is_separator = token.param.value.is_none() && token.param.name == "--";
            match &mut line.init_args {
                None if is_separator => line.init_args = Some(Vec::new()),
                None => line.params.push(token.param),
                Some(init) => init.push(token.param),
            }
        }
        line
    }

    /// The kernel's parameters (before any `--`), in order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The arguments after `--`, passed to init (empty without a `--`).
    pub fn init_args(&self) -> &[Param] {
        self.init_args.as_deref().unwrap_or(&[])
    }

    /// Whether the line has a `--` separator.
    pub fn has_init_separator(&self) -> bool {
        self.init_args.is_some()
    }

    /// What the kernel accepts but was probably not meant (unterminated quote, NUL byte).
    pub fn warnings(&self) -> &[CmdlineWarning] {
        &self.warnings
    }

    /// Every occurrence of the kernel parameter `name` (`-` and `_` alike), in order.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Param> + 'a {
        self.params.iter().filter(move |p| p.is_named(name))
    }

    /// The last occurrence of `name`: the one in force for most parameters.
    pub fn last(&self, name: &str) -> Option<&Param> {
        self.params.iter().rev().find(|p| p.is_named(name))
    }

    /// The value of the last occurrence of `name` (`None` if it is absent or written without
    /// `=`).
    pub fn value(&self, name: &str) -> Option<&str> {
        self.last(name).and_then(Param::value)
    }

    /// Whether the kernel parameter `name` appears at all (with or without a value).
    pub fn contains(&self, name: &str) -> bool {
        self.last(name).is_some()
    }

    /// The normalized names that appear more than once, in order of first appearance (e.g.
    /// `intel_pstate` when it is given three times).
    pub fn repeated_names(&self) -> Vec<String> {
        let mut seen: Vec<(String, usize)> = Vec::new();
        for param in &self.params {
            let name = param.normalized_name();
            match seen.iter_mut().find(|(n, _)| *n == name) {
                Some((_, count)) => *count += 1,
                None => seen.push((name.into_owned(), 1)),
            }
        }
        seen.into_iter()
            .filter(|(_, count)| *count > 1)
            .map(|(name, _)| name)
            .collect()
    }

    /// Appends a kernel parameter (before any `--`).
    pub fn push(&mut self, param: Param) {
        self.params.push(param);
    }

    /// Removes every occurrence of `name`; returns how many there were.
    pub fn remove(&mut self, name: &str) -> usize {
        let before = self.params.len();
        self.params.retain(|p| !p.is_named(name));
        before - self.params.len()
    }

    /// Sets a parameter: the first occurrence of its name is replaced by it and the others
    /// removed; without one, it is appended.
    pub fn set(&mut self, param: Param) {
        let name = param.normalized_name().into_owned();
        match self.params.iter().position(|p| p.is_named(&name)) {
            Some(first) => {
                let mut index = 0;
                self.params.retain(|p| {
                    let keep = index <= first || !p.is_named(&name);
                    index += 1;
                    keep
                });
                if let Some(slot) = self.params.get_mut(first) {
                    *slot = param;
                }
            }
            None => self.params.push(param),
        }
    }
}

impl fmt::Display for KernelCmdline {
    /// The line rebuilt from each parameter's text, one space apart, with `--` and init's
    /// arguments after it. Parsing it again gives the same parameters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params = self.params.iter().map(Param::raw);
        let separator = self.init_args.as_ref().map(|_| "--");
        let init = self.init_args.iter().flatten().map(Param::raw);
        for (i, text) in params.chain(separator).chain(init).enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(text)?;
        }
        Ok(())
    }
}

impl core::str::FromStr for KernelCmdline {
    type Err = core::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(KernelCmdline::parse(s))
    }
}

impl Param {
    /// A parameter `name` or `name=value`, written as the kernel reads it back: the value is
    /// wrapped in double quotes when it holds whitespace. Refused when the kernel could not
    /// read it back as this one parameter, or would leave a quote open (see [`ParamError`]).
    pub fn new(name: &str, value: Option<&str>) -> Result<Param, ParamError> {
        if name.is_empty() {
            return Err(ParamError::EmptyName);
        }
        let raw = match value {
            None => name.to_owned(),
            Some(value) if value.bytes().any(is_space) || value.starts_with('"') => {
                format!("{name}=\"{value}\"")
            }
            Some(value) => format!("{name}={value}"),
        };
        let param = Param {
            raw,
            name: name.to_owned(),
            value: value.map(str::to_owned),
        };
        let reread = KernelCmdline::parse(&param.raw);
        if reread.params == [param.clone()]
            && reread.init_args.is_none()
            && reread.warnings.is_empty()
        {
            Ok(param)
        } else {
            Err(ParamError::NotRepresentable { text: param.raw })
        }
    }

    /// The name as written (e.g. `nohz-full`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name with every `-` read as `_` (e.g. `nohz_full`), as the kernel compares names.
    pub fn normalized_name(&self) -> Cow<'_, str> {
        normalize_name(&self.name)
    }

    /// The value (without the quotes that wrapped it), if the parameter has `=`.
    pub fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }

    /// The parameter exactly as written on the line, quotes included.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// Whether this parameter is called `name`, `-` and `_` alike.
    pub fn is_named(&self, name: &str) -> bool {
        self.name.len() == name.len()
            && self
                .name
                .bytes()
                .zip(name.bytes())
                .all(|(a, b)| dash_to_underscore(a) == dash_to_underscore(b))
    }
}

impl fmt::Display for Param {
    /// The parameter as written on the line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

const fn dash_to_underscore(byte: u8) -> u8 {
    if byte == b'-' { b'_' } else { byte }
}

/// A parameter name with every `-` read as `_`, as the kernel compares names.
pub fn normalize_name(name: &str) -> Cow<'_, str> {
    if name.contains('-') {
        Cow::Owned(name.replace('-', "_"))
    } else {
        Cow::Borrowed(name)
    }
}

/// Parses a CPU list as the kernel's `cpulist_parse()` does for `isolcpus=`, `nohz_full=`,
/// `rcu_nocbs=` and `irqaffinity=`: [`CpuSet`]'s syntax, plus empty elements skipped (`1,,2`),
/// and — when the highest CPU number (`nr_cpu_ids - 1`, the last *possible* CPU) is given —
/// `N` for that CPU (`2-N`) and `all` for every CPU. Without `last_cpu`, `N` and `all` are
/// refused as malformed.
pub fn parse_kernel_cpu_list(list: &str, last_cpu: Option<usize>) -> Result<CpuSet, CpuListError> {
    let mut elements = Vec::new();
    for element in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (range, pattern) = match element.split_once(':') {
            Some((range, pattern)) => (range, Some(pattern)),
            None => (element, None),
        };
        let range = match last_cpu {
            Some(last) if range.eq_ignore_ascii_case("all") => Cow::Owned(format!("0-{last}")),
            Some(last) => match range.split_once('-') {
                Some((a, b)) if a == "N" || b == "N" => {
                    let a = if a == "N" {
                        last.to_string()
                    } else {
                        a.to_owned()
                    };
                    let b = if b == "N" {
                        last.to_string()
                    } else {
                        b.to_owned()
                    };
                    Cow::Owned(format!("{a}-{b}"))
                }
                None if range == "N" => Cow::Owned(last.to_string()),
                _ => Cow::Borrowed(range),
            },
            None => Cow::Borrowed(range),
        };
        elements.push(match pattern {
            Some(pattern) => format!("{range}:{pattern}"),
            None => range.into_owned(),
        });
    }
    CpuSet::parse(&elements.join(","))
}

/// The flags of `isolcpus=` (`isolcpus=nohz,domain,managed_irq,3`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct IsolcpusFlags {
    /// `nohz`: the CPUs also stop the tick when they run one task (as `nohz_full=`).
    pub nohz: bool,
    /// `domain`: the CPUs leave the scheduler's load-balancing domains (the default when no
    /// flag is written).
    pub domain: bool,
    /// `managed_irq`: managed interrupts avoid the CPUs when they can.
    pub managed_irq: bool,
}

impl IsolcpusFlags {
    /// Whether no flag is set.
    pub const fn is_empty(self) -> bool {
        !self.nohz && !self.domain && !self.managed_irq
    }
}

/// The value of `isolcpus=`: flags, then a CPU list (`managed_irq,domain,3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Isolcpus {
    /// The flags as written (see [`effective_flags`](Self::effective_flags) for what the
    /// kernel applies).
    pub flags: IsolcpusFlags,
    /// Flag words the kernel does not know and skips (it logs "isolcpus: Skipped unknown
    /// flag"), in order.
    pub unknown_flags: Vec<String>,
    /// The isolated CPUs as written (the kernel drops those at or above `nr_cpu_ids`, and
    /// keeps the boot CPU as housekeeping if every CPU is named).
    pub cpus: CpuSet,
}

/// Why the value of `isolcpus=` is refused (the kernel then ignores the whole parameter).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IsolcpusError {
    /// A flag word holds a character other than a letter or `_`.
    #[error(
        "isolcpus flag `{0}` is invalid (the kernel ignores the whole parameter): use nohz, domain or managed_irq, then the CPU list, e.g. isolcpus=managed_irq,domain,3"
    )]
    InvalidFlag(String),
    /// The CPU list after the flags is missing or malformed.
    #[error("isolcpus has no valid CPU list (the kernel ignores the whole parameter): {0}")]
    Cpus(#[source] CpuListError),
}

impl Isolcpus {
    /// Parses the value of `isolcpus=` as `housekeeping_isolcpus_setup()` does: while the text
    /// starts with a letter, a word up to the next `,` is a flag (`nohz`, `domain`,
    /// `managed_irq`; others are skipped, but one holding a character other than a letter or
    /// `_` makes the kernel ignore the parameter); the rest is a CPU list, parsed by
    /// [`parse_kernel_cpu_list`] with `last_cpu`.
    pub fn parse(value: &str, last_cpu: Option<usize>) -> Result<Isolcpus, IsolcpusError> {
        let mut flags = IsolcpusFlags::default();
        let mut unknown_flags = Vec::new();
        let mut rest = value;
        while rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            // As in the kernel, a known flag counts only with a `,` after it, and a list
            // starting with `N` or `all` is read as an unknown flag.
            let (word, after) = match rest.split_once(',') {
                Some((word, after)) => (word, Some(after)),
                None => (rest, None),
            };
            match word {
                "nohz" if after.is_some() => flags.nohz = true,
                "domain" if after.is_some() => flags.domain = true,
                "managed_irq" if after.is_some() => flags.managed_irq = true,
                _ if !word.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_') => {
                    return Err(IsolcpusError::InvalidFlag(word.to_owned()));
                }
                _ => unknown_flags.push(word.to_owned()),
            }
            rest = after.unwrap_or("");
        }
        let cpus = parse_kernel_cpu_list(rest, last_cpu).map_err(IsolcpusError::Cpus)?;
        Ok(Isolcpus {
            flags,
            unknown_flags,
            cpus,
        })
    }

    /// The flags the kernel applies: as written, or `domain` alone when none is written.
    pub fn effective_flags(&self) -> IsolcpusFlags {
        if self.flags.is_empty() {
            IsolcpusFlags {
                domain: true,
                ..self.flags
            }
        } else {
            self.flags
        }
    }
}

impl fmt::Display for Isolcpus {
    /// The value in the kernel's form: known flags (nohz, domain, managed_irq), unknown ones,
    /// then the CPU list.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known = [
            (self.flags.nohz, "nohz"),
            (self.flags.domain, "domain"),
            (self.flags.managed_irq, "managed_irq"),
        ];
        for (_, word) in known.iter().filter(|(set, _)| *set) {
            write!(f, "{word},")?;
        }
        for word in &self.unknown_flags {
            write!(f, "{word},")?;
        }
        write!(f, "{}", self.cpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pairs(line: &KernelCmdline) -> Vec<(&str, Option<&str>)> {
        line.params()
            .iter()
            .map(|p| (p.name(), p.value()))
            .collect()
    }

    #[test]
    fn splits_names_and_values() {
        let line = KernelCmdline::parse("  ro root=/dev/sda1 quiet= a=b=c\n");
        assert_eq!(
            pairs(&line),
            [
                ("ro", None),
                ("root", Some("/dev/sda1")),
                ("quiet", Some("")),
                ("a", Some("b=c"))
            ]
        );
        assert!(line.warnings().is_empty());
        assert!(!line.has_init_separator());
        assert_eq!(line.to_string(), "ro root=/dev/sda1 quiet= a=b=c");
        assert!(KernelCmdline::parse("").params().is_empty());
        assert!(KernelCmdline::parse(" \t\n").params().is_empty());
        assert_eq!(KernelCmdline::parse(" \t\n").to_string(), "");
    }

    #[test]
    fn quotes_follow_the_kernel() {
        let line = KernelCmdline::parse(
            "dyndbg=\"file foo.c +p\" \"whole=a b\" mid=a\"b c\"d \"bare\" e=\"\" f=\"",
        );
        assert_eq!(
            pairs(&line),
            [
                ("dyndbg", Some("file foo.c +p")),
                ("whole", Some("a b")),
                ("mid", Some("a\"b c\"d")),
                ("bare", None),
                ("e", Some("")),
                ("f", Some("")),
            ]
        );
        assert_eq!(line.params()[0].raw(), "dyndbg=\"file foo.c +p\"");
        // `f="` opened a quote that is never closed.
        assert_eq!(
            line.warnings(),
            [CmdlineWarning::UnterminatedQuote {
                param: "f=\"".into()
            }]
        );
    }

    #[test]
    fn an_unterminated_quote_swallows_the_rest_with_a_warning() {
        let line = KernelCmdline::parse("a=1 b=\"x y -- init\n");
        assert_eq!(
            pairs(&line),
            [("a", Some("1")), ("b", Some("x y -- init\n"))]
        );
        assert!(!line.has_init_separator());
        let warning = &line.warnings()[0];
        assert!(warning.to_string().contains("never closed"), "{warning}");
    }

    #[test]
    fn an_equals_sign_first_does_not_split() {
        let line = KernelCmdline::parse("=x =y=z");
        assert_eq!(pairs(&line), [("=x", None), ("=y", Some("z"))]);
    }

    #[test]
    fn dashes_end_the_kernel_params() {
        let line = KernelCmdline::parse("quiet -- --init-flag x=1 -- y");
        assert_eq!(pairs(&line), [("quiet", None)]);
        assert!(line.has_init_separator());
        let init: Vec<_> = line.init_args().iter().map(Param::raw).collect();
        assert_eq!(init, ["--init-flag", "x=1", "--", "y"]);
        assert_eq!(line.to_string(), "quiet -- --init-flag x=1 -- y");
        // `--=x` has a value, so it is a parameter, not the separator.
        assert!(!KernelCmdline::parse("--=x").has_init_separator());
        let only = KernelCmdline::parse("--");
        assert!(only.has_init_separator() && only.params().is_empty());
        assert_eq!(only.to_string(), "--");
    }

    #[test]
    fn a_nul_byte_ends_the_line() {
        let line = KernelCmdline::parse("a b\0c");
        assert_eq!(pairs(&line), [("a", None), ("b", None)]);
        assert_eq!(line.warnings(), [CmdlineWarning::NulByte { offset: 3 }]);
        assert!(line.warnings()[0].to_string().contains("NUL"));
    }

    #[test]
    fn names_compare_with_dashes_as_underscores() {
        let line =
            KernelCmdline::parse("nohz-full=1 rcu_nocbs=1 nohz_full=2 processor.max_cstate=1");
        assert_eq!(line.value("nohz_full"), Some("2"));
        assert_eq!(line.value("nohz-full"), Some("2"));
        assert_eq!(line.all("nohz_full").count(), 2);
        assert_eq!(line.params()[0].name(), "nohz-full");
        assert_eq!(line.params()[0].normalized_name(), "nohz_full");
        assert_eq!(line.value("rcu-nocbs"), Some("1"));
        assert_eq!(line.value("processor.max_cstate"), Some("1"));
        assert!(!line.contains("nohz"));
        assert_eq!(line.repeated_names(), ["nohz_full"]);
        assert_eq!(normalize_name("a-b_c"), "a_b_c");
    }

    #[test]
    fn last_value_wins_and_a_bare_last_has_none() {
        let line = KernelCmdline::parse("x=1 x");
        assert_eq!(line.value("x"), None);
        assert!(line.contains("x"));
        assert_eq!(line.last("x").unwrap().raw(), "x");
        assert_eq!(line.value("y"), None);
    }

    #[test]
    fn editing_the_line() {
        let mut line = KernelCmdline::parse("quiet isolcpus=1 splash isolcpus=2 -- single");
        line.set(Param::new("isolcpus", Some("managed_irq,domain,3")).unwrap());
        assert_eq!(
            line.to_string(),
            "quiet isolcpus=managed_irq,domain,3 splash -- single"
        );
        line.push(Param::new("dyndbg", Some("file a.c +p")).unwrap());
        line.set(Param::new("nohz_full", Some("3")).unwrap());
        assert_eq!(
            line.to_string(),
            "quiet isolcpus=managed_irq,domain,3 splash dyndbg=\"file a.c +p\" nohz_full=3 -- single"
        );
        assert_eq!(line.remove("splash"), 1);
        assert_eq!(line.remove("splash"), 0);
        let reread = KernelCmdline::parse(&line.to_string());
        assert_eq!(reread, line);
    }

    #[test]
    fn params_the_kernel_cannot_read_back_are_refused() {
        assert_eq!(Param::new("", None), Err(ParamError::EmptyName));
        for (name, value) in [
            ("a b", None),
            ("a=b", None),
            ("--", None),
            ("a\"", None),
            ("x", Some("a\" b")),
            ("x", Some("a\"b")),
        ] {
            let err = Param::new(name, value).unwrap_err();
            assert!(
                matches!(err, ParamError::NotRepresentable { .. }),
                "{name:?} {value:?}"
            );
            assert!(err.to_string().contains("no escapes"), "{err}");
        }
        assert_eq!(Param::new("x", Some("")).unwrap().raw(), "x=");
        assert_eq!(Param::new("x", Some("\"q\"")).unwrap().raw(), "x=\"\"q\"\"");
        assert_eq!(Param::new("x", Some("a\"b\"c")).unwrap().raw(), "x=a\"b\"c");
    }

    #[test]
    fn isolcpus_flags_and_cpus() {
        let iso = Isolcpus::parse("managed_irq,domain,3", None).unwrap();
        assert_eq!(
            iso.flags,
            IsolcpusFlags {
                nohz: false,
                domain: true,
                managed_irq: true
            }
        );
        assert_eq!(iso.cpus.to_string(), "3");
        assert_eq!(iso.to_string(), "domain,managed_irq,3");

        let plain = Isolcpus::parse("1-3,5", None).unwrap();
        assert!(plain.flags.is_empty());
        assert!(plain.effective_flags().domain && !plain.effective_flags().nohz);
        assert_eq!(plain.to_string(), "1-3,5");

        let nohz = Isolcpus::parse("nohz,fancy,2", None).unwrap();
        assert!(nohz.flags.nohz && !nohz.flags.domain);
        assert_eq!(nohz.effective_flags(), nohz.flags);
        assert_eq!(nohz.unknown_flags, ["fancy"]);

        assert_eq!(
            Isolcpus::parse("man-aged,3", None),
            Err(IsolcpusError::InvalidFlag("man-aged".into()))
        );
        assert_eq!(
            Isolcpus::parse("domain", None),
            Err(IsolcpusError::Cpus(CpuListError::Empty))
        );
        assert!(matches!(
            Isolcpus::parse("domain,3-", None),
            Err(IsolcpusError::Cpus(CpuListError::Malformed { .. }))
        ));
        let err = Isolcpus::parse("domain,x1", None).unwrap_err();
        assert!(err.to_string().contains("managed_irq"), "{err}");
        // `N` and `all` need the last CPU.
        assert_eq!(
            Isolcpus::parse("domain,2-N", Some(7))
                .unwrap()
                .cpus
                .to_string(),
            "2-7"
        );
        assert!(Isolcpus::parse("domain,2-N", None).is_err());
    }

    #[test]
    fn kernel_cpu_lists() {
        let list = |text, last| parse_kernel_cpu_list(text, last).map(|s| s.to_string());
        assert_eq!(list("1,,3", None), Ok("1,3".into()));
        assert_eq!(list("N", Some(3)), Ok("3".into()));
        assert_eq!(list("N-N", Some(3)), Ok("3".into()));
        assert_eq!(list("all", Some(3)), Ok("0-3".into()));
        assert_eq!(list("ALL:1/2", Some(3)), Ok("0,2".into()));
        assert_eq!(list("0-N:2", Some(6)), Ok("0,2,4,6".into()));
        assert!(list("all", None).is_err());
        assert_eq!(list("", None), Err(CpuListError::Empty));
    }

    /// Characters that exercise the quoting rules often.
    fn cmdline_like() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just('"'),
                Just('='),
                Just(' '),
                Just('\t'),
                Just('-'),
                Just('_'),
                Just('\0'),
                Just('é'),
                proptest::char::range('a', 'e'),
            ],
            0..40,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    fn check_round_trip(text: &str) -> Result<(), TestCaseError> {
        let line = KernelCmdline::parse(text);
        let rebuilt = line.to_string();
        let again = KernelCmdline::parse(&rebuilt);
        prop_assert_eq!(&again.params, &line.params, "rebuilt: {:?}", rebuilt);
        prop_assert_eq!(&again.init_args, &line.init_args);
        prop_assert_eq!(again.to_string(), rebuilt);
        for param in line.params().iter().chain(line.init_args()) {
            prop_assert!(!param.raw().is_empty());
            // Every parameter that can be built back from its name and value reads back.
            if let Ok(built) = Param::new(param.name(), param.value()) {
                prop_assert_eq!(built.name(), param.name());
                prop_assert_eq!(built.value(), param.value());
            }
            if let Some(value) = param.value() {
                let _ = Isolcpus::parse(value, None);
                let _ = Isolcpus::parse(value, Some(3));
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn never_panics_and_round_trips_on_any_text(text in ".{0,80}") {
            check_round_trip(&text)?;
        }

        #[test]
        fn never_panics_and_round_trips_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
            check_round_trip(&String::from_utf8_lossy(&bytes))?;
        }

        #[test]
        fn round_trips_on_quote_heavy_text(text in cmdline_like()) {
            check_round_trip(&text)?;
        }

        #[test]
        fn isolcpus_never_panics(text in "[a-z_N,0-9:/-]{0,24}") {
            if let Ok(iso) = Isolcpus::parse(&text, Some(9)) {
                let again = Isolcpus::parse(&iso.to_string(), Some(9)).unwrap();
                prop_assert_eq!(again.cpus, iso.cpus);
                prop_assert_eq!(again.flags, iso.flags);
            }
        }
    }
}
