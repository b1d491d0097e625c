//! What the store's tests share: an agent that makes real runs to store.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::{Action, Agent, View};

/// Picks uniformly; types "x" where a value is needed.
pub struct Uniform;

impl Agent for Uniform {
    fn name(&self) -> &str {
        "uniform"
    }
    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let a = view.actions[rng.gen_range(0..view.actions.len())].clone();
        if a.kind == wayfarer_core::ActionKind::Type {
            a.with_value("x")
        } else {
            a
        }
    }
}
