//! A page that another tool drives, watched through a CDP session of our own that speaks
//! raw JSON (the bench's peers). Its events, its application scripts and its coverage are
//! read by the same functions as `BrowserEnv`'s own pages (events.rs, coverage.rs), so a
//! peer is measured by wayfarer's definitions and nobody else's.

use std::collections::HashMap;

use chromiumoxide::cdp::browser_protocol::log::EventEntryAdded;
use chromiumoxide::cdp::browser_protocol::network::{
    EventLoadingFailed, EventRequestWillBeSent, EventResponseReceived,
};
use chromiumoxide::cdp::browser_protocol::page::EventJavascriptDialogOpening;
use chromiumoxide::cdp::js_protocol::debugger::EventScriptParsed;
use chromiumoxide::cdp::js_protocol::profiler::TakePreciseCoverageReturns;
use chromiumoxide::cdp::js_protocol::runtime::{EventConsoleApiCalled, EventExceptionThrown};
use serde::de::DeserializeOwned;
use serde_json::Value;
use wayfarer_core::{Event, Observation};

use crate::coverage::CoveragePool;
use crate::events;
use crate::scan::{read_answer, scan_script};
use crate::scope::Scope;

/// Requests remembered for their failure's URL; a page that never finishes them is cut.
const MAX_REQUESTS: usize = 10_000;
/// Events kept between two drains, as the environment keeps.
const MAX_EVENTS: usize = 5000;

/// What an event said about the page, for the watcher's schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageNews {
    /// The main frame is at this URL now (a new document, or a route within one); the
    /// URL carries its fragment.
    Navigated { url: String, new_document: bool },
    /// `DOMContentLoaded` or `load` fired in the main frame's document.
    Ready { load: bool },
    /// The page's renderer crashed.
    Crashed,
}

/// One page session of a browser driven by someone else.
#[derive(Debug)]
pub struct PageWatch {
    scope: Scope,
    cov: CoveragePool,
    /// scriptId -> (content hash, length) for the application's scripts.
    scripts: crate::coverage::ScriptIds,
    /// requestId -> URL of the http(s) requests in flight.
    requests: HashMap<String, String>,
    events: Vec<Event>,
    main_frame: Option<String>,
    url: String,
    /// Events that did not parse (protocol drift), for the run's log.
    pub unparsed: u64,
}

fn parse<T: DeserializeOwned>(params: &Value) -> Result<T, serde_json::Error> {
    T::deserialize(params)
}

impl PageWatch {
    /// Watch a page of the application at `start` (its origin is the application's), its
    /// coverage merged into `cov`.
    pub fn new(start: &url::Url, cov: CoveragePool) -> PageWatch {
        PageWatch {
            scope: Scope::new(start, &[]),
            cov,
            scripts: Default::default(),
            requests: HashMap::new(),
            events: Vec::new(),
            main_frame: None,
            url: String::new(),
            unparsed: 0,
        }
    }

    /// The main frame's URL (with its fragment), empty before its first navigation.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The main frame's id, once it navigated.
    pub fn main_frame(&self) -> Option<&str> {
        self.main_frame.as_deref()
    }

    /// Whether `url` belongs to the application (http(s) of its origin).
    pub fn in_app(&self, url: &str) -> bool {
        self.scope.allows(url)
    }

    /// Read one event of the page's session.
    pub fn event(&mut self, method: &str, params: &Value) -> Option<PageNews> {
        match self.read(method, params) {
            Ok(news) => news,
            Err(e) => {
                self.unparsed += 1;
                tracing::debug!(method, %e, "CDP event not understood");
                None
            }
        }
    }

