//! What one run needs from the configuration, built in one place for `explore`, `demo`
//! and `bench`: the agent with its input generator, the state abstraction and the
//! episode length.

use wayfarer_core::input::InputGenerator;
use wayfarer_core::llm::SharedUsage;
use wayfarer_core::state::abstraction_for;
use wayfarer_core::{Abstraction, Agent, Config};
use wayfarer_inputs::{Dictionary, Layered, Mutate, MUTATE_SUFFIX};
use wayfarer_llm::{LlmClient, LlmInput, SharedClient};

use crate::registry::{self, Model};
use crate::{by_name_with, default_episode_steps, default_inputs, StrategyError};

pub struct Setup {
    pub agent: Box<dyn Agent + Send>,
    pub abstraction: Box<dyn Abstraction + Send>,
    pub episode_steps: u32,
    /// The input generator's name, for messages.
    pub inputs: String,
    /// The counters of the language model the run asks, when it asks one (the heuristic
    /// provider counts too).
    pub llm: Option<SharedUsage>,
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    #[error("unknown input generator {name:?}; valid names: {}", input_names().join(", "))]
    Inputs { name: String },
    #[error("invalid [inputs] pattern {pattern:?}: {reason}")]
    Dictionary { pattern: String, reason: String },
}

/// Every generator name `--inputs` takes: wayfarer-inputs' and `llm` (VETL's prompt to the
/// configured model, or the heuristic provider without one), each with `+mutate`.
pub fn input_names() -> Vec<&'static str> {
    let mut names = wayfarer_inputs::GENERATOR_NAMES.to_vec();
    names.extend(["llm", "llm+mutate"]);
    names
}

/// Build the run of `strategy` from `config`; `inputs` and `episode_steps` are the
/// command line's overrides, which win over the file, which wins over the strategy's
/// defaults. `llm` answers the questions of the `llm` generator and of vetl (the
/// heuristic provider when `None`; `vetl-h` always uses it).
pub fn setup(
    strategy: &str,
    config: &Config,
    inputs: Option<&str>,
    episode_steps: Option<u32>,
    llm: Option<SharedClient>,
) -> Result<Setup, SetupError> {
    let inputs = inputs
        .map(str::to_string)
        .or(config.strategy.inputs.clone())
        .unwrap_or_else(|| default_inputs(strategy).to_string());
    let dictionary = Dictionary::new(&config.inputs).map_err(|e| SetupError::Dictionary {
        pattern: e.pattern,
        reason: e.reason,
    })?;
    let model = registry::kind(strategy).map_or(Model::None, |k| k.model);
    let client = match (&llm, model) {
        (_, Model::HeuristicOnly) => None,
        (Some(c), _) => Some(c.clone()),
        (None, _) => None,
    };
    let (base, mutate) = match inputs.strip_suffix(MUTATE_SUFFIX) {
        Some(base) => (base, true),
        None => (inputs.as_str(), false),
    };
    let asks = base == "llm" || model != Model::None;
    let client = asks.then(|| client.unwrap_or_else(|| LlmClient::heuristic().shared()));
    let generator: Box<dyn InputGenerator + Send> = if base == "llm" {
        let client = client
            .clone()
            .expect("a client when the generator asks one");
        let vision = model == Model::Asks { vision: true };
        let llm = Box::new(Layered::new(dictionary, LlmInput::new(client, vision)));
        if mutate {
            Box::new(Mutate::new(llm))
        } else {
            llm
        }
    } else {
        wayfarer_inputs::by_name(&inputs, dictionary)
            .map_err(|e| SetupError::Inputs { name: e.name })?
    };
    // The configuration's secrets were read before the run is set up.
    let mut generator = generator;
    generator.keep_whole(&wayfarer_core::secrets::known());
    let usage = client
        .as_ref()
        .map(|c| c.lock().unwrap_or_else(|p| p.into_inner()).usage());
    Ok(Setup {
        agent: by_name_with(strategy, config, generator, client)?,
        abstraction: abstraction_for(&config.abstraction),
        episode_steps: episode_steps
            .or(config.budget.episode_steps)
            .unwrap_or_else(|| default_episode_steps(strategy, &config.strategy)),
        inputs,
        llm: usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_file_which_wins_over_the_strategy() {
        let mut c = Config::default();
        let s = setup("webexplor", &c, None, None, None).unwrap();
        assert_eq!(
            (s.episode_steps, s.inputs.as_str()),
            (100, "heuristic+mutate")
        );
        assert_eq!(s.agent.name(), "webexplor");
        assert_eq!(
            setup("random", &c, None, None, None).unwrap().inputs,
            "random+mutate"
        );
        assert_eq!(s.abstraction.name(), "tagseq");
        assert_eq!(
            setup("random", &c, None, None, None).unwrap().episode_steps,
            50
        );
        c.budget.episode_steps = Some(20);
        c.strategy.inputs = Some("random".into());
        c.abstraction.kind = "structure".into();
        let s = setup("bfs", &c, None, None, None).unwrap();
        assert_eq!((s.episode_steps, s.inputs.as_str()), (20, "random"));
        assert_eq!(s.abstraction.name(), "structure");
        let s = setup("dfs", &c, Some("heuristic"), Some(7), None).unwrap();
        assert_eq!((s.episode_steps, s.inputs.as_str()), (7, "heuristic"));
        assert!(matches!(
            setup("nope", &c, None, None, None),
            Err(SetupError::Strategy(_))
        ));
        assert!(matches!(
            setup("bfs", &c, Some("gpt"), None, None),
            Err(SetupError::Inputs { .. })
        ));
        // vetl asks the heuristic provider by default, and counts it.
        let s = setup("vetl-h", &Config::default(), None, None, None).unwrap();
        assert_eq!((s.inputs.as_str(), s.episode_steps), ("llm+mutate", 100));
        assert_eq!(s.agent.name(), "vetl-h");
        assert_eq!(s.llm.unwrap().lock().unwrap().provider, "heuristic");
        // Any strategy can type the llm generator's values; the others count nothing.
        assert!(setup("bfs", &c, Some("llm"), None, None)
            .unwrap()
            .llm
            .is_some());
        assert!(setup("bfs", &c, None, None, None).unwrap().llm.is_none());
    }
}
