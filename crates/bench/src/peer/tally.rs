//! What a peer run adds up from its samples: unique failures, URLs, abstract states,
//! screens, the peer's step count and the application's action log, both kept across the
//! browser restarts that clear the tab's storage.

use std::collections::HashSet;
use std::time::Duration;

use wayfarer_core::oracle::FailureBook;
use wayfarer_core::state::{page_url, StructureAbstraction};
use wayfarer_core::{
    Abstraction, AppProbe, Coverage, Event, EventKind, Observation, Oracles, Outcome,
};

use crate::series::SeriesPoint;

pub(crate) struct Tally {
    oracles: Oracles,
    book: FailureBook,
    abstraction: StructureAbstraction,
    urls: HashSet<String>,
    /// The page of the last outcome, for failures no event locates.
    last_url: String,
    pub screens: Vec<String>,
    /// Steps counted in tabs whose storage a restart cleared, and in the current one.
    steps_base: u64,
    steps_now: u64,
    log_base: Vec<String>,
    log_now: Vec<String>,
    pub series: Vec<SeriesPoint>,
    /// The browser was restarted or a crashed page reopened.
    pub restarts: u32,
    /// Samples (or parts of one) lost to a page in flux: navigating, hung, crashed.
    pub skipped: u64,
    /// The application has a login form to watch for.
    login: bool,
    /// Where the peer's login stands.
    session: Session,
    /// Pages seen while logged in.
    behind: HashSet<String>,
    /// Times the peer lost its session.
    pub logouts: u64,
    /// The server, read at every sample.
    server: Option<super::ServerReader>,
}

/// A peer's login, as the login form tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Session {
    /// No page looked at since the bench logged the peer in.
    Unknown,
    /// Past the login form.
    In,
    /// The form came back: the peer cannot log in again itself, so it stays out (a page
    /// without the form then, such as one Back restores from the cache, is not a login)
    /// until the bench logs it in again.
    Out,
}

/// What the probe expression reads from the page: the peer's own step counter. (The
/// app's action log and screen come with every observation, in `Observation.app`.)
#[derive(Debug, Default, serde::Deserialize)]
struct Probe {
    steps: Option<u64>,
}

impl Tally {
    pub fn new(oracles: Oracles) -> Tally {
        Tally {
            oracles,
            book: FailureBook::default(),
            abstraction: StructureAbstraction::default(),
            urls: HashSet::new(),
            last_url: String::new(),
            screens: Vec::new(),
            steps_base: 0,
            steps_now: 0,
            log_base: Vec::new(),
            log_now: Vec::new(),
            series: Vec::new(),
            restarts: 0,
            skipped: 0,
            login: false,
            session: Session::Unknown,
            behind: HashSet::new(),
            logouts: 0,
            server: None,
        }
    }

    /// Read the server's coverage at every sample (the first is the first load's).
    pub fn with_server(mut self, server: Option<super::ServerReader>) -> Tally {
        self.server = server;
        self
    }

    /// Watch for the application's login form (the caller reports it with
    /// [`Tally::login_form`]): a peer that sees it again after being past it was logged out.
    pub fn with_login(mut self, has_form: bool) -> Tally {
        self.login = has_form;
        self
    }

    /// Whether the page just looked at shows the login form.
    pub fn login_form(&mut self, shown: bool) {
        if !self.login {
            return;
        }
        self.session = match (self.session, shown) {
            (Session::In, true) => {
                self.logouts += 1;
                Session::Out
            }
            (Session::Unknown, false) => Session::In,
            (Session::Unknown, true) => Session::Out,
            (kept, _) => kept,
        };
    }

    /// The bench logged the peer in again (a restarted browser's reset runs the login).
    pub fn logged_in_again(&mut self) {
        self.session = Session::Unknown;
    }

    /// A page seen while logged in: behind the login.
    fn on_page(&mut self, page: &str) {
        if self.session == Session::In {
            self.behind.insert(page.to_string());
        }
    }

    /// The peer's steps so far.
    pub fn steps(&self) -> u64 {
        self.steps_base + self.steps_now
    }

