//! wayfarer-strategies: the agents that choose what to do next.
//!
//! Each strategy implements `wayfarer_core::Agent`. They see observations, abstract
//! states and candidate actions, and get values to type from an `InputGenerator`; none
//! knows about CDP. `by_name` builds one from the CLI's `--strategy`.
//!
//! - `random` (DESIGN 7.1): uniform over the candidates.
//! - `bfs`, `dfs` (DESIGN 7.2): model-based crawling of every (state, action) pair.
//! - `webexplor` (DESIGN 7.3): curiosity-driven Q-learning guided by an automaton.
//!
//! The memory-based ones share `Memory` (the automaton and the concrete steps of each
//! transition) and `Route` (replaying a known path, with where it broke).

mod crawl;
pub mod dfa;
mod fill;
mod form;
mod memory;
mod random;
mod route;
mod setup;
mod snapshot;
mod webexplor;

use wayfarer_core::config::StrategyConfig;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::Agent;

pub use crawl::{CrawlAgent, Order};
pub use fill::fill_value;
pub use random::RandomAgent;
pub use setup::{setup, Setup, SetupError};
pub use webexplor::WebExplorAgent;

/// The strategies this build offers.
pub const NAMES: &[&str] = &["random", "bfs", "dfs", "webexplor"];

/// The strategy `explore` and `demo` use when neither a flag nor the configuration names
/// one: webexplor, whose curiosity reward keeps it moving to pages it has not seen and whose
/// automaton takes it back to them, so it reaches the deep forms where bugs hide; the bench
/// of issue 13 (README, "Which strategy") measured it against random.
pub const DEFAULT: &str = "webexplor";

/// A `--strategy` name that is not one of `NAMES`.
#[derive(Debug, thiserror::Error)]
#[error("unknown strategy {0:?}; available: {names}", names = NAMES.join(", "))]
pub struct UnknownStrategy(pub String);

/// Build the strategy called `name` with its parameters from `config`, typing values
/// from `inputs`.
pub fn by_name(
    name: &str,
    config: &StrategyConfig,
    inputs: Box<dyn InputGenerator + Send>,
) -> Result<Box<dyn Agent + Send>, UnknownStrategy> {
    match name {
        "random" => Ok(Box::new(RandomAgent::new(inputs))),
        "bfs" => Ok(Box::new(CrawlAgent::new(
            Order::Breadth,
            config.crawl.clone(),
            inputs,
        ))),
        "dfs" => Ok(Box::new(CrawlAgent::new(
            Order::Depth,
            config.crawl.clone(),
            inputs,
        ))),
        "webexplor" => Ok(Box::new(WebExplorAgent::new(
            config.webexplor.clone(),
            inputs,
        ))),
        other => Err(UnknownStrategy(other.to_string())),
    }
}

/// The input generator a strategy uses when the configuration names none: its base
/// generator with the `mutate` layer on top (boundary values once a form was accepted);
/// naming a plain generator (`--inputs heuristic`) turns mutation off.
pub fn default_inputs(name: &str) -> &'static str {
    match name {
        "random" => "random+mutate",
        _ => "heuristic+mutate",
    }
}

/// Steps per episode when neither a flag nor `budget.episode_steps` says.
pub fn default_episode_steps(name: &str, config: &StrategyConfig) -> u32 {
    match name {
        "webexplor" => config.webexplor.episode_steps,
        "bfs" | "dfs" => config.crawl.episode_steps,
        _ => 50,
    }
}
