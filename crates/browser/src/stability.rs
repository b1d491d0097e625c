//! The stability wait: no pending same-origin request, no work the page has scheduled
//! (short timers, animation frames, a queued `hashchange`, a request not yet reported) and
//! no DOM mutation for `quiet`, bounded; polled cheaply (state kept by a script in the
//! page, network state from the event task), sleeping only until the earliest moment the
//! page could be stable. Known work is waited for as such, so the window itself only has
//! to cover what cannot be seen (a worker's answer, a message channel).

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::page::StopLoadingParams;
use chromiumoxide::cdp::browser_protocol::target::CloseTargetParams;
use chromiumoxide::cdp::js_protocol::runtime::TerminateExecutionParams;
use chromiumoxide::{Browser, Page};
use wayfarer_core::{Event, EventKind};

use crate::cdp::{call, call_browser, eval, BrowserError};
use crate::events::SharedRef;

/// How a hang of a page that never stopped changing its DOM begins: a peer that acts in
/// the page itself causes it, and tells it apart by this text.
pub const DOM_STILL_CHANGING: &str = "DOM still changing";

/// Installed on every new document (and lazily by the poll): the time of the last sign of
/// activity the page itself can see, whether a navigation is about to replace it, and the
/// work it has scheduled that will change it soon.
/// A request the page starts (fetch, XHR) is activity at once: the browser reports it a
/// few milliseconds later, and the wait must not end in between. The Navigation API's
/// `navigate` event fires synchronously when a link, a form or a script starts loading
/// another document, long before the browser's request event arrives.
/// Scheduled work is what a quiet window would otherwise have to outlast: a short timer
/// (`setTimeout` up to `SHORT_TIMER_MS`), an animation frame, a fragment or history
/// navigation whose `hashchange`/`popstate` is queued. A chain of timers or frames that
/// re-arm themselves (an animation, a polling loop) stops counting after a few links.
const STABILITY_INSTALL: &str = r#"(() => {
  const K = Symbol.for("wayfarer.stability");
  if (window[K]) return window[K];
  const now = () => performance.now();
  // Captured before the page's scripts: the wrappers below run inside the page's calls,
  // after it may have rewritten Function.prototype.call or Array.prototype.slice.
  const apply = Reflect.apply, listen = EventTarget.prototype.addEventListener, toNumber = Number;
  const s = { t: now(), leaving: 0, work: new Map(), gen: 0, ups: 0, id: Math.random() };
  const touch = () => { s.t = now(); };
  // Chrome acknowledges a dispatched click before the page has handled it (input waits
  // for the next frame): the wait counts the releases the document has seen. Pointer
  // events fire even where a page cancels the mouse events.
  try { addEventListener("pointerup", () => { s.ups++; touch(); }, true); } catch (e) { /* none */ }
  // A form's submission navigates in a task queued after its submit event (a link's click
  // navigates at once): until then, an unprevented submit into this window is leaving.
  try {
    addEventListener("submit", (e) => {
      const f = e.target, t = (e.submitter && e.submitter.getAttribute("formtarget")) || (f && f.target) || "";
      const m = ((e.submitter && e.submitter.getAttribute("formmethod")) || (f && f.method) || "").toLowerCase();
      if (m !== "dialog" && (t === "" || t === "_self")) { s.submitted = e; s.submittedAt = now(); touch(); }
    }, true);
  } catch (e) { /* none */ }
  try {
    new MutationObserver(touch)
      .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  } catch (e) { /* no document yet */ }
  let key = 0;
  // Work due at `due`, `gen` links down a chain of scheduled callbacks, forgotten `ttl` ms
  // after it was due; 0 when not counted.
  const track = (gen, due, ttl) => {
    if (gen > __GEN_CAP__) return 0;
    s.work.set(++key, [due, due + ttl]);
    return key;
  };
  const done = (k) => { if (k) s.work.delete(k); };
  try {
    // The browser reports a request some milliseconds after the page starts it; until it
    // settles (or the browser has surely seen it) it is the page's work.
    const f = window.fetch;
    if (typeof f === "function") window.fetch = function () {
      touch();
      const p = apply(f, this, arguments);
      const k = track(s.gen, now(), __REQUEST_MS__);
      const end = () => { done(k); touch(); };
      try { p.then(end, end); } catch (e) { done(k); }
      return p;
    };
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function () {
      touch();
      const k = track(s.gen, now(), __REQUEST_MS__);
      const end = () => { done(k); touch(); };
      apply(listen, this, ["loadend", end]);
      try { return apply(send, this, arguments); } catch (e) { done(k); throw e; }
    };
  } catch (e) { /* a locked-down page */ }
  // Runs a scheduled callback as link `gen`: what it schedules is link `gen + 1`. Only
  // counted work marks activity: a no-op polling loop past the cap must not.
  const run = (fn, self, args, gen, k) => {
    const outer = s.gen;
    s.gen = gen;
    try { return apply(fn, self, args); } finally { s.gen = outer; if (k) touch(); }
  };
  try {
    const setT = window.setTimeout, clearT = window.clearTimeout;
    const timers = new Map();
    window.setTimeout = function (fn, delay) {
      const d = toNumber(delay) || 0;
      if (typeof fn !== "function" || d > __SHORT_MS__) return apply(setT, this, arguments);
      const gen = s.gen + 1, args = [];
      for (let i = 2; i < arguments.length; i++) args[i - 2] = arguments[i];
      const k = track(gen, now() + d, __STALE_MS__);
      const id = apply(setT, this, [function () {
        timers.delete(id);
        done(k);
        return run(fn, this, args, gen, k);
      }, d]);
      if (k) timers.set(id, k);
      return id;
    };
    window.clearTimeout = function (id) {
      done(timers.get(id));
      timers.delete(id);
      return apply(clearT, this, arguments);
    };
    const raf = window.requestAnimationFrame, caf = window.cancelAnimationFrame;
    const frames = new Map();
    window.requestAnimationFrame = function (fn) {
      if (typeof fn !== "function") return apply(raf, this, arguments);
      const gen = s.gen + 1, k = track(gen, now(), __STALE_MS__);
      const id = apply(raf, this, [function (ts) {
        frames.delete(id);
        done(k);
        return run(fn, this, [ts], gen, k);
      }]);
      if (k) frames.set(id, k);
      return id;
    };
    window.cancelAnimationFrame = function (id) {
      done(frames.get(id));
      frames.delete(id);
      return apply(caf, this, arguments);
    };
  } catch (e) { /* a locked-down page */ }
  try {
    // A fragment or same-document history navigation has happened; the event the page
    // routes on is queued (`hashchange` comes a task after `popstate`, Chrome: ~1 frame).
    const queued = { hashchange: 0, popstate: 0 };
    // Paused here (the session's debugger takes JS coverage, then resumes), the page has
    // run every handler of what makes it leave and has not left yet.
    function __TAKE_NAME__() { debugger; }
    navigation.addEventListener("navigate", (e) => {
      touch();
      if (!e.destination.sameDocument) {
        if (e.downloadRequest) return;
        s.leaving = now();
        s.submitted = null;
        if (__TAKE_ON_LEAVE__ && !s.quietLeave && window === window.top) __TAKE_NAME__();
        return;
      }
      const type = e.hashChange ? "hashchange" : e.navigationType === "traverse" ? "popstate" : "";
      if (type) {
        done(queued[type]);
        queued[type] = track(1, now(), __STALE_MS__);
      }
    });
    const arrived = (e) => { done(queued[e.type]); queued[e.type] = 0; touch(); };
    addEventListener("hashchange", arrived, true);
    addEventListener("popstate", arrived, true);
    const settled = () => { s.leaving = 0; s.submitted = null; touch(); };
    navigation.addEventListener("navigatesuccess", settled);
    navigation.addEventListener("navigateerror", settled);
    // Back in a document restored from the back/forward cache: it left once, not now.
    addEventListener("pageshow", settled);
  } catch (e) { /* no Navigation API */ }
  // Since when the page has been leaving (or is about to, by a submission not prevented).
  s.leavingSince = () => {
    if (s.leaving) return s.leaving;
    if (s.submitted && !s.submitted.defaultPrevented) return s.submittedAt;
    return 0;
  };
  s.pending = () => {
    const n = now();
    let count = 0, soonest = Infinity;
    for (const [k, [due, until]] of s.work) {
      // Never run (a frame of a hidden page, a timer of a frozen one), or a request the
      // browser reports by now: no longer the page's own to wait for.
      if (n > until) { s.work.delete(k); continue; }
      count++;
      soonest = Math.min(soonest, Math.max(0, due - n));
    }
    return [count, count ? soonest : 0];
  };
  Object.defineProperty(window, K, { value: s });
  return s;
})()"#;

