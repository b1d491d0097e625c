//! wayfarer-store: one SQLite file per run (`run.sqlite`), written step by step as the
//! run goes (`StoreWriter`, an `Observer`), and read back whole (`load` → `RunData`) for
//! the reports. The schema is versioned; a store of another version is refused clearly.
//! `wayfarer features` adds its inference afterwards (`write_features`).

mod data;
mod features;
mod llm_cache;
mod reader;
mod schema;
mod writer;

use std::path::Path;

pub use data::{
    ActionFeatureRecord, FeatureOutcome, FeatureQuery, FeatureRecord, FeatureTestRecord, RunData,
    RunMeta, RunStart, Sample, StateRow, StoredFailure, StoredFeatures, StoredStep, TransitionRow,
};
pub use features::write_features;
pub use llm_cache::{cached_answers, CacheRow, StoreCache};
pub use reader::{load, store_path};
pub use schema::SCHEMA_VERSION;
pub use writer::StoreWriter;

/// The store's file name inside a run directory.
pub const STORE_FILE: &str = "run.sqlite";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "no run store at {0}; give a directory written by `wayfarer explore` (it holds run.sqlite)"
    )]
    Missing(String),
    #[error("{0} is a directory, not a run store file")]
    Directory(String),
    #[error("{0} is not a wayfarer run store")]
    NotAStore(String),
    /// `found` is the stored marker as written: a number, or quoted when it is not one.
    #[error("{path} is a run store of schema version {found} (written by wayfarer {by}); this wayfarer reads version {}; use the matching wayfarer to read it", SCHEMA_VERSION)]
    Version {
        path: String,
        found: String,
        by: String,
    },
    #[error("run store: {what}: {source}")]
    Sql {
        what: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("run store {path} holds a record it cannot read ({what})")]
    Corrupt { path: String, what: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl StoreError {
    pub(crate) fn sql(what: &str, source: rusqlite::Error) -> StoreError {
        StoreError::Sql {
            what: what.to_string(),
            source,
        }
    }

    pub(crate) fn corrupt(path: &str, what: impl std::fmt::Display) -> StoreError {
        StoreError::Corrupt {
            path: path.to_string(),
            what: what.to_string(),
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
