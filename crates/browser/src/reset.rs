//! Reset: leave the app, clear its cookies and storage in place (or open a fresh browser
//! context when isolating), replay the login steps, load the start URL and wait.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::emulation::ClearDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::network::ClearBrowserCookiesParams;
use chromiumoxide::cdp::browser_protocol::page::ResetNavigationHistoryParams;
use chromiumoxide::cdp::browser_protocol::storage::ClearDataForOriginParams;
use wayfarer_core::config::LoginStep;
use wayfarer_core::{Event, EventKind, Outcome};

use crate::actions::Nav;
use crate::cdp::{call, eval, BrowserError};
use crate::env::Inner;
use crate::login::{self, LoginWatch};

/// A reset keeps the page when it performed fewer actions than this since it was opened
/// (episodes of the strategies are 50-100 actions: the first reset after one replaces it).
pub(crate) const KEEP_PAGE_BELOW: u32 = 40;

/// How long a reset waits for the page to leave for about:blank on its own before it
/// navigates there itself.
const LEAVE_WAIT: Duration = Duration::from_secs(1);

impl Inner {
    pub(crate) async fn reset_once(&mut self) -> Result<Outcome, BrowserError> {
        let t = Instant::now();
        let cdp = self.lim.cdp;
        // Whatever ran since the last step counts before the page goes away.
        self.take_coverage().await?;
        if !self.opts.config.isolate {
            // Leave first, so the app's unload handlers cannot write after the clear.
            self.blank().await?;
        }
        let left = t.elapsed();
        let l = self
            .launched
            .as_ref()
            .ok_or_else(|| BrowserError::Dead("no browser".into()))?;
        // A fresh page once the page served many actions (a fresh context when isolating):
        // a renderer that served a long episode with the profiler and the debugger attached
        // kept every document's functions alive, and a 1000-step run slowed to a quarter of
        // its speed. A page that served few (a replay while shrinking) is kept: a new one
        // costs 0.2-0.4 s, most of a short replay's reset. It is on about:blank by now.
        let keep = !self.opts.config.isolate
            && self.page_steps < KEEP_PAGE_BELOW
            && self.session.is_some()
            && !self.shared.lock().crashed;
        if !keep {
            if let Some(s) = self.session.take() {
                s.close(&l.browser, cdp).await;
            }
            self.open_session().await?;
        }
        let opened = t.elapsed();
        {
            // A spec's `SetViewport` belongs to its episode: each starts at the window's size.
            let page = self.page()?;
            call(&page, ClearDeviceMetricsOverrideParams::default(), cdp).await?;
        }
        if !self.opts.config.isolate {
            // The clears are independent commands: sent together, awaited once.
            let page = self.page()?;
            let owned = self.launched.as_ref().is_some_and(|l| l.owned);
            let cookies = async {
                if owned {
                    call(&page, ClearBrowserCookiesParams::default(), cdp).await?;
                }
                Ok::<(), BrowserError>(())
            };
            let storage = futures::future::try_join_all(
                self.scope
                    .origins()
                    .map(|o| call(&page, ClearDataForOriginParams::new(o.clone(), "all"), cdp)),
            );
            futures::future::try_join(cookies, storage).await?;
        }
        {
            let mut s = self.shared.lock();
            s.net.clear();
            s.doc_status = None;
        }
        let cleared = t.elapsed();
        let steps = self.opts.login.clone();
        for (i, step) in steps.iter().enumerate() {
            match self.login_step(step).await {
                Ok(()) => {}
                Err(
                    e @ (BrowserError::Step(_)
                    | BrowserError::NotFound(_)
                    | BrowserError::Protocol(..)),
                ) => {
                    // Fails fast, saying which step and where it was: retrying cannot help.
                    let shows = login::page_shows(&self.page()?, cdp).await;
                    return Err(BrowserError::Login(format!(
                        "login step {} of {} ({}): {e}; the page was {shows}",
                        i + 1,
                        steps.len(),
                        login::describe(step)
                    )));
                }
                Err(e) => return Err(e),
            }
        }
        let page = self.page()?;
        let start = self.opts.start_url.to_string();
        let mut nav = self.actor(&page).navigate(&start).await?;
        if matches!(nav, Nav::Aborted) {
            // A later navigation won: the old page's way out (its location.replace, held by
            // a "Leave site?" question) committing late, which left about:blank shown.
            tracing::debug!(%start, "the start page's load was aborted; asking again");
            nav = self.actor(&page).navigate(&start).await?;
        }
        match nav {
            Nav::Failed(reason) => return Err(BrowserError::Unreachable(start, reason)),
            Nav::TimedOut => self.shared.push(Event::new(
                EventKind::Hang,
                format!(
                    "page not stable: load of {start} did not finish within {} ms (stopped)",
                    self.lim.load.as_millis()
                ),
            )),
            Nav::Done | Nav::Aborted => {}
        }
        let act = t.elapsed();
        // The start page's scripts ran since the take before leaving.
        self.last_action = Some(Instant::now());
        let wait = self.wait(Instant::now()).await;
        // Back from the start page must be a no-op, as in a fresh browser.
        let _ = call(&page, ResetNavigationHistoryParams::default(), cdp).await;
        // The episode's properties begin at the state this reset captures.
        self.spec_begin().await?;
        let outcome = self.observe(act, wait).await?;
        self.decide_login_watch(&page).await?;
        if !self.first_reset_done {
            self.first_reset_done = true;
            self.shared.lock().cov.lock().mark_first_load();
        }
        // Where a reset's time goes, cumulative: left the page, a new page open, cleared, loaded.
        tracing::debug!(
            kept_page = keep,
            timings = ?outcome.timings,
            left_ms = left.as_millis() as u64,
            opened_ms = opened.as_millis() as u64,
            cleared_ms = cleared.as_millis() as u64,
            loaded_ms = act.as_millis() as u64,
            url = %outcome.observation.url,
            "reset"
        );
        Ok(outcome)
    }