/// The name of the install script's function that pauses the page before it leaves its
/// document, so that the debugger's pause is known for ours.
pub(crate) const TAKE_ON_LEAVE: &str = "__wayfarerTakeOnLeave";

/// The script installed on every new document, with its bounds filled in; with
/// `take_on_leave`, the top document pauses in the debugger before it leaves (see
/// `events.rs`: the pause is answered with a JS coverage take).
pub(crate) fn stability_install(take_on_leave: bool) -> String {
    STABILITY_INSTALL
        .replace("__TAKE_NAME__", TAKE_ON_LEAVE)
        .replace(
            "__TAKE_ON_LEAVE__",
            if take_on_leave { "true" } else { "false" },
        )
        .replace("__GEN_CAP__", &CHAIN_CAP.to_string())
        .replace("__SHORT_MS__", &SHORT_TIMER_MS.to_string())
        .replace("__STALE_MS__", &STALE_WORK_MS.to_string())
        .replace("__REQUEST_MS__", &REQUEST_WORK_MS.to_string())
}

/// A timer this short is the page's work in progress; a longer one is a debounce, a
/// timeout or a poll, which the wait does not outlast.
const SHORT_TIMER_MS: u32 = 50;

/// How many links of a chain of timers or frames count (an animation or a polling loop
/// re-arms itself forever).
const CHAIN_CAP: u32 = 3;

