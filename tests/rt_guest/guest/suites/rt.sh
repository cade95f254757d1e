# The PREEMPT_RT suite (tests/rt_guest/x86.rs reads what it sends): a guest booted with CPU 1
# isolated (isolcpus=, nohz_full=, rcu_nocbs=, irqaffinity=0: the tuning protocol's line).
#
#  placement.*  every front measuring on the isolated CPU 1, which is outside the default
#               affinity (init's mask is CPU 0): where its threads ran (issue 22, item 1)
#  tracer.*     --explain reading the osnoise tracer's files (item 2)
#  hog.*        --explain on CPU 1 with a SCHED_FIFO 95 hog there, and the tracefs settings
#               before and after (item 3: the idle task is never a cause)
#  brk.*        the same hog ending a run with -b: the trace kept beside the JSON
#  servo.*      rtlat servo --explain on CPU 1 with a SCHED_FIFO 99 hog there (above the
#               servo thread's 97): the hog named, the tracer's events in the verdict
#  audit.*      rtlat audit and its suggested line on this kernel
#  side.*       cyclictest and rtlat's cyclictest, the same command line, one after the other
#  rtla.*       rtla timerlat beside rtlat run on the isolated CPU
#  beside.*     --explain while rtla timerlat runs in an instance of its own
#  hwnoise.*    rtlat hwnoise with the hwlat tracer on CPU 1, tracefs before and after
#  timerlat.*   rtlat run --timerlat on CPU 1 (alone, then with the hog), tracefs before and after
#  servo.timerlat.*, monitor.timerlat.*  rtlat servo and rtlat monitor --timerlat on CPU 1,
#               tracefs before and after

ip link set lo up
emit_text rt.isolated "$(cat /sys/devices/system/cpu/isolated)"
emit_text rt.nohz_full "$(cat /sys/devices/system/cpu/nohz_full)"
emit_text rt.init_affinity "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/1/status)"

# 1. Every front on the isolated CPU, named by the user (and monitor's default: the isolated
# CPUs); the real cyclictest for reference.
measure placement.cyclictest cyclictest 60 cyclictest -t 1 -a 1 -p 80 -i 1000 -D 4 -q
measure placement.run rtlat 60 rtlat run -t 1 -a 1 -p 80 -i 1000 -D 4 -q --json /tmp/run.json
keep placement.run.json /tmp/run.json
measure placement.as_cyclictest cyclictest 60 /opt/rtlat/as/cyclictest -t 1 -a 1 -p 80 -i 1000 -D 4 -q
measure placement.run_all rtlat 60 rtlat run -t -a all -p 80 -i 1000 -D 4 -q
measure placement.latency latency 60 /opt/rtlat/as/latency -c 1 -T 4 -p 1000
measure placement.servo rtlat 60 rtlat servo --cpu 1 --base 0 -D 4 -q
measure placement.servo_default rtlat 60 rtlat servo --base 0 -D 4 -q
measure placement.monitor rtlat-monitor 60 timeout -s INT 4 rtlat monitor --listen 127.0.0.1:0 --window 1s --textfile /tmp/monitor.prom
keep placement.monitor.prom /tmp/monitor.prom

# 2. The tracer's files, read by the kernel's rules: a read buffer not larger than the text
# is refused (the cause of the defect), a page is not.
run tracer.dd_small 10 dd if=/sys/kernel/tracing/osnoise/cpus bs=4 count=1
run tracer.dd_page 10 dd if=/sys/kernel/tracing/osnoise/cpus bs=4096 count=1
run tracer.explain 60 rtlat run -t 1 -a 1 -p 80 -i 1000 -D 2 -q --explain

# The tracefs settings --explain changes, one `file: value` line each.
tracefs_settings() {
  for f in current_tracer tracing_on trace_clock osnoise/cpus osnoise/options \
    events/osnoise/irq_noise/enable events/osnoise/softirq_noise/enable \
    events/osnoise/thread_noise/enable events/osnoise/nmi_noise/enable; do
    [ -e "/sys/kernel/tracing/$f" ] && echo "$f: $(cat "/sys/kernel/tracing/$f")"
  done
}


