//! A browser from a WebDriver hub (`--grid`: Selenium Grid 4, a chromedriver, Selenoid):
//! wayfarer opens a session with Chromium's capabilities, drives the browser over the CDP
//! websocket the session names, and deletes the session when it is done with it (at the
//! end of the run, when the browser is replaced, and after a stop by a signal, which
//! ends the run the same way).

use std::time::Duration;

use serde_json::{json, Value};

use crate::cdp::BrowserError;
use crate::endpoint::{client, shown, websocket_url};

/// How long a New Session may wait: a grid queues requests beyond its slots.
const NEW_SESSION_WAIT: Duration = Duration::from_secs(300);

/// One WebDriver session held for a worker.
#[derive(Debug)]
pub(crate) struct GridSession {
    hub: url::Url,
    pub id: String,
    /// The browser-level CDP websocket.
    pub cdp: String,
    deleted: bool,
}

impl GridSession {
    /// Open a session on `hub` for headless Chromium with `args` and find its CDP
    /// websocket: `se:cdp` (Selenium Grid 4), else the browser's own debugging address
    /// (`goog:chromeOptions.debuggerAddress`, a chromedriver), else Selenoid's
    /// `/devtools/ID` on the hub.
    pub async fn open(hub: &str, args: &[String]) -> Result<GridSession, BrowserError> {
        let hub = hub_url(hub)?;
        let hub_shown = shown(&hub);
        let bad = |why: String| BrowserError::Step(format!("--grid {hub_shown}: {why}"));
        let body = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": { "args": args },
                }
            }
        });
        let said = tokio::time::sleep(Duration::from_secs(5));
        let request = client(NEW_SESSION_WAIT)?
            .post(join(&hub, "session"))
            // Selenium Grid refuses `application/json` without the charset.
            .header("content-type", "application/json; charset=utf-8")
            .body(body.to_string())
            .send();
        tokio::pin!(said, request);
        let answer = tokio::select! {
            r = &mut request => r,
            _ = &mut said => {
                tracing::warn!(
                    "--grid {hub_shown}: no session yet (the grid queues it?); waiting up to {} s",
                    NEW_SESSION_WAIT.as_secs()
                );
                request.await
            }
        }
        .map_err(|e| bad(format!("New Session failed: {}", e.without_url())))?;
        let status = answer.status();
        let text = answer.text().await.unwrap_or_default();
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if !status.is_success() {
            let why = v["value"]["message"]
                .as_str()
                .map(|m| m.lines().next().unwrap_or(m).to_string())
                .unwrap_or_else(|| text.chars().take(200).collect());
            return Err(bad(format!("New Session answered {status}: {why}")));
        }
        // W3C puts it under `value`; a JSON Wire hub at the top.
        let value = if v["value"]["sessionId"].is_string() {
            &v["value"]
        } else {
            &v
        };
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| bad(format!("New Session named no session: {text:.200}")))?
            .to_string();
        let mut session = GridSession {
            hub,
            id,
            cdp: String::new(),
            deleted: false,
        };
        match session.find_cdp(&value["capabilities"]).await {
            Ok(ws) => {
                session.cdp = ws;
                Ok(session)
            }
            Err(e) => {
                session.delete().await;
                Err(bad(e))
            }
        }
    }

    /// The session's CDP websocket (see `open`).
    async fn find_cdp(&self, caps: &Value) -> Result<String, String> {
        if let Some(ws) = caps["se:cdp"].as_str() {
            return Ok(ws.to_string());
        }
        let mut tried = Vec::new();
        if let Some(addr) = caps["goog:chromeOptions"]["debuggerAddress"].as_str() {
            // `localhost:PORT` on the node: the hub's host where the hub is elsewhere, and
            // 127.0.0.1 where it is here (Chromium listens on IPv4 only).
            let host = match self.hub.host_str() {
                Some("localhost") | None => "127.0.0.1",
                Some(h) => h,
            };
            let port = addr.rsplit(':').next().unwrap_or(addr);
            let base = format!("http://{host}:{port}");
            match websocket_url(&base).await {
                Ok(ws) => return Ok(ws),
                Err(e) => tried.push(format!("debuggerAddress {addr}: {e}")),
            }
        }
        if caps.get("selenoid:options").is_some() || tried.is_empty() {
            // Selenoid proxies the browser's DevTools at /devtools/ID.
            let mut ws = self.hub.clone();
            let _ = ws.set_scheme(if self.hub.scheme() == "https" {
                "wss"
            } else {
                "ws"
            });
            ws.set_path(&format!("/devtools/{}", self.id));
            ws.set_query(None);
            return Ok(ws.to_string());
        }
        Err(format!(
            "the session names no CDP websocket (no se:cdp; {})",
            tried.join("; ")
        ))
    }

    /// Delete the session (the grid closes its browser); errors are only logged.
    pub async fn delete(&mut self) {
        if self.deleted {
            return;
        }
        self.deleted = true;
        let url = join(&self.hub, &format!("session/{}", self.id));
        let sent = match client(Duration::from_secs(10)) {
            Ok(c) => c
                .delete(url)
                .send()
                .await
                .map(|r| r.status())
                .map_err(reqwest::Error::without_url),
            Err(e) => {
                tracing::warn!("--grid: cannot delete session {}: {e}", self.id);
                return;
            }
        };
        match sent {
            Ok(s) if s.is_success() || s.as_u16() == 404 => {}
            Ok(s) => tracing::warn!("--grid: deleting session {} answered {s}", self.id),
            Err(e) => tracing::warn!("--grid: cannot delete session {}: {e}", self.id),
        }
    }
}

