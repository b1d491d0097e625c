//! The feature database (label, embedding, score) and the action-feature database
//! ((state, action) -> feature, rank, rank score, which query), paper 003 section III-D.

use serde::{Deserialize, Serialize};
use wayfarer_core::embed::cosine;
use wayfarer_core::StateId;

/// A feature's index in its [`FeatureDb`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FeatureId(pub usize);

/// One feature: what it is called (the first label inferred for it), its label's
/// embedding and its score, the running sum of its updates (0 when inserted).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FeatureEntry {
    pub label: String,
    #[serde(skip)]
    pub embedding: Vec<f32>,
    pub score: f64,
    /// The labels matched to it, the first one included.
    pub aliases: Vec<String>,
}

/// Every feature inferred so far.
#[derive(Clone, Debug, Default)]
pub struct FeatureDb {
    entries: Vec<FeatureEntry>,
}

impl FeatureDb {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, id: FeatureId) -> &FeatureEntry {
        &self.entries[id.0]
    }

    pub fn iter(&self) -> impl Iterator<Item = (FeatureId, &FeatureEntry)> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| (FeatureId(i), e))
    }

    /// A new feature with score 0.
    pub fn insert(&mut self, label: &str, embedding: Vec<f32>) -> FeatureId {
        self.entries.push(FeatureEntry {
            label: label.to_string(),
            embedding,
            score: 0.0,
            aliases: vec![label.to_string()],
        });
        FeatureId(self.entries.len() - 1)
    }

    /// Another label for an existing feature (kept once).
    pub fn alias(&mut self, id: FeatureId, label: &str) {
        let e = &mut self.entries[id.0];
        if !e.aliases.iter().any(|a| a == label) {
            e.aliases.push(label.to_string());
        }
    }

    pub fn add_score(&mut self, id: FeatureId, delta: f64) {
        self.entries[id.0].score += delta;
    }

    /// The `k` features whose embeddings are nearest to `v` (brute-force cosine), the
    /// nearest first, ties in insertion order.
    pub fn nearest(&self, v: &[f32], k: usize) -> Vec<(FeatureId, f64)> {
        let mut all: Vec<(FeatureId, f64)> = self
            .iter()
            .map(|(id, e)| (id, cosine(v, &e.embedding)))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        all.truncate(k);
        all
    }

    /// The features scoring at least `cutoff`, best first (ties in insertion order). A
    /// sum of logs that lands on the cutoff counts as at it, whatever its last bits.
    pub fn kept(&self, cutoff: f64) -> Vec<FeatureId> {
        let mut ids: Vec<FeatureId> = self
            .iter()
            .filter(|(_, e)| e.score >= cutoff - 1e-9)
            .map(|(id, _)| id)
            .collect();
        ids.sort_by(|a, b| {
            self.get(*b)
                .score
                .total_cmp(&self.get(*a).score)
                .then(a.cmp(b))
        });
        ids
    }
}

/// An action in a state: the state and the action's key (what identifies it there).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ActionRef {
    pub state: StateId,
    pub action: String,
}

/// Which of the two questions an answer came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Query {
    /// The features of the action alone.
    Alone,
    /// The features of the action after the one that led to its state.
    AfterPrevious(ActionRef),
}

/// One action-feature row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AfdRow {
    pub at: ActionRef,
    pub feature: FeatureId,
    /// 1-based rank in the answer.
    pub rank: usize,
    pub rank_score: f64,
    pub query: Query,
}

/// The action-feature database, rows in the order they were inferred.
#[derive(Clone, Debug, Default)]
pub struct ActionFeatureDb {
    rows: Vec<AfdRow>,
}

impl ActionFeatureDb {
    pub fn push(&mut self, row: AfdRow) {
        self.rows.push(row);
    }

    pub fn rows(&self) -> &[AfdRow] {
        &self.rows
    }

    /// The rows of one feature.
    pub fn of(&self, feature: FeatureId) -> impl Iterator<Item = &AfdRow> {
        self.rows.iter().filter(move |r| r.feature == feature)
    }

    /// The rank of `feature` in the answer for `at` alone, when that answer listed it.
    pub fn rank_alone(&self, at: &ActionRef, feature: FeatureId) -> Option<usize> {
        self.rows
            .iter()
            .filter(|r| r.feature == feature && r.query == Query::Alone && r.at == *at)
            .map(|r| r.rank)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_and_kept_are_ordered() {
        let mut db = FeatureDb::default();
        let a = db.insert("add owner", vec![1.0, 0.0]);
        let b = db.insert("find owner", vec![0.6, 0.8]);
        let c = db.insert("report", vec![0.0, 1.0]);
        let near = db.nearest(&[0.8, 0.6], 2);
        assert_eq!(near.iter().map(|n| n.0).collect::<Vec<_>>(), vec![b, a]);
        db.add_score(a, -0.5);
        db.add_score(b, 2.0);
        db.add_score(c, -3.0);
        assert_eq!(db.kept(-std::f64::consts::LN_2), vec![b, a]);
        db.alias(a, "add an owner");
        db.alias(a, "add an owner");
        assert_eq!(db.get(a).aliases, vec!["add owner", "add an owner"]);
    }

    #[test]
    fn the_rank_alone_is_the_best_alone_row_of_that_action() {
        let mut afd = ActionFeatureDb::default();
        let at = ActionRef {
            state: StateId(1),
            action: "click Add".into(),
        };
        let other = ActionRef {
            state: StateId(2),
            action: "click Add".into(),
        };
        let row = |at: &ActionRef, rank, query| AfdRow {
            at: at.clone(),
            feature: FeatureId(0),
            rank,
            rank_score: 0.0,
            query,
        };
        afd.push(row(&at, 3, Query::Alone));
        afd.push(row(&at, 1, Query::AfterPrevious(other.clone())));
        afd.push(row(&other, 2, Query::Alone));
        assert_eq!(afd.rank_alone(&at, FeatureId(0)), Some(3));
        assert_eq!(afd.rank_alone(&at, FeatureId(1)), None);
        assert_eq!(afd.of(FeatureId(0)).count(), 3);
    }
}
