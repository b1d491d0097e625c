//! Lazy JS coverage (taken with an action that may leave the page, not after every step)
//! measures what the every-step take measures: the lazy run's actions, replayed with a
//! take after every step, cover the same bytes within a point, on a multi-page application
//! (expense: most clicks load another document) and on a single-page one with a 2 MB script
//! (hazards' /bigscript). The replay runs against a freshly started server, so what the
//! exploration stored there (an account, an expense) cannot send it down other pages, and
//! a replay that could not do what the exploration did says so instead of blaming the mode.

mod common;

use wayfarer_core::config::{BrowserConfig, CoverageMode};
use wayfarer_core::summary::CoverageSummary;
use wayfarer_core::{Budget, Environment, StepRecord};
use wayfarer_testapps::{App, ServeOptions, Server};

fn config(mode: CoverageMode) -> BrowserConfig {
    BrowserConfig {
        coverage: mode,
        ..BrowserConfig::default()
    }
}

/// Explore `url` with lazy coverage: its coverage and the steps it took.
fn explored(url: &str, steps: u64) -> (CoverageSummary, Vec<StepRecord>) {
    let mut env = common::launch(url, config(CoverageMode::Lazy));
    let mut opts = common::options(url, 3, Budget::actions(steps), 30);
    // The hazards layout links to pages that never answer: stay on the page under test.
    opts.deny = wayfarer_core::candidates::DenyText::new(&[wayfarer_core::config::DenyRule {
        selector: None,
        text: Some("Hazards index".into()),
    }]);
    let (summary, steps) = common::explore(&mut env, &opts, &mut common::Nobody);
    (summary.js_coverage.expect("coverage measured"), steps)
}

/// The same actions, episode by episode, with a take after every step, against `url` (a
/// fresh server; `from` is the explored one's origin, rebased in navigations): (covered,
/// total), and the steps the exploration did that the replay could not. The steps it could
/// not do are left out: done here, they would run code the exploration never ran.
/// Replayed rather than explored again, so a page caught at another moment of its
/// rendering under load cannot send the second run elsewhere.
fn replayed(url: &str, from: &str, steps: &[StepRecord]) -> ((u64, u64), Vec<String>) {
    let mut env = common::launch(url, config(CoverageMode::EveryStep));
    let to = origin(url);
    let mut episode = None;
    let mut diverged = Vec::new();
    for s in steps {
        if episode != Some(s.episode) {
            env.reset().expect("reset");
            episode = Some(s.episode);
        }
        // An action the exploration could not do (under load: a timeout half way) is not
        // done here either; core's `replay` would end the episode there.
        if s.error.is_some() {
            continue;
        }
        let mut action = s.action.clone();
        if let Some(v) = &action.value {
            action.value = Some(v.replace(from, &to));
        }
        if let Err(e) = env.step(&action) {
            diverged.push(format!("step {} ({}): {e}", s.step, s.action.describe()));
        }
    }
    env.flush();
    let c = env.coverage().expect("coverage measured");
    ((c.covered_bytes, c.total_bytes), diverged)
}

fn origin(url: &str) -> String {
    url::Url::parse(url).unwrap().origin().ascii_serialization()
}

/// Explore `path` on one server of `app`, replay on another.
fn compare(app: App, path: &str, steps: u64) {
    let explored_on = Server::start(app, ServeOptions::default()).unwrap();
    let (lazy, walk) = explored(&format!("{}{path}", explored_on.url()), steps);
    let replayed_on = Server::start(app, ServeOptions::default()).unwrap();
    let ((covered, total), diverged) = replayed(
        &format!("{}{path}", replayed_on.url()),
        &origin(&explored_on.url()),
        &walk,
    );
    assert!(
        diverged.is_empty(),
        "the replay could not do what the exploration did, so it measured another walk: {diverged:#?}"
    );
    let every = covered as f64 / total as f64;
    let gap = (lazy.ratio - every).abs();
    assert!(
        gap <= 0.01,
        "lazy {:.2}% ({} of {} bytes) vs every step {:.2}% ({covered} of {total})",
        lazy.ratio * 100.0,
        lazy.covered_bytes,
        lazy.total_bytes,
        every * 100.0
    );
    assert!(lazy.covered_bytes > 0);
}

#[test]
fn lazy_coverage_matches_every_step_on_a_multi_page_app() {
    compare(App::Expense, "", 60);
}

#[test]
fn lazy_coverage_matches_every_step_on_a_page_with_a_2_mb_script() {
    assert!(wayfarer_testapps::hazards::big_js().len() > 2_000_000);
    compare(App::Hazards, "bigscript", 40);
}
