//! Why a session could not start or run.

use core::fmt;

use rtlat_linux::{SignalError, ThreadError};

use crate::error::OnThread;
use crate::threads::ThreadFailed;

/// A front's own initialisation error ([`super::SessionPlan::init`]), whatever its type.
pub type InitError = Box<dyn std::error::Error + Send + Sync>;

/// A session's failure: the step that failed and the system's reason.
#[derive(Debug)]
pub enum SessionError {
    /// The stop handlers could not be installed.
    Signals(SignalError),
    /// The threads may not take their real-time policy or priority.
    Permission(ThreadError),
    /// The main thread could not be moved to the housekeeping CPUs.
    Housekeeping(ThreadError),
    /// The front's initialisation ([`super::SessionPlan::init`]) failed.
    Init(InitError),
    /// A measuring thread could not start, failed or panicked.
    Thread(ThreadFailed<OnThread>),
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Signals(e) => e.fmt(f),
            SessionError::Permission(e) => e.fmt(f),
            SessionError::Housekeeping(e) => write!(f, "--mainaffinity: {e}"),
            SessionError::Init(e) => e.fmt(f),
            SessionError::Thread(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SessionError::Signals(e) => Some(e),
            SessionError::Permission(e) | SessionError::Housekeeping(e) => Some(e),
            SessionError::Init(e) => Some(e.as_ref()),
            SessionError::Thread(e) => Some(e),
        }
    }
}
