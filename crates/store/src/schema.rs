//! The tables of `run.sqlite` and the version check. Records are kept as JSON next to
//! the few columns a query needs, so the model can grow without a migration per field.

use rusqlite::{Connection, OptionalExtension};

use crate::StoreError;

/// The schema this build writes and reads. Bump it on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

pub(crate) const CREATE: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    prompt TEXT NOT NULL,
    image_hash TEXT,
    answer TEXT NOT NULL
);
CREATE TABLE steps (
    step INTEGER PRIMARY KEY,
    episode INTEGER NOT NULL,
    state_before INTEGER NOT NULL,
    state_after INTEGER NOT NULL,
    url_after TEXT NOT NULL,
    new_state INTEGER NOT NULL,
    error TEXT,
    total_us INTEGER NOT NULL,
    record TEXT NOT NULL,
    sample TEXT NOT NULL
);
CREATE TABLE resets (
    episode INTEGER PRIMARY KEY,
    after_step INTEGER NOT NULL,
    record TEXT NOT NULL,
    sample TEXT NOT NULL
);
CREATE TABLE states (
    id INTEGER PRIMARY KEY,
    first_step INTEGER NOT NULL,
    url TEXT NOT NULL,
    title TEXT NOT NULL
);
CREATE TABLE transitions (
    src INTEGER NOT NULL,
    dst INTEGER NOT NULL,
    action TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (src, dst, action)
);
CREATE TABLE failures (
    id INTEGER PRIMARY KEY,
    signature TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    step INTEGER NOT NULL,
    count INTEGER NOT NULL,
    failure TEXT NOT NULL,
    screenshot TEXT
);
";

/// The tables of `wayfarer features`, written after the run, possibly into a store made
/// before they existed: added when missing, and a store without them reads as one with no
/// inference, so they need no new schema version.
pub(crate) const FEATURE_TABLES: &str = "
CREATE TABLE IF NOT EXISTS features (
    id INTEGER PRIMARY KEY,
    label TEXT NOT NULL,
    score REAL NOT NULL,
    aliases TEXT NOT NULL,
    kept INTEGER NOT NULL,
    test_file TEXT,
    steps INTEGER,
    covers TEXT,
    same_test_as TEXT,
    no_test TEXT
);
CREATE TABLE IF NOT EXISTS action_features (
    state INTEGER NOT NULL,
    action TEXT NOT NULL,
    feature INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    rank_score REAL NOT NULL,
    query TEXT NOT NULL,
    previous_state INTEGER,
    previous_action TEXT
);
";

/// Pragmas for writing: WAL with normal sync keeps every committed step across a
/// killed process (the WAL is in the OS cache) without an fsync per step.
pub(crate) const WRITE_PRAGMAS: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA foreign_keys = OFF;
";

/// Fail with a clear message unless `conn` holds a store of this schema version.
pub(crate) fn check_version(conn: &Connection, what: &str) -> Result<(), StoreError> {
    let has_meta: bool = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map_err(|e| StoreError::sql(what, e))?
        > 0;
    if !has_meta {
        return Err(StoreError::NotAStore(what.to_string()));
    }
    let found: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(|e| StoreError::sql(what, e))?;
    let Some(found) = found else {
        return Err(StoreError::NotAStore(what.to_string()));
    };
    // A marker that is no version of ours (too large, not a number) is still reported as
    // the version that store claims, so the user looks for the wayfarer that wrote it.
    if found.parse::<u32>().ok() != Some(SCHEMA_VERSION) {
        let found = match found.parse::<u64>() {
            Ok(n) => n.to_string(),
            Err(_) => format!("{found:?}"),
        };
        let by: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'wayfarer'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| StoreError::sql(what, e))?;
        return Err(StoreError::Version {
            path: what.to_string(),
            found,
            by: by.unwrap_or_else(|| "an unknown version".into()),
        });
    }
    Ok(())
}
