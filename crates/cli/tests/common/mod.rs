//! Shared set-up for the browser integration tests: a test application served on
//! 127.0.0.1, a real headless Chromium, and the loop with the random strategy.

#![allow(dead_code)]

pub mod cmd;
pub mod procs;
pub mod throttle;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions};
use wayfarer_core::candidates::DenyText;
use wayfarer_core::config::{BrowserConfig, OracleConfig};
use wayfarer_core::state::StructureAbstraction;
use wayfarer_core::{run, Budget, Observer, Oracles, Progress, RunOptions, RunSummary, StepRecord};

/// Records every step, and the events raised by resets.
#[derive(Default)]
pub struct Steps(pub Vec<StepRecord>, pub Vec<wayfarer_core::Event>);

impl Observer for Steps {
    fn on_step(&mut self, r: &StepRecord, _: &Progress) {
        self.0.push(r.clone());
    }

    fn on_reset(&mut self, r: &wayfarer_core::ResetRecord, _: &Progress) {
        self.1.extend(r.events.iter().cloned());
    }
}

pub fn launch(url: &str, config: BrowserConfig) -> BrowserEnv {
    BrowserEnv::launch(BrowserOptions {
        start_url: url.parse().unwrap(),
        config,
        actions: Default::default(),
        allow_origins: vec![],
        subresources: Default::default(),
        deny: vec![],
        login: vec![],
        cdp_url: None,
        grid: None,
        chrome: Some(
            find_chrome(None).expect("Chromium is installed (scripts/ensure-chromium.sh)"),
        ),
        coverage: Default::default(),
        spec: None,
    })
    .expect("browser starts")
}

pub fn options(url: &str, seed: u64, budget: Budget, episode_steps: u32) -> RunOptions {
    let origin = url::Url::parse(url).unwrap().origin().ascii_serialization();
    RunOptions {
        budget,
        episode_steps,
        seed,
        deny: DenyText::default(),
        oracles: Oracles::new(OracleConfig::default(), vec![origin]).unwrap(),
        stop: Arc::new(AtomicBool::new(false)),
        target: url.to_string(),
        inference: None,
        llm: None,
        auto_workers: None,
        handover: None,
    }
}

/// Explore `url` with `random` and the random input generator; extra observers see the run.
pub fn explore(
    env: &mut BrowserEnv,
    opts: &RunOptions,
    extra: &mut (dyn Observer + Send),
) -> (RunSummary, Vec<StepRecord>) {
    let (summary, steps) = explore_all(env, opts, extra);
    (summary, steps.0)
}

/// Like `explore`, with the reset events too.
pub fn explore_all(
    env: &mut BrowserEnv,
    opts: &RunOptions,
    extra: &mut (dyn Observer + Send),
) -> (RunSummary, Steps) {
    let inputs = wayfarer_inputs::by_name("random", wayfarer_inputs::Dictionary::default())
        .expect("random inputs");
    let mut agent = wayfarer_strategies::by_name("random", &Default::default(), inputs).unwrap();
    let mut abs = StructureAbstraction::default();
    let mut steps = Steps::default();
    let summary = run(
        env,
        agent.as_mut(),
        &mut abs,
        opts,
        &mut [&mut steps, extra],
    )
    .unwrap();
    (summary, steps)
}

pub struct Nobody;
impl Observer for Nobody {}
