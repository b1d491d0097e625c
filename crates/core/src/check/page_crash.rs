//! `page_crash`: the browser's page crashed (out of memory, a renderer fault).

use super::{Check, Happened};
use crate::config::Severity;
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};

pub struct PageCrash;

impl Check for PageCrash {
    fn id(&self) -> &'static str {
        "page_crash"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::PageCrash
    }
    fn phrase(&self) -> &'static str {
        "crash"
    }
    fn about(&self) -> &'static str {
        "the page crashed in the browser"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        (h.ev.kind == EventKind::PageCrash)
            .then(|| Finding::new(self.kind(), h.ev.message.clone(), None))
    }
}
