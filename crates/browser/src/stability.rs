//! The stability wait: no pending same-origin request and no DOM mutation for `quiet`,
//! bounded; polled cheaply (a MutationObserver timestamp in the page, network state from
//! the event task), sleeping only until the earliest moment the page could be stable.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::page::StopLoadingParams;
use chromiumoxide::cdp::browser_protocol::target::CloseTargetParams;
use chromiumoxide::{Browser, Page};
use wayfarer_core::{Event, EventKind};

use crate::cdp::{call, call_browser, eval};
use crate::events::SharedRef;

/// Installed on every new document (and lazily by the poll): the time of the last mutation.
pub(crate) const STABILITY_INSTALL: &str = r#"(() => {
  const K = Symbol.for("wayfarer.stability");
  if (window[K]) return window[K];
  const s = { t: performance.now() };
  try {
    new MutationObserver(() => { s.t = performance.now(); })
      .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  } catch (e) { /* no document yet */ }
  Object.defineProperty(window, K, { value: s });
  return s;
})()"#;

fn poll_expression() -> String {
    format!(
        "(() => {{ const s = {STABILITY_INSTALL}; return [performance.now() - s.t, document.readyState]; }})()"
    )
}

/// Bounds of one wait.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WaitLimits {
    pub quiet: Duration,
    /// Bound after an action.
    pub stable: Duration,
    /// Bound while the main document is loading.
    pub load: Duration,
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

/// Wait until stable; returns a `Hang` event when the bound is hit.
pub(crate) async fn wait_stable(
    browser: &Browser,
    page: &Page,
    shared: &SharedRef,
    since: Instant,
    lim: WaitLimits,
) -> Option<Event> {
    let start = Instant::now();
    let poll = poll_expression();
    let max_age = lim.stable.max(lim.load);
    loop {
        close_popups(browser, shared, lim.cdp).await;
        let (pending, doc_pending, sample, net_quiet, crashed) = {
            let s = shared.lock();
            let (n, doc, sample) = s.net.pending(max_age);
            (n, doc, sample, s.net.last_change.elapsed(), s.crashed)
        };
        if crashed {
            return None;
        }
        let bound = if doc_pending {
            lim.stable.max(lim.load)
        } else {
            lim.stable
        };
        let deadline = start + bound;
        let left = deadline.saturating_duration_since(Instant::now());
        let dom = eval(
            page,
            poll.as_str(),
            left.clamp(Duration::from_millis(50), lim.cdp),
        )
        .await
        .ok()
        .and_then(|v| {
            let a = v.as_array()?;
            Some((a.first()?.as_f64()?, a.get(1)?.as_str()?.to_string()))
        });
        let since_action = since.elapsed();
        let mut need = lim.quiet.saturating_sub(since_action);
        if pending > 0 {
            need = need.max(Duration::from_millis(20));
        } else {
            need = need.max(lim.quiet.saturating_sub(net_quiet));
        }
        match &dom {
            Some((ms, ready)) => {
                let dom_quiet = Duration::from_secs_f64(ms.max(0.0) / 1000.0);
                need = need.max(lim.quiet.saturating_sub(dom_quiet));
                if ready == "loading" {
                    need = need.max(Duration::from_millis(20));
                }
            }
            None => need = need.max(Duration::from_millis(20)),
        }
        if need.is_zero() {
            return None;
        }
        let now = Instant::now();
        if now >= deadline {
            let waited = start.elapsed().as_millis();
            let reason = if doc_pending {
                // A server that never answers: stop the load and go on with what is shown.
                let _ = call(page, StopLoadingParams::default(), lim.cdp).await;
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
                format!("DOM still changing after {waited} ms")
            };
            tracing::debug!(%reason, "hang");
            return Some(Event::new(
                EventKind::Hang,
                format!("page not stable: {reason}"),
            ));
        }
        tokio::time::sleep(need.min(deadline - now).max(Duration::from_millis(2))).await;
    }
}
