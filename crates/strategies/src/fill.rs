//! Filling in the value of a candidate action before it is performed.

use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Action, ActionKind, Observation};

/// Give `Type` and `Select` actions their value; other actions pass unchanged. A select
/// without options and a target missing from the page keep no value.
pub fn fill_value(
    mut action: Action,
    page: &Observation,
    inputs: &mut dyn InputGenerator,
    rng: &mut ChaCha8Rng,
) -> Action {
    if action.value.is_some() {
        return action;
    }
    let Some(element) = action.target.as_deref().and_then(|t| page.element(t)) else {
        return action;
    };
    action.value = match action.kind {
        ActionKind::Type => Some(inputs.text_for(element, page, rng)),
        ActionKind::Select => inputs.option_for(element, page, rng),
        _ => None,
    };
    action
}
