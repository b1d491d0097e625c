//! The `Environment` trait: what the exploration loop needs from a browser (or from the
//! simulated application), in the shape of a Gym environment.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::model::{Action, AppProbe, Event, Observation};

/// What the environment measured while producing an outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EnvTimings {
    /// Performing the action (input events, navigation command).
    pub act: Duration,
    /// Waiting for the page to become stable.
    pub wait: Duration,
    /// Running the scan script and decoding its result.
    pub scan: Duration,
    /// Taking JS coverage after the step (measurement, not exploration: it is done whether
    /// or not the page is scanned).
    #[serde(default)]
    pub coverage: Duration,
    /// Reading the target's role and name from the accessibility tree (for the trace).
    #[serde(default)]
    pub name: Duration,
    /// Checking the specification's properties (`--spec`): its extractors in the page and
    /// its formulas in the host.
    #[serde(default)]
    pub spec: Duration,
}

/// The result of `reset` or `step`.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub observation: Observation,
    /// Everything raised since the previous outcome (exceptions, HTTP statuses, dialogs ...).
    pub events: Vec<Event>,
    pub timings: EnvTimings,
    /// True when the environment had to reset itself (a restarted browser, a crashed
    /// page): the action sequence since the last reset no longer leads here.
    pub restarted: bool,
}

/// An element as the browser's accessibility tree names it: what Playwright's
/// `getByRole` and screen readers go by.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeName {
    /// The computed role ("button", "link", "textbox" ...); empty when the tree has none.
    pub role: String,
    /// The computed accessible name, whitespace collapsed.
    pub name: String,
    /// Where the name came from ("contents", "attribute", "relatedElement", "title",
    /// "placeholder" ...), for people reading a trace.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub from: String,
    /// Elements of the document (not hidden from the tree) with the same role and name,
    /// this one included; 0 when not counted.
    pub same: u32,
}

/// How Playwright's other locators would find an acted element, counted by Playwright's
/// rules in the element's document (open shadow roots included) just before acting.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageNames {
    /// The element's own text (`getByText`), whitespace collapsed; empty when it has a
    /// role, no text, too long a text, or a child with the same text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Elements whose own text is `text` (0: not counted).
    #[serde(default)]
    pub same_text: u32,
    /// The element's first label (`getByLabel`): aria-labelledby, else aria-label, else
    /// its `<label>` elements.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Elements with `label` among their labels (0: not counted).
    #[serde(default)]
    pub same_label: u32,
    /// The test id attributes the element carries, with how many elements share each value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub test_ids: Vec<TestId>,
    /// Elements the step's structural path (its last part, in the element's document or
    /// shadow root) finds, as `page.locator(css)` would count them (0: not counted).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub same_path: u32,
    /// What a pointer at the element's centre hits instead of it (an overlay over it, as
    /// `tag#id`); empty when it hits the element, or was not looked at. Playwright waits
    /// for such an element rather than click through.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub covered_by: String,
    /// The element is in a child frame, where the page's locators do not look (counts are
    /// the frame document's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub frame: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A test id attribute on an element and how many elements of the page carry the same value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestId {
    pub attr: String,
    pub value: String,
    pub same: u32,
}

// The configuration owns the default (`[browser] test_id_attributes` adds more).
pub use crate::config::TEST_ID_ATTRS;

/// What the browser read about the last action's target just before acting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetName {
    /// From the accessibility tree; `None` when the tree gave it no role or did not answer.
    pub tree: Option<TreeName>,
    /// Counted in the page; `None` when the page did not answer.
    pub page: Option<PageNames>,
}

/// The result of `perform`: an action done and waited for, without a scan.
#[derive(Clone, Debug)]
pub enum Performed {
    /// Acted and waited; the events raised meanwhile (act and wait timed, scan zero).
    Acted {
        events: Vec<Event>,
        timings: EnvTimings,
    },
    /// A full outcome, scan included: the environment restarted, or it cannot act
    /// without scanning.
    Observed(Box<Outcome>),
}

