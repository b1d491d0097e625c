//! The strategies this build offers, listed once. A strategy is one file that declares its
//! `Kind` (or one per variant) and one line in `KINDS`: the command line's names, the
//! configuration's checks, the bench and `setup` all read this list.

use wayfarer_core::config::StrategyConfig;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Agent, Config};
use wayfarer_llm::SharedClient;

use crate::settings::Section;
use crate::StrategyError;

/// What a strategy is built from.
pub struct Build<'a> {
    /// The whole configuration: a strategy reads its own `[strategy.NAME]` section (and
    /// anything else it needs, as webrled's `abstraction.dims`).
    pub config: &'a Config,
    /// Where the values it types come from.
    pub inputs: Box<dyn InputGenerator + Send>,
    /// The language model a strategy that asks one is given (`None`: the heuristic
    /// provider).
    pub llm: Option<SharedClient>,
}

/// What a strategy asks of a language model, which `setup` hands it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Nothing.
    None,
    /// The configured model (the heuristic provider without one); with `vision`, the
    /// values it types are asked over a screenshot.
    Asks { vision: bool },
    /// The heuristic provider, whatever is configured (an ablation).
    HeuristicOnly,
}

/// One strategy: its name and what it needs.
pub struct Kind {
    /// `--strategy NAME`.
    pub name: &'static str,
    /// One line for people.
    pub summary: &'static str,
    /// The input generator when the configuration names none.
    pub inputs: &'static str,
    /// What it asks of a language model.
    pub model: Model,
    /// Its table of the configuration, `[strategy.NAME]` (variants share one).
    pub settings: Option<Section>,
    /// Steps per episode when neither a flag nor `budget.episode_steps` says.
    pub episode_steps: fn(&StrategyConfig) -> u32,
    /// A new agent.
    pub build: fn(Build<'_>) -> Result<Box<dyn Agent + Send>, StrategyError>,
}

/// Every strategy, in the order `--help` and the docs list them.
pub const KINDS: &[Kind] = &[
    crate::random::KIND,
    crate::crawl::BFS,
    crate::crawl::DFS,
    crate::webexplor::KIND,
    crate::guided::KIND,
    crate::webrled::FULL,
    crate::webrled::LIST_BASED,
    crate::webrled::NO_DISCRIMINATOR,
    crate::webrled::GLOBAL_ONLY,
    crate::vetl::VETL,
    crate::vetl::V1,
    crate::vetl::LV,
    crate::vetl::L,
    crate::vetl::H,
];

/// The strategy called `name`.
pub fn kind(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

/// Every strategy's table of the configuration, once each.
pub fn sections() -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for s in KINDS.iter().filter_map(|k| k.settings) {
        if !out.iter().any(|o| o.name == s.name) {
            out.push(s);
        }
    }
    out
}

/// Check `[strategy]` as a file gave it: each table belongs to a strategy, which reads it
/// (unknown keys and values out of range are refused with their names).
pub fn check(config: &StrategyConfig) -> Result<(), String> {
    let sections = sections();
    for name in config.sections.keys() {
        match sections.iter().find(|s| s.name == name) {
            Some(s) => (s.check)(config)?,
            None => {
                // The wording of the parser's own refusals, so the two read alike.
                let known: Vec<String> = StrategyConfig::KEYS
                    .iter()
                    .copied()
                    .chain(sections.iter().map(|s| s.name))
                    .map(|k| format!("`{k}`"))
                    .collect();
                return Err(format!(
                    "[strategy]: unknown field `{name}`, expected one of {}",
                    known.join(", ")
                ));
            }
        }
    }
    Ok(())
}

/// Every strategy's name.
pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_kind_builds_from_the_defaults() {
        let names = names();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        let config = Config::default();
        for k in KINDS {
            assert!(!k.summary.is_empty() && !k.inputs.is_empty(), "{}", k.name);
            assert!((k.episode_steps)(&config.strategy) > 0, "{}", k.name);
            let agent = (k.build)(Build {
                config: &config,
                inputs: Box::new(crate::testing::Fixed),
                llm: None,
            });
            let agent = agent.unwrap_or_else(|e| panic!("{}: {e}", k.name));
            // The run's records and reports name the strategy by what the agent says.
            assert_eq!(agent.name(), k.name);
        }
    }
}
