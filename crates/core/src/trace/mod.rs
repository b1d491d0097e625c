//! Traces: the actions from a reset that reached a failure, in a file format that can be
//! replayed, minimised and turned into a Playwright test. Secrets never appear in one:
//! values that came from `${NAME}` references stay references.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::{BrowserConfig, LoginStep, OracleConfig, ServerConfig};
use crate::env::{PageNames, TargetName};
use crate::model::{Action, ActionKind, Element, Observation};

mod locate;
mod role;

pub use locate::{choose, chosen, finds_now, Chosen, LocatorKind};

/// The trace file format version this build reads and writes.
pub const TRACE_VERSION: u32 = 1;

/// What a test generator needs to name the element an action targeted the way a user
/// would ("the button Save"), beyond its CSS locator.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementHint {
    pub tag: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub input_type: Option<String>,
    /// Visible text, trimmed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Text of the associated label.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// The identifying attributes among id, name, placeholder, aria-label, data-testid,
    /// data-test-id, data-test, data-cy, href.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
    /// The accessible name (see `Element::accessible_name`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// How many visible elements of the page had the same role and the same accessible
    /// name; 1 means a role+name locator is unambiguous.
    #[serde(default)]
    pub same_name: u32,
    /// How many visible elements of the page had the same label text (0 without label).
    #[serde(default)]
    pub same_label: u32,
    /// Where `role`, `name` and `same_name` came from.
    #[serde(default)]
    pub source: NameSource,
    /// Playwright's other ways to the element, counted in the page when it was acted on
    /// (absent: the page was not asked, as in traces of older builds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<PageNames>,
    /// The locator chosen when the step was recorded (absent: exports choose one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locator: Option<Chosen>,
}

/// Where an element's role and accessible name came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NameSource {
    /// Chromium's accessibility tree, read just before the action: what Playwright's
    /// `getByRole` and screen readers go by.
    Tree,
    /// wayfarer's approximation from the scan (tag, label, text): no tree was read.
    #[default]
    Guess,
}

const HINT_ATTRS: &[&str] = &[
    "id",
    "name",
    "placeholder",
    "aria-label",
    "data-testid",
    "data-test-id",
    "data-test",
    "data-cy",
    "href",
];

impl ElementHint {
    /// Take the role, name and count of namesakes from the accessibility tree, and the
    /// page's counts for the other locators, then choose the locator for `target`.
    pub fn name_from_target(&mut self, n: &TargetName, target: &str) {
        if let Some(t) = &n.tree {
            self.role = (!t.role.is_empty()).then(|| t.role.clone());
            self.name = t.name.clone();
            self.same_name = t.same;
            self.source = NameSource::Tree;
        }
        if let Some(p) = &n.page {
            if !p.label.is_empty() {
                self.label = p.label.clone();
            }
            self.same_label = p.same_label;
            self.page = Some(p.clone());
        }
        self.locator = Some(choose(target, Some(self)));
    }

    /// Describe `el` as seen on the page `obs`.
    pub fn of(el: &Element, obs: &Observation) -> ElementHint {
        let name = el.accessible_name();
        let role = el.implicit_role();
        let visible = obs.elements.iter().filter(|e| e.visible);
        let same_name = if name.is_empty() {
            0
        } else {
            visible
                .clone()
                .filter(|e| e.implicit_role() == role && e.accessible_name() == name)
                .count() as u32
        };
        let label = el.label.trim();
        let same_label = if label.is_empty() {
            0
        } else {
            visible.filter(|e| e.label.trim() == label).count() as u32
        };
        ElementHint {
            tag: el.tag.clone(),
            role,
            input_type: el.input_type.clone(),
            text: el.text.trim().to_string(),
            label: label.to_string(),
            name: name.clone(),
            attrs: HINT_ATTRS
                .iter()
                .filter_map(|k| el.attr(k).map(|v| (k.to_string(), v.to_string())))
                .collect(),
            same_name,
            same_label,
            source: NameSource::Guess,
            page: None,
            locator: None,
        }
    }
}

