//! The watcher of a browser that a peer drives itself: a second CDP client on that
//! browser's websocket, attached to every page before it runs (browser-level flat
//! auto-attach with `waitForDebuggerOnStart`), so JS coverage starts before the peer's
//! first navigation. It only reads: coverage takes, events, and a scan in an isolated
//! world of its own, which the page's scripts and the peer never see.
//!
//! `Monitor` is the protocol alone (messages in, messages out, no I/O), so it is tested
//! with recorded messages; `Socket` carries it over the websocket.

use std::collections::HashMap;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};
use wayfarer_browser::{CoveragePool, PageNews, PageWatch};
use wayfarer_core::{AppProbe, Event, Observation};

/// Coverage is taken this often on every page (a take resets V8's counters, and what a
/// replaced document ran since the last take is lost, so often).
pub(crate) const TAKE_EVERY: Duration = Duration::from_millis(500);
/// A command unanswered this long is given up (its page hung or went away).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
/// The name of the watcher's isolated world in each document.
const WORLD: &str = "wayfarer-watch";
/// The application's own action log (`wayfarer_core::AppProbe`), read in the page's world
/// without calling into it beyond two builtins.
const APP_LOG: &str =
    "Array.isArray(window.__wfActions) ? window.__wfActions.slice(-5000).map(String) : null";

/// What a page needs enabled before it may run: scripts (Debugger), coverage (Profiler),
/// exceptions and console (Runtime), browser log, network, page lifecycle, crashes.
/// Coverage starts before the page is let go; `setSkipAllPauses` keeps this session out
/// of the pauses the peer's own session may use.
fn setup_commands() -> Vec<(&'static str, Value)> {
    vec![
        ("Debugger.enable", json!({})),
        ("Debugger.setSkipAllPauses", json!({ "skip": true })),
        ("Profiler.enable", json!({})),
        (
            "Profiler.startPreciseCoverage",
            json!({ "callCount": true, "detailed": true }),
        ),
        ("Runtime.enable", json!({})),
        ("Log.enable", json!({})),
        ("Network.enable", json!({})),
        ("Page.enable", json!({})),
        ("Inspector.enable", json!({})),
    ]
}

/// What an answer is for.
#[derive(Clone, Debug, PartialEq)]
enum Pending {
    Discover,
    AutoAttach,
    Setup {
        session: String,
        method: &'static str,
    },
    Take {
        session: String,
        first_load: bool,
    },
    World {
        session: String,
    },
    Scan {
        session: String,
    },
    AppLog {
        session: String,
    },
    LoginForm,
    /// Answers nobody waits for (release, detach).
    Ignored,
}

/// One page target the watcher attached to.
#[derive(Debug)]
struct Page {
    watch: PageWatch,
    /// Setup commands not answered yet; the page runs once they all are.
    setup_left: usize,
    /// The page waits for `Runtime.runIfWaitingForDebugger`.
    waiting: bool,
    coverage_on: bool,
    detached: bool,
    take_in_flight: bool,
    /// Another take is wanted once the one in flight is back (a document just loaded).
    take_again: Option<bool>,
    world: Option<i64>,
    world_in_flight: bool,
    scan_in_flight: bool,
    app_log: Option<Vec<String>>,
    last_take: Option<Instant>,
}

/// The events `page` read and no sample carried yet, as a sample of events alone.
fn drained(page: &mut Page) -> Option<Sample> {
    let events = page.watch.take_events();
    (!events.is_empty()).then(|| Sample {
        url: page.watch.url().to_string(),
        obs: None,
        events,
    })
}

/// An app page's new observation (from the watcher's scan) with the events read since
/// the page's last one; or only events (`obs` None) when its page is gone.
#[derive(Debug)]
pub(crate) struct Sample {
    pub url: String,
    pub obs: Option<Observation>,
    pub events: Vec<Event>,
}

/// Counts for the run's log.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub(crate) struct MonitorStats {
    pub pages: u64,
    pub others: u64,
    pub takes: u64,
    pub take_failures: u64,
    pub scans: u64,
    pub scan_failures: u64,
    pub setup_failures: u64,
    pub timeouts: u64,
    pub unparsed_events: u64,
}

