//! The exploration loop with the random strategy on the simulated application: budgets,
//! episodes, determinism by seed, and failures with replayable traces.

mod common;

use common::Valid;

use wayfarer_core::sim::{SimApp, SimEnv};
use wayfarer_core::state::StructureAbstraction;
use wayfarer_core::{
    run, Action, Budget, Environment, EventKind, Observer, Progress, RunOptions, RunSummary,
    StepRecord,
};
use wayfarer_strategies::RandomAgent;

#[derive(Default)]
struct Actions(Vec<Action>, u64);

impl Observer for Actions {
    fn on_step(&mut self, r: &StepRecord, _: &Progress) {
        self.0.push(r.action.clone());
    }
    fn on_reset(&mut self, _: &wayfarer_core::ResetRecord, _: &Progress) {
        self.1 += 1;
    }
}

fn explore(
    app: SimApp,
    seed: u64,
    budget: &str,
    episode_steps: u32,
) -> (RunSummary, Actions, SimEnv) {
    let mut env = SimEnv::new(app);
    let mut agent = RandomAgent::new(Box::new(Valid));
    let mut abs = StructureAbstraction::default();
    let opts = RunOptions::new(budget.parse::<Budget>().unwrap(), episode_steps, seed);
    let mut log = Actions::default();
    let summary = run(&mut env, &mut agent, &mut abs, &opts, &mut [&mut log]).unwrap();
    (summary, log, env)
}

#[test]
fn same_seed_same_actions_other_seed_other_actions() {
    let app = SimApp::generate(11, 20);
    let (_, a, _) = explore(app.clone(), 5, "300", 40);
    let (_, b, _) = explore(app.clone(), 5, "300", 40);
    let (_, c, _) = explore(app, 6, "300", 40);
    assert_eq!(a.0.len(), 300);
    assert_eq!(a.0, b.0);
    assert_ne!(a.0, c.0);
}

#[test]
fn episodes_reset_the_environment_and_the_budget_is_kept() {
    let (summary, log, env) = explore(SimApp::generate(3, 10), 1, "35", 10);
    assert_eq!(summary.steps, 35);
    assert_eq!(summary.episodes, 4);
    assert_eq!(env.resets, 4);
    assert_eq!(log.1, 4);
    assert!(summary.states >= 2);
    assert!(summary.actions_discovered >= 2);
}

#[test]
fn a_time_budget_ends_the_run() {
    let (summary, _, _) = explore(SimApp::generate(3, 10), 1, "200ms", 50);
    assert!(summary.steps > 10);
    assert!(summary.duration_s < 2.0);
}

#[test]
fn the_seeded_bug_is_found_and_its_trace_replays() {
    let app = SimApp::form_chain(3, 1);
    let (summary, _, _) = explore(app.clone(), 2, "2000", 30);
    let bug = summary
        .failures
        .iter()
        .find(|f| f.kind == "exception")
        .expect("random finds the bug behind two one-field forms");
    assert!(bug.message.contains("reading 'total'"));
    assert_eq!(summary.failures.len(), 1, "repeats are one failure");
    assert!(bug.count >= 1);
    assert!(bug.step >= 5, "needs two forms and the click: {}", bug.step);
}

#[test]
fn failure_traces_start_at_a_reset_and_reproduce() {
    // The trace recorded with the failure, replayed on a fresh session, raises it again.
    let app = SimApp::form_chain(3, 1);
    let mut env = SimEnv::new(app.clone());
    let mut agent = RandomAgent::new(Box::new(Valid));
    let mut abs = StructureAbstraction::default();
    let opts = RunOptions::new(Budget::actions(2000), 30, 9);
    struct Keep(Vec<wayfarer_core::Failure>);
    impl Observer for Keep {
        fn on_failure(&mut self, f: &wayfarer_core::Failure, _: Option<&[u8]>) {
            self.0.push(f.clone());
        }
    }
    let mut keep = Keep(Vec::new());
    run(&mut env, &mut agent, &mut abs, &opts, &mut [&mut keep]).unwrap();
    let failure = keep.0.first().expect("a failure");
    let mut fresh = SimEnv::new(app);
    fresh.reset().unwrap();
    let mut raised = false;
    for s in &failure.trace {
        let out = fresh.step(&s.action).unwrap();
        raised |= out.events.iter().any(|e| e.kind == EventKind::Exception);
    }
    assert!(raised, "trace {:?} does not reproduce", failure.trace);
    assert_eq!(
        failure.trace.last().unwrap().action.target.as_deref(),
        Some("#bug")
    );
}

#[test]
fn a_start_page_without_actions_ends_the_run_instead_of_resetting_forever() {
    // Regression: the loop used to reset without end when the start page offered nothing.
    let app = SimApp {
        pages: vec![wayfarer_core::sim::Page::default()],
        bug_page: None,
    };
    let (summary, _, env) = explore(app, 1, "50", 10);
    assert_eq!(summary.steps, 0);
    let why = summary.stopped_early.as_deref().unwrap();
    assert!(
        why.contains("no action") && why.contains("fresh browser"),
        "{why}"
    );
    // Three resets, then a fresh browser (the sim's is one more reset), then the halt.
    assert_eq!(env.resets, 4);
}
