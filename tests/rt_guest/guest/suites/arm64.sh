# The arm64 suite (tests/rt_guest/arm64.rs): Debian's arm64 PREEMPT_RT kernel on QEMU's virt
# machine, four CPUs (the Bubblegum-96's count), CPU 1 isolated; rtlat's static aarch64 build.
# The seed 004 flow without the board: audit, the board profile's idle and loaded runs,
# compare; and the generic timer's own clock on the isolated CPU.
emit_text arm64.isolated "$(cat /sys/devices/system/cpu/isolated)"
emit_text arm64.init_affinity "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/1/status)"
measure cntvct rtlat 90 rtlat run --clock cntvct -t 1 -a 1 -p 80 -i 1000 -D 4 -q --json /tmp/cntvct.json
keep cntvct.json /tmp/cntvct.json
run audit 120 rtlat audit --json
# The board profile: its CPUs (0-3, the isolated 1 among them) are accepted; QEMU's virt
# machine has no cpufreq, so the profile's 1.6 GHz hold cannot be made and the run is refused.
run profile 60 rtlat run --profile bubblegum96 -l 100 -q
# The profile's own audit checks, as --profile asks for them.
run profile.audit 120 rtlat audit --only kernel.preempt_rt,cpufreq.governor,cpuidle.states,irq.on_isolated,sysctl.sched_rt_runtime_us,kernel.clocksource --json
# Its reference runs with its layout given (one SCHED_FIFO 99 thread per CPU), idle and
# under load (the profile's `stress -c 4`: busy loops on the other CPUs).
run reference.idle 180 rtlat run -t 4 -a 0-3 -p 99 -i 1000 -l 500 -q --json /tmp/idle.json
keep reference.idle.json /tmp/idle.json
for cpu in 0 2 3; do taskset -c $cpu sh -c 'while :; do :; done' & done
run reference.stress 180 rtlat run -t 4 -a 0-3 -p 99 -i 1000 -l 500 -q --json /tmp/stress.json
kill -9 $(jobs -p) 2>/dev/null
keep reference.stress.json /tmp/stress.json
run compare 60 rtlat compare /tmp/idle.json /tmp/stress.json
