//! `unnamed_control`: a form control without an accessible name (the scan lists them).

use super::{Check, Page};
use crate::config::{OracleConfig, Severity};
use crate::oracle::Finding;

pub struct UnnamedControl;

impl Check for UnnamedControl {
    fn id(&self) -> &'static str {
        "unnamed_control"
    }
    fn phrase(&self) -> &'static str {
        "unnamed control"
    }
    fn about(&self) -> &'static str {
        "a form control with no label, aria-label, aria-labelledby, title or placeholder"
    }
    fn default_severity(&self) -> Severity {
        Severity::Warn
    }
    fn configured(&self, c: &OracleConfig) -> Option<Severity> {
        Some(c.unnamed_controls)
    }
    fn judge(&self, p: &Page<'_>) -> Vec<Finding> {
        p.obs
            .unnamed_controls
            .iter()
            .map(|locator| {
                let shown = p
                    .obs
                    .elements
                    .iter()
                    .find(|e| &e.locator == locator)
                    // No name shown: the scan's label is a guess from nearby text.
                    .map_or_else(|| locator.clone(), |e| format!("{} ({})", e.tag, e.locator));
                let message = format!(
                    "{shown} has no accessible name (no label, aria-label, aria-labelledby, title or placeholder)"
                );
                p.finding(self, message, &[locator, &p.page])
            })
            .collect()
    }
}
