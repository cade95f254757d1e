#!/usr/bin/env bash
# rtlat against cyclictest, side by side on this machine: three figures.
#
#   1. User-space instructions per measurement cycle (valgrind --tool=callgrind).
#      Each tool runs `-t 1 -i 200 -p 80 -h 10000 -q` twice, with -l N1 and -l N2; the
#      difference of the total Ir (every thread of the process: callgrind writes one file
#      per thread with --separate-threads=yes and the script sums them) divided by N2-N1
#      is the cost of one cycle, start-up and report cancelled. Under valgrind the process
#      is many times slower, so cycles may overrun; the instruction count per cycle is the
#      figure, not the latencies. The measurement thread alone is shown too, and the top
#      source files/functions of rtlat's measurement thread per cycle (the loop is inlined
#      into one function, so callgrind attributes it by source file).
#   2. Latency distribution, runs interleaved (rtlat, cyclictest, rtlat, ... PAIRS pairs):
#      each run `-t 1 -p 80 -i 200 -l LOOPS -q -m -h 10000 --json FILE`. p50 and p99 are
#      computed the same way for both tools from the µs histogram both write in the JSON
#      (thread.0.histogram; nearest rank over all cycles, overflows counted above the last
#      bucket), and so is the mean (of the bucket values, overflows at 10 000 µs: the JSONs'
#      `avg` differ in definition, rtlat's the exact ns mean, cyclictest's the mean of
#      truncated µs values); the median over runs of each is reported, and in how many
#      pairs rtlat's p99 and mean were at most cyclictest's.
#   3. Peak RSS ("Maximum resident set size" of /usr/bin/time -v), median of RSS_REPS runs
#      of `-m -t 2 -h 10000 -l 2000 -q` each, plus a mid-run /proc/PID/smaps snapshot per
#      tool broken down by kind of mapping. Two rtlat builds are measured: the release
#      binary (glibc, dynamically linked, as sections 1 and 2 run it) and the static board
#      binary (musl; README, "Binaries"), which is the measuring binary the RSS goal is for:
#      under mlockall(MCL_CURRENT) every page mapped is made resident, and a dynamically
#      linked program maps all of libc.so.6 (2.1 MB here, as much as cyclictest's whole
#      footprint less 1 MB), where a static one carries only the parts of the C library
#      it calls. A third program gives the floor: the rss_floor example
#      (examples/rtlat-examples/examples/rss_floor.rs) locks memory and runs two threads
#      with the engine's stack size and a 10 000-bucket histogram each, and nothing else;
#      what a Rust program with std costs under -m before any of rtlat.
#   4. The stripped size of each binary: rtlat, rtlat-tools, rtlat-plot (release builds,
#      stripped copies; the board builds as they are, stripped by the profile), cyclictest.
#
# Both tools write /dev/cpu_dma_latency (0 µs) for the run by default, so that is equal.
# rtlat is measured as `rtlat run ...`. The script only reports; the VM it runs on is noisy
# and shared, so nothing here is a pass/fail gate (it prints whether each goal is met).
#
# Needs: root (SCHED_FIFO, mlockall), valgrind (callgrind_annotate), /usr/bin/time (GNU
# time: apt-get install -y time), python3, binutils (strip), a release build of rtlat
# (`cargo build --release`) and the static board build
# (`rustup target add x86_64-unknown-linux-musl; cargo build --profile board --target
# x86_64-unknown-linux-musl`; without it its rows are left out), and the floor
# (`cargo build --release -p rtlat-examples --example rss_floor`; without it its row is left out). This
# script does not build. Writes only under a temp dir, removed at the end unless KEEP=1.
#
# Usage:  benches/vs-cyclictest.sh
# Knobs (environment): RTLAT (default <repo>/target/release/rtlat), RTLAT_BOARD (default
#   <repo>/target/x86_64-unknown-linux-musl/board/rtlat), RSS_FLOOR (default
#   <repo>/target/release/examples/rss_floor), CYCLICTEST (default: cyclictest
#   on PATH), N1 N2 (callgrind loop counts, default 2000 22000), PAIRS (default 10),
#   LOOPS (cycles per latency run, default 20000), RSS_REPS (default 3), KEEP=1,
#   RTLAT_ARGS (options added to every rtlat run, e.g. --explain; default none),
#   CYCLICTEST_ARGS (the same for every cyclictest run, e.g. -v; default none),
#   CG_ARGS (the options both tools run under callgrind; default -t 1 -i 200 -p 80 -h 10000 -q,
#   e.g. without -h to measure a plain run), CALLGRIND_ONLY=1 (section 1 alone: its figures
#   and rtlat's per-cycle breakdown, then stop).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RTLAT=${RTLAT:-$repo/target/release/rtlat}
RTLAT_BOARD=${RTLAT_BOARD:-$repo/target/x86_64-unknown-linux-musl/board/rtlat}
RSS_FLOOR=${RSS_FLOOR:-$repo/target/release/examples/rss_floor}
CYCLICTEST=${CYCLICTEST:-$(command -v cyclictest || true)}
N1=${N1:-2000}
N2=${N2:-22000}
PAIRS=${PAIRS:-10}
LOOPS=${LOOPS:-20000}
RSS_REPS=${RSS_REPS:-3}