# 3. --explain with the hog on the measured CPU.
tracefs_settings >/tmp/hog.tracefs_before
emit hog.tracefs_before /tmp/hog.tracefs_before
hog 1 0.3 95 rtlat-t0
run hog 90 rtlat run -t 1 -a 1 -p 80 -i 1000 -D 5 -q --explain --explain-above 20000 --json /tmp/hog.json
wait
emit_text hog.pid "$(cat /tmp/hog.pid)"
keep hog.json /tmp/hog.json
tracefs_settings >/tmp/hog.tracefs_after
emit hog.tracefs_after /tmp/hog.tracefs_after

# The same hog ending the run with -b (50 ms): the trace is kept beside the JSON.
mkdir -p /tmp/brk
hog 1 0.3 95 rtlat-t0
run brk 90 rtlat run -t 1 -a 1 -p 80 -i 1000 -D 8 -q --explain -b 50000 --json /tmp/brk/brk.json
wait
emit_text brk.pid "$(cat /tmp/hog.pid)"
emit_text brk.files "$(ls /tmp/brk)"
keep brk.json /tmp/brk/brk.json
for f in /tmp/brk/rtlat-break-*.trace; do keep brk.trace "$f"; done
tracefs_settings >/tmp/brk.tracefs_after
emit brk.tracefs_after /tmp/brk.tracefs_after

# servo --explain with a hog above its servo thread (97): the thread's worst run explained,
# the tracer's events in it, tracefs as it was.
hog 2 0.3 99
run servo 90 rtlat servo --cpu 1 --base 0 -D 5 -q --explain --json /tmp/servo.json
wait
emit_text servo.pid "$(cat /tmp/hog.pid)"
keep servo.json /tmp/servo.json
tracefs_settings >/tmp/servo.tracefs_after
emit servo.tracefs_after /tmp/servo.tracefs_after

# 4. The audit of this kernel, and the line it suggests.
run audit 120 rtlat audit --json
run audit.suggest 120 rtlat audit --suggest --isolate 1 --json

# 5. cyclictest and rtlat's cyclictest side by side on the isolated CPU.
run side.cyclictest 60 cyclictest -m -t 1 -a 1 -p 80 -i 1000 -l 2000 -q -h 100 --json=/tmp/side.cyclictest.json
keep side.cyclictest.json /tmp/side.cyclictest.json
run side.rtlat 60 /opt/rtlat/as/cyclictest -m -t 1 -a 1 -p 80 -i 1000 -l 2000 -q -h 100 --json=/tmp/side.rtlat.json
keep side.rtlat.json /tmp/side.rtlat.json

# 6. rtla timerlat beside rtlat run, both on CPU 1.
timeout -s KILL 60 rtla timerlat top -c 1 -d 5s -q >/tmp/rtla.top.out 2>/tmp/rtla.top.err &
rtla=$!
run rtla.rtlat 60 rtlat run -t 1 -a 1 -p 80 -i 1000 -D 4 -q --json /tmp/rtla.rtlat.json
wait $rtla
emit_text rtla.top.rc "$?"
emit rtla.top.out /tmp/rtla.top.out
emit rtla.top.err /tmp/rtla.top.err
keep rtla.rtlat.json /tmp/rtla.rtlat.json
run rtla.hist 60 rtla timerlat hist -c 1 -d 3s

# 7. rtlat --explain while rtla timerlat runs (in a tracefs instance of its own): the osnoise
# settings every instance shares stay rtla's, and both runs end well.
timeout -s KILL 90 rtla timerlat top -c 1 -d 12s -q >/tmp/beside.rtla.out 2>/tmp/beside.rtla.err &
rtla=$!
# rtla sets its instance's tracer once it has read the events' formats (seconds under TCG).
for i in $(seq 150); do
  grep -qs timerlat /sys/kernel/tracing/instances/*/current_tracer && break
  sleep 0.2
done
emit_text beside.instances "$(for f in /sys/kernel/tracing/instances/*/current_tracer; do echo "$f: $(cat "$f")"; done)"
tracefs_settings >/tmp/beside.settings_before
run beside.explain 60 rtlat run -t 1 -a 1 -p 80 -i 1000 -D 2 -q --explain
tracefs_settings >/tmp/beside.settings_after
wait $rtla
emit_text beside.rtla.rc "$?"
emit beside.rtla.out /tmp/beside.rtla.out
emit beside.settings_before /tmp/beside.settings_before
emit beside.settings_after /tmp/beside.settings_after

