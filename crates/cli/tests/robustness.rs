//! Pages that would hang a naive driver, and a browser killed mid-run: the run goes on,
//! finishes its budget, and says what happened.

mod common;

use std::time::{Duration, Instant};

use wayfarer_core::candidates::DenyText;
use wayfarer_core::config::{BrowserConfig, DenyRule};
use wayfarer_core::{Budget, EventKind, Observer, Progress, StepRecord};
use wayfarer_testapps::{App, ServeOptions, Server};

fn quick_config() -> BrowserConfig {
    BrowserConfig {
        // A page mutating every 20 ms can pause for 50 ms on a loaded 2-core machine and
        // look quiet; 250 ms never does, so the Hang is certain.
        quiet_ms: 250,
        stable_timeout_ms: 1_000,
        load_timeout_ms: 2_000,
        cdp_timeout_ms: 5_000,
        ..BrowserConfig::default()
    }
}

#[test]
fn hazard_pages_do_not_hang_the_run() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    for (page, budget) in [("mutating", 6), ("dialogs", 12), ("stuck", 6)] {
        let url = format!("{}{page}", server.url());
        let mut env = common::launch(&url, quick_config());
        let mut opts = common::options(&url, 3, Budget::actions(budget), 10);
        // The walk stays on the page under test: through the index link it wandered
        // among the other hazard pages, and how often it met a dialog hung on their number.
        opts.deny = DenyText::new(&[DenyRule {
            selector: None,
            text: Some("Hazards index".into()),
        }]);
        let started = Instant::now();
        let (summary, steps) = common::explore_all(&mut env, &opts, &mut common::Nobody);
        let took = started.elapsed();
        eprintln!(
            "{page}: {} steps in {:.1}s, median wait {:.0} ms",
            summary.steps,
            took.as_secs_f64(),
            summary.timings_ms.wait
        );
        assert_eq!(summary.steps, budget, "{page}: the budget is used up");
        // Each step is bounded by the load timeout plus scan and act; generous margin.
        assert!(
            took < Duration::from_secs(8 + budget * 4),
            "{page}: took {took:?}"
        );
        let events: Vec<EventKind> = steps
            .0
            .iter()
            .flat_map(|s| s.events.iter())
            .chain(steps.1.iter())
            .map(|e| e.kind)
            .collect();
        match page {
            "mutating" => {
                assert!(events.contains(&EventKind::Hang), "{page}: {events:?}");
                assert!(summary.failures.iter().any(|f| f.kind == "hang"));
            }
            "dialogs" => assert!(
                events.contains(&EventKind::Dialog) || events.contains(&EventKind::Popup),
                "{page}: {events:?}"
            ),
            _ => {}
        }
    }
}

#[test]
fn a_start_page_that_never_answers_ends_the_run_with_a_reason() {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let url = format!("{}never", server.url());
    let mut env = common::launch(&url, quick_config());
    let opts = common::options(&url, 1, Budget::actions(20), 10);
    let started = Instant::now();
    let (summary, _) = common::explore(&mut env, &opts, &mut common::Nobody);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(summary.steps, 0);
    assert!(summary.stopped_early.is_some());
    assert!(
        summary.failures.iter().any(|f| f.kind == "hang"),
        "{summary:?}"
    );
}

/// Kills the browser with SIGKILL once, at a given step.
struct Killer {
    pid: u32,
    at: u64,
    done: bool,
}

impl Observer for Killer {
    fn on_step(&mut self, r: &StepRecord, _: &Progress) {
        if !self.done && r.step == self.at {
            self.done = true;
            let status = std::process::Command::new("kill")
                .args(["-9", &self.pid.to_string()])
                .status()
                .unwrap();
            assert!(status.success());
        }
    }
}

#[test]
fn a_killed_browser_is_restarted_and_the_budget_finished() {
    let server = Server::start(App::Expense, ServeOptions::default()).unwrap();
    let url = server.url();
    let mut env = common::launch(&url, quick_config());
    let pid = env.browser_pid().expect("a launched browser has a pid");
    let opts = common::options(&url, 5, Budget::actions(30), 20);
    let mut killer = Killer {
        pid,
        at: 8,
        done: false,
    };
    let (summary, steps) = common::explore(&mut env, &opts, &mut killer);
    assert!(killer.done);
    assert_eq!(summary.steps, 30);
    assert!(summary.restarts >= 1, "{summary:?}");
    assert!(steps
        .iter()
        .any(|s| s.events.iter().any(|e| e.kind == EventKind::BrowserRestart)));
    assert_ne!(env.browser_pid(), Some(pid));
}
