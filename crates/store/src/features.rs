//! The features `wayfarer features` inferred from a run: the feature database with what
//! became of each feature (`features`), the action-feature database (`action_features`)
//! and the inference's header (`meta.features`). They are written after the run, into
//! its store, each inference replacing the one before.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use serde::{Deserialize, Serialize};
use wayfarer_core::StateId;

use crate::data::{
    ActionFeatureRecord, FeatureOutcome, FeatureQuery, FeatureRecord, FeatureTestRecord,
    StoredFeatures,
};
use crate::reader::existing_store;
use crate::schema::{check_version, FEATURE_TABLES};
use crate::StoreError;

/// The `meta` key of the inference's header; a store without it holds no inference.
const META_KEY: &str = "features";

/// `query` of an answer to the action alone; any other answer is `AFTER`.
const ALONE: &str = "alone";
const AFTER: &str = "after";

/// What an inference says about itself, beside its rows.
#[derive(Serialize, Deserialize)]
struct Header {
    questions: u64,
    embedder: String,
    checked: bool,
}

/// Store `inference` in the run store at `path` (a run directory or its `run.sqlite`),
/// replacing the features an earlier `wayfarer features` stored there. The store must
/// exist and be of this schema version; the feature tables are added when it predates
/// them. Test files under the run directory are stored relative to it.
pub fn write_features(path: &Path, inference: &StoredFeatures) -> Result<(), StoreError> {
    let file = existing_store(path)?;
    let what = file.display().to_string();
    let conn = Connection::open_with_flags(
        &file,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| StoreError::sql(&what, e))?;
    check_version(&conn, &what)?;
    let doing = format!("writing the inferred features into {what}");
    let sql = |e| StoreError::sql(&doing, e);
    // A report being rebuilt may be reading the store: wait for it rather than fail.
    conn.busy_timeout(Duration::from_secs(5)).map_err(sql)?;
    conn.execute_batch(FEATURE_TABLES).map_err(sql)?;
    let dir = file.parent().unwrap_or(Path::new("."));
    let header = serde_json::to_string(&Header {
        questions: inference.questions,
        embedder: inference.embedder.clone(),
        checked: inference.checked,
    })
    .expect("a header always serialises");

    let tx = conn.unchecked_transaction().map_err(sql)?;
    tx.execute_batch("DELETE FROM features; DELETE FROM action_features;")
        .map_err(sql)?;
    {
        let mut ins = tx
            .prepare(
                "INSERT INTO features (id, label, score, aliases, kept, test_file, steps, \
                 covers, same_test_as, no_test) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )
            .map_err(sql)?;
        for f in &inference.features {
            let (mut test_file, mut steps, mut covers, mut same, mut no_test) =
                (None, None, None, None, None);
            match &f.outcome {
                FeatureOutcome::NotKept => {}
                FeatureOutcome::Tested(t) => {
                    test_file = Some(relative_to(dir, &t.file));
                    steps = Some(t.steps);
                    covers = t.covers.as_ref().map(json);
                }
                FeatureOutcome::SameTestAs(label) => same = Some(label.as_str()),
                FeatureOutcome::NoTest(why) => no_test = Some(why.as_str()),
            }
            ins.execute(params![
                f.id as i64,
                f.label,
                f.score,
                json(&f.aliases),
                f.outcome.kept(),
                test_file,
                steps,
                covers,
                same,
                no_test
            ])
            .map_err(sql)?;
        }
        let mut ins = tx
            .prepare(
                "INSERT INTO action_features (state, action, feature, rank, rank_score, query, \
                 previous_state, previous_action) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .map_err(sql)?;
        for a in &inference.actions {
            let (query, prev_state, prev_action) = match &a.query {
                FeatureQuery::Alone => (ALONE, None, None),
                FeatureQuery::AfterPrevious { state, action } => {
                    (AFTER, Some(state.0 as i64), Some(action.as_str()))
                }
            };
            ins.execute(params![
                a.state.0 as i64,
                a.action,
                a.feature as i64,
                a.rank,
                a.rank_score,
                query,
                prev_state,
                prev_action
            ])
            .map_err(sql)?;
        }
    }
    tx.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
        params![META_KEY, header],
    )
    .map_err(sql)?;
    tx.commit().map_err(sql)?;
    // Fold the WAL back, as the run's end does: the directory stays one self-contained file.
    if let Err(e) = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);") {
        tracing::debug!("run store checkpoint after the features: {e}");
    }
    Ok(())
}

fn json<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("a list of strings always serialises")
}

/// `file` relative to `dir` when it lies under it (lexically, else once both are
/// resolved), else absolute: a path relative to the working directory would mean
/// nothing to a reader of the store.
fn relative_to(dir: &Path, file: &str) -> String {
    let file = Path::new(file);
    let under =
        |d: &Path, f: &Path| -> Option<PathBuf> { f.strip_prefix(d).ok().map(Path::to_path_buf) };
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let resolved = |p: &Path| p.canonicalize().ok();
    let rel = under(dir, file)
        .or_else(|| under(&absolute(dir), &absolute(file)))
        .or_else(|| under(&resolved(dir)?, &resolved(file)?));
    match rel {
        Some(r) => r.to_string_lossy().into_owned(),
        None => absolute(file).to_string_lossy().into_owned(),
    }
}

