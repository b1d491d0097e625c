//! `BrowserEnv`: the synchronous `Environment` over the async browser. It owns a small
//! tokio runtime, checks the browser's health before each call and restarts it (or
//! reopens a crashed page) so the run goes on from a reset.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wayfarer_core::{
    Action, ActionKind, Coverage, EnvError, EnvTimings, Environment, Event, EventKind, Outcome,
    Performed, Probe, TargetName,
};

use crate::actions::Actor;
use crate::actions::Typed;
use crate::cdp::BrowserError;
use crate::coverage;
use crate::events::SharedRef;
use crate::launch::{launch, Launched};
use crate::leave::{Control, LeaveStats};
use crate::login::LoginWatch;
use crate::name::{tree_name, Identified};
use crate::options::BrowserOptions;
use crate::scan::{scan, scan_script, ScanScript};
use crate::scope::Scope;
use crate::session::Session;
use crate::stability::{wait_stable, InputMark, WaitLimits};
use wayfarer_core::config::CoverageMode;

/// The async side; `BrowserEnv` blocks on its methods.
pub(crate) struct Inner {
    pub opts: BrowserOptions,
    pub scope: Arc<Scope>,
    pub scan: ScanScript,
    pub lim: WaitLimits,
    pub shared: SharedRef,
    pub launched: Option<Launched>,
    pub session: Option<Session>,
    /// Actions the current page performed since it was opened: a reset keeps a page that
    /// served few ([`crate::reset::KEEP_PAGE_BELOW`]).
    pub page_steps: u32,
    pub first_reset_done: bool,
    /// Which kinds of action leave their document (when to take coverage first).
    pub leave: LeaveStats,
    /// When the last action was performed.
    pub last_action: Option<Instant>,
    /// How the accessibility tree and the page named the last action's target.
    pub named: Option<TargetName>,
    /// The JSON array of attributes read as test ids.
    pub tids: String,
    /// The login form's fields (the login steps' `fill` selectors), watched after every
    /// step once a reset showed they are gone when logged in.
    pub login_watch: LoginWatch,
    /// The user's specification, when the run has one.
    pub spec: Option<crate::spec::SpecState>,
}

/// What performing an action took.
struct Acted {
    act: Duration,
    wait: Duration,
    /// Coverage taken before the action (it may have left the document).
    coverage: Duration,
    /// Reading the target's name from the accessibility tree.
    name: Duration,
}

/// Headless Chromium as a `wayfarer_core::Environment`.
pub struct BrowserEnv {
    // Crate-visible for the bench hooks in `inject.rs`.
    pub(crate) rt: tokio::runtime::Runtime,
    pub(crate) inner: Inner,
    restarts: u32,
    timeouts_in_row: u32,
    closed: bool,
}

const LAUNCH_ATTEMPTS: u32 = 3;

/// How often a start page that offered nothing is looked at for a change.
const CHANGE_POLL: Duration = Duration::from_millis(100);

/// The document's identity and the time of its last activity (a DOM mutation, a request
/// it started), from the stability script; `null` before the script is installed.
const LAST_ACTIVITY: &str = "(() => { const s = window[Symbol.for(\"wayfarer.stability\")]; \
    return s ? [s.id, s.t] : null; })()";

