//! External peers: tools users already know, run through the same Chromium against the
//! same application with the same time budget and seed, and measured with the same JS
//! coverage and failure oracles as wayfarer's strategies.
//!
//! A peer is either a script injected into every document of our own browser (so it
//! survives the page loads it causes itself: [`ScriptPeer`], run by `session.rs`), or a
//! program that drives a browser of its own, watched through a CDP session of ours
//! (Bombadil: `bombadil.rs`, `monitor.rs`). Adding a peer means implementing [`Peer`] and
//! listing it in [`by_name`].

mod bombadil;
mod gremlins;
mod install;
mod login;
mod monitor;
mod session;
mod storage;
mod tally;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use wayfarer_core::config::{DenyRule, LoginStep, OracleConfig};
use wayfarer_core::{Coverage, Failure};

use crate::series::SeriesPoint;

pub use bombadil::{Bombadil, Release};
pub use gremlins::Gremlins;

/// Why a peer could not be run.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    /// Installing or locating the peer failed (no npm, no registry, a broken package).
    #[error("cannot install {peer}: {reason}")]
    Install { peer: String, reason: String },
    /// The browser could not be started or driven.
    #[error("{peer}: browser: {reason}")]
    Browser { peer: String, reason: String },
}

/// An external tool that explores an application on its own.
pub trait Peer {
    /// Short name for tables and plots ("gremlins").
    fn name(&self) -> &'static str;
    /// Make sure the peer's code is available (installing it from its registry into
    /// `cache` when missing; never vendored into the repository). Returns a short line
    /// saying what was done, for the progress output.
    fn ensure_installed(&mut self) -> Result<String, PeerError>;
    /// One run against the application at `opts.start_url`, measured by our definitions.
    fn run(&self, opts: &PeerOptions) -> Result<PeerResult, PeerError>;
}

/// Run `peer` against `opts.start_url` for `opts.duration`.
pub fn run_peer(peer: &dyn Peer, opts: &PeerOptions) -> Result<PeerResult, PeerError> {
    peer.run(opts)
}

/// Run a script peer in our own browser: what its `Peer::run` calls.
pub fn run_script(peer: &dyn ScriptPeer, opts: &PeerOptions) -> Result<PeerResult, PeerError> {
    session::run_injected(peer, opts)
}

/// A peer that is a script injected into our own browser; its `Peer::run` is
/// [`run_script`].
pub trait ScriptPeer: Peer {
    /// The JavaScript injected into every new document before the page's own scripts:
    /// the peer's code plus a starter that unleashes it with `seed` once the page loaded.
    /// It must count the peer's actions in `window.__wfPeerSteps` (kept across page loads
    /// of the tab, e.g. in sessionStorage) and stop acting once that count reaches
    /// `max_steps`, when set, and leave alone what `deny` matches where the peer can.
    fn init_script(
        &self,
        seed: u64,
        max_steps: Option<u64>,
        deny: &[DenyRule],
    ) -> Result<String, PeerError>;
}

/// What a peer run needs.
#[derive(Clone, Debug)]
pub struct PeerOptions {
    pub start_url: url::Url,
    /// The Chromium binary (None: `find_chrome(None)`).
    pub chrome: Option<PathBuf>,
    pub seed: u64,
    /// Wall-clock budget: the peer runs this long after its first page load.
    pub duration: Duration,
    /// Action budget: the peer stops acting after this many of its own actions (and the
    /// run ends at the next sample), when set.
    pub max_steps: Option<u64>,
    /// How often the page is sampled (events, coverage, the app's action log and state).
    pub sample_every: Duration,
    pub oracles: OracleConfig,
    /// Where a peer that runs as a program keeps its log and output for triage (None:
    /// a temporary directory, removed after the run).
    pub log_dir: Option<PathBuf>,
    /// The application's login steps (its configuration's `[[login]]`, secrets filled
    /// in): a peer in our browser runs them first, a peer with a browser of its own gets
    /// the session's cookies (`cookies`).
    pub login: Vec<LoginStep>,
    /// The configuration's `[[deny]]` rules, for a peer that can take them (gremlins:
    /// its clicks and fills skip what they match; Bombadil has no such option).
    pub deny: Vec<DenyRule>,
    /// The application's server, when the bench started it with its coverage read: taken
    /// at every sample, the first after the first page load.
    pub server: Option<ServerReader>,
}

