//! Page checks: what a page shows that is wrong (a placeholder word where a value should
//! be, a broken image, a duplicate id, a control without a name, an image without a text
//! alternative). Each check is one file in `check/` (its id, which is its failures' kind,
//! its wording, its default severity, the page facts it reads and its judge) and one line
//! in `CHECKS`. A check that needs page data the scan does not gather declares an
//! extractor: a script the scan runs on every page, its answer kept under the check's
//! name in `Observation::facts`.
//!
//! The oracles of events (exceptions, HTTP statuses, hangs, properties) are in `oracle`.

mod broken_image;
mod duplicate_id;
mod image_alt;
mod placeholder_text;
mod unnamed_control;

use std::collections::BTreeSet;

use crate::config::{OracleConfig, Severity};
use crate::model::Observation;
use crate::oracle::{FailureKind, Finding};

/// Every page check, in the order their findings are listed.
pub const CHECKS: &[&dyn Check] = &[
    &placeholder_text::PlaceholderText,
    &broken_image::BrokenImage,
    &duplicate_id::DuplicateId,
    &unnamed_control::UnnamedControl,
    &image_alt::ImageAlt,
];

/// What a check judges: the page as the scan saw it, and what the run typed.
pub struct Page<'a> {
    pub obs: &'a Observation,
    /// The values the run typed into the application: a page that shows one is
    /// answering the user.
    pub typed: &'a BTreeSet<String>,
    /// The page's address without its variable parts, as signatures name a kind of page.
    pub page: String,
    pub(crate) app_origins: &'a [String],
}

impl Page<'_> {
    /// Whether `url` is the application's (every origin is, when none was given).
    pub fn same_origin(&self, url: &str) -> bool {
        self.app_origins.is_empty() || self.app_origins.iter().any(|o| url.starts_with(o))
    }

    /// The answer of the extractor called `name` on this page (`Check::extractor`).
    pub fn fact(&self, name: &str) -> Option<&serde_json::Value> {
        self.obs.facts.get(name)
    }

    /// A finding of `check`, signed by its kind and `parts` (the page among them, for a
    /// finding that is one per kind of page).
    pub fn finding(&self, check: &dyn Check, message: String, parts: &[&str]) -> Finding {
        Finding::new(check.kind(), message, None).signed(parts)
    }
}

/// A script the scan runs on every page for a check: `js` is a function body whose
/// `return` gives a JSON value (keep it small: it travels with every observation).
#[derive(Clone, Copy, Debug)]
pub struct Extractor {
    pub name: &'static str,
    pub js: &'static str,
}

pub trait Check: Sync {
    /// Its failures' kind, its `[oracles.checks]` key ("unnamed_control").
    fn id(&self) -> &'static str;
    /// The kind of its findings: its id.
    fn kind(&self) -> FailureKind {
        FailureKind::new(self.id())
    }
    /// Its kind in a sentence ("unnamed control"), as an exported test's title says it.
    fn phrase(&self) -> &'static str;
    /// One line for people: what it finds.
    fn about(&self) -> &'static str;
    /// How it counts when the configuration does not say.
    fn default_severity(&self) -> Severity;
    /// What the configuration's own field for it says, for the checks older than
    /// `[oracles.checks]`.
    fn configured(&self, _config: &OracleConfig) -> Option<Severity> {
        None
    }
    /// The page data it reads that the scan gathers for it alone.
    fn extractor(&self) -> Option<Extractor> {
        None
    }
    /// Its findings on `page`, each signed once per kind of page.
    fn judge(&self, page: &Page<'_>) -> Vec<Finding>;
}

/// How `check` counts under `config`: `[oracles.checks]`, else its own field, else its
/// default.
pub fn severity(check: &dyn Check, config: &OracleConfig) -> Severity {
    config
        .checks
        .get(check.id())
        .copied()
        .or_else(|| check.configured(config))
        .unwrap_or_else(|| check.default_severity())
}

/// The check whose id is `id`.
pub fn check(id: &str) -> Option<&'static dyn Check> {
    CHECKS.iter().copied().find(|c| c.id() == id)
}

/// The extractors the scan runs: one per check that declares one.
pub fn extractors() -> Vec<Extractor> {
    CHECKS.iter().filter_map(|c| c.extractor()).collect()
}

/// Every page check's findings on `obs` under `config`, warnings marked.
pub(crate) fn judge_page(
    config: &OracleConfig,
    app_origins: &[String],
    obs: &Observation,
    typed: &BTreeSet<String>,
) -> Vec<Finding> {
    let page = Page {
        obs,
        typed,
        page: crate::signature::normalize_message(&crate::signature::normalize_source(&obs.url)),
        app_origins,
    };
    let mut out = Vec::new();
    for c in CHECKS {
        let severity = severity(*c, config);
        if severity == Severity::Off {
            continue;
        }
        out.extend(c.judge(&page).into_iter().map(|mut f| {
            f.warning = severity == Severity::Warn;
            f
        }));
    }
    out
}

/// An element as a message names it: `button "Save" (#save)`.
fn describe(e: &crate::model::Element) -> String {
    format!("{} ({})", e.describe(), e.locator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_kinds_read_back() {
        let mut ids: Vec<&str> = CHECKS.iter().map(|c| c.id()).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n);
        for c in CHECKS {
            assert_eq!(FailureKind::named(c.id()), c.kind());
            assert!(
                !c.phrase().is_empty() && !c.about().is_empty(),
                "{}",
                c.id()
            );
        }
    }

    #[test]
    fn the_checks_table_wins_over_a_checks_own_field() {
        let c = check("duplicate_id").unwrap();
        let mut config = OracleConfig::default();
        assert_eq!(severity(c, &config), Severity::Warn);
        config.duplicate_ids = Severity::Fail;
        assert_eq!(severity(c, &config), Severity::Fail);
        config.checks.insert("duplicate_id".into(), Severity::Off);
        assert_eq!(severity(c, &config), Severity::Off);
    }
}
