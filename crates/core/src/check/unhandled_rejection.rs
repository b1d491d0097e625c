//! `unhandled_rejection`: a promise rejected with nobody to handle it.

use super::{Check, Happened};
use crate::config::Severity;
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};

pub struct UnhandledRejection;

impl Check for UnhandledRejection {
    fn id(&self) -> &'static str {
        "unhandled_rejection"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::UnhandledRejection
    }
    fn phrase(&self) -> &'static str {
        "unhandled rejection"
    }
    fn about(&self) -> &'static str {
        "a promise rejected with nobody to handle it"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        (h.ev.kind == EventKind::UnhandledRejection)
            .then(|| Finding::new(self.kind(), h.ev.message.clone(), Some(h.ev)).inline_on(h.obs))
    }
}
