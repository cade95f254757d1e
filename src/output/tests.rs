//! `rtlat::output`'s tests: every kind of destination, written and refused.

use super::*;
use std::os::unix::fs::symlink;

/// A fresh folder, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("rtlat-output-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

#[test]
fn a_file_planted_at_the_temporary_name_is_never_opened() {
    let dir = Scratch::new("planted");
    let victim = dir.join("victim");
    fs::write(&victim, "secret").unwrap();
    let target = dir.join("out.json");
    // With no random characters the name is known: plant a symlink there.
    symlink(&victim, dir.join(".out.json.rtlat-.tmp")).unwrap();
    let err = create_temporary(&dir.0, &target, true, 0).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "secret");
    // And the names are unpredictable: two temporaries never share one.
    let a = temporary_in(&dir.0, &target, true).unwrap();
    let b = temporary_in(&dir.0, &target, true).unwrap();
    assert_ne!(a.path(), b.path());
    let name = a.path().file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(".out.json.rtlat-") && name.ends_with(".tmp"),
        "{name}"
    );
    assert_eq!(name.len(), ".out.json.rtlat-.tmp".len() + RANDOM_CHARACTERS);
}

#[test]
fn a_replaced_file_keeps_its_mode_and_owner() {
    let dir = Scratch::new("keep");
    let target = dir.join("out.json");
    fs::write(&target, "old").unwrap();
    fs::set_permissions(&target, Permissions::from_mode(0o600)).unwrap();
    if is_root() {
        std::os::unix::fs::chown(&target, Some(65534), Some(65534)).unwrap();
    }
    let before = fs::metadata(&target).unwrap();
    check(&target).unwrap();
    write(&target, b"new").unwrap();
    let after = fs::metadata(&target).unwrap();
    assert_eq!(fs::read_to_string(&target).unwrap(), "new");
    assert_ne!(after.ino(), before.ino(), "replaced, not rewritten");
    assert_eq!(after.mode() & 0o7777, 0o600);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    assert_eq!(dir.names(), ["out.json"]);
}

#[test]
fn a_new_file_gets_0666_minus_the_umask() {
    let dir = Scratch::new("new");
    let target = dir.join("out.json");
    check(&target).unwrap();
    assert!(dir.names().is_empty(), "the check leaves nothing behind");
    write(&target, b"new").unwrap();
    let umask = fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
        .unwrap();
    let mode = fs::metadata(&target).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o666 & !umask);
}

#[test]
fn a_failed_write_leaves_the_old_file_and_no_temporary() {
    let dir = Scratch::new("failed");
    let target = dir.join("out.json");
    fs::write(&target, "old").unwrap();
    let err = write_with(&target, |file| {
        file.write_all(b"half")?;
        file.flush()?;
        Err(io::Error::other("formatting failed"))
    })
    .unwrap_err();
    assert_eq!(err.to_string(), "formatting failed");
    assert_eq!(fs::read_to_string(&target).unwrap(), "old");
    assert_eq!(dir.names(), ["out.json"]);
}

#[test]
fn devices_are_written_to_not_replaced() {
    check(Path::new("/dev/null")).unwrap();
    write(Path::new("/dev/null"), b"x").unwrap();
    let err = write(Path::new("/dev/full"), b"x").unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENOSPC), "{err}");
    for device in ["/dev/null", "/dev/full"] {
        let meta = fs::symlink_metadata(device).unwrap();
        assert!(meta.file_type().is_char_device(), "{device}");
    }
}

