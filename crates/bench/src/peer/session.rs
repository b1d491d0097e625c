//! One peer run: the peer's script is injected into every document of a fresh session of
//! the same browser environment the strategies use, and the page is sampled at a fixed
//! pace (events, JS coverage, states, the app's action log) until the budget is spent.

use std::time::{Duration, Instant};

use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions, DOM_STILL_CHANGING};
use wayfarer_core::{Action, ActionKind, EnvError, Environment, EventKind, Oracles, Outcome};

use super::tally::Tally;
use super::{PeerError, PeerOptions, PeerResult, ScriptPeer};

/// A peer that takes the browser down this often will not get anywhere.
const MAX_RESTARTS: u32 = 10;

/// Run the injected `peer` against `opts.start_url` for `opts.duration`.
pub(crate) fn run_injected(
    peer: &dyn ScriptPeer,
    opts: &PeerOptions,
) -> Result<PeerResult, PeerError> {
    let fail = |reason: String| PeerError::Browser {
        peer: peer.name().into(),
        reason,
    };
    let origin = opts.start_url.origin().ascii_serialization();
    let oracles = Oracles::new(opts.oracles.clone(), vec![origin])
        .map_err(|e| fail(format!("invalid oracle configuration: {e}")))?;
    let chrome = match &opts.chrome {
        Some(p) => p.clone(),
        None => find_chrome(None).map_err(|e| fail(e.to_string()))?,
    };
    let mut bopts = BrowserOptions::new(opts.start_url.clone());
    bopts.chrome = Some(chrome);
    // Logged in as a strategy is: the first reset runs the login, before the peer is in.
    bopts.login = opts.login.clone();
    let cdp_ms = bopts.config.cdp_timeout_ms;
    let login_form = wayfarer_browser::login_form_expression(&opts.login);
    let mut env = BrowserEnv::launch(bopts).map_err(|e| fail(e.to_string()))?;
    let mut run = Run {
        env: &mut env,
        peer,
        opts,
        tally: Tally::new(oracles)
            .with_login(login_form.is_some())
            .with_server(opts.server.clone()),
        login_form,
        cdp_ms,
    };
    let result = run.drive().map_err(|e| fail(e.to_string()));
    env.close();
    result
}

struct Run<'a> {
    env: &'a mut BrowserEnv,
    peer: &'a dyn ScriptPeer,
    opts: &'a PeerOptions,
    tally: Tally,
    cdp_ms: u64,
    /// Says whether the page shows the login form (an application with a login).
    login_form: Option<String>,
}

