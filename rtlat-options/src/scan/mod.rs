//! The scanner: a small `getopt_long` work-alike, the command-line grammar cyclictest users
//! type, and every other rtlat command's (with [`Grammar`]'s settings).
//!
//! What it reproduces from glibc's `getopt_long` (and from cyclictest's own handling of its
//! optional arguments):
//!
//! - short options bundle (`-mq`), and a short option's value may be attached (`-i500`) or be
//!   the next word (`-i 500`); a required value is taken from the next word even when that word
//!   starts with `-` (`-i -5` gives `-i` the value `-5`);
//! - long options take `--name=value` or `--name value` (required values), and may be
//!   abbreviated to any unambiguous prefix (`--dist 0`); an exact name always wins;
//! - an option with an *optional* value (`-t`, `-a`, `-A`, `--secaligned`) takes an attached
//!   value (`-t5`, `--threads=5`), and — as cyclictest does by peeking at the next word — a
//!   following word that looks like a value (a number for `-t`, a CPU list for `-a`);
//! - `--` ends the options.
//!
//! Where it differs: a word that is not an option is refused (getopt would skip it and
//! cyclictest ignores it) unless the command takes operands ([`Grammar::operands`]: files),
//! and options marked not abbreviable (rtlat's own) need their full name, so that `rtlat run`
//! abbreviates exactly as cyclictest does.

use super::error::UsageError;

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasArg {
    /// A flag.
    No,
    /// Always a value: attached, after `=`, or the next word.
    Required,
    /// An optional value: attached, after `=`, or a next word of the given shape.
    Optional(Peek),
}

/// Which next words an optional value takes when it is not attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peek {
    /// A word starting with a digit, or a sign then a digit (`5`, `0`, `-1`).
    Number,
    /// A number as above, or a word starting with `!`, `+` or `a` (a CPU list, `all`).
    CpuList,
}

/// One option of the table.
#[derive(Debug, Clone, Copy)]
pub struct Spec<Id> {
    /// What the caller matches on.
    pub id: Id,
    /// The short letter, if any.
    pub short: Option<char>,
    /// The long name, if any.
    pub long: Option<&'static str>,
    /// Whether it takes a value.
    pub has_arg: HasArg,
    /// Whether a prefix of the long name selects it.
    pub abbreviable: bool,
    /// The value's name in the help (`DIR`, `N`); empty for a flag.
    pub value_name: &'static str,
    /// What the value must be, in words, for messages (`a directory`); empty where the
    /// command's [`Describe`] says it (a text with computed limits).
    pub expected: &'static str,
    /// The help text (continuation lines after `\n`); empty where the command's usage is a
    /// drop-in tool's text, kept verbatim.
    pub help: &'static str,
}

impl<Id: Copy> Spec<Id> {
    /// A flag with no name yet: add them with [`short`](Self::short) and
    /// [`long`](Self::long).
    pub const fn new(id: Id) -> Spec<Id> {
        Spec {
            id,
            short: None,
            long: None,
            has_arg: HasArg::No,
            abbreviable: false,
            value_name: "",
            expected: "",
            help: "",
        }
    }

    /// Its short letter.
    pub const fn short(self, letter: char) -> Spec<Id> {
        Spec {
            short: Some(letter),
            ..self
        }
    }

    /// Its long name (without the dashes).
    pub const fn long(self, name: &'static str) -> Spec<Id> {
        Spec {
            long: Some(name),
            ..self
        }
    }

    /// A required value named `name` in the help, `expected` in messages.
    pub const fn value(self, name: &'static str, expected: &'static str) -> Spec<Id> {
        Spec {
            has_arg: HasArg::Required,
            value_name: name,
            expected,
            ..self
        }
    }

    /// Its help text.
    pub const fn help(self, text: &'static str) -> Spec<Id> {
        Spec { help: text, ..self }
    }
}

impl<Id> Spec<Id> {
    /// The option's name for messages: `-i/--interval`, `-S`, `--json`.
    pub fn name(&self) -> String {
        match (self.short, self.long) {
            (Some(s), Some(l)) => format!("-{s}/--{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, Some(l)) => format!("--{l}"),
            (None, None) => String::from("(unnamed option)"),
        }
    }
}

/// One option found on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<Id> {
    /// Which option.
    pub id: Id,
    /// Its value, if it took one.
    pub value: Option<String>,
    /// Whether an optional value was the next word (`-t 5`), not attached (`-t5`, `--threads=5`).
    pub peeked: bool,
}

/// A command line [`scan`] refuses: rtlat's error, and the line glibc's `getopt_long` prints
/// for it (without the program name), if getopt complains too (unknown options, missing values,
/// ambiguous prefixes; not the words getopt skips).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    /// rtlat's error.
    pub error: UsageError,
    /// glibc's complaint, e.g. `invalid option -- 'n'`.
    pub getopt: Option<String>,
}

