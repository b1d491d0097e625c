//! wayfarer-features: AutoE2E's feature inference (paper 003, DESIGN 7.6).
//!
//! Every visited state's actions are asked about twice (the action alone; the action after
//! the one that led to its state), each answer a ranked list of feature labels. A label is
//! matched to a known feature (nearest embeddings, then a judge) or inserted; scores move
//! by how much an action raised a feature's rank over the previous action's answer; the
//! features scoring at least ln p are kept, each with the chain of actions it was inferred
//! along. Whoever answers (a model, the heuristic) and whatever embeds the labels (MiniLM,
//! the hashed fallback) are traits: this crate holds the bookkeeping and the arithmetic.

pub mod db;
pub mod model;
pub mod score;

pub use db::{ActionRef, FeatureId};
pub use model::{
    ActionText, CosineAtLeast, FeatureModel, FeatureQuestion, Inferrer, SameFeature, Visit,
};
pub use score::Ranking;
