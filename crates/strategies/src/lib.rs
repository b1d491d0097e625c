//! wayfarer-strategies: the agents that choose what to do next.
//!
//! Each strategy implements `wayfarer_core::Agent`. They see observations, abstract
//! states and candidate actions, and get values to type from an `InputGenerator`; none
//! knows about CDP. `by_name` builds one from the CLI's `--strategy`.

pub mod dfa;
mod fill;
mod random;

use wayfarer_core::input::InputGenerator;
use wayfarer_core::Agent;

pub use fill::fill_value;
pub use random::RandomAgent;

/// The strategies this build offers.
pub const NAMES: &[&str] = &["random"];

/// A `--strategy` name that is not one of `NAMES`.
#[derive(Debug, thiserror::Error)]
#[error("unknown strategy {0:?}; available: {names}", names = NAMES.join(", "))]
pub struct UnknownStrategy(pub String);

/// Build the strategy called `name`, typing values from `inputs`.
pub fn by_name(
    name: &str,
    inputs: Box<dyn InputGenerator + Send>,
) -> Result<Box<dyn Agent + Send>, UnknownStrategy> {
    match name {
        "random" => Ok(Box::new(RandomAgent::new(inputs))),
        other => Err(UnknownStrategy(other.to_string())),
    }
}

/// The input generator a strategy uses when the configuration names none.
pub fn default_inputs(name: &str) -> &'static str {
    match name {
        "random" => "random",
        _ => "heuristic",
    }
}
