#!/usr/bin/env python3
"""Builds the hand-made trees hp-t630/ and dell-optiplex-755/ from the real capture vm-2cpu/
and the real kernel command lines in cmdline/. See README.md for what is real and what is not.

Run from anywhere: python3 rtlat-system/tests/data/construct-trees.py
It rewrites both trees from scratch; the output is deterministic.
"""

import os
import re
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
VM = os.path.join(HERE, "vm-2cpu")

# Real stat lines of this capture, used as templates (fields we do not set stay as captured).
USER_TEMPLATE = ("proc/1/stat", "proc/1/status")  # process_api, PID 1 of the VM
KTHREAD_TEMPLATE = ("proc/14/stat", "proc/2/status")  # ksoftirqd/0, kthreadd

PF_KTHREAD = 0x00200000
SCHED = {"other": 0, "fifo": 1, "rr": 2}


def read(rel):
    with open(os.path.join(VM, rel)) as f:
        return f.read()


def write(tree, rel, text):
    path = os.path.join(HERE, tree, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def copy(tree, rel):
    write(tree, rel, read(rel))


def mask(cpus):
    bits = 0
    for cpu in cpus:
        bits |= 1 << cpu
    return format(bits, "x")


def cpu_list(cpus):
    cpus = sorted(cpus)
    runs, start = [], None
    for i, cpu in enumerate(cpus):
        if start is None:
            start = cpu
        if i + 1 == len(cpus) or cpus[i + 1] != cpu + 1:
            runs.append(str(start) if start == cpu else f"{start}-{cpu}")
            start = None
    return ",".join(runs)


def stat_line(template, pid, comm, state, ppid, kthread, nice, threads, cpu, policy, rt_prio):
    """A stat line from a real one: fields 1-4, 9, 18-20, 39-41 replaced."""
    close = template.rindex(")")
    fields = template[close + 2 :].split()  # fields[0] is field 3
    fields[0] = state
    fields[1] = str(ppid)
    flags = int(fields[9 - 3])
    flags = flags | PF_KTHREAD if kthread else flags & ~PF_KTHREAD
    fields[9 - 3] = str(flags)
    fields[18 - 3] = str(-(rt_prio + 1) if rt_prio else 20 + nice)
    fields[19 - 3] = str(nice)
    fields[20 - 3] = str(threads)
    fields[39 - 3] = str(cpu)
    fields[40 - 3] = str(rt_prio)
    fields[41 - 3] = str(SCHED[policy])
    return f"{pid} ({comm}) " + " ".join(fields) + "\n"


STATES = {"S": "S (sleeping)", "R": "R (running)", "I": "I (idle)"}


def status_text(template, name, state, tgid, pid, ppid, kthread, threads, allowed):
    values = {
        "Name": name,
        "State": STATES[state],
        "Tgid": str(tgid),
        "Pid": str(pid),
        "PPid": str(ppid),
        "NStgid": str(tgid),
        "NSpid": str(pid),
        "Kthread": "1" if kthread else "0",
        "Threads": str(threads),
        "Cpus_allowed": mask(allowed),
        "Cpus_allowed_list": cpu_list(allowed),
    }
    lines = []
    for line in template.splitlines():
        key = line.split(":", 1)[0]
        lines.append(f"{key}:\t{values[key]}" if key in values else line)
    return "\n".join(lines) + "\n"


def process(tree, pid, ppid, threads, kthread=False):
    """threads: [(tid, comm, state, cpu, policy, rt_prio, nice, allowed)], main thread first."""
    stat_t, status_t = KTHREAD_TEMPLATE if kthread else USER_TEMPLATE
    stat_t, status_t = read(stat_t), read(status_t)
    for index, (tid, comm, state, cpu, policy, rt_prio, nice, allowed) in enumerate(threads):
        stat = stat_line(stat_t, tid, comm, state, ppid, kthread, nice, len(threads), cpu, policy, rt_prio)
        status = status_text(status_t, comm, state, pid, tid, ppid, kthread, len(threads), allowed)
        write(tree, f"proc/{pid}/task/{tid}/stat", stat)
        write(tree, f"proc/{pid}/task/{tid}/status", status)
        if index == 0:
            write(tree, f"proc/{pid}/stat", stat)
            write(tree, f"proc/{pid}/status", status)


def kthread(tree, pid, comm, cpu, policy="other", rt_prio=0, nice=0, allowed=None, state="S"):
    ppid = 0 if pid == 2 else 2
    allowed = [cpu] if allowed is None else allowed
    process(tree, pid, ppid, [(pid, comm, state, cpu, policy, rt_prio, nice, allowed)], kthread=True)


def interrupts(tree, cpus, rows, loc):
    """rows: [(irq, counts, description)]"""
    width = 10
    out = "           " + "".join(f"CPU{c:<8}" for c in range(cpus)) + "\n"
    for irq, counts, description in rows:
        out += f"{irq:>4}: " + " ".join(f"{n:>{width}}" for n in counts) + f"   {description}\n"
    fixed = [
        ("NMI", [0] * cpus, "Non-maskable interrupts"),
        ("LOC", loc, "Local timer interrupts"),
        ("RES", [512 * (c + 1) for c in range(cpus)], "Rescheduling interrupts"),
        ("CAL", [2048 - 300 * c for c in range(cpus)], "Function call interrupts"),
        ("TLB", [901 - 200 * c for c in range(cpus)], "TLB shootdowns"),
    ]
    for label, counts, description in fixed:
        out += f"{label:>4}: " + " ".join(f"{n:>{width}}" for n in counts) + f"   {description}\n"
    out += " ERR:          0\n MIS:          0\n"
    write(tree, "proc/interrupts", out)


def irq(tree, number, affinity, effective):
    write(tree, f"proc/irq/{number}/smp_affinity_list", cpu_list(affinity) + "\n")
    write(tree, f"proc/irq/{number}/effective_affinity_list", cpu_list(effective) + "\n")


def cpufreq(tree, cpu, driver, governor, freqs, cur, scaling_min=None, scaling_max=None):
    d = f"sys/devices/system/cpu/cpu{cpu}/cpufreq/"
    write(tree, d + "scaling_driver", driver + "\n")
    write(tree, d + "scaling_governor", governor + "\n")
    write(tree, d + "scaling_available_governors", "conservative ondemand userspace powersave performance schedutil \n")
    write(tree, d + "scaling_available_frequencies", " ".join(map(str, freqs)) + " \n")
    write(tree, d + "cpuinfo_min_freq", f"{min(freqs)}\n")
    write(tree, d + "cpuinfo_max_freq", f"{max(freqs)}\n")
    write(tree, d + "scaling_min_freq", f"{scaling_min or min(freqs)}\n")
    write(tree, d + "scaling_max_freq", f"{scaling_max or max(freqs)}\n")
    write(tree, d + "scaling_cur_freq", f"{cur}\n")
    write(tree, d + "related_cpus", f"{cpu}\n")


def bare_metal(tree, vendor_id, model, flags, ncpus, dmi_vendor, dmi_product, stat_rows):
    """What says a machine is bare metal: /proc/cpuinfo without the `hypervisor` flag (one
    package), the DMI vendor and product of the real machine, /proc/stat with no steal time."""
    blocks = []
    for cpu in range(ncpus):
        blocks.append(
            f"processor\t: {cpu}\nvendor_id\t: {vendor_id}\nmodel name\t: {model}\n"
            f"physical id\t: 0\ncore id\t\t: {cpu}\ncpu cores\t: {ncpus}\nflags\t\t: {flags}\n"
        )
    write(tree, "proc/cpuinfo", "\n".join(blocks) + "\n")
    write(tree, "sys/class/dmi/id/sys_vendor", dmi_vendor + "\n")
    write(tree, "sys/class/dmi/id/product_name", dmi_product + "\n")
    total = [sum(col) for col in zip(*stat_rows)]
    lines = ["cpu  " + " ".join(map(str, total))]
    lines += [f"cpu{cpu} " + " ".join(map(str, row)) for cpu, row in enumerate(stat_rows)]
    write(tree, "proc/stat", "\n".join(lines) + "\nintr 0\nctxt 0\n")


# The flags Linux 6.1 shows for these CPUs: an AMD GX-420GI (Puma: constant, nonstop TSC,
# no TSC_ADJUST) and an Intel Core 2 Duo E6550 (constant TSC that stops in deep C-states).
GX420_FLAGS = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
    "sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good acc_power nopl "
    "nonstop_tsc cpuid extd_apicid aperfmperf pni pclmulqdq monitor ssse3 cx16 sse4_1 sse4_2 movbe "
    "popcnt aes xsave avx f16c lahf_lm cmp_legacy svm extapic cr8_legacy abm sse4a misalignsse "
    "3dnowprefetch osvw ibs skinit wdt topoext perfctr_nb bpext ptsc perfctr_llc cpb hw_pstate ssbd "
    "vmmcall bmi1 xsaveopt arat npt lbrv svm_lock nrip_save tsc_scale flushbyasid decodeassists "
    "pausefilter pfthreshold overflow_recov"
)
E6550_FLAGS = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx "
    "fxsr sse sse2 ss ht tm pbe syscall nx lm constant_tsc arch_perfmon pebs bts rep_good nopl cpuid "
    "aperfmperf pni dtes64 monitor ds_cpl vmx smx est tm2 ssse3 cx16 xtpr pdcm lahf_lm pti "
    "tpr_shadow vnmi flexpriority vpid dtherm"
)