impl BrowserEnv {
    /// Start the browser and open the first page (still on about:blank: call `reset`).
    /// Blocks; must not be called from inside another tokio runtime.
    pub fn launch(opts: BrowserOptions) -> Result<BrowserEnv, EnvError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("wayfarer-browser")
            .enable_all()
            .build()
            .map_err(|e| EnvError::Browser(format!("tokio runtime: {e}")))?;
        let c = &opts.config;
        let lim = WaitLimits {
            quiet: Duration::from_millis(c.quiet_ms),
            stable: Duration::from_millis(c.stable_timeout_ms),
            load: Duration::from_millis(c.load_timeout_ms),
            long: Duration::from_millis(c.long_request_ms),
            cdp: Duration::from_millis(c.cdp_timeout_ms.max(100)),
        };
        let mut inner = Inner {
            scope: Arc::new(Scope::new(&opts.start_url, &opts.allow_origins)),
            scan: scan_script(&opts.deny),
            lim,
            shared: SharedRef::with_coverage(opts.coverage.clone()),
            launched: None,
            session: None,
            page_steps: 0,
            first_reset_done: false,
            leave: LeaveStats::default(),
            last_action: None,
            named: None,
            login_watch: LoginWatch::Undecided,
            spec: opts.spec.clone().map(crate::spec::SpecState::new),
            tids: serde_json::to_string(&opts.config.test_id_attrs())
                .unwrap_or_else(|_| "[]".into()),
            opts,
        };
        rt.block_on(inner.start())
            .map_err(|e| EnvError::Browser(e.to_string()))?;
        Ok(BrowserEnv {
            rt,
            inner,
            restarts: 0,
            timeouts_in_row: 0,
            closed: false,
        })
    }

    /// Start (or attach to) several browsers at once, one thread each: the workers of a
    /// run. Each result is in the order of `options`.
    pub fn launch_all(options: Vec<BrowserOptions>) -> Vec<Result<BrowserEnv, EnvError>> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = options
                .into_iter()
                .map(|o| scope.spawn(move || BrowserEnv::launch(o)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(EnvError::Browser("the launch panicked".into())))
                })
                .collect()
        })
    }

    /// Pid of the launched Chromium (None when attached by `cdp_url`).
    pub fn browser_pid(&self) -> Option<u32> {
        self.inner.launched.as_ref().and_then(|l| l.pid)
    }

    /// How many times the browser was relaunched or a crashed page reopened.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// Crash the page's renderer (`Page.crash`): lets tests exercise crash recovery.
    #[doc(hidden)]
    pub fn crash_page_for_tests(&mut self) {
        use chromiumoxide::cdp::browser_protocol::page::CrashParams;
        if let Ok(page) = self.inner.page() {
            // Page.crash never answers; the short timeout is expected to expire.
            let limit = Duration::from_millis(300);
            let _ = self
                .rt
                .block_on(crate::cdp::call(&page, CrashParams::default(), limit));
        }
    }

    /// The page's JS heap in use after a full collection (bytes): lets tests see what a
    /// page keeps alive across resets.
    #[doc(hidden)]
    pub fn js_heap_for_tests(&mut self) -> Option<f64> {
        use chromiumoxide::cdp::js_protocol::heap_profiler::CollectGarbageParams;
        use chromiumoxide::cdp::js_protocol::runtime::GetHeapUsageParams;
        let page = self.inner.page().ok()?;
        let cdp = self.inner.lim.cdp;
        self.rt.block_on(async {
            crate::cdp::call(&page, CollectGarbageParams::default(), cdp)
                .await
                .ok()?;
            let usage = crate::cdp::call(&page, GetHeapUsageParams::default(), cdp)
                .await
                .ok()?;
            Some(usage.used_size)
        })
    }

    /// Why the browser is unusable, if it is (process gone, socket closed).
    fn health(&mut self) -> Option<String> {
        let _guard = self.rt.enter();
        let Some(l) = self.inner.launched.as_mut() else {
            return Some("the browser is not running".into());
        };
        if let Some(why) = l.exited() {
            return Some(why);
        }
        if self.inner.shared.lock().dead {
            // A grid ends a session at its timeout by closing the connection.
            let remote = self.inner.opts.cdp_url.is_some() || self.inner.opts.grid.is_some();
            return Some(
                if remote {
                    "the connection to the browser was lost (a grid's session timeout, or the browser gone)"
                } else {
                    "the connection to the browser was lost"
                }
                .into(),
            );
        }
        None
    }

    /// Stop whatever script keeps the page from answering; true when it answers again
    /// (the next outcome then holds a hang saying so).
    fn unstuck(&mut self) -> bool {
        let Ok(page) = self.inner.page() else {
            return false;
        };
        let cdp = self.inner.lim.cdp;
        let answers = matches!(
            self.rt.block_on(crate::stability::unstick(&page, cdp)),
            crate::stability::Unstuck::Answers
        );
        if answers {
            self.inner.shared.push(crate::stability::stuck_event(
                2 * cdp.as_millis(),
                "over two calls in a row",
            ));
        }
        answers
    }

    fn crashed(&self) -> bool {
        self.inner.shared.lock().crashed
    }

    /// Run `op` with the browser's health checked before and after, restarting as needed
    /// (the outcome of the reset after a restart becomes a `T` through `recovered`).
    fn guarded<T, F>(&mut self, op: F, recovered: fn(Outcome) -> T) -> Result<T, EnvError>
    where
        F: for<'a> FnOnce(&'a mut Inner) -> futures::future::BoxFuture<'a, Result<T, BrowserError>>,
    {
        if self.closed {
            return Err(EnvError::Browser("the environment is closed".into()));
        }
        if let Some(why) = self.health() {
            return self.restart(why).map(recovered);
        }
        if self.crashed() {
            return self.reopen_page().map(recovered);
        }
        let result = self.rt.block_on(op(&mut self.inner));
        if let Some(why) = self.health() {
            return self.restart(why).map(recovered);
        }
        if self.crashed() {
            return self.reopen_page().map(recovered);
        }
        match result {
            Ok(o) => {
                self.timeouts_in_row = 0;
                Ok(o)
            }
            Err(BrowserError::Unreachable(url, reason)) => {
                Err(EnvError::Unreachable { url, reason })
            }
            Err(BrowserError::NotFound(loc)) => {
                self.timeouts_in_row = 0;
                Err(EnvError::ElementNotFound(loc))
            }
            Err(BrowserError::Login(why)) => Err(EnvError::Login(why)),
            Err(BrowserError::Dead(why)) => self.restart(why).map(recovered),
            Err(e @ BrowserError::Timeout(_)) => {
                self.timeouts_in_row += 1;
                if self.timeouts_in_row >= 2 && self.unstuck() {
                    // A script of the page's own that never ended (one started between
                    // steps) was stopped: the same page goes on, no relaunch.
                    self.timeouts_in_row = 0;
                    Err(EnvError::Step(e.to_string()))
                } else if self.timeouts_in_row >= 2 {
                    self.restart(format!("two CDP calls in a row timed out (last: {e})"))
                        .map(recovered)
                } else {
                    Err(EnvError::Step(e.to_string()))
                }
            }
            Err(e) => {
                self.timeouts_in_row = 0;
                Err(EnvError::Step(e.to_string()))
            }
        }
    }

    /// Relaunch the browser (coverage is kept), reset, and say so in the outcome.
    fn restart(&mut self, why: String) -> Result<Outcome, EnvError> {
        tracing::warn!(%why, "restarting the browser");
        self.timeouts_in_row = 0;
        let inner = &mut self.inner;
        let mut last = String::new();
        let mut started = false;
        for attempt in 1..=LAUNCH_ATTEMPTS {
            if attempt > 1 && (inner.opts.cdp_url.is_some() || inner.opts.grid.is_some()) {
                // A farm brings a lost browser back within seconds, not at once: 1 s, 2 s.
                std::thread::sleep(Duration::from_secs(1 << (attempt - 2)));
            }
            self.rt.block_on(inner.stop());
            match self.rt.block_on(inner.start()) {
                Ok(()) => {
                    started = true;
                    break;
                }
                Err(e) => {
                    tracing::warn!(attempt, %e, "relaunch failed");
                    last = e.to_string();
                }
            }
        }
        if !started {
            return Err(EnvError::Browser(format!(
                "the browser could not be restarted after {LAUNCH_ATTEMPTS} attempts ({why}): {last}"
            )));
        }
        self.restarts += 1;
        inner.shared.push(Event::new(
            EventKind::BrowserRestart,
            format!("browser restarted: {why}"),
        ));
        self.reset_after_recovery()
    }

    /// A renderer crash: a new page in the same browser, then a reset.
    fn reopen_page(&mut self) -> Result<Outcome, EnvError> {
        tracing::warn!("page crashed; opening a new one");
        let inner = &mut self.inner;
        let reopened = self.rt.block_on(async {
            if let (Some(s), Some(l)) = (inner.session.take(), inner.launched.as_ref()) {
                s.close(&l.browser, inner.lim.cdp).await;
            }
            inner.open_session().await
        });
        match reopened {
            Ok(()) => {
                self.restarts += 1;
                self.reset_after_recovery()
            }
            Err(e) => self.restart(format!("no new page after a crash: {e}")),
        }
    }

    fn reset_after_recovery(&mut self) -> Result<Outcome, EnvError> {
        match self.rt.block_on(self.inner.reset_once()) {
            Ok(mut o) => {
                o.restarted = true;
                Ok(o)
            }
            Err(BrowserError::Unreachable(url, reason)) => {
                Err(EnvError::Unreachable { url, reason })
            }
            Err(e) => Err(EnvError::Browser(format!(
                "reset after a restart failed: {e}"
            ))),
        }
    }
}