/// Scheduled work overdue by this much is not going to run soon (a background frame).
const STALE_WORK_MS: u32 = 200;

/// A request the page started is its own work this long; by then the browser reports it
/// (a same-origin request then holds the wait from the network side, until it ends).
const REQUEST_WORK_MS: u32 = 100;

/// Scheduled work holds the wait for at most this long after the action; past it the
/// quiet window alone decides (a page that keeps scheduling short work without end).
const WORK_CAP: Duration = Duration::from_millis(300);

/// How often a page that is busy (loading, parsing, a request in flight) is looked at
/// again; network changes wake the wait sooner.
const POLL_MS: u64 = 10;

/// The quiet window is at least this many answer times of the page.
const QUIET_PER_RTT: u32 = 4;

/// The page's answer time is the median of this many recent idle answers.
const ANSWER_SAMPLES: usize = 9;

/// How long an idle page takes to answer a poll. The median of recent answers, not a
/// mean: the first answers after a load include the new document's layout (15-25 ms on 2
/// cores where an idle answer takes 1-3), which would stretch the next quiet windows.
#[derive(Clone, Debug, Default)]
pub(crate) struct AnswerTimes {
    recent: std::collections::VecDeque<Duration>,
}

impl AnswerTimes {
    pub fn record(&mut self, answered: Duration) {
        if self.recent.len() == ANSWER_SAMPLES {
            self.recent.pop_front();
        }
        self.recent.push_back(answered);
    }

    /// The typical answer time (zero before the first).
    pub fn typical(&self) -> Duration {
        let mut v: Vec<Duration> = self.recent.iter().copied().collect();
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or_default()
    }
}

/// How long a dispatched click may take to reach the page's handlers: past this it went
/// where the page cannot count it (a cross-origin frame).
const INPUT_CAP: Duration = Duration::from_millis(300);

/// The releases a document must have seen once the action's clicks arrived: the
/// document's identity and its count (`POINT_JS` reads them before the click).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct InputMark {
    pub doc: f64,
    pub ups: u64,
}

impl InputMark {
    /// From the page's `[id, ups]` pair (`POLL`, `POINT_JS`).
    pub fn from_json(v: &serde_json::Value) -> Option<InputMark> {
        let m = v.as_array()?;
        Some(InputMark {
            doc: m.first()?.as_f64()?,
            ups: m.get(1)?.as_u64()?,
        })
    }
}

/// How long a navigation the page announced may take to show up as a request: past this,
/// it was cancelled (a 204, a handler that prevented it) and the page is what it is.
const LEAVING_CAP: Duration = Duration::from_millis(1000);

/// One look at the page: short, so the renderer does not parse the install script on
/// every poll; `null` where the state is missing (a document older than the session's
/// install script, such as the first about:blank).
const POLL: &str = "(() => { const s = window[Symbol.for(\"wayfarer.stability\")]; if (!s) return null; \
const n = performance.now(); const l = s.leavingSince(); return [n - s.t, document.readyState, l ? n - l : -1, s.pending(), [s.id, s.ups]]; })()";