/// What a step or a reset caused beyond the page, read once after it
/// ([`Environment::aftermath`]).
#[derive(Clone, Debug, Default)]
pub struct Aftermath {
    /// Server lines first run since the last reading; `None` where the server's coverage
    /// is not read.
    pub server_lines: Option<u64>,
    /// Reading them (the coverage tool answers over a pipe or a socket).
    pub server_time: Duration,
    /// JS functions covered so far (lazy coverage credits some late).
    pub functions: Option<u64>,
    /// What the server wrote since the last reading; read last, so that lines logged
    /// after the page settled are in.
    pub server_output: crate::server::ServerOutput,
}

/// One step, answered once ([`Environment::answer`]).
#[derive(Debug)]
pub struct Answer {
    /// The action done: with its scan, or without one where that was asked and the
    /// environment can skip it.
    pub performed: Performed,
    /// Why the action failed, when it did: `performed` is then a scan of where the page is
    /// (or the page the step started from, where even that scan failed).
    pub error: Option<String>,
    /// How the accessibility tree and the page named the action's target.
    pub target_name: Option<TargetName>,
    pub aftermath: Aftermath,
}

/// One cheap look at the live page (state inference validates a guess with it): whether
/// a locator resolves to a visible, enabled element, and what the oracles and the
/// instrumentation read from the page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probe {
    /// The locator asked about resolves (true when none was asked about).
    pub found: bool,
    pub url: String,
    pub title: String,
    /// Error-page text, found the way the scan finds it.
    pub error_text: Option<String>,
    pub app: Option<AppProbe>,
    /// Elements in the main document, as `Observation::dom_size` counts them.
    pub dom_size: Option<u32>,
}

/// JS code coverage so far, by the one definition of DESIGN section 4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    pub covered_bytes: u64,
    pub total_bytes: u64,
    pub functions_covered: u64,
    pub functions_total: u64,
    /// Bytes covered right after the first page load (same denominator as the rest):
    /// what exploration added is `covered_bytes - first_load_covered_bytes`.
    pub first_load_covered_bytes: u64,
}

impl Coverage {
    pub fn ratio(&self) -> f64 {
        if self.total_bytes == 0 {
            0.0
        } else {
            self.covered_bytes as f64 / self.total_bytes as f64
        }
    }

    pub fn first_load_ratio(&self) -> f64 {
        if self.total_bytes == 0 {
            0.0
        } else {
            self.first_load_covered_bytes as f64 / self.total_bytes as f64
        }
    }
}

/// One application script's share of the coverage: where the code a run never reached
/// lives (a feature's chunk never loaded shows as absent, one loaded and never run as 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptReach {
    /// Where the script came from: its URL without query, or the name a page gave code it
    /// compiled itself (`//# sourceURL=`, TiddlyWiki's `$:/core/modules/...`).
    pub url: String,
    pub bytes: u64,
    pub covered_bytes: u64,
    /// Covered right after the first page load (0 for a script loaded later).
    pub first_load_covered_bytes: u64,
}

/// Why the environment could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    /// The start URL could not be loaded at all (refused, DNS, invalid): the run cannot go on.
    #[error("cannot load {url}: {reason}")]
    Unreachable { url: String, reason: String },
    /// The browser could not be started or reached and a restart did not help.
    #[error("browser unavailable: {0}")]
    Browser(String),
    /// The action's target is not in the page any more; the loop goes on with a new scan.
    #[error("element not found: {0}")]
    ElementNotFound(String),
    /// Anything else that makes this one step fail but not the run.
    #[error("step failed: {0}")]
    Step(String),
    /// The configured reset hook failed: the application's own state may be anything, so
    /// nothing after it can be trusted.
    #[error("the reset hook failed: {0}")]
    Hook(String),
    /// The configured login steps failed (a selector that matches nothing, a form that
    /// comes back): nothing behind the login can be explored.
    #[error("login failed: {0}")]
    Login(String),
    /// The application's server (`[server]`) exited, or could not be started again.
    #[error("the application's server stopped: {0}")]
    Server(String),
}

