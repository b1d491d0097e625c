//! What inference did in a run: scans and analyses avoided, validations, and the
//! interaction cardinality table, for `--json`, the report and the bench.

use serde::{Deserialize, Serialize};

use super::knowledge::Cardinality;

/// Counters the loop keeps while inference is on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InferStats {
    /// Steps that performed an action.
    pub steps: u64,
    /// Steps whose next state came from the knowledge base (no scan, no analysis).
    pub predicted: u64,
    /// Live-page validations of a candidate (one cheap query each).
    pub probes: u64,
    /// Validations that rejected their candidate.
    pub rejected: u64,
    /// Steps that tried candidates, found none fitting, and scanned.
    pub fallbacks: u64,
    /// Time spent in the live-page queries.
    pub probe_time: std::time::Duration,
}

impl InferStats {
    /// Add another worker's counters.
    pub fn add(&mut self, o: &InferStats) {
        self.steps += o.steps;
        self.predicted += o.predicted;
        self.probes += o.probes;
        self.rejected += o.rejected;
        self.fallbacks += o.fallbacks;
        self.probe_time += o.probe_time;
    }
}

/// One row of the cardinality table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CardinalityRow {
    /// "1", "2" ... or "non-deterministic".
    pub candidates: String,
    pub interactions: u64,
    /// Share of all abstract interactions, 0-1.
    pub share: f64,
}

/// The inference part of a run summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InferenceSummary {
    /// The configuration, e.g. "actions-5".
    pub config: String,
    /// Why inference did not run although asked for, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<String>,
    pub steps: u64,
    pub predicted_steps: u64,
    pub probes: u64,
    /// Mean milliseconds of one live-page query.
    #[serde(default)]
    pub probe_ms: f64,
    pub rejected_candidates: u64,
    pub fallback_scans: u64,
    /// Abstract interactions in the knowledge base.
    pub interactions: u64,
    pub cardinality: Vec<CardinalityRow>,
}

impl InferStats {
    /// Share of steps whose scan was skipped, 0-1.
    pub fn scans_avoided(&self) -> f64 {
        ratio(self.predicted, self.steps)
    }

    /// Share of steps whose state analysis was skipped, 0-1 (the same steps: a predicted
    /// state comes with its analysis).
    pub fn analyses_avoided(&self) -> f64 {
        ratio(self.predicted, self.steps)
    }

    pub fn summary(&self, config: String, cardinality: &Cardinality) -> InferenceSummary {
        let total = cardinality.interactions();
        let row = |candidates: String, n: u64| CardinalityRow {
            candidates,
            interactions: n,
            share: ratio(n, total),
        };
        let mut rows: Vec<CardinalityRow> = cardinality
            .by_candidates
            .iter()
            .enumerate()
            .map(|(k, &n)| row((k + 1).to_string(), n))
            .collect();
        rows.push(row(
            "non-deterministic".into(),
            cardinality.nondeterministic,
        ));
        InferenceSummary {
            config,
            disabled: None,
            steps: self.steps,
            predicted_steps: self.predicted,
            probes: self.probes,
            probe_ms: if self.probes > 0 {
                self.probe_time.as_secs_f64() * 1e3 / self.probes as f64
            } else {
                0.0
            },
            rejected_candidates: self.rejected,
            fallback_scans: self.fallbacks,
            interactions: total,
            cardinality: rows,
        }
    }
}

/// Share of steps whose action differs, position by position (SIBILLA's strict measure:
/// an action taken one step later counts as a difference); missing steps differ.
pub fn deviation(base: &[crate::model::Action], other: &[crate::model::Action]) -> f64 {
    let n = base.len().max(other.len());
    if n == 0 {
        return 0.0;
    }
    let same = base.iter().zip(other).filter(|(a, b)| a == b).count();
    (n - same) as f64 / n as f64
}

fn ratio(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        n as f64 / d as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deviation_counts_positions_that_differ_and_missing_steps() {
        use crate::model::{Action, ActionKind};
        let a = |t: &str| Action::on(ActionKind::Click, t);
        let base = vec![a("#x"), a("#y"), a("#z"), a("#w")];
        assert_eq!(deviation(&base, &base), 0.0);
        let shifted = vec![a("#y"), a("#z"), a("#w"), a("#w")];
        assert_eq!(deviation(&base, &shifted), 0.75);
        assert_eq!(deviation(&base, &base[..2]), 0.5);
        assert_eq!(deviation(&[], &[]), 0.0);
    }

    #[test]
    fn shares_and_rows() {
        let s = InferStats {
            steps: 10,
            predicted: 4,
            ..InferStats::default()
        };
        assert_eq!(s.scans_avoided(), 0.4);
        let card = Cardinality {
            by_candidates: vec![3, 1],
            nondeterministic: 0,
        };
        let sum = s.summary("actions-2".into(), &card);
        assert_eq!(sum.interactions, 4);
        assert_eq!(sum.cardinality.len(), 3);
        assert_eq!(sum.cardinality[0].share, 0.75);
        assert_eq!(sum.cardinality[2].candidates, "non-deterministic");
        assert_eq!(InferStats::default().scans_avoided(), 0.0);
    }
}
