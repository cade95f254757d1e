//! The text of `--cmdline FILE`: a kernel command line as `/proc/cmdline` holds it, or a GRUB
//! configuration (`/etc/default/grub`, or just its `GRUB_CMDLINE_LINUX_DEFAULT="…"` line), of
//! which the `GRUB_CMDLINE_LINUX` and `GRUB_CMDLINE_LINUX_DEFAULT` values are taken in the order
//! GRUB writes them on the line.

/// Whether `text` is a GRUB configuration (it assigns `GRUB_CMDLINE_LINUX` or
/// `GRUB_CMDLINE_LINUX_DEFAULT`).
pub fn is_grub_config(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        let line = line.strip_prefix("export ").unwrap_or(line);
        line.starts_with("GRUB_CMDLINE_LINUX=") || line.starts_with("GRUB_CMDLINE_LINUX_DEFAULT=")
    })
}

/// The command line in `text`.
pub fn command_line(text: &str) -> String {
    let mut linux = None;
    let mut default = None;
    for line in text.lines() {
        let line = line.trim_start();
        let line = line.strip_prefix("export ").unwrap_or(line);
        if let Some(value) = line.strip_prefix("GRUB_CMDLINE_LINUX=") {
            linux = Some(shell_word(value));
        } else if let Some(value) = line.strip_prefix("GRUB_CMDLINE_LINUX_DEFAULT=") {
            default = Some(shell_word(value));
        }
    }
    if linux.is_none() && default.is_none() {
        return text.to_owned();
    }
    [linux, default]
        .into_iter()
        .flatten()
        .filter(|value| !value.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The value of a shell assignment: double quotes (with `\"`, `\\`, `\$` and `` \` ``
/// escapes), single quotes, or a bare word, up to the first unquoted blank or `#`. Variables
/// are not expanded.
fn shell_word(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            out.extend(chars.next());
                        }
                        '\\' if chars.peek() == Some(&'\n') => {
                            chars.next();
                        }
                        c => out.push(c),
                    }
                }
            }
            '\'' => out.extend(chars.by_ref().take_while(|&c| c != '\'')),
            '\\' => out.extend(chars.next()),
            c if c.is_whitespace() || c == '#' => break,
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_line_is_kept() {
        assert_eq!(command_line("ro quiet\n"), "ro quiet\n");
        assert!(!is_grub_config("ro quiet GRUB_CMDLINE_LINUX=x\n"));
        assert!(is_grub_config(
            "# x\n  GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
        ));
    }

    #[test]
    fn grub_values_are_unquoted_and_joined() {
        let grub = "# comment\nGRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash isolcpus=3\"\n\
                    GRUB_CMDLINE_LINUX='console=ttyS0'\n";
        assert_eq!(command_line(grub), "console=ttyS0 quiet splash isolcpus=3");
        assert_eq!(
            command_line("GRUB_CMDLINE_LINUX_DEFAULT=\"dyndbg=\\\"file a.c +p\\\" \\$x\" # note"),
            "dyndbg=\"file a.c +p\" $x"
        );
        assert_eq!(command_line("GRUB_CMDLINE_LINUX=ro\\ x"), "ro x");
        assert_eq!(command_line("GRUB_CMDLINE_LINUX=\"\"\n"), "");
        assert_eq!(
            command_line("GRUB_CMDLINE_LINUX=\"unterminated"),
            "unterminated"
        );
    }
}
