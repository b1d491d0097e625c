//! Oracles: which events and page contents are failures (DESIGN section 9), and the
//! book of unique failures seen in a run.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::config::OracleConfig;
use crate::model::{Event, Observation};
use crate::server::ServerOutput;
use crate::signature::signature;
use crate::trace::TraceStep;

/// The kind of a failure: the id of what raised it ("exception", "http_5xx", a page
/// check's id such as "unnamed_control"). The built-in kinds are constants; a check
/// (`crate::check`) brings its own id, so a new check adds no variant here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FailureKind(&'static str);

#[allow(non_upper_case_globals)]
impl FailureKind {
    pub const Exception: FailureKind = FailureKind("exception");
    pub const UnhandledRejection: FailureKind = FailureKind("unhandled_rejection");
    pub const ConsoleError: FailureKind = FailureKind("console_error");
    pub const Http5xx: FailureKind = FailureKind("http_5xx");
    pub const Http4xx: FailureKind = FailureKind("http_4xx");
    pub const RequestFailed: FailureKind = FailureKind("request_failed");
    pub const PageCrash: FailureKind = FailureKind("page_crash");
    pub const ErrorText: FailureKind = FailureKind("error_text");
    pub const Hang: FailureKind = FailureKind("hang");
    /// A property of the user's specification was violated (or could not be evaluated).
    pub const Property: FailureKind = FailureKind("property");
    /// An image, script, stylesheet, font or media file of the application answering 4xx.
    pub const BrokenResource: FailureKind = FailureKind("broken_resource");

    /// The kinds of the built-in page checks (`crate::check`), by name for code that
    /// matches on them; a new check needs none.
    pub const PlaceholderText: FailureKind = FailureKind("placeholder_text");
    pub const DuplicateId: FailureKind = FailureKind("duplicate_id");
    pub const UnnamedControl: FailureKind = FailureKind("unnamed_control");

    /// A check's kind: its id.
    pub const fn new(id: &'static str) -> FailureKind {
        FailureKind(id)
    }

    pub fn as_str(&self) -> &'static str {
        self.0
    }

    /// How stores, traces and report.json spell the kind: its id, but for the two HTTP
    /// kinds, which keep the spelling files have always had ("http5xx", "http4xx").
    fn stored(self) -> &'static str {
        match self.0 {
            "http_5xx" => "http5xx",
            "http_4xx" => "http4xx",
            id => id,
        }
    }

    /// The kind `id` names, as a store or trace wrote it (or as its id): a kind of this
    /// build, or one it does not know (written by another version), kept as read.
    pub fn named(id: &str) -> FailureKind {
        let id = match id {
            "http5xx" => "http_5xx",
            "http4xx" => "http_4xx",
            other => other,
        };
        let known = crate::check::CHECKS
            .iter()
            .map(|c| c.kind())
            .find(|k| k.0 == id);
        // Unknown ids are rare (a file from another version) and few: leaking each
        // keeps the kind a cheap copyable value.
        known.unwrap_or_else(|| FailureKind(Box::leak(id.to_string().into_boxed_str())))
    }
}

impl Serialize for FailureKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.stored())
    }
}

impl<'de> Deserialize<'de> for FailureKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Ok(FailureKind::named(&id))
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
    /// Advice, not a failure (`Severity::Warn`): listed with the run's warnings, the run
    /// still passes.
    #[serde(default)]
    pub warning: bool,
}