#[test]
fn a_fifo_is_checked_without_blocking_and_written_to() {
    let dir = Scratch::new("fifo");
    let fifo = dir.join("fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    // No reader: the check must not open it (that would block, or fail with ENXIO).
    check(&fifo).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    write(&fifo, b"results").unwrap();
    assert_eq!(reader.join().unwrap(), b"results");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(dir.names(), ["fifo"]);
}

#[test]
fn kernel_files_directories_and_sockets_are_refused() {
    let dir = Scratch::new("refused");
    let socket = dir.join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    for (path, fragment) in [
        (Path::new("/proc/version"), "procfs"),
        (Path::new("/sys/kernel/rtlat-results.json"), "sysfs"),
        (Path::new("/proc/self/rtlat.json"), "procfs"),
        (dir.0.as_path(), "a directory"),
        (socket.as_path(), "a socket"),
        (Path::new(""), "empty"),
        (
            Path::new("/nonexistent-rtlat-dir/x.json"),
            "/nonexistent-rtlat-dir",
        ),
    ] {
        let err = check(path).unwrap_err();
        assert!(err.to_string().contains(fragment), "{path:?}: {err}");
        assert!(!err.to_string().contains('\n'), "{path:?}: {err}");
        assert!(write(path, b"x").is_err(), "{path:?}");
    }
    let file = dir.join("file");
    fs::write(&file, "").unwrap();
    let err = check(&file.join("below")).unwrap_err();
    assert!(err.to_string().contains("is not a directory"), "{err}");
    if is_root() {
        // A block device node (of no disk): refused by its kind, never opened.
        let disk = dir.join("disk");
        let made = std::process::Command::new("mknod")
            .arg(&disk)
            .args(["b", "254", "250"])
            .status()
            .unwrap();
        assert!(made.success());
        for err in [check(&disk).unwrap_err(), write(&disk, b"x").unwrap_err()] {
            assert!(err.to_string().contains("block device"), "{err}");
        }
        assert!(
            fs::symlink_metadata(&disk)
                .unwrap()
                .file_type()
                .is_block_device()
        );
    }
}

#[test]
fn a_symlink_of_the_user_is_followed_and_stays() {
    let dir = Scratch::new("own-link");
    let real = dir.join("real.json");
    fs::write(&real, "old").unwrap();
    fs::set_permissions(&real, Permissions::from_mode(0o640)).unwrap();
    let link = dir.join("link.json");
    symlink("real.json", &link).unwrap();
    check(&link).unwrap();
    write(&link, b"new").unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    assert_eq!(fs::metadata(&real).unwrap().mode() & 0o7777, 0o640);
    assert_eq!(dir.names(), ["link.json", "real.json"]);
    // A symlink to nothing names what is missing.
    let dangling = dir.join("dangling.json");
    symlink("missing.json", &dangling).unwrap();
    let err = check(&dangling).unwrap_err();
    assert!(err.to_string().contains("missing.json"), "{err}");
}

#[test]
fn a_folder_that_is_a_symlink_of_another_user_is_refused() {
    if !is_root() {
        return; // Giving a symlink to another user needs root.
    }
    let dir = Scratch::new("their-folder-link");
    let private = dir.join("private");
    fs::create_dir(&private).unwrap();
    fs::write(private.join("victim"), "secret").unwrap();
    let link = dir.join("results");
    symlink(&private, &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(65534), Some(65534)).unwrap();
    for name in ["victim", "new.json"] {
        let path = link.join(name);
        let err = check(&path).unwrap_err();
        assert!(err.to_string().contains("owned by uid 65534"), "{err}");
        assert!(write(&path, b"new").is_err());
    }
    assert_eq!(
        fs::read_to_string(private.join("victim")).unwrap(),
        "secret"
    );
    assert!(!private.join("new.json").exists());
    // A folder symlink of our own is followed.
    std::os::unix::fs::lchown(&link, Some(0), Some(0)).unwrap();
    write(&link.join("victim"), b"new").unwrap();
    assert_eq!(fs::read_to_string(private.join("victim")).unwrap(), "new");
}

#[test]
fn a_replaced_file_never_keeps_set_id_bits() {
    let dir = Scratch::new("set-id");
    let target = dir.join("out.json");
    fs::write(&target, "old").unwrap();
    fs::set_permissions(&target, Permissions::from_mode(0o6755)).unwrap();
    write(&target, b"new").unwrap();
    assert_eq!(fs::metadata(&target).unwrap().mode() & 0o7777, 0o755);
}

#[test]
fn a_symlink_of_another_user_is_refused() {
    if !is_root() {
        return; // Giving a symlink to another user needs root.
    }
    let dir = Scratch::new("their-link");
    let victim = dir.join("victim");
    fs::write(&victim, "secret").unwrap();
    let link = dir.join("out.json");
    symlink(&victim, &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(65534), Some(65534)).unwrap();
    // Also at the end of a chain that starts with a link of our own.
    let chain = dir.join("chain.json");
    symlink("out.json", &chain).unwrap();
    for path in [&link, &chain] {
        let err = check(path).unwrap_err();
        assert!(err.to_string().contains("owned by uid 65534"), "{err}");
        assert!(write(path, b"new").is_err());
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "secret");
}

#[test]
fn a_name_that_can_only_be_a_directory_is_refused_before_anything_is_written() {
    let dir = Scratch::new("dir-name");
    std::fs::write(dir.join("old.json"), "old").unwrap();
    for name in ["new.json/", "old.json/", "old.json/.", ".", "sub/.."] {
        let path = dir.join(name);
        let err = check(&path).unwrap_err();
        assert!(
            err.to_string().contains("names a directory; name a file"),
            "{name}: {err}"
        );
        let err = write(&path, b"x").unwrap_err();
        assert!(
            err.to_string().contains("names a directory"),
            "{name}: {err}"
        );
    }
    // Nothing was written, nothing was left behind, the old file is as it was.
    assert_eq!(dir.names(), ["old.json"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("old.json")).unwrap(),
        "old"
    );
    // A name that only contains a dot is a file.
    check(&dir.join("a.b")).unwrap();
    check(&dir.join(".hidden")).unwrap();
}
