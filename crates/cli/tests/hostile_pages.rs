//! Pages that attack the tester (the hazards app's `/crowd`, `/spin`, `/redirects`,
//! `/leaving`, `/tampered`, `/huge`): each is first driven step by step to check what the
//! attack did, then explored from the page with a small budget, which must end within a
//! generous bound with the budget used. Bounds say "it ends", not how fast: CI has 2 cores.

mod common;

use std::time::{Duration, Instant};

use wayfarer_browser::BrowserEnv;
use wayfarer_core::candidates::DenyText;
use wayfarer_core::config::{BrowserConfig, DenyRule};
use wayfarer_core::{
    Action, ActionKind, Budget, Environment, Event, EventKind, Outcome, RunSummary,
};
use wayfarer_testapps::hazards::CROWD_ELEMENTS;
use wayfarer_testapps::{App, ServeOptions, Server};

/// A run at one page must end within this: a guard against a run that never ends, not a
/// speed goal (the bench measures speed). The crowd's 12 steps took 94 s beside two busy
/// processes with 90 s here (issue 45); what makes a hostile page slow is caught by the
/// checks of each test (restarts, step errors, the scan's median).
const RUN_BOUND: Duration = Duration::from_secs(300);

fn config() -> BrowserConfig {
    BrowserConfig {
        stable_timeout_ms: 2_000,
        load_timeout_ms: 5_000,
        cdp_timeout_ms: 5_000,
        ..BrowserConfig::default()
    }
}

fn start(path: &str, config: BrowserConfig) -> (Server, BrowserEnv) {
    let server = Server::start(App::Hazards, ServeOptions::default()).unwrap();
    let env = common::launch(&format!("{}{path}", server.url()), config);
    (server, env)
}

fn click(env: &mut BrowserEnv, loc: &str) -> Outcome {
    env.step(&Action::on(ActionKind::Click, loc)).unwrap()
}

fn back(env: &mut BrowserEnv) -> Outcome {
    env.step(&Action::back()).unwrap()
}

fn shows(out: &Outcome, text: &str) -> bool {
    out.observation.html.contains(text)
}

fn of_kind(events: &[Event], kind: EventKind) -> Vec<&Event> {
    events.iter().filter(|e| e.kind == kind).collect()
}

/// What a run at one page did.
struct Ran {
    summary: RunSummary,
    steps: common::Steps,
    took: Duration,
}

impl Ran {
    fn events(&self) -> Vec<Event> {
        let steps = self.steps.0.iter().flat_map(|s| s.events.iter());
        steps.chain(self.steps.1.iter()).cloned().collect()
    }

    /// Steps after the first one that raised an event of `kind` (the attack).
    fn steps_after(&self, kind: EventKind) -> usize {
        let first = self
            .steps
            .0
            .iter()
            .position(|s| s.events.iter().any(|e| e.kind == kind));
        first.map_or(0, |i| self.steps.0.len() - i - 1)
    }

    /// The run ended in bound with its budget used.
    fn check_bounded(&self, page: &str, budget: u64) {
        assert!(self.took < RUN_BOUND, "{page}: took {:?}", self.took);
        assert_eq!(self.summary.steps, budget, "{page}: {:?}", self.summary);
        assert!(self.summary.stopped_early.is_none(), "{page}");
    }
}

/// Explore from `path` with `random`; the layout's index link is denied (through it the
/// walk wandered off among the other hazards).
fn run_at(server: &Server, env: &mut BrowserEnv, path: &str, budget: u64, episode: u32) -> Ran {
    let url = format!("{}{path}", server.url());
    let mut opts = common::options(&url, 7, Budget::actions(budget), episode);
    opts.deny = DenyText::new(&[DenyRule {
        selector: None,
        text: Some("Hazards index".into()),
    }]);
    let started = Instant::now();
    let (summary, steps) = common::explore_all(env, &opts, &mut common::Nobody);
    let took = started.elapsed();
    eprintln!(
        "{path}: {} steps in {:.1}s, {} step errors, {} restarts, median ms scan {:.0} act {:.0} wait {:.0}; stopped early: {:?}; failures {:?}",
        summary.steps,
        took.as_secs_f64(),
        summary.step_errors,
        summary.restarts,
        summary.timings_ms.scan,
        summary.timings_ms.act,
        summary.timings_ms.wait,
        summary.stopped_early,
        summary
            .failures
            .iter()
            .map(|f| format!("{}: {}", f.kind, f.message))
            .collect::<Vec<_>>()
    );
    for s in steps.0.iter().filter(|s| s.error.is_some()) {
        eprintln!("  step {} {}: {:?}", s.step, s.action.describe(), s.error);
    }
    Ran {
        summary,
        steps,
        took,
    }
}

