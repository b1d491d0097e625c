//! Where a browser is reached when wayfarer does not launch it (`--cdp`): a CDP websocket
//! as given (its query, a grid's token, kept), or an HTTP base asked for the websocket
//! (`/json/version`, the base's path and query carried along: browserless answers with
//! a URL that lacks its token). Connecting waits for a grid that queues the connection,
//! and says why a refusal came.

use std::time::Duration;

use chromiumoxide::{Browser, Handler};

use crate::cdp::BrowserError;

/// How long a connection may wait for a grid to hand out a browser (its queue) before
/// the worker gives up on the endpoint.
pub(crate) const QUEUE_WAIT: Duration = Duration::from_secs(60);

/// After this long without an answer, say that the endpoint keeps us waiting.
const SAY_WAITING: Duration = Duration::from_secs(5);

/// Name ring as rustls' crypto provider, once, before any HTTPS request: reqwest is
/// built without a default TLS backend (as in `wayfarer-llm`).
pub(crate) fn tls_ready() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// An HTTP client for endpoints and hubs: short connect timeout, no proxy from the
/// environment (the browsers are the user's own machines or grid).
pub(crate) fn client(timeout: Duration) -> Result<reqwest::Client, BrowserError> {
    tls_ready();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .timeout(timeout)
        .no_proxy()
        .build()
        .map_err(|e| BrowserError::Step(format!("HTTP client: {e}")))
}

/// The browser's websocket for a `--cdp` address: a `ws://`/`wss://` URL as it is; for an
/// `http(s)://host:port[/path][?query]`, what `/json/version` under that path (with that
/// query) names, the base's query added where the answer has none.
pub(crate) async fn websocket_url(cdp: &str) -> Result<String, BrowserError> {
    if cdp.starts_with("ws://") || cdp.starts_with("wss://") {
        return Ok(cdp.to_string());
    }
    // Printed: the token in the query masked.
    let name = shown_str(cdp);
    let bad = |why: String| BrowserError::Step(format!("--cdp {name}: {why}"));
    let base = url::Url::parse(cdp).map_err(|e| bad(e.to_string()))?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(bad(
            "give the browser's ws:// or wss:// URL, or its http(s)://host:port".into(),
        ));
    }
    let version = version_url(&base);
    let answer = client(Duration::from_secs(30))?
        .get(version.clone())
        .send()
        .await
        // reqwest names the URL in its errors, token and all: shown masked instead.
        .map_err(|e| {
            bad(format!(
                "cannot ask {}: {}",
                shown(&version),
                e.without_url()
            ))
        })?;
    let status = answer.status();
    let body = answer.text().await.unwrap_or_default();
    if !status.is_success() {
        return Err(bad(format!(
            "{} answered {status}{}",
            shown(&version),
            refusal_hint(status.as_u16())
        )));
    }
    let v: serde_json::Value = serde_json::from_str(body.trim())
        .map_err(|e| bad(format!("/json/version answered no JSON: {e}")))?;
    let ws = v
        .get("webSocketDebuggerUrl")
        .and_then(|w| w.as_str())
        .ok_or_else(|| bad("/json/version names no webSocketDebuggerUrl".into()))?;
    Ok(with_query(ws, base.query()))
}

/// `/json/version` under the base's path, with its query.
fn version_url(base: &url::Url) -> url::Url {
    let mut u = base.clone();
    let path = format!("{}/json/version", base.path().trim_end_matches('/'));
    u.set_path(&path);
    u
}

/// `ws` with `query` appended where it has no query of its own (browserless names its
/// websocket without the token it asked for).
fn with_query(ws: &str, query: Option<&str>) -> String {
    match query.filter(|q| !q.is_empty()) {
        Some(q) if !ws.contains('?') => format!("{ws}?{q}"),
        _ => ws.to_string(),
    }
}

/// A URL as it may be printed: its query (a token) masked.
pub(crate) fn shown(u: &url::Url) -> String {
    let mut u = u.clone();
    if u.query().is_some() {
        u.set_query(Some("..."));
    }
    if u.password().is_some() {
        let _ = u.set_password(Some("..."));
    }
    u.to_string()
}