pub(crate) struct Monitor {
    start: url::Url,
    pool: CoveragePool,
    scan_expr: String,
    next_id: u64,
    out: Vec<String>,
    pending: HashMap<u64, (Pending, Instant)>,
    pages: HashMap<String, Page>,
    /// Session ids in attach order: pages are visited in a stable order.
    order: Vec<String>,
    auto_attach: Option<Result<(), String>>,
    /// The first app document's load take has been asked for (and marked when back).
    first_load_asked: bool,
    first_load_marked: bool,
    /// Main-frame navigations to the application's pages, in order, with their time.
    navigations: Vec<(String, bool, Instant)>,
    samples: Vec<Sample>,
    pub stats: MonitorStats,
    /// The expression that says whether a page shows the login form, when there is one.
    login_form: Option<String>,
    /// Its answers not yet taken.
    login_seen: Vec<bool>,
}

impl Monitor {
    pub fn new(start: url::Url, pool: CoveragePool) -> Monitor {
        Monitor {
            start,
            pool,
            scan_expr: PageWatch::scan_expression(),
            next_id: 1,
            out: Vec::new(),
            pending: HashMap::new(),
            pages: HashMap::new(),
            order: Vec::new(),
            auto_attach: None,
            first_load_asked: false,
            first_load_marked: false,
            navigations: Vec::new(),
            samples: Vec::new(),
            stats: MonitorStats::default(),
            login_form: None,
            login_seen: Vec::new(),
        }
    }

    /// Also ask at every sample whether the page shows the login form (`expression`,
    /// from the application's login steps).
    pub fn watching_login(mut self, expression: Option<String>) -> Monitor {
        self.login_form = expression;
        self
    }

    /// What the login-form checks answered since the last call, in order.
    pub fn login_seen(&mut self) -> Vec<bool> {
        std::mem::take(&mut self.login_seen)
    }