/// Milliseconds from the page (never negative, never NaN) as a duration.
fn ms_f64(ms: f64) -> Duration {
    Duration::from_secs_f64(if ms.is_finite() {
        ms.max(0.0) / 1000.0
    } else {
        0.0
    })
}

/// Bounds of one wait.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WaitLimits {
    pub quiet: Duration,
    /// Bound after an action.
    pub stable: Duration,
    /// Bound while the main document is loading.
    pub load: Duration,
    /// A request open this long is a long poll or a stream (see `NetTracker::pending`).
    pub long: Duration,
    pub cdp: Duration,
}

/// Close popups the event task saw (closing needs the browser-level session).
pub(crate) async fn close_popups(browser: &Browser, shared: &SharedRef, cdp: Duration) {
    let popups = std::mem::take(&mut shared.lock().popups);
    for id in popups {
        if let Err(e) = call_browser(browser, CloseTargetParams::new(id), cdp).await {
            tracing::debug!(%e, "popup not closed");
        }
    }
}

/// Main documents one wait may see requested before the page counts as navigating in a
/// loop (a link and a redirect or two are fewer).
const NAVIGATION_LOOP: u64 = 5;

/// How long a page that had its script terminated may take to answer again.
const UNSTUCK_CHECK: Duration = Duration::from_secs(2);

/// What `unstick` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unstuck {
    /// The page answers again: the script that ran, if one did, was terminated. (The
    /// check cannot tell: a command of ours queued behind the busy page, such as a poll
    /// given up on, may have run first and taken the termination.)
    Answers,
    /// The termination fell on the check itself: no script was running, the page was
    /// busy with something else (layout, parsing), and nothing of the page's was stopped.
    NothingRan,
    /// The page still does not answer.
    Silent,
}

/// A page whose main thread runs a script without end (`while (true) {}` in a handler)
/// answers nothing, and Chrome holds every later command, so the run would go on only by
/// relaunching the browser. `Runtime.terminateExecution` interrupts the running script
/// from outside it (or, with none running, the next one: the check below).
pub(crate) async fn unstick(page: &Page, cdp: Duration) -> Unstuck {
    if let Err(e) = call(page, TerminateExecutionParams::default(), cdp).await {
        tracing::debug!(%e, "terminateExecution");
        return Unstuck::Silent;
    }
    let answered = eval(page, "1", UNSTUCK_CHECK.min(cdp)).await;
    tracing::debug!(?answered, "page after terminateExecution");
    match answered {
        Ok(_) => Unstuck::Answers,
        Err(BrowserError::Timeout(_)) | Err(BrowserError::Dead(_)) => Unstuck::Silent,
        Err(_) => Unstuck::NothingRan,
    }
}

/// The Hang of a page that did not answer for `ms` and answers after `unstick`.
pub(crate) fn stuck_event(ms: u128, during: &str) -> Event {
    Event::new(
        EventKind::Hang,
        format!(
            "page not stable: no answer for {ms} ms {during}; the script running, if any, was terminated"
        ),
    )
}

/// One poll's view of the page.
#[derive(Clone, Copy, Debug)]
struct Look {
    /// Since the wait began (the action's reply).
    since_action: Duration,
    /// Since the action began: a navigation announced after this is the action's, even
    /// when it was announced before the reply (a click's own handlers, a pause to take
    /// coverage on the way out).
    since_start: Duration,
    /// Same-origin requests in flight.
    pending: usize,
    /// Time since the last network change.
    net_quiet: Duration,
    /// The main frame is between a navigation's start and its load event.
    loading: bool,
    /// Time since the last DOM mutation (or request the page started) and whether the
    /// document is still parsing; `None` when the page did not answer.
    dom: Option<(Duration, bool)>,
    /// The page announced a navigation to another document this long ago.
    leaving: Option<Duration>,
    /// Work the page has scheduled (short timers, frames, queued history events): how
    /// many, and how soon the first is due.
    work: (usize, Duration),
    /// The action's clicks have not reached the page yet.
    input_due: bool,
}

