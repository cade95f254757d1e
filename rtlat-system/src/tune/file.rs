//! Reading and writing one kernel file (`/proc/irq/N/smp_affinity_list`,
//! `…/cpufreq/scaling_governor`): never through a link the kernel did not make, what the
//! kernel refuses told apart from what the user may not do, and a missing privilege named.
//!
//! A kernel file is named by its system path (always one of [`WRITABLE`]'s folders, made of
//! plain names) and opened under the root one component at a time, each with `O_NOFOLLOW`:
//! a symbolic link anywhere below the root is refused, but for the one the kernel makes on
//! real machines, `/sys/devices/system/cpu/cpuN/cpufreq` → `../cpufreq/policyK` (before
//! Linux 4.3, `../cpuK/cpufreq`), which is checked to be exactly that and walked by name. The file itself must be a regular file
//! (what procfs and sysfs files are), so a FIFO, a device or a link planted in a tree is
//! never opened for writing.

use std::ffi::{CStr, CString};
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::fd::{AsFd as _, BorrowedFd, OwnedFd};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use super::error::TuneError;
use crate::facts::FactError;
use nix::fcntl::{AtFlags, OFlag};
use nix::sys::stat::{Mode, SFlag};
use rtlat_linux::Errno;

/// The system folders rtlat writes kernel files in.
pub const WRITABLE: [&str; 2] = ["/proc/irq/", "/sys/devices/system/cpu/"];

/// The most bytes read from one file (kernel files here hold a word or a CPU list).
const MAX_FILE: usize = 1 << 20;

/// The content of the file at `path` without surrounding whitespace (any file: this is the
/// read side of [`crate::facts`], links followed).
pub fn read_value(path: &Path) -> Result<String, TuneError> {
    let bytes = rtlat_linux::kernel_file::read_bounded(path, MAX_FILE)
        .map_err(|e| TuneError::Fact(FactError::from_io(path, &e)))?;
    Ok(String::from_utf8_lossy(&bytes).trim().to_owned())
}

/// The content of the kernel file `system_path` under `root`, opened as [`write_value`]
/// opens it (no link followed), without surrounding whitespace.
pub fn read_kernel_file(root: &Path, system_path: &str) -> Result<String, TuneError> {
    let mut file = open(root, system_path, Access::Read)?;
    let bytes = rtlat_linux::kernel_file::read_from(&mut file, MAX_FILE)
        .map_err(|e| TuneError::Fact(FactError::from_io(&under(root, system_path), &e)))?;
    Ok(String::from_utf8_lossy(&bytes).trim().to_owned())
}

/// Writes `value` and a newline to the kernel file `system_path` under `root` in one
/// `write`, as `echo value > path` does. The file must exist (kernel files are never
/// created) and be reached through no link but the kernel's own (see the module's docs).
///
/// Errors: [`TuneError::NotKernelFile`] for a link or a file that is not a regular file,
/// [`TuneError::WriteDenied`] when the user may not write the file (naming who may),
/// [`TuneError::WriteRefused`] when the kernel refused the value (`EINVAL`, `EIO`, `EBUSY`,
/// `ERANGE`, or a file the kernel made read-only for everyone), [`TuneError::Write`] otherwise.
pub fn write_value(root: &Path, system_path: &str, value: &str) -> Result<(), TuneError> {
    let path = under(root, system_path);
    let line = format!("{value}\n");
    let mut file = open(root, system_path, Access::Write { value })?;
    match file.write(line.as_bytes()) {
        Ok(n) if n == line.len() => Ok(()),
        Ok(_) => Err(TuneError::Write {
            path,
            errno: Errno::EIO,
        }),
        Err(e) => Err(write_error(&path, value, &e)),
    }
}

/// Checks, without writing, that the kernel file `system_path` under `root` can be opened
/// for writing as [`write_value`] opens it: the privilege check made before anything is
/// changed (nothing is truncated).
pub fn check_writable(root: &Path, system_path: &str) -> Result<(), TuneError> {
    open(root, system_path, Access::Check).map(drop)
}