/// The inference stored in `conn`, None when there is none (the store predates the
/// feature tables, or `wayfarer features` never ran on it).
pub(crate) fn read(conn: &Connection, what: &str) -> Result<Option<StoredFeatures>, StoreError> {
    let sql = |e| StoreError::sql(what, e);
    let header: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [META_KEY], |r| {
            r.get(0)
        })
        .optional()
        .map_err(sql)?;
    let Some(header) = header else {
        return Ok(None);
    };
    let header: Header = serde_json::from_str(&header)
        .map_err(|e| StoreError::corrupt(what, format!("the features' header: {e}")))?;

    let mut stmt = conn
        .prepare(
            "SELECT id, label, score, aliases, kept, test_file, steps, covers, same_test_as, \
             no_test FROM features ORDER BY id",
        )
        .map_err(sql)?;
    type Raw = (
        i64,
        String,
        f64,
        String,
        bool,
        Option<String>,
        Option<u32>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let raw: Vec<Raw> = stmt
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
                r.get(9)?,
            ))
        })
        .and_then(|it| it.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(sql)?;
    let features = raw
        .into_iter()
        .map(
            |(id, label, score, aliases, kept, file, steps, covers, same, no_test)| {
                let corrupt = |why: &str| StoreError::corrupt(what, format!("feature {id}: {why}"));
                let list = |t: &str| -> Result<Vec<String>, StoreError> {
                    serde_json::from_str(t).map_err(|e| corrupt(&e.to_string()))
                };
                let outcome = match (kept, file, same, no_test) {
                    (false, None, None, None) => FeatureOutcome::NotKept,
                    (true, Some(file), None, None) => FeatureOutcome::Tested(FeatureTestRecord {
                        file,
                        steps: steps.ok_or_else(|| corrupt("a test without its steps"))?,
                        covers: covers.as_deref().map(list).transpose()?,
                    }),
                    (true, None, Some(label), None) => FeatureOutcome::SameTestAs(label),
                    (true, None, None, Some(why)) => FeatureOutcome::NoTest(why),
                    _ => return Err(corrupt("an outcome that is none or several")),
                };
                Ok(FeatureRecord {
                    id: id as u64,
                    label,
                    score,
                    aliases: list(&aliases)?,
                    outcome,
                })
            },
        )
        .collect::<Result<Vec<_>, StoreError>>()?;

    let mut stmt = conn
        .prepare(
            "SELECT state, action, feature, rank, rank_score, query, previous_state, \
             previous_action FROM action_features ORDER BY rowid",
        )
        .map_err(sql)?;
    let actions = stmt
        .query_map([], |r| {
            let query: String = r.get(5)?;
            let prev: (Option<i64>, Option<String>) = (r.get(6)?, r.get(7)?);
            Ok((
                ActionFeatureRecord {
                    state: StateId(r.get::<_, i64>(0)? as u64),
                    action: r.get(1)?,
                    feature: r.get::<_, i64>(2)? as u64,
                    rank: r.get(3)?,
                    rank_score: r.get(4)?,
                    query: FeatureQuery::Alone,
                },
                query,
                prev,
            ))
        })
        .and_then(|it| it.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(sql)?
        .into_iter()
        .map(|(mut row, query, prev)| {
            row.query = match (query.as_str(), prev) {
                (ALONE, (None, None)) => FeatureQuery::Alone,
                (AFTER, (Some(state), Some(action))) => FeatureQuery::AfterPrevious {
                    state: StateId(state as u64),
                    action,
                },
                (q, _) => {
                    return Err(StoreError::corrupt(
                        what,
                        format!(
                            "an action-feature row of {} {} asked {q:?}, or without its \
                             previous action",
                            row.state, row.action
                        ),
                    ))
                }
            };
            Ok(row)
        })
        .collect::<Result<Vec<_>, StoreError>>()?;

    Ok(Some(StoredFeatures {
        questions: header.questions,
        embedder: header.embedder,
        checked: header.checked,
        features,
        actions,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{load, RunMeta, StoreWriter, STORE_FILE};

    fn store() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let w = StoreWriter::create(dir.path(), &RunMeta::default(), Default::default()).unwrap();
        drop(w);
        dir
    }

    fn feature(id: u64, label: &str, score: f64, outcome: FeatureOutcome) -> FeatureRecord {
        FeatureRecord {
            id,
            label: label.into(),
            score,
            aliases: vec![label.into(), format!("{label} again")],
            outcome,
        }
    }

    fn inference(dir: &Path) -> StoredFeatures {
        StoredFeatures {
            questions: 12,
            embedder: "hashed words".into(),
            checked: true,
            features: vec![
                feature(
                    0,
                    "Add Owner",
                    -0.25,
                    FeatureOutcome::Tested(FeatureTestRecord {
                        // Absolute, under the run directory: stored relative to it.
                        file: dir
                            .join("features/tests/feature-Add Owner.spec.ts")
                            .display()
                            .to_string(),
                        steps: 5,
                        covers: Some(vec!["add-owner".into()]),
                    }),
                ),
                feature(
                    1,
                    "Find owners",
                    0.0,
                    FeatureOutcome::Tested(FeatureTestRecord {
                        // `-o` elsewhere: kept absolute.
                        file: "/elsewhere/tests/feature-Find owners.spec.ts".into(),
                        steps: 1,
                        covers: None,
                    }),
                ),
                feature(
                    2,
                    "View owner",
                    -0.5,
                    FeatureOutcome::SameTestAs("Add Owner".into()),
                ),
                feature(
                    3,
                    "Export",
                    -0.69,
                    FeatureOutcome::NoTest("no known way from the start page to s4".into()),
                ),
                feature(4, "Home (page)", -2.1, FeatureOutcome::NotKept),
            ],
            actions: vec![
                ActionFeatureRecord {
                    state: StateId(2),
                    action: "click #save".into(),
                    feature: 0,
                    rank: 1,
                    rank_score: -std::f64::consts::LN_2,
                    query: FeatureQuery::Alone,
                },
                ActionFeatureRecord {
                    state: StateId(2),
                    action: "click #save".into(),
                    feature: 2,
                    rank: 2,
                    rank_score: -2.0 * std::f64::consts::LN_2,
                    query: FeatureQuery::AfterPrevious {
                        state: StateId(1),
                        action: "click #add".into(),
                    },
                },
            ],
        }
    }

    #[test]
    fn an_inference_reads_back_as_it_was_written() {
        let dir = store();
        let wrote = inference(dir.path());
        write_features(dir.path(), &wrote).unwrap();
        let read = load(dir.path()).unwrap().features.expect("an inference");
        let mut expected = wrote.clone();
        expected.features[0].outcome = FeatureOutcome::Tested(FeatureTestRecord {
            file: "features/tests/feature-Add Owner.spec.ts".into(),
            steps: 5,
            covers: Some(vec!["add-owner".into()]),
        });
        assert_eq!(read, expected);
        assert!(read.features[2].outcome.kept());
        assert!(!read.features[4].outcome.kept());
    }

    #[test]
    fn writing_again_replaces_the_inference_before() {
        let dir = store();
        write_features(dir.path(), &inference(dir.path())).unwrap();
        let second = StoredFeatures {
            questions: 2,
            embedder: "MiniLM-L6".into(),
            checked: false,
            features: vec![feature(0, "Log out", 0.0, FeatureOutcome::NotKept)],
            actions: Vec::new(),
        };
        // Through the file this time: a directory and its run.sqlite are the same store.
        write_features(&dir.path().join(STORE_FILE), &second).unwrap();
        assert_eq!(load(dir.path()).unwrap().features, Some(second));
        // An inference that found nothing is still one.
        write_features(dir.path(), &StoredFeatures::default()).unwrap();
        assert_eq!(
            load(dir.path()).unwrap().features,
            Some(StoredFeatures::default())
        );
    }

    #[test]
    fn a_store_from_before_the_feature_tables_loads_without_features_and_takes_them() {
        let dir = store();
        let file = dir.path().join(STORE_FILE);
        let conn = Connection::open(&file).unwrap();
        conn.execute_batch("DROP TABLE features; DROP TABLE action_features;")
            .unwrap();
        drop(conn);
        let data = load(dir.path()).unwrap();
        assert_eq!(data.features, None);
        // `wayfarer features` on such a run adds the tables.
        write_features(dir.path(), &inference(dir.path())).unwrap();
        assert_eq!(
            load(dir.path()).unwrap().features.unwrap().features.len(),
            5
        );
        // A fresh store has the tables and no inference.
        assert_eq!(load(store().path()).unwrap().features, None);
    }

    #[test]
    fn no_store_no_write() {
        let dir = tempfile::tempdir().unwrap();
        let e = write_features(dir.path(), &StoredFeatures::default()).unwrap_err();
        assert!(matches!(e, StoreError::Missing(_)), "{e}");
    }

    #[test]
    fn a_test_outside_the_run_directory_is_stored_absolute() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir_all(&run).unwrap();
        assert_eq!(
            relative_to(&run, &run.join("a/b.ts").display().to_string()),
            "a/b.ts"
        );
        let out = dir.path().join("elsewhere/b.ts").display().to_string();
        assert_eq!(relative_to(&run, &out), out);
        // A path relative to the working directory is made absolute.
        let rel = relative_to(&run, "x/b.ts");
        assert!(Path::new(&rel).is_absolute(), "{rel}");
    }
}
