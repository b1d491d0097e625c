//! A start page that offers nothing, on the simulated application: one that renders late
//! is waited for, one that a fresh browser brings back goes on there, and only one that
//! is empty in a fresh browser too halts the run, saying what it showed.

use rand_chacha::ChaCha8Rng;

use super::*;
use crate::agent::View;
use crate::env::Outcome;
use crate::model::Action;
use crate::sim::{SimApp, SimEnv};
use crate::state::StructureAbstraction;

/// Takes the first action offered.
struct First;

impl Agent for First {
    fn name(&self) -> &str {
        "first"
    }
    fn choose(&mut self, view: &View<'_>, _rng: &mut ChaCha8Rng) -> Action {
        view.actions[0].clone()
    }
}

/// When the simulated start page shows its controls.
#[derive(Clone, Copy, PartialEq)]
enum Shows {
    /// Once waited for.
    Late,
    /// Only in a fresh browser.
    AfterRelaunch,
    /// Never.
    Never,
}

/// The simulated application behind a start page that may show nothing but a heading.
struct Blank {
    sim: SimEnv,
    shows: Shows,
    relaunched: Vec<String>,
    waits: u32,
}

impl Blank {
    fn new(shows: Shows) -> Blank {
        Blank {
            sim: SimEnv::new(SimApp::generate(5, 12)),
            shows,
            relaunched: Vec::new(),
            waits: 0,
        }
    }

    /// The start page as the reset sees it.
    fn start(&self, mut out: Outcome) -> Outcome {
        let shown = match self.shows {
            Shows::Late | Shows::Never => false,
            Shows::AfterRelaunch => !self.relaunched.is_empty(),
        };
        if !shown {
            out.observation.elements.clear();
            out.observation.html =
                "<body><h1>Workspace</h1><p>Restoring   your workspace&hellip;</p></body>".into();
        }
        out
    }
}

impl Environment for Blank {
    fn reset(&mut self) -> Result<Outcome, EnvError> {
        let out = self.sim.reset()?;
        Ok(self.start(out))
    }
    fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
        self.sim.step(action)
    }
    fn await_change(&mut self, _within: Duration) -> Result<Option<Outcome>, EnvError> {
        self.waits += 1;
        match self.shows {
            Shows::Late => self.sim.observe().map(Some),
            Shows::AfterRelaunch | Shows::Never => Ok(None),
        }
    }
    fn relaunch(&mut self, why: &str) -> Result<Outcome, EnvError> {
        self.relaunched.push(why.to_string());
        let mut out = self.reset()?;
        out.restarted = true;
        Ok(out)
    }
}

/// What the run said about start pages that offered nothing.
#[derive(Default)]
struct Seen(Vec<(String, bool)>);

impl Observer for Seen {
    fn on_empty_start(&mut self, _worker: u32, seen: &str, screenshot: Option<&[u8]>) {
        self.0.push((seen.to_string(), screenshot.is_some()));
    }
}

fn explore(env: &mut Blank) -> (RunSummary, Seen) {
    let opts = RunOptions::new(Budget::actions(30), 10, 1);
    let mut seen = Seen::default();
    let summary = run(
        env,
        &mut First,
        &mut StructureAbstraction::default(),
        &opts,
        &mut [&mut seen],
    )
    .unwrap();
    (summary, seen)
}

#[test]
fn a_start_page_that_renders_late_is_waited_for_and_explored() {
    let mut env = Blank::new(Shows::Late);
    let (summary, seen) = explore(&mut env);
    assert_eq!(summary.stopped_early, None);
    assert_eq!(summary.steps, 30);
    assert!(
        env.waits >= 3,
        "every episode's start was waited for: {}",
        env.waits
    );
    assert!(env.relaunched.is_empty());
    assert!(seen.0.is_empty());
}

#[test]
fn a_start_page_empty_after_the_resets_gets_a_fresh_browser_before_the_run_halts() {
    let mut env = Blank::new(Shows::AfterRelaunch);
    let (summary, seen) = explore(&mut env);
    assert_eq!(summary.stopped_early, None);
    assert_eq!(summary.steps, 30);
    assert_eq!(summary.restarts, 1);
    assert_eq!(
        env.relaunched,
        [format!(
            "the start page offered no action after {EMPTY_START_LIMIT} resets"
        )]
    );
    assert_eq!(env.waits, EMPTY_START_LIMIT);
    // What the page showed was said before the fresh browser (the sim takes no screenshot).
    let [(text, false)] = seen.0.as_slice() else {
        panic!("{:?}", seen.0);
    };
    assert!(
        text.starts_with("http://sim.test/")
            && text.ends_with("showing \"Workspace Restoring your workspace&hellip;\""),
        "{text}"
    );
}

#[test]
fn a_start_page_empty_in_a_fresh_browser_too_halts_the_run_with_what_it_showed() {
    let mut env = Blank::new(Shows::Never);
    let (summary, seen) = explore(&mut env);
    let why = summary.stopped_early.clone().unwrap_or_default();
    assert!(
        why.contains("no action after 3 resets and a fresh browser")
            && why.contains("showing \"Workspace Restoring your workspace&hellip;\""),
        "{why}"
    );
    assert!(summary.ended_by_environment);
    assert_eq!(summary.steps, 0);
    assert_eq!(env.relaunched.len(), 1);
    assert_eq!(env.waits, EMPTY_START_LIMIT + 1);
    assert_eq!(
        seen.0.len(),
        2,
        "said before the fresh browser and before halting"
    );
}

#[test]
fn the_text_quoted_is_the_pages_collapsed_and_cut() {
    let html =
        "<html><head><title>T</title></head><body><p a=\"x\">1 &lt; 2 &amp;\n  3</p></body></html>";
    assert_eq!(worker::html_text(html, 200), "T 1 < 2 & 3");
    assert_eq!(worker::html_text(html, 3), "T 1…");
    assert_eq!(worker::html_text("", 10), "");
}

/// A browser whose connection a farm cut between two episodes: the next reset finds it
/// gone, restarts it and says so in its outcome.
struct CutBetweenEpisodes {
    sim: SimEnv,
    resets: u32,
}

impl Environment for CutBetweenEpisodes {
    fn reset(&mut self) -> Result<Outcome, EnvError> {
        self.resets += 1;
        let mut out = self.sim.reset()?;
        out.restarted = self.resets == 2;
        Ok(out)
    }
    fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
        self.sim.step(action)
    }
}

/// browserless's session timeout cut both workers' connections twice in 30 s, and the
/// run counted one restart: the cuts the next reset found went uncounted.
#[test]
fn a_restart_inside_a_reset_is_counted() {
    let mut env = CutBetweenEpisodes {
        sim: SimEnv::new(SimApp::generate(5, 12)),
        resets: 0,
    };
    let opts = RunOptions::new(Budget::actions(30), 10, 1);
    let summary = run(
        &mut env,
        &mut First,
        &mut StructureAbstraction::default(),
        &opts,
        &mut [],
    )
    .unwrap();
    assert!(env.resets >= 3, "{}", env.resets);
    assert_eq!(summary.restarts, 1);
}