def common(tree, cmdline, osrelease, version, ncpus, isolated):
    shutil.rmtree(os.path.join(HERE, tree), ignore_errors=True)
    with open(os.path.join(HERE, "cmdline", cmdline)) as f:
        write(tree, "proc/cmdline", f.read())
    write(tree, "proc/sys/kernel/osrelease", osrelease + "\n")
    write(tree, "proc/sys/kernel/version", version + "\n")
    write(
        tree,
        "proc/version",
        f"Linux version {osrelease} (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, "
        f"GNU ld (GNU Binutils for Debian) 2.40) {version}\n",
    )
    cpus = "0" if ncpus == 1 else f"0-{ncpus - 1}"
    write(tree, "sys/devices/system/cpu/online", cpus + "\n")
    write(tree, "sys/devices/system/cpu/possible", cpus + "\n")
    write(tree, "sys/devices/system/cpu/isolated", cpu_list(isolated) + "\n")
    write(tree, "sys/devices/system/cpu/nohz_full", cpu_list(isolated) + "\n")
    # cpuidle.off=1 on both lines: no cpuidle directories at all.
    write(tree, "sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n")
    write(tree, "sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet acpi_pm \n")
    write(tree, "sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n")
    copy(tree, "sys/kernel/mm/transparent_hugepage/defrag")
    copy(tree, "sys/kernel/mm/ksm/run")
    copy(tree, "proc/sys/kernel/sched_rt_period_us")
    copy(tree, "proc/sys/kernel/nmi_watchdog")
    copy(tree, "proc/sys/kernel/watchdog")
    housekeeping = [c for c in range(ncpus) if c not in isolated]
    write(tree, "proc/sys/kernel/watchdog_cpumask", cpu_list(housekeeping) + "\n")


