//! `exception`: an error thrown by the page's script and not caught.

use super::{Check, Happened};
use crate::config::Severity;
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};

pub struct Exception;

impl Check for Exception {
    fn id(&self) -> &'static str {
        "exception"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::Exception
    }
    fn phrase(&self) -> &'static str {
        "exception"
    }
    fn about(&self) -> &'static str {
        "an error thrown by the page's script and not caught"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        (h.ev.kind == EventKind::Exception)
            .then(|| Finding::new(self.kind(), h.ev.message.clone(), Some(h.ev)).inline_on(h.obs))
    }
}
