//! Which form a field belongs to across visits, and whether a submission of it went
//! through: the two questions the `mutate` policy asks of every step.

use wayfarer_core::model::{Element, Event, EventKind, Observation};

/// What stands for a record id in a path: `/owners/7/edit` and `/owners/8/edit` hold the
/// same form.
const ID: &str = ":id";

/// A form across visits: the page's path with record ids replaced, and the form's
/// locator (`None` for fields outside any `<form>`, as div-made forms have).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FormKey {
    pub page: String,
    pub form: Option<String>,
}

impl FormKey {
    pub fn of(url: &str, form: Option<&str>) -> FormKey {
        let page = route(url)
            .split('/')
            .map(|seg| if is_id(seg) { ID } else { seg })
            .collect::<Vec<_>>()
            .join("/");
        FormKey {
            page,
            form: form.map(str::to_string),
        }
    }

    /// The form `e`, a field or a button of `page`, belongs to.
    pub fn of_element(page: &Observation, e: &Element) -> FormKey {
        FormKey::of(&page.url, e.form.as_deref())
    }
}

/// The part of a URL that names the page: its path, and a client-side route in the
/// fragment (`#/owners/7`) when there is one; the query is left out.
pub fn route(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => {
            let mut r = u.path().to_string();
            if let Some(f) = u
                .fragment()
                .filter(|f| f.starts_with('/') || f.starts_with('!'))
            {
                r.push('#');
                r.push_str(f);
            }
            r
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or("").to_string(),
    }
}

/// An all-digit path segment, or a UUID-like one (16 or more hex digits, dashes
/// allowed, at least one digit: `3f2a...`, a Mongo ObjectId).
fn is_id(seg: &str) -> bool {
    if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    let hex = seg.bytes().filter(|b| *b != b'-');
    seg.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
        && hex.clone().count() >= 16
        && hex.clone().any(|b| b.is_ascii_digit())
}

/// How a submission of a form went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submission {
    /// The application took the values: the page moved on, or the form was cleared.
    Accepted,
    /// The form still shows the values typed: client or server validation said no.
    Rejected,
    /// The step raised an exception, an HTTP error of the application or an error page.
    Failed,
}

/// Whether `page` shows `typed` in the field at `locator`.
pub fn shows(page: &Observation, locator: &str, typed: &str) -> bool {
    page.element(locator)
        .is_some_and(|e| e.attr("value") == Some(e.shown_after_typing(typed).as_str()))
}

/// The verdict on a click that submitted a form holding `filled` (locator, value typed):
/// the fields the generator filled that still showed its values on `before`.
///
/// - `Failed` when the step raised an exception, an unhandled rejection or a crash, an
///   HTTP status of 400 or more from the application's origin (or the page's own), or
///   the page now shows an error text;
/// - else `Accepted` when the URL's path (or client-side route) changed, or none of the
///   filled fields still shows the value typed (gone, emptied, or rewritten);
/// - else `Rejected`: the form still holds the values, validation kept them there.
///
/// A form that clears itself on rejection reads as accepted; a submission that changes
/// only the query (a search form) too, as the path stayed but the values went.
pub fn judge_submission(
    before: &Observation,
    after: &Observation,
    events: &[Event],
    filled: &[(&str, &str)],
) -> Submission {
    if failed(before, after, events) {
        return Submission::Failed;
    }
    if route(&before.url) != route(&after.url) {
        return Submission::Accepted;
    }
    if filled.iter().any(|(loc, v)| shows(after, loc, v)) {
        Submission::Rejected
    } else {
        Submission::Accepted
    }
}