/// What each option's value should be, for "needs a value" messages, where the table's
/// [`Spec::expected`] is empty (a text with computed limits).
pub trait Describe<Id> {
    /// What the option's value should be.
    fn expected(&self, id: Id) -> String;
}

/// No description beyond the table's own.
impl<Id> Describe<Id> for () {
    fn expected(&self, _: Id) -> String {
        String::from("a value")
    }
}

/// What the table says an option's value is, else what `describe` says.
fn expected_of<Id: Copy>(spec: &Spec<Id>, describe: &dyn Describe<Id>) -> String {
    if spec.expected.is_empty() {
        describe.expected(spec.id)
    } else {
        spec.expected.to_owned()
    }
}

/// The command's grammar beyond its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Grammar {
    /// Words that are not options are the command's operands (files), in order, instead of
    /// refused.
    pub operands: bool,
    /// A required value may be a next word that starts with `--` (as getopt takes it);
    /// when false, such a word is an option and the value is missing.
    pub values_never_start_with_dashes: bool,
}

/// A command line split by [`scan_with`]: the options in order, and the operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scanned<Id> {
    /// The options found, in order.
    pub options: Vec<Found<Id>>,
    /// The words that are not options (with [`Grammar::operands`]), in order.
    pub operands: Vec<String>,
}

/// Splits `args` (without the program name) into options and their values.
pub fn scan<Id: Copy>(
    args: &[String],
    specs: &[Spec<Id>],
    describe: &dyn Describe<Id>,
) -> Result<Vec<Found<Id>>, UsageError> {
    scan_detailed(args, specs, describe).map_err(|e| e.error)
}

/// [`scan`], also saying what glibc's getopt would print for a refused command line.
pub fn scan_detailed<Id: Copy>(
    args: &[String],
    specs: &[Spec<Id>],
    describe: &dyn Describe<Id>,
) -> Result<Vec<Found<Id>>, ScanError> {
    scan_grammar(args, specs, describe, Grammar::default()).map(|s| s.options)
}

/// Splits `args` into options and operands as `grammar` says.
pub fn scan_with<Id: Copy>(
    args: &[String],
    specs: &[Spec<Id>],
    describe: &dyn Describe<Id>,
    grammar: Grammar,
) -> Result<Scanned<Id>, UsageError> {
    scan_grammar(args, specs, describe, grammar).map_err(|e| e.error)
}

