//! The event task: one task per page merges every CDP event we rely on and turns it into
//! `wayfarer_core::Event`s, network bookkeeping for the stability wait, scope decisions on
//! paused document requests, dialog answers and the script registry for coverage.

use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::browser::EventDownloadWillBegin;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EventRequestPaused, FailRequestParams, RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::inspector::EventTargetCrashed;
use chromiumoxide::cdp::browser_protocol::log::{EventEntryAdded, LogEntryLevel, LogEntrySource};
use chromiumoxide::cdp::browser_protocol::network::{
    ErrorReason, EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent,
    EventResponseReceived, ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::{
    EventFrameStartedLoading, EventFrameStoppedLoading, EventJavascriptDialogOpening,
    HandleJavaScriptDialogParams,
};
use chromiumoxide::cdp::browser_protocol::target::{
    EventTargetCreated, GetTargetInfoParams, TargetId,
};
use chromiumoxide::cdp::js_protocol::debugger::{EventPaused, EventScriptParsed, ResumeParams};
use chromiumoxide::cdp::js_protocol::runtime::{
    ConsoleApiCalledType, EventConsoleApiCalled, EventExceptionThrown, RemoteObject, StackTrace,
};
use chromiumoxide::{Browser, Page};
use futures::{Stream, StreamExt};
use tokio::task::JoinHandle;
use wayfarer_core::config::Subresources;
use wayfarer_core::{Event, EventKind};

use crate::cdp::{call, call_browser, BrowserError};
use crate::coverage::CoveragePool;
use crate::scope::Scope;

/// One request the page has in flight.
#[derive(Debug)]
struct Req {
    url: String,
    /// Same-origin and not a long-lived stream: the stability wait waits for it.
    counted: bool,
    main_doc: bool,
    started: Instant,
}

/// A request's address without its query: the key of a long-lived endpoint.
fn endpoint(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

/// In-flight requests from Network events. Streams of different event types are not
/// ordered with each other, so a finish seen before its start is remembered.
#[derive(Debug)]
pub(crate) struct NetTracker {
    reqs: HashMap<String, Req>,
    finished_early: HashSet<String>,
    pub last_change: Instant,
    /// Since when the main frame has been loading (a navigation started and its load
    /// event has not fired); covers the gap between a document's response and its commit.
    frame_loading: Option<Instant>,
    /// Endpoints a request stayed open on past the long-request bound (long polls,
    /// streams): their requests no longer hold the stability wait.
    long_lived: HashSet<String>,
    /// When a main-document request last started or ended.
    last_doc: Option<Instant>,
}

/// How long after a main document's request ended a loading main frame still counts as
/// loading: the gap between a response and its commit, which the page cannot see.
const COMMIT_GAP: Duration = Duration::from_millis(1000);

impl Default for NetTracker {
    fn default() -> Self {
        NetTracker {
            reqs: HashMap::new(),
            finished_early: HashSet::new(),
            last_change: Instant::now(),
            frame_loading: None,
            long_lived: HashSet::new(),
            last_doc: None,
        }
    }
}

impl NetTracker {
    fn start(&mut self, id: &str, url: &str, counted: bool, main_doc: bool) {
        let counted = counted && (main_doc || !self.long_lived.contains(endpoint(url)));
        // Only what the wait waits for resets its network quiet (not the favicon, not a
        // long poll asking again).
        if counted {
            self.last_change = Instant::now();
        }
        if main_doc {
            self.last_doc = Some(Instant::now());
        }
        if self.finished_early.remove(id) {
            return;
        }
        self.reqs.insert(
            id.to_string(),
            Req {
                url: url.to_string(),
                counted,
                main_doc,
                started: Instant::now(),
            },
        );
    }

    fn finish(&mut self, id: &str) -> Option<Req> {
        let r = self.reqs.remove(id);
        if r.as_ref().is_none_or(|r| r.counted) {
            self.last_change = Instant::now();
        }
        if r.as_ref().is_some_and(|r| r.main_doc) {
            self.last_doc = Some(Instant::now());
        }
        if r.is_none() {
            if self.finished_early.len() > 1000 {
                self.finished_early.clear();
            }
            self.finished_early.insert(id.to_string());
        }
        r
    }

    /// Counted requests in flight (main documents younger than `max_age`: older ones hung
    /// and were reported), whether one of them is the main document, and a sample URL for
    /// messages. A request other than a page load still open after `long` is taken for a
    /// long poll or a stream: its endpoint stops holding the wait, now and later.
    pub fn pending(&mut self, long: Duration, max_age: Duration) -> (usize, bool, Option<String>) {
        for r in self.reqs.values_mut() {
            if r.counted && !r.main_doc && r.started.elapsed() >= long {
                r.counted = false;
                tracing::debug!(url = %r.url, "a request open this long is a long poll or a stream: not waited for");
                self.long_lived.insert(endpoint(&r.url).to_string());
            }
        }
        let mut n = 0;
        let mut doc = false;
        let mut sample = None;
        for r in self.reqs.values() {
            if r.counted && r.started.elapsed() < max_age {
                n += 1;
                doc |= r.main_doc;
                if sample.is_none() || r.main_doc {
                    sample = Some(r.url.clone());
                }
            }
        }
        (n, doc, sample)
    }

    /// The main frame started (or stopped) loading.
    fn frame(&mut self, started: bool) {
        // A navigation starting is activity; the load event ending it is not (what the
        // load handlers change, the DOM side sees).
        if started {
            self.last_change = Instant::now();
        }
        self.frame_loading = started.then(Instant::now);
    }

    /// Whether the main frame has been loading for less than `max_age`, for a document
    /// request in flight or just ended: a start without one is a route change, or a start
    /// handled after its stop (their streams are not ordered), and held waits to the bound.
    pub fn loading(&self, max_age: Duration) -> bool {
        let doc = self.reqs.values().any(|r| r.main_doc)
            || self.last_doc.is_some_and(|t| t.elapsed() < COMMIT_GAP);
        doc && self.frame_loading.is_some_and(|t| t.elapsed() < max_age)
    }

    pub fn clear(&mut self) {
        self.reqs.clear();
        self.finished_early.clear();
        self.last_change = Instant::now();
        self.frame_loading = None;
        self.last_doc = None;
    }
}

/// State written by the event tasks and read by the environment.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub events: Vec<Event>,
    pub net: NetTracker,
    /// HTTP status of the last main-document response.
    pub doc_status: Option<u16>,
    /// The main frame's id (equal to the page's target id).
    pub main_frame: String,
    pub crashed: bool,
    /// Popups seen and not yet closed (closing needs the browser, which the env owns).
    pub popups: Vec<TargetId>,
    /// Which script ids are the application's scripts.
    pub scripts: crate::coverage::ScriptIds,
    pub new_scripts: Vec<(String, usize, String)>,
    /// The websocket handler saw a fatal connection error.
    pub dead: bool,
    /// JS coverage merged over the whole run (it survives resets and restarts), shared
    /// with the other workers' browsers.
    pub cov: CoveragePool,
    /// When coverage was last taken.
    pub cov_taken: Option<Instant>,
    /// Time spent on takes while the page paused to leave, not yet counted in a step's
    /// coverage time (the pause falls inside the action or the wait).
    pub cov_paused: Duration,
    /// Coverage taken now is dropped, not pooled: the browser replays failures to
    /// shrink them (`Environment::measure`).
    pub unmeasured: bool,
    /// Main-frame document requests seen (a step that left its document).
    pub documents: u64,
    /// How long the page takes to answer a stability poll: a slow renderer stretches
    /// the quiet window.
    pub poll_rtt: crate::stability::AnswerTimes,
}

/// Events kept between two outcomes; a page flooding the console loses the excess.
const MAX_EVENTS: usize = 5000;

impl Shared {
    pub fn add(&mut self, ev: Event) {
        tracing::debug!(kind = ?ev.kind, message = %ev.message, "event");
        if self.events.len() < MAX_EVENTS {
            self.events.push(ev);
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct SharedRef(Arc<Mutex<Shared>>, Arc<tokio::sync::Notify>);

impl SharedRef {
    /// Fresh shared state whose coverage accumulates in `cov`.
    pub fn with_coverage(cov: CoveragePool) -> SharedRef {
        let r = SharedRef::default();
        r.lock().cov = cov;
        r
    }

    pub fn lock(&self) -> MutexGuard<'_, Shared> {
        // A panicked event task must not take the environment down with it.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn push(&self, ev: Event) {
        self.lock().add(ev);
    }

    /// Wake the stability wait: the network or the main frame changed.
    fn changed(&self) {
        self.1.notify_one();
    }

    /// Resolves at the next change after (or a change since) the last call.
    pub async fn next_change(&self) {
        self.1.notified().await
    }
}

enum Ev {
    Exception(Arc<EventExceptionThrown>),
    Console(Arc<EventConsoleApiCalled>),
    Log(Arc<EventEntryAdded>),
    Request(Arc<EventRequestWillBeSent>),
    Response(Arc<EventResponseReceived>),
    Finished(Arc<EventLoadingFinished>),
    Failed(Arc<EventLoadingFailed>),
    Crashed,
    Dialog(Arc<EventJavascriptDialogOpening>),
    Script(Arc<EventScriptParsed>),
    FrameLoading(String, bool),
    /// The debugger paused: at the install script's take before leaving, or at the page's
    /// own `debugger;` statement.
    DebuggerPaused(Arc<EventPaused>),
}

type EvStream = Pin<Box<dyn Stream<Item = Ev> + Send>>;

macro_rules! listen {
    ($page:expr, $ty:ty, $f:expr) => {{
        let s = $page
            .event_listener::<$ty>()
            .await
            .map_err(|e| BrowserError::Dead(e.to_string()))?;
        Box::pin(s.map($f)) as EvStream
    }};
}

/// Subscribe the page's listeners (before it navigates) and start the event task.
pub(crate) async fn subscribe(
    page: &Page,
    shared: SharedRef,
    scope: Arc<Scope>,
    cdp: Duration,
) -> Result<JoinHandle<()>, BrowserError> {
    let streams: Vec<EvStream> = vec![
        listen!(page, EventExceptionThrown, Ev::Exception),
        listen!(page, EventConsoleApiCalled, Ev::Console),
        listen!(page, EventEntryAdded, Ev::Log),
        listen!(page, EventRequestWillBeSent, Ev::Request),
        listen!(page, EventResponseReceived, Ev::Response),
        listen!(page, EventLoadingFinished, Ev::Finished),
        listen!(page, EventLoadingFailed, Ev::Failed),
        listen!(page, EventTargetCrashed, |_| Ev::Crashed),
        listen!(page, EventJavascriptDialogOpening, Ev::Dialog),
        listen!(page, EventScriptParsed, Ev::Script),
        listen!(page, EventPaused, Ev::DebuggerPaused),
        listen!(page, EventFrameStartedLoading, |e| Ev::FrameLoading(
            e.frame_id.inner().clone(),
            true
        )),
        listen!(page, EventFrameStoppedLoading, |e| Ev::FrameLoading(
            e.frame_id.inner().clone(),
            false
        )),
    ];
    let page = page.clone();
    Ok(tokio::spawn(async move {
        let mut all = futures::stream::select_all(streams);
        while let Some(ev) = all.next().await {
            handle(ev, &page, &shared, &scope, cdp);
        }
        tracing::debug!("page event streams ended");
    }))
}

/// What becomes of a paused request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Continue,
    /// A document of another origin: a navigation, a frame, a popup or a form post.
    BlockDocument,
    /// Anything else of another origin, under `subresources = "block"`.
    BlockSubresource,
}

fn verdict(url: &str, kind: &ResourceType, scope: &Scope, sub: Subresources) -> Verdict {
    if !is_http(url) || scope.allows(url) {
        Verdict::Continue
    } else if *kind == ResourceType::Document {
        Verdict::BlockDocument
    } else if sub == Subresources::Block {
        Verdict::BlockSubresource
    } else {
        Verdict::Continue
    }
}

/// Whether `frame` is the main frame of a page or popup (its id is the target's), not a
/// frame inside one; a frame when the browser cannot say.
async fn is_page(browser: &Browser, frame: String, cdp: Duration) -> bool {
    let params = GetTargetInfoParams::builder()
        .target_id(TargetId::new(frame))
        .build();
    matches!(call_browser(browser, params, cdp).await, Ok(r) if r.target_info.r#type == "page")
}

/// Requests of every target (popups, frames in other processes, workers) pause at the
/// browser: documents always, everything under `subresources = "block"`.
pub(crate) fn fetch_patterns(sub: Subresources) -> RequestPattern {
    let p = RequestPattern::builder()
        .url_pattern("*")
        .request_stage(RequestStage::Request);
    match sub {
        Subresources::Allow => p.resource_type(ResourceType::Document).build(),
        Subresources::Block => p.build(),
    }
}

/// Browser-level events: requests to decide on (scope), popups (closed later by the env)
/// and refused downloads.
pub(crate) async fn subscribe_browser(
    browser: Arc<Browser>,
    shared: SharedRef,
    scope: Arc<Scope>,
    sub: Subresources,
    cdp: Duration,
) -> Result<JoinHandle<()>, BrowserError> {
    let mut paused = browser
        .event_listener::<EventRequestPaused>()
        .await
        .map_err(|e| BrowserError::Dead(e.to_string()))?;
    let mut created = browser
        .event_listener::<EventTargetCreated>()
        .await
        .map_err(|e| BrowserError::Dead(e.to_string()))?;
    let mut downloads = browser
        .event_listener::<EventDownloadWillBegin>()
        .await
        .map_err(|e| BrowserError::Dead(e.to_string()))?;
    Ok(tokio::spawn(async move {
        loop {
            tokio::select! {
                Some(e) = paused.next() => {
                    let url = e.request.url.clone();
                    let v = verdict(&url, &e.resource_type, &scope, sub);
                    if v == Verdict::BlockSubresource {
                        tracing::debug!(%url, kind = ?e.resource_type, "request blocked (outside the allowed origins)");
                    }
                    let browser = browser.clone();
                    let shared = shared.clone();
                    let id = e.request_id.clone();
                    let frame = e.frame_id.inner().clone();
                    // Answered from a separate task: the event loop must not wait on a
                    // round trip.
                    tokio::spawn(async move {
                        let r = match v {
                            Verdict::Continue => {
                                call_browser(&browser, ContinueRequestParams::new(id), cdp).await.map(|_| ())
                            }
                            Verdict::BlockDocument => {
                                // A page stays where it was (an aborted navigation); a frame
                                // gets an error page of its own, or the page's load never
                                // finishes (TiddlyWiki's YouTube frames: 10 s per reset).
                                let page = is_page(&browser, frame, cdp).await;
                                let (what, reason) = if page {
                                    ("navigation to", ErrorReason::Aborted)
                                } else {
                                    ("frame of", ErrorReason::BlockedByClient)
                                };
                                shared.push(
                                    Event::new(
                                        EventKind::ExternalNavigation,
                                        format!("{what} {url} blocked (outside the allowed origins)"),
                                    )
                                    .at(url.clone(), None, None),
                                );
                                call_browser(&browser, FailRequestParams::new(id, reason), cdp).await.map(|_| ())
                            }
                            Verdict::BlockSubresource => {
                                call_browser(&browser, FailRequestParams::new(id, ErrorReason::BlockedByClient), cdp).await.map(|_| ())
                            }
                        };
                        if let Err(err) = r {
                            tracing::debug!(%err, "paused request not answered");
                        }
                    });
                }
                Some(ev) = created.next() => {
                    let info = &ev.target_info;
                    if info.r#type == "page" && info.opener_id.is_some() {
                        let url = if info.url.is_empty() { "a new window".to_string() } else { info.url.clone() };
                        shared.push(Event::new(EventKind::Popup, format!("popup closed: {url}")).at(info.url.clone(), None, None));
                        shared.lock().popups.push(info.target_id.clone());
                    }
                }
                Some(ev) = downloads.next() => {
                    shared.push(
                        Event::new(EventKind::Download, format!("download refused: {}", ev.suggested_filename))
                            .at(ev.url.clone(), None, None),
                    );
                }
                else => break,
            }
        }
    }))
}

pub(crate) fn is_http(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("https://")
}

fn first_line(s: &str) -> String {
    s.lines()
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(500)
        .collect()
}

fn object_text(o: &RemoteObject) -> String {
    if let Some(v) = &o.value {
        return match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    if let Some(d) = &o.description {
        return d.clone();
    }
    if let Some(u) = &o.unserializable_value {
        return u.inner().clone();
    }
    String::new()
}

/// url, 1-based line and column of the top frame.
fn top_frame(st: Option<&StackTrace>) -> Option<(String, u32, u32)> {
    let f = st?.call_frames.first()?;
    Some((
        f.url.clone(),
        (f.line_number + 1) as u32,
        (f.column_number + 1) as u32,
    ))
}

fn handle(ev: Ev, page: &Page, shared: &SharedRef, scope: &Scope, cdp: Duration) {
    let wake = matches!(
        ev,
        Ev::Request(_) | Ev::Finished(_) | Ev::Failed(_) | Ev::FrameLoading(..)
    );
    handle_inner(ev, page, shared, scope, cdp);
    if wake {
        shared.changed();
    }
}

fn handle_inner(ev: Ev, page: &Page, shared: &SharedRef, scope: &Scope, cdp: Duration) {
    match ev {
        Ev::Exception(e) => shared.push(exception_event(&e)),
        Ev::Console(e) => {
            if let Some(event) = console_event(&e) {
                shared.push(event);
            }
        }
        Ev::Log(e) => {
            if let Some(event) = log_event(&e) {
                shared.push(event);
            }
        }
        Ev::Request(e) => {
            let url = &e.request.url;
            if !is_http(url) {
                return;
            }
            let ty = e.r#type.clone();
            let main_doc = ty == Some(ResourceType::Document)
                && e.frame_id.as_ref().map(|f| f.inner().as_str())
                    == Some(shared.lock().main_frame.as_str());
            let streaming = matches!(
                ty,
                Some(ResourceType::EventSource)
                    | Some(ResourceType::WebSocket)
                    | Some(ResourceType::Ping)
                    | Some(ResourceType::Prefetch)
                    | Some(ResourceType::CspViolationReport)
            );
            // The favicon never blocks what a user sees (and error pages keep asking for it).
            let favicon = url.ends_with("/favicon.ico");
            // A request outside the document's loader (a dedicated worker's script) never
            // reports its end to the page's session.
            let detached = e.loader_id.inner().is_empty();
            let counted = scope.allows(url) && !streaming && !favicon && !detached;
            let mut s = shared.lock();
            s.documents += u64::from(main_doc);
            s.net.start(e.request_id.inner(), url, counted, main_doc);
        }
        Ev::Response(e) => {
            let Some(event) = response_event(&e) else {
                return;
            };
            let mut s = shared.lock();
            if event.document
                && e.frame_id.as_ref().map(|f| f.inner().as_str()) == Some(s.main_frame.as_str())
            {
                s.doc_status = event.status;
            }
            s.add(event);
        }
        Ev::Finished(e) => {
            shared.lock().net.finish(e.request_id.inner());
        }
        Ev::Failed(e) => {
            let mut s = shared.lock();
            let req = s.net.finish(e.request_id.inner());
            let Some(event) = failed_event(&e, req.as_ref().map(|r| r.url.clone())) else {
                return;
            };
            if req.is_some_and(|r| r.main_doc) {
                // An error page replaces the document: no HTTP status any more.
                s.doc_status = None;
            }
            s.add(event);
        }
        Ev::Crashed => {
            shared.lock().crashed = true;
            shared.push(crash_event());
        }
        Ev::DebuggerPaused(e) => {
            let ours = e
                .call_frames
                .first()
                .is_some_and(|f| f.function_name == crate::stability::TAKE_ON_LEAVE);
            let (page, shared) = (page.clone(), shared.clone());
            tokio::spawn(async move {
                // The page is about to leave its document, after every handler of what
                // made it leave: what those ran is in this take and would be lost after.
                if ours {
                    let t = Instant::now();
                    if let Err(err) = crate::coverage::take(&page, &shared, cdp).await {
                        tracing::debug!(%err, "coverage take before leaving failed");
                    }
                    shared.lock().cov_paused += t.elapsed();
                }
                if let Err(err) = call(&page, ResumeParams::default(), cdp).await {
                    tracing::debug!(%err, "debugger not resumed");
                }
            });
        }
        Ev::Dialog(e) => {
            shared.push(dialog_event(&e));
            let page = page.clone();
            tokio::spawn(async move {
                let params = HandleJavaScriptDialogParams::builder()
                    .accept(true)
                    .prompt_text("")
                    .build();
                if let Ok(p) = params {
                    if let Err(err) = call(&page, p, cdp).await {
                        tracing::debug!(%err, "dialog not answered");
                    }
                }
            });
        }
        Ev::FrameLoading(frame, started) => {
            let mut s = shared.lock();
            if frame == s.main_frame {
                tracing::trace!(started, "main frame loading");
                s.net.frame(started);
            }
        }
        Ev::Script(e) => {
            let mut s = shared.lock();
            let Some((hash, len)) = app_script(&e, scope) else {
                s.scripts.other(e.script_id.inner());
                return;
            };
            s.scripts.app(e.script_id.inner(), &hash, len, &e.url);
            s.new_scripts.push((hash, len, e.url.clone()));
        }
    }
}

// What a CDP event means for wayfarer, shared by the environment's event task and by
// `PageWatch` (a page another tool drives): one reading of each event everywhere.

/// An uncaught exception or unhandled rejection, located at its script and line.
pub(crate) fn exception_event(e: &EventExceptionThrown) -> Event {
    let d = &e.exception_details;
    let rejection = d.text.starts_with("Uncaught (in promise)");
    let message = d
        .exception
        .as_ref()
        .map(|o| first_line(&object_text(o)))
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| first_line(&d.text));
    let kind = if rejection {
        EventKind::UnhandledRejection
    } else {
        EventKind::Exception
    };
    let event = Event::new(kind, message);
    // A rejection by the browser itself (a DOMException: the clipboard refused) has no
    // script: CDP names the document at 0:0, which made one fault a failure per page
    // (Verdaccio's copy buttons, 9 signatures in one bench). The stack's top, or nothing.
    let at_start = d.line_number == 0 && d.column_number == 0;
    match d.url.as_ref().filter(|u| !u.is_empty() && !at_start) {
        Some(url) => event.at(
            url.clone(),
            Some((d.line_number + 1) as u32),
            Some((d.column_number + 1) as u32),
        ),
        None => match top_frame(d.stack_trace.as_ref()) {
            Some((u, l, c)) => event.at(u, Some(l), Some(c)),
            None => event,
        },
    }
}

/// `console.error` and failed `console.assert` calls.
pub(crate) fn console_event(e: &EventConsoleApiCalled) -> Option<Event> {
    if e.r#type != ConsoleApiCalledType::Error && e.r#type != ConsoleApiCalledType::Assert {
        return None;
    }
    let text: Vec<String> = e.args.iter().map(object_text).collect();
    let msg = console_line(&text);
    let event = Event::new(EventKind::ConsoleError, msg);
    Some(match top_frame(e.stack_trace.as_ref()) {
        Some((u, l, c)) => event.at(u, Some(l), Some(c)),
        None => event,
    })
}

/// The message of a console call: its text, masked and cut, without the blanks around it.
/// MLflow's bundle logs `console.error("", error)`: " ResizeObserver loop ..." had a
/// leading space that no `[oracles] ignore` rule written from the report's text matched.
fn console_line(args: &[String]) -> String {
    wayfarer_core::secrets::mask_then_cut(console_text(args).trim(), 500)
}

/// The line DevTools prints for a console call's arguments (as texts): a first argument
/// with format specifiers (`%s %d %i %f %o %O %c`, `%%`) takes the next ones in, as the
/// Console standard's formatter does; the rest follow, separated by spaces. Without this,
/// `console.error("%s: %o", msg, err)` read "%s: %o msg err".
fn console_text(args: &[String]) -> String {
    let Some((first, rest)) = args.split_first() else {
        return String::new();
    };
    let mut rest = rest.iter();
    let mut out = String::new();
    let mut chars = first.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('%') => {
                chars.next();
                out.push('%');
            }
            Some(spec @ ('s' | 'd' | 'i' | 'f' | 'o' | 'O' | 'c')) => {
                let Some(arg) = rest.next() else {
                    // No argument left: the specifier stays as written.
                    out.push('%');
                    continue;
                };
                chars.next();
                match spec {
                    'd' | 'i' => out.push_str(&match arg.trim().parse::<f64>() {
                        Ok(n) if n.is_finite() => format!("{}", n.trunc()),
                        _ => "NaN".to_string(),
                    }),
                    'f' => out.push_str(&match arg.trim().parse::<f64>() {
                        Ok(n) => format!("{n}"),
                        Err(_) => "NaN".to_string(),
                    }),
                    // CSS for the DevTools console: nothing to print.
                    'c' => {}
                    _ => out.push_str(arg),
                }
            }
            _ => out.push('%'),
        }
    }
    for arg in rest {
        out.push(' ');
        out.push_str(arg);
    }
    out
}

