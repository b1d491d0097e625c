//! What WebRLED's networks cost per call at the design's sizes: one Q-network Adam step
//! (state 256 -> 256 -> 256 -> 400 grid cells, batch 32), one Q-network forward for a
//! single state, and one epoch of the action discriminator. mimalloc is the allocator, as
//! in the binary (TECH-NOTES: glibc's mmap of fresh large tensors made steps ~9x slower).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wayfarer_ml::{Classifier, QNetwork, QSample};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn random_rows(rows: usize, width: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<f32>> {
    (0..rows)
        .map(|_| (0..width).map(|_| rng.gen_range(0.0..1.0)).collect())
        .collect()
}

fn qnetwork(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut q = QNetwork::new(256, &[256, 256], 400, 1e-3, 1).unwrap();
    // Each transition covers the ~7 cells within R = 1.5 cells of an element's centre.
    let batch: Vec<QSample> = random_rows(32, 256, &mut rng)
        .into_iter()
        .map(|state| {
            let centre = rng.gen_range(21..379);
            let targets = [0, 1, 20, 21, 22, 40, 41]
                .iter()
                .map(|d| (centre - 21 + d, rng.gen_range(-1.0..1.0)))
                .collect();
            QSample { state, targets }
        })
        .collect();
    c.bench_function("qnetwork train step (256-256-256-400, batch 32)", |b| {
        b.iter(|| q.train(black_box(&batch)).unwrap())
    });
    let state = &batch[0].state;
    c.bench_function("qnetwork forward (one state)", |b| {
        b.iter(|| q.values(black_box(state)).unwrap())
    });
}

fn classifier(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let xs = random_rows(512, 64, &mut rng);
    let labels: Vec<usize> = xs
        .iter()
        .map(|x| usize::from(x[0] > 0.5) + usize::from(x[1] > 0.5))
        .collect();
    let mut clf = Classifier::new(64, 64, 3, 1e-3, 1).unwrap();
    c.bench_function(
        "classifier fit epoch (64-64x3-3, 512 rows, batch 32)",
        |b| b.iter(|| clf.fit(black_box(&xs), &labels, 1, 32, 0).unwrap()),
    );
}

criterion_group!(benches, qnetwork, classifier);
criterion_main!(benches);
