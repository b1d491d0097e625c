//! wayfarer-features: AutoE2E's feature inference (paper 003, DESIGN 7.6).
//!
//! Every visited state's actions are asked about twice (the action alone; the action after
//! the one that led to its state), each answer a ranked list of feature labels. A label is
//! matched to a known feature (nearest embeddings, then a judge) or inserted; scores move
//! by how much an action raised a feature's rank over the previous action's answer; the
//! features scoring at least ln p are kept, each with the chain of actions it was inferred
//! along. Whoever answers (a model, the [`heuristic`]) and whatever embeds the labels
//! (MiniLM, the hashed fallback) are traits: this crate holds the bookkeeping and the
//! arithmetic, and reads any run's steps ([`explore`]). With a language model, [`llm`]
//! asks it both questions, the heuristic and a cosine threshold behind it.

pub mod db;
pub mod explore;
pub mod heuristic;
pub mod llm;
pub mod model;
pub mod score;
pub mod suite;
#[cfg(test)]
mod testing;

pub use db::{ActionRef, FeatureId};
pub use explore::Exploration;
pub use llm::{with_client, LlmInferrer, LlmJudge, LlmStats};
pub use model::{
    ActionFacts, ActionText, CosineAtLeast, FeatureModel, FeatureQuestion, Inferrer, SameFeature,
    Visit,
};
pub use score::Ranking;

use wayfarer_core::embed::text::EmbedError;

/// Ask about every state of `x` in the order it was found, each after the action that
/// first led to it.
pub fn infer(
    x: &Exploration,
    app: &str,
    inferrer: &mut dyn Inferrer,
    model: &mut FeatureModel,
) -> Result<(), EmbedError> {
    let contexts: Vec<String> = x
        .states
        .iter()
        .map(|s| heuristic::page_subject(&s.title, &s.url))
        .collect();
    for (s, context) in x.states.iter().zip(&contexts) {
        let actions: Vec<ActionText> = s.actions.iter().map(|a| a.text.clone()).collect();
        let previous = s.reached_by.as_ref().and_then(|(from, key)| {
            let i = x.states.iter().position(|p| p.id == *from)?;
            let prev = x.states[i].actions.iter().find(|a| a.text.key == *key)?;
            Some((*from, &prev.text, contexts[i].as_str()))
        });
        let visit = Visit {
            state: s.id,
            context,
            actions: &actions,
            previous,
        };
        model.observe(&visit, app, inferrer)?;
    }
    Ok(())
}