impl Run<'_> {
    fn drive(&mut self) -> Result<PeerResult, EnvError> {
        let first = self.env.reset()?;
        self.tally.absorb(&first);
        // The curves start where a strategy's do: the first page, before any action.
        let coverage = self.env.coverage();
        self.tally.point(Duration::ZERO, coverage);
        self.unleash()?;
        let started = Instant::now();
        let end = started + self.opts.duration;
        let every = self.opts.sample_every.max(Duration::from_millis(10));
        let mut next = started + every;
        loop {
            let at = next.min(end);
            if let Some(wait) = at.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            self.sample(started.elapsed())?;
            let now = Instant::now();
            let spent = self.opts.max_steps.is_some_and(|m| self.tally.steps() >= m);
            if now >= end || spent {
                break;
            }
            // A slow sample (a page in flux) delays the next one instead of bunching them.
            next = (next + every).max(now + every / 2);
        }
        let elapsed = started.elapsed();
        let t = &self.tally;
        tracing::info!(
            peer = self.peer.name(),
            steps = t.steps(),
            states = t.states(),
            failures = t.series.last().map_or(0, |p| p.failures),
            restarts = t.restarts,
            skipped = t.skipped,
            "peer run finished"
        );
        let coverage = self.env.coverage();
        Ok(super::PeerResult {
            scripts: self.env.coverage_by_script(),
            ..self.tally.result(coverage, elapsed)
        })
    }

    /// Inject the peer (its script runs from the next document on) and load the start URL
    /// again so that it does. Needed after every restart: the registration is per page.
    fn unleash(&mut self) -> Result<(), EnvError> {
        // A restarted tab replays nothing: each restart gets its own seed.
        let seed = self
            .opts
            .seed
            .wrapping_add(u64::from(self.tally.restarts) << 32);
        // What is left of the action budget: a new tab counts from zero.
        let max_steps = self
            .opts
            .max_steps
            .map(|m| m.saturating_sub(self.tally.steps()));
        let script = self
            .peer
            .init_script(seed, max_steps, &self.opts.deny)
            .map_err(|e| EnvError::Browser(e.to_string()))?;
        self.env.add_init_script(&script)?;
        let go = Action {
            kind: ActionKind::Navigate,
            target: None,
            value: Some(self.opts.start_url.to_string()),
        };
        match self.env.step(&go) {
            Ok(mut out) => {
                // The peer acts from the page's first moment, and what it changes (gremlins
                // marks every click in the DOM) keeps the load's stability wait from
                // settling: that is not a hang of the application.
                out.events.retain(|e| {
                    e.kind != EventKind::Hang || !e.message.contains(DOM_STILL_CHANGING)
                });
                self.absorb(out)
            }
            Err(e) if e.is_fatal() => Err(e),
            Err(e) => {
                // The page is loading anyway; the peer starts once it has.
                tracing::debug!(%e, "peer start navigation");
                self.tally.skipped += 1;
                Ok(())
            }
        }
    }

    fn sample(&mut self, elapsed: Duration) -> Result<(), EnvError> {
        if let Some(check) = &self.login_form {
            if let Ok(v) = self.env.evaluate(check) {
                self.tally.login_form(v.as_bool().unwrap_or(false));
            }
        }
        match self.env.observe() {
            Ok(out) => {
                // A restarted tab runs no peer yet: nothing to read there.
                if !out.restarted {
                    self.probe();
                }
                self.absorb(out)?;
            }
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => {
                // Mostly a navigation in flight; its events wait for the next outcome.
                tracing::debug!(%e, "peer sample skipped");
                self.tally.skipped += 1;
                // A page that does not answer is what a strategy's stability wait reports
                // as a hang (a peer never waits, so the env cannot tell); the same message
                // gives the same signature. A second timeout restarts the browser.
                if e.to_string().contains("timed out") {
                    self.tally.hang(format!(
                        "page not stable: page did not answer within {} ms",
                        self.cdp_ms
                    ));
                }
            }
        }
        // Popups are closed by a step's stability wait, which a peer never runs.
        self.env.close_popups();
        let coverage = self.env.coverage();
        self.tally.point(elapsed, coverage);
        Ok(())
    }

    fn probe(&mut self) {
        let expr = self.tally.probe_expression();
        match self.env.evaluate(expr) {
            Ok(v) => self.tally.read_probe(v),
            Err(e) => {
                tracing::debug!(%e, "peer probe skipped");
                self.tally.skipped += 1;
            }
        }
    }

    /// Judge an outcome; one that says the environment restarted (a crash, a hang that
    /// took the browser down) means the peer's script is gone: inject it again.
    fn absorb(&mut self, out: Outcome) -> Result<(), EnvError> {
        self.tally.absorb(&out);
        if out.restarted {
            self.tally.new_tab();
            // The relaunched browser's reset ran the login again.
            self.tally.logged_in_again();
            if self.tally.restarts > MAX_RESTARTS {
                return Err(EnvError::Browser(format!(
                    "the browser was restarted {MAX_RESTARTS} times during the peer's run"
                )));
            }
            tracing::warn!(
                restarts = self.tally.restarts,
                "the browser environment restarted; unleashing the peer again"
            );
            self.unleash()?;
        }
        Ok(())
    }
}
