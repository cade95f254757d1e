#!/usr/bin/env bash
# The firmware's figures (README.md, "Figures"): flash and RAM of three builds of the same
# firmware on thumbv7em-none-eabihf (release, LTO, opt-level "s", Cargo.toml's profile), and the
# instructions its SysTick handler executes, counted from a QEMU instruction trace.
#
#   baseline   --no-default-features: the interrupt reads the time source and counts, the main
#              loop prints the count; no monitor
#   monitor    default: the jitter monitor ticked in the interrupt, T:/J: report lines
#   histogram  --features histogram: plus a ±10 ms, 1.6 % lateness histogram and percentiles
#   plain      --features plain-monitor: the monitor build with the plain JitterMonitor behind a
#              critical-section mutex instead of the lock-free SharedJitterMonitor
#
# Flash = .vector_table + .text + .rodata + .data (its initial values live in flash);
# RAM = .data + .bss + .uninit (the stack is not counted: cortex-m-rt puts it at the top of RAM).
#
# ISR instructions: QEMU runs each build with one instruction per translation block and no
# chaining (-singlestep -d exec,nochain), so its log has one line per executed instruction, with
# its address and the function holding it. A handler run goes from SysTick's first instruction
# until the code it interrupted runs again (callees included), or until SysTick's first
# instruction comes again (an interrupt pending at the return tail-chains into the next run).
# The most common count over the run's ~1000 handler runs is the steady state (the first tick
# and periods QEMU delivered late take other paths: the longest run is shown too; a count is
# only as exact as its paths: the histogram's bucket index depends on the value). The
# difference from the baseline's steady state is what tick + record cost.
#
# Needs: qemu-system-arm, readelf (binutils), awk; writes under target/figures/.
set -euo pipefail
cd "$(dirname "$0")"
unset CARGO_TARGET_DIR
out=target/figures
mkdir -p "$out"
elf=target/thumbv7em-none-eabihf/release/rtlat-firmware

build() {
  local name=$1; shift
  cargo build --release --quiet "$@"
  cp "$elf" "$out/$name.elf"
}

# sizes ELF: prints "flash ram" in bytes (section sizes from readelf, hexadecimal).
sizes() {
  local flash=0 ram=0 name size
  while read -r name size; do
    size=$((16#$size))
    case $name in .bss | .uninit) ;; *) flash=$((flash + size)) ;; esac
    case $name in .data | .bss | .uninit) ram=$((ram + size)) ;; esac
  done < <(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' \
    | awk '$1 ~ /^\.(vector_table|text|rodata|data|bss|uninit)$/ { print $1, $5 }')
  echo "$flash $ram"
}

# isr ELF: prints "mode runs-at-mode runs max" of the SysTick handler's executed instructions.
isr() {
  local log=$out/$(basename "$1" .elf).trace entry
  # The handler's first instruction (the symbol's value without the Thumb bit).
  entry=$(printf '%08x' $(( 16#$(readelf -sW "$1" | awk '$NF == "SysTick" { print $2; exit }') & ~1 )))
  timeout 120 qemu-system-arm -M mps2-an386 -cpu cortex-m4 -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel "$1" \
    -singlestep -d exec,nochain -D "$log" >/dev/null || true
  # A run starts at SysTick's first instruction and ends when the interrupted function runs
  # again, or at SysTick's first instruction again (tail-chaining: an interrupt pending at
  # the return goes straight into the next handler run).
  awk -v entry="$entry" '
    { split($4, field, "/"); pc = field[2]; symbol = $NF }
    pc == entry {
      if (inside) { count[n]++; interrupts++ } else back = previous
      inside = 1; n = 0
    }
    inside && pc != entry && symbol == back { count[n]++; interrupts++; inside = 0 }
    inside { n++ }
    { previous = symbol }
    END {
      for (c in count) {
        if (count[c] > best) { best = count[c]; mode = c }
        if (c + 0 > max) max = c + 0
      }
      print mode, best, interrupts, max
    }' "$log"
  rm -f "$log"
}

build baseline --no-default-features
build monitor
build histogram --features histogram
build plain --features plain-monitor

read -r base_flash base_ram < <(sizes "$out/baseline.elf")
read -r base_isr _ < <(isr "$out/baseline.elf")
printf '%-10s %7s %6s %7s %6s   %s\n' build flash RAM +flash +RAM \
  "SysTick instructions: steady (runs at it / runs), longest; +steady vs baseline"
for name in baseline monitor histogram plain; do
  read -r flash ram < <(sizes "$out/$name.elf")
  read -r mode at runs max < <(isr "$out/$name.elf")
  printf '%-10s %7d %6d %+7d %+6d   %d (%d/%d), %d; %+d\n' "$name" "$flash" "$ram" \
    $((flash - base_flash)) $((ram - base_ram)) "$mode" "$at" "$runs" "$max" $((mode - base_isr))
done
