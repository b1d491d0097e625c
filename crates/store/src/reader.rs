//! Reading a run back whole, for the reports. A run that never wrote its summary (it was
//! killed) gets one rebuilt from its steps.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde::de::DeserializeOwned;
use wayfarer_core::runner::KnowledgeRow;
use wayfarer_core::summary::{CoverageSummary, FailureLine, TimingMedians};
use wayfarer_core::{
    EventKind, Failure, ResetRecord, RunSummary, StateId, StepRecord, StrategySnapshot,
};

use crate::data::{RunData, RunMeta, Sample, StateRow, StoredFailure, StoredStep, TransitionRow};
use crate::schema::check_version;
use crate::{StoreError, STORE_FILE};

/// Where the store of `path` is: `path` itself when it is a file, else `path/run.sqlite`.
pub fn store_path(path: &Path) -> PathBuf {
    if path.is_file() {
        path.to_path_buf()
    } else {
        path.join(STORE_FILE)
    }
}

/// The `meta` value under `key`, when the run wrote one.
fn meta_value(conn: &Connection, key: &str, what: &str) -> Result<Option<String>, StoreError> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()
        .map_err(|e| StoreError::sql(what, e))
}

/// `record`, read from the store at `path`, as a `T`.
fn parse<T: DeserializeOwned>(path: &str, record: &str, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::corrupt(path, format!("{record}: {e}")))
}

/// The store file of `path` (see [`store_path`]), which must be a file.
pub(crate) fn existing_store(path: &Path) -> Result<PathBuf, StoreError> {
    let file = store_path(path);
    if file.is_dir() {
        return Err(StoreError::Directory(file.display().to_string()));
    }
    if !file.is_file() {
        return Err(StoreError::Missing(file.display().to_string()));
    }
    Ok(file)
}

