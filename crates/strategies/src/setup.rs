//! What one run needs from the configuration, built in one place for `explore`, `demo`
//! and `bench`: the agent with its input generator, the state abstraction and the
//! episode length.

use wayfarer_core::state::abstraction_for;
use wayfarer_core::{Abstraction, Agent, Config};

use crate::{by_name, default_episode_steps, default_inputs, StrategyError};

pub struct Setup {
    pub agent: Box<dyn Agent + Send>,
    pub abstraction: Box<dyn Abstraction + Send>,
    pub episode_steps: u32,
    /// The input generator's name, for messages.
    pub inputs: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    #[error(transparent)]
    Inputs(#[from] wayfarer_inputs::UnknownGenerator),
    #[error("invalid [inputs] pattern {pattern:?}: {reason}")]
    Dictionary { pattern: String, reason: String },
}

/// Build the run of `strategy` from `config`; `inputs` and `episode_steps` are the
/// command line's overrides, which win over the file, which wins over the strategy's
/// defaults.
pub fn setup(
    strategy: &str,
    config: &Config,
    inputs: Option<&str>,
    episode_steps: Option<u32>,
) -> Result<Setup, SetupError> {
    let inputs = inputs
        .map(str::to_string)
        .or(config.strategy.inputs.clone())
        .unwrap_or_else(|| default_inputs(strategy).to_string());
    let dictionary =
        wayfarer_inputs::Dictionary::new(&config.inputs).map_err(|e| SetupError::Dictionary {
            pattern: e.pattern,
            reason: e.reason,
        })?;
    let generator = wayfarer_inputs::by_name(&inputs, dictionary)?;
    Ok(Setup {
        agent: by_name(strategy, config, generator)?,
        abstraction: abstraction_for(&config.abstraction),
        episode_steps: episode_steps
            .or(config.budget.episode_steps)
            .unwrap_or_else(|| default_episode_steps(strategy, &config.strategy)),
        inputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_file_which_wins_over_the_strategy() {
        let mut c = Config::default();
        let s = setup("webexplor", &c, None, None).unwrap();
        assert_eq!(
            (s.episode_steps, s.inputs.as_str()),
            (100, "heuristic+mutate")
        );
        assert_eq!(s.agent.name(), "webexplor");
        assert_eq!(
            setup("random", &c, None, None).unwrap().inputs,
            "random+mutate"
        );
        assert_eq!(s.abstraction.name(), "tagseq");
        assert_eq!(setup("random", &c, None, None).unwrap().episode_steps, 50);
        c.budget.episode_steps = Some(20);
        c.strategy.inputs = Some("random".into());
        c.abstraction.kind = "structure".into();
        let s = setup("bfs", &c, None, None).unwrap();
        assert_eq!((s.episode_steps, s.inputs.as_str()), (20, "random"));
        assert_eq!(s.abstraction.name(), "structure");
        let s = setup("dfs", &c, Some("heuristic"), Some(7)).unwrap();
        assert_eq!((s.episode_steps, s.inputs.as_str()), (7, "heuristic"));
        assert!(matches!(
            setup("nope", &c, None, None),
            Err(SetupError::Strategy(_))
        ));
        assert!(matches!(
            setup("bfs", &c, Some("llm"), None),
            Err(SetupError::Inputs(_))
        ));
    }
}
