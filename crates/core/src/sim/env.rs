//! `SimEnv`: the simulated application as an `Environment`.

use std::collections::BTreeMap;

use super::app::{FieldRule, SimApp};
use crate::env::{EnvError, Environment, Outcome, Performed, Probe, Resolved};
use crate::model::{Action, ActionKind, Element, Event, EventKind, Observation, Rect};
use crate::trace::{Chosen, LocatorKind};

const ORIGIN: &str = "http://sim.test";

/// A running session of a `SimApp`.
#[derive(Debug)]
pub struct SimEnv {
    app: SimApp,
    page: usize,
    history: Vec<usize>,
    /// Typed values by (form, field) on the current page.
    values: BTreeMap<(usize, usize), String>,
    /// The last submit on this page was rejected.
    error_shown: bool,
    /// Resets so far (the loop's episodes).
    pub resets: u64,
    /// Deepest page index reached, for tests.
    pub visited: Vec<bool>,
    /// Observations built (reset, step, observe): what state inference saves.
    pub scans: u64,
    /// Cheap probes answered.
    pub probes: u64,
}

impl SimEnv {
    pub fn new(app: SimApp) -> SimEnv {
        let n = app.pages.len();
        SimEnv {
            app,
            page: 0,
            history: Vec::new(),
            values: BTreeMap::new(),
            error_shown: false,
            resets: 0,
            visited: vec![false; n],
            scans: 0,
            probes: 0,
        }
    }

    pub fn app(&self) -> &SimApp {
        &self.app
    }

    fn goto(&mut self, page: usize) {
        self.history.push(self.page);
        self.page = page;
        self.values.clear();
        self.error_shown = false;
        self.visited[page] = true;
    }

    fn observation(&self) -> Observation {
        let p = &self.app.pages[self.page];
        let mut elements = Vec::new();
        let mut tags: Vec<String> = ["html", "head", "title", "body", "h1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut y = 40.0;
        let mut push = |e: Element, tags: &mut Vec<String>| {
            tags.push(e.tag.clone());
            let mut e = e;
            e.rect = Rect {
                x: 10.0,
                y,
                width: 120.0,
                height: 24.0,
            };
            y += 30.0;
            elements.push(e);
        };
        for (j, &t) in p.links.iter().enumerate() {
            let mut e = el(
                "a",
                &format!("#l{j}"),
                &format!("Go to {}", self.app.pages[t].name),
            );
            e.attrs
                .insert("href".into(), format!("/{}", self.app.pages[t].name));
            push(e, &mut tags);
        }
        for (k, form) in p.forms.iter().enumerate() {
            tags.push("form".into());
            for (m, field) in form.fields.iter().enumerate() {
                let mut e = el("input", &format!("#f{k}-{}", field.name), "");
                e.input_type = Some(field.rule.input_type().into());
                e.label = field.name.clone();
                e.attrs.insert("name".into(), field.name.clone());
                e.form = Some(format!("#form{k}"));
                if let Some(v) = self.values.get(&(k, m)) {
                    e.attrs.insert("value".into(), v.clone());
                }
                push(e, &mut tags);
            }
            let mut submit = el("button", &format!("#f{k}-submit"), "Submit");
            submit.input_type = Some("submit".into());
            submit.form = Some(format!("#form{k}"));
            push(submit, &mut tags);
        }
        for d in 0..p.dead_buttons {
            push(el("button", &format!("#dead{d}"), "Nothing"), &mut tags);
        }
        if self.app.bug_page == Some(self.page) {
            push(el("button", "#bug", "Total"), &mut tags);
        }
        if self.error_shown {
            tags.push("p".into());
        }
        Observation {
            url: format!("{ORIGIN}/{}", p.name),
            title: p.name.clone(),
            tags,
            elements,
            status: Some(200),
            ..Observation::default()
        }
    }

    fn outcome(&mut self, events: Vec<Event>) -> Outcome {
        self.scans += 1;
        Outcome {
            observation: self.observation(),
            events,
            ..Outcome::default()
        }
    }

    fn click(&mut self, loc: &str) -> Result<Vec<Event>, EnvError> {
        let p = self.app.pages[self.page].clone();
        let missing = || EnvError::ElementNotFound(loc.to_string());
        if let Some(j) = loc.strip_prefix("#l") {
            let j: usize = j.parse().map_err(|_| missing())?;
            let t = *p.links.get(j).ok_or_else(missing)?;
            self.goto(t);
        } else if let Some(k) = loc
            .strip_prefix("#f")
            .and_then(|s| s.strip_suffix("-submit"))
        {
            let k: usize = k.parse().map_err(|_| missing())?;
            let form = p.forms.get(k).ok_or_else(missing)?;
            let ok = form.fields.iter().enumerate().all(|(m, f)| {
                f.rule
                    .accepts(self.values.get(&(k, m)).map(String::as_str).unwrap_or(""))
            });
            let too_long = form
                .fields
                .iter()
                .enumerate()
                .find_map(|(m, f)| match f.rule {
                    FieldRule::Column(n) => self
                        .values
                        .get(&(k, m))
                        .filter(|v| v.chars().count() > n)
                        .map(|_| n),
                    _ => None,
                });
            if let (true, Some(n)) = (ok, too_long) {
                // The insert fails on the server: the page stays, with an error.
                self.error_shown = true;
                return Ok(vec![Event::new(
                    EventKind::Exception,
                    format!("DataError: value too long for type character varying({n})"),
                )
                .at(format!("{ORIGIN}/app.js"), Some(87), Some(13))]);
            }
            if ok {
                self.goto(form.target);
            } else {
                self.error_shown = true;
            }
        } else if loc == "#bug" && self.app.bug_page == Some(self.page) {
            return Ok(vec![Event::new(
                EventKind::Exception,
                "TypeError: Cannot read properties of undefined (reading 'total')",
            )
            .at(format!("{ORIGIN}/app.js"), Some(42), Some(7))]);
        } else if loc.starts_with("#dead") || loc.starts_with("#f") {
            // Dead buttons and clicks into fields change nothing.
        } else {
            return Err(missing());
        }
        Ok(Vec::new())
    }

    fn field(&self, loc: &str) -> Option<(usize, usize)> {
        let rest = loc.strip_prefix("#f")?;
        let (k, name) = rest.split_once('-')?;
        let k: usize = k.parse().ok()?;
        let form = self.app.pages[self.page].forms.get(k)?;
        let m = form.fields.iter().position(|f| f.name == name)?;
        Some((k, m))
    }
}

fn el(tag: &str, locator: &str, text: &str) -> Element {
    Element {
        locator: locator.into(),
        tag: tag.into(),
        text: text.into(),
        actionable: vec![format!("tag:{tag}")],
        visible: true,
        enabled: true,
        ..Element::default()
    }
}

impl Environment for SimEnv {
    fn reset(&mut self) -> Result<Outcome, EnvError> {
        self.page = 0;
        self.history.clear();
        self.values.clear();
        self.error_shown = false;
        self.resets += 1;
        self.visited[0] = true;
        Ok(self.outcome(Vec::new()))
    }

    fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
        let events = self.apply(action)?;
        Ok(self.outcome(events))
    }

    fn perform(&mut self, action: &Action) -> Result<Performed, EnvError> {
        let events = self.apply(action)?;
        Ok(Performed::Acted {
            events,
            timings: Default::default(),
        })
    }

    fn probe(&mut self, locator: Option<&str>) -> Result<Probe, EnvError> {
        self.probes += 1;
        let obs = self.observation();
        let found = locator.is_none_or(|l| obs.element(l).is_some_and(|e| e.visible && e.enabled));
        Ok(Probe {
            found,
            url: obs.url,
            title: obs.title,
            error_text: obs.error_text,
            app: obs.app,
            dom_size: obs.dom_size,
        })
    }

    fn resolve(&mut self, c: &Chosen) -> Result<String, EnvError> {
        let r = self.resolve_near(c, "")?;
        match r.count {
            1 => Ok(r.target),
            n => Err(EnvError::Step(format!("{} finds {n} elements", what(c)))),
        }
    }

    /// As the browser resolves: the visible elements the locator names (by the scan's
    /// role and name), the one `near` finds if among them, else the first.
    fn resolve_near(&mut self, c: &Chosen, near: &str) -> Result<Resolved, EnvError> {
        let obs = self.observation();
        let found: Vec<&Element> = obs
            .elements
            .iter()
            .filter(|e| e.visible && answers(e, c))
            .collect();
        let at = found.iter().find(|e| e.locator == near);
        let Some(pick) = at.or(found.first()) else {
            return Err(EnvError::ElementNotFound(format!(
                "{} finds nothing",
                what(c)
            )));
        };
        Ok(Resolved {
            target: pick.locator.clone(),
            count: found.len(),
            near: at.is_some() && found.len() > 1,
        })
    }

    fn can_infer(&self) -> bool {
        true
    }

    fn observe(&mut self) -> Result<Outcome, EnvError> {
        Ok(self.outcome(Vec::new()))
    }
}

/// Whether `e` answers to the Playwright-style locator `c`.
fn answers(e: &Element, c: &Chosen) -> bool {
    let role = e.implicit_role();
    match c.kind {
        LocatorKind::TestId => e.attr(&c.by) == Some(c.value.as_str()),
        LocatorKind::Role => {
            role.as_deref() == Some(c.by.as_str()) && e.accessible_name() == c.value
        }
        LocatorKind::Label => e.label.trim() == c.value,
        LocatorKind::Text => role.is_none() && e.text.trim() == c.value,
        LocatorKind::Css => false,
    }
}

