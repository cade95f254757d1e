//! `rtlat tune apply PROFILE --persist`: the profile made to survive a reboot, through the
//! distribution's own mechanisms, and `--unpersist`, which removes exactly that.
//!
//! | file (under `--root`) | what it is |
//! | --- | --- |
//! | `/etc/rtlat/tune.toml` | the profile, copied (what the unit applies and `rtlat verify` reads) |
//! | `/etc/default/grub.d/rtlat.cfg` | GRUB's drop-in: the profile's kernel parameters appended to `GRUB_CMDLINE_LINUX_DEFAULT` (where GRUB is used; `update-grub` then run on a live system) |
//! | `/etc/systemd/system/rtlat-tune.service` | a oneshot unit applying the run-time part at every boot, after the devices and before `multi-user.target` |
//! | `/etc/systemd/system/multi-user.target.wants/rtlat-tune.service` | the link `systemctl enable` makes |
//!
//! Each file starts with rtlat's mark; `--unpersist` removes a file at these fixed paths only
//! if it still carries the mark (the link: only if it points at the unit), and the folders
//! above it that rtlat made, only when empty: no file read chooses what is removed. Files are
//! written atomically, each path printed. Without GRUB, the kernel line is printed for the
//! boot loader in use.

use std::path::{Path, PathBuf};

use rtlat::atomic_file::write_atomically;
use rtlat_system::profile::Profile;

/// The first line of every file rtlat writes here.
pub const MARK: &str =
    "# Written by rtlat tune apply --persist; rtlat tune apply --unpersist removes it.";

/// The persisted profile.
pub const PROFILE: &str = "etc/rtlat/tune.toml";
/// GRUB's drop-in.
pub const GRUB_DROP_IN: &str = "etc/default/grub.d/rtlat.cfg";
/// The unit.
pub const UNIT: &str = "etc/systemd/system/rtlat-tune.service";
/// The link that enables it.
pub const WANTS: &str = "etc/systemd/system/multi-user.target.wants/rtlat-tune.service";
/// What the link points at.
const WANTS_TARGET: &str = "../rtlat-tune.service";
/// The folders rtlat may have made, deepest first: removed by `--unpersist` when empty
/// (on a real system the systemd ones never are).
const FOLDERS: [&str; 5] = [
    "etc/rtlat",
    "etc/default/grub.d",
    "etc/systemd/system/multi-user.target.wants",
    "etc/systemd/system",
    "etc/systemd",
];

/// What `--persist` wrote or would write, for the output.
#[derive(Debug, Default)]
pub struct Persisted {
    /// The files written (system paths).
    pub written: Vec<String>,
    /// Whether GRUB is used (its drop-in written).
    pub grub: bool,
    /// The kernel parameters the profile adds (empty: none).
    pub cmdline: Vec<String>,
}

fn system(relative: &str) -> String {
    format!("/{relative}")
}

/// The drop-in's text: the profile's parameters after whatever the distribution's file sets.
pub fn grub_drop_in(cmdline: &[String]) -> String {
    format!(
        "{MARK}\n# The kernel parameters of the tuning profile /{PROFILE}; update-grub applies them at the next boot.\nGRUB_CMDLINE_LINUX_DEFAULT=\"${{GRUB_CMDLINE_LINUX_DEFAULT}} {}\"\n",
        cmdline.join(" ")
    )
}

/// Whether `name` is a systemd unit name `--before` takes (`app.service`, `cnc.target`).
pub fn is_unit_name(name: &str) -> bool {
    let stem = name
        .strip_suffix(".service")
        .or_else(|| name.strip_suffix(".target"));
    name.len() <= 255
        && stem.is_some_and(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ":_.@-".contains(c))
        })
}

/// The unit's text; `rtlat`: the program's absolute path; `before`: the real-time
/// application's unit, which it runs before (with `multi-user.target`).
pub fn unit(rtlat: &Path, before: Option<&str>) -> String {
    let before = before.map(|u| format!(" {u}")).unwrap_or_default();
    format!(
        "{MARK}
[Unit]
Description=rtlat: the run-time tuning of /{PROFILE} (IRQs, governors, idle states, threads)
Wants=systemd-udev-settle.service
After=systemd-udev-settle.service local-fs.target
Before=multi-user.target{before}
ConditionPathExists=/{PROFILE}

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart={} tune apply /{PROFILE} --apply --save /run/rtlat-tune-restore.json

[Install]
WantedBy=multi-user.target
",
        rtlat.display()
    )
}

