//! Writing a run as it goes: an `Observer` that commits one transaction per step, so a
//! killed run loses at most the step it was in.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};
use wayfarer_core::runner::KnowledgeRow;
use wayfarer_core::secrets::Secrets;
use wayfarer_core::{
    Failure, Observer, Progress, ResetRecord, RunSummary, StepRecord, StrategySnapshot,
};

use crate::data::{RunMeta, Sample};
use crate::schema::{CREATE, FEATURE_TABLES, SCHEMA_VERSION, WRITE_PRAGMAS};
use crate::{StoreError, STORE_FILE};

/// Records a run into `DIR/run.sqlite` (and failure screenshots into `DIR/screenshots/`).
pub struct StoreWriter {
    conn: Connection,
    dir: PathBuf,
    /// The first write error; later steps are not written after one (the run goes on,
    /// and the CLI reports it at the end).
    error: Option<StoreError>,
    /// Failures seen so far, to name their screenshots.
    failures: u32,
    /// Start pages that offered nothing so far, likewise.
    empty_starts: u32,
    /// Configuration secrets, written as `${NAME}` references, never as values.
    secrets: Secrets,
}

fn sample(p: &Progress) -> Sample {
    Sample {
        states: p.states,
        urls: p.urls,
        actions: p.actions,
        failures: p.failures,
        episodes: p.episodes,
        elapsed_ms: p.elapsed.as_millis() as u64,
        coverage: p.coverage,
        server_lines: p.server.as_ref().map(|c| c.lines_covered),
    }
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("run records always serialise")
}

impl StoreWriter {
    /// Write `png` as `screenshots/NAME` of the run; its path there, or `None` (said in
    /// the log) when it cannot be written.
    fn screenshot(&self, name: &str, png: &[u8]) -> Option<String> {
        let rel = PathBuf::from("screenshots").join(name);
        let abs = self.dir.join(&rel);
        let written = std::fs::create_dir_all(self.dir.join("screenshots"))
            .and_then(|_| std::fs::write(&abs, png));
        match written {
            Ok(()) => Some(rel.to_string_lossy().into_owned()),
            Err(e) => {
                tracing::warn!("cannot write screenshot {}: {e}", abs.display());
                None
            }
        }
    }

    /// A record as JSON, every string in it masked.
    fn masked<T: serde::Serialize>(&self, v: &T) -> String {
        self.secrets.mask_serialized(v)
    }

    /// A column's text, masked: URLs, titles and messages are what the application
    /// answered, and it may echo a secret back (a GET form's URL, a "Welcome, alice").
    fn text(&self, s: &str) -> String {
        self.secrets.mask(s)
    }

    fn texts(&self, all: &[String]) -> Vec<String> {
        all.iter().map(|s| self.text(s)).collect()
    }
}

impl StoreWriter {
    /// Create a fresh store in `dir` (created when missing). An existing `run.sqlite`
    /// there is replaced: one directory holds one run. `secrets` are written as their
    /// `${NAME}` references wherever a value would appear.
    pub fn create(dir: &Path, meta: &RunMeta, secrets: Secrets) -> Result<StoreWriter, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
        let path = dir.join(STORE_FILE);
        // Model answers outlive the run they were asked in: a second run in the same
        // directory answers the same questions from them.
        let kept = crate::llm_cache::read_old(&path);
        for suffix in ["", "-wal", "-shm"] {
            let p = PathBuf::from(format!("{}{suffix}", path.display()));
            match std::fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(StoreError::io(&p, e)),
            }
        }
        // A run's screenshots and traces are its own: an earlier run's left in the same
        // directory would be shown (and exported) as this one's.
        for sub in ["screenshots", "traces"] {
            let old = dir.join(sub);
            if old.is_dir() {
                std::fs::remove_dir_all(&old).map_err(|e| StoreError::io(&old, e))?;
            }
        }
        let what = path.display().to_string();
        let conn = Connection::open(&path).map_err(|e| StoreError::sql(&what, e))?;
        conn.execute_batch(WRITE_PRAGMAS)
            .and_then(|_| conn.execute_batch(CREATE))
            .and_then(|_| conn.execute_batch(FEATURE_TABLES))
            .map_err(|e| StoreError::sql(&what, e))?;
        let mut w = StoreWriter {
            conn,
            dir: dir.to_path_buf(),
            error: None,
            failures: 0,
            empty_starts: 0,
            secrets,
        };
        crate::llm_cache::write_all(&w.conn, &kept)
            .map_err(|e| StoreError::sql("keeping the cached model answers", e))?;
        if !kept.is_empty() {
            tracing::info!(
                "kept {} cached model answer(s) from the run before in {}",
                kept.len(),
                dir.display()
            );
        }
        w.put_meta("schema_version", &SCHEMA_VERSION.to_string())?;
        w.put_meta("wayfarer", &meta.wayfarer)?;
        let meta = w.masked(meta);
        w.put_meta("run", &meta)?;
        Ok(w)
    }

    /// The first error met while writing, if any.
    pub fn error(&self) -> Option<&StoreError> {
        self.error.as_ref()
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(STORE_FILE)
    }

    fn put_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| StoreError::sql("writing run metadata", e))
    }

    /// Keep `value` under `key` in `meta`, replacing the one before (an observer's write).
    fn replace_meta(&mut self, key: &str, what: &str, value: String) {
        self.write(what, |c| {
            c.prepare_cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")?
                .execute(params![key, value])?;
            Ok(())
        });
    }

    /// Run `f` in one transaction; remember the first failure instead of returning it,
    /// because an observer cannot stop the run.
    fn write(&mut self, what: &str, f: impl FnOnce(&Connection) -> rusqlite::Result<()>) {
        if self.error.is_some() {
            return;
        }
        let result = (|| {
            let tx = self.conn.unchecked_transaction()?;
            f(&tx)?;
            tx.commit()
        })();
        if let Err(e) = result {
            tracing::warn!("run store: cannot write {what}: {e}; the store stops here");
            self.error = Some(StoreError::sql(what, e));
        }
    }

    fn count_findings(conn: &Connection, findings: &[String]) -> rusqlite::Result<()> {
        let mut up =
            conn.prepare_cached("UPDATE failures SET count = count + 1 WHERE signature = ?1")?;
        for sig in findings {
            up.execute([sig])?;
        }
        Ok(())
    }
}

