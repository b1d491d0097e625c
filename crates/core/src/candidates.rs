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

/// Every action a strategy may take on `obs`, in document order; `back` is offered when
/// the episode has a step to go back from.
pub fn candidate_actions(obs: &Observation, deny: &DenyText, can_go_back: bool) -> Vec<Action> {
    let mut out: Vec<Action> = obs
        .elements
        .iter()
        .filter(|e| e.is_actionable() && !deny.denies(e))
        .filter(|e| !(e.tag == "select" && e.options.is_empty()))
        .map(action_for)
        .collect();
    if can_go_back {
        out.push(Action::back());
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
        let obs = Observation {
            elements: vec![
                el("a", None, "Home"),
                el("input", Some("email"), ""),
                el("input", Some("checkbox"), "c"),
                select,
                el("button", None, "Log out now"),
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
                ActionKind::Back
            ]
        );
    }
}
