//! Field values for a guessed page. A remembered page keeps the field values of the visit
//! it was scanned on; after typing, choosing or ticking in a field the live page is the
//! page the action was taken on plus that edit, so a guess for such a step carries those
//! values.
//! Without this, a strategy that reads fields (webexplor fills a form's empty fields
//! first) decides on another visit's values, where a scan would have shown the live ones.

use std::collections::HashMap;

use crate::model::{Action, ActionKind, Element, Observation};
use crate::state::normalize_url;

/// `guess` with the field values of `before` and the edit `action` made, when `action`
/// edits a field and the guess is the same address; `None` when nothing is carried.
pub(crate) fn carry_fields(
    guess: &Observation,
    before: &Observation,
    action: &Action,
) -> Option<Observation> {
    if !matches!(
        action.kind,
        ActionKind::Type | ActionKind::Select | ActionKind::Check
    ) || normalize_url(&guess.url) != normalize_url(&before.url)
    {
        return None;
    }
    let live: HashMap<(&str, &str), &Element> = before
        .elements
        .iter()
        .filter(|e| is_field(e))
        .map(|e| ((e.locator.as_str(), e.tag.as_str()), e))
        .collect();
    let mut out = guess.clone();
    for e in out.elements.iter_mut().filter(|e| is_field(e)) {
        if let Some(l) = live.get(&(e.locator.as_str(), e.tag.as_str())) {
            match l.attr("value") {
                Some(v) => e.attrs.insert("value".into(), v.to_string()),
                None => e.attrs.remove("value"),
            };
            e.checked = l.checked;
        }
    }
    let target = action.target.as_deref().unwrap_or("");
    let Some(i) = out.elements.iter().position(|e| e.locator == target) else {
        return Some(out);
    };
    if action.kind == ActionKind::Check {
        tick(&mut out.elements, i);
    } else {
        let e = &mut out.elements[i];
        let shown = e.shown_after_typing(action.value.as_deref().unwrap_or(""));
        e.attrs.insert("value".into(), shown);
    }
    Some(out)
}

/// What a click on checkbox or radio `i` does: a checkbox flips, a radio is checked and
/// the others of its group (same name, same form) are not.
fn tick(elements: &mut [Element], i: usize) {
    let e = &elements[i];
    if e.input_type.as_deref() != Some("radio") {
        let flipped = !e.checked.unwrap_or(false);
        elements[i].checked = Some(flipped);
        return;
    }
    let group = (e.attr("name").map(str::to_string), e.form.clone());
    for (k, o) in elements.iter_mut().enumerate() {
        let same = o.input_type.as_deref() == Some("radio")
            && group.0.is_some()
            && o.attr("name") == group.0.as_deref()
            && o.form == group.1;
        if k == i {
            o.checked = Some(true);
        } else if same {
            o.checked = Some(false);
        }
    }
}

