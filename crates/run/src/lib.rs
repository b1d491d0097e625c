//! wayfarer-run: puts a run together, in one place for every command that runs one.
//!
//! `explore`, `demo`, `features` and `bench` explore with [`explore::explore`]; `replay`
//! and `minimize` open a trace with [`trace::open`]. Both read the configuration
//! ([`config::load`]), start the application's server when `[server]` asks
//! ([`app::Application`]), make the strategy and its language model, the run store and the
//! browsers (one per worker), and put the application in front of each browser so that a
//! reset asks for a fresh application (a restarted server, a reset hook) and a server that
//! dies ends the run. The CLI parses flags and prints; what it prints along the way comes
//! back as [`Notice`]s. [`init`] writes a first configuration from what the application's
//! pages show; [`features`] turns a finished run into one checked Playwright test per
//! feature.

pub mod app;
pub mod config;
pub mod explore;
pub mod features;
pub mod hook;
pub mod init;
pub mod llm;
pub mod shrink;
pub mod trace;

pub use app::Application;
pub use explore::{explore, Explored, Settings, Workers};
pub use shrink::ShrinkBudget;

/// Why a run could not be put together or go on; the CLI exits with 2.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A flag, the configuration or a trace the user has to fix.
    #[error("{0}")]
    Usage(String),
    /// What the run needs from the machine failed: the application unreachable, no
    /// Chromium, a browser that does not start, a file that cannot be written.
    #[error("{0}")]
    Environment(String),
    /// The application's server could not be started.
    #[error(transparent)]
    Server(#[from] wayfarer_process::ServerError),
}

/// `RunError::Usage(format!(...))`.
#[macro_export]
#[doc(hidden)]
macro_rules! usage {
    ($($t:tt)*) => { $crate::RunError::Usage(format!($($t)*)) };
}

/// `RunError::Environment(format!(...))`.
#[macro_export]
#[doc(hidden)]
macro_rules! environment {
    ($($t:tt)*) => { $crate::RunError::Environment(format!($($t)*)) };
}

/// Context for an error: what was being done, then why it failed.
pub(crate) trait Why<T> {
    /// An error the user has to fix.
    fn usage(self, what: impl FnOnce() -> String) -> Result<T, RunError>;
    /// An error of the environment.
    fn environment(self, what: impl FnOnce() -> String) -> Result<T, RunError>;
}

impl<T, E: std::fmt::Display> Why<T> for Result<T, E> {
    fn usage(self, what: impl FnOnce() -> String) -> Result<T, RunError> {
        self.map_err(|e| RunError::Usage(format!("{}: {e}", what())))
    }
    fn environment(self, what: impl FnOnce() -> String) -> Result<T, RunError> {
        self.map_err(|e| RunError::Environment(format!("{}: {e}", what())))
    }
}

/// What a run has to say along the way, for the CLI to print (or not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Progress: what is being started, where things go. Shown unless quiet.
    Info(String),
    /// Something the user should know even in quiet mode.
    Warning(String),
}

/// Where notices go.
pub type Notices<'a> = &'a mut dyn FnMut(Notice);