    fn send(&mut self, session: Option<&str>, method: &str, params: Value, what: Pending) {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_string());
        }
        self.out.push(msg.to_string());
        self.pending.insert(id, (what, Instant::now()));
    }

    /// The first commands: every target (the existing ones too) attached here, paused
    /// until this session has set it up.
    pub fn begin(&mut self) {
        self.send(
            None,
            "Target.setDiscoverTargets",
            json!({ "discover": true }),
            Pending::Discover,
        );
        self.send(
            None,
            "Target.setAutoAttach",
            json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true }),
            Pending::AutoAttach,
        );
    }

    /// `Some(Ok)` once auto-attach is on: the browser may be handed to the peer.
    pub fn attached(&self) -> Option<&Result<(), String>> {
        self.auto_attach.as_ref()
    }

    /// The messages to send, in order.
    pub fn outgoing(&mut self) -> Vec<String> {
        std::mem::take(&mut self.out)
    }

    /// Read one message from the browser.
    pub fn handle(&mut self, text: &str, now: Instant) {
        let msg: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                tracing::debug!(%e, "CDP message not JSON");
                self.stats.unparsed_events += 1;
                return;
            }
        };
        let session = msg.get("sessionId").and_then(Value::as_str);
        if let Some(id) = msg.get("id").and_then(Value::as_u64) {
            let Some((what, _)) = self.pending.remove(&id) else {
                return;
            };
            let answer = match msg.get("error") {
                Some(e) => Err(e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error")
                    .to_string()),
                None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
            };
            self.answered(what, answer, now);
            return;
        }
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            return;
        };
        let params = msg.get("params").unwrap_or(&Value::Null);
        match (method, session) {
            ("Target.attachedToTarget", _) => self.attached_to(params),
            ("Target.detachedFromTarget", _) => {
                if let Some(p) = params["sessionId"]
                    .as_str()
                    .and_then(|s| self.pages.get_mut(s))
                {
                    p.detached = true;
                }
            }
            (_, Some(s)) => self.page_event(s.to_string(), method, params, now),
            _ => {}
        }
    }

    fn attached_to(&mut self, params: &Value) {
        let Some(session) = params["sessionId"].as_str().map(str::to_string) else {
            return;
        };
        let info = &params["targetInfo"];
        let waiting = params["waitingForDebugger"].as_bool().unwrap_or(false);
        let kind = info["type"].as_str().unwrap_or_default();
        let popup = info["openerId"].as_str().is_some_and(|o| !o.is_empty());
        if kind != "page" || popup {
            // Workers, popups and the like are not measured (as a strategy's browser closes
            // popups): let them run and leave them.
            self.stats.others += 1;
            if waiting {
                self.send(
                    Some(&session),
                    "Runtime.runIfWaitingForDebugger",
                    json!({}),
                    Pending::Ignored,
                );
            }
            self.send(
                None,
                "Target.detachFromTarget",
                json!({ "sessionId": session }),
                Pending::Ignored,
            );
            return;
        }
        self.stats.pages += 1;
        tracing::debug!(%session, url = info["url"].as_str().unwrap_or_default(), waiting, "page attached");
        let commands = setup_commands();
        self.pages.insert(
            session.clone(),
            Page {
                watch: PageWatch::new(&self.start, self.pool.clone()),
                setup_left: commands.len(),
                waiting,
                coverage_on: false,
                detached: false,
                take_in_flight: false,
                take_again: None,
                world: None,
                world_in_flight: false,
                scan_in_flight: false,
                app_log: None,
                last_take: None,
            },
        );
        self.order.push(session.clone());
        for (method, p) in commands {
            self.send(
                Some(&session),
                method,
                p,
                Pending::Setup {
                    session: session.clone(),
                    method,
                },
            );
        }
    }

    fn page_event(&mut self, session: String, method: &str, params: &Value, now: Instant) {
        let Some(page) = self.pages.get_mut(&session) else {
            return;
        };
        let Some(news) = page.watch.event(method, params) else {
            return;
        };
        match news {
            PageNews::Navigated { url, new_document } => {
                if new_document {
                    // The old document's world went with it.
                    page.world = None;
                }
                if page.watch.in_app(&url) {
                    self.navigations.push((url, new_document, now));
                }
            }
            PageNews::Ready { load } => {
                // What the document ran while loading, before the peer can leave it.
                let first = load && !self.first_load_asked && page.watch.in_app(page.watch.url());
                if first {
                    self.first_load_asked = true;
                }
                self.take(&session, first);
            }
            PageNews::Crashed => page.detached = true,
        }
    }

    fn answered(&mut self, what: Pending, answer: Result<Value, String>, now: Instant) {
        match what {
            Pending::Discover => {
                if let Err(e) = answer {
                    tracing::warn!(%e, "Target.setDiscoverTargets failed");
                }
            }
            Pending::AutoAttach => self.auto_attach = Some(answer.map(|_| ())),
            Pending::Setup { session, method } => {
                let Some(page) = self.pages.get_mut(&session) else {
                    return;
                };
                match answer {
                    Ok(_) if method == "Profiler.startPreciseCoverage" => page.coverage_on = true,
                    Ok(_) => {}
                    Err(e) => {
                        self.stats.setup_failures += 1;
                        tracing::debug!(method, %e, "page setup command failed");
                    }
                }
                page.setup_left = page.setup_left.saturating_sub(1);
                if page.setup_left == 0 && std::mem::take(&mut page.waiting) {
                    self.send(
                        Some(&session),
                        "Runtime.runIfWaitingForDebugger",
                        json!({}),
                        Pending::Ignored,
                    );
                }
            }
            Pending::Take {
                session,
                first_load,
            } => {
                if let Some(page) = self.pages.get_mut(&session) {
                    page.take_in_flight = false;
                    page.last_take = Some(now);
                    match answer.and_then(|r| page.watch.merge_coverage(&r)) {
                        Ok(()) => self.stats.takes += 1,
                        Err(e) => {
                            if !page.detached {
                                self.stats.take_failures += 1;
                                tracing::debug!(%e, "coverage take failed");
                            }
                        }
                    }
                    if let Some(first) = page.take_again.take() {
                        self.take(&session, first);
                    }
                }
                if first_load {
                    self.pool.mark_first_load();
                    self.first_load_marked = true;
                    tracing::debug!(coverage = ?self.pool.snapshot(), "first load marked");
                }
            }
            Pending::World { session } => {
                let Some(page) = self.pages.get_mut(&session) else {
                    return;
                };
                page.world_in_flight = false;
                match answer {
                    Ok(r) => {
                        page.world = r["executionContextId"].as_i64();
                        self.scan(&session);
                    }
                    Err(e) => {
                        self.stats.scan_failures += 1;
                        tracing::debug!(%e, "isolated world not created");
                    }
                }
            }
            Pending::Scan { session } => {
                let Some(page) = self.pages.get_mut(&session) else {
                    return;
                };
                page.scan_in_flight = false;
                let obs = answer.and_then(|r| {
                    if let Some(ex) = r.get("exceptionDetails") {
                        return Err(format!("scan threw: {}", ex["text"]));
                    }
                    PageWatch::read_scan(&r["result"]["value"])
                });
                match obs {
                    Ok(mut obs) => {
                        self.stats.scans += 1;
                        // The isolated world sees the DOM, not the page's globals: the
                        // action log comes from the page's world.
                        if let Some(log) = page.app_log.clone() {
                            let app = obs.app.get_or_insert_with(AppProbe::default);
                            app.actions = log;
                        }
                        let events = page.watch.take_events();
                        self.samples.push(Sample {
                            url: obs.url.clone(),
                            obs: Some(obs),
                            events,
                        });
                    }
                    Err(e) => {
                        // Mostly a document replaced under the scan: a new world next time.
                        self.stats.scan_failures += 1;
                        page.world = None;
                        tracing::debug!(%e, "watch scan failed");
                    }
                }
            }
            Pending::AppLog { session } => {
                if let (Some(page), Ok(r)) = (self.pages.get_mut(&session), answer) {
                    if let Some(a) = r["result"]["value"].as_array() {
                        page.app_log = Some(
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_string))
                                .collect(),
                        );
                    }
                }
            }
            Pending::LoginForm => {
                if let Ok(r) = answer {
                    self.login_seen
                        .push(r["result"]["value"].as_bool().unwrap_or(false));
                }
            }
            Pending::Ignored => {}
        }
    }

    /// Ask for a coverage take of the page (`first_load`: mark the first load when back).
    fn take(&mut self, session: &str, first_load: bool) {
        let Some(page) = self.pages.get_mut(session) else {
            return;
        };
        if !page.coverage_on || page.detached {
            if first_load {
                // Never measured: the mark is due all the same.
                self.pool.mark_first_load();
                self.first_load_marked = true;
            }
            return;
        }
        if page.take_in_flight {
            // The take in flight may predate what just ran: one more after it.
            let again = page.take_again.unwrap_or(false) || first_load;
            page.take_again = Some(again);
            return;
        }
        page.take_in_flight = true;
        self.send(
            Some(session),
            "Profiler.takePreciseCoverage",
            json!({}),
            Pending::Take {
                session: session.to_string(),
                first_load,
            },
        );
    }

    fn scan(&mut self, session: &str) {
        let Some(page) = self.pages.get_mut(session) else {
            return;
        };
        let Some(world) = page.world else {
            return;
        };
        page.scan_in_flight = true;
        let expr = self.scan_expr.clone();
        self.send(
            Some(session),
            "Runtime.evaluate",
            // silent: nothing the scan does is reported as the page's, nor pauses it.
            json!({ "expression": expr, "contextId": world, "returnByValue": true, "silent": true }),
            Pending::Scan {
                session: session.to_string(),
            },
        );
    }

    /// Every `TAKE_EVERY`, a take on every live page; commands unanswered for too long
    /// are given up.
    pub fn tick(&mut self, now: Instant) {
        let due: Vec<String> = self
            .order
            .iter()
            .filter(|s| {
                self.pages.get(*s).is_some_and(|p| {
                    p.coverage_on
                        && !p.detached
                        && !p.take_in_flight
                        && p.last_take
                            .is_none_or(|t| now.duration_since(t) >= TAKE_EVERY)
                })
            })
            .cloned()
            .collect();
        for s in due {
            self.take(&s, false);
        }
        let expired: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, (_, at))| now.duration_since(*at) >= COMMAND_TIMEOUT)
            .map(|(id, _)| *id)
            .collect();
        for id in expired {
            if let Some((what, _)) = self.pending.remove(&id) {
                self.stats.timeouts += 1;
                tracing::debug!(?what, "CDP command timed out");
                self.answered(what, Err("timed out".into()), now);
            }
        }
    }

    /// Scan every live page of the application (and read its action log): the samples
    /// come back through `samples`.
    pub fn sample(&mut self) {
        let live: Vec<String> = self
            .order
            .iter()
            .filter(|s| {
                self.pages.get(*s).is_some_and(|p| {
                    !p.detached && p.setup_left == 0 && p.watch.in_app(p.watch.url())
                })
            })
            .cloned()
            .collect();
        for s in live {
            let page = self.pages.get_mut(&s).expect("listed above");
            if page.scan_in_flight || page.world_in_flight {
                continue;
            }
            let has_world = page.world.is_some();
            if !has_world {
                page.world_in_flight = true;
            }
            let frame = page.watch.main_frame().unwrap_or_default().to_string();
            self.send(
                Some(&s),
                "Runtime.evaluate",
                json!({ "expression": APP_LOG, "returnByValue": true, "silent": true }),
                Pending::AppLog { session: s.clone() },
            );
            // Before the scan: its answer comes first, so the scan's page is counted as
            // behind the login or not by what this page shows.
            if let Some(check) = self.login_form.clone() {
                self.send(
                    Some(&s),
                    "Runtime.evaluate",
                    json!({ "expression": check, "returnByValue": true, "silent": true }),
                    Pending::LoginForm,
                );
            }
            if has_world {
                self.scan(&s);
            } else {
                self.send(
                    Some(&s),
                    "Page.createIsolatedWorld",
                    json!({ "frameId": frame, "worldName": WORLD }),
                    Pending::World { session: s.clone() },
                );
            }
        }
    }

    /// The samples that came back since the last call, then the events of pages that
    /// are gone (with no observation).
    pub fn samples(&mut self) -> Vec<Sample> {
        let mut out = std::mem::take(&mut self.samples);
        for s in &self.order {
            let page = self.pages.get_mut(s).expect("ordered pages exist");
            if page.detached {
                out.extend(drained(page));
            }
        }
        out
    }

    /// Every page's events not yet in a sample (the end of a run).
    pub fn rest(&mut self) -> Vec<Sample> {
        let mut out = self.samples();
        for s in &self.order {
            let page = self.pages.get_mut(s).expect("ordered pages exist");
            out.extend(drained(page));
            self.stats.unparsed_events += std::mem::take(&mut page.watch.unparsed);
        }
        out
    }

    /// Navigations of pages to the application since the last call: (URL, new document,
    /// when).
    pub fn navigations(&mut self) -> Vec<(String, bool, Instant)> {
        std::mem::take(&mut self.navigations)
    }

    pub fn first_load_marked(&self) -> bool {
        self.first_load_marked
    }
}