impl Inner {
    /// Launch (or attach) and open a session.
    async fn start(&mut self) -> Result<(), BrowserError> {
        let launched = launch(&self.opts, &self.shared, &self.scope).await?;
        self.launched = Some(launched);
        self.open_session().await
    }

    pub(crate) async fn open_session(&mut self) -> Result<(), BrowserError> {
        let l = self
            .launched
            .as_ref()
            .ok_or_else(|| BrowserError::Dead("no browser".into()))?;
        let s = Session::open(
            &l.browser,
            self.opts.config.isolate,
            crate::session::Enabled {
                coverage: self.coverage_mode() != CoverageMode::Off,
                listeners: self.opts.actions.listeners,
                spec: self.opts.spec.as_deref(),
            },
            &self.shared,
            self.scope.clone(),
            self.lim.cdp,
        )
        .await?;
        self.session = Some(s);
        self.page_steps = 0;
        Ok(())
    }

    /// Close everything we hold; errors are ignored (the browser may be dead).
    async fn stop(&mut self) {
        let cdp = self.lim.cdp.min(Duration::from_secs(2));
        if let Some(s) = self.spec.as_mut() {
            s.lost_browser();
        }
        if let Some(l) = self.launched.take() {
            if let Some(s) = self.session.take() {
                if !l.owned {
                    s.close(&l.browser, cdp).await;
                }
            }
            l.shutdown(cdp).await;
        }
        self.session = None;
    }

