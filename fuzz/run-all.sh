#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time, each corpus seeded from fuzz/seeds/<target>/
# (copies of the real result files in tests/data/peers/ and of captured kernel command lines).
#
#   fuzz/run-all.sh [SECONDS_PER_TARGET] [TARGET ...]     (default: 30 s, every target)
#
# Exits 0 after saying plainly that it skipped when there is no nightly toolchain or no
# cargo-fuzz; exits 1 on the first target that finds a crash (its artifact is under
# fuzz/artifacts/<target>/, reproduce with `cargo +nightly fuzz run <target> <artifact>`).
set -euo pipefail
cd "$(dirname "$0")"

seconds="${1:-30}"
shift || true

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: SKIPPED: no nightly toolchain (rustup toolchain install nightly)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz: SKIPPED: cargo-fuzz is not installed (cargo install cargo-fuzz)"
  exit 0
fi

if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

logs=target/run-all-logs
mkdir -p "$logs"
if ! cargo +nightly fuzz build >"$logs/build.log" 2>&1; then
  echo "fuzz: the targets do not build:"
  tail -n 40 "$logs/build.log"
  exit 1
fi
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target"
  if [ -d "seeds/$target" ]; then
    cp -n "seeds/$target"/* "corpus/$target/" 2>/dev/null || true
  fi
  log="$logs/$target.log"
  printf '== %s (%s s): ' "$target" "$seconds"
  if cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" >"$log" 2>&1; then
    # libFuzzer's last words: "Done N runs in S second(s)".
    grep -E '^Done [0-9]+ runs' "$log" | tail -1 || echo "done"
  else
    echo "FAILED"
    tail -n 60 "$log"
    exit 1
  fi
done
