//! Which locator names an action's target: the way a user would name it (test id, role
//! and accessible name, label, text) when exactly one element of the page answers to it
//! by Playwright's rules, else wayfarer's CSS locator. Chosen when a step is recorded,
//! from what the page counted just before acting; traces without those counts (older
//! builds, environments without a page) are judged from the scan's approximation.

use super::role::{fits, role_with_name};
use super::ElementHint;
use crate::env::PageNames;
pub use crate::env::{Chosen, LocatorKind};

impl LocatorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LocatorKind::TestId => "testid",
            LocatorKind::Role => "role",
            LocatorKind::Label => "label",
            LocatorKind::Text => "text",
            LocatorKind::Css => "css",
        }
    }
}

impl Chosen {
    fn css() -> Chosen {
        Chosen {
            kind: LocatorKind::Css,
            by: String::new(),
            value: String::new(),
            verified: true,
        }
    }

    fn new(kind: LocatorKind, by: &str, value: &str, verified: bool) -> Chosen {
        Chosen {
            kind,
            by: by.to_string(),
            value: value.to_string(),
            verified,
        }
    }
}

/// Choose the locator for `target` (wayfarer's CSS locator, unique in the page when the
/// action was taken) given how the element looked. Preference: a test id (put there for
/// tests), then role and name, label, text (Playwright's advice), then CSS.
pub fn choose(target: &str, hint: Option<&ElementHint>) -> Chosen {
    // Inside a frame the page-level locators do not look, and the counts are per
    // document: the structural path is the one that surely works. They do pierce shadow
    // roots, which the page's counts include.
    let framed = |h: &ElementHint| h.page.as_ref().is_none_or(|p| p.frame);
    let Some(h) = hint.filter(|h| !target.contains(" >>> ") || !framed(h)) else {
        return Chosen::css();
    };
    match &h.page {
        Some(p) => counted(h, p),
        None => guessed(target, h),
    }
    .unwrap_or_else(Chosen::css)
}

/// From the page's counts: a locator only when exactly one element answers to it.
fn counted(h: &ElementHint, p: &PageNames) -> Option<Chosen> {
    if let Some(t) = p
        .test_ids
        .iter()
        .find(|t| t.same == 1 && !t.value.is_empty())
    {
        return Some(Chosen::new(LocatorKind::TestId, &t.attr, &t.value, true));
    }
    if let Some(role) = role_with_name(h) {
        return Some(Chosen::new(LocatorKind::Role, role, &h.name, true));
    }
    if p.same_label == 1 && !p.label.is_empty() {
        return Some(Chosen::new(LocatorKind::Label, "", &p.label, true));
    }
    if p.same_text == 1 && !p.text.is_empty() {
        return Some(Chosen::new(LocatorKind::Text, "", &p.text, true));
    }
    None
}

/// From the scan's approximation (no counts from the page).
fn guessed(target: &str, h: &ElementHint) -> Option<Chosen> {
    for attr in crate::env::TEST_ID_ATTRS {
        if let Some(id) = h.attrs.get(*attr).filter(|v| !v.is_empty()) {
            if test_id_unique(target, attr, id) {
                return Some(Chosen::new(LocatorKind::TestId, attr, id, false));
            }
        }
    }
    if let Some(role) = role_with_name(h) {
        let verified = h.source == super::NameSource::Tree;
        return Some(Chosen::new(LocatorKind::Role, role, &h.name, verified));
    }
    let field = matches!(h.tag.as_str(), "input" | "select" | "textarea");
    if field && h.same_label == 1 && !h.label.is_empty() && fits(&h.label) {
        return Some(Chosen::new(LocatorKind::Label, "", &h.label, false));
    }
    None
}

/// The locator of a step's `target`: the one chosen when the step was recorded, else one
/// chosen now from its hint.
pub fn chosen(target: &str, hint: Option<&ElementHint>) -> Chosen {
    hint.and_then(|h| h.locator.clone())
        .unwrap_or_else(|| choose(target, hint))
}

