//! `webrled` (paper 002; DESIGN 7.4): deep Q-learning over a grid of the page.
//!
//! - State: the page's simplified HTML as a hashed vector (`wayfarer_core::embed`).
//! - Values: a Q-network maps the state to N x N cell values (plus a slot for `back`); an
//!   action is worth the sum of the cells around its element's centre (`grid`). Each
//!   transition trains its cells towards beta_i * r + gamma * max Q(s', .), from a replay
//!   buffer, against a target network synced at each episode's end, with Huber loss and
//!   Adam: every `train_every` steps, or at the end of the episode as in the paper.
//! - Reward: episodic novelty x global novelty (`novelty`).
//! - Actions: the rule-based candidates, plus what the action discriminator predicts on
//!   elements no rule selects (`discriminator`), trained from probes at the end of each
//!   episode and from the outcome of its own predictions; it turns on after zeta samples.
//!
//! Ablations (the paper's): `webrled+` values actions by their place in the candidate list
//! instead of the grid, `webrled-` has no discriminator (no probes), `webrled*` rewards
//! global novelty alone. The networks live in `wayfarer_ml`; they can be saved after each
//! episode and a later run can start from them (`--networks DIR`).
//!
//! With several workers: the workers' agents share one mind behind one lock: the
//! networks (the Q-network with its target, the autoencoder, the discriminator, built by
//! whichever worker chooses first), the replay buffer, the discriminator's samples and
//! whether it is on, the states the autoencoder learns and its error scale, the looks
//! already probed, and the snapshot's counters. Each worker adds its transitions,
//! samples and states as they come; training happens at whichever worker's episode end
//! (or, with `train_every`, at every due step of the run's step count), under the lock,
//! on everything all workers gathered, and the others wait for it. The discriminator
//! retrains every `retrain_every` episodes of the run. Each worker keeps its episodic
//! memory (its episode's states and its distance scale), the decision in flight, its
//! form route, its probing of the episode (probes taken, the way back), the actions
//! offered on its page, its training randomness (seeded from its own generator) and its
//! input generator (a fork). Lock order: the mind, then the networks.

mod discriminator;
mod grid;
mod novelty;

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use wayfarer_core::candidates::{candidate_actions, DenyText};

use crate::settings::{read, read_checked, Section, Settings};
use wayfarer_core::embed::{embed, fnv1a, Embedding};
use wayfarer_core::input::InputGenerator;
use wayfarer_core::state::StateData;
use wayfarer_core::{
    Action, ActionKind, Agent, EventKind, Observation, SnapshotTable, StrategySnapshot, Transition,
    View,
};
use wayfarer_ml::{Autoencoder, Classifier, MlError, QNetwork, QSample};

use crate::fill::{fill_noted, with_note};
use crate::form::take;
use crate::registry::{Build, Kind, Model};
use crate::route::{Route, RouteNext};
use crate::StrategyError;

pub use grid::{Cover, Grid};
pub use novelty::{combine, Episodic, ErrorScale};

/// Samples of the discriminator kept (the oldest go first).
const MAX_SAMPLES: usize = 5000;
/// States the autoencoder is trained on (a uniform reservoir of all states seen).
const MAX_STATES: usize = 2000;
/// Autoencoder: hidden and code widths, epochs per episode.
const AE_HIDDEN: usize = 128;
const AE_CODE: usize = 32;
const AE_EPOCHS: usize = 2;
/// Discriminator: hidden width, epochs per training.
const DISC_HIDDEN: usize = 64;
const DISC_EPOCHS: usize = 20;
/// A probe yield at or above this gets the full probe budget.
const PAYING_YIELD: f64 = 0.25;
/// Share of probes that double-click.
const DOUBLE_CLICK_PROBES: f64 = 0.25;

/// `webrled` (DESIGN 7.4) and the paper's ablations: deep Q-learning over grid cells of
/// the page. An episode holds its exploring steps, then its probes, each of which may
/// need a `back`.
pub(crate) const FULL: Kind = Kind {
    name: "webrled",
    summary: "deep Q-learning over grid cells, an action discriminator, novelty (DESIGN 7.4)",
    inputs: "heuristic+mutate",
    model: Model::None,
    settings: Some(Section::of::<WebRledConfig>()),
    episode_steps: |c| {
        // Saturating: the file's counts are any u32, and a longer episode than u32 is none.
        let w = read_checked::<WebRledConfig>(c);
        w.episode_steps
            .saturating_add(w.probe_steps.saturating_mul(2))
    },
    build: |b| build(Variant::Full, b),
};
pub(crate) const LIST_BASED: Kind = Kind {
    name: "webrled+",
    summary: "webrled with list-based action values (ablation)",
    build: |b| build(Variant::ListBased, b),
    ..FULL
};
pub(crate) const NO_DISCRIMINATOR: Kind = Kind {
    name: "webrled-",
    summary: "webrled without the action discriminator, nor its probes (ablation)",
    episode_steps: |c| read_checked::<WebRledConfig>(c).episode_steps,
    build: |b| build(Variant::NoDiscriminator, b),
    ..FULL
};
pub(crate) const GLOBAL_ONLY: Kind = Kind {
    name: "webrled*",
    summary: "webrled with global novelty only (ablation)",
    build: |b| build(Variant::GlobalOnly, b),
    ..FULL
};