die() { echo "vs-cyclictest: $*" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || die "run as root (SCHED_FIFO priority 80 and mlockall)"
[[ -x $RTLAT ]] || die "no rtlat binary at $RTLAT (cargo build --release, or set RTLAT)"
[[ -n $CYCLICTEST && -x $CYCLICTEST ]] || die "cyclictest not found (set CYCLICTEST)"
for tool in valgrind callgrind_annotate python3 strip; do
    command -v "$tool" >/dev/null || die "$tool not found"
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install -y time)"
(( N2 > N1 )) || die "N2 must be larger than N1"

out=$(mktemp -d /tmp/vs-cyclictest.XXXXXX)
if [[ ${KEEP:-0} == 1 ]]; then
    echo "# output kept in $out"
else
    trap 'rm -rf "$out"' EXIT
fi

# Provenance (read-only git queries).
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
echo "# rtlat: $RTLAT (commit $commit, $dirty modified tracked files; binary built $(date -r "$RTLAT" '+%F %T'))"

# The two tools as commands; rtlat is invoked as `rtlat run`, from a copy in the temp dir so
# that a `cargo build` during the run cannot swap binaries between the runs.
cp "$RTLAT" "$out/rtlat"
# RTLAT_ARGS: more rtlat options for every rtlat run (e.g. --explain: its overhead).
read -r -a rtlat_args <<<"${RTLAT_ARGS:-}"
rt=("$out/rtlat" run "${rtlat_args[@]}")
board=()
if [[ -x $RTLAT_BOARD ]]; then
    cp "$RTLAT_BOARD" "$out/rtlat-board"
    board=("$out/rtlat-board" run)
    echo "# rtlat board build: $RTLAT_BOARD (built $(date -r "$RTLAT_BOARD" '+%F %T'))"
else
    echo "# no board build at $RTLAT_BOARD: its rows are left out (see the header for how to build it)"
fi
floor=()
if [[ -x $RSS_FLOOR ]]; then
    cp "$RSS_FLOOR" "$out/rss-floor"
    floor=("$out/rss-floor")
else
    echo "# no $RSS_FLOOR: the RSS floor row is left out (cargo build --release -p rtlat-examples --example rss_floor)"