/// The scan walks a bounded part of a 50,000-element page and keeps at most 2000 elements
/// (it had cost 8-13 s a scan, past the CDP timeout, so the run could not even start).
#[test]
fn a_crowd_of_50000_elements_is_scanned_in_part_and_in_bounded_time() {
    // The first style and layout of 50,000 buttons alone takes ~2 s on 2 cores, and
    // tests run side by side: a generous CDP bound (the scan's own time is checked below).
    let mut c = config();
    c.cdp_timeout_ms = 20_000;
    // Parsing 50,000 buttons took over 5 s beside a busy machine and the load was stopped
    // half way (issue 45): this test is about the scan, so the load may take its time.
    c.load_timeout_ms = 60_000;
    let (server, mut env) = start("crowd", c);
    let t = Instant::now();
    let out = env.reset().unwrap();
    eprintln!("crowd: reset {:?}, {:?}", t.elapsed(), out.timings);
    assert!(out.observation.dom_size.unwrap_or(0) as usize >= CROWD_ELEMENTS);
    assert_eq!(out.observation.elements.len(), 2000, "capped");
    assert!(out.observation.html.len() <= 100_000);
    let out = click(&mut env, "#crowd-count");
    assert!(shows(&out, &format!("items: {CROWD_ELEMENTS}")));
    assert!(
        out.timings.scan < Duration::from_secs(3),
        "{:?}",
        out.timings
    );

    let ran = run_at(&server, &mut env, "crowd", 12, 6);
    ran.check_bounded("crowd", 12);
    assert_eq!(ran.summary.step_errors, 0);
    assert!(ran.summary.timings_ms.scan < 3_000.0);
}

/// A handler that never returns is terminated (`Runtime.terminateExecution`): a Hang
/// says so and the same page answers again, no browser relaunch. (Before, the click timed
/// out, the next call too, and the browser was relaunched for every spin, with no
/// failure recorded.)
#[test]
fn a_click_that_never_returns_is_terminated_and_the_run_goes_on() {
    let mut c = config();
    c.cdp_timeout_ms = 3_000;
    let (server, mut env) = start("spin", c);
    env.reset().unwrap();
    let t = Instant::now();
    let out = click(&mut env, "#spin-forever");
    let hangs = of_kind(&out.events, EventKind::Hang);
    assert!(
        hangs.iter().any(|e| e.message.contains("terminated")),
        "{:?}",
        out.events
    );
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    let out = click(&mut env, "#spin-hello");
    assert!(shows(&out, "hello 1"), "{}", out.observation.html);
    // A script looping in a task after the click: the wait finds the page silent.
    let out = click(&mut env, "#spin-later");
    let hangs = of_kind(&out.events, EventKind::Hang);
    assert!(
        hangs.iter().any(|e| e.message.contains("terminated")),
        "{:?}",
        out.events
    );
    // The same document all along: its counter went on.
    let out = click(&mut env, "#spin-hello");
    assert!(shows(&out, "hello 2"), "{}", out.observation.html);
    assert_eq!(env.restarts(), 0);

    let ran = run_at(&server, &mut env, "spin", 10, 5);
    ran.check_bounded("spin", 10);
    assert!(
        ran.summary.failures.iter().any(|f| f.kind == "hang"),
        "{:?}",
        ran.summary.failures
    );
    assert!(ran.steps_after(EventKind::Hang) > 0);
    assert_eq!(ran.summary.restarts, 0);
    assert_eq!(ran.summary.step_errors, 0);
}

/// The server's endless 302 chain ends in the browser's redirect limit; the page that
/// sends itself on forever is stopped at the load bound. Both leave a page to go on from.
#[test]
fn redirect_loops_end_and_the_run_goes_on() {
    let (server, mut env) = start("redirects", config());
    env.reset().unwrap();
    let out = click(&mut env, "#redirects-server");
    assert!(
        of_kind(&out.events, EventKind::RequestFailed)
            .iter()
            .any(|e| e.message.contains("ERR_TOO_MANY_REDIRECTS")),
        "{:?}",
        out.events
    );
    let out = back(&mut env);
    assert!(out.observation.url.ends_with("/redirects"));
    let t = Instant::now();
    let out = click(&mut env, "#redirects-client");
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    assert!(
        !of_kind(&out.events, EventKind::Hang).is_empty(),
        "{:?}",
        out.events
    );
    assert!(
        out.observation.url.contains("/redirects/client?n="),
        "{}",
        out.observation.url
    );
    // Stopped: the next step acts on a page that stays put.
    let out = back(&mut env);
    assert!(out.observation.url.ends_with("/redirects"));
    let out = click(&mut env, "#redirects-stay");
    assert!(shows(&out, "stayed"));

    let ran = run_at(&server, &mut env, "redirects", 12, 6);
    ran.check_bounded("redirects", 12);
    assert_eq!(ran.summary.step_errors, 0);
    assert_eq!(ran.summary.restarts, 0);
}

