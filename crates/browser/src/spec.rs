//! The user's specification (`BrowserOptions::spec`, a bundle from `wayfarer-spec`) in the
//! browser. The bundle runs in every document of the page, where ONE evaluation per
//! captured state runs all its extractors; a host page (about:blank in the same browser)
//! holds its properties, whose formulas and closures must outlive the application's page
//! loads, and steps them with the extracted values. Each episode checks every property
//! from its first state to its last.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chromiumoxide::cdp::browser_protocol::page::{GetNavigationHistoryParams, NavigationEntry};
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use chromiumoxide::cdp::js_protocol::runtime::{EvaluateParams, TimeDelta};
use chromiumoxide::Page;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use serde_json::{json, Value};
use wayfarer_core::files::FileSpec;
use wayfarer_core::keys::Chord;
use wayfarer_core::spec_action::SpecAction;
use wayfarer_core::summary::PropertyVerdict;
use wayfarer_core::{Action, ActionKind, Event, EventKind};

use crate::cdp::{call, BrowserError};
use crate::env::Inner;

/// How long the spec's code may run in one evaluation before V8 stops it (an endless
/// loop in an extractor or a formula).
const RUN_LIMIT: Duration = Duration::from_secs(2);

/// The longest a replay waits after its last action for a property to come due (an
/// `eventually(..).within(..)` deadline); a later one is not waited for.
const SETTLE_LIMIT: Duration = Duration::from_secs(60);

/// The specification's side of the environment.
pub(crate) struct SpecState {
    script: std::sync::Arc<str>,
    host: Option<Page>,
    /// An episode is under way in the host.
    open: bool,
    pub verdicts: Vec<PropertyVerdict>,
    /// The cells' names, by index (for an extractor's error).
    cells: Vec<String>,
    /// The action that led to the state about to be checked.
    pub last: Option<Action>,
    /// How many action generators the spec exports (none: nothing to ask the host).
    generators: usize,
    /// Generators whose failure was reported (once each).
    warned: std::collections::BTreeSet<String>,
    /// The history entry of the episode's first state: what came before it belongs to
    /// other episodes, which a test starting afresh would not have.
    history_from: Option<i64>,
}

impl SpecState {
    pub fn new(script: std::sync::Arc<str>) -> SpecState {
        SpecState {
            script,
            host: None,
            open: false,
            verdicts: Vec::new(),
            cells: Vec::new(),
            last: None,
            generators: 0,
            warned: Default::default(),
            history_from: None,
        }
    }

    pub fn script(&self) -> &str {
        &self.script
    }

    /// The host went with its browser (a restart): the next episode opens a new one.
    pub fn lost_browser(&mut self) {
        self.host = None;
        self.open = false;
    }
}

#[derive(Deserialize)]
struct Described {
    properties: Vec<DescribedProperty>,
    cells: Vec<String>,
    actions: Vec<String>,
}

/// What the generators offer at a state: `[weight, action]`, and the generators that threw.
#[derive(Deserialize)]
struct Offered {
    actions: Vec<(f64, Value)>,
    errors: Vec<GeneratorError>,
}

#[derive(Deserialize)]
struct GeneratorError {
    generator: String,
    message: String,
}

#[derive(Deserialize)]
struct DescribedProperty {
    name: String,
    formula: String,
}

#[derive(Deserialize)]
struct Stepped {
    violations: Vec<Violation>,
    errors: Vec<StepError>,
}

/// A property violated at a state, with the driver's message for it (property, formula,
/// the cells it read).
#[derive(Deserialize)]
struct Violation {
    property: String,
    message: String,
}

#[derive(Deserialize)]
struct StepError {
    property: String,
    message: String,
}

#[derive(Deserialize)]
struct Ended {
    property: String,
    verdict: String,
}

/// Evaluate `expression` in `page`, stopped after `RUN_LIMIT`; its JSON value.
async fn run(page: &Page, expression: String, cdp: Duration) -> Result<Value, BrowserError> {
    let params = EvaluateParams::builder()
        .expression(expression)
        .return_by_value(true)
        .await_promise(false)
        .timeout(TimeDelta::new(RUN_LIMIT.as_millis() as f64))
        .build()
        .map_err(BrowserError::Step)?;
    let ret = call(page, params, cdp + RUN_LIMIT).await?;
    if let Some(ex) = ret.exception_details {
        return Err(BrowserError::Step(crate::cdp::thrown(ex)));
    }
    Ok(ret.result.value.unwrap_or(Value::Null))
}

