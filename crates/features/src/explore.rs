//! What an exploration showed, as the feature model needs it: each state's page, the
//! actions taken there (a form's fills and its submit are one action: the submit, with
//! the fields it sent), and the action that first led to it. Built from the step records
//! of any run, so `wayfarer features RUN_DIR` reuses a finished one.

use std::collections::HashMap;

use wayfarer_core::{ActionKind, StateId, StepRecord};

use crate::model::{ActionFacts, ActionText};

/// An action taken in a state.
#[derive(Clone, Debug)]
pub struct ObservedAction {
    pub text: ActionText,
    /// The steps that took it (its fills come before each), in order.
    pub steps: Vec<u64>,
}

/// A state and what was done there.
#[derive(Clone, Debug)]
pub struct StateInfo {
    pub id: StateId,
    pub url: String,
    pub title: String,
    pub actions: Vec<ObservedAction>,
    /// The state and action that first led here; `None` for a start page.
    pub reached_by: Option<(StateId, String)>,
}

/// A run's states in the order they were found.
#[derive(Clone, Debug, Default)]
pub struct Exploration {
    pub states: Vec<StateInfo>,
}

/// An action's key in its state: its kind and target, without a value.
pub fn action_key(r: &StepRecord) -> String {
    format!(
        "{} {}",
        r.action.kind.as_str(),
        r.action.target.as_deref().unwrap_or("")
    )
    .trim_end()
    .to_string()
}

/// Buttons whose click sends what was typed on their page, form or no form (a script's
/// "Save" div next to its input).
const SENDERS: &[&str] = &[
    "save", "submit", "ok", "send", "create", "add", "apply", "update", "done", "confirm",
    "search", "go", "post",
];

/// Whether step `r` sent the fills before it: it submitted a form, or clicked a button
/// named like a submit on the page they were typed on.
pub(crate) fn sends(r: &StepRecord) -> bool {
    r.form.is_some()
        || (clicked_one_of(r, SENDERS)
            && r.element.as_ref().and_then(|e| e.role.as_deref()) != Some("link"))
}

/// Whether `r` clicked an element whose whole name is one of `names` (lower case).
pub(crate) fn clicked_one_of(r: &StepRecord, names: &[&str]) -> bool {
    let name = r.element.as_ref().map_or("", |e| e.name.as_str());
    r.action.kind == ActionKind::Click && names.contains(&name.trim().to_lowercase().as_str())
}

/// A type or select step: a value put into a field.
pub(crate) fn is_fill(r: &StepRecord) -> bool {
    matches!(r.action.kind, ActionKind::Type | ActionKind::Select)
}

/// Put a run's steps in the order feature inference reads them: each episode's steps
/// together, in step order. The workers of a run take their steps interleaved, and what a
/// page needed (its fills, their submit) is read along one episode; a run with one worker
/// is in this order already.
pub fn episode_order(steps: &mut [StepRecord]) {
    steps.sort_by_key(|s| (s.episode, s.step));
}

impl Exploration {
    /// From a run's states (id, URL, title; in order of discovery) and its step records
    /// (in `episode_order`). Failed steps are left out; fills count only as part of the next
    /// action on the same page (their submit).
    pub fn from_steps(states: &[(StateId, String, String)], steps: &[StepRecord]) -> Exploration {
        let mut infos: Vec<StateInfo> = states
            .iter()
            .map(|(id, url, title)| StateInfo {
                id: *id,
                url: url.clone(),
                title: title.clone(),
                actions: Vec::new(),
                reached_by: None,
            })
            .collect();
        let index: HashMap<StateId, usize> =
            infos.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        // Fills on the current page since its last other action: label and step.
        let mut pending: Vec<(String, &StepRecord)> = Vec::new();
        let mut episode = 0;
        for r in steps {
            if r.episode != episode {
                episode = r.episode;
                // Typing the episode ended on was sent by nothing: an action of its own.
                unsent(&mut infos, &index, std::mem::take(&mut pending));
            }
            if r.error.is_some() {
                continue;
            }
            if is_fill(r) {
                let label = r
                    .element
                    .as_ref()
                    .map(|e| e.name.clone())
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| r.action.target.clone().unwrap_or_default());
                pending.retain(|(l, _)| *l != label);
                pending.push((label, r));
                if r.state_after == r.state_before {
                    continue;
                }
            }
            // The fills belong to this step when it sent them (a form submission, a
            // "Save" of their page); typing nothing sent (a live filter, a search box) is
            // an action of its own.
            let fills = std::mem::take(&mut pending);
            let sending = sends(r);
            let (sent, fills): (Vec<_>, Vec<_>) = fills
                .into_iter()
                .partition(|(_, f)| sending && f.state_before == r.state_before);
            unsent(&mut infos, &index, fills);
            let fields = sent.into_iter().map(|(l, _)| l).collect();
            if let Some(&i) = index.get(&r.state_after) {
                if r.new_state && infos[i].reached_by.is_none() && r.state_after != r.state_before {
                    infos[i].reached_by = Some((r.state_before, action_key(r)));
                }
            }
            if let Some(&i) = index.get(&r.state_before) {
                note(&mut infos[i], r, fields);
            }
        }
        unsent(&mut infos, &index, pending);
        Exploration { states: infos }
    }

    pub fn state(&self, id: StateId) -> Option<&StateInfo> {
        self.states.iter().find(|s| s.id == id)
    }
}