/// `webrled` and its ablations `webrled+`, `webrled-`, `webrled*` (DESIGN 7.4): deep
/// Q-learning over grid cells of the page, with an action discriminator and an episodic x
/// global novelty reward.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebRledConfig {
    /// Probability of a uniformly random action (epsilon-greedy).
    pub epsilon: f64,
    /// Discount of the next state's best value.
    pub gamma: f64,
    /// The page is a `grid` x `grid` lattice of cells in normalised coordinates.
    pub grid: usize,
    /// An action's value sums the cells whose centres lie within this many cell lengths
    /// of its element's centre.
    pub radius: f64,
    /// How an action's value is read from its cells: `sum` (DESIGN 7.4) or `mean`, what
    /// the bootstrap target already uses, which does not favour elements with more cells
    /// inside the page over those at its edges (or over `back`, one slot). Measured on
    /// expense (3 seeds, 500 actions): `mean` covered less JavaScript than `sum`.
    pub action_value: CellValue,
    /// Choose uniformly at random until the Q-network has trained once (DQN's replay
    /// start): an untrained network's values are noise that favours the same cells.
    /// Measured with `mean` on expense and board: no gain.
    pub random_until_trained: bool,
    /// L: the global novelty multiplies the episodic reward by at most this much.
    pub reward_cap: f64,
    /// Nearest states of the episode's memory counted by the episodic novelty.
    pub knn: usize,
    /// Exploring steps per episode; the probes follow them.
    pub episode_steps: u32,
    /// Probes per episode, at its end, at most: elements no rule selected, clicked (or
    /// double-clicked) to see whether the page changes (each may add a `back`). All of
    /// them while one probe in four finds a control, fewer as probes stop finding any.
    pub probe_steps: u32,
    /// zeta: labelled samples before the discriminator is first trained and used.
    pub zeta: usize,
    /// Episodes between two trainings of the discriminator once it is on.
    pub retrain_every: u32,
    pub learning_rate: f64,
    /// Minibatch size of the Q-network.
    pub batch: usize,
    /// Q-network minibatches trained per episode: all at its end, or spread over it with
    /// `train_every`.
    pub train_batches: usize,
    /// Train the Q-network every this many steps (its share of `train_batches`) instead
    /// of at the end of each episode (0, the default: the paper's Algorithm 1). A network
    /// frozen for an episode repeats its greedy choice on every return to a page; trained
    /// along the episode it covered more JavaScript on expense but found fewer seeded
    /// bugs over the four test apps (docs/src/strategies.md, "webrled against webexplor").
    pub train_every: u32,
    /// Transitions kept for experience replay.
    pub replay: usize,
    /// Width of the Q-network's two hidden layers.
    pub hidden: usize,
    /// `webrled+`: action slots of the list-based Q-network (the i-th candidate is slot i).
    pub list_size: usize,
    /// Fill the empty fields of a form (with the input generator) before clicking its
    /// buttons, as webexplor does.
    pub fill_forms: bool,
    /// A directory of networks saved by an earlier run (`--networks DIR`) to start from.
    pub model: Option<String>,
    /// Where to save the networks after every episode (the CLI sets the run directory's
    /// `model/`); nothing is saved when unset.
    pub save: Option<String>,
}

impl Default for WebRledConfig {
    fn default() -> Self {
        WebRledConfig {
            epsilon: 0.4,
            gamma: 0.95,
            grid: 20,
            radius: 1.5,
            action_value: CellValue::Sum,
            random_until_trained: false,
            reward_cap: 5.0,
            knn: 10,
            episode_steps: 50,
            probe_steps: 10,
            zeta: 200,
            retrain_every: 10,
            learning_rate: 1e-3,
            batch: 32,
            train_batches: 32,
            train_every: 0,
            replay: 5000,
            hidden: 256,
            list_size: 64,
            fill_forms: true,
            model: None,
            save: None,
        }
    }
}

/// How webrled reads an action's value from the cells it covers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellValue {
    /// The sum of the cells' values (DESIGN 7.4).
    #[default]
    Sum,
    /// The mean of the cells' values.
    Mean,
}

impl Settings for WebRledConfig {
    const SECTION: &'static str = "webrled";
    fn check(&self) -> Result<(), String> {
        let r = self;
        let checks = [
            (
                (0.0..=1.0).contains(&r.epsilon),
                "strategy.webrled.epsilon must be in [0, 1]",
            ),
            (
                r.gamma >= 0.0 && r.gamma < 1.0,
                "strategy.webrled.gamma must be in [0, 1)",
            ),
            (
                (2..=100).contains(&r.grid),
                "strategy.webrled.grid must be between 2 and 100",
            ),
            (
                r.radius >= 0.5 && r.radius.is_finite(),
                "strategy.webrled.radius must be at least 0.5 (cell lengths)",
            ),
            (
                r.reward_cap >= 1.0 && r.reward_cap.is_finite(),
                "strategy.webrled.reward_cap must be at least 1",
            ),
            (r.knn > 0, "strategy.webrled.knn must be at least 1"),
            (
                r.episode_steps > 0,
                "strategy.webrled.episode_steps must be at least 1",
            ),
            (
                r.retrain_every > 0,
                "strategy.webrled.retrain_every must be at least 1",
            ),
            (
                r.learning_rate > 0.0 && r.learning_rate < 1.0,
                "strategy.webrled.learning_rate must be in (0, 1)",
            ),
            (
                r.batch > 0 && r.replay >= r.batch,
                "strategy.webrled.batch must be at least 1 and at most replay",
            ),
            (
                (8..=4096).contains(&r.hidden),
                "strategy.webrled.hidden must be between 8 and 4096",
            ),
            (
                (2..=4096).contains(&r.list_size),
                "strategy.webrled.list_size must be between 2 and 4096",
            ),
        ];
        crate::settings::first_wrong(&checks)
    }
}

fn build(variant: Variant, b: Build<'_>) -> Result<Box<dyn Agent + Send>, StrategyError> {
    let cfg = read::<WebRledConfig>(&b.config.strategy).map_err(StrategyError::Settings)?;
    let dims = b.config.abstraction.dims;
    let agent =
        WebRledAgent::new(cfg, dims, variant, b.inputs).map_err(|source| StrategyError::Model {
            strategy: variant.name().to_string(),
            source: Box::new(source),
        })?;
    Ok(Box::new(agent))
}

/// Which WebRLED: the full method or one of the paper's ablations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Variant {
    /// `webrled`.
    Full,
    /// `webrled+`: list-based action values.
    ListBased,
    /// `webrled-`: no action discriminator.
    NoDiscriminator,
    /// `webrled*`: global novelty only.
    GlobalOnly,
}

impl Variant {
    pub const ALL: [Variant; 4] = [
        Variant::Full,
        Variant::ListBased,
        Variant::NoDiscriminator,
        Variant::GlobalOnly,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            Variant::Full => "webrled",
            Variant::ListBased => "webrled+",
            Variant::NoDiscriminator => "webrled-",
            Variant::GlobalOnly => "webrled*",
        }
    }

    pub fn from_name(s: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == s)
    }

    fn discriminates(&self) -> bool {
        *self != Variant::NoDiscriminator
    }
}

