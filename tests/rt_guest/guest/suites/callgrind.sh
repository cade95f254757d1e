# The callgrind suite (tests/rt_guest/x86.rs, `timerlat_costs_per_cycle_under_callgrind`,
# run by benches/timerlat-callgrind.sh, not by CI): user-space instructions per cycle of a
# plain `rtlat run` and of `rtlat run --timerlat` on 6.12, whose timerlat_fd makes rtlat's
# measuring thread the tracer's workload. valgrind is in the initramfs only when
# RTLAT_GUEST_VALGRIND=1 (tests/rt_guest/initramfs.rs); the binary is the one `cargo test`
# built (--release for these figures). Each mode runs LOOPS_1 and LOOPS_2 cycles: the
# difference of the Ir per thread, over the difference of the loops, is the cost of a
# cycle, without the start and the end. Each thread's callgrind file is sent as
# cg.MODE.LOOPS.N (N: callgrind's thread number, 1 the main thread). The interval is 10 ms:
# at 1 ms, valgrind (one thread at a time) under TCG made the --timerlat run overrun 9252
# times in 1200 cycles, and each overrun is a second read of timerlat_fd, which is not the
# cost of a cycle.
LOOPS_1=200
LOOPS_2=1200
export VALGRIND_LIB=/usr/libexec/valgrind
for mode in plain timerlat; do
  extra=""
  [ "$mode" = timerlat ] && extra="--timerlat"
  for loops in $LOOPS_1 $LOOPS_2; do
    rm -rf /tmp/cg && mkdir -p /tmp/cg
    # shellcheck disable=SC2086
    run "cg.$mode.$loops" 600 valgrind --tool=callgrind --separate-threads=yes \
      --callgrind-out-file=/tmp/cg/out \
      rtlat run -t 1 -a 1 -p 80 -i 10000 -l "$loops" -q $extra
    for f in /tmp/cg/out-*; do
      [ -f "$f" ] && keep "cg.$mode.$loops.${f##*-}" "$f"
    done
    emit_text "cg.$mode.$loops.files" "$(ls /tmp/cg)"
  done
done
