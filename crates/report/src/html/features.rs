//! The Features section: what `wayfarer features` last inferred from the run (DESIGN
//! 7.6), the kept features with their tests first, best first, then the kept features
//! without one (and why), then briefly those that scored too low.

use std::collections::HashMap;

use serde::Serialize;
use wayfarer_store::{FeatureOutcome, FeatureRecord, StoredFeatures};

use super::text::href_path;

/// Features not kept that are named at most (the best first): a long tail of one-off
/// labels says little.
pub const MAX_DROPPED: usize = 100;

#[derive(Debug, Serialize)]
pub struct Section {
    pub inferred: usize,
    pub kept: usize,
    pub tests: usize,
    pub questions: u64,
    pub embedder: String,
    /// The tests were replayed in a browser before they were written.
    pub checked: bool,
    /// Some test's grammar coverage is known: the column is shown.
    pub covers_known: bool,
    pub tested: Vec<Tested>,
    pub untested: Vec<Untested>,
    pub dropped: Vec<Scored>,
    /// Not kept and not named.
    pub dropped_more: usize,
}

/// A kept feature with its test.
#[derive(Debug, Serialize)]
pub struct Tested {
    pub label: String,
    pub score: String,
    /// The spec file as stored, and the same as a link from report.html.
    pub file: String,
    pub href: String,
    pub steps: u32,
    /// The grammar features it covers, "no grammar feature", or "–" when not known.
    pub covers: String,
    /// Other kept features this test performs step for step.
    pub also: Vec<String>,
}

/// A kept feature without a test.
#[derive(Debug, Serialize)]
pub struct Untested {
    pub label: String,
    pub score: String,
    pub why: String,
}

#[derive(Debug, Serialize)]
pub struct Scored {
    pub label: String,
    pub score: String,
}

/// Scores are sums of logs: two decimals, and never "-0.00".
fn score(v: f64) -> String {
    let s = format!("{v:.2}");
    if s == "-0.00" {
        "0.00".into()
    } else {
        s
    }
}

/// Best first, then in the order they were inferred (as the CLI keeps them).
fn best_first<'a>(it: impl Iterator<Item = &'a FeatureRecord>) -> Vec<&'a FeatureRecord> {
    let mut v: Vec<_> = it.collect();
    v.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    v
}

pub fn section(f: &StoredFeatures) -> Section {
    let kept = best_first(f.features.iter().filter(|r| r.outcome.kept()));
    let mut tested: Vec<Tested> = Vec::new();
    let mut untested = Vec::new();
    let mut row_of: HashMap<&str, usize> = HashMap::new();
    for r in &kept {
        if let FeatureOutcome::Tested(t) = &r.outcome {
            row_of.insert(r.label.as_str(), tested.len());
            tested.push(Tested {
                label: r.label.clone(),
                score: score(r.score),
                file: t.file.clone(),
                href: href_path(&t.file),
                steps: t.steps,
                covers: match &t.covers {
                    None => "–".into(),
                    Some(c) if c.is_empty() => "no grammar feature".into(),
                    Some(c) => c.join(", "),
                },
                also: Vec::new(),
            });
        }
    }
    for r in &kept {
        let why = match &r.outcome {
            FeatureOutcome::SameTestAs(host) => match row_of.get(host.as_str()) {
                Some(&i) => {
                    tested[i].also.push(r.label.clone());
                    continue;
                }
                None => format!("the same steps as the test of {host}, which has none"),
            },
            FeatureOutcome::NoTest(why) => why.clone(),
            FeatureOutcome::Tested(_) | FeatureOutcome::NotKept => continue,
        };
        untested.push(Untested {
            label: r.label.clone(),
            score: score(r.score),
            why,
        });
    }
    let dropped = best_first(f.features.iter().filter(|r| !r.outcome.kept()));
    Section {
        inferred: f.features.len(),
        kept: kept.len(),
        tests: tested.len(),
        questions: f.questions,
        embedder: f.embedder.clone(),
        checked: f.checked,
        covers_known: f
            .features
            .iter()
            .any(|r| matches!(&r.outcome, FeatureOutcome::Tested(t) if t.covers.is_some())),
        tested,
        untested,
        dropped_more: dropped.len().saturating_sub(MAX_DROPPED),
        dropped: dropped
            .into_iter()
            .take(MAX_DROPPED)
            .map(|r| Scored {
                label: r.label.clone(),
                score: score(r.score),
            })
            .collect(),
    }
}