/// How Chromium begins the error it logs when it skips a page's `beforeunload` question.
const BLOCKED_BEFOREUNLOAD: &str = "Blocked attempt to show a 'beforeunload' confirmation panel";

/// Browser log entries of level error (CSP, deprecations turned errors ...).
pub(crate) fn log_event(e: &EventEntryAdded) -> Option<Event> {
    // Network entries duplicate HttpResponse/RequestFailed; violations are advice.
    let en = &e.entry;
    if en.level != LogEntryLevel::Error
        || matches!(
            en.source,
            LogEntrySource::Network | LogEntrySource::Violation
        )
    {
        return None;
    }
    // The browser skipping a page's "Leave site?" question when a reset leaves a page
    // the run never clicked (no user gesture): the run's doing, not the page's error.
    if en.text.starts_with(BLOCKED_BEFOREUNLOAD) {
        return None;
    }
    let event = Event::new(EventKind::ConsoleError, first_line(&en.text));
    Some(match &en.url {
        Some(u) => event.at(u.clone(), en.line_number.map(|l| (l + 1) as u32), None),
        None => event,
    })
}

/// The status of an http(s) response.
pub(crate) fn response_event(e: &EventResponseReceived) -> Option<Event> {
    let url = &e.response.url;
    if !is_http(url) {
        return None;
    }
    let status = e.response.status.clamp(0, u16::MAX as i64) as u16;
    let document = e.r#type == ResourceType::Document;
    let mut ev = Event::http(status, url.clone(), document);
    // A file the page shows or runs: a broken one is a broken page (`broken_resource`).
    ev.resource = match e.r#type {
        ResourceType::Image => Some("image"),
        ResourceType::Script => Some("script"),
        ResourceType::Stylesheet => Some("stylesheet"),
        ResourceType::Font => Some("font"),
        ResourceType::Media => Some("media"),
        _ => None,
    }
    .map(str::to_string);
    Some(ev)
}

