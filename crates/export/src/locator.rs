//! Which Playwright locator names an action's target: the way a user would name it
//! (test id, role and accessible name, label) when the trace says that name is
//! unambiguous and Playwright will compute the same one, else wayfarer's CSS locator.

use wayfarer_core::trace::ElementHint;

use crate::role::{fits, role_with_name};
use crate::ts::str_lit;

/// Attributes that hold test ids, in the order preferred for `testIdAttribute`.
pub const TEST_ID_ATTRS: &[&str] = &["data-testid", "data-test-id", "data-test"];

/// How a locator names its element (reported, and asserted on by tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LocatorKind {
    TestId,
    Role,
    Label,
    Css,
}

/// A locator expression on `page`, e.g. `page.getByRole('button', { name: 'Save', exact: true })`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locator {
    pub kind: LocatorKind,
    pub code: String,
}

/// Choose the locator for `target` (wayfarer's CSS locator, unique in the page when the
/// action was taken) given how the element looked; `test_id_attr` is the configured
/// `testIdAttribute`.
pub fn choose(target: &str, hint: Option<&ElementHint>, test_id_attr: &str) -> Locator {
    let css = css(target);
    // Inside a shadow root or a frame: the page-level semantic locators cannot tell
    // which, so the structural path is the one that surely works for shadow roots.
    let Some(h) = hint.filter(|_| !target.contains(" >>> ")) else {
        return css;
    };
    if let Some(id) = h.attrs.get(test_id_attr).filter(|v| !v.is_empty()) {
        if test_id_unique(target, test_id_attr, id) {
            return Locator {
                kind: LocatorKind::TestId,
                code: format!("page.getByTestId({})", str_lit(id)),
            };
        }
    }
    if let Some(role) = role_with_name(h) {
        return Locator {
            kind: LocatorKind::Role,
            code: format!(
                "page.getByRole({}, {{ name: {}, exact: true }})",
                str_lit(role),
                str_lit(&h.name)
            ),
        };
    }
    let field = matches!(h.tag.as_str(), "input" | "select" | "textarea");
    if field && h.same_label == 1 && !h.label.is_empty() && fits(&h.label) {
        return Locator {
            kind: LocatorKind::Label,
            code: format!("page.getByLabel({}, {{ exact: true }})", str_lit(&h.label)),
        };
    }
    css
}

/// `page.locator(css)`, or for a path through shadow roots and frames the list of its
/// selectors, which `app.find` resolves as the page is now (a frame is entered, a shadow
/// host is not: the export cannot tell them apart).
fn css(target: &str) -> Locator {
    let parts: Vec<&str> = target.split(" >>> ").collect();
    let code = if parts.len() == 1 {
        format!("page.locator({})", str_lit(target))
    } else {
        let lits: Vec<String> = parts.iter().map(|p| str_lit(p)).collect();
        format!("[{}]", lits.join(", "))
    };
    Locator {
        kind: LocatorKind::Css,
        code,
    }
}

