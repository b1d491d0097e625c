//! `console_error`: a message the page wrote with console.error (`[oracles] console_errors`).

use super::{Check, Happened};
use crate::config::{OracleConfig, Severity};
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};

pub struct ConsoleError;

impl Check for ConsoleError {
    fn id(&self) -> &'static str {
        "console_error"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::ConsoleError
    }
    fn phrase(&self) -> &'static str {
        "console error"
    }
    fn about(&self) -> &'static str {
        "a message the page wrote with console.error"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn configured(&self, c: &OracleConfig) -> Option<Severity> {
        (!c.console_errors).then_some(Severity::Off)
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        (h.ev.kind == EventKind::ConsoleError)
            .then(|| Finding::new(self.kind(), h.ev.message.clone(), Some(h.ev)))
    }
}
