#!/usr/bin/env bash
# Builds the firmware (release) and runs it under qemu-system-arm (-M mps2-an386, semihosting),
# bounded in time, then checks what it printed: structure, counts, Min <= Avg <= Max, the jitter
# formula. Never timing: QEMU does not model it. Exits non-zero on any failure.
#
# Five runs:
#   monitor    the default build: 10 T: and J: lines (cumulative), then "# end"; QEMU exits 0
#   histogram  --features histogram: the same plus 10 H: lines (lateness percentiles)
#   plain      --features plain-monitor: the monitor build with the plain JitterMonitor
#   frozen     --features dwt-clock: time from the DWT cycle counter, which QEMU does not emulate
#              (CYCCNT reads 0); the firmware must refuse it: an "error:" line and exit status 1
#   delay      --no-default-features --features delay: how late cortex-m's SysTick Delay wakes
#              from delay_us(100), by rtlat-core's DelayProbe: 10 D: lines (cumulative), "# end"
#
# Needs (installs nothing): qemu-system-arm (Debian: apt-get install qemu-system-arm) and the
# target (rustup target add thumbv7em-none-eabihf). TIMEOUT (seconds per run, default 60).
set -euo pipefail
cd "$(dirname "$0")"
# The firmware's own target directory (.cargo/config.toml): a CARGO_TARGET_DIR meant for the host
# workspace would override it.
unset CARGO_TARGET_DIR
timeout_s=${TIMEOUT:-60}
out=target/run-qemu
mkdir -p "$out"
elf=target/thumbv7em-none-eabihf/release/rtlat-firmware

[ "${1:-}" = --check ] || command -v qemu-system-arm >/dev/null || { echo "run-qemu.sh: qemu-system-arm is missing (apt-get install qemu-system-arm)" >&2; exit 1; }

failures=0
fail() { echo "FAIL ($1): $2" >&2; failures=$((failures + 1)); }

# run NAME [cargo features...]: builds, runs under QEMU; sets $log and $status.
run() {
  local name=$1; shift
  cargo build --release --quiet "$@"
  cp "$elf" "$out/$name.elf"
  log=$out/$name.log
  status=0
  timeout "$timeout_s" qemu-system-arm -M mps2-an386 -cpu cortex-m4 -nographic -monitor none \
    -serial none -semihosting-config enable=on,target=native -kernel "$out/$name.elf" \
    >"$log" 2>"$out/$name.stderr" || status=$?
  echo "== $name: exit status $status, $(wc -l <"$log") lines ($log)"
  sed 's/^/   /' "$log"
}

