# The protocol's first boot (tests/rt_guest/protocol.rs): the guest as installed, no CPU
# isolated; measured on CPU 1 as the second boot will be.
run before 120 rtlat run -t 1 -a 1 -p 80 -i 1000 -l 5000 -q -h 400 --json /tmp/before.json
keep before.json /tmp/before.json
run audit 120 rtlat audit --json