    pub(crate) fn page(&self) -> Result<chromiumoxide::Page, BrowserError> {
        self.session
            .as_ref()
            .map(|s| s.page.clone())
            .ok_or_else(|| BrowserError::Dead("no page".into()))
    }

    pub(crate) fn actor<'a>(&'a self, page: &'a chromiumoxide::Page) -> Actor<'a> {
        Actor {
            page,
            shared: &self.shared,
            scope: &self.scope,
            cdp: self.lim.cdp,
            load: self.lim.load,
            tids: &self.tids,
        }
    }

    fn coverage_mode(&self) -> CoverageMode {
        self.opts.config.coverage
    }

    /// Whether the periodic take of lazy coverage is due (every-step: always).
    fn coverage_due(&self) -> bool {
        match self.coverage_mode() {
            CoverageMode::Off => false,
            CoverageMode::EveryStep => true,
            CoverageMode::Lazy => {
                let every = Duration::from_millis(self.opts.config.coverage_interval_ms);
                self.shared
                    .lock()
                    .cov_taken
                    .is_none_or(|t| t.elapsed() >= every)
            }
        }
    }

    /// Take coverage; a failure only costs this take's data (unless the browser is gone).
    pub(crate) async fn take_coverage(&self) -> Result<(), BrowserError> {
        if self.coverage_mode() == CoverageMode::Off {
            return Ok(());
        }
        let page = self.page()?;
        match coverage::take(&page, &self.shared, self.lim.cdp).await {
            Err(e @ (BrowserError::Dead(_) | BrowserError::Timeout(_))) => Err(e),
            Err(e) => {
                tracing::debug!(%e, "coverage take failed");
                Ok(())
            }
            Ok(()) => Ok(()),
        }
    }

    /// Wait for stability after an action that began at `started`.
    pub(crate) async fn wait(&self, started: Instant) -> Duration {
        self.wait_for(started, None).await
    }

    /// `wait`, also until the page has handled the clicks that `input` expects.
    pub(crate) async fn wait_for(&self, started: Instant, input: Option<InputMark>) -> Duration {
        let t = Instant::now();
        if let (Some(l), Ok(page)) = (self.launched.as_ref(), self.page()) {
            let hang = wait_stable(&l.browser, &page, &self.shared, t, started, self.lim, input);
            if let Some(hang) = hang.await {
                self.shared.push(hang);
            }
        }
        t.elapsed()
    }

    /// Scan and pack the outcome with everything collected since the last one.
    pub(crate) async fn observe(
        &mut self,
        act: Duration,
        wait: Duration,
    ) -> Result<Outcome, BrowserError> {
        let tc = Instant::now();
        // The first load is always taken: its coverage is reported on its own.
        if self.coverage_due() || !self.first_reset_done {
            self.take_coverage().await?;
        }
        let coverage = tc.elapsed();
        let t = Instant::now();
        let page = self.page()?;
        let mut observation = scan(&page, &self.scan, self.lim.cdp).await?;
        let scanned = t.elapsed();
        let ts = Instant::now();
        self.spec_check().await;
        let spec = ts.elapsed();
        let mut s = self.shared.lock();
        observation.status = s.doc_status;
        Ok(Outcome {
            observation,
            events: std::mem::take(&mut s.events),
            timings: EnvTimings {
                act,
                wait,
                scan: scanned,
                coverage,
                name: Duration::ZERO,
                spec,
            },
            restarted: false,
        })
    }

    /// Wait, at most `within`, for the page to change (a DOM mutation, a request of its
    /// own, another document), then for it to be stable, and scan it: a start page that
    /// renders late is waited for as any page is after an action.
    async fn await_change(&mut self, within: Duration) -> Result<Outcome, BrowserError> {
        let t = Instant::now();
        let page = self.page()?;
        let cdp = self.lim.cdp;
        // The page's document and its last activity, as the stability script keeps them.
        let mark = crate::cdp::eval(&page, LAST_ACTIVITY, cdp).await.ok();
        while t.elapsed() < within {
            tokio::time::sleep(CHANGE_POLL.min(within.saturating_sub(t.elapsed()))).await;
            // An error (a document being replaced) is looked past: the next look sees the new one.
            match crate::cdp::eval(&page, LAST_ACTIVITY, cdp).await {
                Ok(now) if Some(&now) != mark.as_ref() => break,
                Ok(_) => {}
                Err(e @ (BrowserError::Dead(_) | BrowserError::Timeout(_))) => return Err(e),
                Err(e) => tracing::debug!(%e, "looking for a change of the start page"),
            }
        }
        let waited = self.wait(Instant::now()).await;
        tracing::debug!(
            changed_after_ms = t.elapsed().saturating_sub(waited).as_millis() as u64,
            "start page waited for"
        );
        self.observe(Duration::ZERO, t.elapsed()).await
    }

