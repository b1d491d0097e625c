//! The table of the run's last steps: what was done, where it led, what went wrong.

use serde::Serialize;
use wayfarer_core::trace::TraceStep;
use wayfarer_store::RunData;

use super::repro::{sentence, Part};
use super::text::{short_url, truncate};

/// Steps listed at most (the last ones: what led to the end of the run).
pub const MAX_ROWS: usize = 200;

#[derive(Debug, Serialize)]
pub struct StepRow {
    pub step: u64,
    pub episode: u64,
    pub action: Vec<Part>,
    /// The path of the page after the step (the whole URL is its tooltip).
    pub path: String,
    pub url: String,
    pub from: String,
    pub to: String,
    pub new_state: bool,
    pub error: Option<String>,
    pub findings: usize,
    /// Why the strategy chose the action, when it said.
    pub decision: Option<String>,
    /// What the action opened for the first time ("2 scripts, 1 endpoint"), if anything.
    pub opened: Option<String>,
}

pub fn rows(data: &RunData) -> Vec<StepRow> {
    let skip = data.steps.len().saturating_sub(MAX_ROWS);
    data.steps[skip..]
        .iter()
        .map(|s| {
            let r = &s.record;
            let ts = TraceStep {
                action: r.action.clone(),
                element: r.element.clone(),
                url: String::new(),
            };
            StepRow {
                step: r.step,
                episode: r.episode,
                action: sentence(&ts),
                path: truncate(short_url(&r.url_after), 90),
                url: truncate(&r.url_after, 300),
                from: r.state_before.to_string(),
                to: r.state_after.to_string(),
                new_state: r.new_state,
                error: r.error.as_deref().map(|e| truncate(e, 200)),
                findings: r.findings.len(),
                decision: r.decision.as_deref().map(|d| truncate(d, 160)),
                opened: (!r.novelty.is_empty()).then(|| r.novelty.describe()),
            }
        })
        .collect()
}
