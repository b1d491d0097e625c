//! `random` (DESIGN 7.1): uniform over the candidate actions, values from the random
//! generator. The baseline every other strategy is measured against.

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Action, Agent, Transition, View};

use crate::fill::fill_noted;

#[derive(Clone)]
pub struct RandomAgent {
    inputs: Box<dyn InputGenerator + Send>,
    /// The generator's note on the last value typed, when it chose one on purpose.
    note: Option<String>,
}

impl RandomAgent {
    pub fn new(inputs: Box<dyn InputGenerator + Send>) -> RandomAgent {
        RandomAgent { inputs, note: None }
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
        let (action, note) = fill_noted(action, view.observation, self.inputs.as_mut(), rng);
        self.note = note;
        action
    }

    fn learn(&mut self, t: &Transition<'_>) {
        // A step that could not be performed says nothing about the page.
        if !t.failed {
            self.inputs
                .learn(t.observation, t.action, t.next_observation, t.events);
        }
    }

    fn rationale(&self) -> Option<String> {
        self.note.clone()
    }
}
