//! `rtlat audit --suggest --isolate CPUS`: the complete kernel command line that isolates
//! those CPUs on this machine, built from the current line, with the GRUB line and the
//! commands that apply it.
//!
//! # The parameters set, and why
//!
//! - `isolcpus=managed_irq,domain,CPUS`: `domain` takes the CPUs out of the scheduler's load
//!   balancing (only threads pinned there run there); `managed_irq` keeps managed interrupts
//!   (NVMe queues, multi-queue NICs), which cannot be moved by hand, off them.
//! - `nohz_full=CPUS`: the tick stops while one task runs, and unbound timers, kernel threads,
//!   workqueues and the lockup watchdogs go to the housekeeping CPUs.
//! - `rcu_nocbs=CPUS`: RCU callbacks run in kernel threads on the housekeeping CPUs (implied
//!   by `nohz_full=`, written out so the line says what it does).
//! - `rcu_nocb_poll`: those threads poll, so the isolated CPUs never have to wake them.
//! - `irqaffinity=HOUSEKEEPING`: interrupts set up at boot go to the housekeeping CPUs.
//! - `skew_tick=1`: the CPUs' ticks are offset, so they do not contend for the timekeeping
//!   locks at once (recommended with PREEMPT_RT).
//!
//! Not added, on purpose: `idle=poll` (full power and heat, and a spinning SMT sibling slows
//! the real-time thread), `nosoftlockup`/`nmi_watchdog=0` (`nohz_full=` already keeps the
//! watchdogs off the isolated CPUs), `tsc=nowatchdog` and C-state limits (right only on some
//! machines: the audit reports them), `mitigations=off` (a security choice).
//!
//! Besides setting those, the line loses misspelled parameters (renamed when the intended
//! name is another parameter, dropped when it is one of the above), repeated parameters (the
//! one in force is kept, at the first one's place), and `nohz=off` (which defeats
//! `nohz_full=`). Everything else, `root=` included, stays as it is.

use rtlat_formats::schema::audit as schema;
use rtlat_linux::cpuset::CpuSet;
use rtlat_system::cmdline::{KernelCmdline, Param, normalize_name};

use super::context::cpus_phrase;
use super::known_params::{self, NameCheck};

/// What was changed on the line, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// `added`, `changed`, `removed`, `renamed` or `deduplicated`.
    pub action: &'static str,
    /// The parameter(s) involved, as written.
    pub param: String,
    /// Why.
    pub reason: String,
}

/// The suggestion.
#[derive(Debug, Clone)]
pub struct Suggestion {
    /// The CPUs isolated.
    pub isolate: CpuSet,
    /// The possible CPUs left for housekeeping.
    pub housekeeping: CpuSet,
    /// Where the line came from.
    pub source: String,
    /// The complete kernel command line.
    pub line: KernelCmdline,
    /// The value for `GRUB_CMDLINE_LINUX_DEFAULT` (unquoted).
    pub grub_value: String,
    /// What was changed.
    pub changes: Vec<Change>,
    /// What to know before booting it.
    pub notes: Vec<String>,
    /// The parameters set, for `grubby --args`.
    pub set: Vec<Param>,
    /// The names removed, for `grubby --remove-args`.
    pub removed: Vec<String>,
}

/// The names GRUB writes on the line itself (`vt.handoff` by Ubuntu's scripts).
const ADDED_BY_GRUB: [&str; 4] = ["BOOT_IMAGE", "root", "ro", "vt.handoff"];

