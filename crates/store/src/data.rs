//! A run as read back from its store: everything the reports are made from.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use wayfarer_core::env::Coverage;
use wayfarer_core::trace::ReplaySetup;
use wayfarer_core::{Failure, ResetRecord, RunSummary, StateId, StepRecord, StrategySnapshot};

/// What is known of a run when it starts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// The wayfarer version that wrote the store.
    pub wayfarer: String,
    /// Start time, seconds since the Unix epoch.
    pub started_at: u64,
    /// The command line, for the report header.
    pub command: String,
    pub target: String,
    pub strategy: String,
    pub seed: u64,
    pub budget: String,
    pub episode_steps: u32,
    /// The configuration in effect, secrets masked as `${NAME}`.
    pub config: serde_json::Value,
    /// What a replay of this run's traces needs.
    pub setup: ReplaySetup,
}

/// What a run is started with, for [`RunMeta::new`].
#[derive(Clone, Copy, Debug)]
pub struct RunStart<'a> {
    pub url: &'a str,
    pub config: &'a wayfarer_core::Config,
    pub strategy: &'a str,
    pub seed: u64,
    pub budget: wayfarer_core::Budget,
    pub episode_steps: u32,
    /// The command line, for the report header.
    pub command: &'a str,
    /// A bundled application served for the run: its name and whether its bugs are on.
    pub app: Option<(&'a str, bool)>,
}

impl RunMeta {
    /// The metadata of a run starting now: the configuration as given and what a replay
    /// of its traces needs.
    pub fn new(r: RunStart) -> RunMeta {
        let c = r.config;
        RunMeta {
            wayfarer: env!("CARGO_PKG_VERSION").to_string(),
            started_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            command: r.command.to_string(),
            target: r.url.to_string(),
            strategy: r.strategy.to_string(),
            seed: r.seed,
            budget: r.budget.to_string(),
            episode_steps: r.episode_steps,
            config: serde_json::to_value(c).unwrap_or_default(),
            setup: ReplaySetup {
                start_url: r.url.to_string(),
                app: r.app.map(|(name, _)| name.to_string()),
                app_bugs: r.app.map(|(_, bugs)| bugs),
                allow_origins: c.scope.allow_origins.clone(),
                login: c.login.clone(),
                oracles: c.oracles.clone(),
                browser: c.browser.clone(),
            },
        }
    }
}

/// The live counters after a step (one sample per step: the plots over steps).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub states: usize,
    pub urls: usize,
    #[serde(default)]
    pub actions: usize,
    pub failures: usize,
    pub episodes: u64,
    pub elapsed_ms: u64,
    pub coverage: Option<Coverage>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoredStep {
    pub record: StepRecord,
    pub sample: Sample,
}

/// An abstract state, with where it was first reached.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateRow {
    pub id: StateId,
    /// 0 when first reached by a reset before any step.
    pub first_step: u64,
    pub url: String,
    pub title: String,
}

/// An edge of the state graph: how often an action led from one state to another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TransitionRow {
    pub from: StateId,
    pub to: StateId,
    /// `Action::describe()` of the action, e.g. `click #save`.
    pub action: String,
    pub count: u64,
}

/// A unique failure with its evidence.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoredFailure {
    /// `count` is the number of times its signature was seen over the run.
    pub failure: Failure,
    /// The screenshot taken when it was first seen, relative to the run directory.
    pub screenshot: Option<PathBuf>,
}

/// A whole run, read back from `run.sqlite`.
#[derive(Clone, Debug)]
pub struct RunData {
    /// The run directory the store lives in (screenshots are relative to it).
    pub dir: PathBuf,
    pub meta: RunMeta,
    /// The summary the run wrote at its end, or one rebuilt from the steps when it
    /// never got there (killed); see `complete`.
    pub summary: RunSummary,
    /// False when the run ended without writing its summary.
    pub complete: bool,
    /// In step order.
    pub steps: Vec<StoredStep>,
    /// In episode order.
    pub resets: Vec<ResetRecord>,
    /// In order of discovery.
    pub states: Vec<StateRow>,
    pub transitions: Vec<TransitionRow>,
    /// In order of discovery.
    pub failures: Vec<StoredFailure>,
    /// What the strategy had learned when it last said (Q-table, automaton, frontier);
    /// None for strategies that keep nothing.
    pub strategy: Option<StrategySnapshot>,
    /// The state-inference knowledge base at the end of the run, most used first; empty
    /// when inference was off.
    pub knowledge: Vec<wayfarer_core::runner::KnowledgeRow>,
}

impl RunData {
    /// The step a failure was first seen at, when it was a step (not a reset).
    pub fn step(&self, n: u64) -> Option<&StoredStep> {
        let i = self
            .steps
            .binary_search_by_key(&n, |s| s.record.step)
            .ok()?;
        self.steps.get(i)
    }
}
