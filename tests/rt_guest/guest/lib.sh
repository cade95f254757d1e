# The guest's side of the result channel (read by tests/rt_guest/machine.rs).
#
# Every result is a record on the result port: `@@begin KEY`, the bytes as plain hex lines
# (`xxd -p`: nothing a tty or an interleaved kernel line can mistake for data), `@@end KEY`.
# The last record is `@@done`. The port is the second serial port where there is one
# (x86: ttyS1), else the console (arm64's virt machine has one UART).

if [ "$(cat /sys/class/tty/ttyS1/type 2>/dev/null || echo 0)" != 0 ]; then
  PORT=/dev/ttyS1
else
  PORT=/dev/console
fi

# emit KEY FILE: the file's bytes as record KEY.
emit() {
  {
    echo "@@begin $1"
    xxd -p "$2"
    echo "@@end $1"
  } >"$PORT"
}

# emit_text KEY TEXT: TEXT and a newline as record KEY.
emit_text() {
  printf '%s\n' "$2" >/tmp/.emit
  emit "$1" /tmp/.emit
}

# run KEY SECONDS CMD...: runs CMD (killed after SECONDS), then sends KEY.rc (its exit
# status; 137 when killed), KEY.out and KEY.err.
run() {
  key=$1 limit=$2
  shift 2
  timeout -s KILL "$limit" "$@" >"/tmp/$key.out" 2>"/tmp/$key.err"
  rc=$?
  emit_text "$key.rc" "$rc"
  emit "$key.out" "/tmp/$key.out"
  emit "$key.err" "/tmp/$key.err"
  return $rc
}

# keep KEY FILE: FILE as record KEY if it exists, else KEY.missing.
keep() {
  if [ -f "$2" ]; then emit "$1" "$2"; else emit_text "$1.missing" "$2"; fi
}

# Where each thread of process PID runs: `TID CPU ALLOWED NAME` lines (stat field 39,
# Cpus_allowed_list, comm).
placement() {
  for t in /proc/"$1"/task/*; do
    echo "${t##*/} $(cut -d' ' -f39 "$t/stat" 2>/dev/null) $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status" 2>/dev/null) $(cat "$t/comm" 2>/dev/null)"
  done
}

# measure KEY COMM SECONDS CMD...: runs CMD in the background, records where the threads of
# the processes named COMM run every second while it runs (`placement` lines), then its result
# as `run` does. Every second, not a fixed moment: on a loaded host an arm64 guest's rtlat
# had not started its measuring thread two seconds in.
measure() {
  key=$1 comm=$2 limit=$3
  shift 3
  timeout -s KILL "$limit" "$@" >"/tmp/$key.out" 2>"/tmp/$key.err" &
  pid=$!
  : >"/tmp/$key.placement"
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    for p in $(pidof "$comm"); do placement "$p" >>"/tmp/$key.placement"; done
  done
  wait $pid
  emit_text "$key.rc" "$?"
  emit "$key.out" "/tmp/$key.out"
  emit "$key.err" "/tmp/$key.err"
  emit "$key.placement" "/tmp/$key.placement"
}

# finish: the last record, then power off (QEMU exits: -no-reboot).
finish() {
  echo "@@done" >"$PORT"
  sync
  poweroff -f
}

# `until_cycling COMM`: waits (at most 30 s) until a thread named COMM has waited 20 times
# (its voluntary context switches): a measuring thread in its loop, not one still being
# set up. Without it a hog started a fixed time after the tool could come before the
# thread's first wait (TCG on a loaded host took over 0.3 s from the tracer's start to
# it): no wake-up was late, nothing was held up (a CI pair whose worst was 7 ms).
until_cycling() {
  for i in $(seq 150); do
    for task in /proc/[0-9]*/task/*; do
      comm=
      read -r comm <"$task/comm" 2>/dev/null
      [ "$comm" = "$1" ] || continue
      switches=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "$task/status" 2>/dev/null)
      [ "${switches:-0}" -ge 20 ] && return 0
    done
    sleep 0.2
  done
  return 1
}

# A SCHED_FIFO shell loop (priority PRIO, 95 unless given) pinned to CPU 1 for HOLD seconds,
# started DELAY seconds from now in the background, or DELAY seconds after a thread named
# AFTER is in its loop (until_cycling): `hog DELAY HOLD [PRIO [AFTER]]`; its pid in
# /tmp/hog.pid. HOLD counts from the loop's start, not
# from the fork: chrt and taskset exec on CPU 0 first, and on a loaded host that took most
# of 0.3 s once, leaving the hog 10 ms on CPU 1.
hog() {
  (
    [ -z "$4" ] || until_cycling "$4"
    sleep "$1"
    chrt -f "${3:-95}" taskset -c 1 sh -c 'while :; do :; done' &
    pid=$!
    echo $pid >/tmp/hog.pid
    tries=0
    until tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q '^sh -c while' || [ "$tries" -ge 200 ]; do
      sleep 0.005
      tries=$((tries + 1))
    done
    sleep "$2"
    kill -9 $pid
  ) &
}