fi
read -r -a ct_args <<<"${CYCLICTEST_ARGS:-}"
ct=("$CYCLICTEST" "${ct_args[@]}")
read -r -a cg_args <<<"${CG_ARGS:--t 1 -i 200 -p 80 -h 10000 -q}"
echo "# cyclictest: $CYCLICTEST ($("$CYCLICTEST" --help 2>&1 | head -1 || true))"
echo "# machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------------------------------
# 1. Instructions per cycle under callgrind.
# ---------------------------------------------------------------------------------------
# callgrind_run NAME LOOPS CMD...: one run; thread files land in $out/cg-NAME-LOOPS.out-NN.
callgrind_run() {
    local name=$1 loops=$2
    shift 2
    valgrind --tool=callgrind --separate-threads=yes \
        --callgrind-out-file="$out/cg-$name-$loops.out" \
        "$@" "${cg_args[@]}" -l "$loops" \
        >"$out/cg-$name-$loops.stdout" 2>"$out/cg-$name-$loops.log" ||
        die "callgrind run of $name -l $loops failed; see $out/cg-$name-$loops.log (KEEP=1)"
}
echo "# 1/3 callgrind: ${cg_args[*]} -l $N1 and -l $N2 for each tool ..."
for name in rtlat cyclictest; do
    if [[ $name == rtlat ]]; then cmd=("${rt[@]}"); else cmd=("${ct[@]}"); fi
    callgrind_run "$name" "$N1" "${cmd[@]}"
    callgrind_run "$name" "$N2" "${cmd[@]}"
done

# Per-cycle figures: all threads summed, the measurement thread (the thread file that runs
# the measuring loop), and rtlat's measurement thread by source file:function.
python3 - "$out" "$N1" "$N2" "$repo" >"$out/ipc.txt" <<'PY'
import glob, re, subprocess, sys
from collections import Counter
out, n1, n2, repo = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
dn = n2 - n1

def totals(name, loops):
    """{thread-file suffix: total Ir} for one run (the `totals:` line of each file)."""
    res = {}
    for f in sorted(glob.glob(f"{out}/cg-{name}-{loops}.out*")):
        for line in open(f, errors="replace"):
            if line.startswith("totals:"):
                res[f.rsplit(".out", 1)[1] or "-"] = int(line.split()[1])
    return res

def by_function(path):
    """Self Ir by file:function, from callgrind_annotate's function table."""
    text = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", path],
                          capture_output=True, text=True, check=True).stdout
    counts = Counter()
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(?:\([ \d.%]+\)\s+)?(\S.*)$", line)
        if m and "PROGRAM TOTALS" not in line and not m[2].startswith("=>"):
            counts[m[2]] += int(m[1].replace(",", ""))
    return counts

LOOP_MARKER = {"rtlat": "with_clock_and_timer", "cyclictest": "timerthread"}
rows = {}
for name in ("rtlat", "cyclictest"):
    a, b = totals(name, n1), totals(name, n2)
    if not a or not b:
        sys.exit(f"no callgrind totals for {name}")
    per_thread = {k: (b.get(k, 0) - a.get(k, 0)) / dn for k in set(a) | set(b)}
    # The measurement thread is the one running the measuring loop (rtlat's is inlined into
    # the engine's `with_clock_and_timer`, cyclictest's is `timerthread`), not the one that
    # grows most: with -v the main thread prints every sample, with --explain the sampler
    # works per 5 ms of a run that lasts longer with more cycles.
    marker = LOOP_MARKER[name]
    loop_threads = [k for k in sorted(b) if any(marker in f for f in by_function(f"{out}/cg-{name}-{n2}.out{'' if k == '-' else k}"))]
    main_thread = loop_threads[0] if loop_threads else max(per_thread, key=per_thread.get)
    rows[name] = (sum(per_thread.values()), per_thread[main_thread], main_thread)
    print(f"ipc {name} {rows[name][0]:.1f} {rows[name][1]:.1f} {sum(a.values())} {sum(b.values())}")

