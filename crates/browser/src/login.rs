//! Logins that hold: the login steps are checked as they run (a step that cannot be done
//! fails the reset with its number and what the page showed), and the login form's
//! fields are the fingerprint of being logged out: seen again mid-run, the step says so
//! and the loop resets.

use std::time::Duration;

use chromiumoxide::Page;
use wayfarer_core::config::LoginStep;

use crate::cdp::eval;

/// Whether the login form is watched for after each step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LoginWatch {
    /// No reset has logged in yet.
    Undecided,
    /// No login steps that fill fields, or a form that stays when logged in.
    Off,
    /// These selectors all match on the login page and not all once logged in.
    On(Vec<String>),
}

/// The login steps' fields: what the login page has and a logged-in page has not.
pub(crate) fn form_fields(steps: &[LoginStep]) -> Vec<String> {
    let mut fields: Vec<String> = steps.iter().filter_map(|s| s.fill.clone()).collect();
    fields.dedup();
    fields
}

/// One login step as a person wrote it in the configuration.
pub(crate) fn describe(step: &LoginStep) -> String {
    let mut parts = vec![];
    if let Some(g) = &step.goto {
        parts.push(format!("goto {g:?}"));
    }
    if let Some(f) = &step.fill {
        // The value may be a secret: never shown.
        parts.push(format!("fill {f:?}"));
    }
    if let Some(c) = &step.click {
        parts.push(format!("click {c:?}"));
    }
    parts.join(", ")
}

/// The expression that says whether every selector matches an element of the document
/// (a selector the page cannot parse matches nothing).
fn form_check(fields: &[String]) -> String {
    let list = serde_json::to_string(fields).unwrap_or_else(|_| "[]".into());
    format!(
        "{list}.every(s => {{ try {{ return !!document.querySelector(s); }} catch (e) {{ return false; }} }})"
    )
}

/// An expression that says whether the page shows the login form of `steps` (every field
/// its `fill` steps type into is there); `None` when the login fills no field. For a
/// watcher of a browser that is not ours (the bench's peers).
pub fn form_expression(steps: &[LoginStep]) -> Option<String> {
    let fields = form_fields(steps);
    (!fields.is_empty()).then(|| form_check(&fields))
}

/// Whether the page shows the login form; false when it cannot be asked.
pub(crate) async fn shows_form(page: &Page, fields: &[String], cdp: Duration) -> bool {
    if fields.is_empty() {
        return false;
    }
    match eval(page, form_check(fields), cdp).await {
        Ok(v) => v.as_bool().unwrap_or(false),
        Err(e) => {
            tracing::debug!(%e, "login form check not answered");
            false
        }
    }
}

/// Where the page is and what it shows, for an error message: URL, title, first text.
pub(crate) async fn page_shows(page: &Page, cdp: Duration) -> String {
    let expr = "JSON.stringify([location.href, document.title, \
        (document.body ? document.body.innerText : '').replace(/\\s+/g, ' ').trim().slice(0, 200)])";
    let v = eval(page, expr, cdp).await.ok();
    let parsed: Option<(String, String, String)> = v
        .as_ref()
        .and_then(|v| v.as_str())
        .and_then(|s| serde_json::from_str(s).ok());
    match parsed {
        Some((url, title, text)) => format!("{url} (title {title:?}) showing {text:?}"),
        None => "a page that could not be read".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(goto: Option<&str>, fill: Option<&str>, click: Option<&str>) -> LoginStep {
        LoginStep {
            goto: goto.map(Into::into),
            fill: fill.map(Into::into),
            value: Some("s3cret".into()),
            click: click.map(Into::into),
        }
    }

    #[test]
    fn the_form_is_the_filled_fields_and_a_step_never_shows_its_value() {
        let steps = [
            step(Some("/login"), None, None),
            step(None, Some("#email"), None),
            step(None, Some("#password"), None),
            step(None, None, Some("button[type=submit]")),
        ];
        assert_eq!(form_fields(&steps), ["#email", "#password"]);
        assert_eq!(describe(&steps[1]), "fill \"#email\"");
        assert!(!describe(&steps[2]).contains("s3cret"));
        assert_eq!(describe(&steps[3]), "click \"button[type=submit]\"");
        assert!(form_fields(&[step(None, None, Some("#demo"))]).is_empty());
    }

    #[test]
    fn the_check_quotes_selectors_as_json() {
        let c = form_check(&["input[name=\"user\"]".to_string()]);
        assert!(c.starts_with(r#"["input[name=\"user\"]"].every("#), "{c}");
    }
}
