//! The options part of a `--help`, written from a command's table.

use super::scan::{HasArg, Spec};

/// One line per option that has a help text, in table order: two spaces, the names and the
/// value (`-o, --output OUT`, `--root DIR`), then the help from `column` on (at least two
/// spaces after the names); the help's further lines (after `\n`) start at `column` too.
pub fn options<Id>(specs: &[Spec<Id>], column: usize) -> String {
    let mut text = String::new();
    for spec in specs.iter().filter(|s| !s.help.is_empty()) {
        let names = names(spec);
        let lead = format!("  {names}");
        let width = column.max(lead.chars().count() + 2);
        let mut lines = spec.help.lines();
        let first = lines.next().unwrap_or_default();
        text.push_str(&format!("{lead:<width$}{first}\n"));
        for line in lines {
            text.push_str(&format!("{:column$}{line}\n", ""));
        }
    }
    text
}

/// `-o, --output OUT`, `--root DIR`, `-h, --help`, `--threads[=N]`.
pub fn names<Id>(spec: &Spec<Id>) -> String {
    let mut names = match (spec.short, spec.long) {
        (Some(s), Some(l)) => format!("-{s}, --{l}"),
        (Some(s), None) => format!("-{s}"),
        (None, Some(l)) => format!("--{l}"),
        (None, None) => String::new(),
    };
    match spec.has_arg {
        HasArg::No => {}
        HasArg::Required => {
            names.push(' ');
            names.push_str(spec.value_name);
        }
        HasArg::Optional(_) => names.push_str(&format!("[={}]", spec.value_name)),
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_then_help_at_the_column() {
        const SPECS: &[Spec<u8>] = &[
            Spec::new(0)
                .short('o')
                .long("output")
                .value("OUT", "a file")
                .help("the image\nreplaced atomically"),
            Spec::new(1).long("json").help("print JSON"),
            Spec::new(2).long("hidden"),
            Spec::new(3)
                .long("a-very-long-name")
                .value("VALUE", "x")
                .help("h"),
        ];
        assert_eq!(
            options(SPECS, 20),
            "  -o, --output OUT  the image\n\
             \x20                   replaced atomically\n\
             \x20 --json            print JSON\n\
             \x20 --a-very-long-name VALUE  h\n"
        );
    }
}