impl Drop for GridSession {
    /// A session not deleted (a panic, an early return) is deleted here, on a thread of
    /// its own: drop may run inside the browser's runtime.
    fn drop(&mut self) {
        if self.deleted {
            return;
        }
        let mut rest = GridSession {
            hub: self.hub.clone(),
            id: std::mem::take(&mut self.id),
            cdp: String::new(),
            deleted: false,
        };
        self.deleted = true;
        let _ = std::thread::spawn(move || {
            if let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                rt.block_on(rest.delete());
            }
        })
        .join();
    }
}

/// The hub's URL, with a trailing slash so that `session` joins under its path
/// (`http://hub:4444/wd/hub` and `http://hub:4444` both work).
fn hub_url(hub: &str) -> Result<url::Url, BrowserError> {
    let hub_given = hub;
    let hub = &crate::endpoint::shown_str(hub_given);
    let mut u =
        url::Url::parse(hub_given).map_err(|e| BrowserError::Step(format!("--grid {hub}: {e}")))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(BrowserError::Step(format!(
            "--grid {hub}: give the WebDriver hub's http(s):// URL (e.g. http://127.0.0.1:4444)"
        )));
    }
    if !u.path().ends_with('/') {
        let p = format!("{}/", u.path());
        u.set_path(&p);
    }
    Ok(u)
}

fn join(hub: &url::Url, rel: &str) -> url::Url {
    hub.join(rel).unwrap_or_else(|_| hub.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_join_under_the_hubs_path() {
        let h = hub_url("http://hub:4444/wd/hub").unwrap();
        assert_eq!(
            join(&h, "session").as_str(),
            "http://hub:4444/wd/hub/session"
        );
        let h = hub_url("http://127.0.0.1:4444").unwrap();
        assert_eq!(
            join(&h, "session/abc").as_str(),
            "http://127.0.0.1:4444/session/abc"
        );
        assert!(hub_url("ws://hub:4444").is_err());
    }

    #[tokio::test]
    async fn the_cdp_websocket_comes_from_se_cdp_else_selenoids_form() {
        let s = GridSession {
            hub: hub_url("http://grid:4444").unwrap(),
            id: "abc".into(),
            cdp: String::new(),
            deleted: true,
        };
        let caps = json!({"se:cdp": "ws://grid:4444/session/abc/se/cdp"});
        assert_eq!(
            s.find_cdp(&caps).await.unwrap(),
            "ws://grid:4444/session/abc/se/cdp"
        );
        let caps = json!({"selenoid:options": {}});
        assert_eq!(
            s.find_cdp(&caps).await.unwrap(),
            "ws://grid:4444/devtools/abc"
        );
    }
}
