//! What the store's tests share: an agent and a small simulated run recorded into a store.

use std::path::Path;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::sim::{SimApp, SimEnv};
use wayfarer_core::state::StructureAbstraction;
use wayfarer_core::{
    run, Action, Agent, Budget, Failure, Observer, Progress, ResetRecord, RunOptions, RunSummary,
    StepRecord, View,
};
use wayfarer_store::{RunMeta, StoreWriter};

/// Picks uniformly; types "x" where a value is needed.
pub struct Uniform;

impl Agent for Uniform {
    fn name(&self) -> &str {
        "uniform"
    }
    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let a = view.actions[rng.gen_range(0..view.actions.len())].clone();
        if a.kind == wayfarer_core::ActionKind::Type {
            a.with_value("x")
        } else {
            a
        }
    }
}

/// Forwards everything but the end, as a killed run would.
struct NoEnd<'a>(&'a mut StoreWriter);

impl Observer for NoEnd<'_> {
    fn on_reset(&mut self, r: &ResetRecord, p: &Progress) {
        self.0.on_reset(r, p)
    }
    fn on_step(&mut self, r: &StepRecord, p: &Progress) {
        self.0.on_step(r, p)
    }
    fn on_failure(&mut self, f: &Failure, s: Option<&[u8]>) {
        self.0.on_failure(f, s)
    }
}

/// `budget` actions of `Uniform` on a generated app (seed 3, episodes of 25) recorded into
/// `dir`; `end`: whether the store hears the run end (else it stops after its last step,
/// as a killed run's does).
pub fn explore(dir: &Path, meta: &RunMeta, budget: &str, end: bool) -> (RunSummary, StoreWriter) {
    let mut env = SimEnv::new(SimApp::generate(7, 30));
    let mut writer = StoreWriter::create(dir, meta, Default::default()).unwrap();
    let opts = RunOptions::new(budget.parse::<Budget>().unwrap(), 25, 3);
    let mut abs = StructureAbstraction::default();
    let summary = if end {
        run(&mut env, &mut Uniform, &mut abs, &opts, &mut [&mut writer]).unwrap()
    } else {
        let mut cut = NoEnd(&mut writer);
        run(&mut env, &mut Uniform, &mut abs, &opts, &mut [&mut cut]).unwrap()
    };
    (summary, writer)
}
