//! `report.json`: the same object `--json` prints, plus every unique failure with its
//! trace and evidence paths.

use serde::Serialize;
use wayfarer_core::{Failure, RunSummary, StrategySnapshot};
use wayfarer_store::RunData;

use crate::SeededLine;

/// The `--json` object: the run summary, plus the seeded bugs found for a demo app.
#[derive(Serialize)]
pub struct Summary<'a> {
    #[serde(flatten)]
    pub summary: &'a RunSummary,
    #[serde(rename = "seeded_bugs", skip_serializing_if = "Option::is_none")]
    pub seeded: Option<&'a [SeededLine]>,
}

#[derive(Serialize)]
struct Detail<'a> {
    #[serde(flatten)]
    failure: &'a Failure,
    /// The replayable trace written for it, relative to the run directory.
    trace_file: String,
    screenshot: Option<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    summary: Summary<'a>,
    /// False when the run was cut short before writing its summary.
    complete: bool,
    failure_details: Vec<Detail<'a>>,
    /// What the strategy learned (counters and tables), for strategies that keep state.
    #[serde(skip_serializing_if = "Option::is_none")]
    strategy_state: Option<&'a StrategySnapshot>,
    /// The state-inference knowledge base (most confirmed interactions first), when
    /// inference was on.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    knowledge: &'a [wayfarer_core::runner::KnowledgeRow],
}

pub fn render(data: &RunData, seeded: Option<&[SeededLine]>) -> String {
    let details = data
        .failures
        .iter()
        .enumerate()
        .map(|(i, f)| Detail {
            failure: &f.failure,
            trace_file: format!("traces/{}", crate::traces::file_name(i, &f.failure)),
            screenshot: f
                .screenshot
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
        })
        .collect();
    serde_json::to_string_pretty(&Report {
        summary: Summary {
            summary: &data.summary,
            seeded,
        },
        complete: data.complete,
        failure_details: details,
        strategy_state: data.strategy.as_ref(),
        knowledge: &data.knowledge,
    })
    .expect("the report always serialises")
}
