//! What recording one step costs: `StoreWriter::on_step` with a realistic record (an
//! element hint, a dozen network events), committed in its own transaction as in a run.
//! Compare with the median step time a run prints (~100-250 ms in the browser).

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use wayfarer_core::env::Coverage;
use wayfarer_core::trace::ElementHint;
use wayfarer_core::{
    Action, ActionKind, Event, Observer, Progress, StateId, StepRecord, StepTimings,
};
use wayfarer_store::{RunMeta, StoreWriter};

fn record(step: u64) -> StepRecord {
    let mut hint = ElementHint {
        tag: "button".into(),
        role: Some("button".into()),
        text: "Add expense".into(),
        name: "Add expense".into(),
        same_name: 1,
        ..ElementHint::default()
    };
    hint.attrs.insert("id".into(), "add-expense".into());
    StepRecord {
        step,
        episode: 1 + step / 50,
        worker: 0,
        episode_step: (step % 50) as u32,
        action: Action::on(ActionKind::Click, "#add-expense"),
        target: Some("button \"Add expense\"".into()),
        state_before: StateId(step % 40),
        state_after: StateId((step * 7) % 40),
        url_after: "http://127.0.0.1:8080/expenses/new".into(),
        title_after: "New expense".into(),
        element: Some(hint),
        new_state: step % 10 == 0,
        events: (0..12)
            .map(|i| Event::http(200, format!("http://127.0.0.1:8080/api/item/{i}"), i == 0))
            .collect(),
        timings: StepTimings {
            scan: Duration::from_millis(12),
            act: Duration::from_millis(40),
            wait: Duration::from_millis(90),
            total: Duration::from_millis(150),
            ..StepTimings::default()
        },
        error: None,
        findings: vec![],
        app_actions: vec![],
        app_state: None,
        decision: None,
        form: None,
        inference: None,
        novelty: Default::default(),
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut w = StoreWriter::create(dir.path(), &RunMeta::default(), Default::default()).unwrap();
    let progress = Progress {
        steps: 1,
        states: 10,
        coverage: Some(Coverage::default()),
        ..Progress::default()
    };
    let mut step = 0;
    c.bench_function("store: on_step (one transaction)", |b| {
        b.iter(|| {
            step += 1;
            w.on_step(&record(step), &progress);
        })
    });
    assert!(w.error().is_none());
}

criterion_group!(benches, bench);
criterion_main!(benches);