impl Element {
    /// The ARIA role: the explicit one, else the one HTML implies for the common tags.
    pub fn implicit_role(&self) -> Option<String> {
        if let Some(r) = &self.role {
            return Some(r.clone());
        }
        let t = self.input_type.as_deref().unwrap_or("text");
        let role = match self.tag.as_str() {
            "a" if self.attrs.contains_key("href") => "link",
            "button" => "button",
            "select" => "combobox",
            "textarea" => "textbox",
            "input" => match t {
                "button" | "submit" | "reset" | "image" => "button",
                "checkbox" => "checkbox",
                "radio" => "radio",
                "range" => "slider",
                "number" => "spinbutton",
                "search" => "searchbox",
                "text" | "email" | "tel" | "url" => "textbox",
                _ => return None,
            },
            _ => return None,
        };
        Some(role.to_string())
    }

    /// An approximation of the accessible name as browsers compute it: aria-label,
    /// else the label of a form field, else the visible text; whitespace collapsed.
    pub fn accessible_name(&self) -> String {
        let field = matches!(self.tag.as_str(), "input" | "select" | "textarea");
        let label = if field { self.label.as_str() } else { "" };
        [
            self.attr("aria-label").unwrap_or(""),
            label,
            self.text.as_str(),
        ]
        .into_iter()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|s| !s.is_empty())
        .unwrap_or_default()
    }
}

/// One action of a trace, with how its target looked when it was taken.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceStep {
    #[serde(flatten)]
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementHint>,
    /// The page the action was taken on.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
}

impl TraceStep {
    pub fn new(action: Action, obs: &Observation) -> TraceStep {
        let element = action
            .target
            .as_deref()
            .and_then(|t| obs.element(t))
            .map(|e| ElementHint::of(e, obs));
        TraceStep {
            action,
            element,
            url: obs.url.clone(),
        }
    }
}

impl TraceStep {
    /// The target for people: its role and accessible name (`button "Save"`), else the
    /// CSS locator (empty without a target).
    pub fn target_phrase(&self) -> String {
        match &self.element {
            Some(h) if !h.name.is_empty() => format!(
                "{} {:?}",
                h.role.as_deref().unwrap_or(h.tag.as_str()),
                short(&h.name, 40)
            ),
            _ => self.action.target.clone().unwrap_or_default(),
        }
    }

    /// A line for people: `click link "HTTP 500"`, `type "a@b" into textbox "E-mail"`;
    /// the CSS locator stands in when the element had no name.
    pub fn describe(&self) -> String {
        let a = &self.action;
        let what = self.target_phrase();
        let value = a.value.as_deref().map(|v| {
            let n = v.chars().count();
            if n > 30 {
                format!("{:?}… ({n} chars)", short(v, 30))
            } else {
                format!("{v:?}")
            }
        });
        match (a.kind, value) {
            (ActionKind::Type, Some(v)) => format!("type {v} into {what}"),
            (ActionKind::Select, Some(v)) => format!("select {v} in {what}"),
            (ActionKind::Press, Some(v)) if a.target.is_none() => {
                format!("press {}", v.trim_matches('"'))
            }
            (ActionKind::Press, Some(v)) => format!("press {} in {what}", v.trim_matches('"')),
            (ActionKind::Upload, Some(v)) => format!("upload {v} into {what}"),
            (ActionKind::Drag, Some(v)) => format!("drag {what} onto {v}"),
            (ActionKind::Scroll, _) if a.target.is_none() => "scroll down the page".into(),
            (ActionKind::Scroll, _) => format!("scroll down in {what}"),
            (ActionKind::ContextMenu, _) => format!("right-click {what}"),
            (ActionKind::Back, _) => "go back".to_string(),
            (ActionKind::Spec, _) => match crate::spec_action::SpecAction::of(a) {
                Ok(s) => s.describe(),
                Err(e) => format!("a spec action that cannot be read ({e})"),
            },
            (ActionKind::Navigate, v) => {
                format!("navigate to {}", v.unwrap_or(what))
            }
            (k, _) => format!("{} {what}", k.as_str().replace('_', " ")),
        }
    }
}

