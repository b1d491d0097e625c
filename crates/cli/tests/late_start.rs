//! A start page that renders late (the hazards app's `/late`: its interface appears two
//! seconds after the load event, restored from `localStorage`, and leaving it asks "Leave
//! site?"), explored as the run's start page: every reset waits for it instead of
//! counting it as a page with nothing to do, and the "Leave site?" question at a reset
//! does not hold the reset.

mod common;

use std::time::Duration;

use wayfarer_core::config::BrowserConfig;
use wayfarer_core::{Action, ActionKind, Budget, Environment, EventKind};
use wayfarer_testapps::hazards::LATE_RENDER_MS;
use wayfarer_testapps::{App, ServeOptions, Server};

/// Longer than the page takes to render.
const WAIT: Duration = Duration::from_secs(10);

#[test]
fn a_start_page_that_renders_late_is_waited_for_at_every_reset() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let url = format!("{}late", server.url());
    let config = BrowserConfig {
        stable_timeout_ms: 1_500,
        load_timeout_ms: 5_000,
        cdp_timeout_ms: 5_000,
        ..BrowserConfig::default()
    };
    // The stability wait gives up before the interface shows: only waiting longer sees it.
    assert!(config.stable_timeout_ms < LATE_RENDER_MS);
    let mut env = common::launch(&url, config);

    // A reset leaves through the "Leave site?" question and loads the page anew, its saved
    // workspace cleared: nothing to act on until the interface renders.
    env.reset().unwrap();
    let out = env.await_change(WAIT).unwrap().unwrap();
    assert!(
        out.observation.element("#late-add").is_some(),
        "{}",
        out.observation.html
    );
    let add = Action::on(ActionKind::Click, "#late-add");
    let out = env.step(&add).unwrap();
    assert!(out.observation.html.contains("1 cell(s) restored"));
    let out = env.reset().unwrap();
    assert!(out.observation.element("#late-add").is_none());
    assert!(out.observation.html.contains("Restoring your workspace"));
    assert!(
        out.events
            .iter()
            .any(|e| e.kind == EventKind::Dialog && e.message.starts_with("beforeunload")),
        "{:?}",
        out.events
    );
    let out = env.await_change(WAIT).unwrap().unwrap();
    assert!(out.observation.html.contains("0 cell(s) restored"));

    let budget = Budget {
        actions: Some(16),
        time: Some(Duration::from_secs(120)),
    };
    // Short episodes: each begins with a reset that leaves a page the run has touched.
    let opts = common::options(&url, 3, budget, 4);
    let (summary, steps) = common::explore_all(&mut env, &opts, &mut common::Nobody);
    eprintln!(
        "{} steps, {} episodes, {} restarts in {:.1}s; stopped early: {:?}",
        summary.steps,
        summary.episodes,
        summary.restarts,
        summary.duration_s,
        summary.stopped_early
    );
    assert_eq!(summary.stopped_early, None, "{summary:?}");
    assert_eq!(summary.steps, 16);
    assert!(summary.episodes >= 4, "{}", summary.episodes);
    assert_eq!(summary.restarts, 0);
    // The browser refusing the "Leave site?" question is not the page's error.
    assert!(summary.failures.is_empty(), "{:?}", summary.failures);
    // Every step acted on the rendered workspace: the page has no way elsewhere.
    for s in &steps.0 {
        assert!(s.url_after.ends_with("/late"), "{}", s.url_after);
        assert!(s.error.is_none(), "step {}: {:?}", s.step, s.error);
    }
    // The page asked to stay when a reset (or its Reload button) left it, and was left.
    let events: Vec<_> = steps
        .0
        .iter()
        .flat_map(|s| s.events.iter())
        .chain(steps.1.iter())
        .collect();
    assert!(
        events
            .iter()
            .any(|e| e.kind == EventKind::Dialog && e.message.starts_with("beforeunload")),
        "{events:?}"
    );
}
