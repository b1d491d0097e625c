//! Lazy JS coverage (taken with an action that may leave the page, not after every step)
//! measures what the every-step take measures: same seed, same actions, same bytes covered
//! within a point, on a multi-page application (expense: most clicks load another
//! document) and on a single-page one with a 2 MB script (hazards' /bigscript).

mod common;

use wayfarer_core::config::{BrowserConfig, CoverageMode};
use wayfarer_core::summary::CoverageSummary;
use wayfarer_core::Budget;
use wayfarer_testapps::{App, ServeOptions, Server};

fn covered(
    url: &str,
    mode: CoverageMode,
    steps: u64,
) -> (CoverageSummary, Vec<wayfarer_core::Action>) {
    let config = BrowserConfig {
        coverage: mode,
        ..BrowserConfig::default()
    };
    let mut env = common::launch(url, config);
    let mut opts = common::options(url, 3, Budget::actions(steps), 30);
    // The hazards layout links to pages that never answer: stay on the page under test.
    opts.deny = wayfarer_core::candidates::DenyText::new(&[wayfarer_core::config::DenyRule {
        selector: None,
        text: Some("Hazards index".into()),
    }]);
    let (summary, steps) = common::explore(&mut env, &opts, &mut common::Nobody);
    let actions = steps.into_iter().map(|s| s.action).collect();
    (summary.js_coverage.expect("coverage measured"), actions)
}

fn compare(url: &str, steps: u64) {
    let (lazy, a) = covered(url, CoverageMode::Lazy, steps);
    let (every, b) = covered(url, CoverageMode::EveryStep, steps);
    assert_eq!(a, b, "both runs took the same actions");
    assert_eq!(lazy.total_bytes, every.total_bytes, "{lazy:?} vs {every:?}");
    let gap = (lazy.ratio - every.ratio).abs();
    assert!(
        gap <= 0.01,
        "lazy {:.2}% vs every step {:.2}%",
        lazy.ratio * 100.0,
        every.ratio * 100.0
    );
    assert!(lazy.covered_bytes > 0);
}

#[test]
fn lazy_coverage_matches_every_step_on_a_multi_page_app() {
    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    compare(&server.url(), 60);
}

#[test]
fn lazy_coverage_matches_every_step_on_a_page_with_a_2_mb_script() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    assert!(wayfarer_testapps::hazards::big_js().len() > 2_000_000);
    compare(&format!("{}bigscript", server.url()), 40);
}
