#!/bin/sh
# /init of rtlat's throw-away test guest (tests/rt_guest): a busybox initramfs on one of
# Debian's PREEMPT_RT kernels under QEMU. It mounts what rtlat reads, runs the suite named by
# `rtlat.suite=NAME` on the kernel command line (guest/suites/NAME.sh), sends every result to
# the host framed in hex (guest/lib.sh), and powers off. Nothing here persists.
export PATH=/usr/bin:/usr/sbin:/bin:/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
# Kernel messages stay off the console: on arm64 the results share it (one UART).
echo 1 >/proc/sys/kernel/printk
cd /tmp || exit 1
. /guest/lib.sh
suite=$(sed -n 's/.*rtlat\.suite=\([^ ]*\).*/\1/p' /proc/cmdline)
emit_text guest.uname "$(uname -a)"
emit_text guest.cmdline "$(cat /proc/cmdline)"
emit_text guest.uptime_at_init "$(cut -d' ' -f1 /proc/uptime)"
if [ -f "/guest/suites/$suite.sh" ]; then
  . "/guest/suites/$suite.sh"
else
  emit_text guest.error "no suite '$suite' in /guest/suites"
fi
emit_text guest.uptime_at_end "$(cut -d' ' -f1 /proc/uptime)"
finish