    fn read(
        &mut self,
        method: &str,
        params: &Value,
    ) -> Result<Option<PageNews>, serde_json::Error> {
        match method {
            "Runtime.exceptionThrown" => {
                let e: EventExceptionThrown = parse(params)?;
                self.push(events::exception_event(&e));
            }
            "Runtime.consoleAPICalled" => {
                let e: EventConsoleApiCalled = parse(params)?;
                if let Some(ev) = events::console_event(&e) {
                    self.push(ev);
                }
            }
            "Log.entryAdded" => {
                let e: EventEntryAdded = parse(params)?;
                if let Some(ev) = events::log_event(&e) {
                    self.push(ev);
                }
            }
            "Network.requestWillBeSent" => {
                let e: EventRequestWillBeSent = parse(params)?;
                if events::is_http(&e.request.url) {
                    if self.requests.len() >= MAX_REQUESTS {
                        self.requests.clear();
                    }
                    self.requests
                        .insert(e.request_id.inner().clone(), e.request.url.clone());
                }
            }
            "Network.responseReceived" => {
                let e: EventResponseReceived = parse(params)?;
                if let Some(ev) = events::response_event(&e) {
                    self.push(ev);
                }
            }
            "Network.loadingFinished" => {
                if let Some(id) = params.get("requestId").and_then(Value::as_str) {
                    self.requests.remove(id);
                }
            }
            "Network.loadingFailed" => {
                let e: EventLoadingFailed = parse(params)?;
                let url = self.requests.remove(e.request_id.inner());
                if let Some(ev) = events::failed_event(&e, url) {
                    self.push(ev);
                }
            }
            "Inspector.targetCrashed" => {
                self.push(events::crash_event());
                return Ok(Some(PageNews::Crashed));
            }
            "Page.javascriptDialogOpening" => {
                let e: EventJavascriptDialogOpening = parse(params)?;
                self.push(events::dialog_event(&e));
            }
            "Debugger.scriptParsed" => {
                let e: EventScriptParsed = parse(params)?;
                match events::app_script(&e, &self.scope) {
                    Some((hash, len)) => {
                        // In the denominator from now on, run or not.
                        self.cov.lock().register(&hash, len, &e.url);
                        self.scripts.app(e.script_id.inner(), &hash, len, &e.url);
                    }
                    None => self.scripts.other(e.script_id.inner()),
                }
            }
            "Page.frameNavigated" => {
                let frame = &params["frame"];
                if frame.get("parentId").and_then(Value::as_str).is_none() {
                    self.main_frame = frame["id"].as_str().map(str::to_string);
                    let url = format!(
                        "{}{}",
                        frame["url"].as_str().unwrap_or_default(),
                        frame["urlFragment"].as_str().unwrap_or_default()
                    );
                    self.url.clone_from(&url);
                    return Ok(Some(PageNews::Navigated {
                        url,
                        new_document: true,
                    }));
                }
            }
            "Page.navigatedWithinDocument" => {
                let frame = params["frameId"].as_str();
                if frame.is_some() && frame == self.main_frame.as_deref() {
                    let url = params["url"].as_str().unwrap_or_default().to_string();
                    self.url.clone_from(&url);
                    return Ok(Some(PageNews::Navigated {
                        url,
                        new_document: false,
                    }));
                }
            }
            "Page.domContentEventFired" => return Ok(Some(PageNews::Ready { load: false })),
            "Page.loadEventFired" => return Ok(Some(PageNews::Ready { load: true })),
            _ => {}
        }
        Ok(None)
    }

    fn push(&mut self, ev: Event) {
        tracing::debug!(kind = ?ev.kind, message = %ev.message, "watched page event");
        if self.events.len() < MAX_EVENTS {
            self.events.push(ev);
        }
    }

    /// The events read since the last call.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// Merge the result of a `Profiler.takePreciseCoverage` of this session.
    pub fn merge_coverage(&mut self, result: &Value) -> Result<(), String> {
        let ret: TakePreciseCoverageReturns =
            parse(result).map_err(|e| format!("coverage take not understood: {e}"))?;
        self.cov.lock().merge_take(&self.scripts, &ret.result);
        Ok(())
    }

    /// An expression that scans the document read-only and evaluates to the observation as
    /// a JSON string: for a context of the watcher's own (an isolated world), where it
    /// defines its function once and leaves the page's own world untouched.
    pub fn scan_expression() -> String {
        scan_script(&[]).installing().to_string()
    }

