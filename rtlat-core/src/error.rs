//! The crate's one error type.

use core::convert::Infallible;
use core::fmt;

/// Everything that can go wrong in rtlat-core.
///
/// Configuration errors (`InvalidLayout`, `ZeroInterval`, `LayoutMismatch`) come from
/// constructors and never from a recording path. `Clock` and `Timer` carry the backend's own
/// error out of the cycle engine; they default to [`Infallible`] where no backend is involved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error<C = Infallible, T = Infallible> {
    /// A histogram layout does not fit its storage or the `i64` range; the text says why.
    InvalidLayout(&'static str),
    /// An interval, period or tick rate of zero was given; the text names which.
    ZeroInterval(&'static str),
    /// Two histograms of different layouts or capacities cannot be merged.
    LayoutMismatch,
    /// The clock failed to give the time.
    Clock(C),
    /// The timer failed to sleep.
    Timer(T),
}

impl<C: fmt::Display, T: fmt::Display> fmt::Display for Error<C, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidLayout(why) => write!(f, "invalid histogram layout: {why}"),
            Error::ZeroInterval(what) => write!(f, "{what} must be greater than zero"),
            Error::LayoutMismatch => {
                f.write_str("histograms differ in layout or capacity and cannot be merged")
            }
            Error::Clock(e) => write!(f, "clock read failed: {e}"),
            Error::Timer(e) => write!(f, "timer sleep failed: {e}"),
        }
    }
}

impl<C: fmt::Debug + fmt::Display, T: fmt::Debug + fmt::Display> core::error::Error
    for Error<C, T>
{
}