    async fn step_once(&mut self, action: &Action) -> Result<Outcome, BrowserError> {
        let acted = self.act_and_wait(action).await?;
        if let Some(s) = self.spec.as_mut() {
            s.last = Some(action.clone());
        }
        let mut out = self.observe(acted.act, acted.wait).await?;
        if let LoginWatch::On(fields) = &self.login_watch {
            let page = self.page()?;
            if crate::login::shows_form(&page, fields, self.lim.cdp).await {
                out.events.push(Event::new(
                    EventKind::LoggedOut,
                    format!(
                        "logged out: the page shows the login form again ({})",
                        fields.join(", ")
                    ),
                ));
            }
        }
        out.timings.coverage += acted.coverage;
        out.timings.name = acted.name;
        tracing::debug!(action = %action.describe(), timings = ?out.timings, events = out.events.len(), "step");
        Ok(out)
    }

    /// Act and wait, then take coverage as a scan would, but do not scan.
    async fn perform_once(&mut self, action: &Action) -> Result<Performed, BrowserError> {
        let Acted {
            act,
            wait,
            coverage: before,
            name,
        } = self.act_and_wait(action).await?;
        let tc = Instant::now();
        if self.coverage_due() {
            self.take_coverage().await?;
        }
        let coverage = tc.elapsed() + before;
        // A replay without scans still captures the state for the properties.
        if let Some(s) = self.spec.as_mut() {
            s.last = Some(action.clone());
        }
        let ts = Instant::now();
        self.spec_check().await;
        let spec = ts.elapsed();
        let events = std::mem::take(&mut self.shared.lock().events);
        tracing::debug!(action = %action.describe(), events = events.len(), "performed without a scan");
        Ok(Performed::Acted {
            events,
            timings: EnvTimings {
                act,
                wait,
                scan: Duration::ZERO,
                coverage,
                name,
                spec,
            },
        })
    }

    /// Whether to take coverage before an action on `control`. Only back and address
    /// navigations, which the browser starts itself: a document the page itself leaves
    /// (a link, a form, a script) pauses in the install script's `navigate` listener and
    /// is taken there, after every handler of the action (see `events.rs`).
    fn take_with(&self, control: Control) -> bool {
        if control != Control::History {
            return false;
        }
        match self.coverage_mode() {
            CoverageMode::Off => false,
            CoverageMode::EveryStep => true,
            CoverageMode::Lazy => {
                // Worth it only when something ran since the last take.
                let ran = match (self.last_action, self.shared.lock().cov_taken) {
                    (Some(a), Some(t)) => a > t,
                    (_, None) => true,
                    (None, Some(_)) => false,
                };
                ran && self.leave.take_for(control)
            }
        }
    }

    /// Run `act` once the target's name is read (`naming`) and, when `take`, coverage is
    /// taken; the name query and the take go out together. The name must be in before the
    /// input goes out: a query still open when the page paused on its way out (the take
    /// before leaving) crashed the renderer in 5 of 46 bench runs. Returns the act's time
    /// and the take's, the name, and what reading it added to the take.
    async fn act_named(
        &self,
        take: bool,
        naming: impl std::future::Future<Output = Option<TargetName>>,
        act: impl std::future::Future<Output = Result<(), BrowserError>>,
    ) -> (
        Result<(Duration, Duration), BrowserError>,
        Option<TargetName>,
        Duration,
    ) {
        let t = Instant::now();
        let taking = async {
            let r = if take {
                self.take_coverage().await
            } else {
                Ok(())
            };
            (r, Instant::now())
        };
        let ((taken, took_at), (name, named_at)) =
            tokio::join!(taking, async { (naming.await, Instant::now()) });
        let extra = named_at.saturating_duration_since(took_at);
        let tc = took_at.saturating_duration_since(t);
        if let Err(e) = taken {
            return (Err(e), name, extra);
        }
        let ta = Instant::now();
        let acted = act.await.map(|()| (ta.elapsed(), tc));
        (acted, name, extra)
    }