impl EnvError {
    /// Whether the run must stop (nothing more can be explored).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            EnvError::Unreachable { .. }
                | EnvError::Browser(_)
                | EnvError::Hook(_)
                | EnvError::Login(_)
                | EnvError::Server(_)
        )
    }
}

/// What a locator found in the live page (see `Environment::resolve_near`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolved {
    /// The element to act on, as a target `step` takes.
    pub target: String,
    /// How many elements the locator found (more than 1: `target` is one of them).
    pub count: usize,
    /// Of several, `target` is the one the preferred CSS path finds (else the first).
    pub near: bool,
}

/// A web application the loop can explore.
pub trait Environment {
    /// Return to the start: fresh session, login steps, start URL.
    fn reset(&mut self) -> Result<Outcome, EnvError>;

    /// The start page offered nothing to act on: wait, at most `within`, for the page to
    /// change (an application that renders late, or restores a saved workspace, after its
    /// load event and a quiet moment), wait for it to be stable, and look again. `None`
    /// where waiting changes nothing (the default).
    fn await_change(&mut self, _within: Duration) -> Result<Option<Outcome>, EnvError> {
        Ok(None)
    }

    /// Start again from a fresh browser, as after a crash (`why` says why, in the restart's
    /// event), then reset: the last try before a start page that offers nothing ends the
    /// run. The default is a plain reset.
    fn relaunch(&mut self, _why: &str) -> Result<Outcome, EnvError> {
        self.reset()
    }

    /// Perform one action and observe the result.
    fn step(&mut self, action: &Action) -> Result<Outcome, EnvError>;

    /// One step as the loop asks for it, in one call: perform `action` (without a scan
    /// when `unscanned` and the environment can skip it), scan where a failed action left
    /// the page (`before` where even that fails), then name the target and read what the
    /// step caused. Only a fatal error (the run cannot go on) is an `Err`.
    fn answer(
        &mut self,
        action: &Action,
        before: &Observation,
        unscanned: bool,
    ) -> Result<Answer, EnvError> {
        let result = if unscanned {
            self.perform(action)
        } else {
            self.step(action).map(|o| Performed::Observed(Box::new(o)))
        };
        let (performed, error) = match result {
            Ok(p) => (p, None),
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => {
                let seen = match self.observe() {
                    Ok(out) => out,
                    Err(e2) if e2.is_fatal() => return Err(e2),
                    Err(_) => Outcome {
                        observation: before.clone(),
                        ..Outcome::default()
                    },
                };
                (Performed::Observed(Box::new(seen)), Some(e.to_string()))
            }
        };
        let target_name = self.target_name();
        Ok(Answer {
            performed,
            error,
            target_name,
            aftermath: self.aftermath(),
        })
    }

    /// What the last step or reset caused beyond the page: the server code it ran first,
    /// the JS functions covered so far, and the server's output (read last).
    fn aftermath(&mut self) -> Aftermath {
        let t_server = std::time::Instant::now();
        let server_lines = self.server_take();
        let server_time = t_server.elapsed();
        let functions = self.coverage().map(|c| c.functions_covered);
        Aftermath {
            server_lines,
            server_time,
            functions,
            server_output: self.server_output(),
        }
    }

    /// Scan the current page without acting (after a failed step, the loop needs to
    /// see where it is).
    fn observe(&mut self) -> Result<Outcome, EnvError> {
        Err(EnvError::Step(
            "this environment cannot observe without acting".into(),
        ))
    }

    /// Perform one action and wait for stability, without scanning (state inference may
    /// skip the scan). The default scans, which is always correct.
    fn perform(&mut self, action: &Action) -> Result<Performed, EnvError> {
        self.step(action).map(|o| Performed::Observed(Box::new(o)))
    }

