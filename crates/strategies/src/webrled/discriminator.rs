//! WebRLED's action discriminator (DESIGN 7.4): which elements that no rule selects are
//! controls all the same (a div with a delegated click handler), and whether they answer
//! a click or a double click.
//!
//! An element is described by a fixed-length vector: its tag, class tokens, attribute
//! names, role and first words hashed into slots, plus its size and place on the page.
//! Samples come from probing such elements (act, see whether the page changed) and from
//! the outcome of the discriminator's own predictions; the classifier is a 4-layer ReLU
//! MLP over them (`wayfarer_ml::Classifier`).

use wayfarer_core::embed::{fnv1a, mask_digits};
use wayfarer_core::{Action, ActionKind, Element, Observation};

/// Hashed slots of an element's description.
const HASHED: usize = 96;
/// Dense features after them.
const DENSE: usize = 6;
/// Length of an element's feature vector.
pub const FEATURES: usize = HASHED + DENSE;

/// Classes the discriminator tells apart.
pub const NONE: usize = 0;
pub const CLICK: usize = 1;
pub const DOUBLE_CLICK: usize = 2;
pub const CLASSES: usize = 3;

/// Attributes that say nothing about behaviour in general: the test apps' instrumentation
/// and per-element identifiers.
const IGNORED_ATTRS: &[&str] = &["data-action-id", "id", "style"];

/// The feature vector of `e` on `obs`.
pub fn features(obs: &Observation, e: &Element) -> Vec<f32> {
    let mut v = vec![0.0f32; FEATURES];
    let mut add = |f: String| {
        let h = fnv1a(&[&f]);
        v[(h % HASHED as u64) as usize] += if h >> 63 == 1 { -1.0 } else { 1.0 };
    };
    add(format!("tag:{}", e.tag));
    if let Some(r) = &e.role {
        add(format!("role:{r}"));
    }
    if let Some(t) = &e.input_type {
        add(format!("type:{t}"));
    }
    for (k, val) in &e.attrs {
        if IGNORED_ATTRS.contains(&k.as_str()) {
            continue;
        }
        add(format!("attr:{k}"));
        if k == "class" {
            for c in val.split_whitespace() {
                add(format!("class:{}", mask_digits(c)));
            }
        }
    }
    for w in e.text.split_whitespace().take(3) {
        add(format!("word:{}", mask_digits(&w.to_lowercase())));
    }
    let (vw, vh) = (obs.viewport.width.max(1.0), obs.viewport.height.max(1.0));
    let (pw, ph) = (obs.page.width.max(vw), obs.page.height.max(vh));
    let (cx, cy) = e.rect.center();
    let dense = [
        (e.rect.width / vw).min(2.0),
        (e.rect.height / vh).min(2.0),
        (cx / pw).clamp(0.0, 1.0),
        (cy / ph).clamp(0.0, 1.0),
        (e.text.chars().count() as f64 / 100.0).min(1.0),
        if e.text.trim().is_empty() { 0.0 } else { 1.0 },
    ];
    for (i, d) in dense.iter().enumerate() {
        v[HASHED + i] = *d as f32;
    }
    v
}

/// A short key of what an element looks like (tag, classes, first word): probes go to
/// looks not tried yet, so ten cards with one look cost one probe.
pub fn look(e: &Element) -> String {
    let class = e.attr("class").map(mask_digits).unwrap_or_default();
    let word = e
        .text
        .split_whitespace()
        .next()
        .map(|w| mask_digits(&w.to_lowercase()))
        .unwrap_or_default();
    format!("{}.{class}:{word}", e.tag)
}

/// Elements no rule selects that a user could still click: visible, enabled, not denied
/// (the scan reports them as text leaves).
pub fn unselected(obs: &Observation) -> impl Iterator<Item = &Element> {
    obs.elements
        .iter()
        .filter(|e| e.actionable.is_empty() && e.visible && e.enabled && !e.denied)
        .filter(|e| e.rect.width > 0.0 && e.rect.height > 0.0)
}

