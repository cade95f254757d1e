#!/usr/bin/env python3
"""Checks the JSON of `rtlat run --clock cntvct -l LOOPS -q --json FILE` (run under
qemu-aarch64 by .ci/run): the generic-timer clock was used, every cycle is accounted for, no
latency is negative (the timer never returns before its counter deadline), the figures are
consistent, and nothing was allocated while measuring. Latency values themselves are not
judged: under qemu-user they say nothing about a board.

usage: check-cntvct-run.py FILE LOOPS
"""
import json
import sys


def main() -> int:
    path, loops = sys.argv[1], int(sys.argv[2])
    with open(path) as f:
        run = json.load(f)
    problems = []

    def expect(ok, what):
        if not ok:
            problems.append(what)

    config = run["rtlat"]["config"]
    expect(config["clock"] == "CNTVCT_EL0", f"clock is {config['clock']!r}")
    expect(config["timer"] == "abs", f"timer is {config['timer']!r}")
    expect(config["loops"] == loops, f"loops is {config['loops']}")
    expect(run["num_threads"] == 1, f"num_threads is {run['num_threads']}")
    thread = run["thread"]["0"]
    ours = thread["rtlat"]
    expect(ours["unit"] == "ns", "unit")
    expect(ours["cycles"] == loops, f"cycles {ours['cycles']} != {loops}")
    expect(thread["cycles"] == loops, f"cyclictest cycles {thread['cycles']} != {loops}")
    histogram_count = sum(b["count"] for b in ours["histogram"]["buckets"])
    expect(histogram_count == loops, f"histogram holds {histogram_count} of {loops}")
    expect(ours["min"] >= 0, f"a wake-up before its counter deadline: min {ours['min']} ns")
    p = ours["percentiles"]
    expect(
        ours["min"] <= p["p50"] <= p["p99"] <= ours["max"],
        f"min {ours['min']} p50 {p['p50']} p99 {p['p99']} max {ours['max']} out of order",
    )
    expect(thread["min"] * 1000 <= ours["min"] < (thread["min"] + 1) * 1000, "µs min vs ns min")
    expect(thread["max"] * 1000 <= ours["max"] < (thread["max"] + 1) * 1000, "µs max vs ns max")
    translation = ours.get("deadline_translation") or {}
    for key in ("early_wakeups", "slew_ppm", "calibrations", "refused"):
        expect(isinstance(translation.get(key), int), f"deadline_translation.{key} missing")
    expect(translation.get("calibrations", 0) >= 1, "the rate was never measured")
    expect(translation.get("refused") == 0, "a rate measurement was refused")
    expect(abs(translation.get("slew_ppm", 0)) < 1000, "slew beyond 0.1 %")
    expect(ours["allocations_while_measuring"] == 0, "allocated while measuring")
    expect(ours["overruns"] >= 0 and run["rtlat"]["overruns"] == ours["overruns"], "overruns")
    if problems:
        for problem in problems:
            print(f"{path}: {problem}", file=sys.stderr)
        return 1
    print(
        f"{path}: CNTVCT_EL0, {loops} cycles, min {ours['min']} ns, p99 {p['p99']} ns, "
        f"max {ours['max']} ns, {ours['overruns']} overruns, "
        f"{translation['early_wakeups']} early wake-ups finished on the counter, "
        f"slew {translation['slew_ppm']} ppm over {translation['calibrations']} rate "
        "measurements (qemu-user: not latency figures)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