    /// Leave the page for about:blank, clearing its session storage on the way out. A
    /// page-initiated about:blank keeps the renderer (faster than Page.navigate).
    /// Coverage must be taken before: the page need not pause for a take on the way out.
    pub(crate) async fn blank(&mut self) -> Result<(), BrowserError> {
        let page = self.page()?;
        let cdp = self.lim.cdp;
        let leave = "try { sessionStorage.clear() } catch (e) {} \
            const s = window[Symbol.for('wayfarer.stability')]; if (s) s.quietLeave = true; \
            location.replace('about:blank'); 1";
        let _ = eval(&page, leave, cdp).await;
        // The page may still be on its way out (a "Leave site?" question being answered, its
        // unload handlers): a navigation of ours now would race that one, and whichever
        // commits last aborts the other, or the start page's after it.
        let until = Instant::now() + LEAVE_WAIT;
        loop {
            let left = eval(&page, "location.href", cdp).await;
            if matches!(&left, Ok(serde_json::Value::String(u)) if u == "about:blank") {
                return Ok(());
            }
            if Instant::now() >= until {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.actor(&page).navigate("about:blank").await?;
        Ok(())
    }

    /// Before the application is made fresh (its server restarted): take the page's
    /// coverage and leave it, so it does not poll a stopped server in the meantime.
    pub(crate) async fn leave_app(&mut self) -> Result<(), BrowserError> {
        self.take_coverage().await?;
        self.blank().await
    }

    /// After the login steps and the start page: the first time, whether the login form
    /// is gone (then it is watched for after every step); later, a form that is back
    /// means the login no longer works.
    async fn decide_login_watch(&mut self, page: &chromiumoxide::Page) -> Result<(), BrowserError> {
        let fields = login::form_fields(&self.opts.login);
        if fields.is_empty() || self.login_watch == LoginWatch::Off {
            return Ok(());
        }
        let shown = login::shows_form(page, &fields, self.lim.cdp).await;
        match (&self.login_watch, shown) {
            (LoginWatch::Undecided, false) => self.login_watch = LoginWatch::On(fields),
            (LoginWatch::Undecided, true) => {
                tracing::warn!(
                    "after the login steps the start page still has the login fields ({}): \
                     wrong credentials, or fields every page has; being logged out mid-run \
                     will not be noticed",
                    fields.join(", ")
                );
                self.login_watch = LoginWatch::Off;
            }
            (LoginWatch::On(_), true) => {
                let shows = login::page_shows(page, self.lim.cdp).await;
                return Err(BrowserError::Login(format!(
                    "after the {} login steps the start page shows the login form again ({}): \
                     logging in no longer works (a password changed or an account locked by \
                     the exploration?); the page was {shows}",
                    self.opts.login.len(),
                    fields.join(", ")
                )));
            }
            _ => {}
        }
        Ok(())
    }

    async fn login_step(&mut self, step: &LoginStep) -> Result<(), BrowserError> {
        let page = self.page()?;
        let actor = self.actor(&page);
        if let Some(goto) = &step.goto {
            let url = self
                .opts
                .start_url
                .join(goto)
                .map_err(|e| BrowserError::Step(format!("login goto {goto:?}: {e}")))?;
            if let Nav::Failed(reason) = actor.navigate(url.as_str()).await? {
                return Err(BrowserError::Unreachable(url.to_string(), reason));
            }
            self.wait(Instant::now()).await;
        }
        let not_found = |e: BrowserError| match e {
            BrowserError::NotFound(sel) => {
                BrowserError::Step(format!("login step: {sel} not found"))
            }
            other => other,
        };
        if let Some(sel) = &step.fill {
            let actor = self.actor(&page);
            let started = Instant::now();
            actor
                .type_text(sel, step.value.as_deref().unwrap_or(""))
                .await
                .map_err(not_found)?;
            self.wait(started).await;
        }
        if let Some(sel) = &step.click {
            let actor = self.actor(&page);
            let started = Instant::now();
            actor.click(sel, 1).await.map_err(not_found)?;
            self.wait(started).await;
        }
        Ok(())
    }
}