/// How an error names the locator `c`, e.g. `link "Go to p1"`.
fn what(c: &Chosen) -> String {
    match c.kind {
        LocatorKind::Role | LocatorKind::TestId => format!("{} {:?}", c.by, c.value),
        k => format!("{} {:?}", k.as_str(), c.value),
    }
}

impl SimEnv {
    /// Do what `action` does to the session; the events it raised.
    fn apply(&mut self, action: &Action) -> Result<Vec<Event>, EnvError> {
        let target = action.target.as_deref().unwrap_or("");
        let events = match action.kind {
            ActionKind::Click | ActionKind::DoubleClick | ActionKind::Submit => {
                self.click(target)?
            }
            ActionKind::Type => {
                let key = self
                    .field(target)
                    .ok_or_else(|| EnvError::ElementNotFound(target.to_string()))?;
                self.values
                    .insert(key, action.value.clone().unwrap_or_default());
                Vec::new()
            }
            ActionKind::Back => {
                if let Some(prev) = self.history.pop() {
                    self.page = prev;
                    self.values.clear();
                    self.error_shown = false;
                }
                Vec::new()
            }
            ActionKind::Select
            | ActionKind::Check
            | ActionKind::Hover
            | ActionKind::ContextMenu
            | ActionKind::Press
            | ActionKind::Upload
            | ActionKind::Scroll
            | ActionKind::Drag
            | ActionKind::Navigate
            | ActionKind::Spec => Vec::new(),
        };
        Ok(events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimApp;

    #[test]
    fn a_valid_form_leads_on_and_an_invalid_one_shows_an_error() {
        let mut env = SimEnv::new(SimApp::form_chain(3, 2));
        let first = env.reset().unwrap().observation;
        assert_eq!(first.url, "http://sim.test/p0");
        let submit = Action::on(ActionKind::Click, "#f0-submit");
        let stay = env.step(&submit).unwrap().observation;
        assert_eq!(stay.url, first.url);
        assert_ne!(stay.tags, first.tags, "the error shows in the structure");
        let fields: Vec<_> = first
            .elements
            .iter()
            .filter(|e| e.tag == "input")
            .map(|e| (e.locator.clone(), e.input_type.clone().unwrap()))
            .collect();
        for (loc, ty) in fields {
            let v = match ty.as_str() {
                "email" => "a@b.co",
                "number" => "5",
                _ => "x",
            };
            env.step(&Action::on(ActionKind::Type, loc).with_value(v))
                .unwrap();
        }
        assert_eq!(
            env.step(&submit).unwrap().observation.url,
            "http://sim.test/p1"
        );
        let back = env.step(&Action::back()).unwrap().observation;
        assert_eq!(back.url, first.url);
    }

    #[test]
    fn a_value_too_long_for_its_column_passes_validation_and_throws() {
        use crate::sim::{Field, Form, Page};
        let app = SimApp {
            pages: vec![
                Page {
                    name: "profile".into(),
                    forms: vec![Form {
                        fields: vec![Field {
                            name: "name".into(),
                            rule: FieldRule::Column(5),
                        }],
                        target: 1,
                    }],
                    ..Page::default()
                },
                Page {
                    name: "saved".into(),
                    ..Page::default()
                },
            ],
            bug_page: None,
        };
        let mut env = SimEnv::new(app);
        env.reset().unwrap();
        let submit = Action::on(ActionKind::Click, "#f0-submit");
        let name = |v: &str| Action::on(ActionKind::Type, "#f0-name").with_value(v);
        env.step(&name("abcdef")).unwrap();
        let out = env.step(&submit).unwrap();
        assert_eq!(out.events[0].kind, EventKind::Exception);
        assert!(out.events[0].message.contains("varying(5)"));
        assert_eq!(out.observation.url, "http://sim.test/profile");
        env.step(&name("abcde")).unwrap();
        let out = env.step(&submit).unwrap();
        assert!(out.events.is_empty());
        assert_eq!(out.observation.url, "http://sim.test/saved");
    }

    #[test]
    fn the_bug_button_throws_only_on_the_bug_page() {
        let mut env = SimEnv::new(SimApp::form_chain(2, 0));
        env.reset().unwrap();
        assert!(env.step(&Action::on(ActionKind::Click, "#bug")).is_err());
        env.step(&Action::on(ActionKind::Click, "#f0-submit"))
            .unwrap();
        let out = env.step(&Action::on(ActionKind::Click, "#bug")).unwrap();
        assert_eq!(out.events[0].kind, EventKind::Exception);
    }
}
