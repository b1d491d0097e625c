//! `request_failed`: a request to the application that got no answer at all.

use super::{Check, Happened};
use crate::config::Severity;
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};

pub struct RequestFailed;

impl Check for RequestFailed {
    fn id(&self) -> &'static str {
        "request_failed"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::RequestFailed
    }
    fn phrase(&self) -> &'static str {
        "failed request"
    }
    fn about(&self) -> &'static str {
        "a request to the application that got no answer at all"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        let url = h.ev.url.as_deref().unwrap_or("");
        (h.ev.kind == EventKind::RequestFailed && h.same_origin(url))
            .then(|| Finding::new(self.kind(), h.ev.message.clone(), Some(h.ev)))
    }
}
