# The protocol's second boot (tests/rt_guest/protocol.rs): CPU 1 isolated on the command line,
# the host's vCPU threads real-time and pinned; inside, the IRQs moved away from CPU 1 with a
# restore file, measured, and restored.

# Every IRQ's affinity, one `IRQ: CPUS` line each.
irq_affinities() {
  for f in /proc/irq/*/smp_affinity_list; do
    n=${f#/proc/irq/}
    echo "${n%/smp_affinity_list}: $(cat "$f")"
  done
}

# irqaffinity=0 kept every IRQ off CPU 1 from boot; put two back on it, as irqbalance or a
# driver would, so that there is something to move.
echo 0-1 >/proc/irq/4/smp_affinity_list
echo 1 >/proc/irq/8/smp_affinity_list
irq_affinities >/tmp/irq.before
emit irq.before /tmp/irq.before
run irq.away 60 rtlat irq --away-from 1 --apply --save /tmp/irq-restore.json
irq_affinities >/tmp/irq.moved
emit irq.moved /tmp/irq.moved
run after 120 rtlat run -t 1 -a 1 -p 80 -i 1000 -l 5000 -q -h 400 --json /tmp/after.json
keep after.json /tmp/after.json
run irq.restore 60 rtlat irq --restore /tmp/irq-restore.json
irq_affinities >/tmp/irq.after
emit irq.after /tmp/irq.after
run audit 120 rtlat audit --json
