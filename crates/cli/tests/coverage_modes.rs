//! Lazy JS coverage (taken with an action that may leave the page, not after every step)
//! measures what the every-step take measures: one walk of an exploration, replayed once
//! in each mode, covers the same bytes within a point, on a multi-page application
//! (expense: most clicks load another document) and on a single-page one with a 2 MB script
//! (hazards' /bigscript). Each replay runs against a freshly started server, so what an
//! earlier run stored there (an account, an expense) cannot send it down other pages.
//!
//! Both modes replay the same actions, and the two replays are compared only when they went
//! the same way (same page, title and document size after every step): a page caught at
//! another moment of its rendering on a busy machine can send a replay elsewhere, and that
//! walk would run other code whatever the mode. Such a pair is replayed again.

mod common;

use wayfarer_core::config::{BrowserConfig, CoverageMode};
use wayfarer_core::{Budget, Environment, StepRecord};
use wayfarer_testapps::{App, ServeOptions, Server};

/// Pairs of replays tried before the test gives up on getting two alike walks.
const PAIRS: usize = 4;

fn config(mode: CoverageMode) -> BrowserConfig {
    BrowserConfig {
        coverage: mode,
        ..BrowserConfig::default()
    }
}

/// Explore `url` with lazy coverage: the steps it took.
fn explored(url: &str, steps: u64) -> Vec<StepRecord> {
    let mut env = common::launch(url, config(CoverageMode::Lazy));
    let mut opts = common::options(url, 3, Budget::actions(steps), 30);
    // The hazards layout links to pages that never answer: stay on the page under test.
    opts.deny = wayfarer_core::candidates::DenyText::new(&[wayfarer_core::config::DenyRule {
        selector: None,
        text: Some("Hazards index".into()),
    }]);
    common::explore(&mut env, &opts, &mut common::Nobody).1
}

/// One replay: the coverage it measured, where it went, and what it could not do.
struct Replay {
    covered: u64,
    total: u64,
    /// After every step: the page (origin left out), its title and how many elements.
    path: Vec<String>,
    /// The steps the exploration did that the replay could not.
    diverged: Vec<String>,
}

impl Replay {
    fn ratio(&self) -> f64 {
        self.covered as f64 / self.total as f64
    }
}

/// The same actions, episode by episode, in coverage mode `mode` against `url` (a fresh
/// server; `from` is the explored one's origin, rebased in navigations). The steps the
/// exploration could not do are left out: done here, they would run code it never ran.
fn replayed(mode: CoverageMode, url: &str, from: &str, steps: &[StepRecord]) -> Replay {
    let mut env = common::launch(url, config(mode));
    let to = origin(url);
    let mut episode = None;
    let mut path = Vec::new();
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
        match env.step(&action) {
            Ok(o) => {
                let o = o.observation;
                let page = o.url.strip_prefix(&to).unwrap_or(&o.url).to_string();
                path.push(format!("{page} \"{}\" {} tags", o.title, o.tags.len()));
            }
            Err(e) => {
                diverged.push(format!("step {} ({}): {e}", s.step, s.action.describe()));
                path.push(format!("error: {e}"));
            }
        }
    }
    env.flush();
    let c = env.coverage().expect("coverage measured");
    Replay {
        covered: c.covered_bytes,
        total: c.total_bytes,
        path,
        diverged,
    }
}

fn origin(url: &str) -> String {
    url::Url::parse(url).unwrap().origin().ascii_serialization()
}

/// The first step after which two replays stood on different pages, described.
fn first_difference(a: &Replay, b: &Replay) -> Option<String> {
    let i = a.path.iter().zip(&b.path).position(|(x, y)| x != y)?;
    Some(format!(
        "after replayed step {}: lazy at {} vs every step at {}",
        i + 1,
        a.path[i],
        b.path[i]
    ))
}

/// Explore `path` on one server of `app`, then replay that walk once in each mode, each on
/// a server of its own, until the two replays go the same way.
fn compare(app: App, path: &str, steps: u64) {
    let explored_on = Server::start(app, ServeOptions::default()).unwrap();
    let walk = explored(&format!("{}{path}", explored_on.url()), steps);
    let from = origin(&explored_on.url());
    let mut apart = Vec::new();
    for _ in 0..PAIRS {
        let replay = |mode| {
            let on = Server::start(app, ServeOptions::default()).unwrap();
            replayed(mode, &format!("{}{path}", on.url()), &from, &walk)
        };
        let lazy = replay(CoverageMode::Lazy);
        let every = replay(CoverageMode::EveryStep);
        if !lazy.diverged.is_empty() || !every.diverged.is_empty() || lazy.path != every.path {
            apart.push(first_difference(&lazy, &every).unwrap_or_else(|| {
                format!(
                    "a replay could not do what the exploration did: {:?} / {:?}",
                    lazy.diverged, every.diverged
                )
            }));
            continue;
        }
        assert_eq!(
            lazy.total, every.total,
            "both replays load the same scripts"
        );
        let gap = (lazy.ratio() - every.ratio()).abs();
        assert!(
            gap <= 0.01,
            "the same {} steps, the same pages: lazy {:.2}% ({} of {} bytes) vs every step \
             {:.2}% ({} of {})",
            lazy.path.len(),
            lazy.ratio() * 100.0,
            lazy.covered,
            lazy.total,
            every.ratio() * 100.0,
            every.covered,
            every.total
        );
        assert!(lazy.covered > 0);
        return;
    }
    panic!("{PAIRS} pairs of replays of one walk never went the same way: {apart:#?}");
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
