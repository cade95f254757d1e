#!/usr/bin/env bash
# The firmware's figures (README.md, "Figures"): flash and RAM of three builds of the same
# firmware on thumbv7em-none-eabihf (release, LTO, opt-level "s", Cargo.toml's profile), and the
# instructions its SysTick handler executes, counted from a QEMU instruction trace.
#
#   baseline   --no-default-features: the interrupt reads the time source and counts, the main
#              loop prints the count; no monitor
#   monitor    default: the jitter monitor ticked in the interrupt, T:/J: report lines
#   histogram  --features histogram: plus a ±10 ms, 1.6 % lateness histogram and percentiles
#
# Flash = .vector_table + .text + .rodata + .data (its initial values live in flash);
# RAM = .data + .bss + .uninit (the stack is not counted: cortex-m-rt puts it at the top of RAM).
#
# ISR instructions: QEMU runs each build with one instruction per translation block and no
# chaining (-singlestep -d exec,nochain), so its log has one line per executed instruction, named
# by the function holding it. An interrupt runs from the first instruction of SysTick until the
# code it interrupted (the main loop's function) runs again, callees included. The most common
# count over the run's ~1000 interrupts is the steady-state handler; its min and max are shown
# (the first tick and periods QEMU delivered late take other paths). The delta against the
# baseline is what tick + record cost.
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

# isr ELF: prints "mode min max interrupts" of the SysTick handler's executed instructions.
isr() {
  local log=$out/$(basename "$1" .elf).trace
  timeout 120 qemu-system-arm -M mps2-an386 -cpu cortex-m4 -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel "$1" \
    -singlestep -d exec,nochain -D "$log" >/dev/null || true
  awk '
    { symbol = $NF }
    symbol == "SysTick" && previous != "SysTick" && !inside { inside = 1; back = previous; n = 0 }
    inside && symbol == back { count[n]++; inside = 0; interrupts++ }
    inside { n++ }
    { previous = symbol }
    END {
      min = -1
      for (c in count) {
        if (count[c] > best) { best = count[c]; mode = c }
        if (min < 0 || c + 0 < min) min = c + 0
        if (c + 0 > max) max = c + 0
      }
      print mode, min, max, interrupts
    }' "$log"
  rm -f "$log"
}

build baseline --no-default-features
build monitor
build histogram --features histogram

read -r base_flash base_ram < <(sizes "$out/baseline.elf")
read -r base_isr base_min base_max base_n < <(isr "$out/baseline.elf")
printf '%-10s %8s %8s %10s %9s   %s\n' build flash RAM "+flash" "+RAM" "SysTick instructions (min-max, interrupts): +vs baseline"
for name in baseline monitor histogram; do
  read -r flash ram < <(sizes "$out/$name.elf")
  read -r mode min max n < <(isr "$out/$name.elf")
  printf '%-10s %8d %8d %+10d %+9d   %d (%d-%d, %d): %+d\n' "$name" "$flash" "$ram" \
    $((flash - base_flash)) $((ram - base_ram)) "$mode" "$min" "$max" "$n" $((mode - base_isr))
done