    /// The observation in the value `scan_expression` evaluated to.
    pub fn read_scan(value: &Value) -> Result<Observation, String> {
        let s = value
            .as_str()
            .ok_or_else(|| format!("scan answered {}", short(value)))?;
        read_answer(s).map_err(|e| e.to_string())
    }
}

fn short(v: &Value) -> String {
    v.to_string().chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wayfarer_core::EventKind;

    fn watch() -> (PageWatch, CoveragePool) {
        let pool = CoveragePool::default();
        let start = url::Url::parse("http://127.0.0.1:8000/").unwrap();
        (PageWatch::new(&start, pool.clone()), pool)
    }

    #[test]
    fn events_read_as_the_environment_reads_them() {
        let (mut w, _) = watch();
        w.event(
            "Runtime.exceptionThrown",
            &json!({"timestamp": 1.0, "exceptionDetails": {
                "exceptionId": 1, "text": "Uncaught", "lineNumber": 9, "columnNumber": 4,
                "url": "http://127.0.0.1:8000/app.js",
                "exception": {"type": "object", "subtype": "error", "className": "TypeError",
                    "description": "TypeError: x is undefined\n    at f (http://127.0.0.1:8000/app.js:10:5)"}}}),
        );
        w.event(
            "Runtime.consoleAPICalled",
            &json!({"type": "error", "args": [{"type": "string", "value": "bad thing"}],
                "executionContextId": 1, "timestamp": 2.0}),
        );
        w.event(
            "Runtime.consoleAPICalled",
            &json!({"type": "log", "args": [{"type": "string", "value": "fine"}],
                "executionContextId": 1, "timestamp": 2.0}),
        );
        w.event(
            "Network.requestWillBeSent",
            &json!({"requestId": "7", "loaderId": "L", "documentURL": "http://127.0.0.1:8000/",
                "request": {"url": "http://127.0.0.1:8000/api?x=1", "method": "GET", "headers": {},
                    "initialPriority": "High", "referrerPolicy": "no-referrer"},
                "timestamp": 1.0, "wallTime": 1.0, "initiator": {"type": "script"},
                "redirectHasExtraInfo": false, "type": "XHR", "frameId": "F"}),
        );
        w.event(
            "Network.loadingFailed",
            &json!({"requestId": "7", "timestamp": 1.0, "type": "XHR",
                "errorText": "net::ERR_CONNECTION_REFUSED"}),
        );
        w.event(
            "Network.loadingFailed",
            &json!({"requestId": "8", "timestamp": 1.0, "type": "XHR",
                "errorText": "net::ERR_ABORTED"}),
        );
        w.event("Inspector.targetCrashed", &json!({}));
        let evs = w.take_events();
        let kinds: Vec<EventKind> = evs.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventKind::Exception,
                EventKind::ConsoleError,
                EventKind::RequestFailed,
                EventKind::PageCrash
            ]
        );
        assert_eq!(evs[0].message, "TypeError: x is undefined");
        assert_eq!(evs[0].line, Some(10));
        assert_eq!(evs[2].url.as_deref(), Some("http://127.0.0.1:8000/api?x=1"));
        assert!(w.take_events().is_empty());
    }

    #[test]
    fn a_malformed_event_is_counted_not_fatal() {
        let (mut w, _) = watch();
        assert_eq!(
            w.event("Runtime.exceptionThrown", &json!({"nope": 1})),
            None
        );
        assert_eq!(w.unparsed, 1);
    }

    #[test]
    fn navigations_and_loads_are_news() {
        let (mut w, _) = watch();
        let n = w.event(
            "Page.frameNavigated",
            &json!({"frame": {"id": "M", "url": "http://127.0.0.1:8000/a", "urlFragment": "#/x"}}),
        );
        assert_eq!(
            n,
            Some(PageNews::Navigated {
                url: "http://127.0.0.1:8000/a#/x".into(),
                new_document: true
            })
        );
        // A subframe is not the page.
        let n = w.event(
            "Page.frameNavigated",
            &json!({"frame": {"id": "S", "parentId": "M", "url": "http://127.0.0.1:8000/f"}}),
        );
        assert_eq!(n, None);
        let n = w.event(
            "Page.navigatedWithinDocument",
            &json!({"frameId": "M", "url": "http://127.0.0.1:8000/a#/y"}),
        );
        assert!(matches!(
            n,
            Some(PageNews::Navigated {
                new_document: false,
                ..
            })
        ));
        assert_eq!(w.url(), "http://127.0.0.1:8000/a#/y");
        assert_eq!(
            w.event("Page.loadEventFired", &json!({"timestamp": 1.0})),
            Some(PageNews::Ready { load: true })
        );
        assert!(w.in_app("http://127.0.0.1:8000/z"));
        assert!(!w.in_app("http://127.0.0.1:8001/z"));
    }

    #[test]
    fn only_the_apps_scripts_are_covered() {
        let (mut w, pool) = watch();
        let script = |id: &str, url: &str, hash: &str, len: i64| {
            json!({"scriptId": id, "url": url, "startLine": 0, "startColumn": 0, "endLine": 1,
                "endColumn": 0, "executionContextId": 1, "hash": hash, "buildId": "", "length": len})
        };
        w.event(
            "Debugger.scriptParsed",
            &script("1", "http://127.0.0.1:8000/app.js", "h1", 100),
        );
        w.event(
            "Debugger.scriptParsed",
            &script("2", "http://cdn.example/lib.js", "h2", 500),
        );
        w.event("Debugger.scriptParsed", &script("3", "", "h3", 50));
        assert_eq!(pool.snapshot().total_bytes, 100);
        // A module the page compiled and named (TiddlyWiki: `Function(code +
        // "//# sourceURL=$:/core/modules/startup.js")`) is the application's; a name
        // given without `sourceURL` (a plain eval) is not.
        let mut named = script("4", "$:/core/modules/startup.js", "h4", 70);
        named["hasSourceURL"] = json!(true);
        named["executionContextAuxData"] = json!({"isDefault": true, "type": "default"});
        w.event("Debugger.scriptParsed", &named);
        w.event("Debugger.scriptParsed", &script("5", "VM12", "h5", 30));
        // A driver's named script in an isolated world is not.
        let mut driver = script(
            "6",
            "____chromiumoxide_utility_world___evaluation_script__",
            "h6",
            67,
        );
        driver["hasSourceURL"] = json!(true);
        driver["executionContextAuxData"] = json!({"isDefault": false, "type": "isolated"});
        w.event("Debugger.scriptParsed", &driver);
        assert_eq!(pool.snapshot().total_bytes, 170);
        // A take names each script by id and URL, as Chromium does.
        let take = |id: &str, url: &str| {
            json!({"timestamp": 1.0, "result": [{"scriptId": id, "url": url, "functions": [
                {"functionName": "", "isBlockCoverage": true, "ranges": [
                    {"startOffset": 0, "endOffset": 100, "count": 1},
                    {"startOffset": 50, "endOffset": 100, "count": 0}]}]}]})
        };
        w.merge_coverage(&take("1", "http://127.0.0.1:8000/app.js"))
            .unwrap();
        w.merge_coverage(&take("2", "http://cdn.example/lib.js"))
            .unwrap();
        // The page's own script under id 1 once another renderer reused it: not app.js.
        w.event("Debugger.scriptParsed", &script("1", "", "h7", 100));
        w.merge_coverage(&take("1", "")).unwrap();
        let c = pool.snapshot();
        assert_eq!((c.covered_bytes, c.total_bytes), (50, 170));
        assert!(w.merge_coverage(&json!({"result": 3})).is_err());
    }

    #[test]
    fn the_scan_answer_is_read_as_the_environments() {
        let expr = PageWatch::scan_expression();
        assert!(expr.contains("wayfarer.scan"));
        let obs = PageWatch::read_scan(&json!(
            "{\"url\":\"http://127.0.0.1:8000/\",\"title\":\"t\",\"tags\":[\"html\",\"body\"]}"
        ))
        .unwrap();
        assert_eq!(obs.tags, vec!["html", "body"]);
        assert!(PageWatch::read_scan(&json!(3)).is_err());
    }
}
