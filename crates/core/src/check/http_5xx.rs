//! `http_5xx`: a response of any origin with a 5xx status: the server failed.

use super::{Check, Happened};
use crate::config::Severity;
use crate::model::Event;
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};
use crate::signature::normalize_source;

pub struct Http5xx;

impl Check for Http5xx {
    fn id(&self) -> &'static str {
        "http_5xx"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::Http5xx
    }
    fn phrase(&self) -> &'static str {
        "HTTP error"
    }
    fn about(&self) -> &'static str {
        "a response with a 5xx status: the server failed"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        let s =
            h.ev.status
                .filter(|s| *s >= 500 && h.ev.kind == EventKind::HttpResponse)?;
        let url = h.ev.url.as_deref().unwrap_or("");
        let message = format!("HTTP {s} from {}", normalize_source(url));
        // Signed by the request, not by a line of it.
        let ev = Event {
            line: None,
            column: None,
            ..h.ev.clone()
        };
        Some(Finding::new(self.kind(), message, Some(&ev)))
    }
}