/// Where an offered action came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Rule,
    Predicted,
    Probe,
}

/// The decision of the step in flight, for `learn`.
#[derive(Clone)]
struct Chosen {
    state: Arc<Vec<f32>>,
    cover: Cover,
    source: Source,
    kind: ActionKind,
    /// The target's features, for a probe or a predicted action.
    features: Option<Vec<f32>>,
}

#[derive(Clone)]
struct Experience {
    state: Arc<Vec<f32>>,
    cover: Arc<Cover>,
    reward: f32,
    next: Arc<Vec<f32>>,
    next_covers: Arc<Vec<Cover>>,
}

/// What the workers of a run learn together; one per run (and per `fork`, networks
/// aside).
#[derive(Clone, Default)]
struct Mind {
    /// One set of networks for the workers and the copies (`fork`): built at the first
    /// choice of any worker.
    nets: Option<Arc<Mutex<Nets>>>,
    scale: Option<ErrorScale>,
    disc_on: bool,
    samples: VecDeque<(Arc<Vec<f32>>, usize)>,
    replay: VecDeque<Experience>,
    states: Vec<Arc<Vec<f32>>>,
    states_seen: u64,
    probed: HashSet<(String, ActionKind)>,
    episodes: u64,
    steps: u64,
    probes: u64,
    probe_hits: u64,
    predicted_taken: u64,
    predicted_hits: u64,
    disc_trainings: u64,
    train_time: Duration,
    last_q_loss: Option<f32>,
    last_disc_loss: Option<f32>,
    errors: u64,
    last_error: Option<String>,
}

/// The mind, whoever panicked while holding it.
fn lock_mind(m: &Mutex<Mind>) -> MutexGuard<'_, Mind> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Mind {
    /// A network operation failed: count it, say so once in a while, go on without it.
    fn note_error(&mut self, what: &str, e: impl std::fmt::Display) {
        self.errors += 1;
        if self.errors <= 3 {
            tracing::warn!(%e, "webrled: {what} failed");
        }
        self.last_error = Some(format!("{what}: {e}"));
    }

    /// How often a probe finds a control: Laplace's estimate over the run's probes (one
    /// half before the first). Probing spends steps in proportion to it.
    fn probe_yield(&self) -> f64 {
        (self.probe_hits as f64 + 1.0) / (self.probes as f64 + 2.0)
    }
}

struct Nets {
    q: QNetwork,
    ae: Autoencoder,
    disc: Classifier,
    /// The step the Q-network was last trained at along an episode (`train_every`).
    trained_at: u64,
    /// Trainings of the Q-network, by the agent or its copies (a loaded one counts one).
    trainings: u64,
}

/// Networks the workers and the copies hold together.
fn shared(n: Nets) -> Arc<Mutex<Nets>> {
    Arc::new(Mutex::new(n))
}

/// The networks, whoever panicked while holding them (a failed step is only logged).
fn lock(n: &Mutex<Nets>) -> MutexGuard<'_, Nets> {
    n.lock().unwrap_or_else(|e| e.into_inner())
}

/// What is saved next to the networks.
#[derive(Debug, Serialize, Deserialize)]
struct Meta {
    variant: Variant,
    dims: usize,
    slots: usize,
    discriminator_on: bool,
    error_scale: Option<ErrorScale>,
}

/// Cloning shares the mind (as workers do). `fork` copies it for state inference's
/// trials, networks aside: whichever drives the loop trains them (at an episode's end,
/// or along it once per due step); the rest (replay, samples, the episode's memory,
/// probes) is copied.
#[derive(Clone)]
pub struct WebRledAgent {
    cfg: WebRledConfig,
    variant: Variant,
    dims: usize,
    grid: Grid,
    inputs: Box<dyn InputGenerator + Send>,
    mind: Arc<Mutex<Mind>>,
    /// Training randomness, seeded from the run's generator at the first choice.
    rng: Option<ChaCha8Rng>,
    /// Seed of the training along an episode (`train_every`), mixed with the step number.
    train_seed: u64,
    episodic: Episodic,
    /// Embeddings of the last pages, by a hash of URL and HTML.
    recent: VecDeque<(u64, Arc<Vec<f32>>)>,
    offered: HashMap<Action, Source>,
    chosen: Option<Chosen>,
    route: Option<Route>,
    episode_step: u32,
    probes_this_episode: u32,
    back_after_probe: bool,
    rationale: Option<String>,
    /// Training along the episode not yet reported (`Agent::take_train_time`).
    unreported_training: Duration,
}

/// The targets of a transition's cells: beta_i * r + gamma * the best next action, each
/// next action worth the mean of its cells under the target network's `next_values` (no
/// next action: 0).
pub fn cell_targets(
    cover: &Cover,
    reward: f32,
    gamma: f32,
    next_values: &[f32],
    next_covers: &[Cover],
) -> Vec<(usize, f32)> {
    let best = next_covers
        .iter()
        .map(|c| grid::mean_value(next_values, c))
        .fold(f32::NEG_INFINITY, f32::max);
    let best = if best.is_finite() { best } else { 0.0 };
    cover
        .iter()
        .map(|(cell, beta)| (*cell, beta * reward + gamma * best))
        .collect()
}

impl WebRledAgent {
    /// A new agent; with `cfg.model` set, its networks are loaded from that directory.
    pub fn new(
        cfg: WebRledConfig,
        dims: usize,
        variant: Variant,
        inputs: Box<dyn InputGenerator + Send>,
    ) -> Result<WebRledAgent, MlError> {
        let mind = Arc::new(Mutex::new(Mind::default()));
        let mut agent = WebRledAgent::with_mind(cfg, dims, variant, inputs, mind);
        if let Some(dir) = agent.cfg.model.clone() {
            agent.load(Path::new(&dir))?;
        }
        Ok(agent)
    }