def hp_t630():
    t = "hp-t630"
    common(t, "hp-t630.txt", "6.1.0-18-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)", 4, [3])
    bare_metal(t, "AuthenticAMD", "AMD GX-420GI SOC with Radeon(TM) R7E Graphics", GX420_FLAGS, 4,
               "HP", "HP t630 Thin Client",
               [[51210, 0, 9033, 1702154, 310, 0, 201, 0], [48100, 0, 8612, 1707001, 288, 0, 187, 0],
                [47512, 0, 8420, 1708004, 301, 0, 190, 0], [1765503, 0, 412, 1014, 0, 0, 3, 0]])
    for cpu, cur in enumerate([1200000, 1600000, 1200000, 2000000]):
        cpufreq(t, cpu, "acpi-cpufreq", "ondemand", [2000000, 1800000, 1600000, 1200000], cur)
    write(t, "proc/sys/kernel/sched_rt_runtime_us", "950000\n")
    write(t, "proc/sys/kernel/timer_migration", "1\n")
    write(t, "proc/sys/kernel/soft_watchdog", "0\n")  # nosoftlockup
    write(t, "proc/swaps", read("proc/swaps") + "/dev/sda3                               partition\t2097148\t\t0\t\t-2\n")
    write(t, "sys/devices/virtual/workqueue/cpumask", "f\n")
    write(t, "proc/irq/default_smp_affinity", "f\n")
    all4, hk = [0, 1, 2, 3], [0, 1, 2]
    rows = [
        (0, [38, 0, 0, 0], "IO-APIC   2-edge      timer", all4, [0]),
        (1, [0, 9, 0, 0], "IO-APIC   1-edge      i8042", all4, [1]),
        (8, [0, 0, 1, 0], "IO-APIC   8-edge      rtc0", all4, [2]),
        (9, [0, 0, 0, 0], "IO-APIC   9-fasteoi   acpi", all4, [0]),
        (16, [3571, 0, 0, 0], "IO-APIC  16-fasteoi   ehci_hcd:usb1", all4, [0]),
        (18, [0, 1420, 0, 0], "IO-APIC  18-fasteoi   ohci_hcd:usb2, ohci_hcd:usb3", all4, [1]),
        (25, [14210, 0, 0, 0], "PCI-MSI 512000-edge      ahci[0000:00:11.0]", all4, [0]),
        (26, [0, 0, 0, 98231], "PCI-MSI 1048576-edge      enp1s0", all4, [3]),
        (27, [0, 312, 0, 0], "PCI-MSI 442368-edge      snd_hda_intel:card0", all4, [1]),
        (28, [0, 0, 977, 0], "PCI-MSI 2097152-edge      xhci_hcd", hk, [2]),
    ]
    interrupts(t, 4, [(n, c, d) for n, c, d, _, _ in rows], [301877, 288410, 297655, 1012])
    for n, _, _, affinity, effective in rows:
        irq(t, n, affinity, effective)
    process(t, 1, 0, [(1, "systemd", "S", 1, "other", 0, 0, hk)])
    kthread(t, 2, "kthreadd", 0, allowed=all4)
    kthread(t, 15, "rcu_preempt", 1, allowed=hk, state="I")
    kthread(t, 29, "migration/3", 3, "fifo", 99)
    kthread(t, 30, "ksoftirqd/3", 3)
    kthread(t, 40, "kworker/3:1", 3, state="I")
    process(t, 512, 1, [(512, "irqbalance", "S", 1, "other", 0, 0, hk)])
    process(
        t,
        1200,
        1,
        [
            (1200, "servo", "S", 0, "other", 0, 0, hk),
            (1201, "servo-rt", "R", 3, "fifo", 80, 0, [3]),
        ],
    )


