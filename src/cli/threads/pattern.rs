//! The patterns of `rtlat threads --name`: a small regular-expression subset, enough to pick
//! threads by name (`qemu-system`, `^CPU [0-9]*/KVM$` is not, but `^CPU .*/KVM$` is), with no
//! dependency.
//!
//! | syntax      | matches                                      |
//! |-------------|----------------------------------------------|
//! | `c`         | the character `c`                            |
//! | `.`         | any one character                            |
//! | `x*` `x+` `x?` | `x` (a character, `.` or `\c`) 0+, 1+, 0–1 times |
//! | `^` `$`     | the start, the end of the name               |
//! | `a\|b`      | `a` or `b`                                   |
//! | `\c`        | `c` itself (`\.`, `\*`, `\\`, `\(`)          |
//!
//! A pattern matches anywhere in the name unless anchored. Brackets, parentheses and braces
//! are refused (not silently taken literally): escape them with `\` to match them.

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    branches: Vec<Branch>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Branch {
    anchored_start: bool,
    anchored_end: bool,
    items: Vec<(Atom, Repeat)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Atom {
    Char(char),
    Any,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repeat {
    One,
    ZeroOrMore,
    OneOrMore,
    ZeroOrOne,
}

/// What `--name` accepts, for error messages.
pub const SYNTAX: &str = "literal characters, `.`, `*`, `+`, `?`, `^`, `$`, `|` and `\\` escapes";

impl Pattern {
    /// Compiles `text`; the error is the reason, in words.
    pub fn new(text: &str) -> Result<Pattern, String> {
        let branches = split_branches(text)?
            .iter()
            .map(|b| branch(b))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Pattern { branches })
    }

    /// Whether the pattern matches somewhere in `name`.
    pub fn is_match(&self, name: &str) -> bool {
        let chars: Vec<char> = name.chars().collect();
        self.branches.iter().any(|b| {
            let starts = if b.anchored_start {
                0..=0
            } else {
                0..=chars.len()
            };
            starts
                .into_iter()
                .any(|start| matches_here(&b.items, &chars[start..], b.anchored_end))
        })
    }
}

/// Splits at `|` not escaped by `\`.
fn split_branches(text: &str) -> Result<Vec<String>, String> {
    let mut branches = vec![String::new()];
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let next = chars
                    .next()
                    .ok_or("a `\\` ends the pattern: escape something, or write `\\\\`")?;
                let last = branches.last_mut().ok_or("empty pattern")?;
                last.push('\\');
                last.push(next);
            }
            '|' => branches.push(String::new()),
            c => branches.last_mut().ok_or("empty pattern")?.push(c),
        }
    }
    Ok(branches)
}

fn branch(text: &str) -> Result<Branch, String> {
    let mut rest = text;
    let anchored_start = rest.starts_with('^');
    if anchored_start {
        rest = &rest[1..];
    }
    // A final unescaped `$`: count the backslashes before it.
    let anchored_end = rest.ends_with('$')
        && rest[..rest.len() - 1]
            .chars()
            .rev()
            .take_while(|&c| c == '\\')
            .count()
            % 2
            == 0;
    if anchored_end {
        rest = &rest[..rest.len() - 1];
    }
    let mut items: Vec<(Atom, Repeat)> = Vec::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        let atom = match c {
            '\\' => Atom::Char(chars.next().ok_or("a `\\` ends the pattern")?),
            '.' => Atom::Any,
            '*' | '+' | '?' => {
                let repeat = match c {
                    '*' => Repeat::ZeroOrMore,
                    '+' => Repeat::OneOrMore,
                    _ => Repeat::ZeroOrOne,
                };
                match items.last_mut() {
                    Some((_, r @ Repeat::One)) => *r = repeat,
                    _ => {
                        return Err(format!(
                            "`{c}` repeats nothing: put it after a character or `.` (write `\\{c}` to match it)"
                        ));
                    }
                }
                continue;
            }
            '(' | ')' | '[' | ']' | '{' | '}' | '^' | '$' => {
                return Err(format!(
                    "`{c}` is not supported here: use {SYNTAX} (write `\\{c}` to match it)"
                ));
            }
            c => Atom::Char(c),
        };
        items.push((atom, Repeat::One));
    }
    Ok(Branch {
        anchored_start,
        anchored_end,
        items,
    })
}

/// Whether `items` match at the start of `text` (to its end if `to_end`). Backtracking;
/// thread names are at most 15 bytes, so its worst case does not matter.
fn matches_here(items: &[(Atom, Repeat)], text: &[char], to_end: bool) -> bool {
    let Some(((atom, repeat), rest)) = items.split_first() else {
        return !to_end || text.is_empty();
    };
    let fits = |c: &char| match atom {
        Atom::Any => true,
        Atom::Char(want) => c == want,
    };
    let (min, max) = match repeat {
        Repeat::One => (1, 1),
        Repeat::ZeroOrOne => (0, 1),
        Repeat::ZeroOrMore => (0, usize::MAX),
        Repeat::OneOrMore => (1, usize::MAX),
    };
    let available = text.iter().take_while(|c| fits(c)).count().min(max);
    (min..=available)
        .rev()
        .any(|n| matches_here(rest, &text[n..], to_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, name: &str) -> bool {
        Pattern::new(pattern).unwrap().is_match(name)
    }

    #[test]
    fn matches_like_a_regex() {
        assert!(m("qemu-system", "qemu-system-x86"));
        assert!(m("qemu", "my-qemu"));
        assert!(!m("^qemu", "my-qemu"));
        assert!(m("^CPU .*/KVM$", "CPU 3/KVM"));
        assert!(!m("^CPU .*/KVM$", "CPU 3/KVM2"));
        assert!(m(
            "^ksoftirqd/[0-9]".replace("[0-9]", ".").as_str(),
            "ksoftirqd/3"
        ));
        assert!(m("a.c", "abc") && !m("a.c", "ac"));
        assert!(m("ab*c", "ac") && m("ab*c", "abbbc"));
        assert!(m("ab+c", "abc") && !m("ab+c", "ac"));
        assert!(m("^ab?c$", "ac") && m("^ab?c$", "abc") && !m("^ab?c$", "abbc"));
        assert!(m("^irq/|^ksoftirqd", "irq/24-ACPI:Ged"));
        assert!(m("^irq/|^ksoftirqd", "ksoftirqd/0"));
        assert!(!m("^irq/|^ksoftirqd", "kworker"));
        assert!(m("a\\.b", "a.b") && !m("a\\.b", "axb"));
        assert!(m("\\(x\\)", "my (x) comm"));
        assert!(m("cost\\$$", "cost$"));
        assert!(m("", "anything") && m("^$", "") && !m("^$", "x"));
        assert!(m(".*", ""));
        assert!(m("é+", "café"));
    }

    #[test]
    fn refuses_what_it_does_not_support() {
        for (bad, fragment) in [
            ("[0-9]", "`[` is not supported"),
            ("(a|b)", "`(` is not supported"),
            ("a{2}", "`{` is not supported"),
            ("*a", "`*` repeats nothing"),
            ("a**", "`*` repeats nothing"),
            ("a\\", "ends the pattern"),
            ("a^b", "`^` is not supported"),
        ] {
            let err = Pattern::new(bad).unwrap_err();
            assert!(err.contains(fragment), "{bad}: {err}");
        }
    }

    #[test]
    fn backtracking_stays_quick_on_names() {
        let pattern = Pattern::new("a*a*a*a*a*a*a*b").unwrap();
        assert!(!pattern.is_match("aaaaaaaaaaaaaaa"));
    }
}
