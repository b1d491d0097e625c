//! The scan: one `Runtime.evaluate` of scan.js, whose JSON string result deserializes
//! straight into `wayfarer_core::Observation`.

use std::time::Duration;

use chromiumoxide::Page;
use wayfarer_core::config::DenyRule;
use wayfarer_core::Observation;

use crate::cdp::{eval, BrowserError};
use crate::scan_answer::Caps;

const SCAN_JS: &str = include_str!("scan.js");
const MAX_ELEMENTS: usize = 2000;
const MAX_TAGS: usize = 5000;
const MAX_HTML: usize = 100_000;
const MISSING: &str = "__wayfarer_scan_missing__";

/// The two scan expressions of a run: `call` uses the function installed in the document
/// (so V8 keeps its compiled, warmed-up code); `install` defines it first. The probe's
/// configuration (errors only) is kept for `probe.rs`.
#[derive(Clone, Debug)]
pub(crate) struct ScanScript {
    call: String,
    install: String,
    pub(crate) errors_cfg: String,
}

const KEY: &str = "Symbol.for(\"wayfarer.scan\")";

/// An expression that calls the installed scan function as `f` inside `body` (whose last
/// statement returns), or answers MISSING when the document has none yet.
pub(crate) fn with_scan_fn(params: &str, body: &str, args: &str) -> String {
    format!(
        "(({params}) => {{ const f = window[{KEY}]; if (!f) return \"{MISSING}\"; {body} }})({args})"
    )
}

/// The same, installing the scan function first.
pub(crate) fn installing_scan_fn(params: &str, body: &str, args: &str) -> String {
    format!(
        "(({params}) => {{ const K = {KEY}; if (!window[K]) Object.defineProperty(window, K, {{ value: {SCAN_JS} }}); const f = window[K]; {body} }})({args})"
    )
}

/// Defines the scan function in a new document (an init script); the expressions above
/// still install it where it is missing (documents older than the session, about:blank).
pub(crate) fn init_script() -> String {
    format!(
        "(() => {{ const K = {KEY}; if (!window[K]) Object.defineProperty(window, K, {{ value: {SCAN_JS} }}); }})();"
    )
}

/// Build the expressions with the deny rules and caps baked in (once per run).
pub(crate) fn scan_script(deny: &[DenyRule]) -> ScanScript {
    let cfg = serde_json::json!({
        "deny": deny,
        "maxElements": MAX_ELEMENTS,
        "maxTags": MAX_TAGS,
        "maxHtml": MAX_HTML,
    })
    .to_string();
    let errors_cfg = serde_json::json!({
        "deny": deny,
        "maxElements": 0,
        "maxTags": 0,
        "maxHtml": 0,
        "errorsOnly": true,
    })
    .to_string();
    let body = format!("return f({cfg});");
    ScanScript {
        call: with_scan_fn("", &body, ""),
        install: installing_scan_fn("", &body, ""),
        errors_cfg,
    }
}

/// Evaluate `call`, or `install` when the document has no scan function yet; retried
/// briefly while a navigation swaps the execution context. The JSON string it returned.
pub(crate) async fn eval_installed(
    page: &Page,
    call: &str,
    install: &str,
    what: &str,
    cdp: Duration,
) -> Result<String, BrowserError> {
    let mut last = None;
    let mut expression = call;
    for attempt in 0..5 {
        match eval(page, expression, cdp).await {
            Ok(serde_json::Value::String(s)) if s == MISSING => {
                expression = install;
                continue;
            }
            Ok(serde_json::Value::String(s)) => return Ok(s),
            Ok(other) => {
                last = Some(BrowserError::Step(format!(
                    "{what} returned {}",
                    other.to_string().chars().take(100).collect::<String>()
                )))
            }
            Err(e @ BrowserError::Protocol(..)) => last = Some(e),
            Err(e) => return Err(e),
        }
        tokio::time::sleep(Duration::from_millis(20 * (attempt + 1))).await;
    }
    Err(last.unwrap_or_else(|| BrowserError::Step(format!("{what} failed"))))
}

/// Scan the page.
pub(crate) async fn scan(
    page: &Page,
    script: &ScanScript,
    cdp: Duration,
) -> Result<Observation, BrowserError> {
    let s = eval_installed(page, &script.call, &script.install, "scan", cdp).await?;
    let caps = Caps {
        elements: MAX_ELEMENTS,
        tags: MAX_TAGS,
        html: MAX_HTML,
    };
    crate::scan_answer::observation(&s, &caps)
}
