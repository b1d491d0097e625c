//! The store against the simulated application: what the loop reports is what the
//! store gives back, a run cut short keeps its steps, and other schema versions are
//! refused clearly.

mod common;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::{Action, Observer, RunSummary};
use wayfarer_store::{load, RunMeta, StoreError, StoreWriter};

fn meta() -> RunMeta {
    RunMeta {
        wayfarer: "test".into(),
        target: "sim".into(),
        strategy: "uniform".into(),
        seed: 3,
        budget: "400".into(),
        ..RunMeta::default()
    }
}

fn explore(dir: &std::path::Path, observers_end: bool) -> (RunSummary, StoreWriter) {
    common::explore(dir, &meta(), "400", observers_end)
}

#[test]
fn a_finished_run_reads_back_as_it_was_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (summary, writer) = explore(dir.path(), true);
    assert!(writer.error().is_none());
    drop(writer);
    let data = load(dir.path()).unwrap();
    assert!(data.complete);
    assert_eq!(data.summary, summary);
    assert_eq!(data.steps.len() as u64, summary.steps);
    assert_eq!(data.states.len(), summary.states);
    assert_eq!(data.resets.len() as u64, summary.episodes);
    assert!(
        !summary.failures.is_empty(),
        "the sim app has a bug to find"
    );
    assert_eq!(data.failures.len(), summary.failures.len());
    let moves: u64 = data.transitions.iter().map(|t| t.count).sum();
    let ok_steps = data
        .steps
        .iter()
        .filter(|s| s.record.error.is_none())
        .count() as u64;
    assert_eq!(moves, ok_steps);
    // Steps are numbered 1..=n with samples that never decrease.
    for (i, s) in data.steps.iter().enumerate() {
        assert_eq!(s.record.step, i as u64 + 1);
    }
    assert!(data
        .steps
        .windows(2)
        .all(|w| w[0].sample.states <= w[1].sample.states));
}

#[test]
fn a_run_that_never_ended_rebuilds_its_summary_from_the_steps() {
    let dir = tempfile::tempdir().unwrap();
    let (summary, writer) = explore(dir.path(), false);
    // Keep the connection open and unclosed, as a killed process leaves it.
    std::mem::forget(writer);
    let data = load(dir.path()).unwrap();
    assert!(!data.complete);
    let rebuilt = &data.summary;
    assert_eq!(rebuilt.steps, summary.steps);
    assert_eq!(rebuilt.states, summary.states);
    assert_eq!(rebuilt.episodes, summary.episodes);
    assert_eq!(rebuilt.failures, summary.failures);
    assert_eq!(rebuilt.actions_discovered, summary.actions_discovered);
    assert!(rebuilt.stopped_early.as_deref().unwrap().contains("killed"));
}

#[test]
fn another_schema_version_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let w = StoreWriter::create(dir.path(), &meta(), Default::default()).unwrap();
    drop(w);
    let conn = rusqlite::Connection::open(dir.path().join("run.sqlite")).unwrap();
    conn.execute(
        "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
        [],
    )
    .unwrap();
    drop(conn);
    let e = load(dir.path()).unwrap_err();
    assert!(
        matches!(&e, StoreError::Version { found, .. } if found == "99"),
        "{e}"
    );
    assert!(e.to_string().contains("schema version 99"), "{e}");

    let empty = tempfile::tempdir().unwrap();
    let e = load(empty.path()).unwrap_err();
    assert!(e.to_string().contains("no run store"), "{e}");
    std::fs::write(empty.path().join("run.sqlite"), b"hello").unwrap();
    assert!(load(empty.path()).is_err());
}

#[test]
fn secrets_are_stored_as_references_never_as_values() {
    use wayfarer_core::secrets::Secrets;
    let dir = tempfile::tempdir().unwrap();
    let secrets = Secrets::new([("WF_PASSWORD".to_string(), "hunter\"2".to_string())]);
    let mut m = meta();
    m.config = serde_json::json!({ "login": [{ "fill": "#pw", "value": "hunter\"2" }] });
    let mut w = StoreWriter::create(dir.path(), &m, secrets).unwrap();
    let record = wayfarer_core::StepRecord {
        step: 1,
        episode: 1,
        worker: 0,
        episode_step: 1,
        action: Action::on(wayfarer_core::ActionKind::Type, "#pw").with_value("hunter\"2"),
        target: None,
        state_before: wayfarer_core::StateId(1),
        state_after: wayfarer_core::StateId(2),
        // What the application echoes: a GET form's URL (percent-encoded), a title.
        url_after: "http://app/find?q=hunter%222&p=1".into(),
        title_after: "Results for hunter\"2".into(),
        element: None,
        new_state: true,
        events: vec![],
        timings: Default::default(),
        error: Some("no page for hunter\"2".into()),
        findings: vec!["console_error|no result for hunter\"2".into()],
        app_actions: vec![],
        app_state: None,
        decision: None,
        form: None,
        inference: None,
        novelty: Default::default(),
    };
    w.on_step(&record, &wayfarer_core::Progress::default());
    drop(w);
    let raw = std::fs::read(dir.path().join("run.sqlite")).unwrap();
    let needle = b"hunter";
    assert!(
        !raw.windows(needle.len()).any(|w| w == needle),
        "the secret's value is in run.sqlite"
    );
    let data = load(dir.path()).unwrap();
    assert_eq!(
        data.steps[0].record.action.value.as_deref(),
        Some("${WF_PASSWORD}")
    );
    assert_eq!(data.meta.config["login"][0]["value"], "${WF_PASSWORD}");
    // The columns beside the record too: the URL (its encoded form), the state's title.
    assert_eq!(
        data.steps[0].record.url_after,
        "http://app/find?q=${WF_PASSWORD}&p=1"
    );
    assert!(data
        .states
        .iter()
        .any(|s| s.title == "Results for ${WF_PASSWORD}"));
}

