# The tune suite (tests/rt_guest/tune.rs reads what it sends): 6.12 booted with the kernel
# line `rtlat tune apply /guest/tune.toml --persist` wrote into GRUB's drop-in on the host.
# The profile verified before and after `rtlat tune apply --apply`, then drift injected (an
# IRQ put back on CPU 1, the thread's priority taken away, as a restart would) and verified
# again, then the restore file undoes the apply.
sleep 1000 &
sleeper=$!
emit_text sleeper "$sleeper"
run verify.before 60 rtlat verify /guest/tune.toml --json
run apply 60 rtlat tune apply /guest/tune.toml --apply --save /tmp/tune-restore.json
run verify.applied 60 rtlat verify /guest/tune.toml --json
# The first IRQ whose affinity can be set onto CPU 1.
moved=
for dir in /proc/irq/[0-9]*; do
  [ "$(cat "$dir/smp_affinity_list" 2>/dev/null)" = 0 ] || continue
  if echo 0-1 >"$dir/smp_affinity_list" 2>/dev/null; then
    moved=${dir##*/}
    break
  fi
done
emit_text drift.irq "$moved"
chrt -o -p 0 "$sleeper"
run verify.drifted 60 rtlat verify /guest/tune.toml --json
run restore 60 rtlat tune --restore /tmp/tune-restore.json
emit_text sleeper.after "$(cut -d' ' -f41 /proc/$sleeper/stat) $(cut -d' ' -f40 /proc/$sleeper/stat)"
kill "$sleeper"