    /// An agent with its own episode that learns into `mind`.
    fn with_mind(
        cfg: WebRledConfig,
        dims: usize,
        variant: Variant,
        inputs: Box<dyn InputGenerator + Send>,
        mind: Arc<Mutex<Mind>>,
    ) -> WebRledAgent {
        WebRledAgent {
            episodic: Episodic::new(cfg.knn),
            grid: Grid::new(cfg.grid, cfg.radius),
            dims,
            variant,
            inputs,
            mind,
            rng: None,
            train_seed: 0,
            recent: VecDeque::new(),
            offered: HashMap::new(),
            chosen: None,
            route: None,
            episode_step: 0,
            probes_this_episode: 0,
            back_after_probe: false,
            rationale: None,
            unreported_training: Duration::ZERO,
            cfg,
        }
    }

    /// `f` on the networks, when they are built; the mind is not held meanwhile.
    fn with_nets<R>(&self, f: impl FnOnce(&mut Nets) -> R) -> Option<R> {
        let held = lock_mind(&self.mind).nets.clone()?;
        let mut nets = lock(&held);
        Some(f(&mut nets))
    }

    /// Output slots of the Q-network.
    fn slots(&self) -> usize {
        match self.variant {
            Variant::ListBased => self.cfg.list_size + 1,
            _ => self.grid.slots(),
        }
    }

    fn build(&self, seed: u64) -> Result<Nets, MlError> {
        let lr = self.cfg.learning_rate;
        let h = self.cfg.hidden;
        Ok(Nets {
            q: QNetwork::new(self.dims, &[h, h], self.slots(), lr, seed)?,
            ae: Autoencoder::new(self.dims, AE_HIDDEN, AE_CODE, lr, seed.wrapping_add(1))?,
            disc: Classifier::new(
                discriminator::FEATURES,
                DISC_HIDDEN,
                discriminator::CLASSES,
                lr,
                seed.wrapping_add(2),
            )?,
            trained_at: 0,
            trainings: 0,
        })
    }

    fn load(&mut self, dir: &Path) -> Result<(), MlError> {
        let meta_path = dir.join("webrled.json");
        let text = std::fs::read_to_string(&meta_path).map_err(|source| MlError::Io {
            context: "reading",
            path: meta_path.clone(),
            source,
        })?;
        let meta: Meta = serde_json::from_str(&text).map_err(|e| MlError::Mismatch {
            path: meta_path.clone(),
            reason: e.to_string(),
        })?;
        if meta.dims != self.dims || meta.slots != self.slots() {
            return Err(MlError::Mismatch {
                path: meta_path,
                reason: format!(
                    "saved by {} for {} embedding slots and {} value slots; this run uses {} and {} (abstraction.dims, strategy.webrled.grid / list_size)",
                    meta.variant.name(),
                    meta.dims,
                    meta.slots,
                    self.dims,
                    self.slots()
                ),
            });
        }
        let lr = self.cfg.learning_rate;
        let nets = Nets {
            q: QNetwork::load(dir, "qnet", lr)?,
            ae: Autoencoder::load(dir, "autoencoder", lr)?,
            disc: Classifier::load(dir, "discriminator", lr)?,
            trained_at: 0,
            trainings: 1,
        };
        if nets.q.sizes().first() != Some(&self.dims)
            || nets.q.sizes().last() != Some(&self.slots())
        {
            return Err(MlError::Mismatch {
                path: dir.join("qnet.safetensors"),
                reason: "its shape differs from webrled.json".into(),
            });
        }
        let mut m = lock_mind(&self.mind);
        m.nets = Some(shared(nets));
        m.disc_on = meta.discriminator_on && self.variant.discriminates();
        m.scale = meta.error_scale;
        tracing::info!(dir = %dir.display(), "webrled networks loaded");
        Ok(())
    }

    fn save(&self, dir: &Path) -> Result<(), MlError> {
        let m = lock_mind(&self.mind);
        let Some(held) = m.nets.clone() else {
            return Ok(());
        };
        let nets = lock(&held);
        std::fs::create_dir_all(dir).map_err(|source| MlError::Io {
            context: "creating",
            path: dir.to_path_buf(),
            source,
        })?;
        nets.q.save(dir, "qnet")?;
        nets.ae.save(dir, "autoencoder")?;
        nets.disc.save(dir, "discriminator")?;
        let meta = Meta {
            variant: self.variant,
            dims: self.dims,
            slots: self.slots(),
            discriminator_on: m.disc_on,
            error_scale: m.scale,
        };
        let path = dir.join("webrled.json");
        let text = serde_json::to_string_pretty(&meta).expect("plain data");
        std::fs::write(&path, text).map_err(|source| MlError::Io {
            context: "writing",
            path,
            source,
        })
    }

    /// Note a failed network operation (never with the mind held).
    fn note_error(&self, what: &str, e: impl std::fmt::Display) {
        lock_mind(&self.mind).note_error(what, e);
    }

    fn embedding(&mut self, obs: &Observation) -> Arc<Vec<f32>> {
        let key = fnv1a(&[&obs.url, &obs.html]);
        if let Some((_, v)) = self.recent.iter().find(|(k, _)| *k == key) {
            return v.clone();
        }
        let v = Arc::new(embed(obs, self.dims));
        self.recent.push_back((key, v.clone()));
        if self.recent.len() > 4 {
            self.recent.pop_front();
        }
        v
    }

    /// Whether greedy choices may follow the Q-network: always, unless
    /// `random_until_trained` holds and it has not trained yet.
    fn q_ready(&self) -> bool {
        !self.cfg.random_until_trained || self.q_trainings() > 0
    }

    /// An action's value from the cells it covers (`action_value`).
    fn action_value(&self, values: &[f32], cover: &Cover) -> f32 {
        match self.cfg.action_value {
            CellValue::Sum => grid::value(values, cover),
            CellValue::Mean => grid::mean_value(values, cover),
        }
    }

    fn q_trainings(&self) -> u64 {
        self.with_nets(|n| n.trainings).unwrap_or(0)
    }

    fn in_probe_phase(&self) -> bool {
        self.variant.discriminates() && self.episode_step >= self.cfg.episode_steps
    }

    fn probe_yield(&self) -> f64 {
        lock_mind(&self.mind).probe_yield()
    }

