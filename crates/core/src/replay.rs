//! Replaying an action sequence from a reset and judging what it raises: the engine of
//! `wayfarer replay` and of each test `wayfarer minimize` runs.

use crate::ddmin::Verdict;
use crate::env::{EnvError, Environment, Outcome, PageNames};
use crate::model::{Action, Observation};
use crate::oracle::Oracles;
use crate::trace::{Chosen, ElementHint, LocatorKind, NameSource, TraceStep};

/// A step a replay performs: its action, and how an exported test would find its
/// target. A recorded step's CSS path names a position (the third link of the menu, the
/// second row); the page of a replay may have another row or link there.
pub trait Replayable: Clone {
    fn action(&self) -> &Action;

    /// The test id, role and name, label or text to find the target by first; `None`:
    /// the action's target as it is.
    fn chosen(&self) -> Option<Chosen> {
        None
    }

    /// How the target looked when the step was recorded: the other names to find it by.
    fn hint(&self) -> Option<&ElementHint> {
        None
    }
}

impl Replayable for Action {
    fn action(&self) -> &Action {
        self
    }
}

impl Replayable for TraceStep {
    fn action(&self) -> &Action {
        &self.action
    }

    fn chosen(&self) -> Option<Chosen> {
        let t = self.action.target.as_deref()?;
        Some(crate::trace::chosen(t, self.element.as_ref())).filter(|c| c.kind != LocatorKind::Css)
    }

    fn hint(&self) -> Option<&ElementHint> {
        self.element.as_ref()
    }
}

/// `step`'s action aimed where its locators find its target now (see `locators`): the
/// first that finds it alone, or among several the one its CSS path finds; else the
/// first of several; else the CSS path as it is. An error where the role and name say
/// the element is gone and the path does not find it under another name: acting on what
/// is there now would be another step, and could raise the failure by chance.
fn aimed<S: Replayable>(
    env: &mut dyn Environment,
    step: &S,
    now: &Observation,
) -> Result<Action, EnvError> {
    let mut action = step.action().clone();
    let Some(path) = action.target.clone() else {
        return Ok(action);
    };
    let (mut several, mut gone) = (None, None);
    for c in locators(&path, step.hint(), step.chosen()) {
        match env.resolve_near(&c, &path) {
            Ok(r) if r.count <= 1 || r.near => {
                action.target = Some(r.target);
                return Ok(action);
            }
            Ok(r) => several = several.or(Some(r.target)),
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => {
                if gone.is_none() && surely_gone(&c, step.hint(), &e) {
                    gone = Some(e);
                }
            }
        }
    }
    match (several, gone) {
        (Some(t), _) => action.target = Some(t),
        (None, Some(e)) if !same_element(step.hint(), now.element(&path)) => return Err(e),
        _ => {}
    }
    Ok(action)
}

/// The locators a replay tries for a step's target `path`: the one recorded (what the
/// exported test uses), then the export's order (test id, role and name, label, text),
/// each whether or not it was unique when recorded. Not through a frame, where they do
/// not look (as `trace::choose`).
fn locators(path: &str, hint: Option<&ElementHint>, recorded: Option<Chosen>) -> Vec<Chosen> {
    let mut out: Vec<Chosen> = recorded.into_iter().collect();
    let Some(h) = hint else { return out };
    if path.contains(" >>> ") && h.page.as_ref().is_none_or(|p| p.frame) {
        return out;
    }
    let page = h.page.clone().unwrap_or_default();
    let mut add = |kind, by: &str, value: &str| {
        let c = Chosen {
            kind,
            by: by.to_string(),
            value: value.to_string(),
            verified: false,
        };
        let known = out
            .iter()
            .any(|o| (o.kind, &o.by, &o.value) == (c.kind, &c.by, &c.value));
        if !value.is_empty() && !known {
            out.push(c);
        }
    };
    let ids = page
        .test_ids
        .iter()
        .map(|t| (t.attr.as_str(), t.value.as_str()));
    let attrs = crate::env::TEST_ID_ATTRS
        .iter()
        .filter_map(|a| h.attrs.get(*a).map(|v| (*a, v.as_str())));
    for (attr, id) in ids.chain(attrs) {
        add(LocatorKind::TestId, attr, id);
    }
    if let Some(role) = role_even_if_shared(path, h) {
        add(LocatorKind::Role, &role.by, &role.value);
    }
    let field = matches!(h.tag.as_str(), "input" | "select" | "textarea");
    let label = match &h.page {
        Some(_) => page.label.as_str(),
        None if field => h.label.as_str(),
        None => "",
    };
    add(LocatorKind::Label, "", label);
    add(LocatorKind::Text, "", &page.text);
    out
}