/// `shown` for a URL given as text; one with nothing to hide stays as the user wrote it.
pub fn shown_str(s: &str) -> String {
    match url::Url::parse(s) {
        Ok(u) if u.query().is_some() || u.password().is_some() => shown(&u),
        _ => s.to_string(),
    }
}

/// What a refusal's status says about the grid.
fn refusal_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (a token missing or wrong? give it in the URL, e.g. ?token=...)",
        429 => " (the grid is at its concurrency limit and its queue is full)",
        _ => "",
    }
}

/// Connect to the browser's websocket `ws` (`name`: the endpoint as the user gave it),
/// waiting up to `QUEUE_WAIT` for a grid that holds the connection while its queue is
/// full (said after a few seconds), with the reason of a refusal.
pub(crate) async fn connect(ws: &str, name: &str) -> Result<(Browser, Handler), BrowserError> {
    let shown_name = shown_str(name);
    let connecting = Browser::connect(ws.to_string());
    tokio::pin!(connecting);
    let said = tokio::time::sleep(SAY_WAITING);
    tokio::pin!(said);
    let limit = tokio::time::sleep(QUEUE_WAIT);
    tokio::pin!(limit);
    let mut waited = false;
    loop {
        tokio::select! {
            r = &mut connecting => {
                return r.map_err(|e| {
                    let e = e.to_string();
                    let hint = ["401", "403", "429"]
                        .iter()
                        .find(|s| e.contains(*s))
                        .map(|s| refusal_hint(s.parse().unwrap_or(0)))
                        .unwrap_or("");
                    BrowserError::Step(format!("cannot connect to {shown_name}: {e}{hint}"))
                });
            }
            _ = &mut said, if !waited => {
                waited = true;
                tracing::warn!(
                    "{shown_name} keeps the connection waiting (a grid's queue?); waiting up to {} s",
                    QUEUE_WAIT.as_secs()
                );
            }
            _ = &mut limit => {
                return Err(BrowserError::Step(format!(
                    "cannot connect to {shown_name}: no browser within {} s (a grid's queue that does not move?)",
                    QUEUE_WAIT.as_secs()
                )));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_url_keeps_the_base_path_and_query() {
        let u = url::Url::parse("http://grid:3000/chromium/?token=T").unwrap();
        assert_eq!(
            version_url(&u).as_str(),
            "http://grid:3000/chromium/json/version?token=T"
        );
        let u = url::Url::parse("http://127.0.0.1:9222").unwrap();
        assert_eq!(
            version_url(&u).as_str(),
            "http://127.0.0.1:9222/json/version"
        );
    }

    #[test]
    fn a_websocket_without_a_query_gets_the_bases() {
        assert_eq!(
            with_query("ws://127.0.0.1:3000", Some("token=T")),
            "ws://127.0.0.1:3000?token=T"
        );
        assert_eq!(
            with_query("ws://h/devtools/browser/x?token=U", Some("token=T")),
            "ws://h/devtools/browser/x?token=U"
        );
        assert_eq!(
            with_query("ws://h/devtools/browser/x", None),
            "ws://h/devtools/browser/x"
        );
    }

    #[tokio::test]
    async fn an_endpoint_that_does_not_answer_is_named_without_its_token() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let e = websocket_url(&format!("http://127.0.0.1:{port}/?token=hush"))
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("127.0.0.1:{port}")), "{e}");
        assert!(!e.contains("hush"), "{e}");
    }

    #[test]
    fn a_printed_endpoint_hides_its_token_and_is_otherwise_as_given() {
        assert_eq!(shown_str("http://127.0.0.1:9222"), "http://127.0.0.1:9222");
        assert_eq!(
            shown_str("ws://grid:3000/chromium?token=secret"),
            "ws://grid:3000/chromium?..."
        );
        assert_eq!(
            shown_str("http://user:pw@hub:4444/wd/hub"),
            "http://user:...@hub:4444/wd/hub"
        );
    }
}