/// Why an evaluation stopped, in the user's words.
fn why(e: &BrowserError) -> String {
    let text = e.to_string();
    if text.contains("Execution was terminated") {
        format!(
            "did not finish within {} s (an endless loop?)",
            RUN_LIMIT.as_secs()
        )
    } else {
        text
    }
}

impl Inner {
    /// The host page, opened (with the bundle evaluated in it) when there is none.
    async fn spec_host(&mut self) -> Result<Option<Page>, BrowserError> {
        let cdp = self.lim.cdp;
        let Some(spec) = self.spec.as_mut() else {
            return Ok(None);
        };
        if let Some(p) = &spec.host {
            return Ok(Some(p.clone()));
        }
        let browser = self
            .launched
            .as_ref()
            .ok_or_else(|| BrowserError::Dead("no browser".into()))?
            .browser
            .clone();
        let page = match tokio::time::timeout(
            cdp,
            browser.new_page(CreateTargetParams::new("about:blank")),
        )
        .await
        {
            Ok(Ok(p)) => p,
            Ok(Err(e)) => return Err(crate::cdp::classify("Target.createTarget", e)),
            Err(_) => return Err(BrowserError::Timeout("Target.createTarget".into())),
        };
        let script = spec.script.to_string();
        run(&page, script, cdp).await.map_err(|e| {
            BrowserError::Step(format!("the specification failed to load: {}", why(&e)))
        })?;
        let described: Described =
            serde_json::from_value(run(&page, "__wayfarerSpec.describe()".into(), cdp).await?)
                .map_err(|e| BrowserError::Step(format!("the specification's description: {e}")))?;
        spec.cells = described.cells;
        spec.generators = described.actions.len();
        if spec.verdicts.is_empty() {
            spec.verdicts = described
                .properties
                .into_iter()
                .map(|p| PropertyVerdict {
                    name: p.name,
                    formula: p.formula,
                    ..PropertyVerdict::default()
                })
                .collect();
        }
        spec.host = Some(page.clone());
        Ok(Some(page))
    }

    /// A new episode: the one under way ends (its verdicts counted), the next begins at
    /// the state the reset is about to capture.
    pub(crate) async fn spec_begin(&mut self) -> Result<(), BrowserError> {
        self.spec_end().await;
        let cdp = self.lim.cdp;
        let Some(host) = self.spec_host().await? else {
            return Ok(());
        };
        run(&host, "__wayfarerSpec.begin()".into(), cdp).await?;
        if let Some(s) = self.spec.as_mut() {
            s.open = true;
            s.history_from = None;
        }
        Ok(())
    }

    /// The episode under way ends: each property's verdict is counted.
    pub(crate) async fn spec_end(&mut self) {
        let cdp = self.lim.cdp;
        let Some(spec) = self.spec.as_mut() else {
            return;
        };
        if !std::mem::take(&mut spec.open) {
            return;
        }
        let Some(host) = spec.host.clone() else {
            return;
        };
        let ended = match run(&host, "__wayfarerSpec.end()".into(), cdp).await {
            Ok(v) => serde_json::from_value::<Vec<Ended>>(v).unwrap_or_default(),
            Err(e) => {
                tracing::debug!(%e, "the specification's episode did not end");
                return;
            }
        };
        for e in ended {
            if let Some(v) = spec.verdicts.iter_mut().find(|v| v.name == e.property) {
                match e.verdict.as_str() {
                    "violated" => v.violated += 1,
                    "pending" => v.pending += 1,
                    "held" => v.held += 1,
                    "error" => v.errors += 1,
                    _ => {}
                }
            }
        }
    }

    /// Check the specification on the state the page shows now: extract in the page (one
    /// evaluation), step the properties in the host. `events` are the step's so far (the
    /// state's errors and console); what it finds is pushed as `Property` events.
    pub(crate) async fn spec_check(&mut self) {
        if self.spec.as_ref().is_none_or(|s| !s.open) {
            return;
        }
        let events = self.shared.lock().events.clone();
        let last = self.spec.as_mut().and_then(|s| s.last.take());
        let found = match self.spec_check_inner(&events, last.as_ref()).await {
            Ok(found) => found,
            Err(e) => vec![Event::property(
                "(specification)",
                format!(
                    "the specification could not be checked on this state: {}",
                    why(&e)
                ),
            )],
        };
        for ev in found {
            self.shared.push(ev);
        }
    }