impl Observer for StoreWriter {
    fn on_reset(&mut self, r: &ResetRecord, p: &Progress) {
        let record = self.masked(r);
        let smp = json(&sample(p));
        let (url, title) = (self.text(&r.url), self.text(&r.title));
        let findings = self.texts(&r.findings);
        self.write("a reset", |c| {
            c.prepare_cached(
                "INSERT OR REPLACE INTO resets (episode, after_step, record, sample) \
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![r.episode as i64, r.after_step as i64, record, smp])?;
            c.prepare_cached(
                "INSERT OR IGNORE INTO states (id, first_step, url, title) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![r.state.0 as i64, r.after_step as i64, url, title])?;
            Self::count_findings(c, &findings)
        });
    }

    fn on_step(&mut self, r: &StepRecord, p: &Progress) {
        let record = self.masked(r);
        let smp = json(&sample(p));
        let edge = self.text(&format!(
            "{} {}",
            r.action.kind.as_str(),
            r.action.target.as_deref().unwrap_or("")
        ));
        let url = self.text(&r.url_after);
        let title = self.text(&r.title_after);
        let error = r.error.as_deref().map(|e| self.text(e));
        let findings = self.texts(&r.findings);
        self.write("a step", |c| {
            c.prepare_cached(
                "INSERT OR REPLACE INTO steps (step, episode, state_before, state_after, url_after, \
                 new_state, error, total_us, record, sample) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                r.step as i64,
                r.episode as i64,
                r.state_before.0 as i64,
                r.state_after.0 as i64,
                url,
                r.new_state,
                error,
                r.timings.total.as_micros() as i64,
                record,
                smp
            ])?;
            c.prepare_cached(
                "INSERT OR IGNORE INTO states (id, first_step, url, title) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                r.state_after.0 as i64,
                r.step as i64,
                url,
                title
            ])?;
            if r.error.is_none() {
                c.prepare_cached(
                    "INSERT INTO transitions (src, dst, action, count) VALUES (?1, ?2, ?3, 1) \
                     ON CONFLICT (src, dst, action) DO UPDATE SET count = count + 1",
                )?
                .execute(params![
                    r.state_before.0 as i64,
                    r.state_after.0 as i64,
                    edge
                ])?;
            }
            Self::count_findings(c, &findings)
        });
    }

    fn on_failure(&mut self, f: &Failure, screenshot: Option<&[u8]>) {
        self.failures += 1;
        let shot_path = screenshot
            .and_then(|png| self.screenshot(&format!("failure-{}.png", self.failures), png));
        let failure = self.masked(f);
        // Masked like the findings that count it: one secret, one signature.
        let signature = self.text(&f.signature);
        // Counted by the findings of the record that raised it, like every repeat.
        self.write("a failure", |c| {
            c.prepare_cached(
                "INSERT OR IGNORE INTO failures (signature, kind, step, count, failure, screenshot) \
                 VALUES (?1, ?2, ?3, 0, ?4, ?5)",
            )?
            .execute(params![
                signature,
                f.kind.as_str(),
                f.step as i64,
                failure,
                shot_path
            ])?;
            Ok(())
        });
    }

    fn on_empty_start(&mut self, worker: u32, seen: &str, screenshot: Option<&[u8]>) {
        self.empty_starts += 1;
        let name = format!("empty-start-{}.png", self.empty_starts);
        let shot = screenshot.and_then(|png| self.screenshot(&name, png));
        // Said where the run is seen (the log): the summary's halt quotes the page's text.
        let seen = self.text(seen);
        match shot {
            Some(rel) => tracing::warn!(
                "worker {worker}: the start page offered no action: {seen}; screenshot {}",
                self.dir.join(rel).display()
            ),
            None => tracing::warn!("worker {worker}: the start page offered no action: {seen}"),
        }
    }

    fn on_strategy(&mut self, snapshot: &StrategySnapshot) {
        // The latest snapshot replaces the one before: what the strategy knows now.
        let s = self.masked(snapshot);
        self.replace_meta("strategy", "the strategy's state", s);
    }

    fn on_knowledge(&mut self, rows: &[KnowledgeRow]) {
        // Labels carry page URLs and titles: masked like everything page-controlled.
        let s = self.masked(&rows);
        self.replace_meta("knowledge", "the state-inference knowledge base", s);
    }

    fn on_end(&mut self, summary: &RunSummary) {
        // Masked: a minimal trace's steps (`shrunk.via`) carry what was typed.
        let s = self.masked(summary);
        self.replace_meta("summary", "the summary", s);
        // Fold the WAL back so the directory holds one self-contained file.
        if let Err(e) = self.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);") {
            tracing::debug!("run store checkpoint: {e}");
        }
    }
}
