//! `rtlat audit` with bad input exits with status 2, prints exactly one line on stderr naming
//! what was wrong and what is accepted, and prints nothing on stdout.

use crate::audit_support;

use audit_support::{TempFile, audit, linux_tree};

#[test]
fn bad_input_exits_2_with_one_line() {
    let file = TempFile::new("regular-file", "x");
    let empty_dir = std::env::temp_dir().join(format!("rtlat-audit-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty_dir).unwrap();
    let empty = empty_dir.to_str().unwrap().to_owned();
    let vm = linux_tree("vm-2cpu");
    let rows: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--root", "/nonexistent"],
            "--root /nonexistent: No such file or directory",
        ),
        (vec!["--root", file.as_str()], "not a directory"),
        (vec!["--root", &empty], "holds neither proc/ nor sys/"),
        (vec!["--root"], "--root needs a directory"),
        (
            vec!["--frobnicate"],
            "unknown option '--frobnicate'; accepted: --root DIR",
        ),
        (vec!["stray"], "unexpected argument 'stray'"),
        (vec!["--json", "--json"], "--json is given twice"),
        (
            vec!["--cmdline", "/nonexistent/cmdline"],
            "--cmdline /nonexistent/cmdline: No such file or directory",
        ),
        (
            vec!["--cmdline", "/dev/zero"],
            "--cmdline /dev/zero: larger than 1 MiB, the most rtlat reads of such a file",
        ),
        (vec!["--suggest"], "--suggest needs --isolate CPUS"),
        (vec!["--isolate", "1"], "--isolate goes with --suggest"),
        (
            vec!["--suggest", "--isolate", "0-"],
            "--isolate '0-': '0-' is not a CPU number or range",
        ),
        (vec!["--suggest", "--isolate", "3-1"], "reversed"),
        (
            vec!["--suggest", "--isolate", ""],
            "--isolate needs a CPU list",
        ),
        (
            vec!["--root", &vm, "--suggest", "--isolate", "99"],
            "CPU 99 is not on this machine, whose CPUs are 0-1",
        ),
        (
            vec!["--root", &vm, "--suggest", "--isolate", "1-5"],
            "CPUs 2-5 are not on this machine",
        ),
        (
            vec!["--root", &vm, "--suggest", "--isolate", "0-1"],
            "leaves no housekeeping CPU",
        ),
    ];
    for (args, expected) in rows {
        let run = audit(&args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert_eq!(run.stdout, "", "{args:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.starts_with("rtlat audit: "),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stderr.contains(expected), "{args:?}: {}", run.stderr);
    }
    let _ = std::fs::remove_dir(&empty_dir);
}