/// The class an action taken on an element is evidence for, when the page changed.
pub fn class_of(kind: ActionKind) -> Option<usize> {
    match kind {
        ActionKind::Click => Some(CLICK),
        ActionKind::DoubleClick => Some(DOUBLE_CLICK),
        _ => None,
    }
}

/// The actions the discriminator's probabilities `p` (none, click, double click) predict
/// for an element: the likeliest class when it is an action, and the other action too
/// when it is nearly as likely as none.
pub fn predicted(locator: &str, p: &[f32]) -> Vec<Action> {
    let mut out = Vec::new();
    let (none, click, dbl) = (p[NONE], p[CLICK], p[DOUBLE_CLICK]);
    if click > none || (click >= 0.3 && dbl > none) {
        out.push(Action::on(ActionKind::Click, locator));
    }
    if dbl > none || (dbl >= 0.3 && click > none) {
        out.push(Action::on(ActionKind::DoubleClick, locator));
    }
    out
}

/// Whether a step changed anything a user could see: another address, another page, or a
/// request to the server.
pub fn changed(before: &Observation, after: &Observation, requests: bool) -> bool {
    before.url != after.url || before.html != after.html || requests
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::{Rect, Size};

    fn el(tag: &str, class: &str, text: &str) -> Element {
        let mut e = Element {
            locator: format!("{tag}.{class}"),
            tag: tag.into(),
            text: text.into(),
            rect: Rect {
                x: 10.0,
                y: 20.0,
                width: 100.0,
                height: 20.0,
            },
            ..Element::default()
        };
        e.attrs.insert("class".into(), class.into());
        e.attrs.insert("data-action-id".into(), "app.secret".into());
        e
    }

    fn page() -> Observation {
        Observation {
            viewport: Size {
                width: 1000.0,
                height: 800.0,
            },
            page: Size {
                width: 1000.0,
                height: 1600.0,
            },
            ..Observation::default()
        }
    }

    #[test]
    fn features_see_tags_classes_and_geometry_but_not_instrumentation() {
        let obs = page();
        let a = features(&obs, &el("div", "tile", "Launch"));
        assert_eq!(a.len(), FEATURES);
        let mut same = el("div", "tile", "Launch");
        same.attrs
            .insert("data-action-id".into(), "app.other".into());
        assert_eq!(features(&obs, &same), a);
        assert_ne!(features(&obs, &el("div", "count", "Launch")), a);
        assert_ne!(features(&obs, &el("span", "tile", "Launch")), a);
        assert!((a[HASHED] - 0.1).abs() < 1e-6);
        assert!((a[HASHED + 3] - 30.0 / 1600.0).abs() < 1e-6);
    }

    #[test]
    fn looks_group_elements_that_differ_only_in_numbers_and_later_words() {
        assert_eq!(
            look(&el("span", "card-12 title", "Fix login")),
            look(&el("span", "card-7 title", "Fix build"))
        );
        assert_ne!(
            look(&el("span", "title", "Fix")),
            look(&el("span", "count", "Fix"))
        );
    }

    #[test]
    fn predictions_follow_the_likeliest_classes() {
        assert!(predicted("#a", &[0.9, 0.05, 0.05]).is_empty());
        assert_eq!(
            predicted("#a", &[0.2, 0.7, 0.1]),
            vec![Action::on(ActionKind::Click, "#a")]
        );
        assert_eq!(
            predicted("#a", &[0.1, 0.45, 0.45]),
            vec![
                Action::on(ActionKind::Click, "#a"),
                Action::on(ActionKind::DoubleClick, "#a")
            ]
        );
        assert_eq!(
            predicted("#a", &[0.3, 0.1, 0.6]),
            vec![Action::on(ActionKind::DoubleClick, "#a")]
        );
    }
}
