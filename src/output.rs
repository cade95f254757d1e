//! Every file rtlat writes its results to (`--json`, `--histfile`, `latency -g`, `plot -o`,
//! the tuning commands' restore files), written so that no such file can be turned against
//! rtlat running as root:
//!
//! - A **regular file**, or a name that does not exist yet, is replaced atomically: the
//!   contents go to a temporary file created exclusively (`O_CREAT|O_EXCL`: a file or symlink
//!   planted at its name is never opened) under an unpredictable name in the same directory
//!   (`.NAME.rtlat-XXXXXXXXXXXX.tmp`), are flushed to disk, get the replaced file's owner and
//!   mode, and the temporary is renamed over the file; then the directory is flushed. Stopped
//!   at any moment, this leaves the old file or the new one; a write that fails removes its
//!   temporary. A new file gets mode 0666 minus the umask (0644 with the usual umask 022).
//! - A **character device, FIFO or terminal** (`/dev/null`, `/dev/stdout`, a named pipe) is
//!   opened for writing and written to as it is: never created, truncated or replaced. A FIFO
//!   is opened only to write the results (waiting for a reader, as cyclictest does), never by
//!   the check before the run. A regular file that is this process's standard output or error
//!   (`--json /dev/stdout > all.txt`) is appended to.
//! - A **symlink** is followed only if it, and every symlink it leads to, is owned by root or
//!   by the user running rtlat; what it points to is then written by the rules above (a regular
//!   file is replaced where it is, the symlink stays). A symlink owned by another user is
//!   refused: that user could point it at any file the moment before rtlat writes.
//! - **Refused**: a directory, a block device, a socket (it cannot be opened), a symlink to
//!   nothing, and files on the kernel's interface filesystems (`/proc`, `/sys`, debugfs,
//!   tracefs, cgroup, …): they are settings, not results.
//!
//! [`check`] does all of this but the write, so that a run refuses an output it could not
//! write before it measures anything.

use std::fs::{self, File, Metadata, OpenOptions, Permissions};
use std::io::{self, BufWriter, Write as _};
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::os::unix::fs::{PermissionsExt as _, fchown};
use std::path::{Path, PathBuf};

use tempfile::{Builder, NamedTempFile};

/// Symlinks followed from one path at most (the kernel's limit).
const MAX_SYMLINKS: usize = 40;
/// Random characters in a temporary file's name (62 possible each).
const RANDOM_CHARACTERS: usize = 12;
/// Bytes of the target's name kept in its temporary's name (names are limited to 255).
const NAME_IN_TEMPORARY: usize = 200;

/// The kernel's interface filesystems (`statfs` `f_type`, from `linux/magic.h`): a file on
/// one of them is a setting or a view of the kernel, never a place for results.
const KERNEL_FILESYSTEMS: [(u32, &str); 11] = [
    (0x0000_9fa0, "procfs"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0x0027_e0eb, "cgroupfs"),
    (0x6367_7270, "cgroup2fs"),
    (0x6265_6570, "configfs"),
    (0xcafe_4a11, "bpffs"),
    (0x6165_676c, "pstore"),
    (0xde5e_81e4, "efivarfs"),
];

/// Checks, before a run, that `path` can be written as [`write_with`] will write it: its kind,
/// its directory (exists, is writable: a temporary file is created there and removed), and
/// that a replaced file keeps its owner. Nothing is written, truncated or left behind, and a
/// FIFO is not opened. The error says what is wrong, in one line.
pub fn check(path: &Path) -> io::Result<()> {
    match resolve(path)? {
        Destination::Replace { path, existing } => {
            let dir = directory(&path)?;
            if existing.is_some() {
                writable(&path)?;
            }
            let temporary = temporary_in(dir, &path, existing.is_none())?;
            if let Some(existing) = &existing {
                keep_owner_and_mode(temporary.as_file(), existing)?;
            }
            temporary.close()
        }
        Destination::Direct { path, .. } => writable(&path),
    }
}

/// Writes `contents` to `path` (see the module's documentation for how).
pub fn write(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_with(path, |file| file.write_all(contents))
}

/// Writes to `path` what `write` writes into the buffered file it is given, so that a large
/// text is streamed, never held whole in memory (see the module's documentation for how).
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    match resolve(path)? {
        Destination::Replace { path, existing } => replace(&path, existing.as_ref(), write),
        Destination::Direct { path, append } => write_directly(&path, append, write),
    }
}