/// Whether a test id can name the element alone. The scan's locator uses a unique id
/// first and a unique `data-testid` second, so a `data-testid` element whose locator is
/// a structural path has a test id that others share.
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

    fn pick(target: &str, h: &ElementHint) -> Locator {
        choose(target, Some(h), "data-testid")
    }

    #[test]
    fn unique_role_and_name_wins_over_css() {
        let l = pick(
            "#nav > a:nth-of-type(2)",
            &hint("a", Some("link"), "Find owners"),
        );
        assert_eq!(l.kind, LocatorKind::Role);
        assert_eq!(
            l.code,
            "page.getByRole('link', { name: 'Find owners', exact: true })"
        );
        let b = pick(
            "form > button",
            &hint("button", Some("button"), "Add Owner"),
        );
        assert_eq!(
            b.code,
            "page.getByRole('button', { name: 'Add Owner', exact: true })"
        );
    }

    #[test]
    fn shared_names_fall_back_to_css() {
        let mut h = hint("button", Some("button"), "Delete");
        h.same_name = 3;
        let l = pick("tr:nth-of-type(2) > td > button", &h);
        assert_eq!(l.kind, LocatorKind::Css);
        assert_eq!(l.code, "page.locator('tr:nth-of-type(2) > td > button')");
    }

    #[test]
    fn test_ids_come_first_when_unique() {
        let mut h = hint("button", Some("button"), "Save");
        h.attrs.insert("data-testid".into(), "save".into());
        assert_eq!(
            pick("[data-testid=\"save\"]", &h).code,
            "page.getByTestId('save')"
        );
        assert_eq!(pick("#save-btn", &h).kind, LocatorKind::TestId);
        // The scan would have used a unique data-testid: this one is shared.
        assert_eq!(
            pick("ul > li:nth-of-type(3) > button", &h).kind,
            LocatorKind::Role
        );
        // Another configured attribute is trusted.
        let mut d = hint("div", None, "");
        d.attrs.insert("data-test".into(), "tile-'x'".into());
        assert_eq!(
            choose("div > div", Some(&d), "data-test").code,
            r#"page.getByTestId("tile-'x'")"#
        );
        assert_eq!(
            choose("div > div", Some(&d), "data-testid").kind,
            LocatorKind::Css
        );
    }

    #[test]
    fn fields_by_role_or_label() {
        let email = field("email", "E-mail (optional)", 1);
        assert_eq!(
            pick("#email", &email).code,
            "page.getByRole('textbox', { name: 'E-mail (optional)', exact: true })"
        );
        // Playwright gives password and date inputs no role: the label names them.
        let pw = field("password", "Password", 1);
        assert_eq!(
            pick("#pw", &pw).code,
            "page.getByLabel('Password', { exact: true })"
        );
        let date = field("date", "Birth Date", 1);
        assert_eq!(pick("#birth", &date).kind, LocatorKind::Label);
        // Two fields labelled alike: structural.
        assert_eq!(pick("#a", &field("text", "Name", 2)).kind, LocatorKind::Css);
        // A number input the scan calls textbox: the role is not Playwright's.
        let mut n = field("number", "Amount", 2);
        n.same_label = 2;
        assert_eq!(pick("#amount", &n).kind, LocatorKind::Css);
    }

    #[test]
    fn roles_playwright_would_compute_differently_are_not_used() {
        // A text input with an explicit role: the scan says combobox, the tag says textbox.
        let mut c = field("text", "Country", 1);
        c.role = Some("combobox".into());
        assert_eq!(pick("#country", &c).kind, LocatorKind::Label);
        // A list item's text is not its accessible name.
        assert_eq!(
            pick("ul > li", &hint("li", Some("listitem"), "Rex")).kind,
            LocatorKind::Css
        );
        // A div with an explicit button role is named by its content.
        assert_eq!(
            pick("div.tile", &hint("div", Some("button"), "Other")).kind,
            LocatorKind::Role
        );
        // ... but a region's text is not its name, unless aria-label says so.
        let mut r = hint("div", Some("region"), "Totals");
        assert_eq!(pick("#totals", &r).kind, LocatorKind::Css);
        r.attrs.insert("aria-label".into(), "Totals".into());
        assert_eq!(pick("#totals", &r).kind, LocatorKind::Role);
    }

    #[test]
    fn names_the_scan_may_have_cut_are_not_matched_exactly() {
        let long = "x".repeat(100);
        assert_eq!(
            pick("a.more", &hint("a", Some("link"), &long)).kind,
            LocatorKind::Css
        );
    }

    #[test]
    fn shadow_and_frame_paths_are_listed_for_app_find_to_resolve() {
        let h = hint("button", Some("button"), "Inner");
        let l = pick("#frame >>> #inner-button", &h);
        assert_eq!(l.code, "['#frame', '#inner-button']");
        assert_eq!(choose("#x", None, "data-testid").code, "page.locator('#x')");
    }

    #[test]
    fn hostile_names_are_escaped() {
        let h = hint("button", Some("button"), "it's `${x}` \\ </script>");
        assert_eq!(
            pick("#b", &h).code,
            r#"page.getByRole('button', { name: "it's `${x}` \\ </script>", exact: true })"#
        );
    }
}
