//! The peak-RSS floor of a Rust program measuring as `rtlat run -m -t 2 -h 10000` does, and
//! nothing else: memory locked (`mlockall`, current and future), two threads with the
//! engine's stack size, each filling a 10 000-bucket histogram of `u64` counters for
//! LOOPS 1 ms sleeps. No options, no output but the counts.
//!
//! Whatever a measuring binary adds is above this line: `benches/vs-cyclictest.sh` runs it
//! beside `rtlat run` and cyclictest (README, "Binaries"). Built with glibc, `-m` locks the
//! whole of every library mapped (libc, libgcc_s) and of the binary itself, so this floor is
//! the price of a Rust program with std, before any of rtlat's code.
//!
//! `sudo cargo run --release -p rtlat-examples --example rss_floor -- [LOOPS]` (default 2000;
//! other arguments, such as the benchmark's cyclictest options, are ignored)

use std::process::ExitCode;
use std::time::Duration;

use rtlat_engine::threads::THREAD_STACK;
use rtlat_linux::lock_memory;

const BUCKETS: usize = 10_000;

fn main() -> ExitCode {
    // args_os: an argument that is not UTF-8 is ignored as any other (the default), not a panic.
    let loops: u64 = std::env::args_os()
        .nth(1)
        .and_then(|a| a.to_str()?.parse().ok())
        .unwrap_or(2_000);
    if let Err(e) = lock_memory() {
        eprintln!("rss_floor: {e}");
        return ExitCode::FAILURE;
    }
    let threads: Vec<_> = (0..2)
        .map(|index| {
            std::thread::Builder::new()
                .name(format!("floor-{index}"))
                .stack_size(THREAD_STACK)
                .spawn(move || {
                    let mut histogram = vec![0u64; BUCKETS];
                    for cycle in 0..loops {
                        std::thread::sleep(Duration::from_millis(1));
                        histogram[cycle as usize % BUCKETS] += 1;
                    }
                    histogram.iter().sum::<u64>()
                })
        })
        .collect();
    for thread in threads {
        match thread.map(|t| t.join()) {
            Ok(Ok(count)) => println!("{count}"),
            _ => return ExitCode::FAILURE,
        }
    }
    ExitCode::SUCCESS
}
