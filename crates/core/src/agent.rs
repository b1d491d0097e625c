//! The `Agent` trait: a strategy that picks the next action. Strategies see observations,
//! abstract states and candidate actions, never CDP.

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::model::{Action, Event, Observation};
use crate::state::{Analysis, StateData, StateId};

/// What an agent sees when it decides.
pub struct View<'a> {
    pub observation: &'a Observation,
    pub analysis: &'a Analysis,
    /// Candidate actions in this state, without input values (deny rules applied).
    pub actions: &'a [Action],
    /// Steps taken in this episode so far.
    pub episode_step: u32,
}

impl View<'_> {
    pub fn state(&self) -> StateId {
        self.analysis.state
    }
}

/// One step as the agent learns from it.
pub struct Transition<'a> {
    pub state: StateId,
    /// The page the action was taken on.
    pub observation: &'a Observation,
    pub action: &'a Action,
    pub next_state: StateId,
    pub next_observation: &'a Observation,
    pub events: &'a [Event],
    /// The next state had never been seen in this run.
    pub new_state: bool,
    /// The action could not be performed (its target was gone, the step failed).
    pub failed: bool,
    /// What the action caused for the first time in the run (curiosity beyond states).
    pub novelty: crate::novelty::Novelty,
}

/// What a strategy has learned, for the run store and the report: a few counters and
/// tables (a Q-table, an automaton, a frontier), already in display form.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StrategySnapshot {
    pub strategy: String,
    /// Named counters ("escapes", "broken replays", "q entries" ...), in display order.
    pub counters: Vec<(String, u64)>,
    pub tables: Vec<SnapshotTable>,
}

/// One table of a snapshot. Strategies cap the rows they hand out; `total_rows` says
/// how many there were.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SnapshotTable {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub total_rows: usize,
}

/// A strategy. One seeded generator is handed in for every random choice, so the same
/// seed against a deterministic application gives the same actions.
pub trait Agent {
    fn name(&self) -> &str;

    /// Pick an action among `view.actions` (or any other action), with values filled in.
    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action;

    fn learn(&mut self, _transition: &Transition<'_>) {}

    /// Time spent training networks inside `learn` since the last call, which the step's
    /// time split reports as training rather than learning. Zero for strategies that train
    /// only in `on_episode_end` (always counted as training).
    fn take_train_time(&mut self) -> std::time::Duration {
        std::time::Duration::ZERO
    }

    fn on_episode_end(&mut self) {}

    /// Called once when the run ends (budget spent, stopped, or failed): save what was
    /// learned.
    fn on_run_end(&mut self) {}

    /// Actions the strategy finds on the page beyond the rule-based `candidates` (what a
    /// learned discriminator predicts, probes of elements no rule selected). The loop adds
    /// them to the candidates after dropping any on a missing, hidden, disabled or denied
    /// element, so a page no rule finds anything on is not a dead end for this strategy.
    fn extra_actions(&mut self, _observation: &Observation, _candidates: &[Action]) -> Vec<Action> {
        Vec::new()
    }

    /// Asked before `choose` everywhere but at the start of an episode: `true` ends the
    /// episode here and the loop resets (strategies that replay paths from the start).
    fn wants_reset(&mut self, _view: &View<'_>) -> bool {
        false
    }

    /// Asked before `choose` on a scanned page: a region of the page (CSS pixels) to
    /// picture for a vision prompt, or `None` (the default: screenshots cost ~50 ms). The
    /// picture reaches `choose` as `view.observation.picture`.
    fn wants_picture(&mut self, _view: &View<'_>) -> Option<crate::model::Rect> {
        None
    }

    /// Why the last `choose` picked its action, in a few words ("explore", "replay 2/5
    /// to s7"), recorded with the step.
    fn rationale(&self) -> Option<String> {
        None
    }

    /// Data the strategy computes once per page and wants back whenever state inference
    /// guesses the page instead of scanning it (an embedding, an LLM answer): put it in
    /// `data`, typed. Called right after the analysis of every scanned page.
    fn annotate(&mut self, _observation: &Observation, _data: &mut StateData) {}

    /// On a guessed page, bring data that grows with the run up to date (similarities
    /// against states seen since it was stored); `true` when `data` changed, so the
    /// knowledge base keeps the refined value.
    fn refine(&mut self, _observation: &Observation, _data: &mut StateData) -> bool {
        false
    }

    /// An independent copy with the same state, or `None` when the strategy cannot be
    /// copied. State inference tries a choice on a copy and keeps it only when the guess
    /// about the page holds; without a copy, inference stays off.
    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        None
    }

    /// What the strategy has learned so far; the loop hands it to observers at the end
    /// of every episode and of the run.
    fn snapshot(&self) -> Option<StrategySnapshot> {
        None
    }

    /// An agent for one more worker of the same run (`--workers N`): it shares what this
    /// one learns (the merge is the strategy's to define and document) and keeps its own
    /// per-episode state (the page it is on, the route it replays, its typed values). The
    /// workers' agents are called from different threads at once, so what they share sits
    /// behind a lock. `None`: the strategy cannot run with several workers.
    fn worker(&self) -> Option<Box<dyn Agent + Send>> {
        None
    }
}
