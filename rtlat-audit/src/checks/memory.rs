//! Memory management that adds latency: transparent huge pages, swap, KSM.

use rtlat_system::facts::{FactResultExt, KsmRun};

use crate::context::{Context, unreadable};
use crate::finding::{Finding, Severity};
use crate::paths::system_path;

/// Runs the memory checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    out.push(thp(ctx));
    out.push(swap(ctx));
    out.push(ksm(ctx));
}

fn thp(ctx: &Context) -> Finding {
    const ID: &str = "mm.thp";
    let path = system_path("sys/kernel/mm/transparent_hugepage/enabled");
    let choice = match ctx.facts.transparent_hugepage() {
        Ok(choice) => choice,
        Err(e) => return unreadable(ID, &path, &e),
    };
    let shown: Vec<String> = choice
        .available
        .iter()
        .map(|c| {
            if *c == choice.selected {
                format!("[{c}]")
            } else {
                c.clone()
            }
        })
        .collect();
    let finding = match choice.selected.as_str() {
        "never" => Finding::new(ID, Severity::Ok, "Transparent huge pages are off"),
        "madvise" => Finding::new(
            ID,
            Severity::Ok,
            "Transparent huge pages only where a program asks for them (madvise)",
        ),
        "always" => Finding::new(
            ID,
            Severity::Warn,
            "Transparent huge pages are always on: khugepaged compacts memory in the background, and a page fault may have to zero 2 MiB",
        )
        .remedy("echo never > /sys/kernel/mm/transparent_hugepage/enabled now, and transparent_hugepage=never on the command line"),
        other => Finding::new(ID, Severity::Info, format!("Transparent huge pages: {other}")),
    };
    finding.evidence(path, shown.join(" "))
}

fn swap(ctx: &Context) -> Finding {
    const ID: &str = "mm.swap";
    let path = system_path("proc/swaps");
    let swaps = match ctx.facts.swaps() {
        Ok(swaps) => swaps,
        Err(e) => return unreadable(ID, &path, &e),
    };
    if swaps.is_empty() {
        return Finding::new(ID, Severity::Ok, "No swap is active").evidence(path, "no swap area");
    }
    let listed: Vec<String> = swaps
        .iter()
        .map(|s| {
            format!(
                "{} ({}, {} KiB, {} KiB used)",
                s.filename, s.kind, s.size_kib, s.used_kib
            )
        })
        .collect();
    Finding::new(
        ID,
        Severity::Warn,
        "Swap is active: memory not locked can be swapped out, and reclaim and swap I/O add kernel work (and lock contention) at unpredictable times",
    )
    .evidence(path, listed.join("; "))
    .remedy("swapoff -a (and remove the swap from /etc/fstab); the real-time process must lock its memory either way (mlockall; rtlat run does)")
}

fn ksm(ctx: &Context) -> Finding {
    const ID: &str = "mm.ksm";
    let path = system_path("sys/kernel/mm/ksm/run");
    match ctx.facts.ksm_run().optional() {
        Ok(None) => Finding::new(ID, Severity::Ok, "This kernel has no KSM").evidence(path, "absent"),
        Ok(Some(KsmRun::Stopped)) => Finding::new(ID, Severity::Ok, "KSM (same-page merging) is stopped").evidence(path, "0"),
        Ok(Some(KsmRun::Running)) => Finding::new(
            ID,
            Severity::Warn,
            "KSM runs: ksmd scans memory to merge identical pages, and writing to a merged page takes a copy-on-write fault",
        )
        .evidence(path, "1")
        .remedy("echo 2 > /sys/kernel/mm/ksm/run (unmerges every page and stops)"),
        Ok(Some(KsmRun::Unmerging)) => Finding::new(ID, Severity::Info, "KSM is unmerging its pages, then stops")
            .evidence(path, "2"),
        Err(e) => unreadable(ID, &path, &e),
    }
}