/// `alert` and `confirm` in `beforeunload` are refused by Chrome; the "Leave site?"
/// question is answered (leave), by a click, a script, a reload and a reset.
#[test]
fn a_page_that_asks_to_stay_is_left() {
    let (server, mut env) = start("leaving", config());
    env.reset().unwrap();
    // A user gesture first: Chrome asks only on pages the user has touched.
    click(&mut env, "#leaving-stay");
    let out = click(&mut env, "#leaving-link");
    assert!(out.observation.url.ends_with("/leaving/next"));
    let asked = of_kind(&out.events, EventKind::Dialog);
    assert!(
        asked.iter().any(|e| e.message.starts_with("beforeunload")),
        "{:?}",
        out.events
    );
    back(&mut env);
    let out = click(&mut env, "#leaving-script");
    assert!(out.observation.url.ends_with("/leaving/next"));
    back(&mut env);
    click(&mut env, "#leaving-stay");
    let t = Instant::now();
    let out = env.reset().unwrap();
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert!(
        out.observation.url.ends_with("/leaving"),
        "the reset ended on {} after {:?}: {:?}",
        out.observation.url,
        t.elapsed(),
        out.events
    );

    // Short episodes: every reset leaves the page too.
    let ran = run_at(&server, &mut env, "leaving", 12, 3);
    ran.check_bounded("leaving", 12);
    assert!(ran.summary.episodes >= 3);
    assert_eq!(ran.summary.step_errors, 0);
    assert!(ran
        .events()
        .iter()
        .any(|e| e.kind == EventKind::Dialog && e.message.starts_with("beforeunload")));
}

/// Rewritten builtins fool neither the scan, the aim and naming of a click, nor the
/// wrappers wayfarer puts around the page's timers, requests and listeners: every
/// control works as it would without wayfarer, and no error names a rewritten builtin
/// (the page itself uses none after the rewrite).
#[test]
fn rewritten_builtins_break_neither_the_scan_nor_the_page() {
    let (server, mut env) = start("tampered", config());
    let out = env.reset().unwrap();
    let reasons = |out: &Outcome, loc: &str| -> Vec<String> {
        let el = out.observation.element(loc);
        el.map(|e| e.actionable.clone()).unwrap_or_default()
    };
    // The span's listener was added before the rewrite, the late button's handler by an
    // onclick property after it: both seen.
    assert!(reasons(&out, "#tampered-div").contains(&"listener:click".to_string()));
    assert!(reasons(&out, "#tampered-late").contains(&"listener:click".to_string()));
    assert!(out.observation.app.is_some(), "the app probe was read");
    for (loc, effect) in [
        ("#tampered-listener", "listener ran"),
        ("#tampered-div", "span clicked"),
        ("#tampered-timer", "timer fired"),
        ("#tampered-fetch", "fetched 200"),
        ("#tampered-xhr", "xhr 200"),
        ("#tampered-frame", "frame ran"),
        ("#tampered-late", "late handler ran"),
    ] {
        let out = click(&mut env, loc);
        assert!(
            shows(&out, effect),
            "{loc}: {} {:?}",
            out.observation.html,
            out.events
        );
        assert!(
            of_kind(&out.events, EventKind::Exception).is_empty(),
            "{loc}: {:?}",
            out.events
        );
        let named = env.target_name();
        assert!(named.is_some_and(|n| n.page.is_some()), "{loc}: named");
    }

    let ran = run_at(&server, &mut env, "tampered", 12, 6);
    ran.check_bounded("tampered", 12);
    assert_eq!(ran.summary.step_errors, 0);
    assert!(
        ran.summary.failures.is_empty(),
        "{:?}",
        ran.summary.failures
    );
}

/// A 50 MB page is cut off at the load bound (5 s here; all of it takes ~10 s on 2
/// cores) and the part shown is scanned without reading all its text.
#[test]
fn a_50_mb_answer_is_cut_off_and_the_run_goes_on() {
    // After the load is stopped the renderer still lays out what came (seconds under
    // load): the product's CDP bound, not the tests' shorter one.
    let mut c = config();
    c.cdp_timeout_ms = BrowserConfig::default().cdp_timeout_ms;
    let (server, mut env) = start("huge", c);
    env.reset().unwrap();
    let t = Instant::now();
    let out = click(&mut env, "#huge-link");
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    assert!(out.observation.url.ends_with("/huge/stream"));
    assert!(out.observation.html.len() <= 100_000);
    // A guard against a scan that reads the whole 50 MB, not a speed goal: the cut scan
    // took 6.6 s beside two busy processes where this said 3 s (issue 45).
    assert!(
        out.timings.scan < Duration::from_secs(15),
        "{:?}",
        out.timings
    );
    let out = back(&mut env);
    assert!(out.observation.url.ends_with("/huge"));
    let out = click(&mut env, "#huge-stay");
    assert!(shows(&out, "stayed"));

    let ran = run_at(&server, &mut env, "huge", 6, 6);
    ran.check_bounded("huge", 6);
    assert_eq!(ran.summary.step_errors, 0);
    assert_eq!(ran.summary.restarts, 0);
}
