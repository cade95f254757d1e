//! Real kernels in the loop (issue 22): Debian's PREEMPT_RT kernels booted under QEMU with a
//! throw-away initramfs, rtlat run inside them beside the real cyclictest and rtla.
//!
//! | module        | the guest                                  | what it checks |
//! |---------------|--------------------------------------------|----------------|
//! | [`x86`]       | x86_64 6.12 and 6.1 RT, CPU 1 isolated     | every front measures on the isolated CPU; the osnoise tracer's files read; a FIFO hog named first, the idle task never (run, and servo above its thread); the trace kept on `-b`; tracefs restored; the audit of a real RT kernel and its suggested line booted on the other kernel; cyclictest and rtlat side by side; rtla timerlat beside rtlat; hwnoise with the hwlat tracer; run --timerlat (timerlat_fd on 6.12, the tracer's threads on 6.1) alone and under a hog; rtlat servo and monitor --timerlat; in a boot of its own (6.12, TCG on one host thread), ten rtla/rtlat pairs under the same hog |
//! | [`protocol`]  | x86_64 6.12 RT, twice                      | the tuning protocol end to end: untuned guest measured; QEMU's vCPU threads made SCHED_FIFO and pinned on the host; the guest rebooted with CPU 1 isolated, IRQs moved inside it; measured; compared and plotted; every change on both sides undone |
//! | [`smi`]       | x86_64 6.1 RT on an Intel CPU model, CPU 1 isolated, the msr driver loaded | cyclictest and rtlat `--smi` while the guest raises five SMIs on CPU 0 (QEMU's first CPU): the `T:`, `-v` and `-h` lines and rtlat's JSON count them alike; without the driver both end alike |
//! | [`tune`]      | x86_64 6.12 RT booted with the line `rtlat tune apply --persist` wrote into GRUB's drop-in | the profile verified, applied, verified clean, drifted (an IRQ back on CPU 1, a thread's priority lost) and verified again, the apply undone |
//! | [`arm64`]     | arm64 6.1 RT on `virt`, 4 CPUs, CPU 1 isolated | rtlat's static aarch64 build on the generic timer (`--clock cntvct`) on the isolated CPU, the audit, the `bubblegum96` profile's idle and loaded runs and their comparison |
//!
//! # What it needs, and what happens without it
//!
//! `qemu-system-x86` (and `qemu-system-arm` for arm64), `busybox-static`, `rt-tests`,
//! `rtla`, `util-linux` (chrt, taskset) and `libc-bin` (ldd) on a Debian host, root, and
//! network access the first time: the kernels are fetched by `fetch-kernels.sh` (`apt-get
//! download`, only `/boot` kept) into `target/tmp/rt-guest/` (or `RTLAT_GUEST_CACHE`), by
//! `.ci/run` or by the first test that needs them. The arm64 guest runs the static
//! `--profile board` build for `aarch64-unknown-linux-musl`, which `.ci/run` builds before
//! the tests (a test builds it into its own target directory when it is missing).
//!
//! A test whose guest cannot run says so on the terminal (`NOT RUN: …`, past the test
//! harness's capture) and passes; with `RTLAT_GUEST=required` (as `.ci/run` sets it) it fails
//! instead, so that CI never counts a guest test it did not run. `RTLAT_GUEST=off` skips them
//! all, each saying so.
//!
//! # What it proves, and what it does not
//!
//! The kernels, their tracers (osnoise, timerlat), `isolcpus=`/`nohz_full=`/`rcu_nocbs=`,
//! `/proc` and `/sys` are the real ones: behaviour, files, CPUs, restores and the agreement of
//! rtlat with cyclictest and rtla are tested for real. QEMU runs under TCG here (this
//! machine's KVM is nested and cannot run the guest: the probe in `machine.rs` takes KVM
//! only where a guest boots under it): the latencies it shows are emulation noise (tens of
//! µs to ms), so no test asserts a latency's size except where a 300 ms hog makes the
//! spike. Nothing here measures how good a real-time machine is; `rtlat run` on the machine
//! itself does.

mod arm64;
mod initramfs;
mod machine;
mod protocol;
mod smi;
mod tune;
mod x86;