    /// Perform the action and wait for stability: the time each took.
    async fn act_and_wait(&mut self, action: &Action) -> Result<Acted, BrowserError> {
        let page = self.page()?;
        self.page_steps += 1;
        let documents = {
            let mut s = self.shared.lock();
            s.cov_paused = Duration::ZERO;
            s.documents
        };
        // A step that fails before naming its target must not pass on the last one's.
        self.named = None;
        let actor = self.actor(&page);
        let clicks = match action.kind {
            ActionKind::Click | ActionKind::Check => 1,
            ActionKind::DoubleClick => 2,
            _ => 0,
        };
        let t = Instant::now();
        let mut input = None;
        let mut named = Duration::ZERO;
        let name;
        let (control, taken, (act, coverage)) = if clicks > 0 {
            let loc = action.target.as_deref().ok_or_else(|| {
                BrowserError::Step(format!("{} needs a target", action.kind.as_str()))
            })?;
            let (aim, id) = actor.aim_identified(loc).await?;
            // Counting the target's names ran inside the aim: the name's cost, not the act's.
            let counted = id.as_ref().map_or(Duration::ZERO, Identified::counted);
            let aimed = t.elapsed().saturating_sub(counted);
            input = aim.input.map(|m| InputMark {
                ups: m.ups + clicks as u64,
                ..m
            });
            let take = self.take_with(aim.control);
            let naming = read_name(&page, id, self.lim.cdp);
            let (acted, read, extra) = self.act_named(take, naming, actor.press(aim, clicks)).await;
            name = read;
            named = extra + counted;
            let (act, coverage) = acted?;
            (aim.control, take, (aimed + act, coverage))
        } else {
            let control = match action.kind {
                ActionKind::Submit => Control::Submit,
                ActionKind::Back | ActionKind::Navigate => Control::History,
                ActionKind::Spec => crate::spec_act::control(action),
                _ => Control::Script,
            };
            let mut id = None;
            let mut typed = None;
            let mut prepared = Duration::ZERO;
            match (action.target.as_deref(), action.kind, control) {
                (Some(loc), ActionKind::Type, _) => {
                    // The field is identified (its names counted) in the eval that focuses it.
                    let tn = Instant::now();
                    let value = action.value.as_deref().unwrap_or("");
                    let (t, i) = actor.prepare_type(loc, value, true).await?;
                    let counted = i.as_ref().map_or(Duration::ZERO, Identified::counted);
                    prepared = tn.elapsed().saturating_sub(counted);
                    named = counted;
                    (typed, id) = (Some(t), i);
                }
                (Some(loc), _, Control::Script | Control::Submit) => {
                    let tn = Instant::now();
                    id = actor.identify(loc).await.unwrap_or_else(|e| {
                        tracing::debug!(%e, "target not identified for its name");
                        None
                    });
                    named = tn.elapsed();
                }
                _ => {}
            }
            let take = self.take_with(control);
            let naming = read_name(&page, id, self.lim.cdp);
            let acting = async {
                match (typed, action.target.as_deref()) {
                    (Some(Typed::Native), _) => Ok(()),
                    (Some(Typed::Keys { filled }), Some(loc)) => {
                        let value = action.value.as_deref().unwrap_or("");
                        actor.finish_type(loc, value, filled).await
                    }
                    _ => actor.act(action).await,
                }
            };
            let (acted, read, extra) = self.act_named(take, naming, acting).await;
            name = read;
            named += extra;
            let acted = acted.map(|(a, c)| (a + prepared, c));
            (control, take, acted?)
        };
        self.last_action = Some(Instant::now());
        self.named = name;
        let mut wait = self.wait_for(t, input).await;
        // A take in the page's pause before leaving is coverage time, not the action's or
        // the wait's (it falls inside the click's reply, or inside the wait when a script
        // leaves later).
        let paused = std::mem::take(&mut self.shared.lock().cov_paused);
        let (mut act, mut coverage) = (act, coverage);
        // A pause longer than the action cannot have been inside it (a form's submission
        // runs in a task after the click's reply).
        if paused < act {
            act -= paused;
        } else {
            wait = wait.saturating_sub(paused);
        }
        coverage += paused;
        let left = self.shared.lock().documents > documents;
        // A page that left by itself was taken for when it paused on the way out.
        let covered =
            taken || (control != Control::History && self.coverage_mode() != CoverageMode::Off);
        self.leave.record(control, left, covered);
        Ok(Acted {
            // Read between finding the element and the input: outside both timings.
            act,
            wait,
            coverage,
            name: named,
        })
    }
}

/// The names of the element `id` identified: from the accessibility tree, and what the
/// page counted. A tree that cannot answer costs the tree's name, not the step (the trace
/// then keeps the scan's approximation).
async fn read_name(
    page: &chromiumoxide::Page,
    id: Option<Identified>,
    limit: Duration,
) -> Option<TargetName> {
    let id = id?;
    let tree = tree_name(page, &id, limit).await.unwrap_or_else(|e| {
        tracing::debug!(%e, "no name from the accessibility tree");
        None
    });
    Some(TargetName {
        tree,
        page: id.page,
    })
}

impl BrowserEnv {
    /// The page a look at the live page reads, without a restart: an error when closed.
    fn live_page(&self) -> Result<chromiumoxide::Page, EnvError> {
        if self.closed {
            return Err(EnvError::Browser("the environment is closed".into()));
        }
        self.inner.page().map_err(|e| EnvError::Step(e.to_string()))
    }
}

impl Environment for BrowserEnv {
    fn reset(&mut self) -> Result<Outcome, EnvError> {
        self.guarded(|inner| Box::pin(inner.reset_once()), |o| o)
    }

