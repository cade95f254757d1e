//! `rtlat-plot`: the body of `rtlat plot`, a binary of its own so that the plotting code
//! (fonts, rasteriser, libm) is not part of the binary that `rtlat run -m` locks into memory.

use std::process::ExitCode;

fn main() -> ExitCode {
    let code = match rtlat::args::utf8(std::env::args_os()) {
        Ok(args) => rtlat::plot::main(&args[1..]),
        Err(message) => {
            rtlat::errln!("rtlat plot: {message}");
            ExitCode::from(rtlat::exit_status::BAD_INPUT)
        }
    };
    // A reader gone (`rtlat plot --help | head -1`) ends the process by SIGPIPE.
    rtlat::stdio::exit("rtlat plot", code)
}
