#!/bin/bash
# examples/linuxcnc/test-halrun.sh: builds the rtlat_jitter HAL component, loads it under
# `halrun` (headless) beside LinuxCNC's own `timedelta` on the same threads, and checks its
# pins against timedelta's.
#
# Needs root and linuxcnc-uspace + linuxcnc-uspace-dev (Debian; installed here when missing
# and apt-get is available). rtapi_app loads modules only from LinuxCNC's modules directory:
# the test bind-mounts a copy of that directory holding the new module over it inside a
# private mount namespace (with private IPC and PID namespaces: HAL's shared memory and every
# process the test starts end with it), so the machine is left as it was; the test checks so.
# Bounded by `timeout`.
#
# What it checks, per thread (servo 1 ms, base 100 µs by default):
#   - structure: rtlat saw the thread's period; its ticks equal the thread's runs as counted
#     by LinuxCNC's `integ` on the same thread (none lost or doubled);
#     min-interval <= max-interval; max-jitter = max(max-interval - period,
#     period - min-interval) on rtlat's own pins; 0 <= lateness-min <= lateness-max
#     (lateness is against the deadline the thread slept until); jitter > 0;
#   - agreement: rtlat's max-interval, min-interval and max-jitter within TOLERANCE_NS of
#     timedelta's. Both functions read the clock at their top, one right after the other in
#     the same run of the same thread, so each of their intervals differs only by how much
#     the gap between the two clock reads changed from one run to the next: ~1 µs or less,
#     unless the thread is preempted between the two reads. On a loaded VM with
#     non-realtime threads that happens now and then, so the default tolerance is 20 µs (10x
#     the 2 µs seen when this was first tried) and a run that disagrees is repeated, up to
#     ATTEMPTS runs: a real fault (a unit, a formula, a lost tick) disagrees every time;
#   - reset: while rtlat-jitter.0.reset is TRUE its pins read 0; released, it measures again.
#
# Environment: RUN_SECONDS (3), TOLERANCE_NS (20000), ATTEMPTS (3), SERVO_NS (1000000),
# BASE_NS (100000), CARGO_TARGET_DIR (where the staticlib is built: <it>/linuxcnc-rtlat-c).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

fail() {
    echo "test-halrun: FAIL: $*" >&2
    exit 1
}

# ---- inside the private namespaces: overlay the modules directory, run halrun ----
if [[ ${1:-} == --inside ]]; then
    work=$2 modules=$3
    cp -a "$modules/." "$work/modules/"
    install -m 644 "$work/build/rtlat_jitter.so" "$work/modules/rtlat_jitter.so"
    mount --bind "$work/modules" "$modules"
    # rtapi_app refuses to run as root without a user to fall back to.
    RTAPI_UID=$(id -u nobody 2>/dev/null || echo 65534)
    export RTAPI_UID RTAPI_FIFO_PATH="$work/run/rtapi_fifo"
    cd "$work/run"
    exec halrun -f "$work/test.hal"
fi

RUN_SECONDS=${RUN_SECONDS:-3}
TOLERANCE_NS=${TOLERANCE_NS:-20000}
ATTEMPTS=${ATTEMPTS:-3}
SERVO_NS=${SERVO_NS:-1000000}
BASE_NS=${BASE_NS:-100000}

[[ $(id -u) == 0 ]] || fail "needs root (a private mount namespace over LinuxCNC's modules directory)"
if ! command -v halcompile >/dev/null || ! command -v halrun >/dev/null; then
    command -v apt-get >/dev/null || fail "install linuxcnc-uspace and linuxcnc-uspace-dev"
    echo "test-halrun: installing linuxcnc-uspace linuxcnc-uspace-dev"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        linuxcnc-uspace linuxcnc-uspace-dev >/dev/null
fi
for tool in halcompile halrun rtapi_app unshare timeout make cc cargo; do
    command -v "$tool" >/dev/null || fail "$tool not found"
done

