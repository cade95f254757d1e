//! `rtlat verify PROFILE` through the binary: a captured machine's tree (`--root`) against
//! profiles that match it and that it drifted from, the running machine's own threads, the
//! JSON, and a profile that cannot be used refused in one line with status 2.

use crate::common;

use std::time::Duration;

use common::{Json, JsonExt, TempDir};

const QUICK: Duration = Duration::from_secs(20);

/// The HP t630 tree: CPU 3 isolated, `rcunocbs=3` misspelled on its command line.
fn t630() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/rtlat-system/tests/data/hp-t630"
    )
    .to_owned()
}

fn verify(dir: &TempDir, profile: &str, extra: &[&str]) -> common::Outcome {
    let path = dir.join("profile.toml");
    std::fs::write(&path, profile).unwrap();
    let path = path.display().to_string();
    let mut args = vec![path.as_str()];
    args.extend_from_slice(extra);
    common::rtlat_command("verify", &args, None, QUICK)
}

#[test]
fn a_profile_the_machine_keeps_is_clean_and_one_it_drifted_from_exits_1() {
    let dir = TempDir::new("verify");
    let root = t630();
    let clean = verify(
        &dir,
        "version = 1\n[kernel]\ncmdline = [\"nohz_full=3\", \"isolcpus=managed_irq,domain,3\"]\n",
        &["--root", &root],
    );
    assert_eq!(clean.code(), 0, "{}{}", clean.stdout, clean.stderr);
    assert!(
        clean.stdout.starts_with("rtlat verify "),
        "{}",
        clean.stdout
    );
    assert!(
        clean
            .stdout
            .contains(": all 2 items as the profile sets them"),
        "{}",
        clean.stdout
    );
    // The tree's line misspells rcu_nocbs: that item drifted, and is listed first.
    let drifted = verify(
        &dir,
        "version = 1\n[kernel]\ncmdline = [\"nohz_full=3\", \"rcu_nocbs=3\"]\n",
        &["--root", &root],
    );
    assert_eq!(drifted.code(), 1, "{}{}", drifted.stdout, drifted.stderr);
    let lines: Vec<&str> = drifted.stdout.lines().collect();
    assert!(
        lines[0].ends_with(": 1 of 2 items drifted"),
        "{}",
        drifted.stdout
    );
    assert!(
        lines[1].starts_with("DRIFT")
            && lines[1].contains("cmdline.rcu_nocbs")
            && lines[1].contains("have absent"),
        "{}",
        drifted.stdout
    );
    let json = verify(
        &dir,
        "version = 1\n[kernel]\ncmdline = [\"nohz_full=3\", \"rcu_nocbs=3\"]\n",
        &["--root", &root, "--json"],
    );
    assert_eq!(json.code(), 1);
    let doc = Json::parse(&json.stdout);
    assert_eq!(doc.at("drifted"), 1);
    let items = doc.at("items").as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[1].at("id"), "cmdline.rcu_nocbs");
    assert_eq!(items[1].at("drift"), true);
}

/// The real thing: a thread of this machine (the test harness's own process, a SCHED_OTHER
/// task) against a rule asking SCHED_FIFO of it.
#[test]
fn a_running_threads_lost_priority_is_drift() {
    let dir = TempDir::new("verify-threads");
    let comm = std::fs::read_to_string("/proc/self/comm").unwrap();
    let rule = format!(
        // A TOML literal string: the regular expression's backslashes as they are.
        "version = 1\n[[threads]]\nname = '^{}$'\npolicy = \"fifo\"\npriority = 42\n",
        regex_escape(comm.trim())
    );
    let out = verify(&dir, &rule, &["--json"]);
    assert_eq!(out.code(), 1, "{}{}", out.stdout, out.stderr);
    let doc = Json::parse(&out.stdout);
    let items = doc.at("items").as_array().unwrap();
    assert!(!items.is_empty());
    let pid = std::process::id().to_string();
    let ours = items
        .iter()
        .find(|i| {
            i.at("have")
                .as_str()
                .unwrap()
                .contains(&format!("pid {pid} "))
        })
        .unwrap_or_else(|| panic!("no item for pid {pid}: {}", out.stdout));
    assert_eq!(ours.at("drift"), true);
    assert!(
        ours.at("have").as_str().unwrap().starts_with("other 0"),
        "{ours}"
    );
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$-".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

#[test]
fn a_profile_that_cannot_be_used_is_refused_in_one_line() {
    let dir = TempDir::new("verify-bad");
    for (profile, fragment) in [
        ("version = 2\n", "version: 2 is not a version"),
        ("version = 1\n[irq]\naway_from = \"x\"\n", "irq.away_from:"),
        (
            "version = 1\n[[threads]]\nname = \"(\"\npolicy = \"other\"\n",
            "threads[0].name:",
        ),
        ("not toml at all", "profile.toml:"),
    ] {
        let out = verify(&dir, profile, &[]);
        assert_eq!(out.code(), 2, "{profile:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{profile:?}: {}", out.stderr);
        assert!(out.stderr.starts_with("rtlat verify: "), "{}", out.stderr);
        assert!(out.stderr.contains(fragment), "{profile:?}: {}", out.stderr);
        assert!(out.stdout.is_empty());
    }
    for args in [
        vec![],
        vec!["/nonexistent-rtlat-dir/p.toml"],
        vec!["a", "b"],
    ] {
        let out = common::rtlat_command("verify", &args, None, QUICK);
        assert_eq!(out.code(), 2, "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
    }
}