/// A request that failed, at `url` when its start was seen; `None` for the failures that
/// are not the application's.
pub(crate) fn failed_event(e: &EventLoadingFailed, url: Option<String>) -> Option<Event> {
    // ERR_ABORTED is our own stopLoading, a blocked navigation, a download or a page
    // navigating away: not a failure of the application.
    // ERR_CACHE_MISS is Chrome refusing to resubmit a form when history goes back to a
    // POST result without asking the user: a property of `back`, not of the app.
    if e.error_text == "net::ERR_ABORTED" || e.error_text == "net::ERR_CACHE_MISS" {
        return None;
    }
    let mut event = Event::new(EventKind::RequestFailed, e.error_text.clone());
    event.document = e.r#type == ResourceType::Document;
    Some(match url {
        Some(u) => event.at(u, None, None),
        None => event,
    })
}

pub(crate) fn crash_event() -> Event {
    Event::new(EventKind::PageCrash, "the page's renderer crashed")
}

pub(crate) fn dialog_event(e: &EventJavascriptDialogOpening) -> Event {
    Event::new(
        EventKind::Dialog,
        format!("{}: {}", e.r#type.as_ref(), first_line(&e.message)),
    )
}

/// The content hash and length of a script of the application (coverage counts no other).
pub(crate) fn app_script(e: &EventScriptParsed, scope: &Scope) -> Option<(String, usize)> {
    // Code the page compiles itself and names with `//# sourceURL=` (TiddlyWiki's modules,
    // webpack's eval builds) is the application's too, in the page's own world only: a
    // driver names its scripts in isolated worlds (chromiumoxide's utility world).
    let main_world = e
        .execution_context_aux_data
        .as_ref()
        .and_then(|d| d.get("isDefault"))
        .and_then(serde_json::Value::as_bool)
        == Some(true);
    let named =
        main_world && e.has_source_url == Some(true) && !e.url.is_empty() && !is_http(&e.url);
    if !named && (e.url.is_empty() || !scope.allows(&e.url)) {
        return None;
    }
    let len = e.length.unwrap_or(0).max(0) as usize;
    tracing::debug!(url = %e.url, len, hash = %e.hash, "app script parsed");
    Some((e.hash.clone(), len))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use chromiumoxide::cdp::js_protocol::runtime::EventExceptionThrown;
    use wayfarer_core::EventKind;

    use super::{console_line, console_text, exception_event, NetTracker};

    const AGE: Duration = Duration::from_secs(10);

    #[test]
    fn a_frame_loading_without_a_document_request_is_not_loading() {
        // A route change of a single-page app, or a start seen after its stop.
        let mut net = NetTracker::default();
        net.frame(true);
        assert!(!net.loading(AGE));
    }

    #[test]
    fn a_frame_loading_a_document_is_loading_until_just_after_its_request_ends() {
        let mut net = NetTracker::default();
        net.frame(true);
        net.start("d", "http://127.0.0.1:1/next", true, true);
        assert!(net.loading(AGE));
        net.finish("d");
        // The response is in, the document not committed yet.
        assert!(net.loading(AGE));
        // Long after it ended (a download, a navigation that never committed): not.
        net.last_doc = Instant::now().checked_sub(Duration::from_secs(2));
        assert!(!net.loading(AGE));
        // A request of another kind does not make it a load.
        net.start("x", "http://127.0.0.1:1/api", true, false);
        assert!(!net.loading(AGE));
        net.frame(false);
        assert!(!net.loading(AGE));
    }

    fn text(args: &[&str]) -> String {
        console_text(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn thrown(details: serde_json::Value) -> EventExceptionThrown {
        serde_json::from_value(serde_json::json!({"timestamp": 1.0, "exceptionDetails": details}))
            .unwrap()
    }

    #[test]
    fn a_rejection_the_browser_raised_is_not_located_at_its_page() {
        let e = exception_event(&thrown(serde_json::json!({
            "exceptionId": 1, "text": "Uncaught (in promise)", "lineNumber": 0, "columnNumber": 0,
            "url": "http://h/-/web/detail/left-pad",
            "exception": {"type": "object", "subtype": "error", "className": "DOMException",
                "description": "NotAllowedError: Write permission denied."}
        })));
        assert_eq!(e.kind, EventKind::UnhandledRejection);
        assert_eq!((e.url, e.line), (None, None));
        // A script's line stays where it is.
        let e = exception_event(&thrown(serde_json::json!({
            "exceptionId": 2, "text": "Uncaught", "lineNumber": 58, "columnNumber": 46,
            "url": "http://h/scripts/item.js",
            "exception": {"type": "object", "description": "TypeError: x is null"}
        })));
        assert_eq!(e.kind, EventKind::Exception);
        assert_eq!(
            (e.url.as_deref(), e.line, e.column),
            (Some("http://h/scripts/item.js"), Some(59), Some(47))
        );
    }

    #[test]
    fn format_specifiers_take_the_arguments_that_follow() {
        // Wagtail's Stimulus errors: console.error("%s\n\n%o\n\n%o", message, error, detail).
        assert_eq!(
            text(&[
                "%s: %o (%o)",
                "Error invoking action",
                "RangeError: bad",
                "{}"
            ]),
            "Error invoking action: RangeError: bad ({})"
        );
        assert_eq!(
            text(&["%d items, %i left, %f%%", "3.7", "-2.2", "0.5"]),
            "3 items, -2 left, 0.5%"
        );
        assert_eq!(text(&["%d", "abc"]), "NaN");
        assert_eq!(text(&["%cstyled", "color: red"]), "styled");
    }

    #[test]
    fn arguments_without_specifiers_are_joined_by_spaces() {
        assert_eq!(text(&["failed:", "404", "/x"]), "failed: 404 /x");
        assert_eq!(text(&["100%", "done"]), "100% done");
        assert_eq!(text(&[]), "");
    }

    #[test]
    fn a_console_message_has_no_blanks_around_it() {
        let args = [
            "",
            "ResizeObserver loop completed with undelivered notifications.",
        ];
        let line = console_line(&args.map(String::from));
        assert_eq!(
            line,
            "ResizeObserver loop completed with undelivered notifications."
        );
        assert_eq!(console_line(&["  x\n".to_string()]), "x");
    }

    #[test]
    fn a_specifier_without_an_argument_stays_as_written() {
        assert_eq!(text(&["%s and %s", "one"]), "one and %s");
        assert_eq!(text(&["50%x"]), "50%x");
    }
}
