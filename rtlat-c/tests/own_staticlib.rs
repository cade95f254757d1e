//! A C-callable library of a user's own over rtlat-core (not rtlat-c): `no_std`, `panic =
//! "abort"`, built as a staticlib, linked into a shared object and loaded with `dlopen` from
//! C, as rtlat-core's README ("Calling it from C through a library of your own") says. With
//! the README's `rust_eh_personality` it loads and computes; without it `dlopen` fails naming
//! that symbol, which is why the README asks for it.

use crate::c::{cc, run, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The library's source: a histogram in a `static`, `record` and `mean` for C.
const LIB: &str = r#"#![no_std]
use rtlat_core::{DefaultHistogram, Record};

static mut HISTOGRAM: DefaultHistogram = DefaultHistogram::empty();

#[unsafe(no_mangle)]
pub extern "C" fn own_record(ns: i64) {
    // SAFETY: the C test calls from one thread.
    unsafe { (*core::ptr::addr_of_mut!(HISTOGRAM)).record(ns) }
}

#[unsafe(no_mangle)]
pub extern "C" fn own_mean() -> i64 {
    // SAFETY: as above.
    let histogram = unsafe { &*core::ptr::addr_of!(HISTOGRAM) };
    histogram.summary().mean_truncated().unwrap_or(0)
}

#[panic_handler]
fn halt(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
"#;

/// The README's routine, as a user pastes it.
const PERSONALITY: &str = r#"
#[cfg(all(panic = "abort", not(target_os = "none")))]
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality(
    _version: i32,
    _actions: i32,
    _exception_class: u64,
    _exception: *mut core::ffi::c_void,
    _context: *mut core::ffi::c_void,
) -> i32 {
    8
}
"#;

/// The shared object's C side and the program that loads it.
const PLUGIN: &str = "extern void own_record(long long); extern long long own_mean(void);\n\
long long plugin_run(void) { own_record(-400); own_record(12000); own_record(158000); return own_mean(); }\n";
const LOADER: &str = r#"#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    void *plugin = dlopen(argv[1], RTLD_NOW);
    if (!plugin) { printf("dlopen: %s\n", dlerror()); return 1; }
    long long (*run)(void) = (long long (*)(void))dlsym(plugin, "plugin_run");
    printf("mean %lld\n", run());
    return 0;
}
"#;

/// Builds the library (with the routine or not) and the shared object over it; its path.
fn plugin(with_personality: bool) -> PathBuf {
    let name = if with_personality { "with" } else { "without" };
    let dir = scratch().join(format!("own-staticlib-{name}"));
    let _ = std::fs::remove_dir_all(dir.join("src"));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtlat-core");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"own\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [lib]\ncrate-type = [\"staticlib\"]\n\n\
             [dependencies]\nrtlat-core = {{ path = {:?} }}\n\n\
             [profile.release]\npanic = \"abort\"\n\n[workspace]\n",
            core.canonicalize().unwrap()
        ),
    )
    .unwrap();
    let source = if with_personality {
        format!("{LIB}{PERSONALITY}")
    } else {
        LIB.to_string()
    };
    std::fs::write(dir.join("src/lib.rs"), source).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // The workspace's lock file: the same dependency versions, nothing fetched.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
    run(Command::new(cargo)
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .args(["build", "--release", "--offline", "--quiet"]));
    std::fs::write(dir.join("plugin.c"), PLUGIN).unwrap();
    let shared_object = dir.join("plugin.so");
    run(cc()
        .args(["-shared", "-fPIC", "-o"])
        .arg(&shared_object)
        .arg(dir.join("plugin.c"))
        .arg(dir.join("target/release/libown.a"))
        .arg("-Wl,--gc-sections"));
    shared_object
}

/// The C program that loads a shared object and calls it, built once.
fn loader() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = scratch();
        std::fs::write(dir.join("loader.c"), LOADER).unwrap();
        let exe = dir.join("own-loader");
        run(cc()
            .arg(dir.join("loader.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-ldl"));
        exe
    })
}

#[test]
fn a_library_of_ones_own_loads_with_the_readmes_personality_routine() {
    let out = run(Command::new(loader()).arg(plugin(true)));
    // (-400 + 12000 + 158000) / 3, truncated.
    assert_eq!(out, "mean 56533\n");
}

#[test]
fn without_it_dlopen_names_the_missing_symbol() {
    let out = Command::new(loader()).arg(plugin(false)).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("undefined symbol: rust_eh_personality"),
        "{stdout}"
    );
}
