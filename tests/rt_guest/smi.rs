//! `--smi` against real SMIs (`guest/suites/smi.sh`): Debian's 6.1 RT kernel with CPU 1
//! isolated, booted under TCG on an Intel CPU model (family 6, the `msr` flag), with the
//! kernel's own msr driver loaded. A write to the APM control port makes QEMU raise an SMI
//! on CPU 0 (the first CPU; a real chipset broadcasts it) and count it in that CPU's
//! `MSR_SMI_COUNT`; the guest raises five while each run measures on CPU 0. The real cyclictest and rtlat (under cyclictest's name and its
//! own) must count the same five, in every output that shows them. What differs from a
//! real board: SeaBIOS's SMI handler is short and the emulator's time is noise, so no
//! latency is asserted.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::machine::Results;
use super::x86::{BootedOnce, ISOLATED, boot, booted_once};
use crate::common::{Json, JsonExt};

/// The SMIs the suite raises on CPU 0 during each run.
const RAISED: u64 = 5;

/// How long the suite may take (about 35 s under TCG on an idle 2-CPU machine).
const LIMIT: Duration = Duration::from_secs(420);

/// An Intel model under TCG: `MSR_SMI_COUNT` is Intel's (family 6, Nehalem and later).
const INTEL: &str = "max,vendor=GenuineIntel,family=6,model=85";

/// The suite's results, booted once per test process; `None` (said) where it cannot run.
fn suite(test: &str) -> Option<Arc<Results>> {
    static SMI: BootedOnce = OnceLock::new();
    booted_once(&SMI, test, || {
        boot("6.1", ISOLATED, test, ("smi", false, Some(INTEL)), LIMIT)
    })
}

/// The number after `SMI:` on `T: N`'s line.
fn smi_column(out: &str, thread: usize) -> Option<u64> {
    let prefix = format!("T:{thread:2} ");
    let line = out.lines().find(|l| l.starts_with(&prefix))?;
    line.split("SMI:")
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The guest is what the test needs: an Intel family 6 CPU with the `msr` flag, the driver
/// loaded, and the counter moving by what the suite raised.
fn assert_the_guest_counts(r: &Results) {
    let cpuinfo = r.text("cpuinfo");
    assert!(
        cpuinfo.contains("GenuineIntel") && cpuinfo.contains("cpu family\t: 6"),
        "{cpuinfo}"
    );
    assert_eq!(r.text("insmod.rc").trim(), "0");
    let count = |key: &str| -> u64 { r.text(key).trim().parse().expect(key) };
    // Seven runs (cyclictest's and rtlat's -q, -v and -h, rtlat run's), five SMIs each,
    // on CPU 0, and no other.
    assert_eq!(count("count.after") - count("count.before"), 7 * RAISED);
}

#[test]
fn without_the_msr_driver_rtlat_ends_as_cyclictest_does() {
    let Some(r) = suite("without_the_msr_driver_rtlat_ends_as_cyclictest_does") else {
        return;
    };
    assert_the_guest_counts(&r);
    r.assert_rc("nodriver.cyclictest", 1);
    r.assert_rc("nodriver.as_cyclictest", 1);
    let real = r.err("nodriver.cyclictest");
    assert!(
        real.contains("FATAL: Could not open MSR interface, errno: 2"),
        "{real}"
    );
    assert_eq!(r.err("nodriver.as_cyclictest"), real);
    // Under rtlat's name: one line naming the file and the remedy, status 2.
    r.assert_rc("nodriver.rtlat", 2);
    let ours = r.err("nodriver.rtlat");
    assert_eq!(ours.lines().count(), 1, "{ours}");
    assert!(
        ours.contains("/dev/cpu/0/msr") && ours.contains("modprobe msr"),
        "{ours}"
    );
}

#[test]
fn cyclictest_and_rtlat_count_the_same_smis_on_every_line() {
    let Some(r) = suite("cyclictest_and_rtlat_count_the_same_smis_on_every_line") else {
        return;
    };
    assert_the_guest_counts(&r);
    for tool in ["cyclictest", "as_cyclictest"] {
        // -q: the T: line ends with the SMI column.
        let key = format!("{tool}.q");
        r.assert_rc(&key, 0);
        let out = r.out(&key);
        assert_eq!(smi_column(&out, 0), Some(RAISED), "{tool}: {out}");
        // -v: `%8d:%8lu:%8ld%8ld`, the cycle's SMIs in the last eight columns.
        let key = format!("{tool}.v");
        r.assert_rc(&key, 0);
        let out = r.out(&key);
        let samples: Vec<&str> = out
            .lines()
            .filter(|l| l.len() == 34 && l.as_bytes()[8] == b':' && l.as_bytes()[17] == b':')
            .collect();
        assert!(samples.len() > 1000, "{tool}: {out}");
        let smis: u64 = samples
            .iter()
            .map(|l| l[26..].trim().parse::<u64>().expect(l))
            .sum();
        assert_eq!(smis, RAISED, "{tool}");
        // -h: `# SMIs:` per thread; CPU 1's thread counts none of CPU 0's.
        let key = format!("{tool}.h");
        r.assert_rc(&key, 0);
        let out = r.out(&key);
        assert!(
            out.lines()
                .any(|l| l == format!("# SMIs: {RAISED:05} 00000")),
            "{tool}: {out}"
        );
    }
    // The two T: lines alike but for their figures: same columns, same widths.
    let shape = |out: String| -> String {
        out.lines()
            .find(|l| l.starts_with("T: 0"))
            .unwrap_or("")
            .chars()
            .map(|c| if c.is_ascii_digit() { '9' } else { c })
            .collect()
    };
    let (real, ours) = (
        shape(r.out("cyclictest.q")),
        shape(r.out("as_cyclictest.q")),
    );
    assert_eq!(real.len(), ours.len(), "{real}\n{ours}");
    assert_eq!(
        real.split("SMI:").nth(1),
        ours.split("SMI:").nth(1),
        "{real}\n{ours}"
    );
}

#[test]
fn rtlat_run_counts_the_smis_in_its_line_and_json() {
    let Some(r) = suite("rtlat_run_counts_the_smis_in_its_line_and_json") else {
        return;
    };
    assert_the_guest_counts(&r);
    r.assert_rc("rtlat", 0);
    let out = r.out("rtlat");
    assert_eq!(smi_column(&out, 0), Some(RAISED), "{out}");
    // rtlat's own column follows cyclictest's.
    assert!(out.contains(&format!("SMI:{RAISED:8} Overruns:")), "{out}");
    let json = Json::parse(&r.text("rtlat.json"));
    assert_eq!(json.at("thread").at("0").at("rtlat").at("smis"), RAISED);
}