/// The application's server as a peer run reads it: the measure is the same whoever
/// drives the browser, since it is taken at the server.
#[derive(Clone)]
pub struct ServerReader(Arc<Mutex<Box<dyn wayfarer_core::AppUnderTest>>>);

impl std::fmt::Debug for ServerReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ServerReader")
    }
}

impl ServerReader {
    /// The server behind `app` (what a browser of the run would call), when its coverage
    /// is read.
    pub fn new(mut app: Box<dyn wayfarer_core::AppUnderTest>) -> Option<ServerReader> {
        app.coverage()?;
        Some(ServerReader(Arc::new(Mutex::new(app))))
    }

    fn app(&self) -> std::sync::MutexGuard<'_, Box<dyn wayfarer_core::AppUnderTest>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Read what the server ran since the last take.
    pub fn take(&self) {
        self.app().coverage_take();
    }

    pub fn coverage(&self) -> Option<wayfarer_core::server::ServerCoverage> {
        self.app().coverage()
    }

    pub fn by_file(&self) -> Vec<wayfarer_core::server::ServerFileReach> {
        self.app().coverage_by_file()
    }
}

/// What a peer run measured, in the same units as a strategy run.
#[derive(Clone, Debug, Default)]
pub struct PeerResult {
    /// Actions the peer performed (`window.__wfPeerSteps` at the end).
    pub steps: u64,
    /// Distinct URLs seen at the samples.
    pub urls: usize,
    /// Distinct abstract states (the same abstraction as the strategies) among the sampled
    /// observations.
    pub states: usize,
    /// Distinct `data-wf-state` screens seen at the samples (instrumented apps only).
    pub screens: Vec<String>,
    /// The application's action-id log (`window.__wfActions`) at the end.
    pub action_log: Vec<String>,
    pub coverage: Option<Coverage>,
    /// The coverage script by script (`scripts.md`: what any tool ran of each).
    pub scripts: Vec<wayfarer_core::ScriptReach>,
    /// Unique failures, each with the peer step count at which it was first seen.
    pub failures: Vec<Failure>,
    /// One point per sample.
    pub series: Vec<SeriesPoint>,
    pub elapsed: Duration,
    /// Times the browser environment restarted the browser or reopened a crashed page
    /// (the peer is injected again each time).
    pub restarts: u32,
    /// Samples, or parts of one, lost to a page in flux (navigating, hung, crashed).
    pub skipped_samples: u64,
    /// Why the peer ended before its time, when it did on its own (a crash, an error
    /// exit): its numbers then cover only that part.
    pub ended_early: Option<String>,
    /// Times the peer lost its login (the form came back after it was past it).
    pub logouts: u64,
    /// Distinct URLs seen while logged in (`None`: no login form to tell by).
    pub behind_login: Option<usize>,
    /// The server's coverage at the end, when it was read.
    pub server: Option<wayfarer_core::server::ServerCoverage>,
}

/// The peers this build offers.
pub const NAMES: &[&str] = &["gremlins", "bombadil", "bombadil@0.4.5"];

/// Build the peer called `name`; `cache` is where peers install themselves.
pub fn by_name(name: &str, cache: PathBuf) -> Option<Box<dyn Peer>> {
    match name {
        "gremlins" => Some(Box::new(Gremlins::new(cache))),
        "bombadil" => Some(Box::new(Bombadil::npm(cache))),
        // Built from source, not installed by the bench: see `Bombadil::ensure_installed`.
        "bombadil@0.4.5" => Some(Box::new(Bombadil::source())),
        _ => None,
    }
}