/// Whether the kernel made `path` read-only for everyone (no write bit at all): e.g. the
/// `smp_affinity_list` of an IRQ whose affinity the kernel manages, which nobody can move.
pub fn is_read_only(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.permissions().mode() & 0o222 == 0)
}

/// The system path `path` under `root`.
pub(crate) fn under(root: &Path, path: &str) -> PathBuf {
    root.join(path.trim_start_matches('/'))
}

/// What a file is opened for.
#[derive(Clone, Copy)]
enum Access<'a> {
    Read,
    /// Writing `value` (for the message if the kernel refuses it).
    Write {
        value: &'a str,
    },
    /// Opened for writing, nothing written or truncated.
    Check,
}

/// Opens the kernel file `system_path` under `root` (see the module's docs).
fn open(root: &Path, system_path: &str, access: Access<'_>) -> Result<File, TuneError> {
    let path = under(root, system_path);
    let refuse = |reason: String| TuneError::NotKernelFile {
        path: path.clone(),
        reason,
    };
    let failed = |errno: Errno| match access {
        Access::Read => TuneError::Fact(FactError::from_io(&path, &errno.into())),
        Access::Write { .. } | Access::Check => TuneError::Write {
            path: path.clone(),
            errno,
        },
    };
    let names: Vec<&str> = system_path
        .strip_prefix('/')
        .unwrap_or_default()
        .split('/')
        .collect();
    let plain = names
        .iter()
        .all(|n| !n.is_empty() && *n != "." && *n != "..");
    if !WRITABLE.iter().any(|dir| system_path.starts_with(dir)) || !plain || names.len() < 3 {
        return Err(refuse(format!(
            "not a file rtlat tunes (under {})",
            WRITABLE.join(" or ")
        )));
    }
    let c_name = |name: &str| CString::new(name).map_err(|_| refuse("a name holds NUL".into()));
    // The root is the user's: it may itself be reached through links.
    let root_dir: OwnedFd = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
        .open(root)
        .map_err(|e| failed(Errno::from_io(&e)))?
        .into();
    // The folder reached so far and the one above it: `cpuN/cpufreq` is resolved from the
    // folder above `cpuN`.
    let mut here = root_dir;
    let mut above: Option<OwnedFd> = None;
    let (last, parents) = names.split_last().unwrap_or((&"", &[]));
    for (i, name) in parents.iter().enumerate() {
        let name = c_name(name)?;
        let next = match open_dir(here.as_fd(), &name) {
            Err(_) if is_link(here.as_fd(), &name) => {
                // Only `cpuN/cpufreq` → `../cpufreq/policyK` or `../cpuK/cpufreq`, walked by
                // name from the folder above `cpuN`; any other link is refused.
                let so_far = under(root, &names[..=i].join("/"));
                let policy = readlink_text(here.as_fd(), &name)
                    .filter(|_| is_cpufreq_link(&names[..=i]))
                    .and_then(|target| cpufreq_policy(&target));
                match (&above, policy) {
                    (Some(above), Some(policy)) => {
                        open_policy(above.as_fd(), &policy).map_err(|errno| match errno {
                            Some(errno) => failed(errno),
                            None => refuse(format!(
                                "{} leads through a symbolic link where the kernel has none",
                                so_far.display()
                            )),
                        })?
                    }
                    _ => {
                        return Err(refuse(format!(
                            "{} is a symbolic link where the kernel has none",
                            so_far.display()
                        )));
                    }
                }
            }
            result => result.map_err(failed)?,
        };
        above = Some(std::mem::replace(&mut here, next));
    }
    let here = here.as_fd();
    let file_name = c_name(last)?;
    match file_type_at(here, &file_name).map_err(failed)? {
        SFlag::S_IFREG => {}
        SFlag::S_IFLNK => return Err(refuse("it is a symbolic link".into())),
        _ => return Err(refuse("it is not a regular file".into())),
    }
    let flags = OFlag::O_NOFOLLOW
        | OFlag::O_NONBLOCK
        | match access {
            Access::Read => OFlag::O_RDONLY,
            Access::Write { .. } => OFlag::O_WRONLY | OFlag::O_TRUNC,
            Access::Check => OFlag::O_WRONLY,
        };
    let fd = openat(here, &file_name, flags).map_err(|errno| match access {
        Access::Read => failed(errno),
        Access::Write { value } => write_error(&path, value, &errno.into()),
        Access::Check => write_error(&path, "", &errno.into()),
    })?;
    let file = File::from(fd);
    // O_NOFOLLOW opened the entry itself; should it have been swapped for something else
    // than a regular file since the check above, nothing is written to it.
    if !file.metadata().is_ok_and(|m| m.file_type().is_file()) {
        return Err(refuse("it is not a regular file".into()));
    }
    Ok(file)
}

