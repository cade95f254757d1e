//! Running the C compiler and building the staticlib for the tests.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The crate's directory.
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where the tests write: `<target dir>/rtlat-c/`, beside the test binary's profile
/// directory (`<target>/<profile>/deps/tests-…`).
pub fn scratch() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe
        .ancestors()
        .nth(3)
        .expect("the test binary sits in <target dir>/<profile>/deps/")
        .join("rtlat-c");
    std::fs::create_dir_all(&dir).expect("create the tests' scratch directory");
    dir
}

/// Runs `command`, failing the test with its output unless it succeeds; returns stdout.
pub fn run(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The C compiler: `$CC`, else `cc`.
pub fn cc() -> Command {
    Command::new(std::env::var_os("CC").unwrap_or_else(|| "cc".into()))
}

/// `librtlat_c.a` built as the README's "Building" says, `no_std` with `panic = "abort"`:
/// `cargo rustc -p rtlat-c --release --crate-type staticlib -- -C panic=abort`, in a target
/// directory of its own under [`scratch`] (the outer cargo holds the lock on its own). Built
/// once per test run.
pub fn staticlib() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let target = scratch().join("staticlib");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        run(Command::new(cargo)
            .current_dir(crate_dir())
            .env("CARGO_TARGET_DIR", &target)
            .args([
                "rustc",
                "-p",
                "rtlat-c",
                "--release",
                "--crate-type",
                "staticlib",
            ])
            .args(["--", "-C", "panic=abort"]));
        let lib = target.join("release").join("librtlat_c.a");
        assert!(lib.is_file(), "cargo rustc made no {}", lib.display());
        lib
    })
}
