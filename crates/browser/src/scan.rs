//! The scan: one `Runtime.evaluate` of scan.js, whose JSON string result deserializes
//! straight into `wayfarer_core::Observation`.

use std::time::Duration;

use chromiumoxide::Page;
use wayfarer_core::config::DenyRule;
use wayfarer_core::Observation;

use crate::cdp::{eval, BrowserError};

const SCAN_JS: &str = include_str!("scan.js");
const MAX_ELEMENTS: usize = 2000;
const MAX_TAGS: usize = 5000;
const MAX_HTML: usize = 100_000;
const MISSING: &str = "__wayfarer_scan_missing__";

/// The two scan expressions of a run: `call` uses the function installed in the document
/// (so V8 keeps its compiled, warmed-up code); `install` defines it first.
#[derive(Clone, Debug)]
pub(crate) struct ScanScript {
    call: String,
    install: String,
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
    let key = "Symbol.for(\"wayfarer.scan\")";
    ScanScript {
        call: format!(
            "(() => {{ const f = window[{key}]; return f ? f({cfg}) : \"{MISSING}\"; }})()"
        ),
        install: format!(
            "(() => {{ const K = {key}; if (!window[K]) Object.defineProperty(window, K, {{ value: {SCAN_JS} }}); return window[K]({cfg}); }})()"
        ),
    }
}

/// Scan the page; retried briefly while a navigation swaps the execution context.
pub(crate) async fn scan(
    page: &Page,
    script: &ScanScript,
    cdp: Duration,
) -> Result<Observation, BrowserError> {
    let mut last = None;
    let mut expression = &script.call;
    for attempt in 0..5 {
        match eval(page, expression.as_str(), cdp).await {
            Ok(serde_json::Value::String(s)) if s == MISSING => {
                expression = &script.install;
                continue;
            }
            Ok(serde_json::Value::String(s)) => {
                return serde_json::from_str(&s)
                    .map_err(|e| BrowserError::Step(format!("scan result: {e}")));
            }
            Ok(other) => {
                last = Some(BrowserError::Step(format!(
                    "scan returned {}",
                    other.to_string().chars().take(100).collect::<String>()
                )))
            }
            Err(e @ BrowserError::Protocol(..)) => last = Some(e),
            Err(e) => return Err(e),
        }
        tokio::time::sleep(Duration::from_millis(20 * (attempt + 1))).await;
    }
    Err(last.unwrap_or_else(|| BrowserError::Step("scan failed".into())))
}
