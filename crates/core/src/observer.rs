//! The observer seam: everything that records or reports a run (progress line, JSON
//! summary, later the run store and the HTML report) listens here, apart from the loop.

use crate::agent::StrategySnapshot;
use crate::oracle::Failure;
use crate::record::{ResetRecord, StepRecord};
use crate::summary::RunSummary;
use serde::{Deserialize, Serialize};

/// Live counters handed to observers with every step.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    pub steps: u64,
    pub episodes: u64,
    pub states: usize,
    pub urls: usize,
    /// Distinct (page, action) pairs offered so far.
    pub actions: usize,
    pub failures: usize,
    pub elapsed: std::time::Duration,
    /// Share of the budget used, 0 to 1.
    pub budget_used: f64,
    pub coverage: Option<crate::env::Coverage>,
    /// The server's coverage, when it is read (`[server] coverage`).
    pub server: Option<crate::server::ServerCoverage>,
    /// Workers still exploring (1 in a run with one).
    pub workers: usize,
}

/// Listens to a run. Every method has an empty default.
pub trait Observer {
    fn on_reset(&mut self, _record: &ResetRecord, _progress: &Progress) {}
    fn on_step(&mut self, _record: &StepRecord, _progress: &Progress) {}
    /// A failure seen for the first time, with a screenshot of the page when the
    /// environment could take one. Repeats show up in the records' `findings`.
    fn on_failure(&mut self, _failure: &Failure, _screenshot: Option<&[u8]>) {}
    /// What the strategy has learned, at the end of each episode and of the run.
    fn on_strategy(&mut self, _snapshot: &StrategySnapshot) {}
    /// The state-inference knowledge base at the end of the run, when inference was on.
    fn on_knowledge(&mut self, _rows: &[KnowledgeRow]) {}
    /// A worker stopped for good before the run did: its browser (`browser`, a CDP
    /// endpoint or a launched Chromium) died and could not be brought back.
    fn on_retire(&mut self, _worker: u32, _browser: &str, _why: &str) {}
    /// The start page offered no action after several resets, each waited for: what it
    /// showed (`seen`: URL, title, first text) and a screenshot when the environment
    /// could take one. The run tries a fresh browser next, or halts when it just did.
    fn on_empty_start(&mut self, _worker: u32, _seen: &str, _screenshot: Option<&[u8]>) {}
    fn on_end(&mut self, _summary: &RunSummary) {}
}

/// One interaction of the knowledge base, for the run store and the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnowledgeRow {
    pub state: String,
    pub action: String,
    /// "s3 http://.../owners (12×)" per candidate; empty when non-deterministic.
    pub candidates: Vec<String>,
    pub nondeterministic: bool,
}
