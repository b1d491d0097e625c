//! Filling in the value of a candidate action before it is performed.

use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Action, ActionKind, Observation, Transition};

/// Give `Type` and `Select` actions their value; other actions pass unchanged. A select
/// without options and a target missing from the page keep no value.
pub fn fill_value(
    action: Action,
    page: &Observation,
    inputs: &mut dyn InputGenerator,
    rng: &mut ChaCha8Rng,
) -> Action {
    fill_noted(action, page, inputs, rng).0
}

/// `fill_value`, with the generator's note on the value when it was asked for one (a
/// boundary value chosen on purpose), for the rationale.
pub(crate) fn fill_noted(
    mut action: Action,
    page: &Observation,
    inputs: &mut dyn InputGenerator,
    rng: &mut ChaCha8Rng,
) -> (Action, Option<String>) {
    if action.value.is_some() {
        return (action, None);
    }
    let Some(element) = action.target.as_deref().and_then(|t| page.element(t)) else {
        return (action, None);
    };
    action.value = match action.kind {
        ActionKind::Type => Some(inputs.text_for(element, page, rng)),
        ActionKind::Select => inputs.option_for(element, page, rng),
        ActionKind::Upload => Some(inputs.file_for(element, page, rng)),
        _ => return (action, None),
    };
    (action, inputs.note())
}

/// `why`, followed by the generator's note when there is one.
pub(crate) fn with_note(why: String, note: Option<String>) -> String {
    match note {
        Some(n) => format!("{why}; {n}"),
        None => why,
    }
}

/// Tell the input generator what a step did: the pages and events (was the form
/// accepted?), then, where the server's coverage was read, the server code it newly ran. A
/// step that could not be performed says nothing about the page.
pub(crate) fn teach(inputs: &mut dyn InputGenerator, t: &Transition<'_>) {
    if t.failed {
        return;
    }
    inputs.learn(t.observation, t.action, t.next_observation, t.events);
    if let Some(lines) = t.novelty.server_lines {
        inputs.learn_server(t.observation, t.action, lines);
    }
}
