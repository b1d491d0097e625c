//! wayfarer-strategies: the agents that choose what to do next.
//!
//! Each strategy implements `wayfarer_core::Agent`. They see observations, abstract
//! states and candidate actions, and get values to type from an `InputGenerator`; none
//! knows about CDP. `registry::KINDS` lists them once (a strategy is its file and one
//! line there); `by_name` builds one from the CLI's `--strategy`.
//!
//! - `random` (DESIGN 7.1): uniform over the candidates.
//! - `bfs`, `dfs` (DESIGN 7.2): model-based crawling of every (state, action) pair.
//! - `webexplor` (DESIGN 7.3): curiosity-driven Q-learning guided by an automaton.
//! - `guided` (ours, issue 40): actions valued by what they newly caused in the page
//!   (scripts, endpoints, pages, functions), untried ones first, links to kinds of page
//!   never shown followed directly, long episodes.
//! - `webrled` (DESIGN 7.4) and its ablations `webrled+`, `webrled-`, `webrled*`: deep
//!   Q-learning over grid cells of the page, an action discriminator for controls no rule
//!   sees, an episodic x global novelty reward (networks from `wayfarer-ml`).
//! - `vetl` (DESIGN 7.5) and its variants `vetl-v1`, `vetl-lv`, `vetl-l`, `vetl-h`: every
//!   empty field filled from its context (a model through `wayfarer-llm`, or the
//!   heuristic), the button each value belongs to, a bandit over the targets.
//!
//! The memory-based ones share `Memory` (the automaton and the concrete steps of each
//! transition) and `Route` (replaying a known path, with where it broke).
//!
//! Every strategy runs with several workers (`Agent::worker`): the workers' agents learn
//! into one mind behind a lock and keep their own episode (route, typed values, page
//! plan); each module's "With several workers" paragraph says what is shared and how it
//! merges. `fork` stays a deep copy, so state inference's trials teach the run nothing.

mod crawl;
pub mod dfa;
mod fill;
mod form;
mod guided;
mod memory;
mod random;
pub mod registry;
mod route;
pub mod settings;
mod setup;
mod snapshot;
mod vetl;
mod webexplor;
mod webrled;

/// What the strategies' unit tests share.
#[cfg(test)]
mod testing {
    use rand_chacha::ChaCha8Rng;
    use wayfarer_core::input::InputGenerator;
    use wayfarer_core::{Element, Observation};

    /// Types "x" everywhere.
    pub struct Fixed;

    impl InputGenerator for Fixed {
        fn fork(&self) -> Box<dyn InputGenerator + Send> {
            Box::new(Fixed)
        }
        fn name(&self) -> &str {
            "fixed"
        }
        fn text_for(&mut self, _: &Element, _: &Observation, _: &mut ChaCha8Rng) -> String {
            "x".into()
        }
    }
}

use wayfarer_core::config::StrategyConfig;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::Agent;
use wayfarer_core::Config;

pub use crawl::{CrawlAgent, CrawlConfig, Order};
pub use fill::fill_value;
pub use guided::{GuidedAgent, GuidedConfig};
pub use random::RandomAgent;
pub use setup::{input_names, setup, Setup, SetupError};
pub use vetl::{VetlAgent, VetlConfig, VetlVariant};
pub use webexplor::{WebExplorAgent, WebExplorConfig};
pub use webrled::{CellValue, Variant, WebRledAgent, WebRledConfig};

/// Steps per episode of a strategy that names none of its own.
pub const DEFAULT_EPISODE_STEPS: u32 = 50;

/// The strategy `explore` and `demo` use when neither a flag nor the configuration names
/// one: guided, which goes where the page newly shows something and sends the forms it
/// finds with values left to try; measured against webexplor on the bundled apps and the
/// ten real ones (docs/src/strategies.md, "Which strategy by default", issue 40).
pub const DEFAULT: &str = "guided";

/// Why a strategy could not be built.
#[derive(Debug, thiserror::Error)]
pub enum StrategyError {
    /// A `--strategy` name that is not one of `registry::KINDS`.
    #[error("unknown strategy {0:?}; available: {names}", names = registry::names().join(", "))]
    Unknown(String),
    /// A strategy's table of the configuration, `[strategy.NAME]`, that it cannot read.
    #[error("{0}")]
    Settings(String),
    /// The networks of `--networks DIR` (`strategy.webrled.model`) could not be loaded.
    #[error("{strategy}: cannot start from the saved networks: {source}")]
    Model {
        strategy: String,
        #[source]
        source: Box<wayfarer_ml::MlError>,
    },
}

/// Build the strategy called `name` with its parameters from `config` (its `[strategy]`
/// section; webrled also reads `abstraction.dims`), typing values from `inputs`. The vetl
/// variants ask the heuristic provider for interested elements; `by_name_with` gives them
/// a model.
pub fn by_name(
    name: &str,
    config: &Config,
    inputs: Box<dyn InputGenerator + Send>,
) -> Result<Box<dyn Agent + Send>, StrategyError> {
    by_name_with(name, config, inputs, None)
}

/// `by_name`, with the LLM client the vetl variants ask (`None`: the heuristic provider).
pub fn by_name_with(
    name: &str,
    config: &Config,
    inputs: Box<dyn InputGenerator + Send>,
    llm: Option<wayfarer_llm::SharedClient>,
) -> Result<Box<dyn Agent + Send>, StrategyError> {
    let kind = registry::kind(name).ok_or_else(|| StrategyError::Unknown(name.to_string()))?;
    (kind.build)(registry::Build {
        config,
        inputs,
        llm,
    })
}

/// The input generator a strategy uses when the configuration names none: its base
/// generator with the `mutate` layer on top (boundary values once a form was accepted);
/// naming a plain generator (`--inputs heuristic`) turns mutation off.
pub fn default_inputs(name: &str) -> &'static str {
    registry::kind(name).map_or("heuristic+mutate", |k| k.inputs)
}

/// Steps per episode when neither a flag nor `budget.episode_steps` says.
pub fn default_episode_steps(name: &str, config: &StrategyConfig) -> u32 {
    registry::kind(name).map_or(DEFAULT_EPISODE_STEPS, |k| (k.episode_steps)(config))
}
