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
                server: c.server.clone(),
                // The run sets it once the specification is bundled.
                spec: None,
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
    /// Lines of the server's own code run so far, when its coverage is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_lines: Option<u64>,
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
    /// The features `wayfarer features` last inferred from the run; None when it never
    /// ran on it (or the store predates the feature tables).
    pub features: Option<StoredFeatures>,
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

/// One `wayfarer features` inference over a run: the feature database, what became of
/// each feature, and the action-feature database (DESIGN 7.6).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StoredFeatures {
    /// Questions asked (two per action: alone, and after the previous action).
    pub questions: u64,
    /// What matched labels by their embeddings ("MiniLM-L6", "hashed words").
    pub embedder: String,
    /// Whether each test was replayed in a browser before it was written.
    pub checked: bool,
    /// In the order they were inferred (`id` ascending).
    pub features: Vec<FeatureRecord>,
    /// In the order they were inferred.
    pub actions: Vec<ActionFeatureRecord>,
}

/// One feature of the feature database.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeatureRecord {
    /// Its index in the inference's feature database (`FeatureId`), what
    /// [`ActionFeatureRecord::feature`] refers to.
    pub id: u64,
    pub label: String,
    /// The sum of its score updates; kept when at least ln p.
    pub score: f64,
    /// The labels matched to it, its own first.
    pub aliases: Vec<String>,
    pub outcome: FeatureOutcome,
}

/// What became of an inferred feature.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FeatureOutcome {
    /// It scored below the cutoff.
    NotKept,
    /// Kept, with a Playwright test of its own.
    Tested(FeatureTestRecord),
    /// Kept; the test of the kept feature with this label performs it step for step.
    SameTestAs(String),
    /// Kept, without a test: why (no way to its chain, its steps do not replay, ...).
    NoTest(String),
}

impl FeatureOutcome {
    pub fn kept(&self) -> bool {
        !matches!(self, FeatureOutcome::NotKept)
    }
}

/// A kept feature's test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeatureTestRecord {
    /// The spec file, relative to the run directory when it lies under it (the report
    /// links it from there), else as written.
    pub file: String,
    /// Its steps: the way to the chain's first page, then the chain.
    pub steps: u32,
    /// The features of the bundled application's grammar its replay covered; None when
    /// not known (no grammar, or not replayed).
    pub covers: Option<Vec<String>>,
}

/// One row of the action-feature database: an answer listed `feature` for an action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionFeatureRecord {
    /// The state the action was taken in.
    pub state: StateId,
    /// The action's key in its state (`click #save`).
    pub action: String,
    /// The [`FeatureRecord::id`] it names.
    pub feature: u64,
    /// 1-based rank in the answer.
    pub rank: u32,
    pub rank_score: f64,
    pub query: FeatureQuery,
}

/// Which of the two questions an answer came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FeatureQuery {
    /// The action alone.
    Alone,
    /// The action after the one that led to its state: that action and its state.
    AfterPrevious { state: StateId, action: String },
}