    fn await_change(&mut self, within: Duration) -> Result<Option<Outcome>, EnvError> {
        self.guarded(
            move |inner| Box::pin(async move { inner.await_change(within).await.map(Some) }),
            Some,
        )
    }

    fn relaunch(&mut self, why: &str) -> Result<Outcome, EnvError> {
        if self.closed {
            return Err(EnvError::Browser("the environment is closed".into()));
        }
        self.restart(why.to_string())
    }

    fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
        let action = action.clone();
        self.guarded(
            move |inner| Box::pin(async move { inner.step_once(&action).await }),
            |o| o,
        )
    }

    fn perform(&mut self, action: &Action) -> Result<Performed, EnvError> {
        let action = action.clone();
        self.guarded(
            move |inner| Box::pin(async move { inner.perform_once(&action).await }),
            |o| Performed::Observed(Box::new(o)),
        )
    }

    fn probe(&mut self, locator: Option<&str>) -> Result<Probe, EnvError> {
        // No restart here: a failed probe makes the loop scan, and the scan recovers.
        let page = self.live_page()?;
        let (script, cdp) = (&self.inner.scan, self.inner.lim.cdp);
        self.rt
            .block_on(crate::probe::probe(&page, script, locator, cdp))
            .map_err(|e| EnvError::Step(e.to_string()))
    }

    fn resolve(&mut self, c: &wayfarer_core::trace::Chosen) -> Result<String, EnvError> {
        let page = self.live_page()?;
        let cdp = self.inner.lim.cdp;
        self.rt.block_on(crate::name::resolve(&page, c, cdp))
    }

    fn resolve_near(
        &mut self,
        c: &wayfarer_core::trace::Chosen,
        near: &str,
    ) -> Result<wayfarer_core::env::Resolved, EnvError> {
        let page = self.live_page()?;
        let cdp = self.inner.lim.cdp;
        self.rt
            .block_on(crate::name::resolve_near(&page, c, Some(near), cdp))
    }

    fn can_infer(&self) -> bool {
        true
    }

    fn target_name(&mut self) -> Option<TargetName> {
        self.inner.named.take()
    }

    fn observe(&mut self) -> Result<Outcome, EnvError> {
        self.guarded(
            |inner| Box::pin(inner.observe(Duration::ZERO, Duration::ZERO)),
            |o| o,
        )
    }

    fn settle(&mut self) -> Result<Option<Outcome>, EnvError> {
        if self.inner.spec.is_none() || self.closed {
            return Ok(None);
        }
        let Some(wait) = self.rt.block_on(self.inner.spec_due()) else {
            return Ok(None);
        };
        std::thread::sleep(wait);
        self.observe().map(Some)
    }

    fn endpoint(&self) -> Option<String> {
        // Printed and stored: a token in the URL is masked.
        let o = &self.inner.opts;
        Some(match (&o.grid, &o.cdp_url, self.browser_pid()) {
            (Some(hub), _, _) => format!("grid {}", crate::endpoint::shown_str(hub)),
            (None, Some(url), _) => crate::endpoint::shown_str(url),
            (None, None, Some(pid)) => format!("chromium pid {pid}"),
            (None, None, None) => "chromium".to_string(),
        })
    }

    fn coverage(&mut self) -> Option<Coverage> {
        (self.inner.coverage_mode() != CoverageMode::Off)
            .then(|| self.inner.shared.lock().cov.snapshot())
    }

    fn coverage_by_script(&mut self) -> Vec<wayfarer_core::ScriptReach> {
        if self.inner.coverage_mode() == CoverageMode::Off {
            return Vec::new();
        }
        self.inner.shared.lock().cov.by_script()
    }

    fn spec_actions(&mut self, seed: u32) -> Vec<(f64, Action)> {
        if self.inner.spec.is_none() || self.closed || self.health().is_some() {
            return Vec::new();
        }
        self.rt.block_on(self.inner.spec_actions(seed))
    }

    fn properties(&mut self) -> Vec<wayfarer_core::summary::PropertyVerdict> {
        if self.inner.spec.is_none() || self.closed {
            return Vec::new();
        }
        self.rt.block_on(self.inner.spec_verdicts())
    }

    fn measure(&mut self, on: bool) {
        let was = !self.inner.shared.lock().unmeasured;
        if was != on && !self.closed && self.health().is_none() {
            // What ran so far belongs to the side being left: taken (kept or dropped) first.
            if let Err(e) = self.rt.block_on(self.inner.take_coverage()) {
                tracing::debug!(%e, "coverage take before switching measuring failed");
            }
        }
        self.inner.shared.lock().unmeasured = !on;
    }

    fn flush(&mut self) {
        if self.closed || self.health().is_some() {
            return;
        }
        if let Err(e) = self.rt.block_on(self.inner.take_coverage()) {
            tracing::debug!(%e, "final coverage take failed");
        }
    }

    fn leave(&mut self) {
        if self.closed || self.health().is_some() || self.inner.session.is_none() {
            return;
        }
        // The reset after it recovers a browser this broke.
        if let Err(e) = self.rt.block_on(self.inner.leave_app()) {
            tracing::debug!(%e, "leaving the page before the app's refresh failed");
        }
    }

    fn screenshot(&mut self) -> Option<Vec<u8>> {
        self.capture(None)
    }

    fn picture(&mut self, region: wayfarer_core::Rect) -> Option<Vec<u8>> {
        if !(region.width >= 1.0 && region.height >= 1.0) {
            return None;
        }
        self.capture(Some(region))
    }

    fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.rt.block_on(self.inner.stop());
    }
}