    /// How the accessibility tree and the page named the last action's target, read just
    /// before acting; `None` where the environment has neither or the action had no target.
    fn target_name(&mut self) -> Option<TargetName> {
        None
    }

    /// One cheap query of the live page about `locator` (see [`Probe`]).
    fn probe(&mut self, _locator: Option<&str>) -> Result<Probe, EnvError> {
        Err(EnvError::Step(
            "this environment cannot probe the page".into(),
        ))
    }

    /// The element a Playwright-style locator (`c`: a test id, role and name, label or
    /// text) finds in the live page, as a target `step` takes; an error when it finds
    /// none or several (Playwright's strictness). Replays act as an exported test would.
    fn resolve(&mut self, _c: &Chosen) -> Result<String, EnvError> {
        Err(EnvError::Step(
            "this environment cannot resolve locators".into(),
        ))
    }

    /// `resolve` for a replay that must go on where the locator finds several elements:
    /// the one the CSS path `near` finds now if it is among them, else the first of them
    /// in document order; an error when it finds none. By default, `resolve`'s strictness.
    fn resolve_near(&mut self, c: &Chosen, _near: &str) -> Result<Resolved, EnvError> {
        self.resolve(c).map(|target| Resolved {
            target,
            count: 1,
            near: false,
        })
    }

    /// After a replay's last action: wait (bounded) until what the environment checks
    /// over time comes due (a property's `eventually(..).within(..)` not yet met), then
    /// look again. `None` when nothing is due. Exploration goes on acting instead; a
    /// replay stops, so a violation found by waiting would otherwise not be found again.
    fn settle(&mut self) -> Result<Option<Outcome>, EnvError> {
        Ok(None)
    }

    /// The actions the specification's own generators offer at the current state, each
    /// with its weight (a generator weighs 1 in all, split down its tree); `seed` makes
    /// their random draws repeatable. Empty without generators.
    fn spec_actions(&mut self, _seed: u32) -> Vec<(f64, Action)> {
        Vec::new()
    }

    /// Whether `perform` and `probe` skip the scan; without both, inference is pointless.
    fn can_infer(&self) -> bool {
        false
    }

    /// Collect what the environment gathers lazily (JS coverage) so that `coverage` is
    /// complete; the loop calls it once before the summary.
    fn flush(&mut self) {}

    /// JS coverage so far, when the environment measures it.
    fn coverage(&mut self) -> Option<Coverage> {
        None
    }

    /// Whether what the page runs from now on counts in the run's coverage: not while the
    /// browser replays failures to shrink them. On by default; no-op where nothing is measured.
    fn measure(&mut self, _on: bool) {}

    /// JS coverage so far script by script (the run's report says where the code it never
    /// reached lives); empty when the environment does not measure coverage.
    fn coverage_by_script(&mut self) -> Vec<ScriptReach> {
        Vec::new()
    }

    /// The verdicts of the specification's properties over the episodes so far (the one
    /// under way ends here); empty without a specification.
    fn properties(&mut self) -> Vec<PropertyVerdict> {
        Vec::new()
    }

    /// A PNG of the current viewport, when the environment can take one (for failures).
    fn screenshot(&mut self) -> Option<Vec<u8>> {
        None
    }

    /// What the application's server wrote since the last call (the loop asks after each
    /// step and reset); empty where wayfarer did not start the server.
    fn server_output(&mut self) -> crate::server::ServerOutput {
        crate::server::ServerOutput::default()
    }

    /// Read the server's coverage now: its lines first run since the last reading, or
    /// `None` where it is not measured (see `[server] coverage`).
    fn server_take(&mut self) -> Option<u64> {
        None
    }

    /// The server's coverage so far, when it is measured.
    fn server_coverage(&mut self) -> Option<crate::server::ServerCoverage> {
        None
    }

