//! The observer seam: everything that records or reports a run (progress line, JSON
//! summary, later the run store and the HTML report) listens here, apart from the loop.

use crate::env::Outcome;
use crate::oracle::Failure;
use crate::record::StepRecord;
use crate::summary::RunSummary;

/// Live counters handed to observers with every step.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    pub steps: u64,
    pub episodes: u64,
    pub states: usize,
    pub urls: usize,
    pub failures: usize,
    pub elapsed: std::time::Duration,
    /// Share of the budget used, 0 to 1.
    pub budget_used: f64,
    pub coverage_ratio: Option<f64>,
}

/// Listens to a run. Every method has an empty default.
pub trait Observer {
    fn on_reset(&mut self, _episode: u64, _outcome: &Outcome) {}
    fn on_step(&mut self, _record: &StepRecord, _progress: &Progress) {}
    fn on_failure(&mut self, _failure: &Failure) {}
    fn on_end(&mut self, _summary: &RunSummary) {}
}