    async fn spec_check_inner(
        &mut self,
        events: &[Event],
        last: Option<&Action>,
    ) -> Result<Vec<Event>, BrowserError> {
        let cdp = self.lim.cdp;
        let page = self.page()?;
        let from = self.spec.as_ref().and_then(|s| s.history_from);
        let (history, first) = navigation_history(&page, cdp, from).await;
        if let Some(s) = self.spec.as_mut() {
            s.history_from = s.history_from.or(first);
        }
        let partial = partial_state(events, last, history);
        let call_extract = format!(
            "(() => {{ const s = globalThis.__wayfarerSpec; \
             return s ? s.extract({partial}, document, window) : null; }})()"
        );
        let mut values = run(&page, call_extract.clone(), cdp).await;
        if matches!(values, Ok(Value::Null)) {
            // A document that loaded before the bundle was registered (or a browser page).
            let script = self
                .spec
                .as_ref()
                .map(|s| s.script().to_string())
                .unwrap_or_default();
            run(&page, script, cdp).await?;
            values = run(&page, call_extract, cdp).await;
        }
        let values = match values {
            Ok(v) => v,
            Err(e) => {
                // One evaluation runs them all: which one looped cannot be told apart.
                return Ok(vec![Event::property(
                    "(extractors)",
                    format!("the extractors could not run on this page: {}", why(&e)),
                )]);
            }
        };
        let mut out = Vec::new();
        let names = self
            .spec
            .as_ref()
            .map(|s| s.cells.clone())
            .unwrap_or_default();
        for v in values.as_array().into_iter().flatten() {
            if let (Some(i), Some(err)) = (v[0].as_u64(), v.get(2).and_then(Value::as_str)) {
                let cell = names
                    .get(i as usize)
                    .cloned()
                    .unwrap_or_else(|| format!("cell #{i}"));
                out.push(Event::property(
                    format!("extractor {cell}"),
                    format!("the extractor of {cell} {err}"),
                ));
            }
        }
        let now = now_ms();
        let Some(host) = self.spec_host().await? else {
            return Ok(out);
        };
        let stepped = match run(&host, format!("__wayfarerSpec.step({values}, {now})"), cdp).await {
            Ok(v) => v,
            Err(e) => {
                // A host that is gone is opened again for the next episode.
                if let (Some(s), BrowserError::Dead(_) | BrowserError::Protocol(..)) =
                    (self.spec.as_mut(), &e)
                {
                    s.lost_browser();
                }
                return Err(BrowserError::Step(format!("its properties: {}", why(&e))));
            }
        };
        let stepped: Stepped = serde_json::from_value(stepped)
            .map_err(|e| BrowserError::Step(format!("the properties' answer: {e}")))?;
        for v in stepped.violations {
            out.push(Event::property(&v.property, v.message));
        }
        for e in stepped.errors {
            out.push(Event::property(
                &e.property,
                format!("{} could not be evaluated: {}", e.property, e.message),
            ));
        }
        Ok(out)
    }

    /// How long until a property of the episode under way comes due (the driver's `due`),
    /// when that is within `SETTLE_LIMIT`; `None` when none is.
    pub(crate) async fn spec_due(&mut self) -> Option<Duration> {
        let spec = self.spec.as_ref().filter(|s| s.open)?;
        let host = spec.host.clone()?;
        let due = run(&host, "__wayfarerSpec.due()".into(), self.lim.cdp)
            .await
            .ok()?
            .as_f64()?;
        // A deadline is passed by a state strictly later than it: a margin past it.
        let wait = Duration::from_millis((due as u64).saturating_sub(now_ms()) + 100);
        if wait > SETTLE_LIMIT {
            tracing::info!(
                ?wait,
                "a property comes due later than a replay waits; not waiting"
            );
            return None;
        }
        Some(wait)
    }

