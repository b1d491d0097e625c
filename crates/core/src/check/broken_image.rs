//! `broken_resource`: an image of the application that loaded without pixels (on the
//! page), or a file the page loads (image, script, stylesheet, font, media) answering 4xx
//! (its response; `http_4xx`'s when that check is on).

use super::{Check, Happened, Page};
use crate::config::{OracleConfig, Severity};
use crate::model::EventKind;
use crate::oracle::{FailureKind, Finding};
use crate::signature::normalize_source;

pub struct BrokenImage;

impl Check for BrokenImage {
    fn id(&self) -> &'static str {
        "broken_resource"
    }
    fn phrase(&self) -> &'static str {
        "broken resource"
    }
    fn about(&self) -> &'static str {
        "a broken image, or a file of the page (image, script, stylesheet, font, media) answering 4xx"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn configured(&self, c: &OracleConfig) -> Option<Severity> {
        (!c.broken_resources).then_some(Severity::Off)
    }
    fn judge_event(&self, h: &Happened<'_>) -> Option<Finding> {
        let s = h.ev.status.filter(|s| (400..500).contains(s))?;
        let url = h.ev.url.as_deref().unwrap_or("");
        let what = h.ev.resource.as_deref()?;
        if h.ev.kind != EventKind::HttpResponse || !h.same_origin(url) || h.is_on("http_4xx") {
            return None;
        }
        let url = normalize_source(url);
        let message = format!("HTTP {s} from {url} ({what} of the page)");
        Some(Finding::new(FailureKind::BrokenResource, message, None).signed(&[&url]))
    }
    fn judge(&self, p: &Page<'_>) -> Vec<Finding> {
        // A broken image of another origin may be one the scope blocked.
        p.obs
            .broken_images
            .iter()
            .filter(|s| p.same_origin(s))
            .map(|src| {
                let src = crate::signature::normalize_source(src);
                let message = format!("broken image {src} (it loaded without pixels)");
                p.finding(self, message, &[&src])
            })
            .collect()
    }
}