/// Writes the persisted files under `root` (`rtlat`: the program the unit runs); each path
/// as written.
pub fn persist(
    root: &Path,
    profile: &Profile,
    rtlat: &Path,
    before: Option<&str>,
) -> Result<Persisted, String> {
    let mut done = Persisted {
        cmdline: profile
            .kernel
            .as_ref()
            .map(|k| k.cmdline.clone())
            .unwrap_or_default(),
        grub: root.join("etc/default/grub").is_file(),
        ..Persisted::default()
    };
    // Every path checked before anything is written: a file rtlat did not write stops it.
    let link = root.join(WANTS);
    let with_grub = done.grub && !done.cmdline.is_empty();
    for relative in [PROFILE, GRUB_DROP_IN, UNIT] {
        if relative != GRUB_DROP_IN || with_grub {
            refuse_foreign(&root.join(relative))?;
        }
    }
    let linked = link.symlink_metadata().is_ok();
    if linked && !std::fs::read_link(&link).is_ok_and(|t| t == Path::new(WANTS_TARGET)) {
        return Err(format!(
            "{} exists and is not rtlat's link to {WANTS_TARGET}: left as it is (move it away to persist)",
            link.display()
        ));
    }
    let write = |relative: &str, text: &str, done: &mut Persisted| -> Result<(), String> {
        let path = root.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
        }
        write_atomically(&path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        done.written.push(system(relative));
        Ok(())
    };
    let copy = format!("{MARK}\n{}", profile.to_toml());
    write(PROFILE, &copy, &mut done)?;
    if with_grub {
        write(GRUB_DROP_IN, &grub_drop_in(&done.cmdline), &mut done)?;
    }
    write(UNIT, &unit(rtlat, before), &mut done)?;
    if !linked {
        if let Some(parent) = link.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
        }
        std::os::unix::fs::symlink(WANTS_TARGET, &link)
            .map_err(|e| format!("cannot enable the unit ({}): {e}", link.display()))?;
    }
    done.written.push(system(WANTS));
    Ok(done)
}

/// A file at `path` that rtlat did not write (no mark) is not replaced.
fn refuse_foreign(path: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Err(_) => Ok(()),
        Ok(meta) if meta.is_file() && carries_mark(path) => Ok(()),
        Ok(_) => Err(format!(
            "{} exists and was not written by rtlat: left as it is (move it away to persist)",
            path.display()
        )),
    }
}

/// Whether the regular file at `path` starts with [`MARK`] (its first line only is read).
fn carries_mark(path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = vec![0u8; MARK.len()];
    file.take(MARK.len() as u64).read_exact(&mut head).is_ok() && head == MARK.as_bytes()
}

/// What `--unpersist` removed and left.
#[derive(Debug, Default)]
pub struct Unpersisted {
    /// The files removed (system paths).
    pub removed: Vec<String>,
    /// The files at rtlat's paths left, with why.
    pub left: Vec<String>,
    /// Whether GRUB's drop-in was among the removed.
    pub grub: bool,
}

/// Removes what [`persist`] wrote under `root`, at its fixed paths only.
pub fn unpersist(root: &Path) -> Result<Unpersisted, String> {
    let mut done = Unpersisted::default();
    let link = root.join(WANTS);
    if link.symlink_metadata().is_ok() {
        if std::fs::read_link(&link).is_ok_and(|t| t == Path::new(WANTS_TARGET)) {
            std::fs::remove_file(&link)
                .map_err(|e| format!("cannot remove {}: {e}", link.display()))?;
            done.removed.push(system(WANTS));
        } else {
            done.left
                .push(format!("{}: not rtlat's link", system(WANTS)));
        }
    }
    for relative in [UNIT, GRUB_DROP_IN, PROFILE] {
        let path = root.join(relative);
        if path.symlink_metadata().is_err() {
            continue;
        }
        let is_file = path.symlink_metadata().is_ok_and(|m| m.is_file());
        if is_file && carries_mark(&path) {
            std::fs::remove_file(&path)
                .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
            done.removed.push(system(relative));
            done.grub |= relative == GRUB_DROP_IN;
        } else {
            done.left
                .push(format!("{}: not written by rtlat", system(relative)));
        }
    }
    for folder in FOLDERS {
        // Only an empty folder goes (`remove_dir` refuses any other).
        let _ = std::fs::remove_dir(root.join(folder));
    }
    Ok(done)
}