# 8. rtlat hwnoise with the kernel's hwlat tracer on CPU 1: the settings it changes, before
# and after (all put back), its output, JSON and report.
hwlat_settings() {
  for f in current_tracer tracing_on tracing_thresh tracing_cpumask \
    hwlat_detector/window hwlat_detector/width; do
    [ -e "/sys/kernel/tracing/$f" ] && echo "$f: $(cat "/sys/kernel/tracing/$f")"
  done
}
hwlat_settings >/tmp/hwnoise.before
run hwnoise 90 rtlat hwnoise --duration 3 --window 100ms --width 50ms --threshold 1 --cpu-list 1 --report /tmp/hwnoise.report --json /tmp/hwnoise.json
hwlat_settings >/tmp/hwnoise.after
emit hwnoise.before /tmp/hwnoise.before
emit hwnoise.after /tmp/hwnoise.after
keep hwnoise.json /tmp/hwnoise.json
keep hwnoise.report /tmp/hwnoise.report

# 9. rtlat run --timerlat on CPU 1: the timerlat tracer wakes rtlat's thread where the kernel
# has timerlat_fd (6.12), its own timerlat/1 thread beside rtlat's on 6.1; the settings it
# changes, before and after (all put back). Then the same with the hog on CPU 1 for a second:
# the delay is the thread's, not the timer IRQ's.
timerlat_settings() {
  for f in current_tracer tracing_on osnoise/cpus osnoise/options osnoise/timerlat_period_us \
    osnoise/stop_tracing_us osnoise/stop_tracing_total_us; do
    [ -e "/sys/kernel/tracing/$f" ] && echo "$f: $(cat "/sys/kernel/tracing/$f")"
  done
}
timerlat_settings >/tmp/timerlat.before
run timerlat 90 rtlat run -t 1 -a 1 -p 80 -i 1000 -D 3 -q --timerlat --json /tmp/timerlat.json
timerlat_settings >/tmp/timerlat.after
emit timerlat.before /tmp/timerlat.before
emit timerlat.after /tmp/timerlat.after
keep timerlat.json /tmp/timerlat.json
hog 1 1 95 rtlat-t0
run timerlat.hog 90 rtlat run -t 1 -a 1 -p 80 -i 1000 -D 4 -q --timerlat --json /tmp/timerlat.hog.json
wait
keep timerlat.hog.json /tmp/timerlat.hog.json
# rtlat servo --timerlat: the tracer's own thread at the servo period beside the servo
# thread, on both kernels.
timerlat_settings >/tmp/servo.timerlat.before
run servo.timerlat 90 rtlat servo --cpu 1 --base 0 -D 3 -q --timerlat --json /tmp/servo.timerlat.json
timerlat_settings >/tmp/servo.timerlat.after
emit servo.timerlat.before /tmp/servo.timerlat.before
emit servo.timerlat.after /tmp/servo.timerlat.after
keep servo.timerlat.json /tmp/servo.timerlat.json
# rtlat monitor --timerlat: the tracer's samples as metrics, on both kernels.
timerlat_settings >/tmp/monitor.timerlat.before
run monitor.timerlat 60 timeout -s INT 4 rtlat monitor -a 1 --timerlat --listen 127.0.0.1:0 --window 1s --textfile /tmp/monitor.timerlat.prom
timerlat_settings >/tmp/monitor.timerlat.after
emit monitor.timerlat.before /tmp/monitor.timerlat.before
emit monitor.timerlat.after /tmp/monitor.timerlat.after
keep monitor.timerlat.prom /tmp/monitor.timerlat.prom
