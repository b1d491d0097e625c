//! Drives the browser environment along ground-truth walks (`wayfarer_testapps::Step`),
//! finding each control by its `data-action-id`, and notes what the pages said.

use std::collections::BTreeSet;

use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions};
use wayfarer_core::config::OracleConfig;
use wayfarer_core::{Action, ActionKind, Element, Environment, Observation, Oracles};
use wayfarer_testapps::{Gesture, Pick, Step};

/// A failure a step raised: (index of the step, kind, message).
pub type Found = (usize, String, String);

pub struct Walker {
    pub env: BrowserEnv,
    oracles: Oracles,
    pub obs: Observation,
    /// Every `data-wf-state` seen, and every `data-action-id` of a visible element seen.
    pub states: BTreeSet<String>,
    pub seen_actions: BTreeSet<String>,
}

/// How a walk ended.
pub struct Walked {
    /// Steps performed (fewer than asked when a control was missing).
    pub done: usize,
    /// Why the walk stopped early.
    pub stuck: Option<String>,
    pub failures: Vec<Found>,
    /// The application's own action-id log at the end (`window.__wfActions`).
    pub log: Vec<String>,
}

impl Walker {
    pub fn launch(start: &str) -> Walker {
        let url = url::Url::parse(start).unwrap();
        let mut o = BrowserOptions::new(url.clone());
        o.chrome = Some(find_chrome(None).expect("Chromium (scripts/ensure-chromium.sh)"));
        o.config.stable_timeout_ms = 3000;
        let env = BrowserEnv::launch(o).expect("chromium launches");
        let oracles = Oracles::new(
            OracleConfig::default(),
            vec![url.origin().ascii_serialization()],
        )
        .unwrap();
        Walker {
            env,
            oracles,
            obs: Observation::default(),
            states: BTreeSet::new(),
            seen_actions: BTreeSet::new(),
        }
    }

    fn note(&mut self) {
        if let Some(s) = self.obs.app.as_ref().and_then(|a| a.state.clone()) {
            self.states.insert(s);
        }
        for e in &self.obs.elements {
            if let Some(id) = e.attr("data-action-id") {
                self.seen_actions.insert(id.to_string());
            }
        }
    }

    /// The element a step addresses, if the page shows it.
    fn target(&self, step: &Step) -> Option<&Element> {
        let mut found = self
            .obs
            .elements
            .iter()
            // A file input hidden behind a styled label is set all the same.
            .filter(|e| e.visible || e.input_type.as_deref() == Some("file"))
            .filter(|e| e.attr("data-action-id") == Some(step.action_id));
        match step.pick {
            Pick::First => found.next(),
            Pick::Last => found.next_back(),
            Pick::Text(t) => found.find(|e| e.text.trim() == t),
        }
    }

    /// Walk `steps` from a fresh session; stops at the first step whose control is not
    /// on the page (after re-scanning for a moment: a busy machine may lag).
    pub fn walk(&mut self, steps: &[Step]) -> Walked {
        let out = self.env.reset().expect("reset");
        self.obs = out.observation;
        self.note();
        let mut failures = Vec::new();
        let mut stuck = None;
        let mut done = 0;
        for (i, step) in steps.iter().enumerate() {
            if !step.has_control() {
                let action = match step.gesture {
                    Gesture::Scroll => Action {
                        kind: ActionKind::Scroll,
                        target: None,
                        value: None,
                    },
                    Gesture::PressHere(key) => Action {
                        kind: ActionKind::Press,
                        target: None,
                        value: Some(key.to_string()),
                    },
                    _ => Action::back(),
                };
                let out = self.env.step(&action).expect("a step without a control");
                self.obs = out.observation;
                self.note();
                self.judge(&out.events, i, &mut failures);
                done += 1;
                continue;
            }
            let mut locator = self.target(step).map(|e| e.locator.clone());
            for _ in 0..10 {
                if locator.is_some() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
                if let Ok(out) = self.env.observe() {
                    self.obs = out.observation;
                    self.judge(&out.events, i.saturating_sub(1), &mut failures);
                    locator = self.target(step).map(|e| e.locator.clone());
                }
            }
            let Some(locator) = locator else {
                stuck = Some(format!(
                    "step {} ({step:?}): no such control on {} (state {:?})",
                    i + 1,
                    self.obs.url,
                    self.obs.app.as_ref().and_then(|a| a.state.clone())
                ));
                break;
            };
            let mut action = action_of(step, locator);
            if let Gesture::DragTo(onto) = step.gesture {
                action.value = self
                    .obs
                    .elements
                    .iter()
                    .find(|e| e.visible && e.attr("data-action-id") == Some(onto))
                    .map(|e| e.locator.clone());
            }
            let out = self.env.step(&action).expect("step");
            self.obs = out.observation;
            self.note();
            self.judge(&out.events, i, &mut failures);
            done += 1;
        }
        let log = self
            .obs
            .app
            .as_ref()
            .map(|a| a.actions.clone())
            .unwrap_or_default();
        Walked {
            done,
            stuck,
            failures,
            log,
        }
    }

    fn judge(&self, events: &[wayfarer_core::Event], at: usize, out: &mut Vec<Found>) {
        // Warnings (an unnamed control) are advice, listed apart; the tour asserts no failure.
        for f in self.oracles.judge(events, Some(&self.obs)) {
            if f.warning {
                continue;
            }
            out.push((at, f.kind.as_str().to_string(), f.message));
        }
    }
}

fn action_of(step: &Step, locator: String) -> Action {
    let (kind, value) = match step.gesture {
        Gesture::Click => (ActionKind::Click, None),
        Gesture::DoubleClick => (ActionKind::DoubleClick, None),
        Gesture::Type(t) => (ActionKind::Type, Some(t.to_string())),
        Gesture::TypeRepeated(n) => (ActionKind::Type, Some("a".repeat(n))),
        Gesture::Select(v) => (ActionKind::Select, Some(v.to_string())),
        Gesture::Back => (ActionKind::Back, None),
        Gesture::Hover => (ActionKind::Hover, None),
        Gesture::ContextMenu => (ActionKind::ContextMenu, None),
        Gesture::Press(key) => (ActionKind::Press, Some(key.to_string())),
        Gesture::Upload(file) => (ActionKind::Upload, Some(file.to_string())),
        Gesture::Scroll => (ActionKind::Scroll, None),
        Gesture::PressHere(key) => (ActionKind::Press, Some(key.to_string())),
        // The drop target's locator is looked up on the page (`walk`).
        Gesture::DragTo(_) => (ActionKind::Drag, None),
    };
    let mut a = Action::on(kind, locator);
    a.value = value;
    a
}
