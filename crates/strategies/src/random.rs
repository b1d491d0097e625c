//! `random` (DESIGN 7.1): uniform over the candidate actions, values from the random
//! generator. The baseline every other strategy is measured against.

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Action, Agent, View};

use crate::fill::fill_value;

#[derive(Clone)]
pub struct RandomAgent {
    inputs: Box<dyn InputGenerator + Send>,
}

impl RandomAgent {
    pub fn new(inputs: Box<dyn InputGenerator + Send>) -> RandomAgent {
        RandomAgent { inputs }
    }
}

impl Agent for RandomAgent {
    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(self.clone()))
    }

    fn name(&self) -> &str {
        "random"
    }

    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let action = view
            .actions
            .choose(rng)
            .cloned()
            .unwrap_or_else(Action::back);
        fill_value(action, view.observation, self.inputs.as_mut(), rng)
    }
}
