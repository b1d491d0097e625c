//! webrled on an application whose controls no rule can see: every control is a div or a
//! span with no tag, role, attribute or listener that marks it (event delegation). Only
//! probing and the action discriminator find them; the rule-based strategies see nothing.

mod common;

use common::Valid;

use wayfarer_core::state::StructureAbstraction;
use wayfarer_core::{
    run, Action, ActionKind, Budget, Element, EnvError, EnvTimings, Environment, Observation,
    Outcome, Rect, RunOptions, Size, StrategySnapshot,
};
use wayfarer_strategies::WebRledConfig;
use wayfarer_strategies::{RandomAgent, Variant, WebRledAgent};

const PAGES: usize = 5;

/// Five pages. On each: three "Go" divs that lead to other pages (clicked or double
/// clicked), three inert notes, and on the last page a title that only a double click
/// answers (back to the start).
struct DivApp {
    history: Vec<usize>,
}

impl DivApp {
    fn new() -> DivApp {
        DivApp { history: vec![0] }
    }

    fn page(&self) -> usize {
        *self.history.last().unwrap()
    }

    fn element(locator: String, class: &str, text: String, x: f64, y: f64) -> Element {
        let mut e = Element {
            locator,
            tag: if class == "go" { "div" } else { "span" }.into(),
            text,
            rect: Rect {
                x,
                y,
                width: 120.0,
                height: 24.0,
            },
            visible: true,
            enabled: true,
            ..Element::default()
        };
        e.attrs.insert("class".into(), class.into());
        e
    }

    fn outcome(&self) -> Outcome {
        let p = self.page();
        let mut elements = Vec::new();
        for i in 0..3 {
            elements.push(Self::element(
                format!("#go{i}"),
                "go",
                format!("Go {}", (p + i + 1) % PAGES),
                40.0,
                100.0 + 60.0 * i as f64,
            ));
            elements.push(Self::element(
                format!("#note{i}"),
                "note",
                format!("Note {i}"),
                600.0,
                100.0 + 60.0 * i as f64,
            ));
        }
        if p == PAGES - 1 {
            elements.push(Self::element(
                "#title".into(),
                "title",
                "Rename me".into(),
                300.0,
                500.0,
            ));
        }
        // Each page has its own structure, so its embedding differs.
        let body: String = (0..=p)
            .map(|k| format!("<section class=\"s{k}\"><h2>t</h2></section>"))
            .collect();
        Outcome {
            observation: Observation {
                url: format!("http://divs.test/page/{p}"),
                title: format!("Page {p}"),
                html: format!("<html><body><main class=\"p{p}\">{body}</main></body></html>"),
                elements,
                viewport: Size {
                    width: 1000.0,
                    height: 800.0,
                },
                page: Size {
                    width: 1000.0,
                    height: 800.0,
                },
                ..Observation::default()
            },
            events: Vec::new(),
            timings: EnvTimings::default(),
            restarted: false,
        }
    }
}

impl Environment for DivApp {
    fn reset(&mut self) -> Result<Outcome, EnvError> {
        self.history = vec![0];
        Ok(self.outcome())
    }

    fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
        let p = self.page();
        match (action.kind, action.target.as_deref()) {
            (ActionKind::Back, _) if self.history.len() > 1 => {
                self.history.pop();
            }
            (ActionKind::Back, _) => {}
            // A double click is two clicks first: the browser fires click twice.
            (ActionKind::Click | ActionKind::DoubleClick, Some(t)) if t.starts_with("#go") => {
                let i: usize = t[3..].parse().unwrap();
                self.history.push((p + i + 1) % PAGES);
            }
            (ActionKind::DoubleClick, Some("#title")) if p == PAGES - 1 => self.history.push(0),
            (_, Some(t))
                if !self
                    .outcome()
                    .observation
                    .elements
                    .iter()
                    .any(|e| e.locator == t) =>
            {
                return Err(EnvError::ElementNotFound(t.into()))
            }
            _ => {}
        }
        Ok(self.outcome())
    }
}

#[derive(Default)]
struct Snap(Option<StrategySnapshot>, Vec<String>);

impl wayfarer_core::Observer for Snap {
    fn on_strategy(&mut self, s: &StrategySnapshot) {
        self.0 = Some(s.clone());
    }
    fn on_step(&mut self, r: &wayfarer_core::StepRecord, _: &wayfarer_core::Progress) {
        self.1.push(r.url_after.clone());
    }
}

fn counter(s: &StrategySnapshot, name: &str) -> u64 {
    s.counters
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no counter {name:?} in {:?}", s.counters))
        .1
}

fn config() -> WebRledConfig {
    WebRledConfig {
        zeta: 40,
        episode_steps: 20,
        probe_steps: 6,
        retrain_every: 2,
        hidden: 32,
        ..WebRledConfig::default()
    }
}

#[test]
fn only_webrled_acts_and_its_discriminator_learns_the_controls() {
    // The rule-based strategies have nothing to act on.
    let mut env = DivApp::new();
    let mut random = RandomAgent::new(Box::new(Valid));
    let summary = run(
        &mut env,
        &mut random,
        &mut StructureAbstraction::default(),
        &RunOptions::new(Budget::actions(200), 20, 1),
        &mut [],
    )
    .unwrap();
    assert_eq!(summary.steps, 0);
    assert!(summary.stopped_early.is_some());

    let mut env = DivApp::new();
    let mut agent = WebRledAgent::new(config(), 64, Variant::Full, Box::new(Valid)).unwrap();
    let mut snap = Snap::default();
    let summary = run(
        &mut env,
        &mut agent,
        &mut StructureAbstraction::default(),
        &RunOptions::new(Budget::actions(300), 32, 7),
        &mut [&mut snap],
    )
    .unwrap();
    assert_eq!(summary.steps, 300, "{:?}", summary.stopped_early);
    assert_eq!(summary.urls, PAGES, "every page reached");
    let s = snap.0.expect("a snapshot");
    assert_eq!(counter(&s, "discriminator on"), 1, "{:?}", s.counters);
    assert!(counter(&s, "probes") >= 40);
    let taken = counter(&s, "predicted actions taken");
    let hits = counter(&s, "predicted actions that changed the page");
    // It learned which elements act: most predicted actions do something.
    assert!(taken >= 20, "{:?}", s.counters);
    assert!(
        hits * 10 >= taken * 8,
        "{hits} of {taken} predicted actions changed the page"
    );
    assert!(!s.counters.iter().any(|(n, _)| n == "network errors"));

    // Without the discriminator it is as blind as the rules.
    let mut env = DivApp::new();
    let mut blind =
        WebRledAgent::new(config(), 64, Variant::NoDiscriminator, Box::new(Valid)).unwrap();
    let summary = run(
        &mut env,
        &mut blind,
        &mut StructureAbstraction::default(),
        &RunOptions::new(Budget::actions(100), 32, 7),
        &mut [],
    )
    .unwrap();
    assert_eq!(summary.steps, 0);
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let go = || {
        let mut env = DivApp::new();
        let mut agent = WebRledAgent::new(config(), 64, Variant::Full, Box::new(Valid)).unwrap();
        let mut snap = Snap::default();
        run(
            &mut env,
            &mut agent,
            &mut StructureAbstraction::default(),
            &RunOptions::new(Budget::actions(120), 32, 3),
            &mut [&mut snap],
        )
        .unwrap();
        snap.1
    };
    assert_eq!(go(), go());
}
