# The pairs suite (tests/rt_guest/x86.rs reads what it sends), on 6.12 with CPU 1 isolated,
# booted on its own with TCG's vCPUs on one host thread (twenty tracer switches in a row
# oopsed multi-threaded TCG's guest: tests/rt_guest/machine.rs, Boot::single_threaded).
#
# rtla timerlat's automatic mode and rtlat run --timerlat --explain in turn, each under
# the same hog (SCHED_FIFO 95 on CPU 1 for 0.3 s, above the woken thread, started 0.3 s
# after rtla's tracer runs or rtlat's measuring thread is in its loop): ten pairs, each
# with the hog's pid. rtla stops at a thread latency of 100 ms (TCG's own noise stays
# under ~15 ms); Debian's rtla is 6.1's, without the auto-analysis that names the blocking
# task (6.3+), and its saved trace ended before the hog in every try, so only rtlat's parts
# are checked for the hog's name. On 6.12 only: 6.1 under TCG stalled once as rtla
# timerlat started (tests/rt_guest/machine.rs).
# `until_tracing FILE`: waits (at most 30 s) until FILE names the timerlat tracer.
until_tracing() {
  for i in $(seq 150); do
    grep -qs timerlat $1 && return 0
    sleep 0.2
  done
  return 1
}
ip link set lo up
for pair in 1 2 3 4 5 6 7 8 9 10; do
  rm -f /tmp/timerlat_trace.txt
  (cd /tmp && exec timeout -s KILL 60 rtla timerlat top -c 1 -a 100000 -d 5s -q) \
    >"/tmp/pair.$pair.rtla.out" 2>"/tmp/pair.$pair.rtla.err" &
  tool=$!
  until_tracing '/sys/kernel/tracing/instances/*/current_tracer'
  sleep 0.3
  hog 0 0.3
  wait $tool
  emit_text "pair.$pair.rtla.rc" "$?"
  wait
  emit "pair.$pair.rtla.out" "/tmp/pair.$pair.rtla.out"
  emit "pair.$pair.rtla.err" "/tmp/pair.$pair.rtla.err"
  emit_text "pair.$pair.rtla.hog" "$(cat /tmp/hog.pid)"
  rtlat run -t 1 -a 1 -p 80 -i 1000 -D 3 -q --timerlat --explain --json "/tmp/pair.$pair.json" \
    >"/tmp/pair.$pair.rtlat.out" 2>"/tmp/pair.$pair.rtlat.err" &
  tool=$!
  hog 0.3 0.3 95 rtlat-t0
  wait $tool
  emit_text "pair.$pair.rtlat.rc" "$?"
  wait
  emit "pair.$pair.rtlat.out" "/tmp/pair.$pair.rtlat.out"
  emit "pair.$pair.rtlat.err" "/tmp/pair.$pair.rtlat.err"
  keep "pair.$pair.json" "/tmp/pair.$pair.json"
  emit_text "pair.$pair.rtlat.hog" "$(cat /tmp/hog.pid)"
done