def dell_optiplex_755():
    t = "dell-optiplex-755"
    common(t, "dell-optiplex-755.txt", "6.1.0-18-rt-amd64", "#1 SMP PREEMPT_RT Debian 6.1.76-1 (2024-02-01)", 2, [1])
    write(t, "sys/kernel/realtime", "1\n")
    bare_metal(t, "GenuineIntel", "Intel(R) Core(TM)2 Duo CPU     E6550  @ 2.33GHz", E6550_FLAGS, 2,
               "Dell Inc.", "OptiPlex 755",
               [[60112, 0, 10230, 880412, 1203, 0, 310, 0], [902113, 0, 210, 49012, 0, 0, 12, 0]])
    for cpu in range(2):
        cpufreq(t, cpu, "acpi-cpufreq", "performance", [2333000, 2000000], 2333000, scaling_min=2333000)
    write(t, "proc/sys/kernel/sched_rt_runtime_us", "-1\n")
    write(t, "proc/sys/kernel/timer_migration", "0\n")
    copy(t, "proc/sys/kernel/soft_watchdog")
    copy(t, "proc/swaps")  # the header only: no swap
    write(t, "sys/devices/virtual/workqueue/cpumask", "1\n")
    write(t, "proc/irq/default_smp_affinity", "1\n")
    rows = [
        (0, [41, 0], "IO-APIC   2-edge      timer", [0, 1], [0]),
        (1, [9, 0], "IO-APIC   1-edge      i8042", [0], [0]),
        (8, [1, 0], "IO-APIC   8-edge      rtc0", [0], [0]),
        (9, [0, 0], "IO-APIC   9-fasteoi   acpi", [0], [0]),
        (16, [2210, 0], "IO-APIC  16-fasteoi   uhci_hcd:usb3", [0], [0]),
        (19, [18934, 0], "IO-APIC  19-fasteoi   ata_piix, uhci_hcd:usb6", [0], [0]),
        (24, [30128, 0], "PCI-MSI 512000-edge      eno1", [0], [0]),
    ]
    interrupts(t, 2, [(n, c, d) for n, c, d, _, _ in rows], [288113, 1409])
    for n, _, _, affinity, effective in rows:
        irq(t, n, affinity, effective)
    both = [0, 1]
    process(t, 1, 0, [(1, "systemd", "S", 0, "other", 0, 0, [0])])
    kthread(t, 2, "kthreadd", 0, allowed=both)
    kthread(t, 15, "rcu_preempt", 0, "fifo", 1, allowed=[0])
    kthread(t, 21, "migration/1", 1, "fifo", 99)
    kthread(t, 22, "rcuc/1", 1, "fifo", 1)
    kthread(t, 23, "ktimers/1", 1, "fifo", 1)
    kthread(t, 24, "ksoftirqd/1", 1)
    kthread(t, 120, "irq/24-eno1", 0, "fifo", 50, allowed=[0])
    process(
        t,
        1500,
        1,
        [
            (1500, "cyclictest", "S", 0, "other", 0, 0, [0]),
            (1501, "cyclictest", "S", 1, "fifo", 95, 0, [1]),
        ],
    )


hp_t630()
dell_optiplex_755()
