//! Running as another user (`nobody`) and knowing whether this one is root.

use std::path::Path;

use super::{place_rtlat, place_rtlat_tools};

/// Runs rtlat as user `nobody` with no capabilities (`setpriv`, util-linux), from a copy of
/// the binary in a world-readable temporary folder, in that folder. Needs root.
pub fn as_nobody(args: &[&str]) -> std::process::Output {
    use std::os::unix::fs::PermissionsExt as _;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rtlat-nobody-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = as_nobody_in(&dir, args);
    std::fs::remove_dir_all(&dir).unwrap();
    out
}

/// Runs rtlat as user `nobody` with no capabilities from `dir` (world-readable), where the
/// binary is placed as `dir/rtlat`, with `rtlat-tools` beside it. Needs root.
pub fn as_nobody_in(dir: &Path, args: &[&str]) -> std::process::Output {
    assert!(
        is_root(),
        "these tests switch to user nobody and need to run as root"
    );
    let binary = dir.join("rtlat");
    place_rtlat(&binary);
    place_rtlat_tools(dir);
    // Where only a copy was possible, a child that another test thread forks while the copy
    // is still open for writing holds that descriptor until it execs: executing the copy in
    // that moment fails with ETXTBSY ("Text file busy"). It is gone a moment later.
    let mut attempts = 0;
    loop {
        let out = std::process::Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--inh-caps=-all",
            ])
            .arg(&binary)
            .args(args)
            .current_dir(dir)
            .output()
            .expect("setpriv (util-linux) must be installed");
        attempts += 1;
        let busy = String::from_utf8_lossy(&out.stderr).contains("Text file busy");
        if !busy || attempts == 50 {
            break out;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether the tests run as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .is_some_and(|l| l.split_whitespace().nth(2) == Some("0"))
}