/// Where `update-grub` is, on a live system that has it.
pub fn update_grub(root: &Path) -> Option<PathBuf> {
    if root != Path::new("/") {
        return None;
    }
    ["/usr/sbin/update-grub", "/sbin/update-grub"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> Profile {
        Profile::parse("version = 1\n[kernel]\ncmdline = [\"isolcpus=1\", \"nohz_full=1\"]\n[irq]\naway_from = \"1\"\n")
            .unwrap()
    }

    /// Every file and folder under `root`, with a file's bytes (a link: its target).
    fn tree(root: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                let name = path.strip_prefix(root).unwrap().display().to_string();
                let meta = path.symlink_metadata().unwrap();
                if meta.file_type().is_symlink() {
                    out.push((
                        name,
                        format!("-> {}", std::fs::read_link(&path).unwrap().display()),
                    ));
                } else if meta.is_dir() {
                    out.push((name, "/".into()));
                    stack.push(path);
                } else {
                    out.push((name, std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn unpersist_leaves_the_tree_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("etc/default")).unwrap();
        std::fs::write(
            root.join("etc/default/grub"),
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n",
        )
        .unwrap();
        let before = tree(root);
        let done = persist(root, &profile(), Path::new("/usr/bin/rtlat"), None).unwrap();
        assert!(done.grub);
        assert_eq!(done.written.len(), 4, "{:?}", done.written);
        let drop_in = std::fs::read_to_string(root.join(GRUB_DROP_IN)).unwrap();
        assert!(
            drop_in.contains("${GRUB_CMDLINE_LINUX_DEFAULT} isolcpus=1 nohz_full=1\""),
            "{drop_in}"
        );
        let unit = std::fs::read_to_string(root.join(UNIT)).unwrap();
        assert!(
            unit.contains("ExecStart=/usr/bin/rtlat tune apply /etc/rtlat/tune.toml --apply"),
            "{unit}"
        );
        // The copy is the profile.
        let copy = std::fs::read_to_string(root.join(PROFILE)).unwrap();
        assert_eq!(Profile::parse(&copy).unwrap(), profile());
        // Persisting again replaces rtlat's own files.
        persist(root, &profile(), Path::new("/usr/bin/rtlat"), None).unwrap();
        let undone = unpersist(root).unwrap();
        assert_eq!(undone.removed.len(), 4, "{undone:?}");
        assert!(undone.left.is_empty() && undone.grub);
        assert_eq!(tree(root), before);
    }

    #[test]
    fn files_rtlat_did_not_write_are_neither_replaced_nor_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("etc/systemd/system")).unwrap();
        std::fs::write(root.join(UNIT), "[Unit]\nDescription=someone else's\n").unwrap();
        let e = persist(root, &profile(), Path::new("/usr/bin/rtlat"), None).unwrap_err();
        assert!(e.contains("was not written by rtlat"), "{e}");
        let undone = unpersist(root).unwrap();
        assert!(
            undone.left.iter().any(|l| l.contains("rtlat-tune.service")),
            "{undone:?}"
        );
        assert_eq!(
            std::fs::read_to_string(root.join(UNIT)).unwrap(),
            "[Unit]\nDescription=someone else's\n"
        );
        // Without /etc/default/grub: no drop-in, the line is for the user's boot loader.
        std::fs::remove_file(root.join(UNIT)).unwrap();
        let done = persist(root, &profile(), Path::new("/usr/bin/rtlat"), None).unwrap();
        assert!(!done.grub && !root.join(GRUB_DROP_IN).exists());
    }
}