/// What writing to a path means.
#[derive(Debug)]
enum Destination {
    /// A regular file, or a name not yet taken, replaced atomically; `path` has no symlink
    /// left as its last component.
    Replace {
        path: PathBuf,
        existing: Option<Metadata>,
    },
    /// A character device, FIFO or terminal written as it is; `append` for a regular file
    /// that is this process's standard output or error.
    Direct { path: PathBuf, append: bool },
}

fn resolve(path: &Path) -> io::Result<Destination> {
    if path.as_os_str().is_empty() {
        return Err(refused("the path is empty; name a file"));
    }
    // Every symlink on the way, in the folders as in the name itself.
    check_symlinks(path)?;
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        // A new file; its directory is checked when it is created.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Destination::Replace {
                path: path.to_owned(),
                existing: None,
            });
        }
        Err(e) => return Err(e),
    };
    let through_symlink = meta.file_type().is_symlink();
    let meta = if through_symlink {
        fs::metadata(path).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                let target = fs::read_link(path).unwrap_or_default();
                refused(&format!(
                    "it is a symlink to {}, which does not exist; name the file itself",
                    target.display()
                ))
            } else {
                e
            }
        })?
    } else {
        meta
    };
    let kind = meta.file_type();
    if kind.is_dir() {
        Err(refused("it is a directory; name a file"))
    } else if kind.is_block_device() {
        Err(refused(
            "it is a block device (a disk); name a file, a character device or a FIFO",
        ))
    } else if kind.is_socket() {
        Err(refused(
            "it is a socket, which cannot be opened; name a file, a character device or a FIFO",
        ))
    } else if kind.is_char_device() || kind.is_fifo() {
        Ok(Destination::Direct {
            path: path.to_owned(),
            append: false,
        })
    } else if is_standard_output(&meta) {
        Ok(Destination::Direct {
            path: path.to_owned(),
            append: true,
        })
    } else {
        let path = if through_symlink {
            fs::canonicalize(path)?
        } else {
            path.to_owned()
        };
        Ok(Destination::Replace {
            path,
            existing: Some(meta),
        })
    }
}

/// Refuses `path` if one of its folders or its name, or a symlink one of them leads to, is a
/// symlink owned by someone other than root or the user running rtlat (`/tmp/d/out.json`
/// with `/tmp/d -> /etc` planted by another user would otherwise replace a file in `/etc`).
fn check_symlinks(path: &Path) -> io::Result<()> {
    let mut prefix = PathBuf::new();
    for component in path.components() {
        prefix.push(component);
        check_symlink_chain(&prefix)?;
    }
    Ok(())
}

/// Refuses `path` if it, or a symlink it leads to, is a symlink owned by someone other than
/// root or the user running rtlat.
fn check_symlink_chain(path: &Path) -> io::Result<()> {
    let user = nix::unistd::geteuid().as_raw();
    let mut link = path.to_owned();
    for _ in 0..MAX_SYMLINKS {
        // What is not a path (`pipe:[…]` behind /proc/self/fd/1) or does not exist ends the
        // chain: the kernel resolves the rest, or nothing is there.
        let Ok(meta) = fs::symlink_metadata(&link) else {
            return Ok(());
        };
        if !meta.file_type().is_symlink() {
            return Ok(());
        }
        let owner = meta.uid();
        if owner != 0 && owner != user {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} is a symlink owned by uid {owner}, who could point it at any file; rtlat follows only symlinks owned by root or by the user running it (uid {user}): name the file itself",
                    link.display()
                ),
            ));
        }
        let target = fs::read_link(&link)?;
        link = folder(&link).join(target);
    }
    Err(refused("too many levels of symlinks"))
}

/// Whether `meta` is the file this process's standard output or error goes to.
fn is_standard_output(meta: &Metadata) -> bool {
    let same = |fd: std::os::fd::BorrowedFd<'_>| {
        fd.try_clone_to_owned()
            .and_then(|fd| File::from(fd).metadata())
            .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    };
    same(io::stdout().as_fd()) || same(io::stderr().as_fd())
}

