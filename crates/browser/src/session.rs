//! A session: one page (in the default context, or a fresh one when isolating), with its
//! listeners subscribed on about:blank and every domain we rely on enabled before the
//! first navigation.

use std::sync::Arc;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::{
    BrowserContextId, SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use chromiumoxide::cdp::browser_protocol::inspector;
use chromiumoxide::cdp::browser_protocol::page::AddScriptToEvaluateOnNewDocumentParams;
use chromiumoxide::cdp::browser_protocol::target::{
    CloseTargetParams, CreateBrowserContextParams, CreateTargetParams, DisposeBrowserContextParams,
};
use chromiumoxide::cdp::js_protocol::debugger;
use chromiumoxide::cdp::js_protocol::profiler;
use chromiumoxide::{Browser, Page};
use tokio::task::JoinHandle;

use crate::cdp::{call, call_browser, BrowserError};
use crate::events::{subscribe, SharedRef};
use crate::scope::Scope;
use crate::stability::stability_install;

async fn start_coverage(page: &Page, cdp: Duration) -> Result<(), BrowserError> {
    let cov = profiler::StartPreciseCoverageParams::builder()
        .call_count(true)
        .detailed(true)
        .build();
    call(page, cov, cdp).await.map(|_| ())
}

/// Records click-like listeners for the scan (`[actions] listeners`).
const LISTENERS_JS: &str = include_str!("listeners.js");

/// What a new page has on before its first navigation.
pub(crate) struct Enabled<'a> {
    /// Precise coverage (and the debugger for its denominator).
    pub coverage: bool,
    /// The listener recorder (`[actions] listeners`).
    pub listeners: bool,
    /// The specification's bundle, run in every document.
    pub spec: Option<&'a str>,
}

pub(crate) struct Session {
    pub page: Page,
    context: Option<BrowserContextId>,
    task: JoinHandle<()>,
}

impl Session {
    pub async fn open(
        browser: &Browser,
        isolate: bool,
        on: Enabled<'_>,
        shared: &SharedRef,
        scope: Arc<Scope>,
        cdp: Duration,
    ) -> Result<Session, BrowserError> {
        let context = if isolate {
            Some(
                call_browser(browser, CreateBrowserContextParams::default(), cdp)
                    .await?
                    .browser_context_id,
            )
        } else {
            None
        };
        let mut params = CreateTargetParams::new("about:blank");
        params.browser_context_id = context.clone();
        let page = match tokio::time::timeout(cdp, browser.new_page(params)).await {
            Ok(Ok(p)) => p,
            Ok(Err(e)) => return Err(crate::cdp::classify("Target.createTarget", e)),
            Err(_) => return Err(BrowserError::Timeout("Target.createTarget".into())),
        };
        {
            let mut s = shared.lock();
            s.main_frame = page.target_id().inner().clone();
            s.crashed = false;
            s.net.clear();
            s.doc_status = None;
            // Script ids are per renderer: a new page starts a new registry.
            s.scripts.clear_ids();
        }
        let task = subscribe(&page, shared.clone(), scope, cdp).await?;
        let session = Session {
            page,
            context,
            task,
        };
        session.enable(browser, on, cdp).await?;
        Ok(session)
    }

    async fn enable(
        &self,
        browser: &Browser,
        on: Enabled<'_>,
        cdp: Duration,
    ) -> Result<(), BrowserError> {
        let Enabled {
            coverage,
            listeners,
            spec,
        } = on;
        let p = &self.page;
        call(p, inspector::EnableParams::default(), cdp).await?;
        // The target's name is read from the accessibility tree every step; enabled, the
        // tree is kept between reads instead of built for each (name 2.0-2.1 -> 1.3 ms a
        // step on expense, 1.6 -> 1.2-1.4 on clinic, steps/s unchanged or better).
        call(
            p,
            chromiumoxide::cdp::browser_protocol::accessibility::EnableParams::default(),
            cdp,
        )
        .await?;
        if coverage {
            // Debugger is on only for scriptParsed (the coverage denominator). Without a
            // cache limit it would keep every script the page ever dropped alive, and the
            // renderer grew slower over a long run.
            let dbg = debugger::EnableParams::builder()
                .max_scripts_cache_size(0.0)
                .build();
            call(p, dbg, cdp).await?;
            // Pauses stay on for the install script's take before leaving; the event task
            // resumes every other (a `debugger;` statement of the page) at once.
            call(p, debugger::SetSkipAllPausesParams::new(false), cdp).await?;
            call(p, profiler::EnableParams::default(), cdp).await?;
            start_coverage(p, cdp).await?;
        }
        // Requests are decided on at the browser level (launch.rs), popups' included.
        call(
            p,
            AddScriptToEvaluateOnNewDocumentParams::new(stability_install(coverage)),
            cdp,
        )
        .await?;
        // Before the page's own scripts, so every listener they add is seen.
        if listeners {
            call(
                p,
                AddScriptToEvaluateOnNewDocumentParams::new(LISTENERS_JS),
                cdp,
            )
            .await?;
        }
        // The scan function is compiled while each document loads, so neither a scan nor a
        // probe pays a second round trip to install it after a navigation.
        call(
            p,
            AddScriptToEvaluateOnNewDocumentParams::new(crate::scan::init_script()),
            cdp,
        )
        .await?;
        // The specification's extractors run in every document: its bundle is there first.
        if let Some(script) = spec {
            call(p, AddScriptToEvaluateOnNewDocumentParams::new(script), cdp).await?;
        }
        let mut dl = SetDownloadBehaviorParams::builder()
            .behavior(SetDownloadBehaviorBehavior::Deny)
            .events_enabled(true);
        if let Some(c) = &self.context {
            dl = dl.browser_context_id(c.clone());
        }
        let dl = dl.build().map_err(BrowserError::Step)?;
        call_browser(browser, dl, cdp).await?;
        Ok(())
    }

    /// Close the page (and its context); errors are only logged, the page may be gone.
    pub async fn close(self, browser: &Browser, cdp: Duration) {
        self.task.abort();
        let id = self.page.target_id().clone();
        if let Err(e) = call_browser(browser, CloseTargetParams::new(id), cdp).await {
            tracing::debug!(%e, "page not closed");
        }
        if let Some(c) = self.context {
            if let Err(e) = call_browser(browser, DisposeBrowserContextParams::new(c), cdp).await {
                tracing::debug!(%e, "context not disposed");
            }
        }
    }
}
