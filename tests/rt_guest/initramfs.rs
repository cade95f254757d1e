//! The guest's throw-away initramfs: busybox, rtlat's binaries (the ones `cargo test` built
//! for x86_64; the static `board` build for arm64), for x86_64 the peers (cyclictest, rtla,
//! chrt, taskset) with their shared libraries as `ldd` lists them, each fetched kernel's
//! msr driver (`/opt/modules/SERIES/msr.ko`) and configuration (`/boot/config-RELEASE`, as
//! its package installs it), `/init` and the suites (`guest/`). Written as an uncompressed `newc` cpio archive, which the kernel unpacks
//! as it is; built once per test process and architecture.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use super::machine::{Arch, cache_dir, which};

/// One entry of the archive.
enum Entry {
    Dir,
    File { bytes: Vec<u8>, mode: u32 },
    Symlink(String),
}

/// The archive for `arch` (its path), built on first use.
pub fn build(arch: Arch) -> Result<PathBuf, String> {
    static BUILT: OnceLock<Mutex<BTreeMap<&'static str, Result<PathBuf, String>>>> =
        OnceLock::new();
    let mut built = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    built
        .entry(arch.name())
        .or_insert_with(|| make(arch))
        .clone()
}

fn make(arch: Arch) -> Result<PathBuf, String> {
    let mut root: BTreeMap<String, Entry> = BTreeMap::new();
    for dir in [
        "proc", "sys", "dev", "tmp", "run", "root", "etc", "usr/bin", "usr/sbin", "sbin",
    ] {
        add(&mut root, dir, Entry::Dir);
    }
    add(
        &mut root,
        "etc/passwd",
        Entry::File {
            bytes: b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n"
                .to_vec(),
            mode: 0o644,
        },
    );
    add(
        &mut root,
        "etc/group",
        Entry::File {
            bytes: b"root:x:0:\nnogroup:x:65534:\n".to_vec(),
            mode: 0o644,
        },
    );
    // The guest's scripts.
    let guest = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rt_guest/guest");
    add(&mut root, "init", file(&guest.join("init.sh"), 0o755)?);
    add(
        &mut root,
        "guest/lib.sh",
        file(&guest.join("lib.sh"), 0o644)?,
    );
    // The tune suite's profile.
    add(
        &mut root,
        "guest/tune.toml",
        file(&guest.join("tune.toml"), 0o644)?,
    );
    for entry in std::fs::read_dir(guest.join("suites")).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        add(
            &mut root,
            &format!("guest/suites/{name}"),
            file(&path, 0o644)?,
        );
    }
    // busybox; /init installs its applets as links at its start.
    let busybox = match arch {
        Arch::X86_64 => which("busybox").ok_or("no busybox (apt-get install busybox-static)")?,
        Arch::Aarch64 => cache_dir().join("aarch64/busybox"),
    };
    add(&mut root, "bin/busybox", file(&busybox, 0o755)?);
    add(&mut root, "bin/sh", Entry::Symlink("busybox".into()));
    if arch == Arch::X86_64 {
        libraries(&mut root, &busybox)?;
    }

    // rtlat's binaries in a folder of their own (rtlat finds its siblings beside itself),
    // on the PATH through links, and under the peers' names.
    for (name, path) in rtlat_binaries(arch)? {
        add(&mut root, &format!("opt/rtlat/{name}"), stripped(&path)?);
        add(
            &mut root,
            &format!("usr/bin/{name}"),
            Entry::Symlink(format!("/opt/rtlat/{name}")),
        );
        if arch == Arch::X86_64 {
            libraries(&mut root, &path)?;
        }
    }
    for alias in ["cyclictest", "latency"] {
        add(
            &mut root,
            &format!("opt/rtlat/as/{alias}"),
            Entry::Symlink("/opt/rtlat/rtlat".into()),
        );
    }
    if arch == Arch::X86_64 {
        for peer in ["cyclictest", "rtla", "chrt", "taskset"] {
            let path = which(peer).ok_or_else(|| format!("no {peer} on this machine"))?;
            add(&mut root, &format!("usr/bin/{peer}"), stripped(&path)?);
            libraries(&mut root, &path)?;
        }
        // The msr driver of each kernel fetched (fetch-kernels.sh), for `insmod`, and its
        // configuration where the audit looks for it: /boot/config-RELEASE, RELEASE from the
        // package's name (linux-image-RELEASE-unsigned).
        let kernels = cache_dir().join("x86_64");
        for entry in std::fs::read_dir(&kernels).into_iter().flatten().flatten() {
            let package = std::fs::read_to_string(entry.path().join("package")).unwrap_or_default();
            let release = package
                .lines()
                .find_map(|l| l.strip_prefix("Package: linux-image-"))
                .and_then(|p| p.strip_suffix("-unsigned"));
            if let Some(release) = release
                && entry.path().join("config").is_file()
            {
                add(
                    &mut root,
                    &format!("boot/config-{release}"),
                    file(&entry.path().join("config"), 0o644)?,
                );
            }
            let module = entry.path().join("msr.ko");
            if module.is_file() {
                let series = entry.file_name().to_string_lossy().into_owned();
                add(
                    &mut root,
                    &format!("opt/modules/{series}/msr.ko"),
                    file(&module, 0o644)?,
                );
            }
        }
        if std::env::var_os("RTLAT_GUEST_VALGRIND").is_some_and(|v| v == "1") {
            valgrind(&mut root)?;
        }
    }

    let out = cache_dir().join(format!(
        "initramfs-{}-{}.cpio",
        arch.name(),
        std::process::id()
    ));
    std::fs::create_dir_all(cache_dir()).map_err(|e| e.to_string())?;
    let archive = cpio(&root);
    std::fs::write(&out, archive).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}