# check_lines NAME HISTOGRAM(0|1): the awk program prints one "error: ..." per broken rule.
check_lines() {
  local name=$1 histogram=$2 errors
  errors=$(awk -v lines=10 -v per_line=100 -v histogram="$histogram" '
    function err(m) { print "error: line " NR ": " m; bad = 1 }
    NR == 1 {
      if ($0 !~ /^# rtlat firmware: mps2-an386, SysTick every 25000 cycles, time source CMSDK TIMER0 at 25000000 Hz$/) err("header: " $0)
      next
    }
    /^# histogram: [0-9]+ bytes$/ { hist_header = 1; next }
    /^T:/ {
      if ($0 !~ /^T: 0 \(    0\) P: 0 I:[0-9]+ C: *[0-9]+ Min: *-?[0-9]+ Act: *-?[0-9]+ Avg: *-?[0-9]+ Max: *-?[0-9]+$/) { err("T: line: " $0); next }
      t++
      line = $0; gsub(/[A-Za-z]+:/, " & ", line); n = split(line, f, " +")
      # f: T: 0 (....) P: 0 I: n C: n Min: n Act: n Avg: n Max: n
      for (i = 1; i < n; i++) v[f[i]] = f[i + 1]
      interval_us = v["I:"] + 0; c = v["C:"] + 0
      min = v["Min:"] + 0; act = v["Act:"] + 0; avg = v["Avg:"] + 0; max = v["Max:"] + 0
      if (interval_us != 1000) err("I: is " interval_us ", not 1000 us")
      if (c < t * per_line) err("C: " c " < " t * per_line " (report " t " comes after " t * per_line " interrupts)")
      if (c <= last_c) err("C: " c " does not increase (" last_c " before)")
      if (!(min <= avg && avg <= max)) err("not Min <= Avg <= Max: " min " " avg " " max)
      if (!(min <= act && act <= max)) err("not Min <= Act <= Max: " min " " act " " max)
      if (t > 1 && (min > last_min || max < last_max)) err("cumulative Min/Max moved back: " last_min "/" last_max " then " min "/" max)
      last_c = c; last_min = min; last_max = max; t_c = c
      next
    }
    /^J:/ {
      if ($0 !~ /^J: 0 I:[0-9]+ C: *[0-9]+ MinI: *[0-9]+ MaxI: *[0-9]+ Jitter: *[0-9]+ Overruns: *[0-9]+$/) { err("J: line: " $0); next }
      j++
      line = $0; gsub(/[A-Za-z]+:/, " & ", line); n = split(line, f, " +")
      for (i = 1; i < n; i++) v[f[i]] = f[i + 1]
      period = v["I:"] * 1000; c = v["C:"] + 0; lo = v["MinI:"] + 0; hi = v["MaxI:"] + 0
      jitter = v["Jitter:"] + 0; overruns = v["Overruns:"] + 0
      if (j != t) err("J: line " j " does not follow T: line " t)
      if (period != interval_us * 1000) err("J: I:" period / 1000 " differs from T: I:" interval_us)
      if (c != t_c) err("J: C:" c " differs from its T: line C:" t_c " (one report)")
      if (lo > hi) err("MinI " lo " > MaxI " hi)
      expected = hi - period; if (period - lo > expected) expected = period - lo
      if (jitter != expected) err("Jitter " jitter " != max(MaxI - period, period - MinI) = " expected)
      if (overruns < last_overruns) err("Overruns went down: " last_overruns " then " overruns)
      last_overruns = overruns
      next
    }
    /^H:/ {
      if ($0 !~ /^H: 0 C: *[0-9]+ P50: *-?[0-9]+ P90: *-?[0-9]+ P99: *-?[0-9]+ P99\.9: *-?[0-9]+$/) { err("H: line: " $0); next }
      h++
      line = $0; gsub(/[A-Za-z0-9.]+:/, " & ", line); n = split(line, f, " +")
      for (i = 1; i < n; i++) v[f[i]] = f[i + 1]
      c = v["C:"] + 0; p50 = v["P50:"] + 0; p90 = v["P90:"] + 0; p99 = v["P99:"] + 0; p999 = v["P99.9:"] + 0
      if (h != t) err("H: line " h " does not follow T: line " t)
      if (c < t_c) err("H: C:" c " < T: C:" t_c " (the histogram is read after the monitor)")
      if (!(p50 <= p90 && p90 <= p99 && p99 <= p999)) err("percentiles out of order: " p50 " " p90 " " p99 " " p999)
      # Same samples (no interrupt in between): the percentiles lie within [Min, Max].
      if (c == t_c && (p50 < last_min || p999 > last_max)) err("percentiles outside [Min, Max] = [" last_min ", " last_max "]")
      next
    }
    /^# end: [0-9]+ lines$/ { end = NR; ended = $3 + 0; next }
    { err("unexpected line: " $0) }
    END {
      if (NR == 0) err("no output")
      if (t != lines) err(t " T: lines, expected " lines)
      if (j != lines) err(j " J: lines, expected " lines)
      if (histogram && (h != lines || !hist_header)) err(h " H: lines (and histogram header " hist_header + 0 "), expected " lines)
      if (!histogram && (h || hist_header)) err("H: lines without the histogram feature")
      if (!end || end != NR || ended != lines) err("no final \"# end: " lines " lines\" as the last line")
    }' "$log")
  if [ -n "$errors" ]; then fail "$name" "$errors"; fi
}

# check_delay NAME: the delay build's lines, as check_lines does for the monitor's.
check_delay() {
  local name=$1 errors
  errors=$(awk -v lines=10 -v per_line=100 '
    function err(m) { print "error: line " NR ": " m; bad = 1 }
    NR == 1 {
      if ($0 !~ /^# rtlat firmware: mps2-an386, delay_us\(100\) by cortex-m.s SysTick Delay, time source CMSDK TIMER0 at 25000000 Hz$/) err("header: " $0)
      next
    }
    /^D:/ {
      if ($0 !~ /^D: delay_us\(100\) C: *[0-9]+ Min: *-?[0-9]+ Avg: *-?[0-9]+ P50: *-?[0-9]+ P99: *-?[0-9]+ Max: *-?[0-9]+$/) { err("D: line: " $0); next }
      d++
      line = $0; sub(/^D: delay_us\(100\)/, "", line); gsub(/[A-Za-z0-9]+:/, " & ", line); n = split(line, f, " +")
      for (i = 1; i < n; i++) v[f[i]] = f[i + 1]
      c = v["C:"] + 0; min = v["Min:"] + 0; avg = v["Avg:"] + 0; max = v["Max:"] + 0
      p50 = v["P50:"] + 0; p99 = v["P99:"] + 0
      if (c != d * per_line) err("C: " c ", expected " d * per_line " (cumulative, " per_line " delays a line)")
      if (!(min <= avg && avg <= max)) err("not Min <= Avg <= Max: " min " " avg " " max)
      if (p50 != 0 && p99 != 0 && p50 > p99) err("P50 " p50 " > P99 " p99)
      if (d > 1 && (min > last_min || max < last_max)) err("cumulative Min/Max moved back: " last_min "/" last_max " then " min "/" max)
      last_min = min; last_max = max
      next
    }
    /^# end: [0-9]+ lines$/ { end = NR; ended = $3 + 0; next }
    { err("unexpected line: " $0) }
    END {
      if (NR == 0) err("no output")
      if (d != lines) err(d " D: lines, expected " lines)
      if (!end || end != NR || ended != lines) err("no final \"# end: " lines " lines\" as the last line")
    }' "$log")
  if [ -n "$errors" ]; then fail "$name" "$errors"; fi
}

# ./run-qemu.sh --check LOG [histogram]: checks a saved log only (to test the checks).
if [ "${1:-}" = --check ]; then
  log=$2
  check_lines "$(basename "$log")" "$([ "${3:-}" = histogram ] && echo 1 || echo 0)"
  [ "$failures" -eq 0 ] && echo "run-qemu.sh: $log passes"
  exit $((failures != 0))
fi

run monitor
[ "$status" -eq 0 ] || fail monitor "QEMU exit status $status (124: timed out after ${timeout_s}s)"
check_lines monitor 0

run histogram --features histogram
[ "$status" -eq 0 ] || fail histogram "QEMU exit status $status (124: timed out after ${timeout_s}s)"
check_lines histogram 1

run plain --features plain-monitor
[ "$status" -eq 0 ] || fail plain "QEMU exit status $status (124: timed out after ${timeout_s}s)"
check_lines plain 0

run frozen --features dwt-clock
[ "$status" -eq 1 ] || fail frozen "QEMU exit status $status, expected 1 (the firmware refusing a frozen clock)"
grep -q '^error: the time source did not advance between two timer interrupts' "$log" \
  || fail frozen "no error line for the frozen DWT cycle counter"
! grep -q '^[TJ]:' "$log" || fail frozen "report lines printed from a frozen clock"

run delay --no-default-features --features delay
[ "$status" -eq 0 ] || fail delay "QEMU exit status $status (124: timed out after ${timeout_s}s)"
check_delay delay

if [ "$failures" -ne 0 ]; then
  echo "run-qemu.sh: $failures check(s) failed" >&2
  exit 1
fi
echo "run-qemu.sh: all checks passed"
