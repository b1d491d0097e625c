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

/// The actions of `wayfarer explore` on the clinic (one line each), as the store keeps them.
fn cli_actions(strategy: &str, seed: u64, steps: u32) -> String {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args(["explore", &server.url(), "--quiet", "--strategy", strategy])
        // One browser: `auto` (the default) may add others after its probe.
        .args(["--workers", "1"])
        .args(["--seed", &seed.to_string(), "--budget", &steps.to_string()])
        .arg("--out")
        .arg(out.path())
        .status()
        .unwrap();
    // 0 clean, 1 failures found: both are finished runs.
    assert!(matches!(status.code(), Some(0 | 1)), "{status}");
    let data = wayfarer_store::load(out.path()).unwrap();
    assert_eq!(data.steps.len(), steps as usize);
    data.steps
        .iter()
        .map(|s| format!("{} {}", s.record.step, s.record.action.describe()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `explore` with one worker takes the actions it took before the loop
/// learned to drive several workers: recorded with commit a365807's single-browser loop.
#[test]
fn one_worker_takes_todays_actions_on_the_clinic() {
    insta::assert_snapshot!("random", cli_actions("random", 42, 60));
    insta::assert_snapshot!("webexplor", cli_actions("webexplor", 42, 60));
}