/// Fills nothing sent: each an action of its own page.
fn unsent(
    infos: &mut [StateInfo],
    index: &HashMap<StateId, usize>,
    fills: Vec<(String, &StepRecord)>,
) {
    for (_, f) in fills {
        if let Some(&i) = index.get(&f.state_before) {
            note(&mut infos[i], f, Vec::new());
        }
    }
}

/// Record that `r` was taken in `state`, sending `fields`.
fn note(state: &mut StateInfo, r: &StepRecord, fields: Vec<String>) {
    let key = action_key(r);
    match state.actions.iter_mut().find(|a| a.text.key == key) {
        Some(a) => {
            a.steps.push(r.step);
            // The richest form seen: the most fields sent.
            if fields.len() > a.text.facts.fields.len() {
                a.text.facts.fields = fields;
                a.text.text = describe(&a.text.facts);
            }
        }
        None => {
            let hint = r.element.as_ref();
            let facts = ActionFacts {
                kind: Some(r.action.kind),
                tag: hint.map(|e| e.tag.clone()).unwrap_or_default(),
                role: hint.and_then(|e| e.role.clone()),
                name: hint.map(|e| e.name.clone()).unwrap_or_default(),
                href: hint.and_then(|e| e.attrs.get("href").cloned()),
                fields,
            };
            state.actions.push(ObservedAction {
                text: ActionText {
                    key,
                    text: describe(&facts),
                    facts,
                },
                steps: vec![r.step],
            });
        }
    }
}

