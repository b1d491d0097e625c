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
    // Shrinking takes the run's browsers while it explores, and makes its traces: a run
    // made with other shrinking is made again.
    let shrink = stored_shrink(&data.meta.config, &data.summary);
    if shrink != plan.shrink.to_string() {
        tracing::info!(
            "{}: made with --shrink {shrink}, not {}: run again",
            dir.display(),
            plan.shrink
        );
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

/// How a stored run shrank its failures: the bench records its `--shrink` in the run's
/// `[budget] shrink`. A run without it was made before the bench shrank (it turned
/// shrinking off whatever a configuration said), as was a run whose failures had no
/// shrinking phase.
fn stored_shrink(config: &serde_json::Value, summary: &wayfarer_core::RunSummary) -> String {
    let recorded = config
        .pointer("/budget/shrink")
        .and_then(|v| v.as_str())
        .and_then(|t| t.parse::<wayfarer_run::ShrinkBudget>().ok());
    match recorded {
        Some(s) if summary.failures.is_empty() || summary.shrink.is_some() => s.to_string(),
        _ => wayfarer_run::ShrinkBudget::Off.to_string(),
    }
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
        // Only the lines are kept per step; a resumed bench reads the totals from the
        // run's summary.
        server: s
            .server_lines
            .map(|lines_covered| wayfarer_core::server::ServerCoverage {
                lines_covered,
                ..Default::default()
            }),
        workers: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::summary::FailureLine;
    use wayfarer_core::RunSummary;

    /// Runs an older bench kept have no `[budget] shrink` of its own: it turned shrinking
    /// off, so they are kept by `--shrink off` only.
    #[test]
    fn a_stored_run_says_how_it_shrank_and_older_ones_did_not() {
        let config = |shrink: Option<&str>| {
            let mut c = wayfarer_core::Config::default();
            c.budget.shrink = shrink.map(str::to_string);
            serde_json::to_value(c).unwrap()
        };
        let quiet = RunSummary::default();
        let failed = RunSummary {
            failures: vec![FailureLine::default()],
            ..RunSummary::default()
        };
        let shrank = RunSummary {
            shrink: Some(Default::default()),
            ..failed.clone()
        };
        assert_eq!(stored_shrink(&config(None), &shrank), "off");
        assert_eq!(stored_shrink(&serde_json::json!({}), &quiet), "off");
        assert_eq!(stored_shrink(&config(Some("20%")), &shrank), "20%");
        assert_eq!(stored_shrink(&config(Some("90s")), &quiet), "90s");
        // A configuration asked for it, the older bench turned it off: no shrinking phase.
        assert_eq!(stored_shrink(&config(Some("20%")), &failed), "off");
        assert_eq!(stored_shrink(&config(Some("off")), &failed), "off");
    }

    /// A peer run kept before the bench measured traces still loads, its new columns empty.
    #[test]
    fn a_peer_run_kept_before_the_trace_columns_loads() {
        let mut row = serde_json::to_value(RunRow {
            app: "clinic".into(),
            strategy: "gremlins".into(),
            kind: "peer".into(),
            ..RunRow::default()
        })
        .unwrap();
        let fields = row.as_object_mut().unwrap();
        for new in [
            "shrink",
            "longest_trace",
            "fewest_actions",
            "trace_excess",
            "failures_shrunk",
            "failures_confirmed",
        ] {
            assert!(fields.remove(new).is_some(), "{new}");
        }
        let old = serde_json::json!({
            "budget": "300",
            "row": row,
            "series": [],
            "failures": [],
        });
        let kept: KeptPeer = serde_json::from_value(old).unwrap();
        assert_eq!(kept.row.strategy, "gremlins");
        assert_eq!(
            (kept.row.shrink.as_str(), kept.row.longest_trace),
            ("", None)
        );
        assert_eq!(kept.row.shrunk_share(), None);
    }
}
