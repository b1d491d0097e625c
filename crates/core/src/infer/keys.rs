//! The abstraction functions that key the knowledge base (SIBILLA's absS and absA, DESIGN
//! section 5). Keys are 64-bit hashes: the knowledge base only compares them; labels are
//! for people reading the report.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::config::KeyKind;
use crate::candidates::action_for;
use crate::model::{Action, Element, Observation};

/// An abstract state or an abstract action.
pub type Key = u64;

fn finish(h: impl FnOnce(&mut DefaultHasher)) -> Key {
    let mut s = DefaultHasher::new();
    h(&mut s);
    s.finish()
}

/// absS: the abstract state of an observation.
pub fn state_key(kind: KeyKind, obs: &Observation) -> Key {
    match kind {
        KeyKind::Types => finish(|h| (0u8, &obs.url, &obs.title).hash(h)),
        KeyKind::Actions => {
            // The set of enabled actions: order and duplicates do not matter.
            let mut acts: Vec<(&'static str, String)> = obs
                .elements
                .iter()
                .filter(|e| e.is_actionable())
                .map(|e| {
                    let a = action_for(e);
                    (a.kind.as_str(), e.locator.clone())
                })
                .collect();
            acts.sort();
            acts.dedup();
            finish(|h| (1u8, acts).hash(h))
        }
        KeyKind::Widgets => finish(|h| {
            2u8.hash(h);
            for e in &obs.elements {
                widget(e).hash(h);
            }
        }),
    }
}

/// The properties of a widget that `widgets` keeps: identity, kind, what it shows and
/// holds, whether it can be used, and which form it belongs to.
#[allow(clippy::type_complexity)]
fn widget(
    e: &Element,
) -> (
    &str,
    &str,
    Option<&str>,
    &str,
    Option<&str>,
    Option<bool>,
    bool,
    bool,
    Option<&str>,
) {
    (
        e.locator.as_str(),
        e.tag.as_str(),
        e.input_type.as_deref(),
        e.text.as_str(),
        e.attr("value"),
        e.checked,
        e.enabled && e.visible,
        e.actionable.is_empty(),
        e.form.as_deref(),
    )
}

/// The type of the widget an action involves, for `types`: `button`, `input/email`,
/// `a` ... or `-` for actions without a target (back, navigate).
fn widget_type(action: &Action, before: &Observation) -> String {
    let Some(e) = action.target.as_deref().and_then(|t| before.element(t)) else {
        return "-".into();
    };
    match &e.input_type {
        Some(t) => format!("{}/{}", e.tag, t),
        None => e.tag.clone(),
    }
}

/// absA: the abstract action of `action` taken on the page `before`.
pub fn action_key(kind: KeyKind, action: &Action, before: &Observation) -> Key {
    // A spec's action has no target: what it does (a point, a key) is in its value.
    if action.kind == crate::model::ActionKind::Spec {
        return finish(|h| (3u8, &action.value).hash(h));
    }
    match kind {
        KeyKind::Types => {
            finish(|h| (0u8, action.kind.as_str(), widget_type(action, before)).hash(h))
        }
        KeyKind::Actions => finish(|h| (1u8, action.kind.as_str(), &action.target).hash(h)),
        KeyKind::Widgets => {
            finish(|h| (2u8, action.kind.as_str(), &action.target, &action.value).hash(h))
        }
    }
}

/// A short description of an abstract state for the report.
pub fn state_label(kind: KeyKind, obs: &Observation) -> String {
    match kind {
        KeyKind::Types => format!("{} · {}", obs.url, obs.title),
        KeyKind::Actions => format!(
            "{} actions at {}",
            obs.elements.iter().filter(|e| e.is_actionable()).count(),
            obs.url
        ),
        KeyKind::Widgets => format!("{} widgets at {}", obs.elements.len(), obs.url),
    }
}

/// A short description of an abstract action for the report.
pub fn action_label(kind: KeyKind, action: &Action, before: &Observation) -> String {
    match kind {
        KeyKind::Types => format!("{} {}", action.kind.as_str(), widget_type(action, before)),
        KeyKind::Actions => {
            format!(
                "{} {}",
                action.kind.as_str(),
                action.target.as_deref().unwrap_or("")
            )
        }
        KeyKind::Widgets => action.describe(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ActionKind;

    fn el(loc: &str, tag: &str, ty: Option<&str>, text: &str) -> Element {
        Element {
            locator: loc.into(),
            tag: tag.into(),
            input_type: ty.map(String::from),
            text: text.into(),
            actionable: vec![format!("tag:{tag}")],
            visible: true,
            enabled: true,
            ..Element::default()
        }
    }

    fn page(url: &str, title: &str, els: Vec<Element>) -> Observation {
        Observation {
            url: url.into(),
            title: title.into(),
            elements: els,
            ..Observation::default()
        }
    }

    #[test]
    fn types_sees_only_url_and_title() {
        let a = page("http://h/a", "A", vec![el("#x", "button", None, "X")]);
        let b = page("http://h/a", "A", vec![el("#y", "a", None, "Y")]);
        let c = page("http://h/a", "B", vec![]);
        assert_eq!(state_key(KeyKind::Types, &a), state_key(KeyKind::Types, &b));
        assert_ne!(state_key(KeyKind::Types, &a), state_key(KeyKind::Types, &c));
    }

    #[test]
    fn actions_is_the_set_of_enabled_actions() {
        let x = el("#x", "button", None, "X");
        let y = el("#y", "a", None, "Y");
        let mut off = el("#z", "button", None, "Z");
        off.enabled = false;
        let a = page("http://h/a", "A", vec![x.clone(), y.clone()]);
        let b = page("http://h/b", "B", vec![y.clone(), x.clone(), off]);
        let c = page("http://h/a", "A", vec![x]);
        let k = |o| state_key(KeyKind::Actions, o);
        assert_eq!(k(&a), k(&b), "order, URL and disabled widgets do not count");
        assert_ne!(k(&a), k(&c));
    }

    #[test]
    fn widgets_sees_texts_and_values() {
        let a = page("http://h/a", "A", vec![el("#x", "button", None, "Save")]);
        let b = page("http://h/a", "A", vec![el("#x", "button", None, "Saved")]);
        let mut typed = el("#x", "button", None, "Save");
        typed.attrs.insert("value".into(), "1".into());
        let c = page("http://h/a", "A", vec![typed]);
        let k = |o| state_key(KeyKind::Widgets, o);
        assert_ne!(k(&a), k(&b));
        assert_ne!(k(&a), k(&c));
        assert_eq!(k(&a), k(&a.clone()));
    }

    #[test]
    fn action_keys_abstract_as_documented() {
        let before = page(
            "http://h/a",
            "A",
            vec![
                el("#one", "button", None, "One"),
                el("#two", "button", None, "Two"),
            ],
        );
        let one = Action::on(ActionKind::Click, "#one");
        let two = Action::on(ActionKind::Click, "#two");
        let mut typed = Action::on(ActionKind::Type, "#one");
        typed.value = Some("a".into());
        let mut typed_b = typed.clone();
        typed_b.value = Some("b".into());
        let k = |kind, a| action_key(kind, a, &before);
        assert_eq!(k(KeyKind::Types, &one), k(KeyKind::Types, &two));
        assert_ne!(k(KeyKind::Actions, &one), k(KeyKind::Actions, &two));
        assert_eq!(k(KeyKind::Actions, &typed), k(KeyKind::Actions, &typed_b));
        assert_ne!(k(KeyKind::Widgets, &typed), k(KeyKind::Widgets, &typed_b));
        assert_eq!(action_label(KeyKind::Types, &one, &before), "click button");
    }
}
