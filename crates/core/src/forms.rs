//! Form acceptance, the measure of input quality users judge a tester by: of the actions
//! that submitted a form with values meant to be valid, the share after which the page
//! changed, no field of that form is `:invalid`, and no error text appeared. Submissions
//! the `mutate` layer made invalid on purpose are counted apart.
//!
//! A submission is a click on a form's button (or a `Submit`) after values were typed into
//! that form's fields on this page: a button clicked with nothing entered sends nothing of
//! the tester's, and a `type=button` next to the form's real submit button (a "fill demo
//! data" helper, a toggle) is not a submission.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::input::MUTATE_NOTE;
use crate::model::{Action, ActionKind, Element, Observation};

/// The counts behind the share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FormAcceptance {
    /// Submissions with values meant to be valid.
    pub submissions: u64,
    /// Of those, the accepted ones.
    pub accepted: u64,
    /// Submissions with a value made invalid on purpose (not in the share).
    pub deliberate: u64,
}

impl FormAcceptance {
    /// Add the counts of another tracker (another worker's).
    pub fn add(&mut self, other: &FormAcceptance) {
        self.submissions += other.submissions;
        self.accepted += other.accepted;
        self.deliberate += other.deliberate;
    }

    /// accepted / submissions, 0-1; `None` before any submission.
    pub fn share(&self) -> Option<f64> {
        (self.submissions > 0).then(|| self.accepted as f64 / self.submissions as f64)
    }
}

/// Counts form acceptance along a run: which fields of the current page were typed into,
/// and how each submission of them fared.
#[derive(Clone, Debug, Default)]
pub struct FormTracker {
    pub counts: FormAcceptance,
    /// Fields typed into (or selected) on the current page since their form was last sent.
    typed: HashSet<String>,
}

impl FormTracker {
    /// One step: `action` was taken on `before` (chosen for `decision`) and led to `after`.
    /// Returns the verdict when the step submitted typed values.
    pub fn step(
        &mut self,
        before: &Observation,
        action: &Action,
        after: &Observation,
        decision: Option<&str>,
    ) -> Option<Verdict> {
        let deliberate = decision.is_some_and(|d| d.contains(MUTATE_NOTE));
        let verdict =
            submission(before, action).and_then(|b| self.judge(before, b, after, deliberate));
        if matches!(action.kind, ActionKind::Type | ActionKind::Select) {
            if let Some(t) = &action.target {
                self.typed.insert(t.clone());
            }
        }
        // Values typed on a page stay with it.
        if before.url != after.url {
            self.typed.clear();
        }
        verdict
    }

    /// The verdict on pressing `button`, when fields typed into were sent with it.
    fn judge(
        &mut self,
        before: &Observation,
        button: &Element,
        after: &Observation,
        deliberate: bool,
    ) -> Option<Verdict> {
        let sent: Vec<String> = fields_of(before, button)
            .filter(|f| self.typed.contains(&f.locator))
            .map(|f| f.locator.clone())
            .collect();
        if sent.is_empty() {
            return None;
        }
        for f in &sent {
            self.typed.remove(f);
        }
        let refused = refusal(before, button, after);
        let c = &mut self.counts;
        if deliberate {
            c.deliberate += 1;
        } else {
            c.submissions += 1;
            if refused.is_none() {
                c.accepted += 1;
            }
        }
        Some(Verdict {
            deliberate,
            refused,
        })
    }
}

/// How one submission went, recorded with its step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// A value was made invalid on purpose (`+mutate`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deliberate: bool,
    /// Why it did not go through; `None` when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// The fields a submit of `button` sends: those of its form, or, for a button outside any
/// form, the fields outside any form (div-made forms).
fn fields_of<'a>(page: &'a Observation, button: &'a Element) -> impl Iterator<Item = &'a Element> {
    page.elements.iter().filter(move |e| {
        e.form == button.form
            && e.locator != button.locator
            && (e.is_text_input() || e.tag == "select")
    })
}

