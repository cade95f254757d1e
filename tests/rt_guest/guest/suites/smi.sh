# The SMI suite (tests/rt_guest/smi.rs reads what it sends): 6.1 with CPU 1 isolated, booted
# on an Intel CPU model under TCG. A write to the APM control port (0xb2) makes QEMU's PIIX4
# raise an SMI on the first CPU (CPU 0, whichever CPU wrote: a real chipset broadcasts it
# to all), counted in that CPU's MSR_SMI_COUNT (0x34), which the msr driver reads: real
# SMIs, real counter, real driver; only the firmware that handles them is SeaBIOS's.
#
# The real cyclictest and rtlat (under its name and its own) with --smi on CPU 0 while five
# SMIs are raised (`smi_burst`): the `T:` line's SMI column, -v's fourth column, -h's
# `# SMIs:` line with a second thread on CPU 1 (which counts none), rtlat's JSON; first
# without the msr driver, where both end alike.

# smi_burst COMM: five SMIs, 0.1 s apart, once the thread named COMM is in its loop.
smi_burst() {
  (
    until_cycling "$1"
    for i in 1 2 3 4 5; do
      printf "\000" | dd of=/dev/port bs=1 seek=178 oflag=seek_bytes 2>/dev/null
      sleep 0.1
    done
  ) &
}

emit_text cpuinfo "$(grep -m3 -E '^(vendor_id|cpu family|flags)' /proc/cpuinfo)"
# Without the msr driver: cyclictest's WARN and FATAL lines, status 1; rtlat's one line.
run nodriver.cyclictest 60 cyclictest --smi -a 0 -t 1 -l 10 -q
run nodriver.as_cyclictest 60 /opt/rtlat/as/cyclictest --smi -a 0 -t 1 -l 10 -q
run nodriver.rtlat 60 rtlat run --smi -a 0 -t 1 -l 10 -q
insmod "/opt/modules/$(uname -r | cut -d. -f1,2)/msr.ko"
emit_text insmod.rc "$?"
emit_text count.before "$(dd if=/dev/cpu/0/msr bs=8 count=1 skip=52 iflag=skip_bytes 2>/dev/null | od -An -tu8)"

for tool in cyclictest as_cyclictest; do
  if [ $tool = cyclictest ]; then
    prog=cyclictest comm=cyclictest
  else
    prog=/opt/rtlat/as/cyclictest comm=rtlat-t0
  fi
  smi_burst $comm
  run $tool.q 90 $prog --smi -a 0 -t 1 -p 80 -i 1000 -D 3 -q
  wait
  smi_burst $comm
  run $tool.v 90 $prog --smi -a 0 -t 1 -p 80 -i 1000 -D 3 -v
  wait
  # Two threads: CPU 1's counts none of CPU 0's SMIs.
  smi_burst $comm
  run $tool.h 90 $prog --smi -a 0,1 -t 2 -p 80 -i 1000 -D 3 -q -h 100
  wait
done
smi_burst rtlat-t0
run rtlat 90 rtlat run --smi -a 0 -t 1 -p 80 -i 1000 -D 3 -q --json /tmp/rtlat.json
wait
keep rtlat.json /tmp/rtlat.json
emit_text count.after "$(dd if=/dev/cpu/0/msr bs=8 count=1 skip=52 iflag=skip_bytes 2>/dev/null | od -An -tu8)"