fn open_dir(dir: BorrowedFd<'_>, name: &CString) -> Result<OwnedFd, Errno> {
    openat(
        dir,
        name,
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW,
    )
}

/// `openat(dir, name, flags | O_CLOEXEC)`, never `O_CREAT`: `name` is one path component.
fn openat(dir: BorrowedFd<'_>, name: &CStr, flags: OFlag) -> Result<OwnedFd, Errno> {
    Ok(nix::fcntl::openat(
        dir,
        name,
        flags | OFlag::O_CLOEXEC,
        Mode::empty(),
    )?)
}

/// The type (the `S_IFMT` bits of the mode) of the entry `name` in `dir` itself (`fstatat`
/// with `AT_SYMLINK_NOFOLLOW`): a link is a link, not what it leads to.
fn file_type_at(dir: BorrowedFd<'_>, name: &CStr) -> Result<SFlag, Errno> {
    let stat = nix::sys::stat::fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)?;
    Ok(SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT)
}

/// The folder `names` (two names) under the folder `above` (the one of the `cpuN` folders),
/// no link followed: `Err(None)` when one of the two is a link.
fn open_policy(above: BorrowedFd<'_>, names: &[String; 2]) -> Result<OwnedFd, Option<Errno>> {
    let mut dir: Option<OwnedFd> = None;
    for name in names {
        let name = CString::new(name.as_str()).map_err(|_| Some(Errno::EINVAL))?;
        let here = dir.as_ref().map_or(above, OwnedFd::as_fd);
        match open_dir(here, &name) {
            Ok(fd) => dir = Some(fd),
            Err(_) if is_link(here, &name) => return Err(None),
            Err(errno) => return Err(Some(errno)),
        }
    }
    dir.ok_or(Some(Errno::EIO))
}

fn is_link(dir: BorrowedFd<'_>, name: &CString) -> bool {
    file_type_at(dir, name).is_ok_and(|kind| kind == SFlag::S_IFLNK)
}

/// The text of the link `name` in `dir` (`readlinkat`), if it is UTF-8.
fn readlink_text(dir: BorrowedFd<'_>, name: &CString) -> Option<String> {
    nix::fcntl::readlinkat(dir, name.as_c_str())
        .ok()
        .and_then(|text| text.into_string().ok())
}

/// Whether `names` (the components so far) are `sys/devices/system/cpu/cpuN/cpufreq`.
fn is_cpufreq_link(names: &[&str]) -> bool {
    matches!(
        names,
        ["sys", "devices", "system", "cpu", cpu, "cpufreq"]
            if cpu.strip_prefix("cpu").is_some_and(is_number)
    )
}

/// The two names of the kernel's link texts there, `../cpufreq/policyK` (Linux 4.3 and later)
/// and `../cpuK/cpufreq` (before: the policy's folder in its first CPU's); `None` for any
/// other text.
fn cpufreq_policy(target: &str) -> Option<[String; 2]> {
    let rest = target.strip_prefix("../")?;
    let (first, second) = rest.split_once('/')?;
    let policy = first == "cpufreq" && second.strip_prefix("policy").is_some_and(is_number);
    let old_style = second == "cpufreq" && first.strip_prefix("cpu").is_some_and(is_number);
    (policy || old_style).then(|| [first.to_owned(), second.to_owned()])
}

fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn write_error(path: &Path, value: &str, err: &std::io::Error) -> TuneError {
    let errno = Errno::from_io(err);
    let path_buf = path.to_path_buf();
    match errno.raw() {
        libc::EACCES | libc::EPERM if is_read_only(path) => TuneError::WriteRefused {
            path: path_buf,
            value: value.to_owned(),
            errno,
        },
        libc::EACCES | libc::EPERM => TuneError::WriteDenied {
            privilege: privilege(path),
            path: path_buf,
            errno,
        },
        libc::EINVAL | libc::EIO | libc::EBUSY | libc::ERANGE | libc::EOPNOTSUPP => {
            TuneError::WriteRefused {
                path: path_buf,
                value: value.to_owned(),
                errno,
            }
        }
        _ => TuneError::Write {
            path: path_buf,
            errno,
        },
    }
}

/// Who may write `path`, from its owner and mode.
fn privilege(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(meta) if meta.uid() == 0 => format!(
            "root (the file is root's, mode {:o}; CAP_DAC_OVERRIDE also does)",
            meta.permissions().mode() & 0o7777
        ),
        Ok(meta) => format!(
            "its owner (uid {}) or root (mode {:o})",
            meta.uid(),
            meta.permissions().mode() & 0o7777
        ),
        Err(_) => "root".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IRQ: &str = "/proc/irq/24/smp_affinity_list";

    fn tree(tag: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("rtlat-tune-file-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("proc/irq/24")).unwrap();
        std::fs::write(under(&root, IRQ), "0-3\n").unwrap();
        root
    }

    #[test]
    fn writes_replace_the_content_and_errors_are_told_apart() {
        let root = tree("write");
        let file = under(&root, IRQ);
        assert_eq!(read_value(&file).unwrap(), "0-3");
        assert_eq!(read_kernel_file(&root, IRQ).unwrap(), "0-3");
        write_value(&root, IRQ, "3").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "3\n");
        check_writable(&root, IRQ).unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "3\n",
            "a check writes nothing"
        );
        assert!(!is_read_only(&file));

        let missing = "/proc/irq/25/smp_affinity_list";
        assert!(matches!(
            write_value(&root, missing, "1"),
            Err(TuneError::Write { errno, .. }) if errno == Errno::ENOENT
        ));
        assert!(
            matches!(read_kernel_file(&root, missing), Err(TuneError::Fact(e)) if e.is_absent())
        );

        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(is_read_only(&file));
        if !nix::unistd::geteuid().is_root() {
            assert!(matches!(
                write_value(&root, IRQ, "1"),
                Err(TuneError::WriteRefused { .. })
            ));
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn only_kernel_paths_and_no_links() {
        let root = tree("links");
        let victim = root.join("victim");
        std::fs::write(&victim, "precious\n").unwrap();
        for path in [
            "/etc/passwd",
            "/proc/irq/../../etc/passwd",
            "/proc/irq//24",
            "/proc/irq",
        ] {
            let err = write_value(&root, path, "1").unwrap_err();
            assert!(
                err.to_string().contains("not a file rtlat tunes"),
                "{path}: {err}"
            );
        }
        // The file a link.
        std::fs::create_dir_all(root.join("proc/irq/25")).unwrap();
        std::os::unix::fs::symlink(&victim, root.join("proc/irq/25/smp_affinity_list")).unwrap();
        let err = write_value(&root, "/proc/irq/25/smp_affinity_list", "1").unwrap_err();
        assert!(err.to_string().contains("it is a symbolic link"), "{err}");
        assert!(check_writable(&root, "/proc/irq/25/smp_affinity_list").is_err());
        assert!(read_kernel_file(&root, "/proc/irq/25/smp_affinity_list").is_err());
        // A folder a link.
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::fs::write(root.join("elsewhere/smp_affinity_list"), "precious\n").unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join("proc/irq/26")).unwrap();
        let err = write_value(&root, "/proc/irq/26/smp_affinity_list", "1").unwrap_err();
        assert!(
            err.to_string()
                .contains("proc/irq/26 is a symbolic link where the kernel has none"),
            "{err}"
        );
        // Not a regular file: a FIFO is never opened (it would block).
        std::fs::create_dir_all(root.join("proc/irq/27")).unwrap();
        rtlat_linux::named_pipe::create_fifo(&root.join("proc/irq/27/smp_affinity_list"), 0o600)
            .unwrap();
        let err = check_writable(&root, "/proc/irq/27/smp_affinity_list").unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
        assert_eq!(
            std::fs::read_to_string(root.join("elsewhere/smp_affinity_list")).unwrap(),
            "precious\n"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_kernels_cpufreq_link_is_followed_and_no_other() {
        let root = tree("cpufreq");
        let cpu = root.join("sys/devices/system/cpu");
        std::fs::create_dir_all(cpu.join("cpufreq/policy0")).unwrap();
        std::fs::create_dir_all(cpu.join("cpu0")).unwrap();
        std::fs::create_dir_all(cpu.join("cpu1")).unwrap();
        std::fs::write(cpu.join("cpufreq/policy0/scaling_governor"), "ondemand\n").unwrap();
        std::os::unix::fs::symlink("../cpufreq/policy0", cpu.join("cpu0/cpufreq")).unwrap();
        let governor = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor";
        assert_eq!(read_kernel_file(&root, governor).unwrap(), "ondemand");
        write_value(&root, governor, "performance").unwrap();
        assert_eq!(
            std::fs::read_to_string(cpu.join("cpufreq/policy0/scaling_governor")).unwrap(),
            "performance\n"
        );
        // Any other link text is refused, even one that leads to the same folder.
        std::os::unix::fs::symlink(cpu.join("cpufreq/policy0"), cpu.join("cpu1/cpufreq")).unwrap();
        let err = write_value(
            &root,
            "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor",
            "x",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("is a symbolic link where the kernel has none"),
            "{err}"
        );
        // Before Linux 4.3: the link to the first CPU's folder.
        std::fs::remove_file(cpu.join("cpu1/cpufreq")).unwrap();
        std::fs::create_dir_all(cpu.join("cpu2/cpufreq")).unwrap();
        std::fs::write(cpu.join("cpu2/cpufreq/scaling_governor"), "ondemand\n").unwrap();
        std::os::unix::fs::symlink("../cpu2/cpufreq", cpu.join("cpu1/cpufreq")).unwrap();
        write_value(
            &root,
            "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor",
            "powersave",
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(cpu.join("cpu2/cpufreq/scaling_governor")).unwrap(),
            "powersave\n"
        );
        for text in [
            "../cpufreq/../cpu2",
            "../cpu2/cpufreq/",
            "../cpux/cpufreq",
            "../../cpufreq/policy0",
        ] {
            assert_eq!(cpufreq_policy(text), None, "{text}");
        }
        // And the policy folder must not be a link itself.
        std::fs::rename(cpu.join("cpufreq/policy0"), cpu.join("cpufreq/real")).unwrap();
        std::os::unix::fs::symlink("real", cpu.join("cpufreq/policy0")).unwrap();
        let err = write_value(&root, governor, "x").unwrap_err();
        assert!(
            err.to_string().contains("leads through a symbolic link"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(cpu.join("cpufreq/real/scaling_governor")).unwrap(),
            "performance\n"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn privilege_names_root_for_root_files() {
        let text = privilege(Path::new("/proc/sys/kernel/hostname"));
        assert!(
            text.starts_with("root (the file is root's, mode 644"),
            "{text}"
        );
    }
}
