//! The scan: one `Runtime.evaluate` of scan.js, whose JSON string result deserializes
//! straight into `wayfarer_core::Observation`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chromiumoxide::Page;
use wayfarer_core::config::DenyRule;
use wayfarer_core::Observation;

use crate::cdp::{eval, BrowserError};
use crate::scan_answer::Caps;

const SCAN_JS: &str = include_str!("scan.js");
/// The builtins as the document started with them, and the guard that restores them.
const PRISTINE_JS: &str = include_str!("pristine.js");
const MAX_ELEMENTS: usize = 2000;
const MAX_TAGS: usize = 5000;
const MAX_HTML: usize = 100_000;
/// Elements the walk visits at most (main document, frames and shadow roots together).
const MAX_VISIT: usize = 30_000;
const MISSING: &str = "__wayfarer_scan_missing__";

/// The two scan expressions of a run: `call` uses the function installed in the document
/// (so V8 keeps its compiled, warmed-up code); `install` defines it first. The probe's
/// configuration (errors only) is kept for `probe.rs`.
#[derive(Clone, Debug)]
pub(crate) struct ScanScript {
    call: String,
    install: String,
    pub(crate) errors_cfg: String,
    /// Whether this run has said that a page was larger than what the scan keeps.
    capped_said: Arc<AtomicBool>,
}

const KEY: &str = "Symbol.for(\"wayfarer.scan\")";

/// An expression that calls the installed scan function as `f` inside `body` (whose last
/// statement returns), or answers MISSING when the document has none yet.
pub(crate) fn with_scan_fn(params: &str, body: &str, args: &str) -> String {
    format!(
        "(({params}) => {{ const f = window[{KEY}]; if (!f) return \"{MISSING}\"; return f.guard(() => {{ {body} }}); }})({args})"
    )
}

/// The same, installing the scan function first.
pub(crate) fn installing_scan_fn(params: &str, body: &str, args: &str) -> String {
    format!(
        "(({params}) => {{ const K = {KEY}; {define} const f = window[K]; return f.guard(() => {{ {body} }}); }})({args})",
        define = define_scan()
    )
}

/// Defines the scan function in a new document (an init script); the expressions above
/// still install it where it is missing (documents older than the session, about:blank).
pub(crate) fn init_script() -> String {
    format!("(() => {{ const K = {KEY}; {} }})();", define_scan())
}

/// With `K` the key: defines the scan function, which runs guarded, with the guard as
/// its `guard` property (see pristine.js), unless the document has it.
fn define_scan() -> String {
    format!(
        "if (!window[K]) {{ const guard = {PRISTINE_JS}; const scan = {SCAN_JS}; \
         const f = function (cfg) {{ return guard(() => scan(cfg)); }}; \
         Object.defineProperty(f, \"guard\", {{ value: guard }}); Object.defineProperty(window, K, {{ value: f }}); }}"
    )
}

/// A function body (its last statement returns) that runs `body` with the builtins the
/// document started with (see pristine.js), or as it is where no scan function is
/// installed yet.
pub(crate) fn guarded(body: &str) -> String {
    format!(
        "const __wfGuard = window[{KEY}]; const __wfBody = () => {{ {body} }}; \
         return __wfGuard && __wfGuard.guard ? __wfGuard.guard(__wfBody) : __wfBody();"
    )
}

/// Build the expressions with the deny rules and caps baked in (once per run).
pub(crate) fn scan_script(deny: &[DenyRule]) -> ScanScript {
    let cfg = serde_json::json!({
        "deny": deny,
        "maxElements": MAX_ELEMENTS,
        "maxTags": MAX_TAGS,
        "maxHtml": MAX_HTML,
        "maxVisit": MAX_VISIT,
    })
    .to_string();
    let errors_cfg = serde_json::json!({
        "deny": deny,
        "maxElements": 0,
        "maxTags": 0,
        "maxHtml": 0,
        "maxVisit": MAX_VISIT,
        "errorsOnly": true,
    })
    .to_string();
    // The page checks' own extractors (`wayfarer_core::check::Extractor`), as functions
    // the scan calls: JSON cannot carry them.
    let facts: Vec<String> = wayfarer_core::check::extractors()
        .iter()
        .map(|x| format!("{}: () => {{ {} }}", serde_json::Value::from(x.name), x.js))
        .collect();
    let body = format!(
        "return f(Object.assign({cfg}, {{ facts: {{ {} }} }}));",
        facts.join(", ")
    );
    ScanScript {
        call: with_scan_fn("", &body, ""),
        install: installing_scan_fn("", &body, ""),
        errors_cfg,
        capped_said: Arc::default(),
    }
}

impl ScanScript {
    /// The expression that defines the scan function where it is missing and scans: for
    /// a context of our own that no init script prepared (an isolated world).
    pub(crate) fn installing(&self) -> &str {
        &self.install
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
    let o = read_answer(&s)?;
    say_if_capped(&o, &script.capped_said);
    Ok(o)
}

/// The observation in a scan's answer, cut to the scan's caps.
pub(crate) fn read_answer(s: &str) -> Result<Observation, BrowserError> {
    let caps = Caps {
        elements: MAX_ELEMENTS,
        tags: MAX_TAGS,
        html: MAX_HTML,
    };
    crate::scan_answer::observation(s, &caps)
}

/// A page larger than what the scan keeps is seen in part: said once a run (a warning),
/// then at debug level.
fn say_if_capped(o: &Observation, said: &AtomicBool) {
    let Some(what) = capped(o) else {
        return;
    };
    if said.swap(true, Ordering::Relaxed) {
        tracing::debug!("{what}");
    } else {
        tracing::warn!("{what}");
    }
}

/// What a scan cut to its caps leaves out, when it did.
fn capped(o: &Observation) -> Option<String> {
    let size = o.dom_size.unwrap_or(0) as usize;
    if o.elements.len() < MAX_ELEMENTS && size <= MAX_VISIT {
        return None;
    }
    // A URL can hold kilobytes (TiddlyWiki keeps its story in the fragment).
    let mut url = o.url.clone();
    if url.len() > 120 {
        crate::scan_answer::cut(&mut url, 120);
        url.push('…');
    }
    Some(format!(
        "{url} holds {size} elements: the scan walks the first {MAX_VISIT} and keeps the first \
         {MAX_ELEMENTS} actionable or text ones ({} kept); the rest is not explored",
        o.elements.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capped_page_is_said_with_its_url_cut_short() {
        let mut o = Observation {
            url: format!(
                "http://127.0.0.1:1/#{}",
                "%5B%5BA%20tiddler%5D%5D%20".repeat(80)
            ),
            dom_size: Some(MAX_VISIT as u32 + 1),
            ..Observation::default()
        };
        let said = capped(&o).unwrap();
        assert!(said.len() < 400, "{said}");
        assert!(said.starts_with("http://127.0.0.1:1/#%5B"), "{said}");
        assert!(said.contains("…"), "{said}");
        o.dom_size = Some(10);
        assert_eq!(capped(&o), None);
    }
}
