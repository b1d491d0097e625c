//! Checks: what a step shows that is wrong. Each check is one file in `check/` (its id,
//! which is its failures' kind, its wording, its default severity and its judge) and one
//! line in `CHECKS`. An event check judges each event of a step (an exception thrown, a
//! response with a 5xx status, a property of the specification broken); a page check
//! judges the page the step led to (a placeholder word where a value should be, a broken
//! image, a duplicate id, a control without a name). A page check that needs page data the
//! scan does not gather declares an extractor: a script the scan runs on every page, its
//! answer kept under the check's name in `Observation::facts`. `[oracles.checks]` sets any
//! check by its id: off, warn or fail.

mod broken_image;
mod console_error;
mod duplicate_id;
mod error_text;
mod exception;
mod hang;
mod http_4xx;
mod http_5xx;
mod image_alt;
mod page_crash;
mod placeholder_text;
mod property;
mod request_failed;
mod unhandled_rejection;
mod unnamed_control;

use std::collections::BTreeSet;

use crate::config::{OracleConfig, Severity};
use crate::model::{Event, Observation};
use crate::oracle::{FailureKind, Finding};

/// Every check, in the order their findings are listed: an event's, then the page's.
pub const CHECKS: &[&dyn Check] = &[
    &exception::Exception,
    &unhandled_rejection::UnhandledRejection,
    &console_error::ConsoleError,
    &http_5xx::Http5xx,
    &http_4xx::Http4xx,
    &request_failed::RequestFailed,
    &page_crash::PageCrash,
    &hang::Hang,
    &property::Property,
    &error_text::ErrorText,
    &placeholder_text::PlaceholderText,
    &broken_image::BrokenImage,
    &duplicate_id::DuplicateId,
    &unnamed_control::UnnamedControl,
    &image_alt::ImageAlt,
];

/// What a page check judges: the page as the scan saw it, the events of the step that led
/// to it, and what the run typed.
pub struct Page<'a> {
    pub obs: &'a Observation,
    pub events: &'a [Event],
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
        same_origin(self.app_origins, url)
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

/// What an event check judges: one event of a step, and the page the step led to when it
/// was seen.
pub struct Happened<'a> {
    pub ev: &'a Event,
    pub obs: Option<&'a Observation>,
    config: &'a OracleConfig,
    app_origins: &'a [String],
}

impl Happened<'_> {
    /// Whether `url` is the application's (every origin is, when none was given).
    pub fn same_origin(&self, url: &str) -> bool {
        same_origin(self.app_origins, url)
    }

    /// Whether the check `id` is on: an event two checks could take goes to one of them.
    pub fn is_on(&self, id: &str) -> bool {
        check(id).is_some_and(|c| severity(c, self.config) != Severity::Off)
    }
}

fn same_origin(app_origins: &[String], url: &str) -> bool {
    app_origins.is_empty() || app_origins.iter().any(|o| url.starts_with(o))
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
    /// Its finding on one event of a step (an event check).
    fn judge_event(&self, _happened: &Happened<'_>) -> Option<Finding> {
        None
    }
    /// Its findings on the page a step led to (a page check), each signed once per kind
    /// of page.
    fn judge(&self, _page: &Page<'_>) -> Vec<Finding> {
        Vec::new()
    }
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

/// Every check's findings on one step under `config`: each event's in turn, then the
/// page's (when it was seen), warnings marked.
pub(crate) fn judge_step(
    config: &OracleConfig,
    app_origins: &[String],
    events: &[Event],
    obs: Option<&Observation>,
    typed: &BTreeSet<String>,
) -> Vec<Finding> {
    let on: Vec<(&dyn Check, Severity)> = CHECKS
        .iter()
        .map(|c| (*c, severity(*c, config)))
        .filter(|(_, s)| *s != Severity::Off)
        .collect();
    let marked = |mut f: Finding, s: Severity| {
        f.warning = s == Severity::Warn;
        f
    };
    let mut out = Vec::new();
    for ev in events {
        let happened = Happened {
            ev,
            obs,
            config,
            app_origins,
        };
        for (c, s) in &on {
            out.extend(c.judge_event(&happened).map(|f| marked(f, *s)));
        }
    }
    if let Some(obs) = obs {
        let page = Page {
            obs,
            events,
            typed,
            page: crate::signature::normalize_message(&crate::signature::normalize_source(
                &obs.url,
            )),
            app_origins,
        };
        for (c, s) in &on {
            out.extend(c.judge(&page).into_iter().map(|f| marked(f, *s)));
        }
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
    fn an_event_check_is_set_by_its_id_and_one_event_goes_to_one_check() {
        use crate::model::EventKind;
        let origins = ["http://app".to_string()];
        let thrown = Event::new(EventKind::Exception, "TypeError: x is undefined");
        let mut config = OracleConfig::default();
        let judge = |config: &OracleConfig, ev: &Event| {
            judge_step(
                config,
                &origins,
                std::slice::from_ref(ev),
                None,
                &BTreeSet::new(),
            )
        };
        let found = judge(&config, &thrown);
        assert_eq!(found.len(), 1);
        assert!(!found[0].warning && found[0].kind == FailureKind::Exception);
        config.checks.insert("exception".into(), Severity::Warn);
        assert!(judge(&config, &thrown)[0].warning);
        config.checks.insert("exception".into(), Severity::Off);
        assert!(judge(&config, &thrown).is_empty());
        // A script of the page answering 404: a broken resource, or http_4xx's when on.
        let mut missing = Event::new(EventKind::HttpResponse, "");
        missing.status = Some(404);
        missing.url = Some("http://app/app.js".into());
        missing.resource = Some("script".into());
        let kinds = |config: &OracleConfig| -> Vec<FailureKind> {
            judge(config, &missing).iter().map(|f| f.kind).collect()
        };
        let mut config = OracleConfig::default();
        assert_eq!(kinds(&config), [FailureKind::BrokenResource]);
        config.http_4xx = true;
        assert_eq!(kinds(&config), [FailureKind::Http4xx]);
        config.http_4xx = false;
        config.checks.insert("http_4xx".into(), Severity::Fail);
        assert_eq!(kinds(&config), [FailureKind::Http4xx]);
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
