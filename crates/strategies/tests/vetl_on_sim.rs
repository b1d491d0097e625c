//! vetl on the simulated application: a chain of forms, each page behind the previous
//! one's form. Favouring the button each value belongs to (the nearest one) and typing the
//! fields it sends gets through the chain; random clicking around the same forms
//! does not.

mod common;

use common::Valid;

use wayfarer_core::sim::{SimApp, SimEnv};
use wayfarer_core::tagseq::TagSeqAbstraction;
use wayfarer_core::{run, Budget, Config, RunOptions, RunSummary};
use wayfarer_strategies::by_name;

fn explore(strategy: &str, seed: u64) -> (RunSummary, SimEnv) {
    explore_with(strategy, seed, Config::default())
}

fn explore_with(strategy: &str, seed: u64, config: Config) -> (RunSummary, SimEnv) {
    let mut agent = by_name(strategy, &config, Box::new(Valid)).unwrap();
    let mut env = SimEnv::new(SimApp::form_chain(5, 3));
    let mut abs = TagSeqAbstraction::default();
    let opts = RunOptions::new(Budget::actions(300), 100, seed);
    let summary = run(&mut env, agent.as_mut(), &mut abs, &opts, &mut []).unwrap();
    (summary, env)
}

#[test]
fn vetl_gets_through_a_chain_of_forms_with_its_values_accepted() {
    chain_passed(Config::default());
}

#[test]
fn vetl_in_the_papers_order_gets_through_the_same_chain() {
    // Every empty field typed before any target.
    let mut config = Config::default();
    config.strategy.set("vetl", "target_first", false.into());
    chain_passed(config);
}

fn chain_passed(config: Config) {
    for seed in 1..=5 {
        let (s, env) = explore_with("vetl-h", seed, config.clone());
        assert!(
            env.visited.iter().all(|v| *v),
            "seed {seed}: visited {:?}",
            env.visited
        );
        let f = s.form_acceptance;
        assert!(f.submissions >= 4, "seed {seed}: {f:?}");
        // Every submission had all of its fields filled with valid values.
        assert_eq!(f.share(), Some(1.0), "seed {seed}: {f:?}");
        assert!(
            s.failures
                .iter()
                .any(|f| f.message.contains("reading 'total'")),
            "seed {seed}: the bug at the end of the chain"
        );
        let llm = s.llm.as_ref();
        assert!(
            llm.is_none(),
            "no model asked through by_name's defaults: {llm:?}"
        );
    }
}

#[test]
fn random_clicking_rarely_passes_the_same_chain() {
    let deepest = (1..=5)
        .map(|seed| {
            let (_, env) = explore("random", seed);
            env.visited.iter().rposition(|v| *v).unwrap_or(0)
        })
        .max()
        .unwrap();
    assert!(deepest < 4, "random reached page {deepest}");
}