fn scan_grammar<Id: Copy>(
    args: &[String],
    specs: &[Spec<Id>],
    describe: &dyn Describe<Id>,
    grammar: Grammar,
) -> Result<Scanned<Id>, ScanError> {
    let plain = |error: UsageError| ScanError {
        error,
        getopt: None,
    };
    let mut found = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    // An option whose optional value was not taken: a stray word right after it was most
    // likely meant as that value, so the error names the option.
    let mut after_optional: Option<&Spec<Id>> = None;
    while let Some(arg) = args.get(i) {
        i += 1;
        let previous = after_optional.take();
        let stray = |argument: &String| match previous {
            Some(spec) => UsageError::InvalidValue {
                option: spec.name(),
                value: argument.clone(),
                expected: expected_of(spec, describe),
            },
            None => UsageError::StrayArgument {
                argument: argument.clone(),
            },
        };
        if arg == "--" {
            if grammar.operands {
                operands.extend(args[i..].iter().cloned());
                break;
            }
            if let Some(stray) = args.get(i) {
                return Err(plain(UsageError::StrayArgument {
                    argument: stray.clone(),
                }));
            }
            break;
        }
        if let Some(body) = arg.strip_prefix("--") {
            let (name, attached) = match body.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (body, None),
            };
            let spec = find_long(specs, name).map_err(|error| {
                let getopt = match &error {
                    UsageError::AmbiguousOption { candidates, .. } => format!(
                        "option '{arg}' is ambiguous; possibilities: {}",
                        candidates
                            .iter()
                            .map(|c| format!("'{c}'"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                    _ => format!("unrecognized option '{arg}'"),
                };
                ScanError {
                    error,
                    getopt: Some(getopt),
                }
            })?;
            let full = spec.long.unwrap_or(name);
            let mut peeked = false;
            let value = match (spec.has_arg, attached) {
                (HasArg::No, Some(_)) => {
                    return Err(ScanError {
                        error: UsageError::UnexpectedValue {
                            option: format!("--{full}"),
                            given: arg.clone(),
                        },
                        getopt: Some(format!("option '--{full}' doesn't allow an argument")),
                    });
                }
                (HasArg::No, None) => None,
                (_, Some(value)) => Some(value),
                (HasArg::Required, None) => {
                    let next = args.get(i).filter(|next| {
                        !(grammar.values_never_start_with_dashes && next.starts_with("--"))
                    });
                    let Some(next) = next else {
                        return Err(ScanError {
                            error: missing(spec, describe),
                            getopt: Some(format!("option '--{full}' requires an argument")),
                        });
                    };
                    i += 1;
                    Some(next.clone())
                }
                (HasArg::Optional(peek), None) => {
                    let value = take_peeked(args, &mut i, peek);
                    if value.is_none() {
                        after_optional = Some(spec);
                    }
                    peeked = value.is_some();
                    value
                }
            };
            found.push(Found {
                id: spec.id,
                value,
                peeked,
            });
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            if grammar.operands && previous.is_none() {
                operands.push(arg.clone());
                continue;
            }
            return Err(plain(stray(arg)));
        };
        for (at, letter) in cluster.char_indices() {
            let Some(spec) = specs.iter().find(|s| s.short == Some(letter)) else {
                return Err(ScanError {
                    error: UsageError::UnknownOption {
                        option: format!("-{letter}"),
                    },
                    getopt: Some(format!("invalid option -- '{letter}'")),
                });
            };
            let rest = &cluster[at + letter.len_utf8()..];
            match spec.has_arg {
                HasArg::No => found.push(Found {
                    id: spec.id,
                    value: None,
                    peeked: false,
                }),
                HasArg::Required => {
                    let value = if !rest.is_empty() {
                        rest.to_owned()
                    } else if let Some(next) = args.get(i).filter(|next| {
                        !(grammar.values_never_start_with_dashes && next.starts_with("--"))
                    }) {
                        i += 1;
                        next.clone()
                    } else {
                        return Err(ScanError {
                            error: missing(spec, describe),
                            getopt: Some(format!("option requires an argument -- '{letter}'")),
                        });
                    };
                    found.push(Found {
                        id: spec.id,
                        value: Some(value),
                        peeked: false,
                    });
                    break;
                }
                HasArg::Optional(peek) => {
                    let (value, peeked) = if rest.is_empty() {
                        let value = take_peeked(args, &mut i, peek);
                        let peeked = value.is_some();
                        (value, peeked)
                    } else {
                        (Some(rest.to_owned()), false)
                    };
                    if value.is_none() {
                        after_optional = Some(spec);
                    }
                    found.push(Found {
                        id: spec.id,
                        value,
                        peeked,
                    });
                    break;
                }
            }
        }
    }
    Ok(Scanned {
        options: found,
        operands,
    })
}

fn missing<Id: Copy>(spec: &Spec<Id>, describe: &dyn Describe<Id>) -> UsageError {
    UsageError::MissingValue {
        option: spec.name(),
        expected: expected_of(spec, describe),
    }
}

/// Takes the next word as an optional value if it has the shape `peek` asks for.
fn take_peeked(args: &[String], i: &mut usize, peek: Peek) -> Option<String> {
    let next = args.get(*i)?;
    // cyclictest peeks with atoi, which skips leading white space (`-t ' 2'`).
    let mut chars = crate::values::trim_c_space(next).chars();
    let first = chars.next()?;
    let numeric = first.is_ascii_digit()
        || (matches!(first, '-' | '+') && chars.next().is_some_and(|c| c.is_ascii_digit()));
    let takes = match peek {
        Peek::Number => numeric,
        Peek::CpuList => numeric || matches!(first, '!' | '+' | 'a'),
    };
    if takes {
        *i += 1;
        Some(next.clone())
    } else {
        None
    }
}

/// Finds a long option by exact name, else by unambiguous prefix among abbreviable ones.
fn find_long<'a, Id>(specs: &'a [Spec<Id>], name: &str) -> Result<&'a Spec<Id>, UsageError> {
    if let Some(spec) = specs.iter().find(|s| s.long == Some(name)) {
        return Ok(spec);
    }
    let unknown = || UsageError::UnknownOption {
        option: format!("--{name}"),
    };
    if name.is_empty() {
        return Err(unknown());
    }
    let mut candidates = specs
        .iter()
        .filter(|s| s.abbreviable && s.long.is_some_and(|l| l.starts_with(name)));
    match (candidates.next(), candidates.next()) {
        (None, _) => Err(unknown()),
        (Some(spec), None) => Ok(spec),
        (Some(first), Some(second)) => {
            let all = [first, second]
                .into_iter()
                .chain(candidates)
                .filter_map(|s| s.long.map(|l| format!("--{l}")))
                .collect();
            Err(UsageError::AmbiguousOption {
                option: format!("--{name}"),
                candidates: all,
            })
        }
    }
}

#[cfg(test)]
mod tests;