/// The websocket to the browser, read with a short timeout so one thread both reads and
/// keeps the schedule.
pub(crate) struct Socket {
    ws: WebSocket<TcpStream>,
}

/// What one read gave.
pub(crate) enum Read {
    Text(String),
    Nothing,
    Closed(String),
}

impl Socket {
    /// Connect to `endpoint` (`ws://127.0.0.1:PORT/devtools/browser/ID`).
    pub fn connect(endpoint: &str, poll: Duration) -> Result<Socket, String> {
        let url = url::Url::parse(endpoint).map_err(|e| format!("bad endpoint {endpoint}: {e}"))?;
        let host = url.host_str().unwrap_or("127.0.0.1");
        let port = url.port().ok_or_else(|| format!("no port in {endpoint}"))?;
        let stream = TcpStream::connect((host, port))
            .map_err(|e| format!("cannot connect to {endpoint}: {e}"))?;
        stream.set_nodelay(true).ok();
        // Coverage answers of large applications run to tens of MB in one frame.
        let config = WebSocketConfig::default()
            .max_message_size(Some(1 << 30))
            .max_frame_size(Some(1 << 30));
        let (ws, _) = tungstenite::client::client_with_config(endpoint, stream, Some(config))
            .map_err(|e| format!("websocket handshake with {endpoint} failed: {e}"))?;
        ws.get_ref()
            .set_read_timeout(Some(poll))
            .map_err(|e| format!("socket: {e}"))?;
        Ok(Socket { ws })
    }

