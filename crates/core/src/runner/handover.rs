//! Work a worker's browser can do besides exploring: the run's caller (shrinking, in the
//! `run` crate) offers it through this seam, and the loop hands a browser over when the
//! offer says so: a browser `--workers auto` left idle, an exploring one while its share
//! allows, and every browser once the budget is spent. The loop knows nothing of what
//! the work is; the work knows nothing of the loop.

use std::time::{Duration, Instant};

use crate::env::Environment;

/// What the loop tells the offer when it asks whether a worker should hand over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Duty {
    /// The asking worker.
    pub worker: u32,
    /// It was left idle (`--workers auto`): handing it over costs the exploration nothing.
    pub idle: bool,
    /// Workers exploring now, the asking one included when it explores.
    pub exploring: usize,
    /// The run's time so far.
    pub elapsed: Duration,
}

/// What a run's browsers may be handed over for.
pub trait Handover: Send + Sync {
    /// During the run: whether the worker should hand its browser over now. Asked before
    /// every step, so it must be cheap.
    fn wanted(&self, duty: Duty) -> bool;

    /// During the run: do one piece of work on `env` (it resets the page as it needs;
    /// the worker begins a new episode afterwards). `false` when there was none.
    fn serve(&self, worker: u32, env: &mut dyn Environment) -> bool;

    /// After the run's exploration, begun at `started`, spent its budget: do what is
    /// left on `env`, alongside the other workers, until it is done or its time is up.
    fn finish(&self, worker: u32, env: &mut dyn Environment, started: Instant);
}
