//! Form acceptance, the measure of input quality users judge a tester by: of the actions
//! that submitted a form with values meant to be valid, the share after which the page
//! changed, no field of that form is `:invalid`, and no error text appeared. Submissions
//! the `mutate` layer made invalid on purpose are counted apart.

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
    /// accepted / submissions, 0-1; `None` before any submission.
    pub fn share(&self) -> Option<f64> {
        (self.submissions > 0).then(|| self.accepted as f64 / self.submissions as f64)
    }

    /// Count one step: `action` was taken on `before` (chosen for `decision`) and led to
    /// `after`. Steps that submit nothing are ignored.
    pub fn count(
        &mut self,
        before: &Observation,
        action: &Action,
        after: &Observation,
        decision: Option<&str>,
    ) {
        let Some(button) = submission(before, action) else {
            return;
        };
        if decision.is_some_and(|d| d.contains(MUTATE_NOTE)) {
            self.deliberate += 1;
            return;
        }
        self.submissions += 1;
        if accepted(before, button, after) {
            self.accepted += 1;
        }
    }
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
    let changed =
        before.url != after.url || before.tags != after.tags || look(before) != look(after);
    if !changed || after.error_text.is_some() {
        return false;
    }
    let sent: HashSet<&str> = fields_of(before, button)
        .map(|f| f.locator.as_str())
        .collect();
    if after
        .elements
        .iter()
        .any(|e| e.invalid && sent.contains(e.locator.as_str()))
    {
        return false;
    }
    let old: HashSet<&str> = before.elements.iter().map(|e| e.text.as_str()).collect();
    !after
        .elements
        .iter()
        .filter(|e| !old.contains(e.text.as_str()))
        .any(|e| error_words().is_match(&e.text))
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

    #[test]
    fn a_new_page_is_accepted_an_unchanged_one_not() {
        let before = form_page("http://h/new");
        let mut c = FormAcceptance::default();
        c.count(&before, &save(), &form_page("http://h/list"), None);
        c.count(&before, &save(), &before.clone(), None);
        assert_eq!((c.submissions, c.accepted), (2, 1));
        assert_eq!(c.share(), Some(0.5));
    }

    #[test]
    fn an_invalid_field_or_an_error_message_is_a_refusal() {
        let before = form_page("http://h/new");
        let mut after = before.clone();
        after.elements[0].invalid = true;
        after.elements.push(text("#p", "Saved draft"));
        let b = &before.elements[1];
        assert!(!accepted(&before, b, &after));
        after.elements[0].invalid = false;
        assert!(accepted(&before, b, &after));
        after
            .elements
            .push(text("#err", "Please enter a valid e-mail address"));
        assert!(!accepted(&before, b, &after));
        let mut page = form_page("http://h/other");
        page.error_text = Some("Internal Server Error".into());
        assert!(!accepted(&before, b, &page));
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
        let mut c = FormAcceptance::default();
        c.count(
            &before,
            &save(),
            &before.clone(),
            Some("fill 1 field(s), then click #save; mutate email: \"a@\" (no domain)"),
        );
        assert_eq!((c.submissions, c.deliberate, c.share()), (0, 1, None));
    }
}