/// The role and name the export would use were they unique (`trace::choose`'s rules for
/// whether Playwright computes the same), however many elements shared them.
fn role_even_if_shared(path: &str, h: &ElementHint) -> Option<Chosen> {
    let frame = h.page.as_ref().is_some_and(|p| p.frame);
    let alone = ElementHint {
        same_name: 1,
        page: Some(PageNames {
            frame,
            ..PageNames::default()
        }),
        locator: None,
        ..h.clone()
    };
    Some(crate::trace::choose(path, Some(&alone))).filter(|c| c.kind == LocatorKind::Role)
}

/// Whether `e`, from resolving `c`, means the target is not in the page: its role and
/// name as the browser named them, counted in the page by the rules the resolve follows
/// (a scan's guess at a name may just be another name than the page's).
fn surely_gone(c: &Chosen, hint: Option<&ElementHint>, e: &EnvError) -> bool {
    let counted = hint.is_some_and(|h| h.source == NameSource::Tree && h.same_name >= 1);
    c.kind == LocatorKind::Role && counted && matches!(e, EnvError::ElementNotFound(_))
}

/// Whether the element a path finds now (`el`, as scanned) is the recorded one under
/// another name (a count in a link's text): it has the same id, name, href or test id.
fn same_element(hint: Option<&ElementHint>, el: Option<&crate::model::Element>) -> bool {
    let (Some(h), Some(el)) = (hint, el) else {
        return false;
    };
    let keys = ["id", "name", "href"]
        .iter()
        .chain(crate::env::TEST_ID_ATTRS);
    h.tag == el.tag
        && keys
            .filter_map(|k| h.attrs.get(*k).filter(|v| !v.is_empty()).map(|v| (k, v)))
            .any(|(k, v)| el.attr(k) == Some(v.as_str()))
}

/// What one replay saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replay {
    /// Actions performed (all of them unless one could not be, or the run stopped at
    /// the expected failure).
    pub performed: usize,
    /// The index of the action after which the expected signature appeared (`None` when
    /// it did not; `Some(0)` may also mean the reset itself raised it, see `at_reset`).
    pub hit: Option<usize>,
    /// The expected failure appeared right after the reset, before any action.
    pub at_reset: bool,
    /// The action that could not be performed, and why (the page no longer offered it).
    pub blocked: Option<(usize, String)>,
    /// Every failure signature seen, in order, without repeats.
    pub signatures: Vec<String>,
    /// The environment restarted itself (a crash) before the end.
    pub restarted: bool,
    /// The page after the reset, then after each performed action.
    pub urls: Vec<String>,
    /// The same pages as their URL and document's tag sequence: a wizard's first step
    /// shown again after "Back" is the page it was, at the same URL.
    pub shapes: Vec<u64>,
}

impl Replay {
    /// Stretches `[i, j)` of the performed actions after which the page was the one
    /// before them (the same URL and tags: `shapes[i] == shapes[j]`), having shown
    /// another between: likely detours, for `ddmin_with_loops`.
    pub fn loops(&self) -> Vec<(usize, usize)> {
        match self.shapes.len() == self.urls.len() {
            true => crate::ddmin::loops(&self.shapes),
            false => crate::ddmin::loops(&self.urls),
        }
    }

    fn seen(&mut self, page: &crate::model::Observation) {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (&page.url, &page.tags).hash(&mut h);
        self.urls.push(page.url.clone());
        self.shapes.push(h.finish());
    }

    pub fn reproduced(&self) -> bool {
        self.hit.is_some() || self.at_reset
    }