/// callgrind for the callgrind suite (benches/timerlat-callgrind.sh): Debian's launcher
/// (`valgrind.bin`; `/usr/bin/valgrind` is a shell wrapper around it) as `usr/bin/valgrind`,
/// the static callgrind tool, the preload it puts into the measured program and the default
/// suppressions (about 3 MB in all; the suite sets `VALGRIND_LIB`).
fn valgrind(root: &mut BTreeMap<String, Entry>) -> Result<(), String> {
    let launcher = Path::new("/usr/bin/valgrind.bin");
    if !launcher.is_file() {
        return Err(
            "RTLAT_GUEST_VALGRIND=1 but no /usr/bin/valgrind.bin (apt-get install valgrind)".into(),
        );
    }
    add(root, "usr/bin/valgrind", file(launcher, 0o755)?);
    libraries(root, launcher)?;
    let lib = Path::new("/usr/libexec/valgrind");
    for (name, mode) in [
        ("callgrind-amd64-linux", 0o755),
        ("vgpreload_core-amd64-linux.so", 0o755),
        ("default.supp", 0o644),
    ] {
        add(
            root,
            &format!("usr/libexec/valgrind/{name}"),
            file(&lib.join(name), mode)?,
        );
    }
    Ok(())
}

/// Adds `entry` at `path` and every folder above it.
fn add(root: &mut BTreeMap<String, Entry>, path: &str, entry: Entry) {
    let mut at = 0;
    while let Some(k) = path[at..].find('/') {
        root.entry(path[..at + k].to_owned()).or_insert(Entry::Dir);
        at += k + 1;
    }
    root.insert(path.to_owned(), entry);
}

fn file(path: &Path, mode: u32) -> Result<Entry, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Entry::File { bytes, mode })
}

/// An executable without its debug information (`objcopy --strip-debug`, where binutils is
/// installed): a debug build of rtlat is 75 MB with it, 7 MB without. The host's objcopy
/// does not read the arm64 board build (its profile strips it already): that one is kept as
/// it is, without objcopy's complaint.
fn stripped(path: &Path) -> Result<Entry, String> {
    let copy = cache_dir().join(format!(
        "stripped-{}-{}",
        std::process::id(),
        path.file_name().unwrap().to_string_lossy()
    ));
    let ok = which("objcopy").is_some()
        && Command::new("objcopy")
            .arg("--strip-debug")
            .arg(path)
            .arg(&copy)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    let entry = file(if ok { &copy } else { path }, 0o755);
    let _ = std::fs::remove_file(&copy);
    entry
}

