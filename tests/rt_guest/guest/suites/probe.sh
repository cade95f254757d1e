# The accelerator probe (machine.rs, `accel`): the guest reached /init; nothing else.
