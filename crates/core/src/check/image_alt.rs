//! `image_alt`: an image shown without a text alternative (no `alt`, `aria-label`,
//! `aria-labelledby` or `title`, and not marked decorative with `alt=""` or
//! `role="presentation"`/`"none"`): a screen reader says its file name, or nothing.
//! A warning by default. Its extractor lists the images, as the scan gathers nothing
//! about images that are not controls.

use super::{Check, Extractor, Page};
use crate::config::Severity;
use crate::oracle::Finding;

pub struct ImageAlt;

/// The shown images without a text alternative: `[{ "src": ..., "at": locator-like }]`,
/// at most 10.
const JS: &str = r#"const out = [];
for (const img of document.images) {
  if (out.length >= 10) break;
  if (img.hasAttribute("alt") || img.hasAttribute("aria-label") || img.hasAttribute("aria-labelledby")) continue;
  if (img.title || ["presentation", "none"].includes(img.getAttribute("role"))) continue;
  const r = img.getBoundingClientRect();
  if (!(r.width > 1 && r.height > 1)) continue;
  out.push(img.currentSrc || img.src || "");
}
return out;"#;

impl Check for ImageAlt {
    fn id(&self) -> &'static str {
        "image_alt"
    }
    fn phrase(&self) -> &'static str {
        "image without alt text"
    }
    fn about(&self) -> &'static str {
        "an image shown with no alt, aria-label, aria-labelledby or title (alt=\"\" marks it decorative)"
    }
    fn default_severity(&self) -> Severity {
        Severity::Warn
    }
    fn extractor(&self) -> Option<Extractor> {
        Some(Extractor {
            name: "image_alt",
            js: JS,
        })
    }
    fn judge(&self, p: &Page<'_>) -> Vec<Finding> {
        let Some(srcs) = p.fact("image_alt").and_then(|v| v.as_array()) else {
            return Vec::new();
        };
        srcs.iter()
            .filter_map(|s| s.as_str())
            .filter(|s| p.same_origin(s) || s.starts_with("data:"))
            .map(|src| {
                let src = crate::signature::normalize_source(src);
                let message =
                    format!("image {src} has no text alternative (alt, aria-label or title)");
                p.finding(self, message, &[&src, &p.page])
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::model::Observation;

    #[test]
    fn an_image_of_the_app_without_alt_is_a_warning_once_per_page_kind() {
        let mut obs = Observation {
            url: "http://app/items/7".into(),
            ..Observation::default()
        };
        obs.facts.insert(
            "image_alt".into(),
            serde_json::json!(["http://app/logo.png", "http://cdn.other/x.png"]),
        );
        let config = crate::config::OracleConfig::default();
        let found = crate::check::judge_step(
            &config,
            &["http://app".into()],
            &[],
            Some(&obs),
            &BTreeSet::new(),
        );
        let alt: Vec<_> = found
            .iter()
            .filter(|f| f.kind.as_str() == "image_alt")
            .collect();
        assert_eq!(alt.len(), 1, "{found:?}");
        assert!(alt[0].warning && alt[0].message.contains("logo.png"));
        // The same image on another item is the same finding.
        obs.url = "http://app/items/8".into();
        let again = crate::check::judge_step(
            &config,
            &["http://app".into()],
            &[],
            Some(&obs),
            &BTreeSet::new(),
        );
        let sig = |f: &Vec<Finding>| {
            f.iter()
                .find(|f| f.kind.as_str() == "image_alt")
                .map(|f| f.signature.clone())
        };
        assert_eq!(sig(&found), sig(&again));
    }
}