/// The shared libraries `binary` loads (`ldd`), at the paths it loads them from.
fn libraries(root: &mut BTreeMap<String, Entry>, binary: &Path) -> Result<(), String> {
    let out = Command::new("ldd")
        .arg(binary)
        .output()
        .map_err(|e| format!("ldd: {e}"))?;
    // A static binary: ldd says "not a dynamic executable" and fails.
    if !out.status.success() {
        return Ok(());
    }
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let path = match line.split_once("=>") {
            Some((_, rest)) => rest.split_whitespace().next(),
            None => line.split_whitespace().next(),
        };
        let Some(path) = path.filter(|p| p.starts_with('/')) else {
            continue;
        };
        let key = path.trim_start_matches('/').to_owned();
        if !root.contains_key(&key) {
            add(root, &key, file(Path::new(path), 0o755)?);
        }
    }
    Ok(())
}

/// rtlat's binaries for `arch` as (name, path).
fn rtlat_binaries(arch: Arch) -> Result<Vec<(&'static str, PathBuf)>, String> {
    match arch {
        Arch::X86_64 => Ok(vec![
            ("rtlat", PathBuf::from(env!("CARGO_BIN_EXE_rtlat"))),
            (
                "rtlat-tools",
                PathBuf::from(env!("CARGO_BIN_EXE_rtlat-tools")),
            ),
            (
                "rtlat-monitor",
                PathBuf::from(env!("CARGO_BIN_EXE_rtlat-monitor")),
            ),
        ]),
        Arch::Aarch64 => {
            let dir = board_build()?;
            Ok(["rtlat", "rtlat-tools"]
                .into_iter()
                .map(|name| (name, dir.join(name)))
                .collect())
        }
    }
}

/// The folder of the static aarch64 binaries (`cargo build --profile board --target
/// aarch64-unknown-linux-musl --bins`, as `.ci/run` builds them before the tests): the target
/// directory's, else built into a target directory of the guest tests' own (a test process
/// cannot build into the directory `cargo test` is running from).
fn board_build() -> Result<PathBuf, String> {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .to_path_buf();
    let triple = "aarch64-unknown-linux-musl";
    let main = target.join(triple).join("board");
    if main.join("rtlat").is_file() && main.join("rtlat-tools").is_file() {
        return Ok(main);
    }
    let own = cache_dir().join("board-build");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--profile", "board", "--target", triple, "--bins"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_TARGET_DIR", &own)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "no static aarch64 build in {} and `cargo build --profile board --target {triple} --bins` failed ({status}); it needs `rustup target add {triple}` and gcc-aarch64-linux-gnu",
            main.display()
        ));
    }
    Ok(own.join(triple).join("board"))
}

/// The `newc` archive of `root` (folders before what they hold: the map is sorted).
fn cpio(root: &BTreeMap<String, Entry>) -> Vec<u8> {
    let mut out = Vec::new();
    let header = |out: &mut Vec<u8>, ino: usize, name: &str, mode: u32, data: &[u8]| {
        let fields = [
            ino as u32,
            mode,
            0,
            0,
            1,
            0,
            data.len() as u32,
            0,
            0,
            0,
            0,
            name.len() as u32 + 1,
            0,
        ];
        out.extend_from_slice(b"070701");
        for field in fields {
            out.extend_from_slice(format!("{field:08x}").as_bytes());
        }
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
        out.extend_from_slice(data);
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
    };
    for (ino, (path, entry)) in root.iter().enumerate() {
        match entry {
            Entry::Dir => header(&mut out, ino + 1, path, 0o040755, &[]),
            Entry::File { bytes, mode } => header(&mut out, ino + 1, path, 0o100000 | mode, bytes),
            Entry::Symlink(to) => header(&mut out, ino + 1, path, 0o120777, to.as_bytes()),
        }
    }
    header(&mut out, 0, "TRAILER!!!", 0, &[]);
    out
}