fn short(s: &str, n: usize) -> String {
    crate::secrets::mask_then_cut(s, n)
}

/// The failure a trace is expected to raise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expected {
    pub kind: String,
    pub signature: String,
    pub message: String,
}

/// What a replay needs besides the actions: where to start and how the browser was set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplaySetup {
    pub start_url: String,
    /// The bundled application the trace was recorded on (`wayfarer demo`), which
    /// `replay` serves again when no URL is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Whether that bundled application ran with its seeded bugs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_bugs: Option<bool>,
    #[serde(default)]
    pub allow_origins: Vec<String>,
    /// Login steps, with secrets as `${NAME}` references.
    #[serde(default)]
    pub login: Vec<LoginStep>,
    #[serde(default)]
    pub oracles: OracleConfig,
    #[serde(default)]
    pub browser: BrowserConfig,
    /// The application's server as the run started it (`[server]`, secrets as `${NAME}`):
    /// `replay` and `minimize` start it again when no URL is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerConfig>,
    /// The user's specification (`--spec`) the run checked: a replay checks it again,
    /// and an exported test checks its properties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<SpecSetup>,
}

/// A specification as a trace carries it: where it was read, and the bundle that runs
/// (so a replay checks what the run checked, even after the file changed).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SpecSetup {
    /// The entry module's path as given.
    pub file: String,
    /// The bundled script (`wayfarer_spec::bundle`).
    pub bundle: String,
}

/// A replayable failure trace (`traces/*.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub version: u32,
    /// The wayfarer version that wrote it.
    pub wayfarer: String,
    pub setup: ReplaySetup,
    pub expected: Expected,
    /// Where it came from: "explore seed 3 step 120", "minimize of ...".
    #[serde(default)]
    pub origin: String,
    /// Set when a replay showed that the failure depends on state outside the browser
    /// (see `minimize::outside_state_warning`): the steps alone may not raise it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_state: Option<String>,
    pub steps: Vec<TraceStep>,
}

/// Why a trace file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("not a wayfarer trace: {0}")]
    Malformed(String),
    #[error("trace format version {found}, this wayfarer reads version {TRACE_VERSION}; replay it with the wayfarer that wrote it ({by})")]
    Version { found: u64, by: String },
}

impl Trace {
    /// Parse a trace file's text, checking its version first so an old or new format
    /// gets a clear message rather than a field error.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| TraceError::Malformed(e.to_string()))?;
        let found = match v.get("version") {
            None => return Err(TraceError::Malformed("no \"version\" field".into())),
            Some(n) => n.as_u64().ok_or_else(|| {
                let n: String = n.to_string().chars().take(40).collect();
                TraceError::Malformed(format!("\"version\" is {n}, not a whole number"))
            })?,
        };
        // Compared whole: a version past u32 must not wrap around to this one.
        if found != u64::from(TRACE_VERSION) {
            // Cut: a hostile file should not make the message megabytes long.
            let by = v
                .get("wayfarer")
                .and_then(|v| v.as_str())
                .unwrap_or("unknown version")
                .chars()
                .take(80)
                .collect();
            return Err(TraceError::Version { found, by });
        }
        serde_json::from_value(v).map_err(|e| TraceError::Malformed(e.to_string()))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a trace always serialises")
    }

    /// The same trace for the application served at another origin (a demo app on a new
    /// port, a staging copy): every mention of the recorded origin, in the start URL,
    /// the steps and the expected signature, is moved to the origin of `start_url`.
    pub fn rebased(&self, start_url: &url::Url) -> Trace {
        let old = match url::Url::parse(&self.setup.start_url) {
            Ok(u) => u.origin().ascii_serialization(),
            Err(_) => return self.clone(),
        };
        let new = start_url.origin().ascii_serialization();
        let mv = |s: &str| s.replace(&old, &new);
        let mut t = self.clone();
        t.setup.start_url = start_url.to_string();
        t.expected.signature = mv(&t.expected.signature);
        t.expected.message = mv(&t.expected.message);
        for login in &mut t.setup.login {
            login.goto = login.goto.as_deref().map(mv);
        }
        for st in &mut t.steps {
            st.url = mv(&st.url);
            st.action.value = st.action.value.as_deref().map(mv);
            st.action.target = st.action.target.as_deref().map(mv);
        }
        t
    }

    /// The actions alone.
    pub fn actions(&self) -> Vec<Action> {
        self.steps.iter().map(|s| s.action.clone()).collect()
    }
}

