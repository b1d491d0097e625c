//! The offline inferrer: feature labels from what the page says, no model. A form's
//! submit (or a field of it) is the form's feature ("Add Owner"; "New expense (Save)"
//! when the button only says "Save"); a button or a link whose name starts with a verb is
//! its own feature ("Log out", "Export"); other links are "View <name>"; other clickables
//! are "<name> (<page>)" ("By month (Reports)"); a field typed into that nothing sent is
//! a feature when its name starts with a verb ("Filter expenses"). Links home are a way somewhere, not a
//! feature. Asked after a previous action, a button's answer adds the previous action's
//! feature second: the previous action led here, and what is done here may be part of it.

use wayfarer_core::ActionKind;

use crate::model::{ActionFacts, FeatureQuestion, Inferrer};

/// Buttons whose name says nothing of what they do without their page.
const GENERIC: &[&str] = &[
    "save", "submit", "ok", "send", "go", "next", "confirm", "continue", "apply", "update", "done",
    "create", "add", "delete", "remove", "edit", "cancel", "close", "yes", "no", "back",
];

/// Names that start with one of these do something.
const VERBS: &[&str] = &[
    "add", "create", "new", "edit", "update", "delete", "remove", "log", "login", "logout", "sign",
    "register", "export", "import", "download", "upload", "search", "find", "filter", "settle",
    "confirm", "save", "submit", "send", "reset", "clear", "rename", "archive", "restore", "share",
    "invite", "pay", "book", "schedule", "contact", "mark", "move", "sort", "open", "view", "show",
    "choose", "select", "record", "set", "change", "fill", "start",
];

/// Links that lead back to where one starts.
const HOME: &[&str] = &["home", "dashboard", "welcome", "start page", "main page"];

/// Where a link home points.
const HOME_HREFS: &[&str] = &["/", "#", "#/", "./", "index.html", "/index.html"];

/// Buttons that abandon what is being done: a way out, not a feature.
const ABANDON: &[&str] = &["cancel", "close", "back", "dismiss", "never mind"];

/// The heuristic inferrer.
#[derive(Clone, Copy, Debug, Default)]
pub struct Heuristic;

impl Inferrer for Heuristic {
    fn features(&mut self, q: &FeatureQuestion<'_>) -> Vec<String> {
        let mut out = labels(&q.action.facts, q.context);
        // A link leads somewhere else; a button or a form goes on with what led here
        // (links in every page's menu would otherwise count against every feature).
        let link = q.action.facts.role.as_deref() == Some("link");
        if let Some(prev) = q.previous {
            if !out.is_empty() && !link {
                for l in labels(&prev.facts, q.previous_context) {
                    if !out.contains(&l) {
                        out.push(l);
                    }
                }
            }
        }
        out.truncate(q.r);
        out
    }
}

/// The page a context line names: a title without the application's suffix
/// ("Find owners · PetClinic" is "Find owners").
pub fn page_subject(title: &str, url: &str) -> String {
    let first = [" · ", " | ", " — ", " - "]
        .iter()
        .filter_map(|sep| title.split_once(sep).map(|(a, _)| a))
        .min_by_key(|a| a.len())
        .unwrap_or(title)
        .trim();
    if !first.is_empty() {
        return first.to_string();
    }
    // No title: the last meaningful path segment.
    let path = url.split(['?', '#']).next().unwrap_or("");
    let path = match path.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, p)| p),
        None => path,
    };
    path.rsplit('/')
        .find(|s| !s.is_empty() && !s.contains(':') && !s.chars().all(|c| c.is_ascii_digit()))
        .map(|s| s.replace(['-', '_'], " "))
        .unwrap_or_else(|| "start page".to_string())
}

/// Icons that stand for a word: a control named by one of these alone says it.
const GLYPHS: &[(&str, &str)] = &[
    ("×", "Delete"),
    ("✕", "Delete"),
    ("✖", "Delete"),
    ("🗑", "Delete"),
    ("→", "Move right"),
    ("←", "Move left"),
    ("↑", "Move up"),
    ("↓", "Move down"),
    ("✎", "Edit"),
    ("✏", "Edit"),
    ("+", "Add"),
    ("⋯", "Open menu"),
    ("…", "Open menu"),
    ("⋮", "Open menu"),
    ("☰", "Open menu"),
];

