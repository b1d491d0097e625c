//! What a run looked like over its steps: the points the plots are drawn from.

use serde::{Deserialize, Serialize};

/// The cumulative counters of a run after `step` actions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    pub step: u64,
    pub elapsed_ms: u64,
    pub states: usize,
    /// JS coverage ratio, 0 to 1 (0 when not measured).
    pub js_coverage: f64,
    /// Unique failures so far.
    pub failures: usize,
}
