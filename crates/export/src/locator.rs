//! A step's locator as Playwright code: the one chosen when the step was recorded (see
//! `wayfarer_core::trace::choose`), else one chosen now from the trace's hints.

pub use wayfarer_core::trace::chosen;
use wayfarer_core::trace::{Chosen, LocatorKind};

use crate::ts::str_lit;

/// A locator expression on `page`, e.g. `page.getByRole('button', { name: 'Save', exact: true })`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locator {
    pub kind: LocatorKind,
    pub code: String,
}

/// `c` as code; `test_id_attr` is the project's `testIdAttribute` (`getByTestId` reads
/// that one; another attribute is matched by an attribute selector).
pub fn render(target: &str, c: &Chosen, test_id_attr: &str) -> Locator {
    let code = match c.kind {
        LocatorKind::TestId if c.by == test_id_attr => {
            format!("page.getByTestId({})", str_lit(&c.value))
        }
        LocatorKind::TestId => {
            let value = c.value.replace('\\', "\\\\").replace('"', "\\\"");
            format!(
                "page.locator({})",
                str_lit(&format!("[{}=\"{value}\"]", c.by))
            )
        }
        LocatorKind::Role => format!(
            "page.getByRole({}, {{ name: {}, exact: true }})",
            str_lit(&c.by),
            str_lit(&c.value)
        ),
        LocatorKind::Label => format!("page.getByLabel({}, {{ exact: true }})", str_lit(&c.value)),
        LocatorKind::Text => format!("page.getByText({}, {{ exact: true }})", str_lit(&c.value)),
        LocatorKind::Css => css(target),
    };
    Locator { kind: c.kind, code }
}

/// `page.locator(css)`, or for a path through shadow roots and frames the list of its
/// selectors, which `app.find` resolves as the page is now (a frame is entered, a shadow
/// host is not: the export cannot tell them apart).
fn css(target: &str) -> String {
    let parts: Vec<&str> = target.split(" >>> ").collect();
    if parts.len() == 1 {
        format!("page.locator({})", str_lit(target))
    } else {
        let lits: Vec<String> = parts.iter().map(|p| str_lit(p)).collect();
        format!("[{}]", lits.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(kind: LocatorKind, by: &str, value: &str) -> Chosen {
        Chosen {
            kind,
            by: by.into(),
            value: value.into(),
            verified: true,
        }
    }

    #[test]
    fn each_kind_renders_as_playwright_names_it() {
        let r = |k, by, v| render("#x", &c(k, by, v), "data-testid").code;
        assert_eq!(
            r(LocatorKind::Role, "link", "Find owners"),
            "page.getByRole('link', { name: 'Find owners', exact: true })"
        );
        assert_eq!(
            r(LocatorKind::TestId, "data-testid", "save"),
            "page.getByTestId('save')"
        );
        assert_eq!(
            r(LocatorKind::TestId, "data-cy", "say \"hi\""),
            r#"page.locator('[data-cy="say \\"hi\\""]')"#
        );
        assert_eq!(
            r(LocatorKind::Label, "", "Password"),
            "page.getByLabel('Password', { exact: true })"
        );
        assert_eq!(
            r(LocatorKind::Text, "", "Drag me"),
            "page.getByText('Drag me', { exact: true })"
        );
        assert_eq!(r(LocatorKind::Css, "", ""), "page.locator('#x')");
        assert_eq!(
            render("#a", &c(LocatorKind::TestId, "data-cy", "s"), "data-cy").code,
            "page.getByTestId('s')"
        );
    }

    #[test]
    fn shadow_and_frame_paths_are_listed_for_app_find_to_resolve() {
        let l = render(
            "#frame >>> #inner-button",
            &c(LocatorKind::Css, "", ""),
            "data-testid",
        );
        assert_eq!(l.code, "['#frame', '#inner-button']");
    }

    #[test]
    fn hostile_names_are_escaped() {
        let l = render(
            "#b",
            &c(LocatorKind::Role, "button", "it's `${x}` \\ </script>"),
            "data-testid",
        );
        assert_eq!(
            l.code,
            r#"page.getByRole('button', { name: "it's `${x}` \\ </script>", exact: true })"#
        );
    }
}