impl Finding {
    pub(crate) fn new(kind: FailureKind, message: String, ev: Option<&Event>) -> Finding {
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
            warning: false,
        }
    }

    /// An error thrown by a script inline in the page `obs` shows (its source is the page
    /// itself) is signed without line and column, which count lines of the page's HTML:
    /// one handler's error on a popup shown for users, issues and keywords, or several
    /// handlers of one page failing on the same missing object, is one failure. The
    /// property it could not read stays, as the line would have told them apart.
    pub(crate) fn inline_on(mut self, obs: Option<&Observation>) -> Finding {
        let (Some(o), Some(src)) = (obs, self.source.as_deref()) else {
            return self;
        };
        let page = crate::signature::normalize_source(&o.url);
        if crate::signature::normalize_source(src) != page || self.line.is_none() {
            return self;
        }
        let mut sig = signature(self.kind.as_str(), &self.message, Some(src), None, None);
        if let Some(read) = reading(&self.message) {
            sig.push_str(&format!("|reading {read}"));
        }
        self.signature = sig;
        self
    }

    /// This finding, signed by `parts` (kind first) instead of its message.
    pub(crate) fn signed(mut self, parts: &[&str]) -> Finding {
        let mut sig = self.kind.as_str().to_string();
        for p in parts {
            sig.push('|');
            sig.push_str(p);
        }
        self.signature = sig;
        self
    }
}

/// The property an engine's "Cannot read properties of null (reading 'x')" names.
fn reading(message: &str) -> Option<&str> {
    let rest = &message[message.find("(reading '")? + "(reading '".len()..];
    Some(&rest[..rest.find('\'')?])
}

/// Turns events and observations into findings, by the configured rules.
#[derive(Clone, Debug)]
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

    /// Findings raised by one step's events and the observation it led to.
    pub fn judge(&self, events: &[Event], obs: Option<&Observation>) -> Vec<Finding> {
        self.judge_typed(events, obs, &BTreeSet::new())
    }

    /// [`judge`](Self::judge) for a run that has typed `typed` into the application: a
    /// page that shows a placeholder word inside one of them (typed "null", the page says
    /// "Saved null") echoes the user, it does not show a value it lost.
    pub fn judge_typed(
        &self,
        events: &[Event],
        obs: Option<&Observation>,
        typed: &BTreeSet<String>,
    ) -> Vec<Finding> {
        let mut out = crate::check::judge_step(&self.config, &self.app_origins, events, obs, typed);
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
    /// What the application's server wrote during the step that raised it (a traceback),
    /// when wayfarer started the server.
    #[serde(default, skip_serializing_if = "ServerOutput::is_empty")]
    pub server_output: ServerOutput,
}

/// Advice a page check found (a check set to `warn`): listed with the run, not a
/// failure; once per signature, with how often it was seen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    pub kind: FailureKind,
    pub message: String,
    pub signature: String,
    /// Step (1-based, over the whole run) where it was first seen.
    pub step: u64,
    pub count: u64,
    pub page_url: String,
}

/// All unique failures of a run, by signature, in order of discovery (and its warnings).
#[derive(Debug, Default)]
pub struct FailureBook {
    by_signature: BTreeMap<String, usize>,
    failures: Vec<Failure>,
    warned: BTreeMap<String, usize>,
    warnings: Vec<Warning>,
}

