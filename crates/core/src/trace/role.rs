//! Whether `getByRole(role, { name })` will find an element: the role and accessible name
//! the scan reported must be the ones Playwright computes, which holds only for some tags,
//! roles and sources of the name.

use super::{ElementHint, NameSource};

/// The scan cuts texts and labels at this many characters: a name that long may be cut
/// and would not match exactly.
const SCAN_TEXT_MAX: usize = 100;

/// Roles whose accessible name comes from the element's content (WAI-ARIA "name from
/// content"); for other roles visible text is not the name.
const NAME_FROM_CONTENT: &[&str] = &[
    "button",
    "cell",
    "checkbox",
    "columnheader",
    "gridcell",
    "heading",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "row",
    "rowheader",
    "switch",
    "tab",
    "tooltip",
    "treeitem",
];

/// Tags the scan gives an implicit role that Playwright may not share (or that the
/// scan cannot tell from an explicit one); their role is not trusted.
const UNSURE_IMPLICIT: &[&str] = &[
    "summary", "nav", "form", "table", "ul", "ol", "li", "img", "main", "dialog",
];

/// Whether `s` is shorter than the scan's cut, so it is whole.
pub fn fits(s: &str) -> bool {
    s.chars().count() < SCAN_TEXT_MAX
}

/// Roles of Chromium's tree that Playwright's `getByRole` knows by the same name and
/// computes the same way; others (Chromium's "generic", "image", "date" ...) are left to
/// other locators.
const TREE_ROLES: &[&str] = &[
    "button",
    "checkbox",
    "columnheader",
    "combobox",
    "gridcell",
    "heading",
    "link",
    "listbox",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "row",
    "rowheader",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "textbox",
    "treeitem",
];

fn tree_role_for_playwright(role: &str) -> Option<&str> {
    TREE_ROLES.contains(&role).then_some(role)
}

/// The role Playwright will compute for an input of this type (ARIA in HTML).
fn input_role(input_type: Option<&str>) -> Option<&'static str> {
    Some(match input_type.unwrap_or("text") {
        "text" | "email" | "tel" | "url" => "textbox",
        "search" => "searchbox",
        "number" => "spinbutton",
        "range" => "slider",
        "checkbox" => "checkbox",
        "radio" => "radio",
        "button" | "submit" | "reset" | "image" => "button",
        // password, date and time inputs, file, color, hidden: no role to name them by
        _ => return None,
    })
}

/// The role to use with `getByRole` when the hint's role and accessible name are the
/// ones Playwright will compute, and the name is unique in the page.
pub fn role_with_name(h: &ElementHint) -> Option<&str> {
    let role = h.role.as_deref()?;
    if h.source == NameSource::Tree {
        // The browser computed both and counted the namesakes; Playwright computes the
        // same for the ARIA roles (Chromium spells a few of its own differently).
        return (!h.name.is_empty() && h.same_name == 1)
            .then(|| tree_role_for_playwright(role))
            .flatten();
    }
    if h.name.is_empty() || h.same_name != 1 || !fits(&h.name) {
        return None;
    }
    // The scan reports an implicit role for every tag it knows; make sure it is the one
    // Playwright computes (an explicit role attribute on such a tag would differ).
    let expected = match h.tag.as_str() {
        "input" => input_role(h.input_type.as_deref()),
        "textarea" => Some("textbox"),
        "select" => Some("combobox"),
        "a" => Some("link"),
        "button" => Some("button"),
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Some("heading"),
        t if UNSURE_IMPLICIT.contains(&t) => None,
        _ => Some(role), // no implicit role: the role attribute set it
    };
    if expected != Some(role) {
        return None;
    }
    // Where the name came from decides whether Playwright computes it the same way.
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let from_aria_label = h
        .attrs
        .get("aria-label")
        .is_some_and(|a| collapse(a) == h.name);
    let field = matches!(h.tag.as_str(), "input" | "select" | "textarea");
    let ok = from_aria_label
        || (field && h.name == collapse(&h.label) && h.input_type.as_deref() != Some("image"))
        || (!field && NAME_FROM_CONTENT.contains(&role))
        || (h.tag == "input" && role == "button" && h.name == h.text);
    ok.then_some(role)
}