/// The parameters the suggestion sets, with why (see the module docs).
fn wanted(isolate: &CpuSet, housekeeping: &CpuSet) -> Vec<(Param, &'static str)> {
    let param = |name: &str, value: Option<String>| {
        // Names and CPU lists hold no space or quote, so the kernel reads them back as one.
        Param::new(name, value.as_deref()).ok()
    };
    let cpus = isolate.to_string();
    [
        (param("isolcpus", Some(format!("managed_irq,domain,{cpus}"))),
            "out of the scheduler's load balancing, and managed IRQs kept off them"),
        (param("nohz_full", Some(cpus.clone())),
            "the tick stops while one task runs; timers, kernel threads and watchdogs move to housekeeping CPUs"),
        (param("rcu_nocbs", Some(cpus)),
            "RCU callbacks run in kernel threads on housekeeping CPUs"),
        (param("rcu_nocb_poll", None),
            "the RCU threads poll, so the isolated CPUs never wake them"),
        (param("irqaffinity", Some(housekeeping.to_string())),
            "interrupts set up at boot go to the housekeeping CPUs"),
        (param("skew_tick", Some("1".to_owned())),
            "the CPUs' ticks are offset and do not contend for timekeeping locks at once"),
    ]
    .into_iter()
    .filter_map(|(p, why)| Some((p?, why)))
    .collect()
}

/// What the suggestion needs to know of the machine and of where the line came from.
#[derive(Debug, Clone, Copy)]
pub struct Machine<'a> {
    /// The possible CPUs.
    pub possible: &'a CpuSet,
    /// The online CPUs, if known (else the possible ones count).
    pub online: Option<&'a CpuSet>,
    /// Whether the line came from a GRUB configuration (which lacks what GRUB adds).
    pub from_grub: bool,
}