impl Look {
    /// How much longer to wait before the page can be stable (zero: it is), and whether
    /// only a loading main frame keeps it from being stable.
    fn need(&self, quiet: Duration) -> (Duration, bool) {
        let poll = Duration::from_millis(POLL_MS);
        let mut need = quiet.saturating_sub(self.since_action);
        if self.pending > 0 {
            need = need.max(poll);
        } else {
            need = need.max(quiet.saturating_sub(self.net_quiet));
        }
        match self.dom {
            Some((dom_quiet, parsing)) => {
                need = need.max(quiet.saturating_sub(dom_quiet));
                if parsing {
                    need = need.max(poll);
                }
            }
            None => need = need.max(poll),
        }
        // The request of a navigation this action announced has not been seen yet (one
        // announced before the action was cancelled, or left a cached document).
        if self
            .leaving
            .is_some_and(|age| age < LEAVING_CAP && age <= self.since_start)
        {
            need = need.max(poll);
        }
        if self.input_due && self.since_action < INPUT_CAP {
            need = need.max(Duration::from_millis(2));
        }
        // Scheduled work will change the page: wait until it is due (and then for the
        // quiet window after it), for a bounded time after the action.
        if self.work.0 > 0 && self.since_action < WORK_CAP {
            need = need.max(self.work.1.max(Duration::from_millis(2)));
        }
        // A document that has answered but not yet committed looks quiet from both sides.
        if need.is_zero() && self.loading {
            return (poll, true);
        }
        (need, false)
    }
}