    /// Probes at this episode's end: `probe_steps` while probes pay (a yield of one in
    /// four or more), fewer as they stop finding anything, never none (the app may
    /// change): where the rules already see every control, probing would otherwise cost
    /// a fifth of a short run (measured: 104-153 of 500 steps for 1-11 finds).
    fn probe_budget(&self) -> u32 {
        self.probe_budget_in(&lock_mind(&self.mind))
    }

    fn probe_budget_in(&self, m: &Mind) -> u32 {
        let share = (PAYING_YIELD.recip() * m.probe_yield()).min(1.0);
        ((f64::from(self.cfg.probe_steps) * share).round() as u32).max(1)
    }

    /// The cover of `action`, the `index`-th of the offered actions.
    fn cover(&self, obs: &Observation, action: &Action, index: usize) -> Cover {
        match self.variant {
            Variant::ListBased if action.kind == ActionKind::Back => {
                vec![(self.cfg.list_size, 1.0)]
            }
            Variant::ListBased => vec![(index.min(self.cfg.list_size - 1), 1.0)],
            _ => self.grid.cover(obs, action),
        }
    }

    /// The covers of the rule-based actions of a page (what its best value is taken over).
    fn page_covers(&self, obs: &Observation) -> Vec<Cover> {
        candidate_actions(obs, &DenyText::default(), true)
            .iter()
            .enumerate()
            .map(|(i, a)| self.cover(obs, a, i))
            .collect()
    }

    fn remember_state(&mut self, v: Arc<Vec<f32>>) {
        let mut m = lock_mind(&self.mind);
        m.states_seen += 1;
        if m.states.len() < MAX_STATES {
            m.states.push(v);
        } else if let Some(rng) = self.rng.as_mut() {
            let j = rng.gen_range(0..m.states_seen) as usize;
            if j < MAX_STATES {
                m.states[j] = v;
            }
        }
    }

    fn global_alpha(&mut self, v: &[f32]) -> f64 {
        let scale = lock_mind(&self.mind).scale;
        let Some(scale) = scale else {
            return 1.0;
        };
        let Some(errors) = self.with_nets(|n| n.ae.errors(&[v])) else {
            return 1.0;
        };
        match errors {
            Ok(e) => scale.alpha(e[0]),
            Err(e) => {
                self.note_error("novelty", e);
                1.0
            }
        }
    }

    /// Take probe `a` on `obs` (from `state`): its look is marked probed, and `learn`
    /// labels its target by whether the page changed.
    fn probe(&mut self, obs: &Observation, a: Action, state: Arc<Vec<f32>>, how: &str) -> Action {
        let e = a
            .target
            .as_deref()
            .and_then(|t| obs.element(t))
            .expect("probes target elements of the page");
        let probes = {
            let mut m = lock_mind(&self.mind);
            m.probed.insert((discriminator::look(e), a.kind));
            m.probes += 1;
            m.probes
        };
        if self.in_probe_phase() {
            self.probes_this_episode += 1;
        }
        self.rationale = Some(format!(
            "probe {probes}{how}: {} {} (no rule selects it)",
            a.kind.as_str(),
            e.describe()
        ));
        self.chosen = Some(Chosen {
            cover: self.cover(obs, &a, 0),
            state,
            source: Source::Probe,
            kind: a.kind,
            features: Some(discriminator::features(obs, e)),
        });
        a
    }