    /// The server's coverage so far file by file; empty when it is not measured.
    fn server_coverage_by_file(&mut self) -> Vec<crate::server::ServerFileReach> {
        Vec::new()
    }

    /// A PNG of `region` of the page (CSS pixels from the page's top-left corner, beyond
    /// the viewport if need be), for an agent's vision prompt; `None` when the environment
    /// cannot take one.
    fn picture(&mut self, _region: crate::model::Rect) -> Option<Vec<u8>> {
        None
    }

    /// Leave the application's page (for a blank one) before the application itself is
    /// made fresh: what an open page does against a stopped server (a refused poll) is
    /// not the application's. Best effort; the next `reset` finds any trouble.
    fn leave(&mut self) {}

    /// Release what the environment holds (browser processes, temp dirs).
    fn close(&mut self) {}

    /// Where the browser behind this environment runs (a CDP endpoint, a launched
    /// Chromium), for people telling workers apart; `None` for other environments.
    fn endpoint(&self) -> Option<String> {
        None
    }
}

/// The application under test as the loop sees it: made fresh before every reset of the
/// browser (its server restarted, a `[reset]` hook run, or nothing), and gone for good when
/// its server died. The loop, `replay` and `minimize` ask for a fresh application and do
/// not care what provides it.
pub trait AppUnderTest: Send {
    /// Put the application's own state back before the browser is reset; an error is
    /// fatal ([`EnvError::Hook`] or [`EnvError::Server`]).
    fn refresh(&mut self) -> Result<(), EnvError>;
    /// Whether every refresh puts the application's own state back (a restart, a hook),
    /// so a replay after it starts where the recording did.
    fn refreshes(&self) -> bool;
    /// `Err` ([`EnvError::Server`]) once the application is gone: its server exited.
    fn check(&mut self) -> Result<(), EnvError> {
        Ok(())
    }
    /// What the server wrote since the last call (none without a server).
    fn output(&mut self) -> crate::server::ServerOutput {
        crate::server::ServerOutput::default()
    }
    /// Read the server's coverage: lines first run since the last reading; `None` when it
    /// is not measured.
    fn coverage_take(&mut self) -> Option<u64> {
        None
    }
    fn coverage(&mut self) -> Option<crate::server::ServerCoverage> {
        None
    }
    fn coverage_by_file(&mut self) -> Vec<crate::server::ServerFileReach> {
        Vec::new()
    }
}

/// A reset hook alone as the application: a closure run before every reset.
impl<F: FnMut() -> Result<(), String> + Send> AppUnderTest for F {
    fn refresh(&mut self) -> Result<(), EnvError> {
        self().map_err(EnvError::Hook)
    }
    fn refreshes(&self) -> bool {
        true
    }
}

/// An environment in front of the application under test: every `reset` first asks the
/// application to be fresh, and every outcome is checked against the application still
/// running, so a server that died ends the run instead of filling it with refused
/// connections.
pub struct WithApp<E> {
    pub inner: E,
    app: Option<Box<dyn AppUnderTest>>,
    /// Resets done after a refresh of the application.
    pub refreshed: u64,
}

impl<E: Environment> WithApp<E> {
    /// `app`: `None` for a plain environment.
    pub fn new(inner: E, app: Option<Box<dyn AppUnderTest>>) -> Self {
        WithApp {
            inner,
            app,
            refreshed: 0,
        }
    }

    /// Whether each reset makes the application itself fresh (a hook or a restart).
    pub fn refreshes(&self) -> bool {
        self.app.as_ref().is_some_and(|a| a.refreshes())
    }

    /// The application is still there; otherwise why not (fatal).
    fn check(&mut self) -> Result<(), EnvError> {
        match self.app.as_mut() {
            Some(a) => a.check(),
            None => Ok(()),
        }
    }

    /// `result`, unless the application is gone: then that is the error, whatever the
    /// browser made of it (refused connections are not the application's failures).
    fn checked<T>(&mut self, result: Result<T, EnvError>) -> Result<T, EnvError> {
        self.check()?;
        result
    }

