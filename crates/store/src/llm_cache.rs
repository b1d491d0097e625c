//! The cache of model answers (`llm_cache` in `run.sqlite`): the LLM client asks it before
//! a model, through its own connection to the run's store, and a new run in the same
//! directory starts with the answers of the one before.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use wayfarer_core::llm::{AnswerCache, CachedAnswer};

use crate::{StoreError, STORE_FILE};

/// One kept answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheRow {
    pub key: String,
    pub model: String,
    pub kind: String,
    pub prompt: String,
    pub image_hash: Option<String>,
    pub answer: String,
}

/// The answers kept in the store at `path`, if it is one and has them (an old or foreign
/// file gives none: the cache only saves time).
pub(crate) fn read_old(path: &Path) -> Vec<CacheRow> {
    if !path.is_file() {
        return Vec::new();
    }
    let Ok(conn) = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY) else {
        return Vec::new();
    };
    read_all(&conn).unwrap_or_default()
}

fn read_all(conn: &Connection) -> rusqlite::Result<Vec<CacheRow>> {
    let mut q = conn.prepare(
        "SELECT key, model, kind, prompt, image_hash, answer FROM llm_cache ORDER BY rowid",
    )?;
    let rows = q.query_map([], |r| {
        Ok(CacheRow {
            key: r.get(0)?,
            model: r.get(1)?,
            kind: r.get(2)?,
            prompt: r.get(3)?,
            image_hash: r.get(4)?,
            answer: r.get(5)?,
        })
    })?;
    rows.collect()
}

pub(crate) fn write_all(conn: &Connection, rows: &[CacheRow]) -> rusqlite::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let tx = conn.unchecked_transaction()?;
    {
        let mut ins = tx.prepare(
            "INSERT OR REPLACE INTO llm_cache (key, model, kind, prompt, image_hash, answer)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for r in rows {
            ins.execute(params![
                r.key,
                r.model,
                r.kind,
                r.prompt,
                r.image_hash,
                r.answer
            ])?;
        }
    }
    tx.commit()
}

/// The answers kept in a run's store (a run directory or its `run.sqlite`), oldest first.
pub fn cached_answers(path: &Path) -> Result<Vec<CacheRow>, StoreError> {
    let file = crate::store_path(path);
    let what = file.display().to_string();
    let conn = Connection::open_with_flags(&file, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| StoreError::sql(&what, e))?;
    read_all(&conn).map_err(|e| StoreError::sql(&what, e))
}

/// The run store as the LLM client's cache. It opens its own connection to
/// `DIR/run.sqlite` on first use (the run's `StoreWriter` creates the file before the first
/// question). A read or write that fails is a miss (said once), never an error of the run.
pub struct StoreCache {
    path: PathBuf,
    conn: Option<Connection>,
    warned: bool,
}

impl StoreCache {
    pub fn at(dir: &Path) -> StoreCache {
        StoreCache {
            path: dir.join(STORE_FILE),
            conn: None,
            warned: false,
        }
    }

    fn conn(&mut self) -> rusqlite::Result<&Connection> {
        if self.conn.is_none() {
            let conn = Connection::open_with_flags(&self.path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
            conn.busy_timeout(Duration::from_secs(5))?;
            conn.execute_batch(
                "CREATE TABLE IF NOT EXISTS llm_cache (
                    key TEXT PRIMARY KEY, model TEXT NOT NULL, kind TEXT NOT NULL,
                    prompt TEXT NOT NULL, image_hash TEXT, answer TEXT NOT NULL)",
            )?;
            self.conn = Some(conn);
        }
        Ok(self.conn.as_ref().expect("opened above"))
    }

    fn warn(&mut self, what: &str, e: rusqlite::Error) {
        if !self.warned {
            self.warned = true;
            tracing::warn!(
                "run store {}: cannot {what} the model answer cache: {e}",
                self.path.display()
            );
        }
    }
}

impl AnswerCache for StoreCache {
    fn get(&mut self, key: &str) -> Option<String> {
        let r = self.conn().and_then(|c| {
            let mut q = c.prepare_cached("SELECT answer FROM llm_cache WHERE key = ?1")?;
            q.query_row([key], |r| r.get::<_, String>(0)).optional()
        });
        match r {
            Ok(v) => v,
            Err(e) => {
                self.warn("read", e);
                None
            }
        }
    }

    fn put(&mut self, key: &str, e: &CachedAnswer<'_>) {
        let r =
            self.conn().and_then(|c| {
                c.prepare_cached(
                "INSERT OR REPLACE INTO llm_cache (key, model, kind, prompt, image_hash, answer)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![key, e.model, e.kind, e.prompt, e.image_hash, e.answer])
            });
        if let Err(err) = r {
            self.warn("write", err);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RunMeta, StoreWriter};
    use wayfarer_core::secrets::Secrets;

    fn entry<'a>(prompt: &'a str, answer: &'a str) -> CachedAnswer<'a> {
        CachedAnswer {
            model: "m",
            kind: "input",
            prompt,
            image_hash: None,
            answer,
        }
    }

    #[test]
    fn answers_outlive_the_run_in_the_same_directory() {
        let dir = tempfile::tempdir().unwrap();
        let meta = RunMeta::default();
        {
            let _w = StoreWriter::create(dir.path(), &meta, Secrets::default()).unwrap();
            let mut c = StoreCache::at(dir.path());
            assert_eq!(c.get("k1"), None);
            c.put("k1", &entry("p1", "Generated Input Text: 199"));
            c.put("k2", &entry("p2", "two"));
            assert_eq!(c.get("k1").as_deref(), Some("Generated Input Text: 199"));
        }
        // A new run in the same directory replaces the steps, not the answers.
        let _w = StoreWriter::create(dir.path(), &meta, Secrets::default()).unwrap();
        let mut c = StoreCache::at(dir.path());
        assert_eq!(c.get("k2").as_deref(), Some("two"));
        let rows = cached_answers(dir.path()).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].key.as_str(), rows[0].prompt.as_str()),
            ("k1", "p1")
        );
    }

    #[test]
    fn a_store_without_the_table_keeps_nothing_and_fails_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(STORE_FILE);
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);")
            .unwrap();
        assert!(read_old(&path).is_empty());
        assert!(read_old(&dir.path().join("nothing.sqlite")).is_empty());
    }

    #[test]
    fn a_missing_store_is_a_miss_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = StoreCache::at(&dir.path().join("absent"));
        assert_eq!(c.get("k"), None);
        c.put("k", &entry("p", "a"));
        assert_eq!(c.get("k"), None);
    }
}