/// Wait until stable; returns a `Hang` event when the bound is hit.
pub(crate) async fn wait_stable(
    browser: &Browser,
    page: &Page,
    shared: &SharedRef,
    since: Instant,
    started: Instant,
    lim: WaitLimits,
    input: Option<InputMark>,
) -> Option<Event> {
    let start = Instant::now();
    let mut installed = false;
    let max_age = lim.stable.max(lim.load);
    let bound_for = |doc_pending: bool| if doc_pending { max_age } else { lim.stable };
    // When the page last answered a poll (a script that never ends keeps it silent).
    let mut heard = Instant::now();
    // Main documents requested so far: many more by the bound is a page that keeps
    // navigating itself (a script or meta refresh sending it on forever).
    let documents = shared.lock().documents;
    loop {
        close_popups(browser, shared, lim.cdp).await;
        // Requests and loads count while they were younger than `max_age` when this wait
        // began (older ones hung in an earlier wait and were reported there).
        let horizon = max_age + start.elapsed();
        let doc_before = shared.lock().net.pending(lim.long, horizon).1;
        let left = (start + bound_for(doc_before)).saturating_duration_since(Instant::now());
        let asked = Instant::now();
        let bound = left.clamp(Duration::from_millis(50), lim.cdp);
        let answer = eval(page, POLL, bound).await;
        let answered = asked.elapsed();
        if !matches!(answer, Err(BrowserError::Timeout(_))) {
            heard = Instant::now();
        }
        if !installed && matches!(answer, Ok(serde_json::Value::Null)) {
            installed = true;
            let _ = eval(page, stability_install(false), bound).await;
            continue;
        }
        // The network as it is after the answer: Chrome holds commands while a navigation
        // is pending, so the answer may come long after the request the action started.
        let (pending, doc_pending, sample, net_quiet, gone, loading, rtt) = {
            let mut s = shared.lock();
            let horizon = max_age + start.elapsed();
            let (n, doc, sample) = s.net.pending(lim.long, horizon);
            let loading = s.net.loading(horizon);
            // Only an idle page's answer measures the renderer.
            if answer.is_ok() && n == 0 && !loading {
                s.poll_rtt.record(answered);
            }
            (
                n,
                doc,
                sample,
                s.net.last_change.elapsed(),
                // A dead connection answers nothing more: the step's next call says so.
                s.crashed || s.dead || matches!(answer, Err(BrowserError::Dead(_))),
                loading,
                s.poll_rtt.typical(),
            )
        };
        if gone {
            return None;
        }
        let deadline = start + bound_for(doc_pending);
        let dom = answer.ok().and_then(|v| {
            let a = v.as_array()?;
            let work = a.get(3).and_then(|w| w.as_array());
            let num = |i: usize| work.and_then(|w| w.get(i)?.as_f64()).unwrap_or(0.0);
            let mark = a.get(4).and_then(InputMark::from_json);
            Some((
                a.first()?.as_f64()?,
                a.get(1)?.as_str()?.to_string(),
                a.get(2).and_then(|x| x.as_f64()).unwrap_or(-1.0),
                (num(0) as usize, ms_f64(num(1))),
                mark,
            ))
        });
        let look = Look {
            since_action: since.elapsed(),
            since_start: started.elapsed(),
            pending,
            net_quiet,
            loading,
            dom: dom
                .as_ref()
                .map(|(ms, ready, _, _, _)| (ms_f64(*ms), ready == "loading")),
            leaving: dom.as_ref().and_then(|d| (d.2 >= 0.0).then(|| ms_f64(d.2))),
            work: dom.as_ref().map_or((0, Duration::ZERO), |d| d.3),
            // Seen when the document counted the releases, or is another document (the
            // click made it leave); unknown when the page does not answer.
            input_due: match (input, dom.as_ref().and_then(|d| d.4)) {
                (Some(want), Some(now)) => now.doc == want.doc && now.ups < want.ups,
                _ => false,
            },
        };
        // The page is only seen as fast as it answers: under load, the quiet window
        // stretches with the renderer's answer time.
        let quiet = lim.quiet.max(rtt * QUIET_PER_RTT);
        let (need, quiet_but_loading) = look.need(quiet);
        tracing::trace!(waited = ?start.elapsed(), ?answered, ?rtt, ?look, ?need, "poll");
        if need.is_zero() {
            return None;
        }
        let now = Instant::now();
        if now >= deadline && quiet_but_loading {
            // A load event that never fires, with nothing in flight, is no hang of its own.
            tracing::debug!("main frame still loading at the bound; going on");
            return None;
        }
        if now >= deadline {
            let waited = start.elapsed().as_millis();
            // Silent for long, not loading: most likely a script that does not end; a page
            // busy for a moment when the bound came is only reported.
            let silent = heard.elapsed();
            if silent >= lim.stable.min(lim.cdp) / 2
                && !doc_pending
                && !loading
                && unstick(page, lim.cdp).await == Unstuck::Answers
            {
                tracing::debug!(?silent, "a script kept the page busy; terminated");
                return Some(stuck_event(silent.as_millis(), "after the action"));
            }
            let hops = shared.lock().documents.saturating_sub(documents);
            let looping = hops >= NAVIGATION_LOOP;
            if doc_pending || loading || dom.is_none() || looping {
                // A navigation that never finishes (or a page that does not answer, which
                // is what a pending one looks like): stop it and go on with what is shown;
                // Chrome would hold every later command while it is pending. Between two
                // hops of a loop nothing may be loading: stopped all the same, or the next
                // action would race the next hop.
                let _ = call(page, StopLoadingParams::default(), lim.cdp).await;
            }
            let reason = if looping {
                format!("{hops} documents loaded within {waited} ms, the page kept navigating (stopped)")
            } else if doc_pending {
                format!(
                    "load of {} did not finish within {waited} ms (stopped)",
                    sample.unwrap_or_default()
                )
            } else if pending > 0 {
                format!(
                    "{pending} request(s) still pending after {waited} ms, e.g. {}",
                    sample.unwrap_or_default()
                )
            } else if dom.is_none() {
                format!("page did not answer within {waited} ms")
            } else {
                format!("{DOM_STILL_CHANGING} after {waited} ms")
            };
            tracing::debug!(%reason, "hang");
            return Some(Event::new(
                EventKind::Hang,
                format!("page not stable: {reason}"),
            ));
        }
        // A network or main-frame change wakes the wait at once (the last request done).
        let nap = need.min(deadline - now).max(Duration::from_millis(2));
        tokio::select! {
            _ = tokio::time::sleep(nap) => {}
            _ = shared.next_change() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUIET: Duration = Duration::from_millis(50);

    fn settled() -> Look {
        Look {
            since_action: Duration::from_millis(70),
            since_start: Duration::from_millis(75),
            pending: 0,
            net_quiet: Duration::from_millis(60),
            loading: false,
            dom: Some((Duration::from_secs(2), false)),
            leaving: None,
            work: (0, Duration::ZERO),
            input_due: false,
        }
    }

    #[test]
    fn a_click_the_page_has_not_handled_yet_holds_the_wait_for_a_bounded_time() {
        let due = Look {
            input_due: true,
            ..settled()
        };
        assert!(due.need(QUIET).0 > Duration::ZERO);
        let lost = Look {
            since_action: INPUT_CAP,
            ..due
        };
        assert_eq!(lost.need(QUIET).0, Duration::ZERO);
    }

    #[test]
    fn a_slow_answer_after_a_load_does_not_stretch_the_window_but_a_slow_renderer_does() {
        let mut t = AnswerTimes::default();
        assert_eq!(t.typical(), Duration::ZERO);
        for ms in [2, 1, 3, 2, 2, 24, 16, 2, 1] {
            t.record(Duration::from_millis(ms));
        }
        assert_eq!(t.typical(), Duration::from_millis(2));
        // A machine under load answers slowly every time: the window follows within a
        // few polls, and only the recent answers count.
        for _ in 0..5 {
            t.record(Duration::from_millis(12));
        }
        assert_eq!(t.typical(), Duration::from_millis(12));
    }

    #[test]
    fn a_quiet_page_is_stable() {
        assert_eq!(settled().need(QUIET), (Duration::ZERO, false));
    }

    #[test]
    fn each_sign_of_activity_keeps_waiting() {
        let ms = Duration::from_millis;
        let cases = [
            (
                Look {
                    since_action: ms(10),
                    ..settled()
                },
                ms(40),
            ),
            (
                Look {
                    pending: 1,
                    ..settled()
                },
                ms(POLL_MS),
            ),
            (
                Look {
                    net_quiet: ms(5),
                    ..settled()
                },
                ms(45),
            ),
            (
                Look {
                    dom: Some((ms(30), false)),
                    ..settled()
                },
                ms(20),
            ),
            (
                Look {
                    dom: Some((ms(900), true)),
                    ..settled()
                },
                ms(POLL_MS),
            ),
            (
                Look {
                    dom: None,
                    ..settled()
                },
                ms(POLL_MS),
            ),
        ];
        for (look, need) in cases {
            assert_eq!(look.need(QUIET), (need, false), "{look:?}");
        }
    }

    #[test]
    fn an_announced_navigation_waits_for_its_request_within_a_bound() {
        let ms = Duration::from_millis;
        let look = Look {
            leaving: Some(ms(5)),
            ..settled()
        };
        // Announced before this action: stale.
        let before = Look {
            leaving: Some(ms(80)),
            ..settled()
        };
        assert_eq!(before.need(QUIET), (Duration::ZERO, false));
        assert_eq!(look.need(QUIET), (ms(POLL_MS), false));
        // Regression: announced by the action's own handlers before its reply (the page
        // paused there for a coverage take), so before the wait began: still the action's.
        let during = Look {
            since_action: ms(60),
            since_start: ms(90),
            leaving: Some(ms(80)),
            ..settled()
        };
        assert_eq!(during.need(QUIET), (ms(POLL_MS), false));
        // Cancelled long ago (a 204, a prevented navigation): no longer waited for.
        let stale = Look {
            since_action: LEAVING_CAP * 2,
            leaving: Some(LEAVING_CAP),
            ..settled()
        };
        assert_eq!(stale.need(QUIET), (Duration::ZERO, false));
    }

    #[test]
    fn scheduled_work_holds_the_wait_until_due_for_a_bounded_time() {
        let ms = Duration::from_millis;
        // A timer due in 30 ms: wait for it, however quiet the page looks now.
        let timer = Look {
            work: (1, ms(30)),
            ..settled()
        };
        assert_eq!(timer.need(QUIET), (ms(30), false));
        // Due now (a queued hashchange, an overdue timer): look again shortly.
        let due = Look {
            work: (2, Duration::ZERO),
            ..settled()
        };
        assert_eq!(due.need(QUIET), (ms(2), false));
        // A page that keeps scheduling short work: past the cap the quiet window decides.
        let endless = Look {
            since_action: WORK_CAP,
            ..timer
        };
        assert_eq!(endless.need(QUIET), (Duration::ZERO, false));
    }

    /// Regression: the next document had answered and the old one was quiet, so the wait
    /// ended before the new page committed (a scan of a half-built page split two runs).
    #[test]
    fn a_loading_main_frame_keeps_an_otherwise_quiet_page_waiting() {
        let look = Look {
            loading: true,
            ..settled()
        };
        assert_eq!(look.need(QUIET), (Duration::from_millis(POLL_MS), true));
        // When something else is pending, that is what the wait names at its bound.
        let busy = Look { pending: 2, ..look };
        assert_eq!(busy.need(QUIET), (Duration::from_millis(POLL_MS), false));
    }
}
