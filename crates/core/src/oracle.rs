//! Oracles: which events and page contents are failures (DESIGN section 9), and the
//! book of unique failures seen in a run.

use std::collections::BTreeMap;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::config::OracleConfig;
use crate::model::{Event, EventKind, Observation};
use crate::signature::{normalize_message, signature};
use crate::trace::TraceStep;

/// The kinds of failure wayfarer reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    Exception,
    UnhandledRejection,
    ConsoleError,
    Http5xx,
    Http4xx,
    RequestFailed,
    PageCrash,
    ErrorText,
    Hang,
    /// A property of the user's specification was violated (or could not be evaluated).
    Property,
}

impl FailureKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            FailureKind::Exception => "exception",
            FailureKind::UnhandledRejection => "unhandled_rejection",
            FailureKind::ConsoleError => "console_error",
            FailureKind::Http5xx => "http_5xx",
            FailureKind::Http4xx => "http_4xx",
            FailureKind::RequestFailed => "request_failed",
            FailureKind::PageCrash => "page_crash",
            FailureKind::ErrorText => "error_text",
            FailureKind::Hang => "hang",
            FailureKind::Property => "property",
        }
    }
}

/// One failure as an oracle saw it, before deduplication.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FailureKind,
    pub message: String,
    pub source: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub signature: String,
}

impl Finding {
    fn new(kind: FailureKind, message: String, ev: Option<&Event>) -> Finding {
        let (source, line, column) = match ev {
            Some(e) => (e.url.clone(), e.line, e.column),
            None => (None, None, None),
        };
        let signature = signature(kind.as_str(), &message, source.as_deref(), line, column);
        Finding {
            kind,
            message,
            source,
            line,
            column,
            signature,
        }
    }
}

/// Turns events and observations into findings, by the configured rules.
#[derive(Debug)]
pub struct Oracles {
    config: OracleConfig,
    ignore: Vec<Regex>,
    /// Origins whose 4xx responses count (the application's own).
    app_origins: Vec<String>,
}

/// A noise pattern in the configuration that is not a valid regex.
#[derive(Debug, thiserror::Error)]
#[error("invalid [oracles] ignore pattern {pattern:?}: {source}")]
pub struct BadPattern {
    pub pattern: String,
    #[source]
    pub source: regex::Error,
}