/// Builds the suggestion for `line` (from `source`) isolating `isolate` on `machine`. The
/// error is one line (exit status 2).
pub fn suggest(
    line: &KernelCmdline,
    source: &str,
    isolate: &CpuSet,
    machine: &Machine<'_>,
) -> Result<Suggestion, String> {
    let possible = machine.possible;
    let online = machine.online;
    let missing = isolate.difference(possible);
    if !missing.is_empty() {
        return Err(format!(
            "--isolate {isolate}: {} not on this machine, whose CPUs are {possible} (/sys/devices/system/cpu/possible)",
            if missing.len() == 1 {
                format!("CPU {missing} is")
            } else {
                format!("CPUs {missing} are")
            }
        ));
    }
    let online = online.unwrap_or(possible);
    if online.difference(isolate).is_empty() {
        let mut keep = online.intersection(isolate);
        keep.remove(0);
        let hint = if keep.is_empty() {
            "a machine with one CPU cannot isolate one".to_owned()
        } else {
            format!("keep at least one CPU out of --isolate, e.g. --isolate {keep}")
        };
        return Err(format!(
            "--isolate {isolate} leaves no housekeeping CPU (online CPUs: {online}): {hint}"
        ));
    }
    let housekeeping = possible.difference(isolate);
    let mut notes = Vec::new();
    if isolate.contains(0) {
        notes.push("CPU 0 is isolated: it is the boot CPU, which keeps the timekeeping duty (x86 kernels drop it from nohz_full) and takes legacy interrupts that cannot be moved; prefer leaving it to housekeeping".to_owned());
    }
    let offline = isolate.difference(online);
    if !offline.is_empty() {
        notes.push(format!(
            "{} offline now: isolated once brought online",
            if offline.len() == 1 {
                format!("CPU {offline} is")
            } else {
                format!("CPUs {offline} are")
            }
        ));
    }
    for warning in line.warnings() {
        notes.push(format!(
            "the current line is malformed ({warning}); check the result"
        ));
    }
    if machine.from_grub {
        notes.push("the line comes from a GRUB configuration: the running kernel's line also has what GRUB adds (BOOT_IMAGE=, root=, ro)".to_owned());
    } else if !line.contains("BOOT_IMAGE") {
        notes.push("the line has no BOOT_IMAGE=, so this machine may not boot through GRUB: give the line to its boot loader instead (systemd-boot: /etc/kernel/cmdline, then kernel-install; Raspberry Pi: cmdline.txt)".to_owned());
    }

    let wanted = wanted(isolate, &housekeeping);
    let wanted_names: Vec<String> = wanted
        .iter()
        .map(|(p, _)| p.normalized_name().into_owned())
        .collect();
    let mut changes = Vec::new();
    let mut removed = Vec::new();
    let mut params: Vec<Param> = Vec::new();

    // Misspellings and conflicts.
    for param in line.params() {
        match known_params::check(param.name()) {
            NameCheck::Misspelled(known) if wanted_names.iter().any(|w| w == known) => {
                changes.push(Change {
                    action: "removed",
                    param: param.raw().to_owned(),
                    reason: format!("a misspelling of {known}, which is set below"),
                });
                removed.push(param.name().to_owned());
            }
            NameCheck::Misspelled(known) => match Param::new(known, param.value()) {
                Ok(fixed) => {
                    changes.push(Change {
                        action: "renamed",
                        param: format!("{} → {}", param.raw(), fixed.raw()),
                        reason: format!("{} is not a kernel parameter", param.name()),
                    });
                    removed.push(param.name().to_owned());
                    params.push(fixed);
                }
                Err(_) => params.push(param.clone()),
            },
            _ if param.is_named("nohz") && param.value() == Some("off") => {
                changes.push(Change {
                    action: "removed",
                    param: param.raw().to_owned(),
                    reason: "it keeps the tick running everywhere, defeating nohz_full=".to_owned(),
                });
                removed.push(param.name().to_owned());
            }
            _ => params.push(param.clone()),
        }
    }

    // Repeated parameters (other than those set below): keep the one in force (the last) at
    // the first one's place.
    let mut deduplicated: Vec<Param> = Vec::new();
    for (index, param) in params.iter().enumerate() {
        let name = param.normalized_name();
        if wanted_names.iter().any(|w| *w == name) {
            // Set below, where its repetitions are reported.
            deduplicated.push(param.clone());
            continue;
        }
        if deduplicated.iter().any(|p| p.is_named(&name)) {
            continue;
        }
        let all: Vec<&Param> = params.iter().filter(|p| p.is_named(&name)).collect();
        let kept = if all.len() > 1 {
            let last = all[all.len() - 1];
            let written: Vec<&str> = all.iter().map(|p| p.raw()).collect();
            changes.push(Change {
                action: "deduplicated",
                param: written.join(" "),
                reason: format!("kept {last}, the one the kernel uses"),
            });
            last
        } else {
            &params[index]
        };
        deduplicated.push(kept.clone());
    }
    let mut params = deduplicated;

    // The isolation parameters: replace the first occurrence, drop the others, else append.
    for (param, why) in &wanted {
        let name = param.normalized_name();
        let existing: Vec<&Param> = params.iter().filter(|p| p.is_named(&name)).collect();
        match existing.first() {
            None => {
                changes.push(Change {
                    action: "added",
                    param: param.raw().to_owned(),
                    reason: (*why).to_owned(),
                });
                params.push(param.clone());
            }
            Some(first) => {
                if existing.len() > 1 || first.raw() != param.raw() {
                    let written: Vec<&str> = existing.iter().map(|p| p.raw()).collect();
                    changes.push(Change {
                        action: "changed",
                        param: format!("{} → {}", written.join(" "), param.raw()),
                        reason: (*why).to_owned(),
                    });
                }
                let at = params
                    .iter()
                    .position(|p| p.is_named(&name))
                    .unwrap_or(params.len());
                params.retain(|p| !p.is_named(&name));
                params.insert(at.min(params.len()), param.clone());
            }
        }
    }

    let init: Vec<&str> = line.init_args().iter().map(Param::raw).collect();
    let text = |params: &[&Param]| {
        let mut words: Vec<&str> = params.iter().map(|p| p.raw()).collect();
        if line.has_init_separator() {
            words.push("--");
            words.extend(&init);
        }
        words.join(" ")
    };
    let all: Vec<&Param> = params.iter().collect();
    let grub: Vec<&Param> = params
        .iter()
        .filter(|p| !ADDED_BY_GRUB.iter().any(|name| p.is_named(name)))
        .collect();
    let suggested = KernelCmdline::parse(&text(&all));
    Ok(Suggestion {
        isolate: isolate.clone(),
        housekeeping,
        source: source.to_owned(),
        line: suggested,
        grub_value: text(&grub),
        changes,
        notes,
        set: wanted.into_iter().map(|(p, _)| p).collect(),
        removed,
    })
}

