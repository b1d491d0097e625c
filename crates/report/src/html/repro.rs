//! "Steps to reproduce": a failure's trace written as sentences a person can follow
//! ("Type "a@b" into textbox "E-mail""), naming elements the way the page shows them.

use serde::Serialize;
use wayfarer_core::trace::{ElementHint, TraceStep};
use wayfarer_core::ActionKind;

use super::text::{short_url, shorten_value, truncate};

/// One piece of a sentence; `class` picks its look in the template (plain text, a typed
/// value, an element, a CSS locator or a URL).
#[derive(Debug, Serialize, PartialEq)]
pub struct Part {
    pub text: String,
    pub class: &'static str,
}

/// One numbered step; `page` is set when the page differs from the previous step's.
#[derive(Debug, Serialize)]
pub struct ReproStep {
    pub page: Option<String>,
    pub parts: Vec<Part>,
}

fn part(text: impl Into<String>, class: &'static str) -> Part {
    Part {
        text: text.into(),
        class,
    }
}

/// The steps of `trace`, opening with the page the first action was taken on.
pub fn steps(trace: &[TraceStep]) -> Vec<ReproStep> {
    let mut out = Vec::new();
    let mut page = "";
    for (i, st) in trace.iter().enumerate() {
        let changed = !st.url.is_empty() && st.url != page;
        if i == 0 && changed {
            out.push(ReproStep {
                page: None,
                parts: vec![part("Open ", "t"), part(truncate(&st.url, 200), "url")],
            });
        }
        out.push(ReproStep {
            page: (i > 0 && changed).then(|| truncate(page_of(page, &st.url), 120)),
            parts: sentence(st),
        });
        if !st.url.is_empty() {
            page = &st.url;
        }
    }
    out
}

/// `url` as the path alone when it is on the origin of `prev` (less to read), else whole.
fn page_of<'a>(prev: &str, url: &'a str) -> &'a str {
    let origin = |u: &str| u.len() - short_url(u).len();
    let (a, b) = (origin(prev), origin(url));
    if a > 0 && prev[..a] == url[..b] {
        short_url(url)
    } else {
        url
    }
}

/// One action as a sentence.
pub fn sentence(st: &TraceStep) -> Vec<Part> {
    let a = &st.action;
    let value = a.value.as_deref().unwrap_or("");
    let quoted = || part(format!("\"{}\"", shorten_value(value, 40)), "v");
    let el = || element(st.element.as_ref(), a.target.as_deref());
    let mut parts = match a.kind {
        ActionKind::Click => vec![part("Click ", "t")],
        ActionKind::DoubleClick => vec![part("Double-click ", "t")],
        ActionKind::Type if value.is_empty() => vec![part("Clear ", "t")],
        ActionKind::Type => vec![part("Type ", "t"), quoted(), part(" into ", "t")],
        ActionKind::Select => vec![part("Select ", "t"), quoted(), part(" in ", "t")],
        ActionKind::Check => vec![part("Toggle ", "t")],
        ActionKind::Hover => vec![part("Hover over ", "t")],
        ActionKind::ContextMenu => vec![part("Right-click ", "t")],
        ActionKind::Upload => vec![part("Upload ", "t"), quoted(), part(" into ", "t")],
        ActionKind::Press if a.target.is_none() => {
            return vec![part("Press ", "t"), part(shorten_value(value, 20), "v")]
        }
        ActionKind::Press => vec![
            part("Press ", "t"),
            part(shorten_value(value, 20), "v"),
            part(" in ", "t"),
        ],
        ActionKind::Submit => vec![part("Submit the form of ", "t")],
        ActionKind::Back => return vec![part("Go back", "t")],
        ActionKind::Scroll if a.target.is_none() => return vec![part("Scroll down the page", "t")],
        ActionKind::Scroll => vec![part("Scroll down in ", "t")],
        ActionKind::Drag => {
            let mut p = vec![part("Drag ", "t")];
            p.extend(el());
            p.push(part(" onto ", "t"));
            p.push(part(truncate(value, 80), "v"));
            return p;
        }
        ActionKind::Navigate => {
            return vec![part("Go to ", "t"), part(truncate(value, 200), "url")];
        }
        ActionKind::Spec => {
            let said = wayfarer_core::spec_action::SpecAction::of(a)
                .map(|s| s.describe())
                .unwrap_or_else(|e| e.0);
            let mut c = said.chars();
            let said = c
                .next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default();
            return vec![part(said, "t")];
        }
    };
    parts.extend(el());
    parts
}

/// The element as "button "Save"" when it has a name a reader can find on the page,
/// else by its CSS locator.
fn element(hint: Option<&ElementHint>, locator: Option<&str>) -> Vec<Part> {
    let locator = locator.unwrap_or("");
    let Some(h) = hint else {
        return vec![
            part("the element ", "t"),
            part(truncate(locator, 120), "loc"),
        ];
    };
    let noun = h
        .role
        .clone()
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| h.tag.clone());
    let attr = |k: &str| h.attrs.get(k).map(String::as_str).unwrap_or("");
    let name = [
        h.name.as_str(),
        h.label.as_str(),
        h.text.as_str(),
        attr("aria-label"),
        attr("placeholder"),
    ]
    .into_iter()
    .map(str::trim)
    .find(|s| !s.is_empty());
    match name {
        Some(n) => {
            let n = n.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut parts = vec![part(format!("{noun} \"{}\"", truncate(&n, 60)), "el")];
            // Two elements with one name: the locator tells them apart.
            if h.same_name > 1 && !locator.is_empty() {
                parts.push(part(" ", "t"));
                parts.push(part(truncate(locator, 120), "loc"));
            }
            parts
        }
        None => vec![
            part(format!("{noun} "), "el"),
            part(truncate(locator, 120), "loc"),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::Action;

    fn text(parts: &[Part]) -> String {
        parts.iter().map(|p| p.text.as_str()).collect()
    }

    fn hint(role: &str, name: &str) -> ElementHint {
        ElementHint {
            tag: "input".into(),
            role: Some(role.into()),
            name: name.into(),
            same_name: 1,
            ..ElementHint::default()
        }
    }

    #[test]
    fn writes_actions_for_humans() {
        let st = |action, element, url: &str| TraceStep {
            action,
            element,
            url: url.into(),
        };
        let trace = vec![
            st(
                Action::on(ActionKind::Type, "#mail").with_value("a@b"),
                Some(hint("textbox", "E-mail")),
                "http://app/",
            ),
            st(
                Action::on(ActionKind::Type, "#bio").with_value("x".repeat(201)),
                None,
                "http://app/",
            ),
            st(Action::back(), None, "http://app/next"),
        ];
        let s = steps(&trace);
        assert_eq!(text(&s[0].parts), "Open http://app/");
        assert_eq!(text(&s[1].parts), "Type \"a@b\" into textbox \"E-mail\"");
        assert!(text(&s[2].parts).contains("… (201 chars)\" into the element #bio"));
        assert_eq!(s[3].page.as_deref(), Some("/next"));
        assert_eq!(text(&s[3].parts), "Go back");
    }
}