fn failed(before: &Observation, after: &Observation, events: &[Event]) -> bool {
    let origin = |u: &str| url::Url::parse(u).ok().map(|u| u.origin());
    let app = origin(&before.url);
    let ours = |e: &Event| match e.url.as_deref() {
        Some(u) => app.is_none() || origin(u) == app,
        None => true,
    };
    let fault = events.iter().any(|e| match e.kind {
        EventKind::Exception | EventKind::UnhandledRejection | EventKind::PageCrash => true,
        EventKind::HttpResponse => e.status.is_some_and(|s| s >= 400) && ours(e),
        _ => false,
    });
    fault || after.error_text.is_some() || after.status.is_some_and(|s| s >= 400)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::input;

    fn field(loc: &str, value: Option<&str>) -> Element {
        let mut e = input("text", &[]);
        e.locator = loc.into();
        if let Some(v) = value {
            e.attrs.insert("value".into(), v.into());
        }
        e
    }

    fn page(url: &str, fields: Vec<Element>) -> Observation {
        Observation {
            url: url.into(),
            elements: fields,
            status: Some(200),
            ..Observation::default()
        }
    }

    const FILLED: &[(&str, &str)] = &[("#name", "Ada"), ("#mail", "ada@example.com")];

    fn before() -> Observation {
        page(
            "http://app.test/owners/new",
            vec![
                field("#name", Some("Ada")),
                field("#mail", Some("ada@example.com")),
            ],
        )
    }

    #[test]
    fn forms_are_the_same_across_record_ids() {
        let a = FormKey::of("http://h/owners/1/edit?x=1", Some("#f"));
        let b = FormKey::of("http://h/owners/22/edit", Some("#f"));
        assert_eq!(a, b);
        assert_eq!(a.page, "/owners/:id/edit");
        let uuid = FormKey::of("http://h/pets/3f2a9c1e-0b4d-4e8a-9f1c-2d3e4f5a6b7c", None);
        assert_eq!(uuid.page, "/pets/:id");
        assert_eq!(
            FormKey::of("http://h/#/visits/9", None).page,
            "/#/visits/:id"
        );
        // Words stay words, and another form on the page is another form.
        assert_eq!(
            FormKey::of("http://h/owners/find", None).page,
            "/owners/find"
        );
        assert_eq!(FormKey::of("http://h/cafe", None).page, "/cafe");
        assert_ne!(a, FormKey::of("http://h/owners/1/edit", Some("#g")));
    }

    #[test]
    fn navigating_away_is_accepted() {
        // The record's own page shows the saved values again: the new path says accepted.
        let mut after = before();
        after.url = "http://app.test/owners/12/edit?saved=1".into();
        assert_eq!(
            judge_submission(&before(), &after, &[], FILLED),
            Submission::Accepted
        );
    }

    #[test]
    fn a_form_emptied_in_place_is_accepted() {
        let after = page(
            "http://app.test/owners/new",
            vec![field("#name", Some("")), field("#mail", Some(""))],
        );
        assert_eq!(
            judge_submission(&before(), &after, &[], FILLED),
            Submission::Accepted
        );
        // Fields gone altogether (the form closed) count as emptied.
        let closed = page("http://app.test/owners/new", vec![]);
        assert_eq!(
            judge_submission(&before(), &closed, &[], FILLED),
            Submission::Accepted
        );
    }

    #[test]
    fn a_form_still_showing_our_values_is_rejected() {
        assert_eq!(
            judge_submission(&before(), &before(), &[], FILLED),
            Submission::Rejected
        );
        // A failed login keeps the e-mail and clears the password: still rejected.
        let after = page(
            "http://app.test/owners/new",
            vec![
                field("#name", Some("")),
                field("#mail", Some("ada@example.com")),
            ],
        );
        assert_eq!(
            judge_submission(&before(), &after, &[], FILLED),
            Submission::Rejected
        );
        // A password shows masked, and a value cut at maxlength shows cut.
        let mut pw = input("password", &[("maxlength", "4")]);
        pw.locator = "#pw".into();
        pw.attrs.insert("value".into(), "********".into());
        let mut code = input("text", &[("maxlength", "4")]);
        code.locator = "#code".into();
        code.attrs.insert("value".into(), "abcd".into());
        let p = page("http://app.test/login", vec![pw, code]);
        assert_eq!(
            judge_submission(&p, &p, &[], &[("#pw", "hunter2"), ("#code", "abcdef")]),
            Submission::Rejected
        );
    }

    #[test]
    fn a_server_error_or_an_exception_is_a_failure() {
        let after = page("http://app.test/owners/12", vec![]);
        let e500 = Event::http(500, "http://app.test/owners", false);
        assert_eq!(
            judge_submission(&before(), &after, &[e500], FILLED),
            Submission::Failed
        );
        let thrown = Event::new(EventKind::Exception, "TypeError: x is undefined");
        assert_eq!(
            judge_submission(&before(), &before(), &[thrown], FILLED),
            Submission::Failed
        );
        let mut error_page = after.clone();
        error_page.error_text = Some("Whitelabel Error Page".into());
        assert_eq!(
            judge_submission(&before(), &error_page, &[], FILLED),
            Submission::Failed
        );
        // A 404 from another origin (a tracker) is not the application's.
        let other = Event::http(404, "https://cdn.example.net/x.js", false);
        assert_eq!(
            judge_submission(&before(), &after, &[other], FILLED),
            Submission::Accepted
        );
    }
}