/// The element `action` submits a form with, when it does: a `Submit`, or a click on a
/// button-like element with fields to send.
pub fn submission<'a>(page: &'a Observation, action: &Action) -> Option<&'a Element> {
    if !matches!(action.kind, ActionKind::Click | ActionKind::Submit) {
        return None;
    }
    let el = page.element(action.target.as_deref()?)?;
    if action.kind == ActionKind::Click && !el.submits() {
        return None;
    }
    let says_button =
        matches!(el.tag.as_str(), "button" | "input") || el.role.as_deref() == Some("button");
    if action.kind == ActionKind::Click && el.form.is_none() && !says_button {
        // Outside a form, a clickable div or span is not taken for a submit button.
        return None;
    }
    let submit_type = |e: &Element| {
        matches!(e.tag.as_str(), "button" | "input")
            && matches!(e.input_type.as_deref(), Some("submit" | "image"))
    };
    if action.kind == ActionKind::Click
        && el.input_type.as_deref() == Some("button")
        && el.form.is_some()
        && page
            .elements
            .iter()
            .any(|e| e.form == el.form && submit_type(e))
    {
        // A script's helper beside the form's real submit button.
        return None;
    }
    fields_of(page, el).next().is_some().then_some(el)
}

/// Text that says a value was refused.
fn error_words() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)\b(error|invalid|required|must (be|contain|have|match)|not (a )?valid|is not allowed|please (enter|provide|fill|select|choose|correct)|too (long|short|large|small|big)|failed|already (exists|taken|registered|in use))\b",
        )
        .expect("valid regex")
    })
}

/// The page as the user sees it, for "did anything change": each element's locator, text
/// and value.
fn look(page: &Observation) -> HashSet<(&str, &str, &str)> {
    page.elements
        .iter()
        .map(|e| {
            (
                e.locator.as_str(),
                e.text.as_str(),
                e.attr("value").unwrap_or(""),
            )
        })
        .collect()
}

/// Whether the submission with `button` on `before` went through, judging by `after`.
pub fn accepted(before: &Observation, button: &Element, after: &Observation) -> bool {
    refusal(before, button, after).is_none()
}

/// Why the submission with `button` on `before` did not go through, judging by `after`:
/// `None` when it did.
pub fn refusal(before: &Observation, button: &Element, after: &Observation) -> Option<String> {
    if let Some(e) = &after.error_text {
        return Some(format!("error page: {}", clip(e)));
    }
    let changed =
        before.url != after.url || before.tags != after.tags || look(before) != look(after);
    if !changed {
        return Some("the page did not change".into());
    }
    let sent: HashSet<&str> = fields_of(before, button)
        .map(|f| f.locator.as_str())
        .collect();
    if let Some(e) = after
        .elements
        .iter()
        .find(|e| e.invalid && sent.contains(e.locator.as_str()))
    {
        return Some(format!("{} is :invalid", e.describe()));
    }
    let old: HashSet<&str> = before.elements.iter().map(|e| e.text.as_str()).collect();
    after
        .elements
        .iter()
        .filter(|e| !old.contains(e.text.as_str()))
        .find(|e| error_words().is_match(&e.text))
        .map(|e| format!("error text: {}", clip(&e.text)))
}

