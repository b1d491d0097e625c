//! Starting (or attaching to) Chromium and keeping its CDP handler running.

use std::sync::Arc;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::fetch;
use chromiumoxide::error::CdpError;
use chromiumoxide::{Browser, BrowserConfig as ChromeConfig};
use futures::StreamExt;
use tempfile::TempDir;
use tokio::task::JoinHandle;
use wayfarer_core::config::BrowserConfig;

use crate::cdp::{call_browser, BrowserError};
use crate::events::{fetch_patterns, subscribe_browser, SharedRef};
use crate::options::{find_chrome, BrowserOptions};
use crate::scope::Scope;
use wayfarer_process::Watchdog;

pub(crate) struct Launched {
    /// Shared with the browser-level event task, which answers paused requests.
    pub browser: Arc<Browser>,
    handler: JoinHandle<()>,
    browser_events: JoinHandle<()>,
    /// Fresh profile, removed on shutdown.
    user_data_dir: Option<TempDir>,
    pub pid: Option<u32>,
    /// We started the process (not attached by `cdp_url`).
    pub owned: bool,
    /// Kills the browser if wayfarer dies without shutting it down.
    watchdog: Option<Watchdog>,
}

/// One Chromium switch: its name without the leading dashes, and its value if it has one.
/// chromiumoxide prepends `--` itself, so a name written with dashes would reach Chromium
/// as `----name` and be ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flag {
    pub name: &'static str,
    pub value: Option<String>,
}

impl Flag {
    fn on(name: &'static str) -> Flag {
        Flag { name, value: None }
    }

    /// As it appears on Chromium's command line.
    pub fn spelled(&self) -> String {
        match &self.value {
            Some(v) => format!("--{}={v}", self.name),
            None => format!("--{}", self.name),
        }
    }
}

/// The switches wayfarer adds to chromiumoxide's defaults (which already include
/// `--disable-background-networking`, `--no-first-run`, `--disable-sync` ...).
pub fn launch_flags(c: &BrowserConfig) -> Vec<Flag> {
    let mut flags = vec![
        Flag::on("disable-gpu"),
        Flag::on("disable-quic"),
        Flag::on("disable-component-update"),
        Flag::on("disable-background-networking"),
        Flag::on("disable-sync"),
        Flag::on("no-first-run"),
        Flag::on("disable-default-apps"),
        Flag::on("mute-audio"),
        // As Playwright launches Chromium: a page reached by going back is loaded again,
        // not restored with its scripts' state, so exported tests go back as wayfarer did.
        Flag::on("disable-back-forward-cache"),
    ];
    if let Some(rules) = c
        .host_resolver_rules
        .as_deref()
        .filter(|r| !r.trim().is_empty())
    {
        flags.push(Flag {
            name: "host-resolver-rules",
            value: Some(rules.to_string()),
        });
    }
    flags
}

fn config(opts: &BrowserOptions, dir: &TempDir) -> Result<ChromeConfig, BrowserError> {
    let chrome = match &opts.chrome {
        Some(p) => p.clone(),
        None => find_chrome(opts.config.chrome.as_deref())
            .map_err(|e| BrowserError::Step(e.to_string()))?,
    };
    let c = &opts.config;
    let flags = launch_flags(c);
    // Bare names: the builder adds the dashes (and joins repeated names' values).
    let (valued, bare): (Vec<&Flag>, Vec<&Flag>) = flags.iter().partition(|f| f.value.is_some());
    ChromeConfig::builder()
        .chrome_executable(chrome)
        .new_headless_mode()
        .no_sandbox()
        // No forced 800x600 viewport or touch emulation: the window size is the viewport.
        .viewport(None)
        .window_size(c.window_width, c.window_height)
        .user_data_dir(dir.path())
        .disable_https_first()
        .request_timeout(Duration::from_millis(c.cdp_timeout_ms.max(1000)))
        .launch_timeout(Duration::from_secs(30))
        .args(bare.iter().map(|f| f.name))
        .args(
            valued
                .iter()
                .map(|f| (f.name, f.value.as_deref().unwrap_or_default())),
        )
        .build()
        .map_err(BrowserError::Step)
}

/// The browser's websocket for a `--cdp` address: a `ws://`/`wss://` URL as it is, an
/// `http://host:port` asked for it (`/json/version`). Asked here, over a plain socket:
/// chromiumoxide's own lookup goes through a TLS-less reqwest that panics.
async fn websocket_url(cdp: &str) -> Result<String, BrowserError> {
    if cdp.starts_with("ws://") || cdp.starts_with("wss://") {
        return Ok(cdp.to_string());
    }
    let bad = |why: String| BrowserError::Step(format!("--cdp {cdp}: {why}"));
    let u = url::Url::parse(cdp).map_err(|e| bad(e.to_string()))?;
    if u.scheme() != "http" {
        return Err(bad(
            "give the browser's ws:// or wss:// URL, or its http://host:port".into(),
        ));
    }
    let host = u.host_str().unwrap_or("127.0.0.1").to_string();
    let port = u.port_or_known_default().unwrap_or(80);
    let answer = tokio::task::spawn_blocking(move || json_version(&host, port))
        .await
        .map_err(|e| bad(e.to_string()))?
        .map_err(|e| bad(format!("cannot ask for /json/version: {e}")))?;
    let body = answer
        .find('{')
        .zip(answer.rfind('}'))
        .map(|(a, b)| &answer[a..=b])
        .ok_or_else(|| bad("/json/version answered no JSON".into()))?;
    let v: serde_json::Value =
        serde_json::from_str(body).map_err(|e| bad(format!("/json/version: {e}")))?;
    v.get("webSocketDebuggerUrl")
        .and_then(|w| w.as_str())
        .map(str::to_string)
        .ok_or_else(|| bad("/json/version names no webSocketDebuggerUrl".into()))
}