/// The `${NAME}` reference syntax, compiled once.
fn reference() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("valid regex"))
}

/// Fill in `${NAME}` references of `s` with `env`; names that are not set are an error.
pub fn unmask(s: &str, mut env: impl FnMut(&str) -> Option<String>) -> Result<String, String> {
    let re = reference();
    let mut missing = Vec::new();
    let out = re.replace_all(s, |c: &regex::Captures| {
        env(&c[1]).unwrap_or_else(|| {
            missing.push(c[1].to_string());
            String::new()
        })
    });
    if missing.is_empty() {
        Ok(out.into_owned())
    } else {
        Err(format!(
            "environment variable(s) not set: {}",
            missing.join(", ")
        ))
    }
}

/// Split a `${NAME}`-bearing string into literal and reference parts, in order (for
/// generators that turn references into `process.env.NAME`).
pub fn secret_parts(s: &str) -> Vec<SecretPart<'_>> {
    let re = reference();
    let mut parts = Vec::new();
    let mut last = 0;
    for c in re.captures_iter(s) {
        let m = c.get(0).expect("whole match");
        if m.start() > last {
            parts.push(SecretPart::Literal(&s[last..m.start()]));
        }
        parts.push(SecretPart::Env(c.get(1).expect("name").as_str()));
        last = m.end();
    }
    if last < s.len() {
        parts.push(SecretPart::Literal(&s[last..]));
    }
    parts
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretPart<'a> {
    Literal(&'a str),
    Env(&'a str),
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn button(text: &str, loc: &str) -> Element {
        Element {
            locator: loc.into(),
            tag: "button".into(),
            text: text.into(),
            visible: true,
            ..Element::default()
        }
    }

    #[test]
    fn hint_counts_elements_sharing_role_and_name() {
        let obs = Observation {
            url: "http://app/".into(),
            elements: vec![
                button("Save", "#a"),
                button("Save", "#b"),
                button("Undo", "#c"),
            ],
            ..Observation::default()
        };
        let step = TraceStep::new(Action::on(ActionKind::Click, "#a"), &obs);
        let hint = step.element.clone().unwrap();
        assert_eq!(hint.role.as_deref(), Some("button"));
        assert_eq!(hint.same_name, 2);
        assert_eq!(step.describe(), "click button \"Save\"");
        let typed = TraceStep {
            action: Action::on(ActionKind::Type, "#d").with_value("x".repeat(201)),
            element: None,
            url: String::new(),
        };
        assert_eq!(
            typed.describe(),
            format!("type {:?}… (201 chars) into #d", "x".repeat(30))
        );
        let undo = ElementHint::of(&obs.elements[2], &obs);
        assert_eq!(undo.same_name, 1);
        assert_eq!(undo.name, "Undo");
    }

    #[test]
    fn the_gestures_read_as_sentences() {
        let obs = Observation::default();
        let say = |a: Action| TraceStep::new(a, &obs).describe();
        assert_eq!(
            say(Action::on(ActionKind::Press, "#q").with_value("Enter")),
            "press Enter in #q"
        );
        let escape = Action {
            kind: ActionKind::Press,
            target: None,
            value: Some("Escape".into()),
        };
        assert_eq!(say(escape), "press Escape");
        assert_eq!(
            say(Action::on(ActionKind::Upload, "#pic").with_value("photo.png:0")),
            "upload \"photo.png:0\" into #pic"
        );
        assert_eq!(
            say(Action::on(ActionKind::Drag, "#card").with_value("#done")),
            "drag #card onto \"#done\""
        );
        let page = Action {
            kind: ActionKind::Scroll,
            target: None,
            value: None,
        };
        assert_eq!(say(page), "scroll down the page");
        assert_eq!(
            say(Action::on(ActionKind::ContextMenu, "#row")),
            "right-click #row"
        );
    }

    #[test]
    fn secrets_are_unmasked_from_env() {
        let env = |k: &str| (k == "PW").then(|| "pw".to_string());
        assert_eq!(unmask("x${PW}y", env).unwrap(), "xpwy");
        assert!(unmask("${NOPE}", env).unwrap_err().contains("NOPE"));
        assert_eq!(
            secret_parts("u=${USER}!"),
            vec![
                SecretPart::Literal("u="),
                SecretPart::Env("USER"),
                SecretPart::Literal("!")
            ]
        );
    }

    #[test]
    fn trace_of_another_version_is_a_clear_error() {
        let e = Trace::parse(r#"{"version": 9, "wayfarer": "9.0.0"}"#).unwrap_err();
        assert!(e.to_string().contains("version 9"), "{e}");
        let e = Trace::parse("not json").unwrap_err();
        assert!(e.to_string().starts_with("not a wayfarer trace"), "{e}");
    }

    fn sample() -> Trace {
        Trace {
            version: TRACE_VERSION,
            wayfarer: "0.1.0".into(),
            setup: ReplaySetup {
                start_url: "http://127.0.0.1:1/".into(),
                ..ReplaySetup::default()
            },
            expected: Expected {
                kind: "exception".into(),
                signature: "exception|x|y".into(),
                message: "x".into(),
            },
            origin: "test".into(),
            outside_state: Some("depends on state outside the browser: test".into()),
            steps: vec![TraceStep {
                action: Action::on(ActionKind::Type, "#q").with_value("${PW}"),
                element: None,
                url: "http://127.0.0.1:1/".into(),
            }],
        }
    }

    #[test]
    fn trace_round_trips() {
        let t = sample();
        assert_eq!(Trace::parse(&t.to_json()).unwrap(), t);
        let moved = t.rebased(&"http://127.0.0.1:2/app".parse().unwrap());
        assert_eq!(moved.setup.start_url, "http://127.0.0.1:2/app");
        assert_eq!(moved.steps[0].url, "http://127.0.0.1:2/");
        assert_eq!(moved.expected.signature, t.expected.signature);
    }

    /// A trace with something in every part: login, element hints, several step kinds.
    fn rich() -> Trace {
        let obs = Observation {
            url: "http://127.0.0.1:1/form".into(),
            elements: vec![button("Save", "#save"), button("Save", "#other")],
            ..Observation::default()
        };
        let mut t = sample();
        t.setup.app = Some("expenses".into());
        t.setup.allow_origins = vec!["http://127.0.0.1:1".into()];
        t.setup.login = vec![LoginStep {
            goto: None,
            fill: Some("#user".into()),
            value: Some("${USER}".into()),
            click: None,
        }];
        t.steps
            .push(TraceStep::new(Action::on(ActionKind::Click, "#save"), &obs));
        t.steps.push(TraceStep::new(
            Action {
                kind: ActionKind::Navigate,
                target: None,
                value: Some("http://127.0.0.1:1/é".into()),
            },
            &obs,
        ));
        t
    }

    /// What a caller does with a trace it read: none of it may panic either.
    fn use_it(t: &Trace) {
        let _ = t.rebased(&"http://127.0.0.1:2/".parse().unwrap());
        for s in &t.steps {
            let _ = (s.describe(), s.target_phrase());
        }
        let _ = t.to_json();
    }

    /// Parse `text`: a trace of this version, or an error that says what is wrong.
    fn parse_checked(text: &str) -> Result<(), TestCaseError> {
        match Trace::parse(text) {
            Ok(t) => {
                prop_assert_eq!(t.version, TRACE_VERSION);
                use_it(&t);
            }
            Err(e) => {
                let m = e.to_string();
                prop_assert!(
                    m.starts_with("not a wayfarer trace: ")
                        || m.starts_with("trace format version"),
                    "{}",
                    m
                );
                prop_assert!(m.len() < 2000, "a short message: {}", m);
            }
        }
        Ok(())
    }

    #[test]
    fn every_cut_of_a_trace_is_an_error_that_says_so() {
        let text = rich().to_json();
        for cut in 0..text.len() {
            let part = String::from_utf8_lossy(&text.as_bytes()[..cut]);
            let e = Trace::parse(&part).unwrap_err().to_string();
            assert!(e.starts_with("not a wayfarer trace: "), "cut at {cut}: {e}");
        }
    }

    #[test]
    fn versions_past_u32_do_not_wrap_to_this_one() {
        for v in [(1u64 << 32) + 1, u64::MAX] {
            let mut json: serde_json::Value = serde_json::from_str(&sample().to_json()).unwrap();
            json["version"] = v.into();
            let e = Trace::parse(&json.to_string()).unwrap_err().to_string();
            assert!(e.contains(&format!("version {v}")), "{e}");
        }
        for (v, says) in [
            ("-1", "is -1, not a whole number"),
            ("1.0", "is 1.0"),
            ("\"1\"", "is \"1\""),
        ] {
            let e = Trace::parse(&format!(r#"{{"version": {v}}}"#))
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{v}: {e}");
        }
    }

    /// Any JSON value, keys mostly the trace's own field names, action kinds among the
    /// strings.
    fn any_json() -> impl Strategy<Value = serde_json::Value> {
        crate::testing::any_json(
            &[
                "version",
                "wayfarer",
                "setup",
                "expected",
                "steps",
                "start_url",
                "kind",
                "signature",
                "message",
                "target",
                "value",
                "element",
                "url",
                "login",
                "tag",
                "attrs",
                "same_name",
                "locator",
                "page",
                "oracles",
                "browser",
                "origin",
            ],
            ["click", "type", "1", "exception", ""]
                .map(serde_json::Value::from)
                .to_vec(),
        )
    }

    proptest::proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn any_text_is_a_trace_or_an_error_that_says_why(text in any::<String>()) {
            parse_checked(&text)?;
        }

        #[test]
        fn any_json_is_a_trace_or_an_error_that_says_why(json in any_json()) {
            parse_checked(&json.to_string())?;
        }

        #[test]
        fn a_trace_with_one_part_replaced_is_a_trace_or_an_error(
            pick in any::<prop::sample::Index>(),
            with in any_json(),
        ) {
            // Every place in the trace's JSON, as a JSON pointer; one gets `with`.
            let mut json: serde_json::Value = serde_json::from_str(&rich().to_json()).unwrap();
            let all = crate::testing::json_places(&json);
            let at = pick.get(&all).clone();
            match json.pointer_mut(&at) {
                Some(slot) => *slot = with,
                None => json = with,
            }
            parse_checked(&json.to_string())?;
        }

        #[test]
        fn a_trace_with_flipped_bytes_is_a_trace_or_an_error(
            flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..8)
        ) {
            let mut bytes = rich().to_json().into_bytes();
            for (at, x) in flips {
                let i = at.index(bytes.len());
                bytes[i] ^= x;
            }
            parse_checked(&String::from_utf8_lossy(&bytes))?;
        }

        #[test]
        fn every_other_version_is_refused_with_the_version_it_claims(
            v in prop_oneof![any::<u64>(), (1u64..8).prop_map(|k| (k << 32) | 1)]
        ) {
            prop_assume!(v != u64::from(TRACE_VERSION));
            let mut json: serde_json::Value = serde_json::from_str(&rich().to_json()).unwrap();
            json["version"] = v.into();
            let e = Trace::parse(&json.to_string()).unwrap_err();
            prop_assert!(matches!(e, TraceError::Version { found, .. } if found == v), "{}", e);
        }
    }
}