# rtlat's measurement thread, per cycle, by source file:function (top 15).
suffix = rows["rtlat"][2]
suffix = "" if suffix == "-" else suffix
fa = by_function(f"{out}/cg-rtlat-{n1}.out{suffix}")
fb = by_function(f"{out}/cg-rtlat-{n2}.out{suffix}")
diff = {k: (fb[k] - fa[k]) / dn for k in set(fa) | set(fb)}
for k, v in sorted(diff.items(), key=lambda kv: -kv[1])[:15]:
    k = re.sub(r"/rustc/[0-9a-f]+/library/", "std:", k)
    k = re.sub(r"\s*\[/\S+\]$", "", k).replace(repo + "/", "")
    k = k.replace(":std::sys::backtrace::__rust_begin_short_backtrace", " (inlined in the thread)")
    print(f"top {v:7.1f}  {k}")
PY
if [[ ${CALLGRIND_ONLY:-0} == 1 ]]; then
    awk '/^ipc/ {printf "instructions/cycle %s: all threads %s, measurement thread %s\n", $2, $3, $4}' "$out/ipc.txt"
    awk '/^ipc rtlat/ {r = $4} /^ipc cyclictest/ {c = $4} END {printf "measurement thread rtlat/cyclictest: %.2f\n", r / c}' "$out/ipc.txt"
    sed -n 's/^top /  /p' "$out/ipc.txt"
    exit 0
fi

# ---------------------------------------------------------------------------------------
# 2. Latency, runs interleaved.
# ---------------------------------------------------------------------------------------
echo "# 2/3 latency: $PAIRS interleaved pairs of -l $LOOPS at 200 µs (about $(( PAIRS * 2 * LOOPS / 5000 )) s) ..."
for i in $(seq 1 "$PAIRS"); do
    "${rt[@]}" -t 1 -p 80 -i 200 -l "$LOOPS" -q -m -h 10000 --json "$out/lat-rtlat-$i.json" \
        >/dev/null 2>>"$out/lat.log"
    "${ct[@]}" -t 1 -p 80 -i 200 -l "$LOOPS" -q -m -h 10000 --json "$out/lat-cyclictest-$i.json" \
        >/dev/null 2>>"$out/lat.log"
done
python3 - "$out" "$PAIRS" >"$out/lat.txt" <<'PY'
import json, math, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])

def percentile(hist, cycles, q):
    """Nearest rank from cyclictest's µs buckets; ranks past the last bucket (overflows)
    give the bucket count, i.e. 'at least this'."""
    rank = max(1, math.ceil(q * cycles))
    seen = 0
    for bucket in sorted(hist, key=int):
        seen += hist[bucket]
        if seen >= rank:
            return int(bucket)
    return 10000

def hist_mean(hist, cycles):
    """Mean of the µs bucket values (cyclictest's own µs truncation for both tools; each
    tool's JSON `avg` is not the same quantity: rtlat's is the exact mean of the ns
    latencies, cyclictest's the mean of per-cycle truncated µs values, 0.5 µs lower on
    average), overflows counted at the last bucket's bound (10 000 µs, 'at least this')."""
    inside = sum(hist.values())
    total = sum(int(b) * c for b, c in hist.items()) + (cycles - inside) * 10000
    return round(total / cycles, 3)

per_run = {}
for name in ("rtlat", "cyclictest"):
    p50, p99, avg, runs = [], [], [], []
    for i in range(1, pairs + 1):
        t = json.load(open(f"{out}/lat-{name}-{i}.json"))["thread"]["0"]
        p50.append(percentile(t["histogram"], t["cycles"], 0.50))
        p99.append(percentile(t["histogram"], t["cycles"], 0.99))
        avg.append(hist_mean(t["histogram"], t["cycles"]))
        runs.append(f"{p50[-1]}/{p99[-1]}/{t['max']}/{avg[-1]:g}")
    per_run[name] = (p99, avg)
    print(f"lat {name} {statistics.median(p50)} {statistics.median(p99)} {statistics.median(avg)} {' '.join(runs)}")