    /// The actions the spec's generators offer at the state last checked, weighted as
    /// the driver's `actions` weighs them (each generator 1 in all). A generator that
    /// throws or offers what cannot be done is reported once and left out.
    pub(crate) async fn spec_actions(&mut self, seed: u32) -> Vec<(f64, Action)> {
        let cdp = self.lim.cdp;
        let Some(spec) = self.spec.as_mut().filter(|s| s.open && s.generators > 0) else {
            return Vec::new();
        };
        let Some(host) = spec.host.clone() else {
            return Vec::new();
        };
        let offered = run(&host, format!("__wayfarerSpec.actions({seed})"), cdp)
            .await
            .map_err(|e| why(&e))
            .and_then(|v| serde_json::from_value::<Offered>(v).map_err(|e| e.to_string()));
        let offered = match offered {
            Ok(o) => o,
            Err(e) => {
                warn_once(spec, "(generators)", &format!("could not run: {e}"));
                return Vec::new();
            }
        };
        for e in offered.errors {
            warn_once(spec, &e.generator, &format!("threw: {}", e.message));
        }
        // 0.7's templates (ranges, string generators) drawn with the step's seed.
        let mut rng = ChaCha8Rng::seed_from_u64(u64::from(seed));
        let mut out = Vec::new();
        for (w, v) in offered.actions {
            match SpecAction::from_template(&v, &mut rng) {
                Ok(a) if w > 0.0 && w.is_finite() => out.push((w, a.to_action())),
                Ok(_) => {}
                Err(e) => warn_once(spec, "(an action)", &e.0),
            }
        }
        out
    }

    /// The verdicts so far, the episode under way ended (the run is over).
    pub(crate) async fn spec_verdicts(&mut self) -> Vec<PropertyVerdict> {
        self.spec_end().await;
        self.spec
            .as_ref()
            .map(|s| s.verdicts.clone())
            .unwrap_or_default()
    }
}

/// A generator's failure, in the log once per generator (it would fail at every state).
fn warn_once(spec: &mut SpecState, generator: &str, what: &str) {
    if spec.warned.insert(generator.to_string()) {
        tracing::warn!(
            "the specification's action generator {generator} {what}; its actions are left out"
        );
    }
}

/// Milliseconds since the Unix epoch: the time of a state, as the formulas read it.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The tab's session history as Bombadil 0.7's `navigationHistory` gives it, from the
/// entry `from` (the episode's first) on: the entries before the current one, the current
/// one, the ones after (`null` when Chromium cannot tell, between two documents). Also the
/// current entry's id, the episode's first when `from` is not known yet.
async fn navigation_history(page: &Page, cdp: Duration, from: Option<i64>) -> (Value, Option<i64>) {
    let Ok(h) = call(page, GetNavigationHistoryParams::default(), cdp).await else {
        return (Value::Null, None);
    };
    let Some(i) = usize::try_from(h.current_index)
        .ok()
        .filter(|&i| i < h.entries.len())
    else {
        return (Value::Null, None);
    };
    (history_json(&h.entries, i, from), Some(h.entries[i].id))
}

fn history_json(entries: &[NavigationEntry], i: usize, from: Option<i64>) -> Value {
    let entry = |e: &NavigationEntry| json!({ "id": e.id, "title": e.title, "url": e.url });
    let start = from
        .and_then(|id| entries[..=i].iter().position(|e| e.id == id))
        .unwrap_or(0);
    json!({
        "back": entries[start..i].iter().map(entry).collect::<Vec<_>>(),
        "current": entry(&entries[i]),
        "forward": entries[i + 1..].iter().map(entry).collect::<Vec<_>>(),
    })
}

/// What Bombadil's extractors see besides `document` and `window`: this state's uncaught
/// exceptions and console errors, the tab's history, and the action that led here.
fn partial_state(events: &[Event], last: Option<&Action>, history: Value) -> Value {
    let exceptions: Vec<Value> = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Exception | EventKind::UnhandledRejection))
        .map(|e| {
            json!({
                "text": e.message,
                "line": e.line.unwrap_or(0),
                "column": e.column.unwrap_or(0),
                "url": e.url,
                "remote_object": null,
                "stacktrace": null,
            })
        })
        .collect();
    let console: Vec<Value> = events
        .iter()
        .filter(|e| e.kind == EventKind::ConsoleError)
        .map(|e| json!({ "timestamp": 0, "level": "error", "args": [e.message] }))
        .collect();
    json!({
        "errors": { "uncaughtExceptions": exceptions },
        "console": console,
        "lastAction": last.map(bombadil_action),
        "navigationHistory": history,
    })
}

