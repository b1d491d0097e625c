//! `report.json` in the output directory: the summary plus each failure's trace.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;
use wayfarer_core::{Failure, Observer, RunSummary};

use crate::seeded::SeededResult;

/// Collects the full failures (with traces) for the report.
#[derive(Default)]
pub struct FailureTraces(pub Vec<Failure>);

impl Observer for FailureTraces {
    fn on_failure(&mut self, f: &Failure) {
        self.0.push(f.clone());
    }

    fn on_end(&mut self, summary: &RunSummary) {
        // Counts grow after a failure is first seen; take them from the final summary.
        for f in &mut self.0 {
            if let Some(line) = summary.failures.iter().find(|l| l.signature == f.signature) {
                f.count = line.count;
            }
        }
    }
}

/// The `--json` object: the run summary, plus the seeded bugs found for a demo app.
#[derive(Serialize)]
pub struct Summary<'a> {
    #[serde(flatten)]
    pub summary: &'a RunSummary,
    #[serde(rename = "seeded_bugs", skip_serializing_if = "Option::is_none")]
    pub seeded: Option<&'a [SeededResult]>,
}

#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    summary: Summary<'a>,
    failure_details: &'a [Failure],
}

/// Write `report.json` into `dir` (created when missing); returns its path.
pub fn write(
    dir: &Path,
    summary: &RunSummary,
    failures: &[Failure],
    seeded: Option<&[SeededResult]>,
) -> Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let path = dir.join("report.json");
    let json = serde_json::to_string_pretty(&Report {
        summary: Summary { summary, seeded },
        failure_details: failures,
    })?;
    std::fs::write(&path, json).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