/// Whether `c`, a step's locator, finds exactly the element a replay of the step acted on
/// and nothing else, as Playwright would: `now` is that element's hint named from what
/// the page said just before acting. A count the page did not give passes (it cannot be
/// judged); the error says what the locator finds now.
pub fn finds_now(c: &Chosen, now: &ElementHint) -> Result<(), String> {
    let page = now.page.as_ref();
    let one = |n: u32, what: &str| match n {
        0 | 1 => Ok(()),
        n => Err(format!("{what} matches {n} elements")),
    };
    match c.kind {
        LocatorKind::Css => one(page.map_or(0, |p| p.same_path), "the CSS path"),
        LocatorKind::Role => {
            let role = now.role.as_deref().unwrap_or("");
            if role != c.by || now.name != c.value {
                return Err(format!(
                    "{} {:?} is not the element acted on (that is {} {:?})",
                    c.by, c.value, role, now.name
                ));
            }
            one(now.same_name, &format!("{} {:?}", c.by, c.value))
        }
        LocatorKind::TestId => {
            let Some(p) = page else { return Ok(()) };
            match p
                .test_ids
                .iter()
                .find(|t| t.attr == c.by && t.value == c.value)
            {
                Some(t) => one(t.same, &format!("test id {:?}", c.value)),
                None => Err(format!(
                    "test id {:?} is not on the element acted on",
                    c.value
                )),
            }
        }
        LocatorKind::Label => {
            let Some(p) = page else { return Ok(()) };
            if p.label != c.value {
                return Err(format!("label {:?} is not the element acted on", c.value));
            }
            one(p.same_label, &format!("label {:?}", c.value))
        }
        LocatorKind::Text => {
            let Some(p) = page else { return Ok(()) };
            if p.text != c.value {
                return Err(format!("text {:?} is not the element acted on", c.value));
            }
            one(p.same_text, &format!("text {:?}", c.value))
        }
    }
}

