//! `rtlat-plot`: the body of `rtlat plot`, a binary of its own so that the plotting code
//! (fonts, rasteriser, libm) is not part of the binary that `rtlat run -m` locks into memory.

use std::process::ExitCode;

fn main() -> ExitCode {
    rtlat::args::main("rtlat plot", |args| rtlat::cli::plot::main(&args[1..]))
}
