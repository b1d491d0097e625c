//! The feature model: each visited state's actions asked about twice (alone, and after the
//! action that led there), each answer's labels matched to known features or inserted,
//! scores updated (paper 003, equation 8), and the action chain of each kept feature.

use std::collections::HashMap;

use wayfarer_core::embed::text::{EmbedError, TextEmbedder};
use wayfarer_core::{ActionKind, StateId};

use crate::db::{ActionFeatureDb, ActionRef, AfdRow, FeatureDb, FeatureId, Query};
use crate::score::Ranking;

/// An action as it is described to whoever infers features (`click button "Add Owner"
/// after filling "City"`), with its key in its state and the facts a heuristic reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActionText {
    pub key: String,
    pub text: String,
    pub facts: ActionFacts,
}

/// What is known about an action's target.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActionFacts {
    pub kind: Option<ActionKind>,
    pub tag: String,
    /// ARIA role, explicit or implied ("link", "button").
    pub role: Option<String>,
    /// Accessible name ("Add Owner").
    pub name: String,
    /// A link's `href`, as written.
    pub href: Option<String>,
    /// The labels of the fields filled on the page before it, when it submitted them.
    pub fields: Vec<String>,
}

/// One question: the features an action (after the previous one, when given) is part of.
#[derive(Clone, Copy, Debug)]
pub struct FeatureQuestion<'a> {
    /// What the application is, in a sentence.
    pub app: &'a str,
    /// What the page is for, in a line.
    pub context: &'a str,
    pub action: &'a ActionText,
    pub previous: Option<&'a ActionText>,
    /// What the page of the previous action was for.
    pub previous_context: &'a str,
    /// Features to list at most, most likely first.
    pub r: usize,
}

/// Whoever answers: a language model, or the offline heuristic.
pub trait Inferrer {
    /// Feature labels, most likely first, at most `q.r` (more are cut).
    fn features(&mut self, q: &FeatureQuestion<'_>) -> Vec<String>;
}

/// Decides whether a newly inferred label names a feature already known.
pub trait SameFeature {
    fn same(&mut self, new: &str, known: &str, cosine: f64) -> bool;
}

/// The offline decision: the same feature when the labels' cosine reaches the threshold.
#[derive(Clone, Copy, Debug)]
pub struct CosineAtLeast(pub f64);

impl SameFeature for CosineAtLeast {
    fn same(&mut self, _new: &str, _known: &str, cosine: f64) -> bool {
        cosine >= self.0
    }
}

/// A visited state, as the model sees it.
#[derive(Clone, Debug)]
pub struct Visit<'a> {
    pub state: StateId,
    /// What the page is for, in a line.
    pub context: &'a str,
    pub actions: &'a [ActionText],
    /// The action that led here, the state it was taken in and what that page was for;
    /// `None` for the start.
    pub previous: Option<(StateId, &'a ActionText, &'a str)>,
}

/// Known features closer than this (cosine) are asked about; farther ones never match.
const CANDIDATE_FLOOR: f64 = 0.3;
/// Known features asked about per new label at most.
const CANDIDATES: usize = 3;

/// The two databases and how labels are embedded and matched.
pub struct FeatureModel {
    pub ranking: Ranking,
    pub db: FeatureDb,
    pub afd: ActionFeatureDb,
    embedder: Box<dyn TextEmbedder>,
    judge: Box<dyn SameFeature>,
    /// Labels already resolved, so one label is embedded and judged once.
    resolved: HashMap<String, FeatureId>,
    questions: u64,
}

impl FeatureModel {
    pub fn new(
        ranking: Ranking,
        embedder: Box<dyn TextEmbedder>,
        judge: Box<dyn SameFeature>,
    ) -> FeatureModel {
        FeatureModel {
            ranking,
            db: FeatureDb::default(),
            afd: ActionFeatureDb::default(),
            embedder,
            judge,
            resolved: HashMap::new(),
            questions: 0,
        }
    }

    /// What embeds the labels.
    pub fn embedder_name(&self) -> String {
        self.embedder.name()
    }

    /// Questions asked so far.
    pub fn questions(&self) -> u64 {
        self.questions
    }

    /// The feature a label names: a known one the judge calls the same, else a new one
    /// (`true`: inserted now).
    pub fn resolve(&mut self, label: &str) -> Result<(FeatureId, bool), EmbedError> {
        let key = label.trim().to_lowercase();
        if let Some(id) = self.resolved.get(&key) {
            return Ok((*id, false));
        }
        let v = self.embedder.embed(&[label])?.pop().unwrap_or_default();
        let mut found = None;
        for (id, cos) in self.db.nearest(&v, CANDIDATES) {
            if cos < CANDIDATE_FLOOR {
                break;
            }
            if self.judge.same(label, &self.db.get(id).label, cos) {
                found = Some(id);
                break;
            }
        }
        let (id, new) = match found {
            Some(id) => {
                self.db.alias(id, label.trim());
                (id, false)
            }
            None => (self.db.insert(label.trim(), v), true),
        };
        self.resolved.insert(key, id);
        Ok((id, new))
    }