/// What one action is part of, most likely first (`context`: the page's subject; empty
/// when only the action's own name may be used).
fn labels(f: &ActionFacts, context: &str) -> Vec<String> {
    let glyph = GLYPHS.iter().find(|(g, _)| f.name.trim() == *g);
    let name = glyph.map_or_else(|| clean(&f.name), |(_, word)| word.to_string());
    if name.is_empty() {
        return Vec::new();
    }
    let lower = name.to_lowercase();
    let first = lower.split_whitespace().next().unwrap_or("");
    match f.kind {
        Some(ActionKind::Click | ActionKind::Submit) => {}
        // A field typed into on its own (nothing sent it) is a feature when its name
        // says what it does ("Filter expenses", "Search").
        Some(ActionKind::Type | ActionKind::Select) if VERBS.contains(&first) => {
            return vec![name];
        }
        _ => return Vec::new(),
    }
    if ABANDON.contains(&lower.as_str()) || lower.starts_with("back to ") {
        return Vec::new();
    }
    let generic = GENERIC.contains(&lower.as_str());
    let with_page = |n: &str| {
        if context.is_empty() {
            n.to_string()
        } else {
            format!("{n} ({context})")
        }
    };
    let label = if !f.fields.is_empty() || generic {
        // A form's submit, or a button that needs its page to say what it does.
        if generic && !context.is_empty() {
            format!("{context} ({name})")
        } else {
            name.clone()
        }
    } else if f.role.as_deref() == Some("link") {
        let home_href = f.href.as_deref().is_some_and(|h| HOME_HREFS.contains(&h));
        if HOME.contains(&lower.as_str()) || home_href {
            return Vec::new();
        }
        if VERBS.contains(&first) {
            name.clone()
        } else {
            format!("View {name}")
        }
    } else if VERBS.contains(&first) {
        name.clone()
    } else {
        with_page(&name)
    };
    vec![label]
}

/// A name as a label: whitespace collapsed, decorations dropped ("Next →", "× Delete").
fn clean(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ActionText;

    fn facts(role: &str, name: &str, fields: &[&str]) -> ActionText {
        ActionText {
            key: name.into(),
            text: String::new(),
            facts: ActionFacts {
                kind: Some(ActionKind::Click),
                role: Some(role.into()),
                name: name.into(),
                fields: fields.iter().map(|s| s.to_string()).collect(),
                ..ActionFacts::default()
            },
        }
    }

    fn ask(a: &ActionText, prev: Option<&ActionText>, context: &str) -> Vec<String> {
        Heuristic.features(&FeatureQuestion {
            app: "",
            context,
            action: a,
            previous: prev,
            previous_context: "Home",
            r: 5,
        })
    }

    #[test]
    fn labels_name_what_a_person_would() {
        let submit = facts("button", "Add Owner", &["First Name", "City"]);
        assert_eq!(ask(&submit, None, "New owner"), vec!["Add Owner"]);
        let save = facts("button", "Save", &["Amount"]);
        assert_eq!(ask(&save, None, "New expense"), vec!["New expense (Save)"]);
        let logout = facts("link", "Log out", &[]);
        assert_eq!(ask(&logout, None, "Dashboard"), vec!["Log out"]);
        let vets = facts("link", "Veterinarians", &[]);
        assert_eq!(ask(&vets, None, "Home"), vec!["View Veterinarians"]);
        let home = facts("link", " Home ", &[]);
        assert!(ask(&home, None, "Owners").is_empty());
        // A control named by an icon alone is named by what the icon says.
        let cross = facts("button", "×", &[]);
        assert_eq!(ask(&cross, None, "Launch"), vec!["Launch (Delete)"]);
        let arrow = facts("button", " → ", &[]);
        assert_eq!(ask(&arrow, None, "Launch"), vec!["Move right"]);
        let chip = facts("button", "By month", &[]);
        assert_eq!(ask(&chip, None, "Reports"), vec!["By month (Reports)"]);
        let next = facts("button", "Next →", &[]);
        assert_eq!(
            ask(&next, None, "Budget wizard"),
            vec!["Budget wizard (Next)"]
        );
        let mut typed = facts("textbox", "City", &[]);
        typed.facts.kind = Some(ActionKind::Type);
        assert!(ask(&typed, None, "New owner").is_empty());
        let mut filter = facts("textbox", "Filter expenses", &[]);
        filter.facts.kind = Some(ActionKind::Type);
        assert_eq!(ask(&filter, None, "Dashboard"), vec!["Filter expenses"]);
    }

    #[test]
    fn after_a_previous_action_its_feature_comes_second() {
        let reports = facts("link", "Reports", &[]);
        let by_month = facts("button", "By month", &[]);
        assert_eq!(
            ask(&by_month, Some(&reports), "Reports"),
            vec!["By month (Reports)", "View Reports"]
        );
        // Nothing to say about the action: nothing about the previous one either.
        let home = facts("link", "Home", &[]);
        assert!(ask(&home, Some(&reports), "Reports").is_empty());
        // A link goes elsewhere: only its own feature.
        let vets = facts("link", "Veterinarians", &[]);
        assert_eq!(
            ask(&vets, Some(&reports), "Reports"),
            vec!["View Veterinarians"]
        );
        // The same feature twice is listed once.
        let add = facts("link", "Add Owner", &[]);
        let submit = facts("button", "Add Owner", &["City"]);
        assert_eq!(ask(&submit, Some(&add), "New owner"), vec!["Add Owner"]);
    }

    #[test]
    fn the_page_subject_comes_from_the_title_or_the_path() {
        assert_eq!(page_subject("Find owners · PetClinic", ""), "Find owners");
        assert_eq!(page_subject("Reports | Expenses - Demo", ""), "Reports");
        assert_eq!(page_subject("", "http://h/owners/12/pets/new?x=1"), "new");
        assert_eq!(page_subject("", "http://h/owners/12"), "owners");
        assert_eq!(page_subject("", "http://h/"), "start page");
    }
}
