//! What the per-step novelty signal costs (issue 40: under 5 ms median on the largest
//! application): `NoveltyTracker::absorb` of a step as heavy as Directus's first load
//! (150 responses: 60 script chunks, 70 API calls, 20 images and styles) against a run
//! that has already seen 3,000 scripts, endpoints and pages; and of a typical step (12
//! responses, most of them known).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use wayfarer_core::{Event, NoveltyTracker};

const ORIGIN: &str = "http://127.0.0.1:8055";

fn events(step: u32, scripts: u32, calls: u32, assets: u32) -> Vec<Event> {
    let mut out = Vec::new();
    for i in 0..scripts {
        out.push(Event::http(
            200,
            format!("{ORIGIN}/admin/assets/chunk-{step}-{i}.js"),
            false,
        ));
    }
    for i in 0..calls {
        out.push(Event::http(
            200,
            format!(
                "{ORIGIN}/items/collection{}/{}?fields=*&limit=25&page={i}",
                i % 17,
                1000 + i
            ),
            false,
        ));
    }
    for i in 0..assets {
        out.push(Event::http(
            200,
            format!("{ORIGIN}/assets/img{i}.png"),
            false,
        ));
    }
    out
}

fn absorb(c: &mut Criterion) {
    let mut seen = NoveltyTracker::new(vec![ORIGIN.into()]);
    for step in 0..1000 {
        seen.absorb(
            &events(step, 1, 1, 0),
            &format!("{ORIGIN}/admin/content/c{step}"),
            Some(u64::from(step) * 10),
        );
    }
    let heavy = events(5000, 60, 70, 20);
    let typical = events(7, 2, 10, 0);
    // Each iteration absorbs into a fresh copy of the run so far; neither the copy nor
    // its drop (the copy is handed back) is timed.
    c.bench_function("novelty: absorb a first load (150 responses)", |b| {
        b.iter_batched(
            || seen.clone(),
            |mut t| {
                let n = t.absorb(&heavy, &format!("{ORIGIN}/admin/content"), Some(20_000));
                (n, t)
            },
            BatchSize::SmallInput,
        )
    });
    c.bench_function("novelty: absorb a typical step (12 responses)", |b| {
        b.iter_batched(
            || seen.clone(),
            |mut t| {
                t.absorb(
                    &typical,
                    &format!("{ORIGIN}/admin/content/c7"),
                    Some(10_070),
                )
            },
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, absorb);
criterion_main!(benches);
