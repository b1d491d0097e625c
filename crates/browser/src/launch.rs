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
use crate::endpoint::{connect, websocket_url};
use crate::events::{fetch_patterns, subscribe_browser, SharedRef};
use crate::grid::GridSession;
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
    /// The WebDriver session the browser belongs to (`--grid`), deleted on shutdown.
    grid: Option<GridSession>,
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

/// Chromium's arguments for a browser a grid starts (`--grid`): headless, the window
/// size, and wayfarer's switches.
fn grid_args(c: &BrowserConfig) -> Vec<String> {
    let mut args = vec![
        "--headless=new".to_string(),
        "--no-sandbox".to_string(),
        format!("--window-size={},{}", c.window_width, c.window_height),
    ];
    args.extend(launch_flags(c).iter().map(Flag::spelled));
    args
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

/// Launch Chromium (or connect to `cdp_url`) and start the handler and browser-level tasks.
pub(crate) async fn launch(
    opts: &BrowserOptions,
    shared: &SharedRef,
    scope: &Arc<Scope>,
) -> Result<Launched, BrowserError> {
    let (mut browser, mut handler, dir, watchdog, grid) = match (&opts.grid, &opts.cdp_url) {
        (Some(hub), _) => {
            let mut session = GridSession::open(hub, &grid_args(&opts.config)).await?;
            match connect(&session.cdp, hub).await {
                Ok((b, h)) => (b, h, None, None, Some(session)),
                Err(e) => {
                    session.delete().await;
                    return Err(e);
                }
            }
        }
        (None, Some(url)) => {
            let ws = websocket_url(url).await?;
            let (b, h) = connect(&ws, url).await?;
            (b, h, None, None, None)
        }
        (None, None) => {
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
            (b, h, Some(dir), watchdog, None)
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
        grid,
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
        // The grid closes the session's browser.
        if let Some(mut g) = self.grid.take() {
            g.delete().await;
        }
        if let Some(dir) = self.user_data_dir.take() {
            // Chromium may still be flushing the profile for a moment after exit.
            if let Err(e) = dir.close() {
                tracing::debug!(%e, "profile not removed");
            }
        }
    }
}