impl Oracles {
    pub fn new(config: OracleConfig, app_origins: Vec<String>) -> Result<Oracles, BadPattern> {
        let ignore = config
            .ignore
            .iter()
            .map(|p| {
                Regex::new(p).map_err(|source| BadPattern {
                    pattern: p.clone(),
                    source,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Oracles {
            config,
            ignore,
            app_origins,
        })
    }

    /// The application's origins (`scheme://host:port`); empty: every origin counts.
    pub fn app_origins(&self) -> &[String] {
        &self.app_origins
    }

    fn same_origin(&self, url: &str) -> bool {
        self.app_origins.is_empty() || self.app_origins.iter().any(|o| url.starts_with(o))
    }

    /// Findings raised by one step's events and the observation it led to.
    pub fn judge(&self, events: &[Event], obs: Option<&Observation>) -> Vec<Finding> {
        let mut out = Vec::new();
        for ev in events {
            let url = ev.url.as_deref().unwrap_or("");
            let finding = match ev.kind {
                EventKind::Exception => Some(Finding::new(
                    FailureKind::Exception,
                    ev.message.clone(),
                    Some(ev),
                )),
                EventKind::UnhandledRejection => Some(Finding::new(
                    FailureKind::UnhandledRejection,
                    ev.message.clone(),
                    Some(ev),
                )),
                EventKind::ConsoleError if self.config.console_errors => Some(Finding::new(
                    FailureKind::ConsoleError,
                    ev.message.clone(),
                    Some(ev),
                )),
                EventKind::HttpResponse => match ev.status {
                    Some(s) if s >= 500 => Some(Finding::new(
                        FailureKind::Http5xx,
                        format!("HTTP {s} from {}", crate::signature::normalize_source(url)),
                        Some(&Event {
                            line: None,
                            column: None,
                            ..ev.clone()
                        }),
                    )),
                    Some(s)
                        if (400..500).contains(&s)
                            && self.config.http_4xx
                            && self.same_origin(url) =>
                    {
                        Some(Finding::new(
                            FailureKind::Http4xx,
                            format!("HTTP {s} from {}", crate::signature::normalize_source(url)),
                            Some(ev),
                        ))
                    }
                    _ => None,
                },
                EventKind::RequestFailed if self.same_origin(url) => Some(Finding::new(
                    FailureKind::RequestFailed,
                    ev.message.clone(),
                    Some(ev),
                )),
                EventKind::PageCrash => Some(Finding::new(
                    FailureKind::PageCrash,
                    ev.message.clone(),
                    None,
                )),
                EventKind::Hang => Some(Finding::new(FailureKind::Hang, ev.message.clone(), None)),
                EventKind::Property => {
                    // One failure per property: its cells' values differ from state to state.
                    let mut f = Finding::new(FailureKind::Property, ev.message.clone(), None);
                    let name = ev.property.as_deref().unwrap_or("?");
                    f.signature = format!("property|{name}");
                    f.source = Some(format!("property {name}"));
                    Some(f)
                }
                _ => None,
            };
            out.extend(finding);
        }
        // An error page served with a 5xx status is already that failure; its text is not a
        // second one.
        let document_5xx = events.iter().any(|e| {
            e.kind == EventKind::HttpResponse && e.document && e.status.is_some_and(|s| s >= 500)
        });
        if let Some(text) = obs
            .and_then(|o| o.error_text.as_ref())
            .filter(|_| !document_5xx)
        {
            let mut f = Finding::new(FailureKind::ErrorText, text.clone(), None);
            // One failure per page kind: /owners/7 and /owners/8 show the same fault.
            let url = crate::signature::normalize_source(&obs.unwrap().url);
            f.signature = format!("{}|{}", f.signature, normalize_message(&url));
            f.source = Some(url);
            out.push(f);
        }
        out.retain(|f| {
            let line = format!("{}: {}", f.kind.as_str(), f.message);
            !self.ignore.iter().any(|r| r.is_match(&line))
        });
        out
    }
}

/// A unique failure of the run: the first finding of its signature and how often it recurred.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub signature: String,
    pub source: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// Step (1-based, over the whole run) where it was first seen.
    pub step: u64,
    pub episode: u64,
    pub count: u64,
    /// The URL of the page it was seen on.
    pub page_url: String,
    /// The actions from the last reset up to and including the one that raised it.
    pub trace: Vec<TraceStep>,
}

/// All unique failures of a run, by signature, in order of discovery.
#[derive(Debug, Default)]
pub struct FailureBook {
    by_signature: BTreeMap<String, usize>,
    failures: Vec<Failure>,
}

impl FailureBook {
    /// Record a finding; returns the new failure when its signature is new.
    pub fn record(
        &mut self,
        finding: Finding,
        step: u64,
        episode: u64,
        page_url: &str,
        trace: &[TraceStep],
    ) -> Option<&Failure> {
        if let Some(&i) = self.by_signature.get(&finding.signature) {
            self.failures[i].count += 1;
            return None;
        }
        self.by_signature
            .insert(finding.signature.clone(), self.failures.len());
        self.failures.push(Failure {
            kind: finding.kind,
            message: finding.message,
            signature: finding.signature,
            source: finding.source,
            line: finding.line,
            column: finding.column,
            step,
            episode,
            count: 1,
            page_url: page_url.to_string(),
            trace: trace.to_vec(),
        });
        self.failures.last()
    }

    pub fn failures(&self) -> &[Failure] {
        &self.failures
    }

    pub fn len(&self) -> usize {
        self.failures.len()
    }

    pub fn is_empty(&self) -> bool {
        self.failures.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oracles() -> Oracles {
        Oracles::new(OracleConfig::default(), vec!["http://app".into()]).unwrap()
    }

    #[test]
    fn exception_and_5xx_are_failures_but_dialogs_are_not() {
        let evs = vec![
            Event::new(EventKind::Exception, "TypeError: a is undefined").at(
                "http://app/app.js",
                Some(3),
                Some(7),
            ),
            Event::http(500, "http://app/register?email=a@b", true),
            Event::http(200, "http://app/", true),
            Event::new(EventKind::Dialog, "alert: hi"),
        ];
        let f = oracles().judge(&evs, None);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].kind, FailureKind::Exception);
        assert_eq!(
            f[0].signature,
            "exception|TypeError: a is undefined|http://app/app.js:3:7"
        );
        assert_eq!(f[1].kind, FailureKind::Http5xx);
        assert_eq!(
            f[1].signature,
            "http_5xx|HTTP <n> from http://app/register|http://app/register"
        );
    }

    #[test]
    fn four_xx_only_when_asked_and_same_origin() {
        let evs = vec![
            Event::http(404, "http://app/missing", false),
            Event::http(404, "http://cdn/x.js", false),
        ];
        assert!(oracles().judge(&evs, None).is_empty());
        let cfg = OracleConfig {
            http_4xx: true,
            ..OracleConfig::default()
        };
        let o = Oracles::new(cfg, vec!["http://app".into()]).unwrap();
        let f = o.judge(&evs, None);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, FailureKind::Http4xx);
    }

