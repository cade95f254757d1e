#!/usr/bin/env bash
# User-space instructions per cycle of `rtlat run --timerlat` beside a plain `rtlat run`, in
# Debian's 6.12 PREEMPT_RT kernel under QEMU (TCG), where timerlat_fd makes rtlat's measuring
# thread the tracer's workload: the figure issue 24 asks for. The host kernel has no timerlat
# tracer, so the figure can only come from the guest; callgrind counts instructions, which
# the emulator does not change (its latencies are noise, its instruction counts are not).
#
# Each mode runs `rtlat run -t 1 -a 1 -p 80 -i 10000 -q [--timerlat]` under callgrind with
# -l 200 and -l 1200 (tests/rt_guest/guest/suites/callgrind.sh); per thread, the difference
# of the Ir over the 1000 extra cycles is its cost per cycle. A release build, as
# benches/vs-cyclictest.sh measures. Takes about 10 minutes (the release build, then the
# guest); needs what the guest tests need (README, "Testing") and valgrind.
#
# Usage: benches/timerlat-callgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "timerlat-callgrind: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
RTLAT_GUEST=required RTLAT_GUEST_VALGRIND=1 \
  cargo test --release --test tests rt_guest::x86::timerlat_costs_per_cycle_under_callgrind \
  -- --ignored --nocapture 2>&1 | grep -E -A1 "callgrind|test result|panicked|FAILED"