    /// The verdict for delta debugging: a failure needs the actions up to its hit.
    pub fn verdict(&self) -> Verdict {
        match (self.at_reset, self.hit) {
            (true, _) => Verdict::FailAt(0),
            (false, Some(i)) => Verdict::FailAt(i),
            (false, None) => Verdict::Pass,
        }
    }
}

/// Reset `env`, perform `actions` (each aimed by its locators, see `aimed`), and look
/// for `expected` among the failure signatures the oracles find. With `stop_at_hit` the
/// replay ends as soon as it appears. Only a fatal environment error is an error; an
/// action that cannot be performed ends the replay as `blocked`.
pub fn replay<S: Replayable>(
    env: &mut dyn Environment,
    actions: &[S],
    oracles: &Oracles,
    expected: &str,
    stop_at_hit: bool,
) -> Result<Replay, EnvError> {
    let mut r = Replay::default();
    let out = env.reset()?;
    r.seen(&out.observation);
    // Books what the oracles find on one outcome; whether the expected failure is among it.
    let note = |out: &Outcome, r: &mut Replay| -> bool {
        let mut hit = false;
        for f in oracles.judge(&out.events, Some(&out.observation)) {
            hit |= f.signature == expected;
            if !r.signatures.contains(&f.signature) {
                r.signatures.push(f.signature);
            }
        }
        hit
    };
    if note(&out, &mut r) {
        r.at_reset = true;
        if stop_at_hit {
            return Ok(r);
        }
    }
    // The page as the last outcome scanned it: what a step's CSS path finds there.
    let mut now = out.observation;
    for (i, step) in actions.iter().enumerate() {
        let out = match aimed(env, step, &now).and_then(|a| env.step(&a)) {
            Ok(out) => out,
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => {
                r.blocked = Some((i, e.to_string()));
                return Ok(r);
            }
        };
        r.performed = i + 1;
        r.seen(&out.observation);
        if note(&out, &mut r) && r.hit.is_none() && !r.at_reset {
            r.hit = Some(i);
            if stop_at_hit {
                return Ok(r);
            }
        }
        if out.restarted {
            // The page is back at its start: the rest of the sequence means nothing.
            r.restarted = true;
            return Ok(r);
        }
        now = out.observation;
    }
    // What comes due after the last action (a property's deadline) counts for it; only a
    // property's failure waits for it.
    if (r.reproduced() && stop_at_hit) || !expected.starts_with("property|") {
        return Ok(r);
    }
    let settled = match env.settle() {
        Ok(s) => s,
        Err(e) if e.is_fatal() => return Err(e),
        Err(_) => None,
    };
    if let Some(out) = settled {
        if note(&out, &mut r) && r.hit.is_none() && !r.at_reset {
            match r.performed.checked_sub(1) {
                Some(last) => r.hit = Some(last),
                None => r.at_reset = true,
            }
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::OracleConfig;
    use crate::sim::{SimApp, SimEnv};

    fn oracles() -> Oracles {
        Oracles::new(OracleConfig::default(), vec![]).unwrap()
    }

    /// Walk the sim app at random from its start until the bug is raised, recording
    /// the actions (many of them detours).
    fn path_to_bug(env: &mut SimEnv) -> (Vec<Action>, String) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut obs = env.reset().unwrap().observation;
        let mut actions = Vec::new();
        for _ in 0..2000 {
            let c = crate::candidates::candidate_actions(&obs, &Default::default(), false);
            let a = c[rng.gen_range(0..c.len())].clone();
            let out = env.step(&a).unwrap();
            actions.push(a);
            if let Some(f) = oracles().judge(&out.events, None).into_iter().next() {
                return (actions, f.signature);
            }
            obs = out.observation;
        }
        panic!("no bug reached");
    }

    #[test]
    fn replay_finds_the_expected_signature_and_stops_there() {
        let mut env = SimEnv::new(SimApp::form_chain(3, 0));
        let (mut actions, sig) = path_to_bug(&mut env);
        let n = actions.len();
        actions.push(actions[0].clone());
        let r = replay(&mut env, &actions, &oracles(), &sig, true).unwrap();
        assert!(r.reproduced());
        assert_eq!(r.hit, Some(n - 1));
        assert_eq!(r.performed, n);
        assert_eq!(r.verdict(), Verdict::FailAt(n - 1));
        assert_eq!(r.urls.len(), n + 1);
        let r = replay(&mut env, &actions[..n - 1], &oracles(), &sig, true).unwrap();
        assert!(!r.reproduced());
        assert_eq!(r.verdict(), Verdict::Pass);
        // Delta debugging over real replays keeps only the clicks that lead to the bug.
        let min = crate::ddmin::ddmin(&actions, |s| {
            replay(&mut env, s, &oracles(), &sig, true).map(|r| r.verdict())
        })
        .unwrap()
        .expect("the whole path reproduces");
        assert!(min.len() <= 3, "{} of {n} actions kept: {min:?}", min.len());
        let r = replay(&mut env, &min, &oracles(), &sig, true).unwrap();
        assert!(r.reproduced());
    }

    /// The sim app with a property that is violated only when the replay waits after its
    /// third action (a deadline that comes due).
    struct Due {
        env: SimEnv,
        acted: usize,
    }

    impl Environment for Due {
        fn reset(&mut self) -> Result<crate::env::Outcome, EnvError> {
            self.acted = 0;
            self.env.reset()
        }

        fn step(&mut self, action: &Action) -> Result<crate::env::Outcome, EnvError> {
            self.acted += 1;
            self.env.step(action)
        }

        fn settle(&mut self) -> Result<Option<crate::env::Outcome>, EnvError> {
            let mut out = self.env.observe()?;
            if self.acted >= 3 {
                out.events.push(crate::Event::property(
                    "late",
                    "late violated: not within 5000 ms",
                ));
            }
            Ok(Some(out))
        }
    }

    #[test]
    fn what_comes_due_after_the_last_action_counts_for_it() {
        let mut env = Due {
            env: SimEnv::new(SimApp::form_chain(3, 0)),
            acted: 0,
        };
        // Back on the start page: an action that can always be taken again.
        let actions = vec![Action::back(); 4];
        let sig = "property|late";
        let r = replay(&mut env, &actions[..3], &oracles(), sig, true).unwrap();
        assert_eq!((r.hit, r.performed), (Some(2), 3), "{r:?}");
        assert_eq!(r.verdict(), Verdict::FailAt(2));
        let r = replay(&mut env, &actions[..2], &oracles(), sig, true).unwrap();
        assert!(!r.reproduced(), "{r:?}");
        // Delta debugging keeps three actions: with fewer, nothing comes due.
        let min = crate::ddmin::ddmin(&actions, |s| {
            replay(&mut env, s, &oracles(), sig, true).map(|r| r.verdict())
        })
        .unwrap()
        .expect("the whole sequence reproduces");
        assert_eq!(min.len(), 3);
    }

    /// The sim app, where a locator finds what a recorded CSS path no longer does: the
    /// chosen locator's value is the element's target now.
    struct Moved(SimEnv);

    impl Environment for Moved {
        fn reset(&mut self) -> Result<crate::env::Outcome, EnvError> {
            self.0.reset()
        }

        fn step(&mut self, action: &Action) -> Result<crate::env::Outcome, EnvError> {
            self.0.step(action)
        }

        fn resolve(&mut self, c: &Chosen) -> Result<String, EnvError> {
            Ok(c.value.clone())
        }
    }

    #[test]
    fn a_step_is_aimed_by_its_locator_before_its_recorded_path() {
        let mut env = Moved(SimEnv::new(SimApp::form_chain(3, 0)));
        let (actions, sig) = path_to_bug(&mut env.0);
        // Every recorded path is stale; the hints' locators find the elements.
        let steps: Vec<TraceStep> = actions
            .iter()
            .map(|a| {
                let locator = a.target.as_ref().map(|t| Chosen {
                    kind: LocatorKind::Role,
                    by: "button".into(),
                    value: t.clone(),
                    verified: true,
                });
                let mut action = a.clone();
                if action.target.is_some() {
                    action.target = Some("#moved-away".into());
                }
                TraceStep {
                    action,
                    element: Some(crate::trace::ElementHint {
                        locator,
                        ..Default::default()
                    }),
                    url: String::new(),
                }
            })
            .collect();
        let r = replay(&mut env, &steps, &oracles(), &sig, true).unwrap();
        assert!(r.reproduced(), "{r:?}");
        assert_eq!(r.performed, actions.len());
        // The same actions without their hints stop at the first stale path.
        let bare: Vec<Action> = steps.iter().map(|s| s.action.clone()).collect();
        let r = replay(&mut env, &bare, &oracles(), &sig, true).unwrap();
        assert!(!r.reproduced());
        assert!(r.blocked.is_some(), "{r:?}");
    }
}

#[cfg(test)]
mod cascade_tests {
    use super::*;
    use crate::config::OracleConfig;
    use crate::env::{PageNames, TestId};
    use crate::model::ActionKind;
    use crate::sim::{Page, SimApp, SimEnv};
    use crate::trace::{ElementHint, NameSource};

    fn oracles() -> Oracles {
        Oracles::new(OracleConfig::default(), vec![]).unwrap()
    }

    /// A menu of three links, two of them named alike ("Go to reports") but leading to
    /// different pages; the bug's button is on the second "reports".
    fn menu() -> SimEnv {
        let page = |name: &str, links: Vec<usize>| Page {
            name: name.into(),
            links,
            ..Page::default()
        };
        SimEnv::new(SimApp {
            pages: vec![
                page("home", vec![1, 2, 3]),
                page("reports", vec![]),
                page("other", vec![]),
                page("reports", vec![]),
            ],
            bug_page: Some(3),
        })
    }

    /// A click on the link `name` recorded at `target` (its path then), named by the scan
    /// with `same_name` namesakes and the locator chosen then.
    fn click(target: &str, name: &str, same_name: u32, locator: Option<Chosen>) -> TraceStep {
        TraceStep {
            action: Action::on(ActionKind::Click, target),
            element: Some(ElementHint {
                tag: "a".into(),
                role: Some("link".into()),
                name: name.into(),
                text: name.into(),
                same_name,
                locator,
                ..ElementHint::default()
            }),
            url: String::new(),
        }
    }

    fn css() -> Option<Chosen> {
        Some(Chosen {
            kind: LocatorKind::Css,
            by: String::new(),
            value: String::new(),
            verified: true,
        })
    }

    #[test]
    fn a_step_of_one_url_shown_again_after_another_is_a_detour() {
        let page = |tags: &[&str]| crate::model::Observation {
            url: "http://app.test/wizard".into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            ..Default::default()
        };
        let mut r = Replay::default();
        // Tiles, "Next" to the limit, "Back" to the tiles, another tile (the same page).
        for p in [&["div"][..], &["div", "input"], &["div"], &["div"]] {
            r.seen(&page(p));
        }
        assert_eq!(r.loops(), [(0, 3)]);
        r.shapes.clear();
        assert!(
            r.loops().is_empty(),
            "one URL throughout: no detour by URLs alone"
        );
    }

    fn last_url(r: &Replay) -> &str {
        r.urls.last().map(String::as_str).unwrap_or("")
    }

    #[test]
    fn a_link_whose_path_moved_is_found_by_role_and_name() {
        let mut env = menu();
        // Recorded when "Go to other" was the first link; now the first is "Go to reports".
        let steps = [click("#l0", "Go to other", 1, None)];
        let r = replay(&mut env, &steps, &oracles(), "none", false).unwrap();
        assert_eq!((r.performed, &r.blocked), (1, &None), "{r:?}");
        assert_eq!(last_url(&r), "http://sim.test/other");
        // Not unique when recorded (a CSS locator chosen): role and name are tried anyway.
        let steps = [click("#l0", "Go to other", 2, css())];
        let r = replay(&mut env, &steps, &oracles(), "none", false).unwrap();
        assert_eq!(last_url(&r), "http://sim.test/other", "{r:?}");
    }

    #[test]
    fn of_several_namesakes_the_one_the_path_finds_else_the_first() {
        let mut env = menu();
        let bug = TraceStep {
            action: Action::on(ActionKind::Click, "#bug"),
            element: None,
            url: String::new(),
        };
        // The path still finds one of the two "Go to reports": that one (the bug's page).
        let steps = [click("#l2", "Go to reports", 2, css()), bug.clone()];
        let r = replay(&mut env, &steps, &oracles(), "none", false).unwrap();
        assert_eq!((r.performed, &r.blocked), (2, &None), "{r:?}");
        assert!(!r.signatures.is_empty(), "{r:?}");
        // The path finds "Go to other" now: not a namesake, so the first "Go to reports".
        let steps = [click("#l1", "Go to reports", 2, css()), bug];
        let r = replay(&mut env, &steps, &oracles(), "none", false).unwrap();
        assert_eq!(last_url(&r), "http://sim.test/reports", "{r:?}");
        assert_eq!(r.performed, 1, "the first reports page has no bug: {r:?}");
    }

    /// The sim app, recording each locator a replay asks about and finding none.
    struct Asked(SimEnv, Vec<Chosen>);

    impl Environment for Asked {
        fn reset(&mut self) -> Result<crate::env::Outcome, EnvError> {
            self.0.reset()
        }

        fn step(&mut self, action: &Action) -> Result<crate::env::Outcome, EnvError> {
            self.0.step(action)
        }

        fn resolve(&mut self, c: &Chosen) -> Result<String, EnvError> {
            self.1.push(c.clone());
            Err(EnvError::ElementNotFound(format!(
                "{} finds nothing",
                c.value
            )))
        }
    }

    #[test]
    fn the_recorded_locator_first_then_the_exports_order_then_the_path() {
        let mut env = Asked(menu(), Vec::new());
        let mut step = click(
            "#l1",
            "Go to other",
            2,
            Some(Chosen {
                kind: LocatorKind::Label,
                by: String::new(),
                value: "Other".into(),
                verified: true,
            }),
        );
        let h = step.element.as_mut().unwrap();
        h.attrs.insert("data-testid".into(), "other".into());
        h.page = Some(PageNames {
            label: "Other".into(),
            same_label: 1,
            text: "Go to other".into(),
            same_text: 2,
            test_ids: vec![TestId {
                attr: "data-testid".into(),
                value: "other".into(),
                same: 2,
            }],
            ..PageNames::default()
        });
        let r = replay(&mut env, &[step], &oracles(), "none", false).unwrap();
        let asked: Vec<(LocatorKind, &str)> =
            env.1.iter().map(|c| (c.kind, c.value.as_str())).collect();
        assert_eq!(
            asked,
            vec![
                (LocatorKind::Label, "Other"),
                (LocatorKind::TestId, "other"),
                (LocatorKind::Role, "Go to other"),
                (LocatorKind::Text, "Go to other"),
            ]
        );
        // None found it, and the scan's name may not be the page's: the path, last.
        assert_eq!(last_url(&r), "http://sim.test/other", "{r:?}");
    }

    #[test]
    fn a_gone_element_is_not_replaced_by_what_its_path_finds_now() {
        let mut env = menu();
        // Named by the tree, once on the page: a link "Go to archive" is gone for sure,
        // and "#l0" is another link now.
        let mut step = click("#l0", "Go to archive", 1, None);
        step.element.as_mut().unwrap().source = NameSource::Tree;
        let r = replay(&mut env, &[step.clone()], &oracles(), "none", false).unwrap();
        assert_eq!(r.performed, 0, "{r:?}");
        let (i, why) = r.blocked.clone().expect("blocked");
        assert_eq!(i, 0);
        assert!(why.contains("\"Go to archive\" finds nothing"), "{why}");
        // The same link under another name (its href says so): the path is right.
        step.element
            .as_mut()
            .unwrap()
            .attrs
            .insert("href".into(), "/reports".into());
        let r = replay(&mut env, &[step], &oracles(), "none", false).unwrap();
        assert_eq!(last_url(&r), "http://sim.test/reports", "{r:?}");
    }
}