/// `GET /json/version` over HTTP/1.1, the whole answer as text.
fn json_version(host: &str, port: u16) -> std::io::Result<String> {
    use std::io::{Read, Write};
    use std::net::ToSocketAddrs;
    let addr = (host, port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::other("no address"))?;
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(
        s,
        "GET /json/version HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
    )?;
    // Chromium keeps the connection open: read the head, then Content-Length bytes.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = s.read(&mut chunk)?;
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end].lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse::<usize>().ok())?
            });
            let body = buf.len() - (end + 4);
            if n == 0 || length.is_some_and(|l| body >= l) || buf.len() > 1 << 20 {
                return Ok(text);
            }
        } else if n == 0 {
            return Ok(text);
        }
    }
}

/// Launch Chromium (or connect to `cdp_url`) and start the handler and browser-level tasks.
pub(crate) async fn launch(
    opts: &BrowserOptions,
    shared: &SharedRef,
    scope: &Arc<Scope>,
) -> Result<Launched, BrowserError> {
    let (mut browser, mut handler, dir, watchdog) = match &opts.cdp_url {
        Some(url) => {
            let ws = websocket_url(url).await?;
            let (b, h) = Browser::connect(ws)
                .await
                .map_err(|e| BrowserError::Step(format!("cannot connect to {url}: {e}")))?;
            (b, h, None, None)
        }
        None => {
            let dir = tempfile::Builder::new()
                .prefix("wayfarer-chromium-")
                .tempdir()
                .map_err(|e| BrowserError::Step(format!("temp profile: {e}")))?;
            let cfg = config(opts, &dir)?;
            // Watching before the launch: a wayfarer killed while Chromium starts leaves
            // nothing behind either.
            let watchdog = Watchdog::for_profile(dir.path());
            let (b, h) = Browser::launch(cfg)
                .await
                .map_err(|e| BrowserError::Step(format!("cannot launch Chromium: {e}")))?;
            (b, h, Some(dir), watchdog)
        }
    };
    shared.lock().dead = false;
    let flag = shared.clone();
    let handler = tokio::spawn(async move {
        loop {
            match handler.next().await {
                Some(Ok(())) => {}
                // Protocol drift (events our types cannot parse): keep going.
                Some(Err(CdpError::InvalidMessage(..))) | Some(Err(CdpError::Serde(_))) => {}
                Some(Err(e)) => {
                    tracing::debug!(%e, "CDP connection error");
                    flag.lock().dead = true;
                    // Dropping the handler fails the commands waiting on the dead socket
                    // at once, instead of each waiting out the CDP timeout.
                    break;
                }
                None => {
                    flag.lock().dead = true;
                    break;
                }
            }
        }
    });
    let pid = browser.get_mut_child().and_then(|c| c.as_mut_inner().id());
    let browser = Arc::new(browser);
    let cdp = Duration::from_millis(opts.config.cdp_timeout_ms.max(1000));
    let browser_events = subscribe_browser(
        browser.clone(),
        shared.clone(),
        scope.clone(),
        opts.subresources,
        cdp,
    )
    .await?;
    // After the subscription, so no paused request goes unanswered.
    let enable = fetch::EnableParams::builder()
        .pattern(fetch_patterns(opts.subresources))
        .build();
    call_browser(&browser, enable, cdp).await?;
    Ok(Launched {
        owned: dir.is_some(),
        browser,
        handler,
        browser_events,
        user_data_dir: dir,
        pid,
        watchdog,
    })
}

impl Launched {
    /// Why the browser is unusable, if it is.
    pub fn exited(&mut self) -> Option<String> {
        let pid = self.pid?;
        (!wayfarer_process::alive(pid)).then(|| "browser process exited".to_string())
    }

    /// Close the browser politely, then kill it; wait for it and remove the profile.
    pub async fn shutdown(mut self, cdp: Duration) {
        // The event task holds the other handle to the browser: ended first, so closing
        // can have it alone.
        self.browser_events.abort();
        let _ = (&mut self.browser_events).await;
        // Its answers in flight end within the CDP timeout.
        let t = std::time::Instant::now();
        while Arc::strong_count(&self.browser) > 1 && t.elapsed() < cdp.min(Duration::from_secs(2))
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let Some(browser) = Arc::get_mut(&mut self.browser) else {
            // Still shared (cannot happen once the task is gone): the watchdog, dropped
            // undismissed, kills what we cannot close.
            tracing::debug!("browser still shared at shutdown; left to the watchdog");
            self.handler.abort();
            return;
        };
        if self.owned {
            let closed =
                tokio::time::timeout(cdp.min(Duration::from_secs(3)), browser.close()).await;
            if !matches!(closed, Ok(Ok(_))) {
                let _ = browser.kill().await;
            }
            if tokio::time::timeout(Duration::from_secs(5), browser.wait())
                .await
                .is_err()
            {
                let _ = browser.kill().await;
                let _ = tokio::time::timeout(Duration::from_secs(2), browser.wait()).await;
            }
        }
        if let Some(w) = self.watchdog.take() {
            w.dismiss();
        }
        self.handler.abort();
        if let Some(dir) = self.user_data_dir.take() {
            // Chromium may still be flushing the profile for a moment after exit.
            if let Err(e) = dir.close() {
                tracing::debug!(%e, "profile not removed");
            }
        }
    }
}
