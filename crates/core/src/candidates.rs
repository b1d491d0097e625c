//! Candidate actions of a page: which actions a strategy may choose from.

use crate::config::DenyRule;
use crate::model::{Action, ActionKind, Element, Observation};

/// Text deny rules, lower-cased once.
#[derive(Clone, Debug, Default)]
pub struct DenyText {
    needles: Vec<String>,
}

impl DenyText {
    pub fn new(rules: &[DenyRule]) -> DenyText {
        DenyText {
            needles: rules
                .iter()
                .filter_map(|r| r.text.as_ref())
                .map(|t| t.to_lowercase())
                .filter(|t| !t.is_empty())
                .collect(),
        }
    }

    pub fn denies(&self, e: &Element) -> bool {
        if self.needles.is_empty() {
            return false;
        }
        let hay = [
            e.text.as_str(),
            e.label.as_str(),
            e.attr("aria-label").unwrap_or(""),
            e.attr("value").unwrap_or(""),
        ]
        .join(" ")
        .to_lowercase();
        self.needles.iter().any(|n| hay.contains(n.as_str()))
    }
}

/// The action an element invites, by its kind.
pub fn action_for(e: &Element) -> Action {
    let kind = if e.tag == "select" {
        ActionKind::Select
    } else if e.tag == "input"
        && matches!(e.input_type.as_deref(), Some("checkbox") | Some("radio"))
    {
        ActionKind::Check
    } else if e.is_text_input() {
        ActionKind::Type
    } else {
        ActionKind::Click
    };
    Action::on(kind, e.locator.clone())
}

/// Whether the element listens for double clicks (a recorded `dblclick` listener): it is
/// offered a double click besides its usual action.
pub fn wants_double_click(e: &Element) -> bool {
    e.actionable.iter().any(|r| r == "listener:dblclick")
}

/// Every action a strategy may take on `obs`, in document order; `back` is offered when
/// the episode has a step to go back from.
pub fn candidate_actions(obs: &Observation, deny: &DenyText, can_go_back: bool) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    for e in obs
        .elements
        .iter()
        .filter(|e| e.is_actionable() && !deny.denies(e))
        .filter(|e| !(e.tag == "select" && e.options.is_empty()))
    {
        out.push(action_for(e));
        if wants_double_click(e) {
            out.push(Action::on(ActionKind::DoubleClick, e.locator.clone()));
        }
    }
    if can_go_back {
        out.push(Action::back());
    }
    out
}

/// What the loop offers a strategy on `obs`: the rules' candidates, then the strategy's
/// own extra actions (probes, predicted controls) that may be taken there. The same list
/// on a scanned page and on a page state inference guessed.
pub fn offered_actions(
    obs: &Observation,
    deny: &DenyText,
    can_go_back: bool,
    agent: &mut dyn crate::agent::Agent,
) -> Vec<Action> {
    let mut offered = candidate_actions(obs, deny, can_go_back);
    let extra = agent.extra_actions(obs, &offered);
    let extra = usable_extras(obs, deny, &offered, extra);
    offered.extend(extra);
    offered
}

/// A strategy's extra actions (`Agent::extra_actions`) that may be taken on `obs`: those
/// on a present, visible, enabled element no deny rule covers, that are not candidates
/// already. Actions without a target (back, navigate) pass.
pub fn usable_extras(
    obs: &Observation,
    deny: &DenyText,
    candidates: &[Action],
    extra: Vec<Action>,
) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    for a in extra {
        let ok = match a.target.as_deref() {
            None => true,
            Some(t) => obs
                .element(t)
                .is_some_and(|e| e.visible && e.enabled && !e.denied && !deny.denies(e)),
        };
        if ok && !candidates.contains(&a) && !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(tag: &str, ty: Option<&str>, text: &str) -> Element {
        Element {
            locator: format!("#{tag}{}", text.len()),
            tag: tag.into(),
            input_type: ty.map(String::from),
            text: text.into(),
            actionable: vec![format!("tag:{tag}")],
            visible: true,
            enabled: true,
            ..Element::default()
        }
    }

    #[test]
    fn kinds_follow_elements_and_deny_rules_apply() {
        let mut select = el("select", None, "");
        select.options = vec!["a".into()];
        let mut hidden = el("button", None, "hidden");
        hidden.visible = false;
        let mut denied = el("a", None, "x");
        denied.denied = true;
        let mut dbl = el("span", None, "Card title");
        dbl.actionable = vec!["listener:click".into(), "listener:dblclick".into()];
        let obs = Observation {
            elements: vec![
                el("a", None, "Home"),
                el("input", Some("email"), ""),
                el("input", Some("checkbox"), "c"),
                select,
                el("button", None, "Log out now"),
                dbl,
                hidden,
                denied,
            ],
            ..Observation::default()
        };
        let deny = DenyText::new(&[DenyRule {
            selector: None,
            text: Some("LOG OUT".into()),
        }]);
        let acts = candidate_actions(&obs, &deny, true);
        let kinds: Vec<_> = acts.iter().map(|a| a.kind).collect();
        assert_eq!(
            kinds,
            vec![
                ActionKind::Click,
                ActionKind::Type,
                ActionKind::Check,
                ActionKind::Select,
                ActionKind::Click,
                ActionKind::DoubleClick,
                ActionKind::Back
            ]
        );
    }

    #[test]
    fn extras_on_unusable_elements_or_repeating_candidates_are_dropped() {
        let mut gone = el("div", None, "hidden");
        gone.visible = false;
        let mut denied = el("div", None, "Log out");
        denied.actionable.clear();
        let mut plain = el("div", None, "Card");
        plain.actionable.clear();
        let button = el("button", None, "Save");
        let obs = Observation {
            elements: vec![gone.clone(), denied.clone(), plain.clone(), button.clone()],
            ..Observation::default()
        };
        let deny = DenyText::new(&[DenyRule {
            selector: None,
            text: Some("log out".into()),
        }]);
        let candidates = candidate_actions(&obs, &deny, false);
        let click = |e: &Element| Action::on(ActionKind::Click, e.locator.clone());
        let extra = vec![
            click(&gone),
            click(&denied),
            click(&plain),
            click(&plain),
            Action::on(ActionKind::DoubleClick, plain.locator.clone()),
            click(&button),
            Action::on(ActionKind::Click, "#nowhere"),
            Action::back(),
        ];
        let kept = usable_extras(&obs, &deny, &candidates, extra);
        assert_eq!(
            kept,
            vec![
                click(&plain),
                Action::on(ActionKind::DoubleClick, plain.locator.clone()),
                Action::back()
            ]
        );
    }
}
