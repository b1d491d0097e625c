//! `--resume`: a strategy run whose store in the bench's output is complete, and made
//! with the same budget, is read back instead of being run again, so a benchmark longer
//! than one sitting can be finished in several; a peer run likewise from the `peer.json`
//! it left.

use std::path::Path;
use std::time::Duration;

use wayfarer_core::{Observer, Progress};
use wayfarer_store::{RunData, Sample};

use crate::collect::Collector;
use crate::execute::{strategy_row, RunOutcome};
use crate::metrics::RunRow;
use crate::plan::{Plan, Target};
use crate::series::SeriesPoint;
use crate::BenchError;

/// What a finished peer run leaves in its directory.
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptPeer {
    budget: String,
    row: RunRow,
    series: Vec<SeriesPoint>,
    failures: Vec<wayfarer_core::summary::FailureLine>,
    /// Absent from peer runs kept before it was.
    #[serde(default)]
    scripts: Vec<wayfarer_core::ScriptReach>,
}

/// The file a peer run is kept in.
fn peer_file(dir: &Path) -> std::path::PathBuf {
    dir.join("peer.json")
}

/// Keep a finished peer run in `dir` for a later `--resume`.
pub(crate) fn keep_peer(plan: &Plan, dir: &Path, out: &RunOutcome) -> Result<(), BenchError> {
    std::fs::create_dir_all(dir).map_err(|e| BenchError::Write(dir.to_path_buf(), e))?;
    let kept = KeptPeer {
        budget: plan.budget.to_string(),
        row: out.row.clone(),
        series: out.series.clone(),
        failures: out.failures.clone(),
        scripts: out.scripts.clone(),
    };
    let text = serde_json::to_string(&kept).expect("a peer run serialises");
    crate::write_masked(&peer_file(dir), &text)
}

/// The finished peer run in `dir`, when it was made with this plan's budget.
pub(crate) fn finished_peer(plan: &Plan, dir: &Path) -> Option<RunOutcome> {
    let text = std::fs::read_to_string(peer_file(dir)).ok()?;
    let kept: KeptPeer = match serde_json::from_str(&text) {
        Ok(k) => k,
        Err(e) => {
            tracing::warn!("{}: not resumed, run again: {e}", dir.display());
            return None;
        }
    };
    (kept.budget == plan.budget.to_string()).then(|| RunOutcome {
        row: kept.row,
        series: kept.series,
        actions: Vec::new(),
        failures: kept.failures,
        dir: Some(dir.to_path_buf()),
        scripts: kept.scripts,
    })
}

/// The finished run in `dir`, when there is one this plan can keep.
pub(crate) fn finished_run(plan: &Plan, target: &Target, dir: &Path) -> Option<RunOutcome> {
    if !wayfarer_store::store_path(dir).exists() {
        return None;
    }
    let data = match wayfarer_store::load(dir) {
        Ok(d) => d,
        Err(e) => {
            tracing::warn!("{}: not resumed, run again: {e}", dir.display());
            return None;
        }
    };
    if !data.complete || data.meta.budget != plan.budget.to_string() {
        return None;
    }
    let collector = replay(&data);
    let row = strategy_row(plan, target, &data.summary, &collector);
    Some(RunOutcome {
        row,
        series: collector.series,
        actions: collector.actions,
        failures: data.summary.failures.clone(),
        dir: Some(dir.to_path_buf()),
        scripts: data
            .summary
            .js_coverage
            .as_ref()
            .map(|c| c.scripts.clone())
            .unwrap_or_default(),
    })
}

/// What the bench's collector would have seen, from the stored resets and steps.
fn replay(data: &RunData) -> Collector {
    let mut c = Collector::default();
    let mut resets = data.resets.iter().peekable();
    let mut last = Progress::default();
    for s in &data.steps {
        while let Some(r) = resets.next_if(|r| r.after_step < s.record.step) {
            c.on_reset(r, &last);
        }
        last = progress(&s.sample, s.record.step);
        c.on_step(&s.record, &last);
    }
    for r in resets {
        c.on_reset(r, &last);
    }
    c
}

fn progress(s: &Sample, steps: u64) -> Progress {
    Progress {
        steps,
        episodes: s.episodes,
        states: s.states,
        urls: s.urls,
        actions: s.actions,
        failures: s.failures,
        elapsed: Duration::from_millis(s.elapsed_ms),
        budget_used: 0.0,
        coverage: s.coverage,
        workers: 1,
    }
}
