//! The `Agent` trait: a strategy that picks the next action. Strategies see observations,
//! abstract states and candidate actions, never CDP.

use rand_chacha::ChaCha8Rng;

use crate::model::{Action, Event, Observation};
use crate::state::{Analysis, StateId};

/// What an agent sees when it decides.
pub struct View<'a> {
    pub observation: &'a Observation,
    pub analysis: &'a Analysis,
    /// Candidate actions in this state, without input values (deny rules applied).
    pub actions: &'a [Action],
    /// Steps taken in this episode so far.
    pub episode_step: u32,
}

impl View<'_> {
    pub fn state(&self) -> StateId {
        self.analysis.state
    }
}

/// One step as the agent learns from it.
pub struct Transition<'a> {
    pub state: StateId,
    pub action: &'a Action,
    pub next_state: StateId,
    pub next_observation: &'a Observation,
    pub events: &'a [Event],
    /// The next state had never been seen in this run.
    pub new_state: bool,
}

/// A strategy. One seeded generator is handed in for every random choice, so the same
/// seed against a deterministic application gives the same actions.
pub trait Agent {
    fn name(&self) -> &str;

    /// Pick an action among `view.actions` (or any other action), with values filled in.
    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action;

    fn learn(&mut self, _transition: &Transition<'_>) {}

    fn on_episode_end(&mut self) {}
}