    /// Probes: looks not probed yet, a quarter of them as double clicks; with none left,
    /// any probe, unless `fresh_only`.
    fn pick_probe<'a>(
        &self,
        obs: &Observation,
        probes: &[&'a Action],
        fresh_only: bool,
        rng: &mut ChaCha8Rng,
    ) -> Option<&'a Action> {
        let m = lock_mind(&self.mind);
        let fresh = |kind: ActionKind| -> Vec<&'a Action> {
            probes
                .iter()
                .copied()
                .filter(|a| a.kind == kind)
                .filter(|a| {
                    a.target
                        .as_deref()
                        .and_then(|t| obs.element(t))
                        .is_some_and(|e| !m.probed.contains(&(discriminator::look(e), kind)))
                })
                .collect()
        };
        let clicks = fresh(ActionKind::Click);
        let doubles = fresh(ActionKind::DoubleClick);
        let pool =
            if !doubles.is_empty() && (clicks.is_empty() || rng.gen_bool(DOUBLE_CLICK_PROBES)) {
                doubles
            } else if !clicks.is_empty() {
                clicks
            } else if !fresh_only {
                probes.to_vec()
            } else {
                return None;
            };
        pool.choose(rng).copied()
    }

    /// `batches` minibatches of the Q-network from the replay buffer (none while it holds
    /// less than one).
    fn train_q(
        cfg: &WebRledConfig,
        m: &mut Mind,
        nets: &mut Nets,
        batches: usize,
        rng: &mut ChaCha8Rng,
    ) {
        if m.replay.len() < cfg.batch || batches == 0 {
            return;
        }
        let mut loss = None;
        let replay = &m.replay;
        let result = (|| -> Result<(), MlError> {
            for _ in 0..batches {
                let batch: Vec<&Experience> = (0..cfg.batch)
                    .map(|_| &replay[rng.gen_range(0..replay.len())])
                    .collect();
                let nexts: Vec<&[f32]> = batch.iter().map(|x| x.next.as_slice()).collect();
                let next_values = nets.q.target_values(&nexts)?;
                let samples: Vec<QSample> = batch
                    .iter()
                    .zip(&next_values)
                    .map(|(x, qn)| QSample {
                        state: x.state.to_vec(),
                        targets: cell_targets(
                            &x.cover,
                            x.reward,
                            cfg.gamma as f32,
                            qn,
                            &x.next_covers,
                        ),
                    })
                    .collect();
                loss = Some(nets.q.train(&samples)?);
            }
            Ok(())
        })();
        match result {
            Ok(()) => {
                m.last_q_loss = loss;
                nets.trainings += 1;
            }
            Err(e) => m.note_error("Q-network training", e),
        }
    }

    /// With `train_every`: the Q-network's share of an episode's minibatches, every
    /// `train_every` steps of the run (`steps`, this one's number), from what the replay
    /// held before this step's transition. The training rng is drawn from the step
    /// number and the networks remember the step they were trained at, so a copy living
    /// a guessed step (state inference) trains them exactly as the agent would have, and
    /// the agent then does not train them again.
    fn train_along(&mut self, steps: u64) {
        let every = u64::from(self.cfg.train_every);
        if every == 0 || steps == 0 || !steps.is_multiple_of(every) {
            return;
        }
        let mind = self.mind.clone();
        let mut m = lock_mind(&mind);
        let Some(held) = m.nets.clone() else {
            return;
        };
        let mut nets = lock(&held);
        if nets.trained_at >= steps {
            return;
        }
        nets.trained_at = steps;
        let per_episode = self.cfg.train_batches as u64 * every;
        let batches = per_episode.div_ceil(u64::from(self.cfg.episode_steps).max(1)) as usize;
        let mut rng = ChaCha8Rng::seed_from_u64(self.train_seed ^ steps);
        let started = Instant::now();
        Self::train_q(&self.cfg, &mut m, &mut nets, batches, &mut rng);
        m.train_time += started.elapsed();
        self.unreported_training += started.elapsed();
    }

    /// Train on what every worker gathered, holding the mind (and the networks) meanwhile.
    fn train_episode(&mut self) {
        let mind = self.mind.clone();
        let mut m = lock_mind(&mind);
        let Some(held) = m.nets.clone() else {
            return;
        };
        let mut nets = lock(&held);
        let mut rng = self
            .rng
            .clone()
            .unwrap_or_else(|| ChaCha8Rng::seed_from_u64(m.episodes));
        // Global novelty: the autoencoder learns every state seen so far (a reservoir).
        if !m.states.is_empty() {
            let data: Vec<Vec<f32>> = m.states.iter().map(|v| v.to_vec()).collect();
            let fitted = nets.ae.fit(&data, AE_EPOCHS, 64, rng.gen()).and_then(|_| {
                let rows: Vec<&[f32]> = m.states.iter().map(|v| v.as_slice()).collect();
                nets.ae.errors(&rows)
            });
            match fitted {
                Ok(errors) => m.scale = ErrorScale::of(&errors),
                Err(e) => m.note_error("autoencoder training", e),
            }
        }
        // The Q-network, from replayed transitions against the frozen target network
        // (trained here, or along the episode with `train_every`).
        if m.replay.len() >= self.cfg.batch {
            if let Err(e) = nets.q.sync_target() {
                m.note_error("Q-network training", e);
            }
        }
        if self.cfg.train_every == 0 {
            let batches = self.cfg.train_batches;
            Self::train_q(&self.cfg, &mut m, &mut nets, batches, &mut rng);
        }
        // The discriminator: first after zeta samples, then every few episodes.
        if self.variant.discriminates() {
            let due = if m.disc_on {
                m.episodes.is_multiple_of(u64::from(self.cfg.retrain_every))
            } else {
                m.samples.len() >= self.cfg.zeta
            };
            if due && !m.samples.is_empty() {
                let xs: Vec<Vec<f32>> = m.samples.iter().map(|s| s.0.to_vec()).collect();
                let ys: Vec<usize> = m.samples.iter().map(|s| s.1).collect();
                match nets.disc.fit(&xs, &ys, DISC_EPOCHS, 32, rng.gen()) {
                    Ok(l) => {
                        m.last_disc_loss = Some(l);
                        m.disc_on = true;
                        m.disc_trainings += 1;
                    }
                    Err(e) => m.note_error("discriminator training", e),
                }
            }
        }
        self.rng = Some(rng);
    }

    fn save_if_asked(&mut self) {
        if let Some(dir) = self.cfg.save.clone() {
            // Saved first: `save` holds the mind, which noting the error takes.
            let saved = self.save(&PathBuf::from(dir));
            if let Err(e) = saved {
                self.note_error("saving the networks", e);
            }
        }
    }

    /// `Agent::fork`: a trial learns into a copy of the mind; the networks inside stay
    /// shared, as they always were (a trial trains them as the agent would have).
    fn fork_agent(&self) -> WebRledAgent {
        let mut copy = self.clone();
        copy.mind = Arc::new(Mutex::new(lock_mind(&self.mind).clone()));
        copy
    }

    /// `Agent::worker`: a fresh episode, the same mind.
    fn worker_agent(&self) -> WebRledAgent {
        WebRledAgent::with_mind(
            self.cfg.clone(),
            self.dims,
            self.variant,
            self.inputs.fork(),
            self.mind.clone(),
        )
    }
}

