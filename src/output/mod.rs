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

/// Whether `path`'s text can only name a directory: it ends with `/`, or its last component
/// is `.` or `..`.
fn names_a_directory(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    let last = bytes.rsplit(|&b| b == b'/').next().unwrap_or_default();
    bytes.ends_with(b"/") || last == b"." || last == b".."
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
    // `out.json/`, `dir/.`, `..`: only a directory can be opened by such a name, whatever is
    // (or is not yet) there, so no file can be written by it.
    if names_a_directory(path) {
        return Err(refused(
            "it ends with '/', '/.' or '/..', which names a directory; name a file",
        ));
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
mod tests;