work=$(mktemp -d /tmp/rtlat-halrun.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/build" "$work/modules" "$work/run"
# rtapi_app makes its FIFO after switching to RTAPI_UID.
chmod 755 "$work"
chmod 1777 "$work/run"

# ---- build, with LinuxCNC's module rules, from a scratch copy (the tree stays clean) ----
cp "$here/Makefile" "$here/rtlat_jitter.c" "$work/build/"
# (absolute: a relative CARGO_TARGET_DIR means the caller's directory, not the build's)
target=$(realpath -m "${CARGO_TARGET_DIR:-$root/target}")/linuxcnc-rtlat-c
make -s -C "$work/build" RTLAT_ROOT="$root" RTLAT_TARGET="$target" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; fail "the component did not build"; }
modules=$(make -s -C "$work/build" RTLAT_ROOT="$root" print-modules-dir)
[[ -d $modules ]] || fail "no modules directory $modules"
echo "test-halrun: built rtlat_jitter.so ($(stat -c %s "$work/build/rtlat_jitter.so") bytes); modules directory $modules"

cat >"$work/test.hal" <<HAL
# The fastest thread comes first (HAL sets its clock period from the first).
loadrt threads name1=base period1=$BASE_NS name2=servo period2=$SERVO_NS
loadrt timedelta count=2
loadrt rtlat_jitter count=2
# integ (out += in * period, in s) counts each thread's runs independently: runs = out / period.
loadrt integ count=2
setp integ.0.in 1
setp integ.1.in 1
addf timedelta.0 servo
addf rtlat-jitter.0 servo
addf integ.0 servo
addf timedelta.1 base
addf rtlat-jitter.1 base
addf integ.1 base
start
loadusr -w sleep $RUN_SECONDS
stop
show pin
loadusr -w echo ===reset-held===
setp rtlat-jitter.0.reset TRUE
start
loadusr -w sleep 0.3
stop
show pin rtlat-jitter.0
loadusr -w echo ===reset-released===
setp rtlat-jitter.0.reset FALSE
start
loadusr -w sleep 0.5
stop
show pin rtlat-jitter.0
HAL