/// The page may quote a secret typed into the form.
fn clip(s: &str) -> String {
    crate::secrets::mask_then_cut(s, 80)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(tag: &str, loc: &str, ty: Option<&str>, form: Option<&str>) -> Element {
        Element {
            locator: loc.into(),
            tag: tag.into(),
            input_type: ty.map(String::from),
            form: form.map(String::from),
            actionable: vec![format!("tag:{tag}")],
            ..Element::default()
        }
    }

    fn text(loc: &str, t: &str) -> Element {
        Element {
            locator: loc.into(),
            tag: "p".into(),
            text: t.into(),
            ..Element::default()
        }
    }

    fn form_page(url: &str) -> Observation {
        let mut email = el("input", "#email", Some("email"), Some("#f"));
        email.attrs.insert("value".into(), "a@b.co".into());
        Observation {
            url: url.into(),
            tags: vec!["form".into(), "input".into(), "button".into()],
            elements: vec![
                email,
                el("button", "#save", Some("submit"), Some("#f")),
                el("a", "#home", None, None),
            ],
            ..Observation::default()
        }
    }

    fn save() -> Action {
        Action::on(ActionKind::Click, "#save")
    }

    #[test]
    fn only_buttons_with_fields_submit() {
        let page = form_page("http://h/new");
        assert!(submission(&page, &save()).is_some());
        assert!(submission(&page, &Action::on(ActionKind::Click, "#home")).is_none());
        assert!(submission(&page, &Action::on(ActionKind::Type, "#email")).is_none());
        let mut lone = page.clone();
        lone.elements.retain(|e| e.locator != "#email");
        assert!(submission(&lone, &save()).is_none());
    }

    /// Type into the e-mail field, then click `action`.
    fn typed_then(
        t: &mut FormTracker,
        before: &Observation,
        action: &Action,
        after: &Observation,
        decision: Option<&str>,
    ) -> Option<Verdict> {
        t.step(
            before,
            &Action::on(ActionKind::Type, "#email").with_value("a@b.co"),
            before,
            None,
        );
        t.step(before, action, after, decision)
    }

    #[test]
    fn a_new_page_is_accepted_an_unchanged_one_not() {
        let before = form_page("http://h/new");
        let mut t = FormTracker::default();
        let v = typed_then(&mut t, &before, &save(), &form_page("http://h/list"), None);
        assert_eq!(
            v,
            Some(Verdict {
                deliberate: false,
                refused: None
            })
        );
        let v = typed_then(&mut t, &before, &save(), &before.clone(), None).unwrap();
        assert_eq!(v.refused.as_deref(), Some("the page did not change"));
        assert_eq!((t.counts.submissions, t.counts.accepted), (2, 1));
        assert_eq!(t.counts.share(), Some(0.5));
    }

    #[test]
    fn a_click_that_sends_nothing_typed_is_no_submission() {
        let before = form_page("http://h/new");
        let mut t = FormTracker::default();
        assert_eq!(t.step(&before, &save(), &before.clone(), None), None);
        // Typed, sent once: a second click without typing again sends nothing new.
        assert!(typed_then(&mut t, &before, &save(), &before.clone(), None).is_some());
        assert_eq!(t.step(&before, &save(), &before.clone(), None), None);
        // What was typed on another page does not count here.
        t.step(
            &before,
            &Action::on(ActionKind::Type, "#email").with_value("x"),
            &form_page("http://h/away"),
            None,
        );
        assert_eq!(t.step(&before, &save(), &before.clone(), None), None);
        assert_eq!(t.counts.submissions, 1);
    }

    #[test]
    fn a_helper_button_beside_the_submit_button_is_no_submission() {
        let mut page = form_page("http://h/login");
        page.elements
            .push(el("button", "#demo", Some("button"), Some("#f")));
        assert!(submission(&page, &Action::on(ActionKind::Click, "#demo")).is_none());
        // Without a submit button, a type=button is how the script submits.
        page.elements.retain(|e| e.locator != "#save");
        assert!(submission(&page, &Action::on(ActionKind::Click, "#demo")).is_some());
    }

    #[test]
    fn an_invalid_field_or_an_error_message_is_a_refusal() {
        let before = form_page("http://h/new");
        let mut after = before.clone();
        after.elements[0].invalid = true;
        after.elements.push(text("#p", "Saved draft"));
        let b = &before.elements[1];
        assert_eq!(
            refusal(&before, b, &after).as_deref(),
            Some("input is :invalid")
        );
        after.elements[0].invalid = false;
        assert!(accepted(&before, b, &after));
        after
            .elements
            .push(text("#err", "Please enter a valid e-mail address"));
        assert_eq!(
            refusal(&before, b, &after).as_deref(),
            Some("error text: Please enter a valid e-mail address")
        );
        let mut page = form_page("http://h/other");
        page.error_text = Some("Internal Server Error".into());
        assert_eq!(
            refusal(&before, b, &page).as_deref(),
            Some("error page: Internal Server Error")
        );
    }

    #[test]
    fn error_words_already_on_the_page_do_not_count() {
        let mut before = form_page("http://h/new");
        before
            .elements
            .push(text("#hint", "Fields marked * are required"));
        let mut after = before.clone();
        after.elements[0]
            .attrs
            .insert("value".into(), String::new());
        assert!(accepted(&before, &before.elements[1], &after));
    }

    #[test]
    fn deliberately_broken_submissions_are_counted_apart() {
        let before = form_page("http://h/new");
        let mut t = FormTracker::default();
        let v = typed_then(
            &mut t,
            &before,
            &save(),
            &before.clone(),
            Some("fill 1 field(s), then click #save; mutate email: \"a@\" (no domain)"),
        )
        .unwrap();
        assert!(v.deliberate);
        let c = t.counts;
        assert_eq!((c.submissions, c.deliberate, c.share()), (0, 1, None));
    }
}