    /// One `Runtime.evaluate` reading the peer's step counter.
    pub fn probe_expression(&self) -> &'static str {
        "(() => ({ steps: typeof window.__wfPeerSteps === 'number' ? window.__wfPeerSteps : null }))()"
    }

    pub fn read_probe(&mut self, value: serde_json::Value) {
        let p: Probe = match serde_json::from_value(value) {
            Ok(p) => p,
            Err(e) => {
                tracing::debug!(%e, "peer probe not understood");
                self.skipped += 1;
                return;
            }
        };
        if let Some(steps) = p.steps {
            if steps < self.steps_now {
                // The tab's storage was cleared behind our back: keep what was counted.
                self.steps_base += self.steps_now;
            }
            self.steps_now = steps;
        }
    }

    /// The app's own account of itself in an observation: its screen, and its action log
    /// (the whole log of the tab; a shorter one means the tab's storage was cleared).
    fn read_app(&mut self, app: &AppProbe) {
        if let Some(s) = app.state.as_ref().filter(|s| !s.is_empty()) {
            if !self.screens.contains(s) {
                self.screens.push(s.clone());
            }
        }
        if app.actions.len() < self.log_now.len() {
            self.log_base.append(&mut self.log_now);
        }
        self.log_now.clone_from(&app.actions);
    }

    /// A restarted browser (or a reopened page) is a new tab with empty storage: the
    /// peer's counter and the app's log start again from zero there.
    pub fn new_tab(&mut self) {
        self.restarts += 1;
        self.steps_base += std::mem::take(&mut self.steps_now);
        self.log_base.append(&mut self.log_now);
    }

    /// Count the outcome's page and judge its events, at the current step count.
    pub fn absorb(&mut self, out: &Outcome) {
        let obs = &out.observation;
        if let Some(app) = &obs.app {
            self.read_app(app);
        }
        if !obs.url.is_empty() && obs.url != "about:blank" {
            let analysis = self.abstraction.analyse(obs);
            self.on_page(&analysis.url);
            self.urls.insert(analysis.url);
            self.last_url = obs.url.clone();
        }
        self.judge(&out.events, Some(obs), &obs.url);
    }

    /// Judge events no observation came with (their page is gone), on `url`.
    pub fn judge_events(&mut self, events: &[Event], url: &str) {
        let url = if url.is_empty() {
            self.last_url.clone()
        } else {
            url.to_string()
        };
        self.judge(events, None, &url);
    }

    fn judge(&mut self, events: &[Event], obs: Option<&Observation>, url: &str) {
        let step = self.steps();
        let episode = 1 + self.restarts as u64;
        for finding in self.oracles.judge(events, obs) {
            if let Some(f) = self
                .book
                .record(finding, step, episode, url, &[], &Default::default())
            {
                tracing::info!(step, kind = f.kind.as_str(), message = %f.message, "peer found a failure");
            }
        }
    }

    /// A page the peer went to (seen by a watcher, not sampled): its URL counts as the
    /// observations' URLs do.
    pub fn visit(&mut self, url: &str) {
        if !url.is_empty() && url != "about:blank" {
            let page = page_url(url, self.abstraction.mask_ids);
            self.on_page(&page);
            self.urls.insert(page);
            self.last_url = url.to_string();
        }
    }

    /// The peer's own count of its actions (a peer that reports them itself).
    pub fn set_steps(&mut self, steps: u64) {
        self.steps_now = self.steps_now.max(steps);
    }

    /// Record a hang of the page last seen (no event carries it: see `Run::sample`).
    pub fn hang(&mut self, message: String) {
        let ev = Event::new(EventKind::Hang, message);
        let step = self.steps();
        let episode = 1 + self.restarts as u64;
        for finding in self.oracles.judge(std::slice::from_ref(&ev), None) {
            self.book.record(
                finding,
                step,
                episode,
                &self.last_url,
                &[],
                &Default::default(),
            );
        }
    }

    pub fn point(&mut self, elapsed: Duration, coverage: Option<Coverage>) {
        if let Some(s) = &self.server {
            s.take();
        }
        let p = SeriesPoint {
            step: self.steps(),
            elapsed_ms: elapsed.as_millis() as u64,
            states: self.abstraction.states(),
            js_coverage: coverage.map(|c| c.ratio()).unwrap_or(0.0),
            failures: self.book.len(),
        };
        tracing::debug!(?p, "peer sample");
        self.series.push(p);
    }

    pub fn urls(&self) -> usize {
        self.urls.len()
    }

    pub fn states(&self) -> usize {
        self.abstraction.states()
    }

    /// What the run measured, with the coverage and time it took: the peer's result.
    /// `restarts` and `skipped_samples` are the tally's.
    pub fn result(
        &self,
        coverage: Option<Coverage>,
        elapsed: std::time::Duration,
    ) -> super::PeerResult {
        super::PeerResult {
            steps: self.steps(),
            urls: self.urls(),
            states: self.states(),
            screens: self.screens.clone(),
            action_log: self.action_log(),
            coverage,
            scripts: Vec::new(),
            failures: self.failures(),
            series: self.series.clone(),
            elapsed,
            restarts: self.restarts,
            skipped_samples: self.skipped,
            ended_early: None,
            logouts: self.logouts,
            behind_login: self.login.then_some(self.behind.len()),
            server: self.server.as_ref().and_then(|s| s.coverage()),
        }
    }

    pub fn failures(&self) -> Vec<wayfarer_core::Failure> {
        self.book.failures().to_vec()
    }

    pub fn action_log(&self) -> Vec<String> {
        let mut log = self.log_base.clone();
        log.extend(self.log_now.iter().cloned());
        log
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::config::OracleConfig;

    fn seen(url: &str, state: &str, log: &[&str]) -> Outcome {
        Outcome {
            observation: Observation {
                url: url.into(),
                app: Some(AppProbe {
                    state: Some(state.into()),
                    actions: log.iter().map(|s| s.to_string()).collect(),
                }),
                ..Observation::default()
            },
            ..Outcome::default()
        }
    }

    #[test]
    fn the_app_log_and_screens_survive_a_cleared_tab() {
        let oracles = Oracles::new(OracleConfig::default(), vec!["http://h".into()]).unwrap();
        let mut t = Tally::new(oracles);
        t.absorb(&seen("http://h/", "home", &[]));
        t.absorb(&seen("http://h/vets", "vets", &["a.nav.vets"]));
        t.absorb(&seen(
            "http://h/vets",
            "vets",
            &["a.nav.vets", "a.vets.chip"],
        ));
        // A restarted tab starts its log again.
        t.new_tab();
        t.absorb(&seen("http://h/", "home", &["a.nav.home"]));
        assert_eq!(
            t.action_log(),
            vec!["a.nav.vets", "a.vets.chip", "a.nav.home"]
        );
        assert_eq!(t.screens, vec!["home", "vets"]);
        t.read_probe(serde_json::json!({ "steps": 40 }));
        t.read_probe(serde_json::json!({ "steps": 5 }));
        assert_eq!(t.steps(), 45, "a cleared counter keeps what was counted");
    }

    #[test]
    fn a_peer_that_sees_the_login_form_again_lost_its_session() {
        let oracles = || Oracles::new(OracleConfig::default(), vec!["http://h".into()]).unwrap();
        let mut t = Tally::new(oracles()).with_login(true);
        t.login_form(false);
        t.visit("http://h/app/");
        t.visit("http://h/app/issues");
        t.login_form(true);
        t.visit("http://h/login?next=/app/issues");
        // Back to a cached page of the session: no form, but no login either.
        t.login_form(false);
        t.visit("http://h/app/cached");
        t.login_form(true);
        let r = t.result(None, Duration::ZERO);
        assert_eq!((r.logouts, r.behind_login), (1, Some(2)));
        // The bench logs it in again (a restarted browser): a second session.
        t.logged_in_again();
        t.login_form(false);
        t.visit("http://h/app/more");
        t.login_form(true);
        let r = t.result(None, Duration::ZERO);
        assert_eq!((r.logouts, r.behind_login), (2, Some(3)));
        // A peer that starts on the form never got in.
        let mut never = Tally::new(oracles()).with_login(true);
        never.login_form(true);
        never.visit("http://h/login");
        never.login_form(false);
        never.visit("http://h/public");
        let r = never.result(None, Duration::ZERO);
        assert_eq!((r.logouts, r.behind_login), (0, Some(0)));
        let none = Tally::new(oracles()).with_login(false);
        assert_eq!(none.result(None, Duration::ZERO).behind_login, None);
    }

    #[test]
    fn visits_count_as_urls_and_events_keep_their_page() {
        let oracles = Oracles::new(OracleConfig::default(), vec!["http://h".into()]).unwrap();
        let mut t = Tally::new(oracles);
        t.visit("http://h/a?x=1");
        t.visit("http://h/a?x=2");
        t.visit("about:blank");
        t.visit("http://h/b#/route");
        assert_eq!(t.urls(), 2, "query values are one page");
        t.set_steps(7);
        t.set_steps(3);
        assert_eq!(t.steps(), 7, "a peer's own count only grows");
        t.judge_events(
            &[Event::new(
                EventKind::PageCrash,
                "the page's renderer crashed",
            )],
            "",
        );
        let f = t.failures();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].step, 7);
        assert_eq!(f[0].page_url, "http://h/b#/route");
        assert_eq!(t.states(), 0, "a visit is no observed state");
    }
}