impl BrowserEnv {
    /// A PNG of the viewport, or of `region` of the page (CSS pixels, beyond the viewport
    /// if need be). Evidence and prompts only: a page that cannot be pictured gives none.
    fn capture(&mut self, region: Option<wayfarer_core::Rect>) -> Option<Vec<u8>> {
        use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotFormat, Viewport};
        use chromiumoxide::page::ScreenshotParams;
        let page = self.inner.page().ok()?;
        let limit = self.inner.lim.cdp;
        let mut params = ScreenshotParams::builder().format(CaptureScreenshotFormat::Png);
        if let Some(r) = region {
            params = params
                .clip(Viewport {
                    x: r.x.max(0.0),
                    y: r.y.max(0.0),
                    width: r.width,
                    height: r.height,
                    scale: 1.0,
                })
                .capture_beyond_viewport(true);
        }
        let params = params.build();
        let secrets = wayfarer_core::secrets::known();
        self.rt.block_on(async move {
            let blanked = !secrets.is_empty() && blank_secrets(&page, &secrets, limit).await;
            let png = match tokio::time::timeout(limit, page.screenshot(params)).await {
                Ok(Ok(png)) => Some(png),
                Ok(Err(e)) => {
                    tracing::debug!("screenshot: {e}");
                    None
                }
                Err(_) => None,
            };
            if blanked {
                if let Err(e) = crate::cdp::eval(&page, UNBLANK, limit).await {
                    tracing::debug!("restoring the fields blanked for a screenshot: {e}");
                }
            }
            png
        })
    }
}

/// Hides every secret the page shows before a picture is taken (issue 44): a field
/// holding one is drawn as discs, a text node quoting one has it replaced by as many
/// bullets; [`UNBLANK`] puts everything back. Password fields are discs already; shadow
/// roots and canvases are not searched. Whether anything was blanked.
async fn blank_secrets(
    page: &chromiumoxide::Page,
    secrets: &wayfarer_core::secrets::Secrets,
    limit: std::time::Duration,
) -> bool {
    let values: Vec<&str> = secrets.values().collect();
    let script = BLANK.replace(
        "__VALUES__",
        &serde_json::to_string(&values).expect("strings serialise"),
    );
    match crate::cdp::eval(page, script, limit).await {
        Ok(v) => v.as_i64().is_some_and(|n| n > 0),
        Err(e) => {
            tracing::debug!("blanking secrets before a screenshot: {e}");
            false
        }
    }
}

const BLANK: &str = r#"(() => { try {
  const vals = __VALUES__;
  const hit = (t) => typeof t === 'string' && vals.some((v) => t.includes(v));
  const prop = '-webkit-text-security';
  const fields = [];
  for (const el of document.querySelectorAll('input, textarea')) {
    if (el.type === 'password' || !hit(el.value)) continue;
    fields.push([el, el.style.getPropertyValue(prop), el.style.getPropertyPriority(prop)]);
    el.style.setProperty(prop, 'disc', 'important');
  }
  const texts = [];
  const root = document.body || document.documentElement;
  if (root) {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) if (hit(n.data)) texts.push([n, n.data]);
  }
  for (const [n, d] of texts) {
    let m = d;
    for (const v of vals) m = m.split(v).join('•'.repeat(v.length));
    n.data = m;
  }
  window[Symbol.for('wayfarer.unblank')] = () => {
    for (const [el, v, p] of fields) {
      if (v) el.style.setProperty(prop, v, p); else el.style.removeProperty(prop);
    }
    for (const [n, d] of texts) n.data = d;
  };
  return fields.length + texts.length;
} catch (e) { return -1; } })()"#;

const UNBLANK: &str = r#"(() => {
  const k = Symbol.for('wayfarer.unblank');
  const f = window[k];
  delete window[k];
  if (f) f();
})()"#;

// The CLI may drive the environment from a worker thread.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<BrowserEnv>();
};

impl Drop for BrowserEnv {
    fn drop(&mut self) {
        self.close();
    }
}