impl Agent for WebRledAgent {
    fn name(&self) -> &str {
        self.variant.name()
    }

    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(self.fork_agent()))
    }

    fn worker(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(self.worker_agent()))
    }

    fn annotate(&mut self, observation: &Observation, data: &mut StateData) {
        if data.get::<Embedding>().is_none() {
            data.insert(Embedding(self.embedding(observation)));
        }
    }

    fn extra_actions(&mut self, observation: &Observation, candidates: &[Action]) -> Vec<Action> {
        self.offered = candidates
            .iter()
            .map(|a| (a.clone(), Source::Rule))
            .collect();
        if !self.variant.discriminates() {
            return Vec::new();
        }
        let leaves: Vec<&wayfarer_core::Element> = discriminator::unselected(observation).collect();
        let mut extra: Vec<(Action, Source)> = Vec::new();
        let disc_on = lock_mind(&self.mind).disc_on;
        if disc_on && !self.in_probe_phase() && !leaves.is_empty() {
            let feats: Vec<Vec<f32>> = leaves
                .iter()
                .map(|e| discriminator::features(observation, e))
                .collect();
            let rows: Vec<&[f32]> = feats.iter().map(Vec::as_slice).collect();
            let predicted = self.with_nets(|n| n.disc.predict(&rows));
            match predicted {
                Some(Ok(probs)) => {
                    for (e, p) in leaves.iter().zip(&probs) {
                        for a in discriminator::predicted(&e.locator, p) {
                            extra.push((a, Source::Predicted));
                        }
                    }
                }
                Some(Err(e)) => self.note_error("discriminator", e),
                None => {}
            }
        }
        let nothing_else = !candidates
            .iter()
            .chain(extra.iter().map(|(a, _)| a))
            .any(|a| a.kind != ActionKind::Back);
        // Probes: every unselected element at the episode's end or where nothing else
        // acts; elsewhere those of a look never probed, for the random choices.
        let all = self.in_probe_phase() || nothing_else;
        let m = lock_mind(&self.mind);
        for e in &leaves {
            for kind in [ActionKind::Click, ActionKind::DoubleClick] {
                let a = Action::on(kind, e.locator.clone());
                let fresh = || !m.probed.contains(&(discriminator::look(e), kind));
                if (all || fresh()) && !extra.iter().any(|(x, _)| *x == a) {
                    extra.push((a, Source::Probe));
                }
            }
        }
        drop(m);
        for (a, src) in &extra {
            self.offered.entry(a.clone()).or_insert(*src);
        }
        extra.into_iter().map(|(a, _)| a).collect()
    }

    fn wants_reset(&mut self, view: &View<'_>) -> bool {
        self.episode_step = view.episode_step;
        if !self.in_probe_phase() || self.back_after_probe || self.route.is_some() {
            return false;
        }
        let probes_left = view
            .actions
            .iter()
            .any(|a| self.offered.get(a) == Some(&Source::Probe));
        self.probes_this_episode >= self.probe_budget() || !probes_left
    }

    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        self.episode_step = view.episode_step;
        if self.rng.is_none() {
            let seed: u64 = rng.gen();
            self.rng = Some(ChaCha8Rng::seed_from_u64(seed));
            self.train_seed = seed.rotate_left(29) ^ 0x9e37_79b9_7f4a_7c15;
        }
        {
            // The first worker to choose builds the networks for all.
            let mind = self.mind.clone();
            let mut m = lock_mind(&mind);
            if m.nets.is_none() {
                let seed = self.rng.as_mut().map_or(0, |r| r.gen());
                match self.build(seed) {
                    Ok(n) => m.nets = Some(shared(n)),
                    Err(e) => m.note_error("building the networks", e),
                }
            }
        }
        let obs = view.observation;
        let state = match view.analysis.data().get::<Embedding>() {
            Some(e) => e.0.clone(),
            None => self.embedding(obs),
        };
        let chosen = |cover: Cover, source: Source, a: &Action, features| Chosen {
            state: state.clone(),
            cover,
            source,
            kind: a.kind,
            features,
        };

        // A form being filled before its button.
        if let Some(route) = self.route.as_mut() {
            match route.next(view) {
                RouteNext::Act(a, why) => {
                    if route.remaining() == 0 {
                        self.route = None;
                    }
                    let (a, note) = fill_noted(a, obs, self.inputs.as_mut(), rng);
                    self.chosen = Some(chosen(self.cover(obs, &a, 0), Source::Rule, &a, None));
                    self.rationale = Some(with_note(why, note));
                    return a;
                }
                RouteNext::Broken(..) | RouteNext::Done => self.route = None,
            }
        }

        // Back to the page a probe left, to probe it further.
        if std::mem::take(&mut self.back_after_probe)
            && view.actions.iter().any(|a| a.kind == ActionKind::Back)
        {
            let a = Action::back();
            self.chosen = Some(chosen(self.cover(obs, &a, 0), Source::Rule, &a, None));
            self.rationale = Some("probe: back to the probed page".into());
            return a;
        }

        let (probes, acts): (Vec<&Action>, Vec<&Action>) = view
            .actions
            .iter()
            .partition(|a| self.offered.get(*a) == Some(&Source::Probe));
        // Probing is for the episode's end, or for a page where nothing else (but back)
        // is known to act: there only looks never probed, then back (a browser error
        // page met by going back to a form's answer once took 150 of 500 steps).
        let only_back = acts.iter().all(|a| a.kind == ActionKind::Back);
        if !probes.is_empty() && (self.in_probe_phase() || only_back) {
            let fresh_only = !self.in_probe_phase() && !acts.is_empty();
            if let Some(a) = self.pick_probe(obs, &probes, fresh_only, rng) {
                let a = a.clone();
                return self.probe(obs, a, state, "");
            }
        }
        if acts.is_empty() {
            self.rationale = Some("nothing to act on here: back".into());
            let a = Action::back();
            self.chosen = Some(chosen(self.cover(obs, &a, 0), Source::Rule, &a, None));
            return a;
        }

        // Explore: epsilon-greedy over the action values.
        let covers: Vec<Cover> = acts
            .iter()
            .enumerate()
            .map(|(i, a)| self.cover(obs, a, i))
            .collect();
        let values = self.with_nets(|n| n.q.values(&state));
        let values = match values {
            Some(Ok(v)) => Some(v),
            Some(Err(e)) => {
                self.note_error("Q-network", e);
                None
            }
            None => None,
        };
        let (index, why) = match &values {
            Some(v) if self.q_ready() && !rng.gen_bool(self.cfg.epsilon) => {
                let scored: Vec<f32> = covers.iter().map(|c| self.action_value(v, c)).collect();
                let top = scored.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let best: Vec<usize> = (0..acts.len()).filter(|i| scored[*i] >= top).collect();
                let i = *best.choose(rng).expect("one is the top");
                (i, format!("greedy (value {:.3})", scored[i]))
            }
            _ => {
                // A random choice may also probe an element of a look never probed: as
                // often as such elements are among the choices, at most as often as
                // probes have found controls.
                let share = probes.len() as f64 / (acts.len() + probes.len()) as f64;
                if !probes.is_empty() && rng.gen_bool(share.min(self.probe_yield())) {
                    let a = probes[rng.gen_range(0..probes.len())].clone();
                    return self.probe(obs, a, state, " at random (epsilon)");
                }
                (rng.gen_range(0..acts.len()), "random (epsilon)".to_string())
            }
        };
        let choice = acts[index].clone();
        let source = self.offered.get(&choice).copied().unwrap_or(Source::Rule);
        let features = (source == Source::Predicted)
            .then(|| {
                choice
                    .target
                    .as_deref()
                    .and_then(|t| obs.element(t))
                    .map(|e| discriminator::features(obs, e))
            })
            .flatten();
        if source == Source::Predicted {
            lock_mind(&self.mind).predicted_taken += 1;
        }
        let why = if source == Source::Predicted {
            format!("{why}, predicted by the discriminator")
        } else {
            why
        };
        let fill = self.cfg.fill_forms && source == Source::Rule;
        let (a, plan, why) = take(&choice, why, fill, view, self.inputs.as_mut(), rng);
        self.chosen = Some(match plan {
            // The first field of the form is what is taken now.
            Some(plan) => {
                self.route = Some(plan);
                chosen(self.cover(obs, &a, 0), Source::Rule, &a, None)
            }
            None => chosen(covers[index].clone(), source, &a, features),
        });
        self.rationale = Some(why);
        a
    }

    fn learn(&mut self, t: &Transition<'_>) {
        let steps = {
            let mut m = lock_mind(&self.mind);
            m.steps += 1;
            m.steps
        };
        self.episode_step += 1;
        self.train_along(steps);
        crate::fill::teach(self.inputs.as_mut(), t);
        let Some(chosen) = self.chosen.take() else {
            return;
        };
        if t.failed {
            return;
        }
        let next = self.embedding(t.next_observation);
        // Did the page answer? Labels for the discriminator, and a way back for probes.
        if let Some(features) = chosen.features {
            let requests = t.events.iter().any(|e| e.kind == EventKind::HttpResponse);
            let changed = discriminator::changed(t.observation, t.next_observation, requests);
            let label = if changed {
                discriminator::class_of(chosen.kind).unwrap_or(discriminator::NONE)
            } else {
                discriminator::NONE
            };
            {
                let mut m = lock_mind(&self.mind);
                if changed {
                    match chosen.source {
                        Source::Probe => m.probe_hits += 1,
                        Source::Predicted => m.predicted_hits += 1,
                        Source::Rule => {}
                    }
                }
                m.samples.push_back((Arc::new(features), label));
                if m.samples.len() > MAX_SAMPLES {
                    m.samples.pop_front();
                }
            }
            self.back_after_probe = chosen.source == Source::Probe
                && t.observation.url != t.next_observation.url
                && self.in_probe_phase()
                && self.probes_this_episode < self.probe_budget();
        }
        let r_epi = self.episodic.visit(next.clone());
        let alpha = self.global_alpha(&next);
        let reward = match self.variant {
            Variant::GlobalOnly => alpha.clamp(1.0, self.cfg.reward_cap),
            _ => combine(r_epi, alpha, self.cfg.reward_cap),
        };
        // A probe has no place in the candidate list: the list-based values learn nothing
        // from it.
        if !(self.variant == Variant::ListBased && chosen.source == Source::Probe) {
            let next_covers = Arc::new(self.page_covers(t.next_observation));
            let mut m = lock_mind(&self.mind);
            m.replay.push_back(Experience {
                state: chosen.state,
                cover: Arc::new(chosen.cover),
                reward: reward as f32,
                next: next.clone(),
                next_covers,
            });
            if m.replay.len() > self.cfg.replay {
                m.replay.pop_front();
            }
        }
        self.remember_state(next);
    }

    fn take_train_time(&mut self) -> Duration {
        std::mem::take(&mut self.unreported_training)
    }

    fn on_episode_end(&mut self) {
        let started = Instant::now();
        lock_mind(&self.mind).episodes += 1;
        self.train_episode();
        self.save_if_asked();
        self.episodic.reset();
        self.episode_step = 0;
        self.probes_this_episode = 0;
        self.back_after_probe = false;
        self.route = None;
        self.chosen = None;
        lock_mind(&self.mind).train_time += started.elapsed();
    }

    fn on_run_end(&mut self) {
        self.save_if_asked();
    }

    fn rationale(&self) -> Option<String> {
        self.rationale.clone()
    }

    fn snapshot(&self) -> Option<StrategySnapshot> {
        let m = lock_mind(&self.mind);
        let trainings = m.nets.as_deref().map_or(0, |n| lock(n).trainings);
        let mut counters = vec![
            ("steps learned".to_string(), m.steps),
            ("episodes trained".into(), m.episodes),
            ("Q-network trainings".into(), trainings),
            ("replay buffer".into(), m.replay.len() as u64),
            ("states for the autoencoder".into(), m.states.len() as u64),
            ("training ms".into(), m.train_time.as_millis() as u64),
        ];
        if self.variant.discriminates() {
            counters.extend([
                ("probes".to_string(), m.probes),
                ("probes that changed the page".into(), m.probe_hits),
                (
                    "probes due at the next episode's end".into(),
                    u64::from(self.probe_budget_in(&m)),
                ),
                ("discriminator samples".into(), m.samples.len() as u64),
                ("discriminator on".into(), u64::from(m.disc_on)),
                ("discriminator trainings".into(), m.disc_trainings),
                ("predicted actions taken".into(), m.predicted_taken),
                (
                    "predicted actions that changed the page".into(),
                    m.predicted_hits,
                ),
            ]);
        }
        if m.errors > 0 {
            counters.push(("network errors".into(), m.errors));
        }
        let mut rows = Vec::new();
        if let Some(l) = m.last_q_loss {
            rows.push(vec![
                "Q-network loss (last batch)".into(),
                format!("{l:.5}"),
            ]);
        }
        if let Some(l) = m.last_disc_loss {
            rows.push(vec!["discriminator loss".into(), format!("{l:.5}")]);
        }
        if let Some(s) = m.scale {
            rows.push(vec![
                "autoencoder error (mean, std)".into(),
                format!("{:.5}, {:.5}", s.mean, s.std),
            ]);
        }
        if let Some(e) = &m.last_error {
            rows.push(vec!["last network error".into(), e.clone()]);
        }
        let total_rows = rows.len();
        Some(StrategySnapshot {
            strategy: self.variant.name().into(),
            counters,
            tables: vec![SnapshotTable {
                name: "networks".into(),
                columns: vec!["what".into(), "value".into()],
                rows,
                total_rows,
            }],
        })
    }
}

#[cfg(test)]
mod tests;
