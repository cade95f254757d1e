//! `rtlat threads --help`, written from the options' one definition ([`SPECS`], the table
//! the command line is read with); each section gives them its own help.

use rtlat_system::tune::thread::SCHED_REQUEST_SYNTAX;

use crate::cli::tuning::args::{APPLY, HELP, RESTORE, ROOT, SAVE, Spec};

/// `rtlat threads --help`: the option lines written from [`LISTING`] and [`CHANGING`].
pub fn usage() -> String {
    format!(
        "\
Usage: rtlat threads [--pid PID | --name REGEX | --tid TID...] [--json] [--root DIR]
       rtlat threads [--pid PID] [--name REGEX] [--set POLICY] [--pin CPUS]
                     [--apply] [--save FILE]
       rtlat threads [--set POLICY] [--pin CPUS] --tid TID [--set POLICY] [--pin CPUS]
                     [--tid TID ...] [--apply] [--save FILE]
       rtlat threads --restore FILE

Lists threads (like `ps -eLo pid,tid,psr,cls,rtprio,ni,comm` plus affinity): process and
thread id, the CPU it last ran on, policy, real-time priority, nice value, the CPUs it may
run on, process and thread name. Or changes threads' scheduling and CPUs (what `chrt -p` and
`taskset -p` do), e.g. a QEMU guest's vCPU threads (QEMU started with
`-name NAME,debug-threads=on` names them `CPU 0/KVM`, `CPU 1/KVM`, ..., `CPU 0/TCG` without
KVM):

  rtlat threads --name qemu-system               # list the guests' threads
  rtlat threads --name 'CPU [0-9]+/' --set fifo:98 --pin 2 --apply
  rtlat threads --pid 4100 --name 'CPU [0-9]+/' --set fifo:98 --pin 2-3 --apply
  rtlat threads --tid 4101 --set fifo:98 --pin 2 --tid 4102 --set fifo:95 --pin 3 --apply
  rtlat threads --restore rtlat-threads-restore-20260320T094640Z-4242.json

The second changes the vCPU threads of every QEMU; the third only those of process 4100.

Listing:
{listing}
Changing (a dry run unless --apply) the threads --pid/--name select, or those --tid names:
{changing}
The threads --pid/--name select are found once, when the command starts, and printed one
change a line (the dry run stops there); rtlat's own threads are never selected, and a
selection that matches no thread is refused (status 2, nothing changed). A thread is changed
only while it is still the one selected or named (its process and start time): one that
ends before its change makes the whole command undone and refused (status 2; run it again).

Changing another user's thread, real-time priorities above `ulimit -r` and nice values
below `20 - ulimit -e` need CAP_SYS_NICE (root); a change you could make but not undo (e.g.
raising your own thread's nice value) is refused. The reset-on-fork flag is kept, and
restored. A restore file is refused as a whole if a thread's id now names another thread
(process PID has a thread TID again, of another name or start time). A thread that is gone
(process PID has no thread TID any more: it ended, or QEMU exited when the guest powered
off) is listed `gone, nothing to restore`, its settings having ended with it, and the
others are restored (status 0).
",
        listing = rtlat::options::help::options(LISTING, HELP_COLUMN),
        changing = rtlat::options::help::options(CHANGING, HELP_COLUMN),
    )
}

/// The column the usage's option help starts at.
const HELP_COLUMN: usize = 19;

// Each option defined once (names, value, what it accepts); its help is per section, as
// `--pid`, `--name` and `--tid` select threads differently for listing and for changing.
const PID: Spec = Spec::new("--pid").long("pid").value("PID", "a process id");
const NAME: Spec = Spec::new("--name")
    .long("name")
    .value("REGEX", "a name pattern such as qemu-system");
const TID: Spec = Spec::new("--tid")
    .long("tid")
    .value("TID", "a thread id (`rtlat threads` lists them)");
const SET: Spec = Spec::new("--set")
    .long("set")
    .value("POLICY", SCHED_REQUEST_SYNTAX);
const PIN: Spec = Spec::new("--pin")
    .long("pin")
    .value("CPUS", "a CPU list such as 3 or 2-3");
const JSON: Spec = Spec::new("--json").long("json");

/// The options, as the command line is read.
pub const SPECS: &[Spec] = &[
    PID, NAME, TID, SET, PIN, JSON, ROOT, APPLY, SAVE, RESTORE, HELP,
];

/// The usage's "Listing" lines.
const LISTING: &[Spec] = &[
    PID.help("the threads of one process"),
    NAME.help(
        "the threads whose process or thread name matches the regular expression\n\
         (anywhere unless anchored; the Rust regex crate's syntax, matched in\n\
         linear time; e.g. qemu-system, '^CPU [0-9]+/KVM$')",
    ),
    TID.help("these threads (repeatable)"),
    JSON.help("print a JSON array instead of the table"),
    ROOT.help("read /proc under DIR (default /)"),
];

/// The usage's "Changing" lines.
const CHANGING: &[Spec] = &[
    PID.help("every thread of process PID (with --name: those of them it matches)"),
    NAME.help(
        "every thread whose THREAD name matches (for a change the process name\n\
         is not matched, as it is when listing: `--name qemu-system` would select\n\
         QEMU's main and unnamed threads, not its vCPU threads `CPU N/KVM`)",
    ),
    TID.help(
        "a thread to change (repeatable; `--set`/`--pin` after it are its own,\n\
         before the first --tid they apply to every thread; not with --pid/--name)",
    ),
    SET.help(
        "fifo:N or rr:N (N 1..99), other[:NICE] or batch[:NICE] (NICE -20..19),\n\
         or idle",
    ),
    PIN.help("the CPUs it may run on, e.g. 3 or 2-3"),
    APPLY,
    SAVE.help(
        "where --apply saves what it changed (default:\n\
         ./rtlat-threads-restore-DATE-PID.json; an existing file is refused)",
    ),
    RESTORE.help("undo the changes FILE records"),
    HELP,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_names_every_option_from_its_one_definition() {
        let usage = usage();
        for spec in SPECS {
            let names = rtlat::options::help::names(spec);
            assert!(usage.contains(&format!("\n  {names} ")), "{names}");
            // In the help, each option is the one the command line reads (only its help
            // differs between the sections).
            for shown in LISTING.iter().chain(CHANGING).filter(|s| s.id == spec.id) {
                assert_eq!(
                    (shown.long, shown.short, shown.value_name, shown.expected),
                    (spec.long, spec.short, spec.value_name, spec.expected)
                );
            }
        }
        for shown in LISTING.iter().chain(CHANGING) {
            assert!(SPECS.iter().any(|s| s.id == shown.id), "{}", shown.id);
            assert!(!shown.help.is_empty(), "{}", shown.id);
        }
    }
}
