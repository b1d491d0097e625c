//! `http_4xx`: a response of the application with a 4xx status (`[oracles] http_4xx`,
//! off by default: an application answers 404 and 403 on purpose).

use super::{Check, Happened};
use crate::config::{OracleConfig, Severity};
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};
use crate::signature::normalize_source;

pub struct Http4xx;

impl Check for Http4xx {
    fn id(&self) -> &'static str {
        "http_4xx"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::Http4xx
    }
    fn phrase(&self) -> &'static str {
        "HTTP error"
    }
    fn about(&self) -> &'static str {
        "a response of the application with a 4xx status"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn configured(&self, c: &OracleConfig) -> Option<Severity> {
        (!c.http_4xx).then_some(Severity::Off)
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        let s = h.ev.status.filter(|s| (400..500).contains(s))?;
        let url = h.ev.url.as_deref().unwrap_or("");
        (h.ev.kind == EventKind::HttpResponse && h.same_origin(url)).then(|| {
            let message = format!("HTTP {s} from {}", normalize_source(url));
            Finding::new(self.kind(), message, Some(h.ev))
        })
    }
}
