//! Report lines in the peers' exact formats, written into any `core::fmt::Write` (a serial
//! port, a `String`, a `heapless::String`), so firmware prints the same lines as the CLI.
//!
//! Values come in nanoseconds; each format converts to its own unit here (truncating to µs
//! like cyclictest, or µs with three decimals like Xenomai), so callers never do that
//! arithmetic.

mod buffer;
mod cyclictest;
mod decimal;
mod jitter;
mod lines;
mod micros;
pub mod template;
mod xenomai;

pub use buffer::LineBuffer;
pub use cyclictest::CyclictestLine;
pub use decimal::Decimal;
pub use jitter::JitterLine;
pub use lines::JitterLines;
pub use micros::Micros3;
pub use xenomai::XenomaiLine;
