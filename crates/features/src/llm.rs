//! The language model answers AutoE2E's two questions (DESIGN 7.6), the offline rules
//! behind it: [`LlmInferrer`] asks for each action's features and falls back to
//! [`Heuristic`] for a question without a usable answer; [`LlmJudge`] asks whether two
//! labels are one feature only when their cosine leaves it open, and falls back to the
//! cosine threshold. [`LlmStats`] counts who answered, for the command to print.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use wayfarer_llm::{FeatureAsk, LlmClient, SharedClient};

use crate::heuristic::Heuristic;
use crate::model::{FeatureQuestion, Inferrer, SameFeature};

/// Labels whose cosine is in `[lo, hi)` are asked about; below they differ, at or above
/// they are the same (nothing asked).
pub const GREY_ZONE: (f64, f64) = (0.5, 0.95);
/// The judge's decision, by cosine, when the model gives none.
pub const SAME_COSINE: f64 = 0.8;

/// Who answered the feature model's questions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LlmStats {
    /// Feature questions the model (or its cache) answered.
    pub features_model: u64,
    /// Feature questions the heuristic answered: no model, a failed or unreadable answer.
    pub features_fallback: u64,
    /// Same-feature questions the model (or its cache) answered.
    pub same_model: u64,
    /// Same-feature questions decided by `SAME_COSINE` after no usable answer.
    pub same_fallback: u64,
    /// Same-feature decisions outside the grey zone: the cosine alone, nothing asked.
    pub same_by_cosine: u64,
}

impl fmt::Display for LlmStats {
    /// `the model answered 40 of 52 feature questions (12 by the heuristic) and 3 of 4
    /// same-feature questions (17 decided by cosine alone)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let features = self.features_model + self.features_fallback;
        let same = self.same_model + self.same_fallback;
        write!(
            f,
            "the model answered {} of {features} feature questions ({} by the heuristic) \
             and {} of {same} same-feature questions ({} decided by cosine alone)",
            self.features_model, self.features_fallback, self.same_model, self.same_by_cosine
        )
    }
}

type SharedStats = Arc<Mutex<LlmStats>>;

fn count(stats: &SharedStats, f: impl FnOnce(&mut LlmStats)) {
    f(&mut stats.lock().unwrap_or_else(|p| p.into_inner()));
}

fn lock(client: &SharedClient) -> MutexGuard<'_, LlmClient> {
    client.lock().unwrap_or_else(|p| p.into_inner())
}

/// The inferrer and the judge of one feature model, asking `client` (one built by
/// `wayfarer_llm::from_config`, or `LlmClient::heuristic()`, which never answers, so the
/// heuristic and the threshold decide everything). `app` describes the application to
/// the judge (the inferrer reads it from each question). They share one `LlmStats`.
pub fn with_client(client: SharedClient, app: &str) -> (LlmInferrer, LlmJudge) {
    let stats = SharedStats::default();
    let inferrer = LlmInferrer {
        client: Arc::clone(&client),
        fallback: Heuristic,
        stats: Arc::clone(&stats),
    };
    let judge = LlmJudge {
        client,
        app: app.to_string(),
        grey: GREY_ZONE,
        threshold: SAME_COSINE,
        stats,
    };
    (inferrer, judge)
}

/// Feature labels from the model, the heuristic's for a question without a usable answer.
pub struct LlmInferrer {
    client: SharedClient,
    fallback: Heuristic,
    stats: SharedStats,
}

