//! `--load`: what runs beside the measurement. Any text is a description, kept in the JSON's
//! provenance; `--load stress-ng` starts rtlat's built-in load, an OSADL-like mix (every
//! online CPU busy with computation, a process writing and syncing a file, two touching
//! 64 MiB each, timers at 10 kHz), before the measuring threads and stops it when the run
//! ends, however it ends. The measured threads' real-time priority is what is tested: the
//! load runs SCHED_OTHER on the default CPUs (the isolated ones stay out of its reach unless
//! named).

use std::process::{Child, Command, Stdio};

/// The name that starts the built-in load.
pub const BUILT_IN: &str = "stress-ng";

/// The built-in load's arguments (after `stress-ng`).
const ARGS: [&str; 14] = [
    "--cpu",
    "0",
    "--io",
    "1",
    "--vm",
    "2",
    "--vm-bytes",
    "64M",
    "--timer",
    "1",
    "--timer-freq",
    "10000",
    "--quiet",
    "--oomable",
];

/// The built-in load, running; stopped (its whole process group) when dropped.
pub struct Load {
    child: Child,
}

impl Load {
    /// The command line the built-in load runs, as the provenance records it; `timeout_s`:
    /// stress-ng's own end, a bound should rtlat die without stopping it.
    pub fn command_line(timeout_s: Option<u64>) -> String {
        let mut words = vec![BUILT_IN.to_owned()];
        words.extend(ARGS.iter().map(|a| a.to_string()));
        if let Some(t) = timeout_s {
            words.extend(["--timeout".to_owned(), format!("{t}s")]);
        }
        words.join(" ")
    }

    /// Starts it in a process group of its own; `timeout_s` as [`Load::command_line`].
    pub fn start(timeout_s: Option<u64>) -> Result<Load, String> {
        let line = Load::command_line(timeout_s);
        let mut words = line.split(' ');
        let program = words.next().unwrap_or(BUILT_IN);
        let child = std::os::unix::process::CommandExt::process_group(
            Command::new(program)
                .args(words)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
            0,
        )
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                "--load stress-ng: stress-ng is not installed (apt-get install stress-ng), or describe the load instead (--load TEXT)".to_owned()
            } else {
                format!("--load stress-ng: cannot start stress-ng: {e}")
            }
        })?;
        Ok(Load { child })
    }

    /// The load's process group (its leader's pid).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        // SIGTERM to the group: stress-ng stops its workers and exits; then it is reaped.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_the_one_recorded() {
        assert_eq!(
            Load::command_line(Some(70)),
            "stress-ng --cpu 0 --io 1 --vm 2 --vm-bytes 64M --timer 1 --timer-freq 10000 --quiet --oomable --timeout 70s"
        );
        assert!(!Load::command_line(None).contains("--timeout"));
    }
}
