//! The `mutate` input layer end to end on the simulated application: a profile form
//! whose server takes any valid value but fails on a name longer than its 255-character
//! column. Valid values never trip it; boundary values, tried once the form was
//! accepted, do.

mod common;

use common::Valid;

use wayfarer_core::input::InputGenerator;
use wayfarer_core::sim::{Field, FieldRule, Form, Page, SimApp, SimEnv};
use wayfarer_core::tagseq::TagSeqAbstraction;
use wayfarer_core::{
    run, ActionKind, Budget, Failure, Observer, Progress, RunOptions, RunSummary, StepRecord,
};
use wayfarer_inputs::Mutate;
use wayfarer_strategies::{by_name, default_episode_steps};

/// A profile form (a name stored in a 255-character column, an e-mail) that leads to a
/// page linking back to it.
fn profile() -> SimApp {
    let field = |name: &str, rule| Field {
        name: name.into(),
        rule,
    };
    SimApp {
        pages: vec![
            Page {
                name: "profile".into(),
                forms: vec![Form {
                    fields: vec![
                        field("name", FieldRule::Column(255)),
                        field("email", FieldRule::Email),
                    ],
                    target: 1,
                }],
                ..Page::default()
            },
            Page {
                name: "saved".into(),
                links: vec![0],
                dead_buttons: 1,
                ..Page::default()
            },
        ],
        bug_page: None,
    }
}

/// The rationales of the steps (why a weird value was typed) and the failures found.
#[derive(Default)]
struct Log {
    decisions: Vec<String>,
    failures: Vec<Failure>,
}

impl Observer for Log {
    fn on_step(&mut self, r: &StepRecord, _: &Progress) {
        self.decisions.extend(r.decision.clone());
    }
    fn on_failure(&mut self, f: &Failure, _: Option<&[u8]>) {
        self.failures.push(f.clone());
    }
}

fn explore(strategy: &str, inputs: &str, seed: u64) -> (RunSummary, Log) {
    let generator = wayfarer_inputs::by_name(inputs, Default::default()).unwrap();
    explore_with(strategy, generator, seed)
}

fn explore_with(
    strategy: &str,
    generator: Box<dyn InputGenerator + Send>,
    seed: u64,
) -> (RunSummary, Log) {
    let config = wayfarer_core::Config::default();
    let mut agent = by_name(strategy, &config, generator).unwrap();
    let mut env = SimEnv::new(profile());
    let mut abs = TagSeqAbstraction::default();
    let opts = RunOptions::new(
        Budget::actions(600),
        default_episode_steps(strategy, &config.strategy),
        seed,
    );
    let mut log = Log::default();
    let summary = run(&mut env, agent.as_mut(), &mut abs, &opts, &mut [&mut log]).unwrap();
    (summary, log)
}

fn too_long(s: &RunSummary) -> bool {
    s.failures
        .iter()
        .any(|f| f.message.contains("value too long"))
}

#[test]
fn heuristic_mutate_finds_the_column_bug_that_valid_values_never_trip() {
    // Measured at the time of writing, seeds 1-30 at 600 steps: heuristic+mutate found
    // it in 30/30 (by step 353 at the latest), plain heuristic in 0/30.
    for seed in 1..=8 {
        let (plain, _) = explore("webexplor", "heuristic", seed);
        assert!(!too_long(&plain), "seed {seed}: {:?}", plain.failures);
        let (mutated, log) = explore("webexplor", "heuristic+mutate", seed);
        assert!(too_long(&mutated), "seed {seed}: {:?}", mutated.failures);
        // The failure's trace types the over-long name: replay reproduces it.
        let f = log
            .failures
            .iter()
            .find(|f| f.message.contains("value too long"))
            .unwrap();
        assert!(
            f.trace.iter().any(|t| t.action.kind == ActionKind::Type
                && t.action
                    .value
                    .as_ref()
                    .is_some_and(|v| v.chars().count() > 255)),
            "seed {seed}: {:?}",
            f.trace
        );
        // And the report says why such a value was typed.
        assert!(
            log.decisions
                .iter()
                .any(|d| d.contains("mutate name:") && d.contains("chars)")),
            "seed {seed}"
        );
    }
}

#[test]
fn the_layer_goes_on_top_of_any_generator() {
    // `Valid` types "x" and "a@b.co": the form passes, the column holds. On top of it,
    // the layer pads the name past the column.
    for seed in 1..=3 {
        let (plain, _) = explore_with("webexplor", Box::new(Valid), seed);
        assert!(!too_long(&plain), "seed {seed}");
        let layered = Mutate::new(Box::new(Valid));
        assert_eq!(layered.name(), "valid+mutate");
        let (mutated, _) = explore_with("webexplor", Box::new(layered), seed);
        assert!(too_long(&mutated), "seed {seed}: {:?}", mutated.failures);
    }
}
