//! wayfarer-bench: the lab. Runs strategies x applications x seeds with one budget, one
//! run after another, plus external peers (gremlins.js) in the same invocation with the
//! same budget, and writes `bench.md` (medians and ranges), `bench.csv` (one row per
//! run, columns in [`metrics::COLUMNS`]) and SVG plots of states, JS coverage and
//! failures over steps, `findings.md` (every unique failure, who found it), `stops.md`
//! (where each strategy's runs stopped finding new code, endpoints and pages) and
//! `scripts.md` (what any run ran of each script, and each tool's share of it). Every run
//! also leaves its own run store under `runs/`.
//!
//! Metrics that need ground truth (screens, action ids, features, seeded bugs) come from
//! the bundled applications' instrumentation (`wayfarer_testapps`); against any other
//! URL, and the real applications of an apps file (`apps`: each started afresh by its
//! own `[server]`), those columns stay empty.

pub mod apps;
mod collect;
mod engine;
mod execute;
mod findings;
pub mod metrics;
pub mod minimal;
pub mod peer;
pub mod plan;
mod plot;
mod resume;
pub mod scripts;
pub mod series;
pub mod stops;
mod table;

use std::path::PathBuf;

pub use apps::AppSpec;
pub use engine::{run_bench, run_bench_with, BenchResult, SuiteFn};
pub use execute::{run_strategy, RunOutcome};
pub use metrics::{RunRow, COLUMNS};
pub use plan::{Plan, Target};
pub use table::{csv, markdown};

/// Why the benchmark (or one of its runs) could not go on.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("cannot serve the {0} application: {1}")]
    Serve(String, #[source] std::io::Error),
    #[error("{0}")]
    Config(String),
    #[error("browser: {0}")]
    Browser(#[source] wayfarer_core::EnvError),
    #[error("run store: {0}")]
    Store(String),
    /// The run could not be put together or went wrong (wayfarer-run's error).
    #[error("{0}")]
    Run(String),
    /// An apps file's application could not be started.
    #[error("cannot start {0}: {1}")]
    App(String, String),
    #[error(transparent)]
    Peer(#[from] peer::PeerError),
    #[error("cannot write {path}: {1}", path = .0.display())]
    Write(PathBuf, #[source] std::io::Error),
}

/// Write one of the bench's files, secrets masked: its tables and findings quote pages,
/// messages and URLs of runs that typed the apps' `${NAME}` values.
pub(crate) fn write_masked(path: &std::path::Path, text: &str) -> Result<(), BenchError> {
    std::fs::write(path, wayfarer_core::secrets::mask_known(text))
        .map_err(|e| BenchError::Write(path.to_path_buf(), e))
}
