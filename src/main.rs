//! The `rtlat` command line.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--version" | "-V") => {
            println!("rtlat {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("run") | None => {
            eprintln!("rtlat run: not implemented yet (it lands with the `rtlat run` issue)");
            ExitCode::from(2)
        }
        Some(other) => {
            eprintln!("rtlat: unknown command '{other}'; accepted: run, --version");
            ExitCode::from(2)
        }
    }
}