    #[test]
    fn ignore_patterns_drop_known_noise() {
        let cfg = OracleConfig {
            ignore: vec!["console_error: .*favicon".into()],
            ..OracleConfig::default()
        };
        let o = Oracles::new(cfg, vec![]).unwrap();
        let evs = vec![
            Event::new(EventKind::ConsoleError, "GET /favicon.ico 404"),
            Event::new(EventKind::ConsoleError, "real problem"),
        ];
        let f = o.judge(&evs, None);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].message, "real problem");
        assert!(Oracles::new(
            OracleConfig {
                ignore: vec!["(".into()],
                ..OracleConfig::default()
            },
            vec![]
        )
        .is_err());
    }

    #[test]
    fn error_text_on_the_page_is_a_failure_per_page() {
        let obs = Observation {
            url: "http://app/owners/7?x=1".into(),
            error_text: Some("Internal Server Error".into()),
            ..Observation::default()
        };
        let f = oracles().judge(&[], Some(&obs));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, FailureKind::ErrorText);
        assert!(f[0].signature.ends_with("|http://app/owners/<n>"));
    }

    #[test]
    fn an_error_page_with_a_5xx_status_is_one_failure() {
        let obs = Observation {
            url: "http://app/register".into(),
            error_text: Some("Internal Server Error".into()),
            ..Observation::default()
        };
        let evs = vec![Event::http(500, "http://app/register", true)];
        let f = oracles().judge(&evs, Some(&obs));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].kind, FailureKind::Http5xx);
    }

    #[test]
    fn the_book_counts_repeats_and_keeps_the_first() {
        let o = oracles();
        let mut book = FailureBook::default();
        let ev = |n: u32| {
            vec![
                Event::new(EventKind::Exception, format!("row {n} missing")).at(
                    "http://app/a.js",
                    Some(1),
                    Some(1),
                ),
            ]
        };
        let trace = vec![TraceStep {
            action: crate::model::Action::back(),
            element: None,
            url: String::new(),
        }];
        for (step, n) in [(3, 1), (9, 2), (12, 3)] {
            for f in o.judge(&ev(n), None) {
                book.record(f, step, 1, "http://app/", &trace);
            }
        }
        assert_eq!(book.len(), 1);
        assert_eq!(book.failures()[0].step, 3);
        assert_eq!(book.failures()[0].count, 3);
    }
}
