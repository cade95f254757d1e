//! `static` histograms land in `.bss` (RAM, no flash copy): the empty state is all zero bytes.
//! (With the old sentinels, `i64::MAX`/`i64::MIN` in `Summary`, the same statics were in
//! `.data`: 15.5 KiB of flash for the default histogram.)
//! Builds rtlat-core, compiles `tests/data/bss/statics.rs` against it to an object and reads
//! each static's section with `nm` (`b`/`B` is `.bss`; `d`/`D` would be `.data`, initialised
//! from flash). For the host: whether a constant is all zero bytes does not depend on the
//! target (the firmware example checks its own statics on thumbv7em in CI), and so the test
//! needs no extra target and is never skipped.

use std::path::Path;
use std::process::Command;

fn run(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn static_histograms_and_stats_land_in_bss() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("static-bss");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(Command::new(cargo)
        .args(["build", "--release", "--lib", "--manifest-path"])
        .arg(manifest.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &dir)
        .env_remove("RUSTFLAGS"))
    .expect("cargo runs");
    let deps = dir.join("release/deps");
    let rlib = |crate_name: &str| {
        std::fs::read_dir(&deps)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                name.starts_with(&format!("lib{crate_name}-")) && name.ends_with(".rlib")
            })
            .max_by_key(|p| p.metadata().unwrap().modified().unwrap())
            .unwrap_or_else(|| panic!("{crate_name} rlib built"))
    };
    let object = dir.join("statics.o");
    run(Command::new("rustc")
        .args(["--edition", "2024", "--crate-type", "lib", "--emit", "obj"])
        .args(["-C", "opt-level=s", "-o"])
        .arg(&object)
        .arg("--extern")
        .arg(format!("rtlat_core={}", rlib("rtlat_core").display()))
        .arg("-L")
        .arg(format!("dependency={}", deps.display()))
        .arg(manifest.join("tests/data/bss/statics.rs")))
    .expect("rustc runs");
    let symbols = run(Command::new("nm").arg("-S").arg(&object)).expect("nm runs");
    for name in ["DEFAULT_HISTOGRAM", "SMALL_HISTOGRAM", "SUMMARY", "STATS"] {
        // `address size type name`, the name mangled (e.g. `_ZN7statics7SUMMARY17h…E`).
        let line = symbols
            .lines()
            .find(|l| l.contains(&format!("{}{name}", name.len())))
            .unwrap_or_else(|| panic!("no symbol {name} in\n{symbols}"));
        let kind = line.split_whitespace().nth(2).unwrap();
        assert!(
            kind.eq_ignore_ascii_case("b"),
            "{name} is not in .bss (nm type {kind}, `d` is .data: a copy in flash): {line}"
        );
    }
}