/// One of our actions as Bombadil 0.7's `Action` type names it, so a property reading
/// `lastAction` sees a key press as `PressKey`, a drag as `MouseDrag` (points are unknown
/// here: (0, 0)). A hover and a right click, which Bombadil cannot take, keep names of
/// their own (`Hover`, `ContextMenu`) rather than pass for clicks.
fn bombadil_action(a: &Action) -> Value {
    let name = a.target.clone().unwrap_or_default();
    let point = json!({ "x": 0, "y": 0 });
    match a.kind {
        ActionKind::Back => json!("Back"),
        ActionKind::Navigate => json!("Reload"),
        // The generator's own action, as it gave it.
        ActionKind::Spec => a
            .value
            .as_deref()
            .and_then(|v| serde_json::from_str(v).ok())
            .unwrap_or(Value::Null),
        ActionKind::Type => json!({ "TypeText": { "text": a.value, "delayMillis": 0 } }),
        ActionKind::DoubleClick => {
            json!({ "DoubleClick": { "name": name, "point": point, "delayMillis": 0 } })
        }
        ActionKind::Press => {
            let key = a.value.as_deref().unwrap_or("Enter");
            let code = Chord::parse(key).map_or(0, |c| c.code);
            json!({ "PressKey": { "code": code } })
        }
        ActionKind::Scroll => json!({
            "ScrollDown": { "origin": point, "distance": wayfarer_core::model::SCROLL_PX }
        }),
        ActionKind::Upload => {
            let file = FileSpec::parse(a.value.as_deref().unwrap_or(""));
            json!({ "SetFileInputFiles": { "selector": name, "files": [file.name] } })
        }
        ActionKind::Drag => json!({
            "MouseDrag": { "from": point, "to": point, "steps": 12, "delayMillis": 16 }
        }),
        ActionKind::Hover => json!({ "Hover": { "name": name, "point": point } }),
        ActionKind::ContextMenu => json!({ "ContextMenu": { "name": name, "point": point } }),
        _ => json!({ "Click": { "name": name, "point": point } }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chromiumoxide::cdp::browser_protocol::page::TransitionType;

    #[test]
    fn history_starts_at_the_episodes_first_entry() {
        let e = |id: i64, url: &str| NavigationEntry {
            id,
            url: url.into(),
            user_typed_url: url.into(),
            title: String::new(),
            transition_type: TransitionType::Link,
        };
        let entries = [
            e(1, "about:blank"),
            e(4, "http://a/"),
            e(7, "http://a/#x"),
            e(9, "http://a/#y"),
        ];
        let h = history_json(&entries, 2, Some(4));
        assert_eq!(h["back"].as_array().unwrap().len(), 1, "{h}");
        assert_eq!(h["back"][0]["url"], "http://a/");
        assert_eq!(h["current"]["url"], "http://a/#x");
        assert_eq!(h["forward"][0]["id"], 9);
        // An unknown first entry (gone from the history): all of it.
        assert_eq!(
            history_json(&entries, 2, Some(99))["back"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn the_partial_state_carries_this_states_exceptions_and_console_errors() {
        let events = vec![
            Event::new(EventKind::Exception, "Uncaught TypeError: x").at(
                "http://a/app.js",
                Some(3),
                Some(7),
            ),
            Event::new(EventKind::ConsoleError, "boom"),
            Event::new(EventKind::HttpResponse, "HTTP 200"),
        ];
        let history = json!({ "back": [], "current": { "id": 1, "title": "", "url": "http://a/" }, "forward": [] });
        let p = partial_state(&events, Some(&Action::back()), history);
        assert_eq!(p["errors"]["uncaughtExceptions"][0]["line"], 3);
        assert_eq!(p["console"][0]["args"][0], "boom");
        assert_eq!(p["console"].as_array().unwrap().len(), 1);
        assert_eq!(p["lastAction"], "Back");
        assert_eq!(p["navigationHistory"]["current"]["url"], "http://a/");
    }

    #[test]
    fn gestures_reach_properties_as_bombadils_actions_not_as_clicks() {
        let last = |a: Action| bombadil_action(&a);
        let on = |kind| Action::on(kind, "#x");
        assert_eq!(
            last(on(ActionKind::Press).with_value("Escape")),
            json!({ "PressKey": { "code": 27 } })
        );
        assert_eq!(
            last(on(ActionKind::Press).with_value("Control+Shift+KeyF")),
            json!({ "PressKey": { "code": 70 } })
        );
        assert_eq!(
            last(on(ActionKind::Upload).with_value("photo.png:6291456")),
            json!({ "SetFileInputFiles": { "selector": "#x", "files": ["photo.png"] } })
        );
        assert!(last(on(ActionKind::Scroll))["ScrollDown"]["distance"].as_f64() > Some(0.0));
        assert!(last(on(ActionKind::Drag).with_value("#y"))["MouseDrag"].is_object());
        assert!(last(on(ActionKind::Hover))["Hover"].is_object());
        assert!(last(on(ActionKind::ContextMenu))["ContextMenu"].is_object());
        assert!(last(on(ActionKind::Click))["Click"].is_object());
    }
}