/// Read the whole run stored in `path` (a run directory or a `run.sqlite` file).
pub fn load(path: &Path) -> Result<RunData, StoreError> {
    let file = existing_store(path)?;
    let what = file.display().to_string();
    // Read-write, so SQLite can recover the WAL of a run that was killed.
    let conn = Connection::open_with_flags(
        &file,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| StoreError::sql(&what, e))?;
    check_version(&conn, &what)?;
    let sql = |e| StoreError::sql(&what, e);

    let meta_text: String = conn
        .query_row("SELECT value FROM meta WHERE key = 'run'", [], |r| r.get(0))
        .map_err(sql)?;
    let meta: RunMeta = parse(&what, "run metadata", &meta_text)?;
    let summary_text = meta_value(&conn, "summary", &what)?;

    let strategy: Option<StrategySnapshot> = meta_value(&conn, "strategy", &what)?
        .map(|t| parse(&what, "the strategy's state", &t))
        .transpose()?;
    let knowledge: Vec<KnowledgeRow> = meta_value(&conn, "knowledge", &what)?
        .map(|t| parse(&what, "the state-inference knowledge base", &t))
        .transpose()?
        .unwrap_or_default();

    let steps: Vec<StoredStep> = rows(&conn, "SELECT record, sample FROM steps ORDER BY step")
        .map_err(sql)?
        .into_iter()
        .map(|(r, s)| {
            Ok(StoredStep {
                record: parse::<StepRecord>(&what, "a step", &r)?,
                sample: parse::<Sample>(&what, "a step sample", &s)?,
            })
        })
        .collect::<Result<_, StoreError>>()?;
    let resets: Vec<ResetRecord> = rows(&conn, "SELECT record, '' FROM resets ORDER BY episode")
        .map_err(sql)?
        .into_iter()
        .map(|(r, _)| parse(&what, "a reset", &r))
        .collect::<Result<_, _>>()?;

    let mut stmt = conn
        .prepare("SELECT id, first_step, url, title FROM states ORDER BY first_step, rowid")
        .map_err(sql)?;
    let states = stmt
        .query_map([], |r| {
            Ok(StateRow {
                id: StateId(r.get::<_, i64>(0)? as u64),
                first_step: r.get::<_, i64>(1)? as u64,
                url: r.get(2)?,
                title: r.get(3)?,
            })
        })
        .and_then(|it| it.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(sql)?;
    let mut stmt = conn
        .prepare("SELECT src, dst, action, count FROM transitions ORDER BY src, dst, action")
        .map_err(sql)?;
    let transitions = stmt
        .query_map([], |r| {
            Ok(TransitionRow {
                from: StateId(r.get::<_, i64>(0)? as u64),
                to: StateId(r.get::<_, i64>(1)? as u64),
                action: r.get(2)?,
                count: r.get::<_, i64>(3)? as u64,
            })
        })
        .and_then(|it| it.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(sql)?;
    let mut stmt = conn
        .prepare("SELECT failure, count, screenshot FROM failures ORDER BY id")
        .map_err(sql)?;
    let raw = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })
        .and_then(|it| it.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(sql)?;
    let failures = raw
        .into_iter()
        .map(|(f, count, shot)| {
            let mut failure: Failure = parse(&what, "a failure", &f)?;
            // The step that first raised it may be the one a kill lost: count it once.
            failure.count = (count as u64).max(1);
            Ok(StoredFailure {
                failure,
                screenshot: shot.map(PathBuf::from),
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;

    let features = crate::features::read(&conn, &what)?;

    let dir = file
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let mut data = RunData {
        dir,
        meta,
        summary: RunSummary::default(),
        complete: summary_text.is_some(),
        steps,
        resets,
        states,
        transitions,
        failures,
        strategy,
        knowledge,
        features,
    };
    data.summary = match summary_text {
        Some(t) => {
            let mut s: RunSummary = parse(&what, "run summary", &t)?;
            // Counts come from the store, which saw every repeat; what came after the
            // run (shrinking, the baseline, the order by verdict, a hang no replay showed
            // again turned into a warning) from the summary's own lines.
            let stored: Vec<FailureLine> =
                data.failures.iter().map(|f| (&f.failure).into()).collect();
            let mut lines = Vec::with_capacity(stored.len());
            for old in &s.failures {
                if let Some(l) = stored.iter().find(|l| l.signature == old.signature) {
                    lines.push(FailureLine {
                        shrunk: old.shrunk.clone(),
                        baseline: old.baseline,
                        ..l.clone()
                    });
                }
            }
            let listed = |sig: &str| {
                s.failures.iter().any(|o| o.signature == sig)
                    || s.warnings.iter().any(|w| w.signature == sig)
            };
            lines.extend(stored.iter().filter(|l| !listed(&l.signature)).cloned());
            s.failures = lines;
            s
        }
        None => rebuild_summary(&data),
    };
    Ok(data)
}

fn rows(conn: &Connection, q: &str) -> rusqlite::Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare(q)?;
    let it = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    it.collect()
}

/// The summary of a run that never wrote one, from what its steps recorded.
pub(crate) fn rebuild_summary(d: &RunData) -> RunSummary {
    let last = d.steps.last();
    let sample = last.map(|s| s.sample).unwrap_or_default();
    let steps = last.map(|s| s.record.step).unwrap_or(0);
    let elapsed = Duration::from_millis(sample.elapsed_ms);
    let timings: Vec<_> = d.steps.iter().map(|s| s.record.timings).collect();
    let urls: BTreeSet<&str> = d
        .steps
        .iter()
        .map(|s| s.record.url_after.as_str())
        .chain(d.resets.iter().map(|r| r.url.as_str()))
        .collect();
    let restarts = d
        .steps
        .iter()
        .flat_map(|s| &s.record.events)
        .filter(|e| e.kind == EventKind::BrowserRestart)
        .count() as u64;
    let predicted = d
        .steps
        .iter()
        .filter(|s| {
            s.record
                .inference
                .as_ref()
                .is_some_and(|i| i.accepted.is_some())
        })
        .count() as u64;
    let avoided = if steps > 0 {
        predicted as f64 / steps as f64
    } else {
        0.0
    };
    RunSummary {
        target: d.meta.target.clone(),
        strategy: d.meta.strategy.clone(),
        seed: d.meta.seed,
        budget: d.meta.budget.clone(),
        steps,
        episodes: d.resets.len().max(sample.episodes as usize) as u64,
        states: d.states.len(),
        urls: if sample.urls > 0 {
            sample.urls
        } else {
            urls.len()
        },
        actions_discovered: sample.actions,
        failures: d
            .failures
            .iter()
            .map(|f| FailureLine::from(&f.failure))
            .collect(),
        js_coverage: sample.coverage.map(CoverageSummary::from),
        // A killed run's steps keep the lines covered, not the totals.
        server_coverage: sample.server_lines.map(|lines_covered| {
            wayfarer_core::summary::ServerCoverageSummary {
                totals: wayfarer_core::server::ServerCoverage {
                    lines_covered,
                    ..Default::default()
                },
                by_file: Vec::new(),
            }
        }),
        // Verdicts are counted when the run ends; a run rebuilt from its steps has none.
        properties: Vec::new(),
        // Warnings are listed when the run ends, as the verdicts are.
        warnings: Vec::new(),
        timings_ms: TimingMedians::of(&timings),
        time_split: wayfarer_core::summary::TimeSplit::of(&timings, &[]),
        resets_s: 0.0,
        steps_per_second: if elapsed > Duration::ZERO {
            steps as f64 / elapsed.as_secs_f64()
        } else {
            0.0
        },
        duration_s: elapsed.as_secs_f64(),
        restarts,
        step_errors: d.steps.iter().filter(|s| s.record.error.is_some()).count() as u64,
        stopped_early: Some(format!(
            "the run ended without writing its summary (killed or crashed) after step {steps}"
        )),
        ended_by_environment: false,
        logged_out: 0,
        scans_avoided: avoided,
        analyses_avoided: avoided,
        inference: None,
        deviation: None,
        llm: None,
        form_acceptance: Default::default(),
        workers: workers_of(d),
        auto_workers: None,
        shrink: None,
        baseline: None,
    }
}

/// The workers of a run with several, as its steps tell them (the browser each drove is
/// in the summary only).
fn workers_of(d: &RunData) -> Vec<wayfarer_core::WorkerLine> {
    let mut lines: Vec<wayfarer_core::WorkerLine> = Vec::new();
    let mut episodes = std::collections::HashSet::new();
    for s in &d.steps {
        let w = s.record.worker as usize;
        if lines.len() <= w {
            lines.resize_with(w + 1, Default::default);
        }
        let line = &mut lines[w];
        line.worker = w as u32;
        line.steps += 1;
        if episodes.insert(s.record.episode) {
            line.episodes += 1;
        }
        line.restarts += s
            .record
            .events
            .iter()
            .filter(|e| e.kind == wayfarer_core::EventKind::BrowserRestart)
            .count() as u64;
    }
    if lines.len() > 1 {
        lines
    } else {
        Vec::new()
    }
}
