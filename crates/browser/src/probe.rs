//! State inference's cheap look at the live page: one `Runtime.evaluate` that says whether
//! a locator resolves to a visible, enabled element, with the URL, the title, and the
//! error text and instrumentation the scan function reports in its errors-only mode (so
//! the oracles read the same text they would after a full scan).

use std::time::Duration;

use chromiumoxide::Page;
use serde::Deserialize;
use wayfarer_core::{AppProbe, Probe};

use crate::actions::FIND_JS;
use crate::cdp::BrowserError;
use crate::scan::{eval_installed, installing_scan_fn, with_scan_fn, ScanScript};

/// Runs with `f` (the scan function) and `loc` (a locator or null) in scope.
const PROBE_BODY: &str = r#"const seen = JSON.parse(f(CFG));
let found = loc === null;
if (!found) {
  const el = __wfFind(loc);
  if (el && el.isConnected) {
    const r = el.getBoundingClientRect();
    const cs = (el.ownerDocument.defaultView || window).getComputedStyle(el);
    found = r.width > 0 && r.height > 0 && cs.visibility !== "hidden" && cs.visibility !== "collapse"
      && !(el.matches(":disabled") || el.getAttribute("aria-disabled") === "true");
  }
}
return JSON.stringify({ found, url: location.href, title: document.title || "", error_text: seen.error_text, app: seen.app, dom_size: seen.dom_size });"#;

#[derive(Deserialize)]
struct Answer {
    found: bool,
    url: String,
    title: String,
    error_text: Option<String>,
    app: Option<AppProbe>,
    dom_size: Option<u32>,
}

/// Probe the page about `locator` (none: only the page facts).
pub(crate) async fn probe(
    page: &Page,
    script: &ScanScript,
    locator: Option<&str>,
    cdp: Duration,
) -> Result<Probe, BrowserError> {
    let body = format!(
        "{FIND_JS}\n{}",
        PROBE_BODY.replace("CFG", &script.errors_cfg)
    );
    let loc = serde_json::to_string(&locator).unwrap_or_else(|_| "null".into());
    let call = with_scan_fn("loc", &body, &loc);
    let install = installing_scan_fn("loc", &body, &loc);
    let s = eval_installed(page, &call, &install, "probe", cdp).await?;
    let a: Answer =
        serde_json::from_str(&s).map_err(|e| BrowserError::Step(format!("probe result: {e}")))?;
    Ok(Probe {
        found: a.found,
        url: a.url,
        title: a.title,
        error_text: a.error_text,
        app: a.app,
        dom_size: a.dom_size,
    })
}