# pin NAME [SECTION]: a pin's value from `show pin` output in $out (SECTION: the part after
# the named ===marker===, else the part before the first marker); u32 pins show in hex.
pin() {
    local value
    value=$(awk -v name="$1" -v section="${2:-}" '
        /^===/ { current = $0; gsub(/=/, "", current); next }
        current == section && $5 == name { print $4; found = 1; exit }
        END { if (!found) exit 1 }' "$out") || fail "no pin $1 ${2:+after $2 }in halrun's output"
    if [[ $value == 0x* ]]; then echo $((value)); else echo "$value"; fi
}

# check_thread INDEX PERIOD: structure assertions (fail at once) and agreement (return 1).
check_thread() {
    local i=$1 period=$2
    local td_min td_max td_jitter r_min r_max r_jitter r_ticks r_period r_lmin r_lmax r_over
    local runs
    td_min=$(pin "timedelta.$i.min") td_max=$(pin "timedelta.$i.max")
    td_jitter=$(pin "timedelta.$i.jitter")
    r_min=$(pin "rtlat-jitter.$i.min-interval") r_max=$(pin "rtlat-jitter.$i.max-interval")
    r_jitter=$(pin "rtlat-jitter.$i.max-jitter") r_ticks=$(pin "rtlat-jitter.$i.ticks")
    r_period=$(pin "rtlat-jitter.$i.period") r_over=$(pin "rtlat-jitter.$i.overruns")
    r_lmin=$(pin "rtlat-jitter.$i.lateness-min") r_lmax=$(pin "rtlat-jitter.$i.lateness-max")
    runs=$(awk -v out="$(pin "integ.$i.out")" -v p="$period" 'BEGIN { printf "%d\n", out * 1e9 / p + 0.5 }')

    printf 'test-halrun: thread %d (period %d ns)          rtlat-jitter   timedelta   difference\n' "$i" "$period"
    printf '  %-28s %12s %11s\n' "ticks (runs counted by integ)" "$r_ticks" "($runs)"
    printf '  %-28s %12d %11d %12d\n' "max interval, ns" "$r_max" "$td_max" $((r_max - td_max))
    printf '  %-28s %12d %11d %12d\n' "min interval, ns" "$r_min" "$td_min" $((r_min - td_min))
    printf '  %-28s %12d %11d %12d\n' "max jitter, ns" "$r_jitter" "$td_jitter" $((r_jitter - td_jitter))
    printf '  %-28s %12s\n' "lateness min/max, ns" "$r_lmin/$r_lmax"
    printf '  %-28s %12s\n\n' "overruns" "$r_over"

    [[ $r_period == "$period" ]] || fail "thread $i: rtlat-jitter.$i.period $r_period, not $period"
    ((r_ticks > 1)) || fail "thread $i: rtlat-jitter.$i saw $r_ticks ticks"
    ((r_ticks == runs)) || fail "thread $i: $r_ticks ticks, but the thread ran $runs times"
    ((r_min <= r_max)) || fail "thread $i: min-interval $r_min > max-interval $r_max"
    local want=$((r_max - period > period - r_min ? r_max - period : period - r_min))
    ((r_jitter == want)) || fail "thread $i: max-jitter $r_jitter, not max(max - period, period - min) = $want"
    ((r_lmin <= r_lmax)) || fail "thread $i: lateness-min $r_lmin > lateness-max $r_lmax"
    # The deadline is the one the thread slept until (rtapi_task_pll_get_reference()), on
    # the clock rtapi_get_time() reads: a thread never runs before it, catch-up runs
    # included, so a negative lateness would mean the wrong deadline or the wrong clock.
    ((r_lmin >= 0)) || fail "thread $i: a run $((-r_lmin)) ns before its deadline"
    ((r_jitter > 0 && td_jitter > 0)) || fail "thread $i: a jitter of 0 (a frozen clock?)"

    local d
    for d in $((r_max - td_max)) $((r_min - td_min)) $((r_jitter - td_jitter)); do
        ((${d#-} <= TOLERANCE_NS)) || return 1
    done
}

attempt=1
while :; do
    out=$work/halrun.out
    rc=0
    timeout -k 10 $((RUN_SECONDS + 90)) \
        unshare --mount --propagation private --ipc --pid --fork --kill-child --mount-proc \
        "$here/test-halrun.sh" --inside "$work" "$modules" >"$out" 2>&1 || rc=$?
    ((rc == 0)) || { cat "$out"; fail "halrun exited with status $rc"; }

    if grep -q "POSIX non-realtime" "$out"; then
        echo "test-halrun: LinuxCNC ran its threads POSIX non-realtime (no realtime priority" \
            "available here): the test exercised loading, the pins, the function on both threads" \
            "and the figures against timedelta, not realtime latency"
    fi
    agreed=1
    check_thread 0 "$SERVO_NS" || agreed=0
    check_thread 1 "$BASE_NS" || agreed=0
    ((agreed)) && break
    ((attempt < ATTEMPTS)) || fail "rtlat-jitter and timedelta disagree by more than $TOLERANCE_NS ns in $ATTEMPTS runs"
    echo "test-halrun: run $attempt disagrees by more than $TOLERANCE_NS ns (a preemption between the two clock reads?); running again"
    attempt=$((attempt + 1))
done

# Reset: held, everything reads 0; released, it measures again from a new first tick.
for p in ticks max-jitter max-interval min-interval overruns; do
    [[ $(pin "rtlat-jitter.0.$p" reset-held) == 0 ]] || fail "rtlat-jitter.0.$p is not 0 while reset is held"
done
after=$(pin rtlat-jitter.0.ticks reset-released)
((after > 1 && after < $(pin rtlat-jitter.0.ticks))) ||
    fail "after reset, $after ticks (the first run had $(pin rtlat-jitter.0.ticks))"
[[ $(pin rtlat-jitter.0.period reset-released) == "$SERVO_NS" ]] || fail "no period after reset"
echo "test-halrun: reset: 0 while held, $after ticks in the 0.5 s after release"

# Nothing left behind: no mount over the modules directory, no module in it, no rtapi_app.
grep -q " $modules " /proc/self/mountinfo && fail "a mount over $modules is left"
[[ ! -e $modules/rtlat_jitter.so ]] || fail "rtlat_jitter.so left in $modules"
echo "test-halrun: ok (the machine's modules directory untouched)"