    /// An answer's features with their best rank (two labels may name one feature), and
    /// whether each was inserted by this answer.
    fn ranked(&mut self, labels: Vec<String>) -> Result<Vec<(FeatureId, usize, bool)>, EmbedError> {
        let mut out: Vec<(FeatureId, usize, bool)> = Vec::new();
        for (i, label) in labels.into_iter().take(self.ranking.r).enumerate() {
            if label.trim().is_empty() {
                continue;
            }
            let (id, new) = self.resolve(&label)?;
            if !out.iter().any(|(f, _, _)| *f == id) {
                out.push((id, i + 1, new));
            }
        }
        Ok(out)
    }

    /// Ask about every action of a visited state and update the scores.
    pub fn observe(
        &mut self,
        visit: &Visit<'_>,
        app: &str,
        inferrer: &mut dyn Inferrer,
    ) -> Result<(), EmbedError> {
        let r = self.ranking.r;
        for action in visit.actions {
            let at = ActionRef {
                state: visit.state,
                action: action.key.clone(),
            };
            let alone = FeatureQuestion {
                app,
                context: visit.context,
                action,
                previous: None,
                previous_context: "",
                r,
            };
            self.questions += 1;
            let labels = inferrer.features(&alone);
            for (feature, rank, new) in self.ranked(labels)? {
                let rank_score = self.ranking.score(Some(rank));
                self.afd.push(AfdRow {
                    at: at.clone(),
                    feature,
                    rank,
                    rank_score,
                    query: Query::Alone,
                });
                // A new feature's chain starts here: the first term of equation 5 is
                // rank_score(F | A_1). (Ours: the paper inserts at 0 and only updates
                // after a previous action, which keeps every feature never seen after
                // one at 0, above all that were.)
                if new {
                    self.db.add_score(feature, rank_score);
                }
            }
            let Some((prev_state, prev, prev_context)) = visit.previous else {
                continue;
            };
            let prev_ref = ActionRef {
                state: prev_state,
                action: prev.key.clone(),
            };
            let after = FeatureQuestion {
                previous: Some(prev),
                previous_context: prev_context,
                ..alone
            };
            self.questions += 1;
            let labels = inferrer.features(&after);
            for (feature, rank, new) in self.ranked(labels)? {
                let before = self.afd.rank_alone(&prev_ref, feature);
                // New here: its chain starts at the previous action, which did not list
                // it (so the sum is rank_score(F | A_i, A_{i-1})).
                if new {
                    self.db.add_score(feature, self.ranking.score(None));
                }
                self.db
                    .add_score(feature, self.ranking.update(Some(rank), before));
                self.afd.push(AfdRow {
                    at: at.clone(),
                    feature,
                    rank,
                    rank_score: self.ranking.score(Some(rank)),
                    query: Query::AfterPrevious(prev_ref.clone()),
                });
            }
        }
        Ok(())
    }

    /// The features kept (score at least ln p), best first.
    pub fn kept(&self) -> Vec<FeatureId> {
        self.db.kept(self.ranking.cutoff())
    }

    /// The action chain of `feature`: from each row, back through the previous actions
    /// while the feature was inferred for them too (preferring, at each action, a row
    /// asked after a previous one); the longest such chain, then the one ending in the
    /// best rank score, then the latest. The first action's state must still be reached
    /// from the start; consecutive actions are adjacent.
    pub fn chain(&self, feature: FeatureId) -> Vec<ActionRef> {
        let rows: Vec<&AfdRow> = self.afd.of(feature).collect();
        let mut best: Option<(Vec<ActionRef>, f64)> = None;
        for end in &rows {
            let chain = tidy(self.back_from(end, &rows));
            // `>=`: the later row wins a tie.
            let better = best
                .as_ref()
                .is_none_or(|(c, score)| (chain.len(), end.rank_score) >= (c.len(), *score));
            if better {
                best = Some((chain, end.rank_score));
            }
        }
        best.map(|(c, _)| c).unwrap_or_default()
    }

    /// The chain ending at `end`, first action first.
    fn back_from(&self, end: &AfdRow, rows: &[&AfdRow]) -> Vec<ActionRef> {
        let mut chain = vec![end.at.clone()];
        let mut row = end;
        while let Query::AfterPrevious(prev) = &row.query {
            if chain.contains(prev) {
                break;
            }
            // At the previous action: a row asked after its own previous action first.
            let Some(next) = rows
                .iter()
                .filter(|r| r.at == *prev)
                .max_by_key(|r| matches!(r.query, Query::AfterPrevious(_)))
            else {
                break;
            };
            chain.push(prev.clone());
            row = next;
        }
        chain.reverse();
        chain
    }
}

/// A chain without what a person would not do again: it ends before an action it
/// already took (a menu link clicked again, from its own page or later, starts another
/// visit, not more of the feature).
fn tidy(mut chain: Vec<ActionRef>) -> Vec<ActionRef> {
    if let Some(k) =
        (1..chain.len()).find(|&k| chain[..k].iter().any(|a| a.action == chain[k].action))
    {
        chain.truncate(k);
    }
    chain
}

#[cfg(test)]
mod tests;
