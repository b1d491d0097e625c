//! `broken_resource`, on the page: an image of the application that loaded without
//! pixels. (Its files answering 4xx are the same kind, raised from the responses in
//! `oracle`.)

use super::{Check, Page};
use crate::config::{OracleConfig, Severity};
use crate::oracle::Finding;

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
