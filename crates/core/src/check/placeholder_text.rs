//! `placeholder_text`: visible text "undefined", "NaN", "[object Object]" or "null" where
//! a value should be (the scan collects the text that shows one).

use super::{Check, Page};
use crate::config::{OracleConfig, Severity};
use crate::oracle::Finding;

/// What it looks for, in the order a message names it.
const PLACEHOLDERS: [&str; 4] = ["[object Object]", "NaN", "undefined", "null"];

pub struct PlaceholderText;

impl Check for PlaceholderText {
    fn id(&self) -> &'static str {
        "placeholder_text"
    }
    fn phrase(&self) -> &'static str {
        "placeholder text"
    }
    fn about(&self) -> &'static str {
        "visible \"undefined\", \"NaN\", \"[object Object]\" or \"null\" where a value should be"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn configured(&self, c: &OracleConfig) -> Option<Severity> {
        (!c.placeholder_text).then_some(Severity::Off)
    }
    fn judge(&self, p: &Page<'_>) -> Vec<Finding> {
        let mut out = Vec::new();
        for t in &p.obs.placeholder_text {
            let token = PLACEHOLDERS
                .iter()
                .find(|w| t.contains(**w))
                .copied()
                .unwrap_or("?");
            // Typed "null", the page says "Saved null": it echoes the user.
            if p.typed
                .iter()
                .any(|v| v.contains(token) && t.contains(v.as_str()))
            {
                continue;
            }
            let message = format!("the page shows {token:?} where a value should be: {t:?}");
            out.push(p.finding(self, message, &[token, &p.page]));
        }
        out
    }
}
