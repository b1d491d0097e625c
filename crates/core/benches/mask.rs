//! What masking secrets costs per step (issue 44): the store writer's work for one step
//! record, serialised with every string masked plus its text columns (URL, title, the
//! edge), against serialising it unmasked. Two real records of an MLflow run (a typical
//! one, 1.7 KB of JSON, and the run's largest, 12 KB), with two configured secrets that
//! the page does not show (the common case) and with one it echoes in its URL.

use criterion::{criterion_group, criterion_main, Criterion};
use wayfarer_core::secrets::Secrets;
use wayfarer_core::StepRecord;

const TYPICAL: &str = include_str!("data/step-typical.json");
const HEAVY: &str = include_str!("data/step-heavy.json");

fn secrets() -> Secrets {
    Secrets::new([
        ("APP_PASSWORD".to_string(), "Pw-zr83ms1x!".to_string()),
        ("APP_USER".to_string(), "sam.q7vk2@example.test".to_string()),
    ])
}

/// What `StoreWriter::on_step` masks: the record and three columns.
fn store_step(s: &Secrets, r: &StepRecord) -> usize {
    let record = s.mask_serialized(r);
    let url = s.mask(&r.url_after);
    let title = s.mask(&r.title_after);
    let edge = s.mask(r.action.target.as_deref().unwrap_or(""));
    record.len() + url.len() + title.len() + edge.len()
}

fn bench(c: &mut Criterion) {
    let none = Secrets::default();
    let two = secrets();
    for (name, text) in [("typical", TYPICAL), ("heavy", HEAVY)] {
        let plain: StepRecord = serde_json::from_str(text).expect("a step record");
        let mut echoed = plain.clone();
        echoed.url_after = format!("{}?q=Pw-zr83ms1x%21", echoed.url_after);
        c.bench_function(&format!("mask/{name}/no secrets"), |b| {
            b.iter(|| store_step(&none, &plain))
        });
        c.bench_function(&format!("mask/{name}/2 secrets, none shown"), |b| {
            b.iter(|| store_step(&two, &plain))
        });
        c.bench_function(&format!("mask/{name}/2 secrets, one echoed"), |b| {
            b.iter(|| store_step(&two, &echoed))
        });
    }
    c.bench_function("mask/build the mask of 2 secrets", |b| b.iter(secrets));
}

criterion_group!(benches, bench);
criterion_main!(benches);