    pub fn read(&mut self) -> Read {
        match self.ws.read() {
            Ok(Message::Text(t)) => Read::Text(t.as_str().to_string()),
            Ok(Message::Close(_)) => Read::Closed("closed by the browser".into()),
            Ok(_) => Read::Nothing,
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Read::Nothing
            }
            Err(e) => Read::Closed(e.to_string()),
        }
    }

    pub fn send(&mut self, text: String) -> Result<(), String> {
        self.ws.send(Message::text(text)).map_err(|e| e.to_string())
    }

    pub fn close(mut self) {
        let _ = self.ws.close(None);
        let _ = self.ws.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = "S1";

    fn sent(m: &mut Monitor) -> Vec<Value> {
        m.outgoing()
            .iter()
            .map(|s| serde_json::from_str(s).unwrap())
            .collect()
    }

    fn answer(m: &mut Monitor, id: u64, result: Value) {
        m.handle(
            &json!({ "id": id, "result": result }).to_string(),
            Instant::now(),
        );
    }

    fn event(m: &mut Monitor, method: &str, params: Value) {
        m.handle(
            &json!({ "method": method, "params": params, "sessionId": S }).to_string(),
            Instant::now(),
        );
    }

    fn monitor() -> (Monitor, CoveragePool) {
        let pool = CoveragePool::default();
        let start = url::Url::parse("http://127.0.0.1:9000/").unwrap();
        (Monitor::new(start, pool.clone()), pool)
    }

    /// Attach a waiting page and answer its setup; returns what was sent.
    fn attach(m: &mut Monitor) -> Vec<Value> {
        m.handle(
            &json!({ "method": "Target.attachedToTarget", "params": {
                "sessionId": S, "waitingForDebugger": true,
                "targetInfo": { "targetId": "T1", "type": "page", "url": "about:blank",
                    "title": "", "attached": true, "canAccessOpener": false }}})
            .to_string(),
            Instant::now(),
        );
        let setup = sent(m);
        for c in &setup {
            answer(m, c["id"].as_u64().unwrap(), json!({}));
        }
        setup
    }

    #[test]
    fn auto_attach_comes_first() {
        let (mut m, _) = monitor();
        m.begin();
        let out = sent(&mut m);
        assert_eq!(out[0]["method"], "Target.setDiscoverTargets");
        assert_eq!(out[1]["method"], "Target.setAutoAttach");
        assert_eq!(
            out[1]["params"],
            json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true })
        );
        assert!(m.attached().is_none());
        answer(&mut m, out[1]["id"].as_u64().unwrap(), json!({}));
        assert_eq!(m.attached(), Some(&Ok(())));
    }

    #[test]
    fn a_page_runs_only_once_coverage_is_on() {
        let (mut m, _) = monitor();
        let setup = attach(&mut m);
        let methods: Vec<&str> = setup
            .iter()
            .map(|c| c["method"].as_str().unwrap())
            .collect();
        let cov = methods
            .iter()
            .position(|&x| x == "Profiler.startPreciseCoverage")
            .unwrap();
        assert!(methods[..cov].contains(&"Profiler.enable"));
        assert!(methods[..cov].contains(&"Debugger.setSkipAllPauses"));
        assert!(!methods.contains(&"Runtime.runIfWaitingForDebugger"));
        assert!(setup.iter().all(|c| c["sessionId"] == S));
        // Released after the last answer, not before.
        let after = sent(&mut m);
        assert_eq!(after.len(), 1);
        assert_eq!(after[0]["method"], "Runtime.runIfWaitingForDebugger");
    }

    #[test]
    fn workers_and_popups_are_let_go() {
        let (mut m, _) = monitor();
        m.handle(
            &json!({ "method": "Target.attachedToTarget", "params": {
                "sessionId": "W", "waitingForDebugger": true,
                "targetInfo": { "targetId": "T2", "type": "service_worker", "url": "", "title": "",
                    "attached": true, "canAccessOpener": false }}})
            .to_string(),
            Instant::now(),
        );
        let out = sent(&mut m);
        assert_eq!(out[0]["method"], "Runtime.runIfWaitingForDebugger");
        assert_eq!(out[1]["method"], "Target.detachFromTarget");
        assert_eq!(m.stats.others, 1);
    }

    fn script(id: &str, url: &str) -> Value {
        json!({"scriptId": id, "url": url, "startLine": 0, "startColumn": 0, "endLine": 1,
            "endColumn": 0, "executionContextId": 1, "hash": format!("h{id}"), "buildId": "", "length": 100})
    }

    /// A take of app.js (as `script` parsed it under `id`), run up to `covered_to`.
    fn coverage(id: &str, covered_to: i64) -> Value {
        json!({"timestamp": 1.0, "result": [{"scriptId": id, "url": "http://127.0.0.1:9000/app.js", "functions": [
            {"functionName": "", "isBlockCoverage": true, "ranges": [
                {"startOffset": 0, "endOffset": 100, "count": 1},
                {"startOffset": covered_to, "endOffset": 100, "count": 0}]}]}]})
    }

    #[test]
    fn the_first_apps_load_is_marked_and_later_takes_add() {
        let (mut m, pool) = monitor();
        attach(&mut m);
        sent(&mut m);
        // about:blank loads first: not the application's.
        event(
            &mut m,
            "Page.frameNavigated",
            json!({"frame": {"id": "T1", "url": "about:blank"}}),
        );
        event(&mut m, "Page.loadEventFired", json!({"timestamp": 1.0}));
        let t = sent(&mut m);
        assert_eq!(t[0]["method"], "Profiler.takePreciseCoverage");
        answer(
            &mut m,
            t[0]["id"].as_u64().unwrap(),
            json!({"timestamp": 1.0, "result": []}),
        );
        assert!(!m.first_load_marked());

        event(
            &mut m,
            "Page.frameNavigated",
            json!({"frame": {"id": "T1", "url": "http://127.0.0.1:9000/"}}),
        );
        event(
            &mut m,
            "Debugger.scriptParsed",
            script("5", "http://127.0.0.1:9000/app.js"),
        );
        event(
            &mut m,
            "Page.domContentEventFired",
            json!({"timestamp": 1.0}),
        );
        event(&mut m, "Page.loadEventFired", json!({"timestamp": 1.0}));
        // One take in flight (DOMContentLoaded's); the load's waits for it.
        let t = sent(&mut m);
        assert_eq!(t.len(), 1);
        answer(&mut m, t[0]["id"].as_u64().unwrap(), coverage("5", 20));
        assert!(!m.first_load_marked());
        let t = sent(&mut m);
        assert_eq!(t[0]["method"], "Profiler.takePreciseCoverage");
        answer(&mut m, t[0]["id"].as_u64().unwrap(), coverage("5", 30));
        assert!(m.first_load_marked());
        let c = pool.snapshot();
        assert_eq!((c.first_load_covered_bytes, c.covered_bytes), (30, 30));
        let navs = m.navigations();
        assert_eq!(navs.len(), 1, "about:blank is not the application's");

        // The periodic take adds to it.
        m.tick(Instant::now() + TAKE_EVERY * 2);
        let t = sent(&mut m);
        assert_eq!(t[0]["method"], "Profiler.takePreciseCoverage");
        answer(&mut m, t[0]["id"].as_u64().unwrap(), coverage("5", 80));
        let c = pool.snapshot();
        assert_eq!((c.first_load_covered_bytes, c.covered_bytes), (30, 80));
    }

    #[test]
    fn a_sample_scans_in_a_world_of_its_own_and_carries_the_events() {
        let (mut m, _) = monitor();
        attach(&mut m);
        sent(&mut m);
        m.sample();
        assert!(sent(&mut m).is_empty(), "no app page yet");
        event(
            &mut m,
            "Page.frameNavigated",
            json!({"frame": {"id": "T1", "url": "http://127.0.0.1:9000/list"}}),
        );
        event(
            &mut m,
            "Runtime.consoleAPICalled",
            json!({"type": "error", "args": [{"type": "string", "value": "boom"}],
                "executionContextId": 1, "timestamp": 2.0}),
        );
        m.sample();
        let out = sent(&mut m);
        assert_eq!(out[0]["method"], "Runtime.evaluate");
        assert_eq!(out[0]["params"]["expression"], APP_LOG);
        assert!(out[0]["params"].get("contextId").is_none());
        assert_eq!(out[1]["method"], "Page.createIsolatedWorld");
        assert_eq!(out[1]["params"]["frameId"], "T1");
        answer(
            &mut m,
            out[0]["id"].as_u64().unwrap(),
            json!({"result": {"type": "object", "value": ["a.one", "a.two"]}}),
        );
        answer(
            &mut m,
            out[1]["id"].as_u64().unwrap(),
            json!({"executionContextId": 42}),
        );
        let scan = sent(&mut m);
        assert_eq!(scan[0]["params"]["contextId"], 42);
        let obs = json!({"url": "http://127.0.0.1:9000/list", "title": "", "tags": ["html"],
            "app": {"state": "list", "actions": []}})
        .to_string();
        answer(
            &mut m,
            scan[0]["id"].as_u64().unwrap(),
            json!({"result": {"type": "string", "value": obs}}),
        );
        let samples = m.samples();
        assert_eq!(samples.len(), 1);
        let s = &samples[0];
        assert_eq!(s.events.len(), 1);
        let app = s.obs.as_ref().unwrap().app.as_ref().unwrap();
        assert_eq!(app.state.as_deref(), Some("list"));
        assert_eq!(app.actions, vec!["a.one", "a.two"]);
        // The world is kept for the next sample, and dropped with its document.
        m.sample();
        let out = sent(&mut m);
        assert_eq!(out[1]["params"]["contextId"], 42);
        answer(
            &mut m,
            out[1]["id"].as_u64().unwrap(),
            json!({"result": {"type": "string", "value": obs}}),
        );
        event(
            &mut m,
            "Page.frameNavigated",
            json!({"frame": {"id": "T1", "url": "http://127.0.0.1:9000/other"}}),
        );
        m.sample();
        let out = sent(&mut m);
        assert_eq!(out[1]["method"], "Page.createIsolatedWorld");
    }

    #[test]
    fn unanswered_commands_time_out_and_free_the_page() {
        let (mut m, _) = monitor();
        attach(&mut m);
        for c in sent(&mut m) {
            answer(&mut m, c["id"].as_u64().unwrap(), json!({}));
        }
        m.tick(Instant::now() + TAKE_EVERY);
        assert_eq!(sent(&mut m).len(), 1);
        // Still in flight: no second take.
        m.tick(Instant::now() + TAKE_EVERY * 2);
        assert!(sent(&mut m).is_empty());
        m.tick(Instant::now() + COMMAND_TIMEOUT + TAKE_EVERY);
        assert_eq!(m.stats.timeouts, 1);
        m.tick(Instant::now() + COMMAND_TIMEOUT + TAKE_EVERY * 3);
        assert_eq!(sent(&mut m).len(), 1, "takes resume");
    }

    #[test]
    fn a_crashed_page_gives_its_events_without_an_observation() {
        let (mut m, _) = monitor();
        attach(&mut m);
        event(
            &mut m,
            "Page.frameNavigated",
            json!({"frame": {"id": "T1", "url": "http://127.0.0.1:9000/"}}),
        );
        event(&mut m, "Inspector.targetCrashed", json!({}));
        let s = m.samples();
        assert_eq!(s.len(), 1);
        assert!(s[0].obs.is_none());
        assert_eq!(s[0].url, "http://127.0.0.1:9000/");
        assert_eq!(s[0].events[0].kind, wayfarer_core::EventKind::PageCrash);
    }
}
