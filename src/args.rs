//! The command line as text: every argument must be UTF-8 (options, numbers, CPU lists and
//! file names alike); one that is not is refused in one line, never a panic.

use std::ffi::OsString;
use std::process::ExitCode;

/// `args` (argv, the program name first) as `String`s, or the line that refuses the first
/// one that is not UTF-8: its position and its bytes with the bad ones escaped.
pub fn utf8(args: impl IntoIterator<Item = OsString>) -> Result<Vec<String>, String> {
    args.into_iter()
        .enumerate()
        .map(|(i, arg)| {
            arg.into_string().map_err(|bad| {
                format!(
                    "argument {i} ({}) is not UTF-8 text; every argument must be",
                    escaped(&bad)
                )
            })
        })
        .collect()
}

/// `arg`'s bytes as text, each byte that is not UTF-8 written `\xNN`.
fn escaped(arg: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    arg.as_bytes()
        .utf8_chunks()
        .flat_map(|chunk| {
            let bad = chunk.invalid().iter().map(|b| format!("\\x{b:02x}"));
            std::iter::once(chunk.valid().to_owned()).chain(bad)
        })
        .collect()
}

/// The name the program was started under (argv\[0\]'s file name), lossily as text.
pub fn invoked_as() -> Option<String> {
    let first = std::env::args_os().next()?;
    let name = std::path::Path::new(&first).file_name()?;
    Some(name.to_string_lossy().into_owned())
}

/// argv\[0\] as typed, lossily as text.
pub fn program() -> Option<String> {
    std::env::args_os()
        .next()
        .map(|a| a.to_string_lossy().into_owned())
}

/// The name to put before a message: [`invoked_as`], or `rtlat`.
pub fn name() -> String {
    invoked_as().unwrap_or_else(|| "rtlat".into())
}

/// The rtlat binary `name` (`rtlat-tools`, `rtlat-plot`) installed beside the running one,
/// if it is there: the siblings are found only there, never through `PATH`.
pub fn sibling(name: &str) -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.join(name)).filter(|p| p.is_file())
}

/// A binary's `main`: `command` on argv as UTF-8 text (argv\[0\] first) — or, when an argument
/// is not UTF-8, the one-line refusal after `name` and the bad-input status — and then the end
/// through [`crate::stdio::exit`], where a reader gone ends the process by SIGPIPE.
pub fn main(name: &str, command: impl FnOnce(Vec<String>) -> ExitCode) -> ExitCode {
    let code = match utf8(std::env::args_os()) {
        Ok(args) => command(args),
        Err(message) => {
            crate::errln!("{name}: {message}");
            ExitCode::from(crate::exit_status::BAD_INPUT)
        }
    };
    crate::stdio::exit(name, code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStringExt;

    #[test]
    fn a_non_utf8_argument_is_refused_naming_it() {
        let args = vec![
            OsString::from("rtlat"),
            OsString::from("run"),
            OsString::from_vec(b"-a\xff1".to_vec()),
        ];
        assert_eq!(
            utf8(args).unwrap_err(),
            "argument 2 (-a\\xff1) is not UTF-8 text; every argument must be"
        );
        assert_eq!(
            utf8([OsString::from("rtlat"), OsString::from("µs")]).unwrap(),
            ["rtlat", "µs"]
        );
    }
}
