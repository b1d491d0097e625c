//! Against the clinic app, the same seed gives the same action sequence.

mod common;

use wayfarer_core::config::BrowserConfig;
use wayfarer_core::Budget;
use wayfarer_testapps::{App, ServeOptions, Server};

fn actions_of_a_run(seed: u64) -> Vec<wayfarer_core::Action> {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let url = server.url();
    let mut env = common::launch(&url, BrowserConfig::default());
    let opts = common::options(&url, seed, Budget::actions(60), 25);
    let (summary, steps) = common::explore(&mut env, &opts, &mut common::Nobody);
    assert_eq!(summary.steps, 60);
    steps.into_iter().map(|s| s.action).collect()
}

#[test]
fn same_seed_same_actions_on_the_clinic() {
    let a = actions_of_a_run(42);
    let b = actions_of_a_run(42);
    assert_eq!(a, b);
    assert!(
        a.iter().any(|x| x.kind == wayfarer_core::ActionKind::Type),
        "the run typed into forms"
    );
}
