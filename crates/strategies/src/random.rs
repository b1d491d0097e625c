//! `random` (DESIGN 7.1): uniform over the candidate actions, values from the random
//! generator. The baseline every other strategy is measured against.
//!
//! With several workers: nothing is learned, so nothing is shared. Each worker's agent
//! types from its own fork of the input generator (what a mutating generator learns
//! about one browser's forms stays with it) and keeps its own rationale.

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Action, Agent, Transition, View};

use crate::fill::fill_noted;
use crate::registry::{Kind, Model};

/// `random` (DESIGN 7.1): uniform over the candidates.
pub(crate) const KIND: Kind = Kind {
    name: "random",
    summary: "uniform over the candidates (DESIGN 7.1)",
    inputs: "random+mutate",
    model: Model::None,
    settings: None,
    episode_steps: |_| crate::DEFAULT_EPISODE_STEPS,
    build: |b| Ok(Box::new(RandomAgent::new(b.inputs))),
};

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

    fn worker(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(RandomAgent::new(self.inputs.fork())))
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
        crate::fill::teach(self.inputs.as_mut(), t);
    }

    fn rationale(&self) -> Option<String> {
        self.note.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    use wayfarer_core::{ActionKind, Analysis, Element, Observation, StateId};

    /// Types how many values it typed before, and counts the forks made of it.
    struct Counting {
        typed: u32,
        forks: Arc<AtomicU32>,
    }

    impl InputGenerator for Counting {
        fn fork(&self) -> Box<dyn InputGenerator + Send> {
            self.forks.fetch_add(1, Ordering::SeqCst);
            Box::new(Counting {
                typed: self.typed,
                forks: self.forks.clone(),
            })
        }
        fn name(&self) -> &str {
            "counting"
        }
        fn text_for(&mut self, _: &Element, _: &Observation, _: &mut ChaCha8Rng) -> String {
            self.typed += 1;
            self.typed.to_string()
        }
    }

    #[test]
    fn a_worker_types_from_its_own_fork_of_the_inputs() {
        let forks = Arc::new(AtomicU32::new(0));
        let mut first = RandomAgent::new(Box::new(Counting {
            typed: 0,
            forks: forks.clone(),
        }));
        let mut second = first.worker().expect("random runs with workers");
        assert_eq!(forks.load(Ordering::SeqCst), 1);
        let page = Observation {
            elements: vec![Element {
                locator: "#q".into(),
                tag: "input".into(),
                input_type: Some("text".into()),
                actionable: vec!["tag:input".into()],
                visible: true,
                enabled: true,
                ..Element::default()
            }],
            ..Observation::default()
        };
        let an = Analysis::new(StateId(0), "u".into());
        let acts = [Action::on(ActionKind::Type, "#q")];
        let view = View {
            observation: &page,
            analysis: &an,
            actions: &acts,
            episode_step: 0,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        // Each generator counts only its own typing.
        assert_eq!(first.choose(&view, &mut rng).value.as_deref(), Some("1"));
        assert_eq!(first.choose(&view, &mut rng).value.as_deref(), Some("2"));
        assert_eq!(second.choose(&view, &mut rng).value.as_deref(), Some("1"));
        assert_eq!(second.name(), "random");
    }
}