    /// Make the application fresh before the browser starts over (the page left first
    /// when its server restarts).
    fn refresh(&mut self) -> Result<(), EnvError> {
        if let Some(a) = self.app.as_mut() {
            a.check()?;
            let refreshes = a.refreshes();
            if refreshes {
                self.inner.leave();
            }
            a.refresh()?;
            if refreshes {
                self.refreshed += 1;
            }
        }
        Ok(())
    }
}

impl<E: Environment> Environment for WithApp<E> {
    fn reset(&mut self) -> Result<Outcome, EnvError> {
        self.refresh()?;
        let r = self.inner.reset();
        self.checked(r)
    }
    fn await_change(&mut self, within: Duration) -> Result<Option<Outcome>, EnvError> {
        let r = self.inner.await_change(within);
        self.checked(r)
    }
    fn relaunch(&mut self, why: &str) -> Result<Outcome, EnvError> {
        self.refresh()?;
        let r = self.inner.relaunch(why);
        self.checked(r)
    }
    fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
        let r = self.inner.step(action);
        self.checked(r)
    }
    fn observe(&mut self) -> Result<Outcome, EnvError> {
        let r = self.inner.observe();
        self.checked(r)
    }
    fn settle(&mut self) -> Result<Option<Outcome>, EnvError> {
        let r = self.inner.settle();
        self.checked(r)
    }
    fn perform(&mut self, action: &Action) -> Result<Performed, EnvError> {
        let r = self.inner.perform(action);
        self.checked(r)
    }
    fn target_name(&mut self) -> Option<TargetName> {
        self.inner.target_name()
    }
    fn probe(&mut self, locator: Option<&str>) -> Result<Probe, EnvError> {
        let r = self.inner.probe(locator);
        self.checked(r)
    }
    fn resolve(&mut self, c: &Chosen) -> Result<String, EnvError> {
        self.inner.resolve(c)
    }
    fn resolve_near(&mut self, c: &Chosen, near: &str) -> Result<Resolved, EnvError> {
        self.inner.resolve_near(c, near)
    }
    fn spec_actions(&mut self, seed: u32) -> Vec<(f64, Action)> {
        self.inner.spec_actions(seed)
    }
    fn can_infer(&self) -> bool {
        self.inner.can_infer()
    }
    fn flush(&mut self) {
        self.inner.flush()
    }
    fn coverage(&mut self) -> Option<Coverage> {
        self.inner.coverage()
    }
    fn coverage_by_script(&mut self) -> Vec<ScriptReach> {
        self.inner.coverage_by_script()
    }
    fn measure(&mut self, on: bool) {
        self.inner.measure(on)
    }
    fn properties(&mut self) -> Vec<PropertyVerdict> {
        self.inner.properties()
    }
    fn screenshot(&mut self) -> Option<Vec<u8>> {
        self.inner.screenshot()
    }
    fn server_output(&mut self) -> crate::server::ServerOutput {
        match self.app.as_mut() {
            Some(a) => a.output(),
            None => self.inner.server_output(),
        }
    }
    fn server_take(&mut self) -> Option<u64> {
        self.app.as_mut().and_then(|a| a.coverage_take())
    }
    fn server_coverage(&mut self) -> Option<crate::server::ServerCoverage> {
        self.app.as_mut().and_then(|a| a.coverage())
    }
    fn server_coverage_by_file(&mut self) -> Vec<crate::server::ServerFileReach> {
        self.app
            .as_mut()
            .map(|a| a.coverage_by_file())
            .unwrap_or_default()
    }
    fn picture(&mut self, region: crate::model::Rect) -> Option<Vec<u8>> {
        self.inner.picture(region)
    }
    fn leave(&mut self) {
        self.inner.leave()
    }
    fn close(&mut self) {
        self.inner.close()
    }
    fn endpoint(&self) -> Option<String> {
        self.inner.endpoint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{SimApp, SimEnv};
    use std::sync::{Arc, Mutex};

    /// The simulated app, writing every call that matters here to `log`.
    struct Logged {
        sim: SimEnv,
        log: Arc<Mutex<Vec<&'static str>>>,
    }

    impl Environment for Logged {
        fn reset(&mut self) -> Result<Outcome, EnvError> {
            self.log.lock().unwrap().push("reset");
            self.sim.reset()
        }
        fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
            self.sim.step(action)
        }
        fn leave(&mut self) {
            self.log.lock().unwrap().push("leave");
        }
    }

    struct App {
        refreshes: bool,
        log: Arc<Mutex<Vec<&'static str>>>,
    }

    impl AppUnderTest for App {
        fn refresh(&mut self) -> Result<(), EnvError> {
            self.log.lock().unwrap().push("refresh");
            Ok(())
        }
        fn refreshes(&self) -> bool {
            self.refreshes
        }
    }

    fn resets(refreshes: bool) -> Vec<&'static str> {
        let log = Arc::new(Mutex::new(Vec::new()));
        let inner = Logged {
            sim: SimEnv::new(SimApp::form_chain(2, 0)),
            log: log.clone(),
        };
        let app = App {
            refreshes,
            log: log.clone(),
        };
        let mut env = WithApp::new(inner, Some(Box::new(app)));
        env.reset().unwrap();
        env.reset().unwrap();
        let calls = log.lock().unwrap().clone();
        calls
    }

    #[test]
    fn the_page_is_left_before_the_application_is_made_fresh() {
        // maildev's socket.io poll, refused while its server restarted, was a finding.
        assert_eq!(
            resets(true),
            ["leave", "refresh", "reset", "leave", "refresh", "reset"]
        );
    }

    #[test]
    fn an_application_that_stays_as_it_is_keeps_its_page_until_the_reset() {
        assert_eq!(resets(false), ["refresh", "reset", "refresh", "reset"]);
    }
}