impl FailureBook {
    /// Record a finding; returns the new failure when its signature is new. A warning
    /// goes to the warnings and returns `None`. `server`: what the server wrote during
    /// the step, kept with a new failure as its evidence.
    pub fn record(
        &mut self,
        finding: Finding,
        step: u64,
        episode: u64,
        page_url: &str,
        trace: &[TraceStep],
        server: &ServerOutput,
    ) -> Option<&Failure> {
        if finding.warning {
            match self.warned.get(&finding.signature) {
                Some(&i) => self.warnings[i].count += 1,
                None => {
                    self.warned
                        .insert(finding.signature.clone(), self.warnings.len());
                    self.warnings.push(Warning {
                        kind: finding.kind,
                        message: finding.message,
                        signature: finding.signature,
                        step,
                        count: 1,
                        page_url: page_url.to_string(),
                    });
                }
            }
            return None;
        }
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
            server_output: server.clone(),
        });
        self.failures.last()
    }

    pub fn failures(&self) -> &[Failure] {
        &self.failures
    }

    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
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
    use crate::config::Severity;
    use crate::model::EventKind;

    #[test]
    fn kinds_keep_the_spelling_files_have_always_had() {
        for k in crate::check::CHECKS.iter().map(|c| c.kind()) {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(
                serde_json::from_str::<FailureKind>(&json).unwrap(),
                k,
                "{json}"
            );
        }
        assert_eq!(
            serde_json::to_string(&FailureKind::Http5xx).unwrap(),
            "\"http5xx\""
        );
        assert_eq!(
            serde_json::to_string(&FailureKind::Http4xx).unwrap(),
            "\"http4xx\""
        );
        assert_eq!(
            serde_json::to_string(&FailureKind::UnnamedControl).unwrap(),
            "\"unnamed_control\""
        );
        // Its id reads back too, and an id no check of this build has is kept.
        assert_eq!(FailureKind::named("http_5xx"), FailureKind::Http5xx);
        let other: FailureKind = serde_json::from_str("\"some_new_check\"").unwrap();
        assert_eq!(other.as_str(), "some_new_check");
    }

    impl Oracles {
        /// The page checks' findings on `o` alone.
        fn page_checks(&self, o: &Observation, typed: &BTreeSet<String>) -> Vec<Finding> {
            crate::check::judge_step(&self.config, &self.app_origins, &[], Some(o), typed)
        }
    }

    fn oracles() -> Oracles {
        Oracles::new(OracleConfig::default(), vec!["http://app".into()]).unwrap()
    }

    #[test]
    fn an_inline_scripts_error_is_one_failure_on_its_page_whatever_its_line() {
        let page = Observation {
            url: "http://app/eval/user?@template=help&property=assignedto".into(),
            ..Observation::default()
        };
        let at = |msg: &str, src: &str, line: u32| {
            let ev = Event::new(EventKind::Exception, msg).at(src, Some(line), Some(7));
            oracles().judge(&[ev], Some(&page)).remove(0).signature
        };
        let null = "TypeError: Cannot read properties of null (reading 'document')";
        let inline = |line| at(null, "http://app/eval/user", line);
        assert_eq!(inline(6), inline(10));
        assert_eq!(
            inline(6),
            "exception|TypeError: Cannot read properties of null (reading <str>)|http://app/eval/user|reading document"
        );
        // Another property is another failure; so is another page, and a script file's
        // lines still tell its errors apart.
        let undef = "TypeError: Cannot read properties of null (reading 'value')";
        assert_ne!(inline(6), at(undef, "http://app/eval/user", 6));
        assert_ne!(inline(6), at(null, "http://app/eval/issue", 6));
        let file = |line| at(null, "http://app/eval/@@file/help_controls.js", line);
        assert_ne!(file(3), file(69));
        // Without the page, the lines count as before.
        let ev =
            Event::new(EventKind::Exception, null).at("http://app/eval/user", Some(6), Some(7));
        assert!(oracles().judge(&[ev], None)[0]
            .signature
            .ends_with("user:6:7"));
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

    fn control(tag: &str, locator: &str, id: &str) -> crate::model::Element {
        let mut e = crate::model::Element {
            tag: tag.into(),
            locator: locator.into(),
            visible: true,
            actionable: vec!["click".into()],
            ..Default::default()
        };
        e.attrs.insert("id".into(), id.into());
        e
    }

    #[test]
    fn page_checks_sign_once_per_kind_of_page_and_warn_when_set_to() {
        let obs = |url: &str| Observation {
            url: url.into(),
            placeholder_text: vec!["Total: NaN".into(), "Hello, undefined!".into()],
            broken_images: vec![
                "http://app/logo.png".into(),
                "http://cdn/blocked.png".into(),
            ],
            unnamed_controls: vec!["#q".into()],
            elements: vec![
                control("button", "#save", "save"),
                control("button", "div > button", "save"),
                control("input", "#q", "q"),
                // The same id in another root (a shadow root) is another document's.
                control("button", "#host >>> #save", "save"),
                // A plain element with a shared id is not interactive.
                crate::model::Element {
                    actionable: vec![],
                    ..control("div", "#panel", "q")
                },
            ],
            ..Observation::default()
        };
        let f = oracles().page_checks(&obs("http://app/orders/7"), &BTreeSet::new());
        let kinds: Vec<(&str, bool)> = f.iter().map(|f| (f.kind.as_str(), f.warning)).collect();
        assert_eq!(
            kinds,
            [
                ("placeholder_text", false),
                ("placeholder_text", false),
                ("broken_resource", false),
                ("duplicate_id", true),
                ("unnamed_control", true),
            ],
            "{f:#?}"
        );
        assert_eq!(f[0].signature, "placeholder_text|NaN|http://app/orders/<n>");
        assert_eq!(
            f[1].signature,
            "placeholder_text|undefined|http://app/orders/<n>"
        );
        assert!(
            f[2].message.contains("http://app/logo.png"),
            "{}",
            f[2].message
        );
        assert!(
            f[3].message
                .starts_with("id \"save\" is on 2 interactive elements"),
            "{}",
            f[3].message
        );
        // Another order shows the same faults: the same signatures.
        let again = oracles().page_checks(&obs("http://app/orders/8"), &BTreeSet::new());
        let sigs = |f: &[Finding]| f.iter().map(|f| f.signature.clone()).collect::<Vec<_>>();
        assert_eq!(sigs(&again), sigs(&f));
        // Configured: failures, or nothing.
        let cfg = OracleConfig {
            placeholder_text: false,
            broken_resources: false,
            duplicate_ids: Severity::Fail,
            unnamed_controls: Severity::Off,
            ..OracleConfig::default()
        };
        let o = Oracles::new(cfg, vec!["http://app".into()]).unwrap();
        let f = o.page_checks(&obs("http://app/orders/7"), &BTreeSet::new());
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!((f[0].kind, f[0].warning), (FailureKind::DuplicateId, false));
    }

    #[test]
    fn a_subresource_of_the_app_answering_4xx_is_a_broken_resource_and_a_fetch_is_not() {
        let mut img = Event::http(404, "http://app/logo.png", false);
        img.resource = Some("image".into());
        let mut cdn = Event::http(404, "http://cdn/logo.png", false);
        cdn.resource = Some("image".into());
        let fetch = Event::http(404, "http://app/api/items/9", false);
        let f = oracles().judge(&[img.clone(), cdn, fetch.clone()], None);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].kind, FailureKind::BrokenResource);
        assert_eq!(
            f[0].message,
            "HTTP 404 from http://app/logo.png (image of the page)"
        );
        // With http_4xx on, it is that failure, once.
        let cfg = OracleConfig {
            http_4xx: true,
            ..OracleConfig::default()
        };
        let o = Oracles::new(cfg, vec!["http://app".into()]).unwrap();
        let kinds: Vec<_> = o
            .judge(&[img, fetch], None)
            .iter()
            .map(|f| f.kind)
            .collect();
        assert_eq!(kinds, [FailureKind::Http4xx, FailureKind::Http4xx]);
    }

    #[test]
    fn warnings_are_booked_apart_from_failures() {
        let mut book = FailureBook::default();
        let mut w = Finding::new(FailureKind::DuplicateId, "id \"a\"".into(), None);
        w.warning = true;
        assert!(book
            .record(
                w.clone(),
                1,
                1,
                "http://app/",
                &[],
                &ServerOutput::default()
            )
            .is_none());
        assert!(book
            .record(w, 2, 1, "http://app/", &[], &ServerOutput::default())
            .is_none());
        assert!(book.is_empty());
        assert_eq!(book.warnings().len(), 1);
        assert_eq!((book.warnings()[0].step, book.warnings()[0].count), (1, 2));
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
    fn a_placeholder_word_the_run_typed_is_an_echo_not_a_failure() {
        let obs = Observation {
            url: "http://app/name".into(),
            placeholder_text: vec!["Saved null".into(), "Total: NaN".into()],
            ..Observation::default()
        };
        let kinds = |typed: &[&str]| -> Vec<String> {
            let typed: BTreeSet<String> = typed.iter().map(|t| t.to_string()).collect();
            oracles()
                .judge_typed(&[], Some(&obs), &typed)
                .into_iter()
                .map(|f| f.message)
                .collect()
        };
        // Nothing typed, or something else: both are failures.
        assert_eq!(kinds(&[]).len(), 2);
        assert_eq!(kinds(&["Ada"]).len(), 2);
        // "null" was typed and is shown back; the NaN beside it is still the page's own.
        let left = kinds(&["null"]);
        assert_eq!(left.len(), 1, "{left:?}");
        assert!(left[0].contains("NaN"), "{left:?}");
        // A typed value that holds the word but is not what the page shows does not hide it.
        assert_eq!(kinds(&["null pointer"]).len(), 2);
    }

    fn shows_error(url: &str, text: &str) -> Observation {
        Observation {
            url: url.into(),
            error_text: Some(text.into()),
            ..Observation::default()
        }
    }

    #[test]
    fn one_error_message_is_one_failure_on_whichever_page_it_is_shown() {
        let trace = "Traceback (most recent call last): File \"/srv/kernel.py\", line 88, in run IndexError: list index out of range";
        let sig = |url: &str, text: &str| {
            let f = oracles().judge(&[], Some(&shows_error(url, text)));
            assert_eq!(f.len(), 1, "{f:?}");
            assert_eq!(f[0].kind, FailureKind::ErrorText);
            f[0].signature.clone()
        };
        let first = sig("http://app/notebooks/Untitled.ipynb?kernel=1", trace);
        // Another notebook, another kind of page: the same error, one failure.
        assert_eq!(sig("http://app/notebooks/Untitled1.ipynb", trace), first);
        assert_eq!(sig("http://app/owners/7", trace), first);
        // Another error is another failure.
        assert_ne!(
            sig(
                "http://app/notebooks/Untitled.ipynb",
                "Internal Server Error"
            ),
            first
        );
        // The page is still where it was seen, without its query.
        let f = oracles().judge(&[], Some(&shows_error("http://app/owners/7?x=1", trace)));
        assert_eq!(f[0].source.as_deref(), Some("http://app/owners/7"));
    }

    #[test]
    fn error_text_quoting_a_typed_value_is_an_echo_not_a_failure() {
        let name_error = "NameError Traceback (most recent call last) Cell In[1], line 1 ----> 1 grydj9ra NameError: name 'grydj9ra' is not defined";
        let found = |text: &str, typed: &[&str]| -> usize {
            let typed: BTreeSet<String> = typed.iter().map(|t| t.to_string()).collect();
            let obs = shows_error("http://app/notebooks/1", text);
            oracles().judge_typed(&[], Some(&obs), &typed).len()
        };
        assert_eq!(found(name_error, &[]), 1);
        assert_eq!(found(name_error, &["Ada", "grydj9"]), 1);
        assert_eq!(found(name_error, &["Ada", "grydj9ra"]), 0);
        // A short value counts quoted; a number is not the number of "line 1".
        assert_eq!(found("NameError: name 'x' is not defined", &["x"]), 0);
        assert_eq!(found(name_error, &["1"]), 1);
        assert_eq!(found(name_error, &["In"]), 1);
        // The kernel's own error names nothing typed: still a failure.
        let own = "Traceback (most recent call last): File \"/srv/kernel.py\", line 88 IndexError: list index out of range";
        assert_eq!(found(own, &["grydj9ra", "total(sales)"]), 1);
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
                book.record(f, step, 1, "http://app/", &trace, &ServerOutput::default());
            }
        }
        assert_eq!(book.len(), 1);
        assert_eq!(book.failures()[0].step, 3);
        assert_eq!(book.failures()[0].count, 3);
    }
}
