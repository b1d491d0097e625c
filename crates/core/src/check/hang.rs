//! `hang`: a page that never settled within the step's limit.

use super::{Check, Happened};
use crate::config::Severity;
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};

pub struct Hang;

impl Check for Hang {
    fn id(&self) -> &'static str {
        "hang"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::Hang
    }
    fn phrase(&self) -> &'static str {
        "hang"
    }
    fn about(&self) -> &'static str {
        "a page that never settled within the step's limit"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        (h.ev.kind == EventKind::Hang)
            .then(|| Finding::new(self.kind(), h.ev.message.clone(), None))
    }
}