/// The existing directory `path` is created in, checked not to be on a kernel filesystem.
fn directory(path: &Path) -> io::Result<&Path> {
    let dir = folder(path);
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(refused(&format!("{} is not a directory", dir.display()))),
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("directory {}: {e}", dir.display()),
            ));
        }
    }
    if let Some(name) = kernel_filesystem(dir) {
        return Err(refused(&format!(
            "{} is on {name}, the kernel's interface, not a place for results; name a file elsewhere",
            dir.display()
        )));
    }
    Ok(dir)
}

/// The name of the kernel interface filesystem `path` is on, if it is.
fn kernel_filesystem(path: &Path) -> Option<&'static str> {
    let f_type = nix::sys::statfs::statfs(path).ok()?.filesystem_type().0;
    // `f_type` is a signed or unsigned word depending on the target; the magic numbers are 32
    // bits, so its low 32 bits are the number.
    #[allow(clippy::unnecessary_cast)]
    let magic = f_type as u32;
    KERNEL_FILESYSTEMS
        .iter()
        .find(|(m, _)| *m == magic)
        .map(|&(_, name)| name)
}

/// Whether this process (its effective user) may write `path`, without opening it.
fn writable(path: &Path) -> io::Result<()> {
    nix::unistd::faccessat(
        nix::fcntl::AT_FDCWD,
        path,
        nix::unistd::AccessFlags::W_OK,
        nix::fcntl::AtFlags::AT_EACCESS,
    )
    .map_err(io::Error::from)
}

/// A new temporary file for `path` in `dir`, created exclusively under a random name: mode
/// 0666 minus the umask for a `new` file, else 0600 until it gets the old file's mode.
fn temporary_in(dir: &Path, path: &Path, new: bool) -> io::Result<NamedTempFile> {
    create_temporary(dir, path, new, RANDOM_CHARACTERS).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot create a file in {}: {e}", dir.display()),
        )
    })
}

/// `.NAME.rtlat-` + `random` random characters + `.tmp` in `dir`, created with `O_EXCL`.
fn create_temporary(
    dir: &Path,
    path: &Path,
    new: bool,
    random: usize,
) -> io::Result<NamedTempFile> {
    let name = path.file_name().map_or(&[][..], |n| n.as_bytes());
    let name = String::from_utf8_lossy(&name[..name.len().min(NAME_IN_TEMPORARY)]);
    let prefix = format!(".{name}.rtlat-");
    let mut builder = Builder::new();
    builder.prefix(&prefix).suffix(".tmp").rand_bytes(random);
    if new {
        builder.permissions(Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Gives `file` the owner and mode of `existing` (the file it replaces).
fn keep_owner_and_mode(file: &File, existing: &Metadata) -> io::Result<()> {
    let (uid, gid) = (existing.uid(), existing.gid());
    let now = file.metadata()?;
    if now.uid() != uid || now.gid() != gid {
        fchown(file, Some(uid), Some(gid)).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot keep its owner (uid {uid}, gid {gid}) in the new file: {e}"),
            )
        })?;
    }
    // Its permission bits, never set-user-ID or set-group-ID: a result file is no program.
    file.set_permissions(Permissions::from_mode(existing.mode() & 0o1777))
}

fn replace(
    path: &Path,
    existing: Option<&Metadata>,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let dir = directory(path)?;
    // Removed when dropped: on every early return below.
    let temporary = temporary_in(dir, path, existing.is_none())?;
    let mut buffered = BufWriter::new(temporary.as_file().try_clone()?);
    write(&mut buffered)?;
    let file = buffered
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    if let Some(existing) = existing {
        keep_owner_and_mode(&file, existing)?;
    }
    file.sync_all()?;
    drop(file);
    temporary.persist(path).map_err(|e| e.error)?;
    // Make the rename itself durable.
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

fn write_directly(
    path: &Path,
    append: bool,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    // No O_CREAT, no O_TRUNC: what is there is written to, as it is.
    let file = OpenOptions::new()
        .write(true)
        .append(append)
        .custom_flags(libc::O_NOCTTY)
        .open(path)?;
    if file.metadata()?.file_type().is_file() && !append {
        return Err(refused(
            "it became a regular file after it was checked; run again to replace it",
        ));
    }
    let mut buffered = BufWriter::new(file);
    write(&mut buffered)?;
    buffered
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    Ok(())
}

/// An error that is a refusal, in words.
fn refused(reason: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, reason)
}

/// The directory `path` is in (`.` for a bare name).
fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A fresh folder, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(tag: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("rtlat-output-{tag}-{}", std::process::id()));
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
}