/// Whether a test id can name the element alone, judged from its CSS locator: the scan
/// uses a unique id first and a unique `data-testid` second, so a `data-testid` element
/// whose locator is a structural path has a test id that others share.
fn test_id_unique(target: &str, attr: &str, id: &str) -> bool {
    if attr != "data-testid" {
        return true; // the scan does not count other attributes; trust them
    }
    let by_id = target.starts_with('#') && !target.contains([' ', '>', '[', ':', '.']);
    let escaped = id.replace('\\', "\\\\").replace('"', "\\\"");
    let by_test_id = target == format!("[data-testid=\"{escaped}\"]");
    by_id || by_test_id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::TestId;

    fn hint(tag: &str, role: Option<&str>, name: &str) -> ElementHint {
        ElementHint {
            tag: tag.into(),
            role: role.map(str::to_string),
            name: name.into(),
            text: name.into(),
            same_name: 1,
            ..ElementHint::default()
        }
    }

    fn field(input_type: &str, label: &str, same_label: u32) -> ElementHint {
        ElementHint {
            tag: "input".into(),
            role: Some("textbox".into()),
            input_type: Some(input_type.into()),
            label: label.into(),
            name: label.into(),
            same_name: same_label,
            same_label,
            ..ElementHint::default()
        }
    }

    fn pick(target: &str, h: &ElementHint) -> (LocatorKind, String, String) {
        let c = choose(target, Some(h));
        (c.kind, c.by, c.value)
    }

    fn kind(target: &str, h: &ElementHint) -> LocatorKind {
        choose(target, Some(h)).kind
    }

    #[test]
    fn unique_role_and_name_wins_over_css() {
        let l = pick(
            "#nav > a:nth-of-type(2)",
            &hint("a", Some("link"), "Find owners"),
        );
        assert_eq!(l, (LocatorKind::Role, "link".into(), "Find owners".into()));
        let b = pick(
            "form > button",
            &hint("button", Some("button"), "Add Owner"),
        );
        assert_eq!(b, (LocatorKind::Role, "button".into(), "Add Owner".into()));
    }

    #[test]
    fn shared_names_fall_back_to_css() {
        let mut h = hint("button", Some("button"), "Delete");
        h.same_name = 3;
        assert_eq!(
            kind("tr:nth-of-type(2) > td > button", &h),
            LocatorKind::Css
        );
    }

    #[test]
    fn test_ids_come_first_when_unique() {
        let mut h = hint("button", Some("button"), "Save");
        h.attrs.insert("data-testid".into(), "save".into());
        assert_eq!(
            pick("[data-testid=\"save\"]", &h),
            (LocatorKind::TestId, "data-testid".into(), "save".into())
        );
        assert_eq!(kind("#save-btn", &h), LocatorKind::TestId);
        // The scan would have used a unique data-testid: this one is shared.
        assert_eq!(
            kind("ul > li:nth-of-type(3) > button", &h),
            LocatorKind::Role
        );
        // Another attribute is trusted when nothing counted it.
        let mut d = hint("div", None, "");
        d.attrs.insert("data-test".into(), "tile-'x'".into());
        assert_eq!(
            pick("div > div", &d),
            (LocatorKind::TestId, "data-test".into(), "tile-'x'".into())
        );
    }

    #[test]
    fn fields_by_role_or_label() {
        let email = field("email", "E-mail (optional)", 1);
        assert_eq!(
            pick("#email", &email),
            (
                LocatorKind::Role,
                "textbox".into(),
                "E-mail (optional)".into()
            )
        );
        // Playwright gives password and date inputs no role: the label names them.
        assert_eq!(
            pick("#pw", &field("password", "Password", 1)),
            (LocatorKind::Label, String::new(), "Password".into())
        );
        assert_eq!(
            kind("#birth", &field("date", "Birth Date", 1)),
            LocatorKind::Label
        );
        // Two fields labelled alike: structural.
        assert_eq!(kind("#a", &field("text", "Name", 2)), LocatorKind::Css);
    }

    #[test]
    fn roles_playwright_would_compute_differently_are_not_used() {
        // A text input with an explicit role: the scan says combobox, the tag says textbox.
        let mut c = field("text", "Country", 1);
        c.role = Some("combobox".into());
        assert_eq!(kind("#country", &c), LocatorKind::Label);
        // A list item's text is not its accessible name.
        assert_eq!(
            kind("ul > li", &hint("li", Some("listitem"), "Rex")),
            LocatorKind::Css
        );
        // A div with an explicit button role is named by its content.
        assert_eq!(
            kind("div.tile", &hint("div", Some("button"), "Other")),
            LocatorKind::Role
        );
        // ... but a region's text is not its name, unless aria-label says so.
        let mut r = hint("div", Some("region"), "Totals");
        assert_eq!(kind("#totals", &r), LocatorKind::Css);
        r.attrs.insert("aria-label".into(), "Totals".into());
        assert_eq!(kind("#totals", &r), LocatorKind::Role);
    }

    #[test]
    fn names_the_scan_may_have_cut_are_not_matched_exactly() {
        let long = "x".repeat(100);
        assert_eq!(
            kind("a.more", &hint("a", Some("link"), &long)),
            LocatorKind::Css
        );
    }

    #[test]
    fn frames_keep_the_structural_path() {
        let mut h = hint("button", Some("button"), "Inner");
        h.source = crate::trace::NameSource::Tree;
        // Uncounted: a frame or a shadow root, no telling which.
        assert_eq!(kind("#frame >>> #inner-button", &h), LocatorKind::Css);
        assert_eq!(choose("#x", None).kind, LocatorKind::Css);
        h.page = Some(PageNames {
            frame: true,
            ..PageNames::default()
        });
        assert_eq!(kind("#frame >>> #inner-button", &h), LocatorKind::Css);
        // A shadow root of the page: Playwright's locators pierce it.
        h.page.as_mut().unwrap().frame = false;
        assert_eq!(kind("#host >>> #inner-button", &h), LocatorKind::Role);
    }

    fn counted_hint(page: PageNames) -> ElementHint {
        let mut h = hint("div", None, "");
        h.page = Some(page);
        h
    }

    #[test]
    fn counted_locators_need_exactly_one_match() {
        // A test id the page counted twice is not used, whatever the scan's locator says.
        let tid = |same| TestId {
            attr: "data-cy".into(),
            value: "save".into(),
            same,
        };
        let h = counted_hint(PageNames {
            test_ids: vec![tid(2)],
            ..PageNames::default()
        });
        assert_eq!(kind("[data-cy=\"save\"]", &h), LocatorKind::Css);
        let h = counted_hint(PageNames {
            test_ids: vec![tid(1)],
            ..PageNames::default()
        });
        assert_eq!(
            pick("div > div", &h),
            (LocatorKind::TestId, "data-cy".into(), "save".into())
        );
        // Text when nothing else names it, and only when unique.
        let text = |same_text| {
            counted_hint(PageNames {
                text: "Drag me".into(),
                same_text,
                ..PageNames::default()
            })
        };
        assert_eq!(
            pick("#board > div:nth-of-type(3)", &text(1)),
            (LocatorKind::Text, String::new(), "Drag me".into())
        );
        assert_eq!(
            kind("#board > div:nth-of-type(3)", &text(2)),
            LocatorKind::Css
        );
        // A counted label beats text; a shared one does not.
        let mut l = counted_hint(PageNames {
            label: "Notes".into(),
            same_label: 1,
            text: "x".into(),
            same_text: 1,
            ..PageNames::default()
        });
        assert_eq!(kind("textarea", &l), LocatorKind::Label);
        l.page.as_mut().unwrap().same_label = 2;
        assert_eq!(kind("textarea", &l), LocatorKind::Text);
        // The scan's label is not trusted once the page counted: a guess would say Label.
        let mut f = field("text", "Name", 1);
        f.role = None;
        f.page = Some(PageNames::default());
        assert_eq!(kind("#a", &f), LocatorKind::Css);
    }

    #[test]
    fn a_recorded_choice_wins_over_a_new_one() {
        let mut h = hint("button", Some("button"), "Save");
        assert_eq!(chosen("#s", Some(&h)).kind, LocatorKind::Role);
        h.locator = Some(Chosen::css());
        assert_eq!(chosen("#s", Some(&h)).kind, LocatorKind::Css);
    }

    #[test]
    fn a_locator_finds_now_only_the_element_acted_on() {
        let role = Chosen::new(LocatorKind::Role, "link", "Lift passes", true);
        let mut now = hint("a", Some("link"), "Lift passes");
        assert_eq!(finds_now(&role, &now), Ok(()));
        // Two such links now: Playwright's strict locator refuses.
        now.same_name = 2;
        assert!(finds_now(&role, &now).unwrap_err().contains("matches 2"));
        // The path found another link: the role locator would not find this one.
        let other = hint("a", Some("link"), "Groceries");
        assert!(finds_now(&role, &other)
            .unwrap_err()
            .contains("not the element acted on"));

        let css = Chosen::css();
        let mut at = counted_hint(PageNames {
            same_path: 1,
            ..PageNames::default()
        });
        assert_eq!(finds_now(&css, &at), Ok(()));
        at.page.as_mut().unwrap().same_path = 3;
        assert_eq!(
            finds_now(&css, &at),
            Err("the CSS path matches 3 elements".into())
        );
        // Not counted (an older page script, no answer): nothing to judge by.
        at.page = None;
        assert_eq!(finds_now(&css, &at), Ok(()));

        let text = Chosen::new(LocatorKind::Text, "", "Open", true);
        let mut t = counted_hint(PageNames {
            text: "Open".into(),
            same_text: 1,
            ..PageNames::default()
        });
        assert_eq!(finds_now(&text, &t), Ok(()));
        t.page.as_mut().unwrap().text = "Close".into();
        assert!(finds_now(&text, &t).is_err());

        let tid = Chosen::new(LocatorKind::TestId, "data-testid", "save", true);
        let ids = |same| {
            counted_hint(PageNames {
                test_ids: vec![TestId {
                    attr: "data-testid".into(),
                    value: "save".into(),
                    same,
                }],
                ..PageNames::default()
            })
        };
        assert_eq!(finds_now(&tid, &ids(1)), Ok(()));
        assert!(finds_now(&tid, &ids(2)).is_err());
        assert!(finds_now(&tid, &counted_hint(PageNames::default())).is_err());
    }
}