impl LlmInferrer {
    /// Who answered so far (the judge's questions included).
    pub fn stats(&self) -> LlmStats {
        *self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Inferrer for LlmInferrer {
    fn features(&mut self, q: &FeatureQuestion<'_>) -> Vec<String> {
        let ask = FeatureAsk {
            app: q.app,
            context: q.context,
            action: &q.action.text,
            previous: q.previous.map(|p| (p.text.as_str(), q.previous_context)),
            r: q.r,
        };
        let answer = lock(&self.client).features(&ask);
        match answer {
            Ok((labels, _)) => {
                count(&self.stats, |s| s.features_model += 1);
                labels
            }
            Err(why) => {
                tracing::debug!(action = %q.action.text, "features by the heuristic: {why}");
                count(&self.stats, |s| s.features_fallback += 1);
                self.fallback.features(q)
            }
        }
    }
}

/// Whether two labels are one feature: the model's word when their cosine is in the grey
/// zone, else (or without a usable answer) the cosine's.
pub struct LlmJudge {
    client: SharedClient,
    app: String,
    grey: (f64, f64),
    threshold: f64,
    stats: SharedStats,
}

impl LlmJudge {
    /// Ask only for cosines in `[lo, hi)` (default `GREY_ZONE`).
    pub fn with_grey_zone(mut self, lo: f64, hi: f64) -> LlmJudge {
        self.grey = (lo, hi);
        self
    }

    /// The same feature at this cosine when the model gives no answer (default
    /// `SAME_COSINE`).
    pub fn with_threshold(mut self, threshold: f64) -> LlmJudge {
        self.threshold = threshold;
        self
    }

    /// Who answered so far (the inferrer's questions included).
    pub fn stats(&self) -> LlmStats {
        *self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl SameFeature for LlmJudge {
    fn same(&mut self, new: &str, known: &str, cosine: f64) -> bool {
        let (lo, hi) = self.grey;
        if cosine < lo || cosine >= hi {
            count(&self.stats, |s| s.same_by_cosine += 1);
            return cosine >= hi;
        }
        let answer = lock(&self.client).same_feature(&self.app, new, known);
        match answer {
            Ok((same, _)) => {
                count(&self.stats, |s| s.same_model += 1);
                same
            }
            Err(why) => {
                tracing::debug!(new, known, cosine, "same feature by cosine: {why}");
                count(&self.stats, |s| s.same_fallback += 1);
                cosine >= self.threshold
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use wayfarer_core::llm::MemoryCache;
    use wayfarer_core::ActionKind;
    use wayfarer_llm::{LlmError, Provider, Reply, Request};

    use super::*;
    use crate::model::{ActionFacts, ActionText};

    /// Answers from a script, then fails.
    struct Scripted(VecDeque<&'static str>);

    impl Provider for Scripted {
        fn name(&self) -> &str {
            "openai"
        }
        fn model(&self) -> &str {
            "m"
        }
        fn complete(&mut self, _: &Request<'_>) -> Result<Reply, LlmError> {
            let text = self.0.pop_front().ok_or(LlmError::Empty)?;
            Ok(Reply {
                text: text.into(),
                ..Reply::default()
            })
        }
    }

    fn client(replies: &[&'static str]) -> SharedClient {
        let p = Scripted(replies.iter().copied().collect());
        LlmClient::new(Box::new(p), Box::new(MemoryCache::default())).shared()
    }

    fn submit() -> ActionText {
        let facts = ActionFacts {
            kind: Some(ActionKind::Click),
            role: Some("button".into()),
            name: "Add Owner".into(),
            fields: vec!["City".into()],
            ..ActionFacts::default()
        };
        ActionText {
            key: "click #save".into(),
            text: crate::explore::describe(&facts),
            facts,
        }
    }

    fn question(a: &ActionText) -> FeatureQuestion<'_> {
        FeatureQuestion {
            app: "PetClinic",
            context: "New owner",
            action: a,
            previous: None,
            previous_context: "",
            r: 3,
        }
    }

    #[test]
    fn the_model_names_features_and_the_heuristic_stands_in_when_it_cannot() {
        let (mut inferrer, judge) = with_client(
            client(&["1. Register an owner\n2. Add a pet", "Sorry, I cannot."]),
            "PetClinic",
        );
        let a = submit();
        let q = question(&a);
        assert_eq!(inferrer.features(&q), ["Register an owner", "Add a pet"]);
        // The same question again comes from the cache, still the model's.
        assert_eq!(inferrer.features(&q), ["Register an owner", "Add a pet"]);
        let other = FeatureQuestion {
            context: "Owner form",
            ..q
        };
        // Unreadable, then failing: the heuristic's label both times.
        assert_eq!(inferrer.features(&other), ["Add Owner"]);
        let third = FeatureQuestion { r: 2, ..other };
        assert_eq!(inferrer.features(&third), ["Add Owner"]);
        let s = judge.stats();
        assert_eq!((s.features_model, s.features_fallback), (2, 2));
        assert_eq!(inferrer.stats(), s);
    }

    #[test]
    fn the_judge_asks_only_in_the_grey_zone_and_falls_back_to_the_threshold() {
        let (inferrer, mut judge) = with_client(client(&["No.", "YES", "perhaps"]), "app");
        assert!(!judge.same("Add an owner", "Delete a pet", 0.2));
        assert!(judge.same("Add an owner", "Add owner", 0.97));
        assert!(!judge.same("Add an owner", "Edit an owner", 0.85));
        assert!(judge.same("Register an owner", "Add an owner", 0.6));
        // Unreadable: the threshold decides either way.
        assert!(!judge.same("Find owners", "Find pets", 0.7));
        assert!(judge.same("Find owners", "Find an owner", 0.9));
        let s = inferrer.stats();
        assert_eq!((s.same_model, s.same_fallback, s.same_by_cosine), (2, 2, 2));
        assert_eq!(
            s.to_string(),
            "the model answered 0 of 0 feature questions (0 by the heuristic) and 2 of 4 \
             same-feature questions (2 decided by cosine alone)"
        );
    }

    #[test]
    fn without_a_model_the_heuristic_and_the_threshold_decide() {
        let (mut inferrer, mut judge) = with_client(LlmClient::heuristic().shared(), "app");
        let a = submit();
        assert_eq!(inferrer.features(&question(&a)), ["Add Owner"]);
        assert!(judge.same("a", "b", 0.8));
        assert!(!judge.same("a", "b", 0.79));
        let mut judge = judge.with_grey_zone(0.0, 1.0).with_threshold(0.5);
        assert!(judge.same("a", "b", 0.6));
        let s = inferrer.stats();
        assert_eq!((s.features_model, s.features_fallback), (0, 1));
        assert_eq!((s.same_model, s.same_fallback), (0, 3));
    }
}
