//! Finds Xenomai's `xeno-config` and links the Alchemy skin's no-auto-init libraries.
//!
//! Search order: `$XENO_CONFIG`, then `xeno-config` on `PATH`, then
//! `/usr/xenomai/bin/xeno-config`. Without one the crate builds without Xenomai: no cfg is
//! set, nothing is linked, and every entry point says "built without Xenomai (set
//! XENO_CONFIG)".
//!
//! With one: `-L`/`-l` from `xeno-config --skin=alchemy --ldflags --no-auto-init` (the
//! `-Wl,…` parts, Cobalt's `--wrap` lists included, are left out: they are for programs
//! compiled with Xenomai's headers, and a library crate cannot pass them on anyway), an rpath
//! to the library directory for this crate's own tests and examples, the cfgs
//! `rtlat_xenomai` and `xenomai_mercury`/`xenomai_cobalt`, and for dependents' build scripts
//! the `links` metadata `DEP_XENOMAI_LIBDIR`, `DEP_XENOMAI_CORE`, `DEP_XENOMAI_CONFIG`.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-env-changed=XENO_CONFIG");
    println!("cargo::rustc-check-cfg=cfg(rtlat_xenomai)");
    println!("cargo::rustc-check-cfg=cfg(xenomai_mercury)");
    println!("cargo::rustc-check-cfg=cfg(xenomai_cobalt)");

    let Some(config) = find_xeno_config() else {
        return;
    };
    println!("cargo::rerun-if-changed={}", config.display());
    let core = query(&config, &["--core"]);
    let core = core.trim();
    let core_cfg = match core {
        "mercury" => "xenomai_mercury",
        "cobalt" => "xenomai_cobalt",
        other => panic!(
            "{}: unknown Xenomai core {other:?} (expected mercury or cobalt)",
            config.display()
        ),
    };
    let ldflags = query(&config, &["--skin=alchemy", "--ldflags", "--no-auto-init"]);
    let cflags = query(&config, &["--skin=alchemy", "--cflags"]);
    let libdir = query(&config, &["--libdir"]);
    let libdir = libdir.trim();

    for flag in ldflags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo::rustc-link-search=native={dir}");
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo::rustc-link-lib=dylib={lib}");
        }
        // Everything else (`-Wl,--no-as-needed`, Cobalt's `-Wl,@…/modechk.wrappers`) is
        // left out on purpose: see the module docs.
    }
    // This crate's own test and example binaries find the libraries without LD_LIBRARY_PATH.
    // (A link-arg of a library crate does not reach its dependents: they read
    // DEP_XENOMAI_LIBDIR in a build script of their own, see the README.)
    println!("cargo::rustc-link-arg=-Wl,-rpath,{libdir}");

    println!("cargo::rustc-cfg=rtlat_xenomai");
    println!("cargo::rustc-cfg={core_cfg}");
    println!("cargo::rustc-env=RTLAT_XENO_CONFIG={}", config.display());
    println!("cargo::rustc-env=RTLAT_XENO_CFLAGS={}", cflags.trim());
    println!("cargo::rustc-env=RTLAT_XENO_LIBDIR={libdir}");
    println!("cargo::metadata=libdir={libdir}");
    println!("cargo::metadata=core={core}");
    println!("cargo::metadata=config={}", config.display());
}

/// `$XENO_CONFIG`, `xeno-config` on `PATH`, or `/usr/xenomai/bin/xeno-config`.
fn find_xeno_config() -> Option<PathBuf> {
    if let Some(path) = env::var_os("XENO_CONFIG").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        if !path.is_file() {
            panic!("XENO_CONFIG={} is not a file", path.display());
        }
        return Some(path);
    }
    let on_path = env::var_os("PATH").and_then(|paths| {
        env::split_paths(&paths)
            .map(|dir| dir.join("xeno-config"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let default = Path::new("/usr/xenomai/bin/xeno-config");
        default.is_file().then(|| default.to_path_buf())
    })
}

/// Runs `xeno-config args`; its standard output.
fn query(config: &Path, args: &[&str]) -> String {
    let out = Command::new(config)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", config.display()));
    if !out.status.success() {
        panic!(
            "{} {} failed: {}",
            config.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    String::from_utf8(out.stdout)
        .unwrap_or_else(|_| panic!("{} printed non-UTF-8", config.display()))
}