/// `text` inside the double quotes of a shell assignment.
fn shell_double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

impl Suggestion {
    /// The line for `/etc/default/grub`.
    pub fn grub_line(&self) -> String {
        format!(
            "GRUB_CMDLINE_LINUX_DEFAULT={}",
            shell_double_quoted(&self.grub_value)
        )
    }

    /// The commands that apply the line, in order.
    pub fn apply(&self) -> Vec<String> {
        let args: Vec<&str> = self.set.iter().map(Param::raw).collect();
        let mut grubby = format!(
            "sudo grubby --update-kernel=ALL --args={}",
            shell_double_quoted(&args.join(" "))
        );
        if !self.removed.is_empty() {
            let mut names: Vec<String> = Vec::new();
            for name in &self.removed {
                let name = normalize_name(name).into_owned();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            grubby.push_str(&format!(
                " --remove-args={}",
                shell_double_quoted(&names.join(" "))
            ));
        }
        vec![
            "in /etc/default/grub, replace the GRUB_CMDLINE_LINUX_DEFAULT line with the one above, and remove from GRUB_CMDLINE_LINUX any parameter it repeats".to_owned(),
            "Debian, Ubuntu: sudo update-grub".to_owned(),
            "Fedora, RHEL, openSUSE: sudo grub2-mkconfig -o /boot/grub2/grub.cfg".to_owned(),
            format!("or, on Fedora and RHEL, every boot entry at once: {grubby}"),
            "reboot, then check with: rtlat audit".to_owned(),
        ]
    }

    /// The suggestion for people.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "Kernel command line isolating {} (housekeeping {}), from {}:\n\n  {}\n\n",
            cpus_phrase(&self.isolate),
            cpus_phrase(&self.housekeeping),
            self.source,
            self.line
        ));
        out.push_str(&format!(
            "GRUB line for /etc/default/grub (GRUB adds BOOT_IMAGE=, root= and ro itself, Ubuntu's also vt.handoff):\n\n  {}\n\n",
            self.grub_line()
        ));
        if !self.changes.is_empty() {
            out.push_str("Changes to the current line:\n");
            for change in &self.changes {
                out.push_str(&format!(
                    "  {:<13}{}: {}\n",
                    change.action, change.param, change.reason
                ));
            }
            out.push('\n');
        }
        if !self.notes.is_empty() {
            out.push_str("Notes:\n");
            for note in &self.notes {
                out.push_str(&format!("  - {note}\n"));
            }
            out.push('\n');
        }
        out.push_str("To apply it (nothing was changed):\n");
        let apply = self.apply();
        out.push_str(&format!("  1. {}\n", apply[0]));
        out.push_str("  2. regenerate GRUB's configuration:\n");
        for command in &apply[1..4] {
            out.push_str(&format!("       {command}\n"));
        }
        out.push_str(&format!("  3. {}\n", apply[4]));
        out
    }

    /// The suggestion for machines.
    pub fn json(&self) -> schema::Suggestion {
        schema::Suggestion {
            isolate: self.isolate.to_string(),
            housekeeping: self.housekeeping.to_string(),
            source: self.source.clone(),
            cmdline: self.line.to_string(),
            grub_cmdline_linux_default: self.grub_value.clone(),
            grub_line: self.grub_line(),
            changes: self
                .changes
                .iter()
                .map(|c| schema::Change {
                    action: c.action.to_string(),
                    param: c.param.clone(),
                    reason: c.reason.clone(),
                })
                .collect(),
            notes: self.notes.clone(),
            apply: self.apply(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpus(list: &str) -> CpuSet {
        CpuSet::parse(list).unwrap()
    }

    fn run(line: &str, isolate: &str, possible: &str) -> Result<Suggestion, String> {
        let possible = cpus(possible);
        let machine = Machine {
            possible: &possible,
            online: None,
            from_grub: false,
        };
        suggest(
            &KernelCmdline::parse(line),
            "test",
            &cpus(isolate),
            &machine,
        )
    }

    #[test]
    fn isolates_and_keeps_the_rest() {
        let s = run(
            "BOOT_IMAGE=/vmlinuz root=UUID=x ro quiet splash isolcpus=0,1,2,3,4 vt.handoff=7",
            "2-3",
            "0-7",
        )
        .unwrap();
        assert_eq!(
            s.line.to_string(),
            "BOOT_IMAGE=/vmlinuz root=UUID=x ro quiet splash isolcpus=managed_irq,domain,2-3 vt.handoff=7 \
             nohz_full=2-3 rcu_nocbs=2-3 rcu_nocb_poll irqaffinity=0-1,4-7 skew_tick=1"
        );
        assert_eq!(
            s.grub_line(),
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash isolcpus=managed_irq,domain,2-3 nohz_full=2-3 \
             rcu_nocbs=2-3 rcu_nocb_poll irqaffinity=0-1,4-7 skew_tick=1\""
        );
        assert_eq!(s.changes[0].action, "changed");
        assert!(s.notes.is_empty(), "{:?}", s.notes);
    }

    #[test]
    fn fixes_misspellings_duplicates_and_conflicts() {
        let s = run(
            "nohz=off rcunocbs=3 intel_pstae=disable nosoftlockup isolcpus=3 nosoftlockup tsc=reliable tsc=nowatchdog -- single",
            "3",
            "0-3",
        )
        .unwrap();
        assert_eq!(
            s.line.to_string(),
            "intel_pstate=disable nosoftlockup isolcpus=managed_irq,domain,3 tsc=nowatchdog nohz_full=3 \
             rcu_nocbs=3 rcu_nocb_poll irqaffinity=0-2 skew_tick=1 -- single"
        );
        let actions: Vec<&str> = s.changes.iter().map(|c| c.action).collect();
        assert_eq!(
            actions,
            [
                "removed",
                "removed",
                "renamed",
                "deduplicated",
                "deduplicated",
                "changed",
                "added",
                "added",
                "added",
                "added",
                "added"
            ]
        );
        assert!(s.notes.iter().any(|n| n.contains("BOOT_IMAGE")));
        assert!(
            s.apply()[3].contains("--remove-args=\"nohz rcunocbs intel_pstae\""),
            "{}",
            s.apply()[3]
        );
    }

    #[test]
    fn refuses_missing_cpus_and_no_housekeeping() {
        let err = run("ro", "99", "0-1").unwrap_err();
        assert!(
            err.contains("CPU 99 is not on this machine") && err.contains("0-1"),
            "{err}"
        );
        let err = run("ro", "0-1", "0-1").unwrap_err();
        assert!(
            err.contains("no housekeeping CPU") && err.contains("--isolate 1"),
            "{err}"
        );
        let err = run("ro", "0", "0").unwrap_err();
        assert!(err.contains("one CPU"), "{err}");
        let s = run("ro", "0", "0-1").unwrap();
        assert!(s.notes[0].starts_with("CPU 0 is isolated"));
    }

    #[test]
    fn grub_values_are_shell_quoted() {
        let s = run("dyndbg=\"file a.c +p\" x=$HOME", "1", "0-1").unwrap();
        assert!(
            s.grub_line()
                .starts_with("GRUB_CMDLINE_LINUX_DEFAULT=\"dyndbg=\\\"file a.c +p\\\" x=\\$HOME "),
            "{}",
            s.grub_line()
        );
        let reread = crate::cli::audit::cmdline_file::command_line(&s.grub_line());
        assert_eq!(KernelCmdline::parse(&reread).params(), s.line.params());
    }
}