#[test]
fn the_latest_strategy_snapshot_is_kept_with_secrets_masked() {
    use wayfarer_core::secrets::Secrets;
    use wayfarer_core::{SnapshotTable, StrategySnapshot};
    let dir = tempfile::tempdir().unwrap();
    let secrets = Secrets::new([("WF_PASSWORD".to_string(), "s3cret-value".to_string())]);
    let mut w = StoreWriter::create(dir.path(), &meta(), secrets).unwrap();
    let snap = |n: u64| StrategySnapshot {
        strategy: "webexplor".into(),
        counters: vec![("escapes from stagnation".into(), n)],
        tables: vec![SnapshotTable {
            name: "Q-table".into(),
            columns: vec!["state".into(), "action".into(), "Q".into()],
            rows: vec![vec![
                "s1".into(),
                "type #pw \"s3cret-value\"".into(),
                "1.000".into(),
            ]],
            total_rows: 1,
        }],
    };
    w.on_strategy(&snap(1));
    w.on_strategy(&snap(2));
    drop(w);
    let data = load(dir.path()).unwrap();
    let got = data.strategy.expect("a snapshot");
    assert_eq!(
        got.counters,
        vec![("escapes from stagnation".to_string(), 2)]
    );
    assert_eq!(got.tables[0].rows[0][1], "type #pw \"${WF_PASSWORD}\"");
    // A run without one reads back as None.
    let other = tempfile::tempdir().unwrap();
    drop(StoreWriter::create(other.path(), &meta(), Secrets::default()).unwrap());
    assert!(load(other.path()).unwrap().strategy.is_none());
}

#[test]
fn the_knowledge_base_is_kept_with_secrets_masked() {
    use wayfarer_core::runner::KnowledgeRow;
    use wayfarer_core::secrets::Secrets;
    let dir = tempfile::tempdir().unwrap();
    let secrets = Secrets::new([("WF_PASSWORD".to_string(), "s3cret-value".to_string())]);
    let mut w = StoreWriter::create(dir.path(), &meta(), secrets).unwrap();
    let rows = vec![
        KnowledgeRow {
            state: "3 actions at http://h/login".into(),
            action: "type #pw \"s3cret-value\"".into(),
            candidates: vec!["s1 http://h/login (4×)".into()],
            nondeterministic: false,
        },
        KnowledgeRow {
            state: "3 actions at http://h/login".into(),
            action: "click #go".into(),
            candidates: vec![],
            nondeterministic: true,
        },
    ];
    w.on_knowledge(&rows);
    drop(w);
    let got = load(dir.path()).unwrap().knowledge;
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].action, "type #pw \"${WF_PASSWORD}\"");
    assert_eq!(got[1], rows[1]);
    // A run without inference reads back with none.
    let other = tempfile::tempdir().unwrap();
    drop(StoreWriter::create(other.path(), &meta(), Secrets::default()).unwrap());
    assert!(load(other.path()).unwrap().knowledge.is_empty());
}

/// A resumed bench compares rows read back with rows measured, so every float in the
/// summary must survive JSON to the last bit (serde_json's default parser is off by an
/// ulp now and then; this value was one).
#[test]
fn the_summary_after_shrinking_keeps_its_order_and_the_failures_it_made_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let (mut summary, mut writer) = explore(dir.path(), true);
    let found = summary.failures[0].clone();
    // A second failure the run recorded, then turned into a warning after its replays
    // (a hang none showed again), and a third listed before the first (its verdict).
    let hang = wayfarer_core::Failure {
        kind: wayfarer_core::FailureKind::Hang,
        message: "page not stable".into(),
        signature: "hang|page not stable".into(),
        source: None,
        line: None,
        column: None,
        step: 1,
        episode: 1,
        count: 1,
        page_url: "http://sim.test/p0".into(),
        trace: vec![],
        server_output: Default::default(),
    };
    let first = wayfarer_core::Failure {
        kind: wayfarer_core::FailureKind::Exception,
        message: "Error: first".into(),
        signature: "exception|Error: first".into(),
        ..hang.clone()
    };
    writer.on_failure(&hang, None);
    writer.on_failure(&first, None);
    summary.failures = vec![(&first).into(), found.clone()];
    summary.warnings.push(wayfarer_core::oracle::Warning {
        kind: wayfarer_core::FailureKind::Hang,
        message: "page not stable (never replayed)".into(),
        signature: hang.signature.clone(),
        step: 1,
        count: 1,
        page_url: hang.page_url.clone(),
    });
    writer.on_end(&summary);
    drop(writer);
    let back = load(dir.path()).unwrap().summary;
    let sigs: Vec<&str> = back.failures.iter().map(|f| f.signature.as_str()).collect();
    assert_eq!(sigs, [first.signature.as_str(), found.signature.as_str()]);
    assert_eq!(back.failures[1].count, found.count, "counts from the store");
}

#[test]
fn summary_floats_read_back_to_the_bit() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = StoreWriter::create(dir.path(), &meta(), Default::default()).unwrap();
    let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(11);
    let mut values = vec![3.4271917398800746];
    values.extend((0..200).map(|_| rng.gen::<f64>() * 10f64.powi(rng.gen_range(-3..4))));
    for v in values {
        let summary = RunSummary {
            steps_per_second: v,
            duration_s: 1.0 / v,
            ..RunSummary::default()
        };
        writer.on_end(&summary);
        let back = load(dir.path()).unwrap().summary;
        assert_eq!(back.steps_per_second.to_bits(), v.to_bits(), "{v:?}");
        assert_eq!(back.duration_s.to_bits(), (1.0 / v).to_bits(), "{v:?}");
    }
}