/// An action for a prompt: `click button "Add Owner" after filling "First Name", "City"`.
pub fn describe(f: &ActionFacts) -> String {
    let verb = f.kind.map_or("use", |k| k.as_str());
    let what = f.role.as_deref().unwrap_or(f.tag.as_str());
    let mut s = if f.name.is_empty() {
        format!("{verb} a {what}")
    } else {
        format!("{verb} {what} {:?}", f.name)
    };
    if !f.fields.is_empty() {
        let list: Vec<String> = f.fields.iter().map(|l| format!("{l:?}")).collect();
        s.push_str(&format!(" after filling {}", list.join(", ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use wayfarer_core::Action;

    use super::*;
    use crate::testing::{step, submitted};

    #[test]
    fn interleaved_workers_read_as_one_episode_after_another() {
        let states = vec![
            (StateId(0), "http://h/".to_string(), "Home".to_string()),
            (StateId(1), "http://h/new".to_string(), "New".to_string()),
            (StateId(2), "http://h/done".to_string(), "Done".to_string()),
        ];
        let in_episode = |mut r: StepRecord, e: u64| {
            r.episode = e;
            r
        };
        let click = |t: &str| Action::on(ActionKind::Click, t);
        let fill = Action::on(ActionKind::Type, "#name").with_value("Ann");
        // Worker 0 fills and submits in episode 1 while worker 1 clicks around in episode 2.
        let mut steps = vec![
            in_episode(step(1, 0, 1, click("#new"), "link", "New"), 1),
            in_episode(step(2, 0, 0, click("#help"), "button", "Help"), 2),
            in_episode(step(3, 1, 1, fill, "textbox", "Name"), 1),
            in_episode(step(4, 0, 0, click("#help"), "button", "Help"), 2),
            in_episode(
                submitted(step(5, 1, 2, click("#save"), "button", "Save")),
                1,
            ),
        ];
        episode_order(&mut steps);
        assert_eq!(
            steps.iter().map(|s| s.step).collect::<Vec<_>>(),
            [1, 3, 5, 2, 4]
        );
        let x = Exploration::from_steps(&states, &steps);
        let form = &x.states[1].actions;
        assert_eq!(form.len(), 1, "{form:?}");
        assert_eq!(form[0].text.facts.fields, vec!["Name"]);
    }

    #[test]
    fn fills_belong_to_the_submit_that_follows_them() {
        let states = vec![
            (StateId(0), "http://h/".to_string(), "Home".to_string()),
            (
                StateId(1),
                "http://h/new".to_string(),
                "New owner".to_string(),
            ),
            (
                StateId(2),
                "http://h/owners/1".to_string(),
                "Owner".to_string(),
            ),
        ];
        let click = |t: &str| Action::on(ActionKind::Click, t);
        let steps = vec![
            step(1, 0, 1, click("#add"), "link", "Add Owner"),
            step(
                2,
                1,
                1,
                Action::on(ActionKind::Type, "#first").with_value("Ann"),
                "textbox",
                "First Name",
            ),
            step(
                3,
                1,
                1,
                Action::on(ActionKind::Type, "#city").with_value("Oslo"),
                "textbox",
                "City",
            ),
            submitted(step(4, 1, 2, click("#save"), "button", "Add Owner")),
            step(5, 2, 0, click("#home"), "link", "Home"),
        ];
        let x = Exploration::from_steps(&states, &steps);
        assert_eq!(
            x.states[1].reached_by,
            Some((StateId(0), "click #add".to_string()))
        );
        assert_eq!(
            x.states[2].reached_by,
            Some((StateId(1), "click #save".to_string()))
        );
        // Reached again later: the first way in stays.
        assert_eq!(x.states[0].reached_by, None);
        let form = &x.states[1].actions;
        assert_eq!(form.len(), 1, "the fills are not actions of their own");
        assert_eq!(form[0].text.facts.fields, vec!["First Name", "City"]);
        assert_eq!(
            form[0].text.text,
            "click button \"Add Owner\" after filling \"First Name\", \"City\""
        );
        assert_eq!(form[0].steps, vec![4]);
        assert_eq!(x.states[0].actions[0].text.text, "click link \"Add Owner\"");
        // Typing that a link click did not send is nobody's.
        let steps = vec![
            step(
                1,
                0,
                0,
                Action::on(ActionKind::Type, "#q").with_value("x"),
                "textbox",
                "Search",
            ),
            step(2, 0, 1, click("#help"), "link", "Help"),
        ];
        let x = Exploration::from_steps(&states, &steps);
        assert!(x.states[0].actions[0].text.facts.fields.is_empty());
    }

    #[test]
    fn a_save_button_sends_what_was_typed_on_its_page_without_a_form() {
        let states = vec![(StateId(0), "http://h/b".to_string(), "Board".to_string())];
        let typed = |n: u64, t: &str, name: &str| {
            step(
                n,
                0,
                0,
                Action::on(ActionKind::Type, t).with_value("x"),
                "textbox",
                name,
            )
        };
        let steps = vec![
            typed(1, "#title", "Title"),
            // A script's div, no <form>: its name says it sends.
            step(
                2,
                0,
                0,
                Action::on(ActionKind::Click, "#save"),
                "generic",
                "Save",
            ),
            typed(3, "#filter", "Filter cards"),
            // A link sends nothing: the filter is an action of its own.
            step(4, 0, 0, Action::on(ActionKind::Click, "#a"), "link", "Save"),
        ];
        let x = Exploration::from_steps(&states, &steps);
        let facts: Vec<(&str, Vec<String>)> = x.states[0]
            .actions
            .iter()
            .map(|a| (a.text.key.as_str(), a.text.facts.fields.clone()))
            .collect();
        assert_eq!(
            facts,
            vec![
                ("click #save", vec!["Title".to_string()]),
                ("type #filter", vec![]),
                ("click #a", vec![]),
            ]
        );
    }

    #[test]
    fn typing_an_episode_ends_on_is_an_action_of_its_own() {
        let states = vec![(StateId(0), "http://h/".to_string(), "Home".to_string())];
        let filter = |n: u64, episode: u64| StepRecord {
            episode,
            ..step(
                n,
                0,
                0,
                Action::on(ActionKind::Type, "#filter").with_value("x"),
                "searchbox",
                "Filter expenses",
            )
        };
        // The last step of episode 1, then the last of the run.
        let steps = vec![
            filter(1, 1),
            StepRecord {
                episode: 2,
                ..step(
                    2,
                    0,
                    0,
                    Action::on(ActionKind::Click, "#a"),
                    "link",
                    "About",
                )
            },
            filter(3, 2),
        ];
        let x = Exploration::from_steps(&states, &steps);
        let keys: Vec<(&str, &[u64])> = x.states[0]
            .actions
            .iter()
            .map(|a| (a.text.key.as_str(), a.steps.as_slice()))
            .collect();
        assert_eq!(
            keys,
            vec![("type #filter", &[1, 3][..]), ("click #a", &[2][..])]
        );
    }
}
