//! A run with one worker is the run of before workers existed: for the same seed, every
//! strategy takes exactly the actions recorded in the snapshots, which were taken with the
//! single-browser loop (commit a365807) before the loop learned to drive several workers.

mod common;

use wayfarer_core::sim::{SimApp, SimEnv};
use wayfarer_core::{run, Budget, Config, Observer, Progress, RunOptions, StepRecord};

#[derive(Default)]
struct Lines(Vec<String>);

impl Observer for Lines {
    fn on_step(&mut self, r: &StepRecord, _: &Progress) {
        // `describe` names the value typed too.
        self.0.push(format!(
            "{} e{} {} -> {}",
            r.step,
            r.episode,
            r.action.describe(),
            r.state_after
        ));
    }
}

/// The actions of `steps` steps of `strategy` (seed 7) on a generated application, one
/// line each, with state inference when `inference` names a configuration.
fn actions(strategy: &str, steps: u64, inference: Option<&str>) -> String {
    let app = SimApp::generate(21, 14);
    let mut env = SimEnv::new(app);
    let mut setup =
        wayfarer_strategies::setup(strategy, &Config::default(), None, None, None).unwrap();
    let mut opts = RunOptions::new(Budget::actions(steps), setup.episode_steps.min(30), 7);
    opts.inference = inference.map(|i| i.parse().unwrap());
    let mut log = Lines::default();
    let summary = run(
        &mut env,
        setup.agent.as_mut(),
        setup.abstraction.as_mut(),
        &opts,
        &mut [&mut log],
    )
    .unwrap();
    assert_eq!(summary.steps, steps, "{strategy}: the budget was spent");
    log.0.join("\n")
}

#[test]
fn random_takes_todays_actions() {
    insta::assert_snapshot!(actions("random", 150, None));
}

#[test]
fn bfs_takes_todays_actions() {
    insta::assert_snapshot!(actions("bfs", 150, None));
}

#[test]
fn dfs_takes_todays_actions() {
    insta::assert_snapshot!(actions("dfs", 150, None));
}

#[test]
fn webexplor_takes_todays_actions() {
    insta::assert_snapshot!(actions("webexplor", 200, None));
}

#[test]
fn webexplor_with_state_inference_takes_todays_actions() {
    insta::assert_snapshot!(actions("webexplor", 200, Some("actions-3")));
}

#[test]
fn vetl_h_takes_todays_actions() {
    insta::assert_snapshot!(actions("vetl-h", 120, None));
}

#[test]
fn webrled_takes_todays_actions() {
    insta::assert_snapshot!(actions("webrled", 120, None));
}