# Paired: pair i's two runs ran back to back, so they shared the machine's state.
(r99, ravg), (c99, cavg) = per_run["rtlat"], per_run["cyclictest"]
print("pairs", sum(r <= c for r, c in zip(r99, c99)), sum(r <= c for r, c in zip(ravg, cavg)))
PY

# ---------------------------------------------------------------------------------------
# 3. Peak RSS.
# ---------------------------------------------------------------------------------------
echo "# 3/3 peak RSS: -m -t 2 -h 10000 -l 2000 -q, $RSS_REPS runs each, a smaps snapshot each ..."
rss_args=(-m -t 2 -h 10000 -l 2000 -q)
peak_rss() { # CMD... -> "Maximum resident set size" in KiB
    /usr/bin/time -v "$@" "${rss_args[@]}" 2>&1 >/dev/null |
        awk -F': ' '/Maximum resident set size/ {print $2}'
}
: >"$out/rss.txt"
for i in $(seq 1 "$RSS_REPS"); do
    echo "rss rtlat $(peak_rss "${rt[@]}")" >>"$out/rss.txt"
    if [[ ${#board[@]} -gt 0 ]]; then
        echo "rss rtlat-board $(peak_rss "${board[@]}")" >>"$out/rss.txt"
    fi
    if [[ ${#floor[@]} -gt 0 ]]; then
        echo "rss rust-floor $(peak_rss "${floor[@]}")" >>"$out/rss.txt"
    fi
    echo "rss cyclictest $(peak_rss "${ct[@]}")" >>"$out/rss.txt"
done

# A snapshot of /proc/PID/smaps one second into a run (2 s at the default 1 ms interval),
# summed by kind of mapping. Thread stacks are the mappings holding a thread's stack pointer
# (/proc/PID/task/TID/syscall, read while the thread sleeps in a system call); a small
# anonymous mapping directly above a PROT_NONE guard page that holds no stack pointer is a
# signal stack (Rust gives every thread an 8 KiB sigaltstack), guard pages go with them.
smaps_snapshot() { # NAME CMD...
    local name=$1 pid
    shift
    "$@" "${rss_args[@]}" >/dev/null 2>&1 &
    pid=$!
    sleep 1
    python3 - "$pid" "$name" "$(readlink -f "$1")" >>"$out/rss.txt" <<'PY' || true
import glob, re, sys
pid, name, exe = sys.argv[1:4]
maps, cur = [], None
for line in open(f"/proc/{pid}/smaps"):
    m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$", line)
    if m:
        cur = dict(lo=int(m[1], 16), hi=int(m[2], 16), perm=m[3], path=m[4].strip(), rss=0)
        maps.append(cur)
    elif line.startswith("Rss:"):
        cur["rss"] = int(line.split()[1])
sps = []
for f in glob.glob(f"/proc/{pid}/task/*/syscall"):
    fields = open(f).read().split()
    if len(fields) >= 8:
        sps.append(int(fields[-2], 16))
kinds = {}
for prev, m in zip([None] + maps, maps):
    if m["path"] == exe:
        kind = "own binary (file)"
    elif m["path"].startswith("/"):
        kind = "shared libraries (file)"
    elif m["path"] == "[heap]":
        kind = "main heap (brk)"
    elif m["path"] == "[stack]":
        kind = "main thread stack"
    elif m["path"]:
        kind = "other (" + m["path"] + ")"
    elif any(m["lo"] <= sp < m["hi"] for sp in sps):
        kind = "measurement thread stacks"
    elif (m["perm"].startswith("rw") and prev and prev["hi"] == m["lo"]
          and prev["perm"].startswith("---") and prev["hi"] - prev["lo"] <= 65536):
        kind = "signal stacks and guard pages"
    elif m["perm"].startswith("---") and m["hi"] - m["lo"] <= 65536:
        kind = "signal stacks and guard pages"
    else:
        kind = "anonymous (arenas, histograms, libc)"
    kinds[kind] = kinds.get(kind, 0) + m["rss"]
for kind, kib in sorted(kinds.items(), key=lambda kv: -kv[1]):
    print(f"smaps {name} {kib} {kind}")
print(f"smaps {name} {sum(kinds.values())} total (mid-run)")
PY
    wait "$pid" || true
}
smaps_snapshot rtlat "${rt[@]}"
if [[ ${#board[@]} -gt 0 ]]; then
    smaps_snapshot rtlat-board "${board[@]}"
fi
if [[ ${#floor[@]} -gt 0 ]]; then
    smaps_snapshot rust-floor "${floor[@]}"
fi
smaps_snapshot cyclictest "${ct[@]}"

# ---------------------------------------------------------------------------------------
# 4. Stripped sizes.
# ---------------------------------------------------------------------------------------
# stripped NAME FILE: the size of FILE without symbols and debug information (a stripped
# copy; the board builds are stripped already, so their copy is the same size).
stripped() {
    if [[ -f $2 ]]; then
        strip -o "$out/stripped-$1" "$2" && echo "size $1 $(stat -c %s "$out/stripped-$1") $2" >>"$out/rss.txt"
    else
        echo "size $1 - $2" >>"$out/rss.txt"
    fi
}
stripped rtlat "$RTLAT"
stripped rtlat-tools "$(dirname "$RTLAT")/rtlat-tools"
stripped rtlat-plot "$(dirname "$RTLAT")/rtlat-plot"
if [[ ${#board[@]} -gt 0 ]]; then
    stripped rtlat-board "$RTLAT_BOARD"
    stripped rtlat-tools-board "$(dirname "$RTLAT_BOARD")/rtlat-tools"
    stripped rtlat-plot-board "$(dirname "$RTLAT_BOARD")/rtlat-plot"
fi
if [[ ${#floor[@]} -gt 0 ]]; then
    stripped rss-floor "$RSS_FLOOR"
fi
stripped cyclictest "$CYCLICTEST"

# ---------------------------------------------------------------------------------------
# The table.
# ---------------------------------------------------------------------------------------
python3 - "$out" "$N1" "$N2" "$PAIRS" "$LOOPS" "$RSS_REPS" <<'PY'
import statistics, sys
out, n1, n2, pairs, loops, reps = sys.argv[1], *map(int, sys.argv[2:])
ipc, lat, rss, smaps, top, sizes = {}, {}, {}, {}, [], []
for line in open(f"{out}/ipc.txt"):
    f = line.split()
    if f[0] == "ipc":
        ipc[f[1]] = (float(f[2]), float(f[3]))
    elif f[0] == "top":
        top.append(line[4:].rstrip())
paired = None
for line in open(f"{out}/lat.txt"):
    f = line.split()
    if f[0] == "pairs":
        paired = (int(f[1]), int(f[2]))
        continue
    lat[f[1]] = (float(f[2]), float(f[3]), " ".join(f[5:]), float(f[4]))
for line in open(f"{out}/rss.txt"):
    f = line.split()
    if f[0] == "rss" and len(f) > 2:
        rss.setdefault(f[1], []).append(int(f[2]))
    elif f[0] == "smaps":
        smaps.setdefault(f[1], []).append((int(f[2]), " ".join(f[3:])))
    elif f[0] == "size":
        sizes.append((f[1], f[2], " ".join(f[3:])))

def ratio(a, b):
    return a / b if b else float("nan")

def goal(ok):
    return "met" if ok else "NOT met"

r_ipc = ratio(ipc["rtlat"][0], ipc["cyclictest"][0])
r_p50 = ratio(lat["rtlat"][0], lat["cyclictest"][0])
r_p99 = ratio(lat["rtlat"][1], lat["cyclictest"][1])
rss_rt, rss_ct = statistics.median(rss["rtlat"]), statistics.median(rss["cyclictest"])
r_rss = ratio(rss_rt, rss_ct)
rss_board = statistics.median(rss["rtlat-board"]) if "rtlat-board" in rss else None

print()
print("| figure | rtlat | cyclictest | rtlat/cyclictest | goal |")
print("| --- | ---: | ---: | ---: | --- |")
print(f"| instructions/cycle, all threads (callgrind, -l {n1} vs {n2}) | {ipc['rtlat'][0]:.1f} | {ipc['cyclictest'][0]:.1f} | {r_ipc:.2f} | <= 0.70: {goal(r_ipc <= 0.7)} |")
print(f"| instructions/cycle, measurement thread only | {ipc['rtlat'][1]:.1f} | {ipc['cyclictest'][1]:.1f} | {ratio(ipc['rtlat'][1], ipc['cyclictest'][1]):.2f} | |")
print(f"| latency p50 µs, median of {pairs} runs (-l {loops}, -i 200, -p 80) | {lat['rtlat'][0]:g} | {lat['cyclictest'][0]:g} | {r_p50:.2f} | <= 1.00: {goal(r_p50 <= 1.0)} |")
r_avg = ratio(lat["rtlat"][3], lat["cyclictest"][3])
print(f"| latency mean µs (of the µs histogram), median of {pairs} runs | {lat['rtlat'][3]:g} | {lat['cyclictest'][3]:g} | {r_avg:.2f} | <= 1.00: {goal(r_avg <= 1.0)} |")
print(f"| latency p99 µs, median of {pairs} runs | {lat['rtlat'][1]:g} | {lat['cyclictest'][1]:g} | {r_p99:.2f} | <= 1.00: {goal(r_p99 <= 1.0)} |")
if paired is not None:
    print(f"| pairs where rtlat's p99 / mean is at most cyclictest's | {paired[0]} / {paired[1]} of {pairs} | | | |")
if rss_board is not None:
    r_board = ratio(rss_board, rss_ct)
    print(f"| peak RSS KiB, median of {reps} (-m -t 2 -h 10000 -l 2000), board build (static) | {rss_board:g} | {rss_ct:g} | {r_board:.2f} | <= 1.00: {goal(r_board <= 1.0)} |")
print(f"| peak RSS KiB, median of {reps}, release build (glibc, dynamic) | {rss_rt:g} | {rss_ct:g} | {r_rss:.2f} | |")
if "rust-floor" in rss:
    rss_floor = statistics.median(rss["rust-floor"])
    print(f"| peak RSS KiB, median of {reps}, floor: examples/rss_floor (glibc, dynamic) | {rss_floor:g} | {rss_ct:g} | {ratio(rss_floor, rss_ct):.2f} | |")
print()
for name in ("rtlat", "cyclictest"):
    print(f"latency runs {name} (p50/p99/max/mean µs): {lat[name][2]}")
names = [n for n in ("rtlat-board", "rtlat", "rust-floor", "cyclictest") if n in rss]
for name in names:
    print(f"peak RSS runs {name} (KiB): {' '.join(map(str, rss[name]))}")
print()
print("mid-run RSS by mapping (KiB):  " + " | ".join(names))
kinds = []
for name in names:
    for _, k in smaps.get(name, []):
        if k not in kinds:
            kinds.append(k)
for k in kinds:
    v = [dict((kk, vv) for vv, kk in smaps.get(n, [])).get(k, 0) for n in names]
    if not any(v):
        continue
    print(f"  {k:<40} " + " | ".join(f"{x:>7}" for x in v))
print()
print("stripped size of each binary (bytes):")
for name, size, path in sizes:
    print(f"  {name:<18} {size:>10}  {path}")
print()
print("rtlat measurement thread, instructions per cycle by source file:function (top 15):")
for t in top:
    print("  " + t)
PY