/// The fields whose value the scan reads from the live element.
fn is_field(e: &Element) -> bool {
    matches!(e.tag.as_str(), "input" | "textarea" | "select")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(loc: &str, value: &str) -> Element {
        let mut e = Element {
            locator: loc.into(),
            tag: "input".into(),
            input_type: Some("text".into()),
            ..Element::default()
        };
        e.attrs.insert("value".into(), value.into());
        e
    }

    fn page(url: &str, fields: Vec<Element>) -> Observation {
        Observation {
            url: url.into(),
            elements: fields,
            ..Observation::default()
        }
    }

    fn value(o: &Observation, loc: &str) -> Option<String> {
        o.element(loc)?.attr("value").map(str::to_string)
    }

    #[test]
    fn a_guess_after_typing_shows_the_live_values_and_the_typed_one() {
        // Recorded on an earlier visit: the e-mail was filled then, the name was "Old".
        let guess = page(
            "http://h/owners/new",
            vec![field("#name", "Old"), field("#email", "a@b.c")],
        );
        // Live before the action: nothing filled yet.
        let before = page(
            "http://h/owners/new",
            vec![field("#name", ""), field("#email", "")],
        );
        let typed = Action::on(ActionKind::Type, "#name").with_value("Ximena");
        let out = carry_fields(&guess, &before, &typed).expect("a field edit is carried");
        assert_eq!(value(&out, "#name").as_deref(), Some("Ximena"));
        assert_eq!(
            value(&out, "#email").as_deref(),
            Some(""),
            "not the recorded visit's"
        );
    }

    #[test]
    fn clicks_and_other_addresses_keep_the_remembered_page() {
        let guess = page("http://h/a", vec![field("#q", "x")]);
        let before = page("http://h/a", vec![field("#q", "")]);
        let click = Action::on(ActionKind::Click, "#go");
        assert!(carry_fields(&guess, &before, &click).is_none());
        assert!(carry_fields(&guess, &before, &click).is_none());
        let elsewhere = page("http://h/b", vec![field("#q", "")]);
        let typed = Action::on(ActionKind::Type, "#q").with_value("y");
        assert!(carry_fields(&guess, &elsewhere, &typed).is_none());
    }

    #[test]
    fn a_typed_value_is_reported_as_the_scan_would() {
        let mut pw = field("#pw", "");
        pw.input_type = Some("password".into());
        let mut short = field("#zip", "");
        short.attrs.insert("maxlength".into(), "5".into());
        let guess = page(
            "http://h/f",
            vec![pw.clone(), short.clone(), field("#long", "")],
        );
        let before = guess.clone();
        let out = |a: Action| carry_fields(&guess, &before, &a).unwrap();
        let t = |loc: &str, v: &str| Action::on(ActionKind::Type, loc).with_value(v);
        assert_eq!(
            value(&out(t("#pw", "s3cret")), "#pw").as_deref(),
            Some("********")
        );
        assert_eq!(value(&out(t("#pw", "")), "#pw").as_deref(), Some(""));
        assert_eq!(
            value(&out(t("#zip", "1234567")), "#zip").as_deref(),
            Some("12345")
        );
        let long = "é".repeat(400);
        let got = value(&out(t("#long", &long)), "#long").unwrap();
        assert_eq!(got.chars().count(), crate::model::SCAN_MAX_VALUE);
    }

    #[test]
    fn fields_the_live_page_lacks_keep_their_recorded_value() {
        let guess = page("http://h/f", vec![field("#a", "rec"), field("#b", "rec")]);
        let before = page("http://h/f", vec![field("#a", "live")]);
        let typed = Action::on(ActionKind::Type, "#b").with_value("new");
        let out = carry_fields(&guess, &before, &typed).unwrap();
        assert_eq!(value(&out, "#a").as_deref(), Some("live"));
        assert_eq!(value(&out, "#b").as_deref(), Some("new"));
    }

    fn choice(loc: &str, kind: &str, name: &str, checked: bool) -> Element {
        let mut e = field(loc, "on");
        e.input_type = Some(kind.into());
        e.attrs.insert("name".into(), name.into());
        e.checked = Some(checked);
        e
    }

    fn checked(o: &Observation, loc: &str) -> Option<bool> {
        o.element(loc)?.checked
    }

    #[test]
    fn a_tick_flips_a_checkbox_and_moves_a_radio_group() {
        // Recorded on a visit where everything was ticked the other way.
        let guess = page(
            "http://h/f",
            vec![
                choice("#alice", "checkbox", "who", false),
                choice("#bob", "checkbox", "who", false),
                choice("#eq", "radio", "split", false),
                choice("#pct", "radio", "split", true),
                field("#amount", "9"),
            ],
        );
        let before = page(
            "http://h/f",
            vec![
                choice("#alice", "checkbox", "who", true),
                choice("#bob", "checkbox", "who", true),
                choice("#eq", "radio", "split", true),
                choice("#pct", "radio", "split", false),
                field("#amount", "12"),
            ],
        );
        let tick =
            |loc: &str| carry_fields(&guess, &before, &Action::on(ActionKind::Check, loc)).unwrap();
        let out = tick("#alice");
        assert_eq!(
            checked(&out, "#alice"),
            Some(false),
            "flipped from the live state"
        );
        assert_eq!(checked(&out, "#bob"), Some(true), "live, not recorded");
        assert_eq!(value(&out, "#amount").as_deref(), Some("12"));
        let out = tick("#pct");
        assert_eq!(checked(&out, "#pct"), Some(true));
        assert_eq!(checked(&out, "#eq"), Some(false), "its group lets go");
        assert_eq!(checked(&out, "#alice"), Some(true), "another group stays");
    }
}