/// How a property of the user's specification fared, episode by episode: each episode
/// checks it from its first state to its last.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PropertyVerdict {
    /// Its export's name in the specification.
    pub name: String,
    /// Its formula, as the specification wrote it (shortened).
    #[serde(default)]
    pub formula: String,
    /// Episodes in which it was violated.
    pub violated: u64,
    /// Episodes that ended with it undecided: an `eventually` not yet met is pending, not a
    /// pass.
    pub pending: u64,
    /// Episodes in which it held (an `always` that held to the end counts here).
    pub held: u64,
    /// Episodes in which evaluating it threw.
    pub errors: u64,
}

impl PropertyVerdict {
    /// The one-word verdict over the run: violated beats error beats pending beats held.
    pub fn verdict(&self) -> &'static str {
        if self.violated > 0 {
            "violated"
        } else if self.errors > 0 {
            "error"
        } else if self.pending > 0 {
            "pending"
        } else if self.held > 0 {
            "held"
        } else {
            "unchecked"
        }
    }
}

/// How a locator finds its element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LocatorKind {
    /// A test id attribute (`getByTestId`, or an attribute selector for another attribute).
    TestId,
    /// Role and accessible name (`getByRole`).
    Role,
    /// A label (`getByLabel`).
    Label,
    /// The element's own text (`getByText`).
    Text,
    /// wayfarer's CSS locator (a list of them through frames and shadow roots).
    Css,
}

/// The locator chosen for a step's target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chosen {
    pub kind: LocatorKind,
    /// The role (`role`) or the attribute (`testid`); empty for the others.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub by: String,
    /// The name, test id, label or text; empty for `css` (the action's target is the locator).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub value: String,
    /// Exactly one element answered to it when the step was taken (counted in the page;
    /// false: judged from the scan's approximation).
    #[serde(default)]
    pub verified: bool,
}
