//! The loop side of state inference (DESIGN section 8, SIBILLA's Algorithm 1): after an
//! action performed without a scan, take the knowledge base's candidates in order, let a
//! copy of the agent learn the guessed transition and choose its next action there, and
//! validate that choice against the live page with one cheap query. The first candidate
//! that holds is the step's next state; the copy of the agent replaces the agent, so the
//! policy is exactly the one it would have followed on a scanned page. With several
//! workers the knowledge base is the run's (one `Base` behind a lock), and a held guess is
//! learned by the worker's own agent instead, whose mind the other workers share.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;

use crate::agent::{Agent, Transition, View};
use crate::candidates::{offered_actions, DenyText};
use crate::env::{Environment, Probe};
use crate::infer::keys::{self, Key};
use crate::infer::{InferStats, InferenceConfig, InferenceSummary, Knowledge, Lookup};
use crate::model::{Action, Event, Observation};
use crate::observer::KnowledgeRow;
use crate::record::StepInference;
use crate::state::{normalize_url, Analysis};

use super::carry::carry_fields;

/// A state as the knowledge base keeps it: the scanned page and its analysis.
#[derive(Debug)]
pub(crate) struct Guess {
    /// absS of the page: its identity among the interaction's candidates.
    pub key: Key,
    pub obs: Arc<Observation>,
    pub analysis: Analysis,
}

/// What the agent will do at the next step, decided while validating a guess.
pub(crate) enum Planned {
    Act {
        action: Action,
        decision: Option<String>,
        decide: Duration,
    },
    /// The agent asked to end the episode.
    Reset,
}

/// A guess that held: the agent copy that lived it, and what the page said.
pub(crate) struct Accepted {
    pub agent: Box<dyn Agent + Send>,
    pub rng: ChaCha8Rng,
    pub planned: Option<Planned>,
    pub guess: Arc<Guess>,
    /// The guessed page as the copy saw it: the remembered scan, with the live field
    /// values carried over when the action edited a field.
    pub obs: Arc<Observation>,
    pub probe: Probe,
    /// 1-based index of the accepted candidate.
    pub index: u32,
}

/// What the step's keys found in the knowledge base.
pub(crate) enum Plan {
    /// Scan; record the outcome unless the interaction is non-deterministic.
    Scan { record: bool },
    /// Perform without a scan and try these.
    Try(Vec<Arc<Guess>>),
}

/// Everything a trial needs from the loop, borrowed for one step.
pub(crate) struct TrialCtx<'a> {
    pub deny: &'a DenyText,
    /// The step about to be taken is the last of its episode or of the budget: no next
    /// choice will be made, so the guess is validated with its first action.
    pub last: bool,
    /// The episode step the next choice would be made at.
    pub next_episode_step: u32,
}

/// What the workers of a run learn about interactions together: the knowledge base, and
/// the labels that show its keys to people.
struct Base {
    kb: Knowledge<Arc<Guess>>,
    state_labels: HashMap<Key, String>,
    action_labels: HashMap<Key, String>,
}

/// One worker's side of state inference: the run's knowledge base (shared by every
/// worker: what one scanned, the others may guess), and this worker's counters.
pub(crate) struct Predictor {
    cfg: InferenceConfig,
    base: Arc<Mutex<Base>>,
    pub stats: InferStats,
}

impl Predictor {
    pub fn new(cfg: InferenceConfig) -> Predictor {
        Predictor {
            cfg,
            base: Arc::new(Mutex::new(Base {
                kb: Knowledge::new(cfg.capacity),
                state_labels: HashMap::new(),
                action_labels: HashMap::new(),
            })),
            stats: InferStats::default(),
        }
    }

    /// The predictor of another worker: the same knowledge base, counters of its own.
    pub fn worker(&self) -> Predictor {
        Predictor {
            cfg: self.cfg,
            base: self.base.clone(),
            stats: InferStats::default(),
        }
    }

    /// Every update of the base is whole under the lock: a poisoned one is usable.
    fn base(&self) -> MutexGuard<'_, Base> {
        self.base.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// absS of the page the action is taken on, absA of the action.
    pub fn keys(&mut self, before: &Observation, action: &Action) -> (Key, Key) {
        let s = keys::state_key(self.cfg.keys, before);
        let a = keys::action_key(self.cfg.keys, action, before);
        let kind = self.cfg.keys;
        let mut base = self.base();
        base.state_labels
            .entry(s)
            .or_insert_with(|| keys::state_label(kind, before));
        base.action_labels
            .entry(a)
            .or_insert_with(|| keys::action_label(kind, action, before));
        (s, a)
    }

    pub fn plan(&self, k: (Key, Key)) -> (Plan, StepInference) {
        match self.base().kb.lookup(k.0, k.1) {
            Lookup::Unknown => (Plan::Scan { record: true }, StepInference::default()),
            Lookup::NonDeterministic => (
                Plan::Scan { record: false },
                StepInference {
                    nondeterministic: true,
                    ..StepInference::default()
                },
            ),
            Lookup::Candidates(c) => (
                Plan::Try(c.iter().map(|c| c.data.clone()).collect()),
                StepInference {
                    candidates: c.len() as u32,
                    ..StepInference::default()
                },
            ),
        }
    }

    /// A scan found `obs` (analysed as `analysis`) after the interaction `k`.
    pub fn record(&mut self, k: (Key, Key), obs: &Observation, analysis: &Analysis) {
        let next = keys::state_key(self.cfg.keys, obs);
        let kind = self.cfg.keys;
        let guess = Arc::new(Guess {
            key: next,
            obs: Arc::new(obs.clone()),
            analysis: analysis.clone(),
        });
        let mut base = self.base();
        base.state_labels
            .entry(next)
            .or_insert_with(|| keys::state_label(kind, obs));
        base.kb.record(k.0, k.1, next, guess);
    }

    /// A validation accepted `guess` for the interaction `k`.
    pub fn confirm(&mut self, k: (Key, Key), guess: &Guess) {
        self.base().kb.confirm(k.0, k.1, guess.key);
    }

    /// Replace the analysis (and its data) of `guess`, a candidate of `k`; the new guess.
    pub fn refine(&mut self, k: (Key, Key), guess: &Arc<Guess>, analysis: Analysis) -> Arc<Guess> {
        let next = guess.key;
        let new = Arc::new(Guess {
            key: next,
            obs: guess.obs.clone(),
            analysis,
        });
        let stored = new.clone();
        self.base().kb.refine(k.0, k.1, next, move |g| *g = stored);
        new
    }

    /// Try the guesses in order; the first whose validation holds is returned.
    #[allow(clippy::too_many_arguments)]
    pub fn try_guesses(
        &mut self,
        guesses: &[Arc<Guess>],
        agent: &dyn Agent,
        rng: &ChaCha8Rng,
        env: &mut dyn Environment,
        before: (&Observation, &Analysis),
        action: &Action,
        events: &[Event],
        ctx: &TrialCtx<'_>,
    ) -> Option<Accepted> {
        for (i, guess) in guesses.iter().enumerate() {
            let mut trial = agent.fork()?;
            let mut trial_rng = rng.clone();
            let obs = carry_fields(&guess.obs, before.0, action)
                .map(Arc::new)
                .unwrap_or_else(|| guess.obs.clone());
            trial.learn(&Transition {
                state: before.1.state,
                observation: before.0,
                action,
                next_state: guess.analysis.state,
                next_observation: &obs,
                events,
                new_state: false,
                failed: false,
                novelty: Default::default(),
            });
            let offered = offered_actions(&obs, ctx.deny, true, trial.as_mut());
            let (planned, locator) = if ctx.last || offered.is_empty() {
                (None, offered.first().and_then(|a| a.target.clone()))
            } else {
                let view = View {
                    observation: &obs,
                    analysis: &guess.analysis,
                    actions: &offered,
                    episode_step: ctx.next_episode_step,
                };
                if trial.wants_reset(&view) {
                    (
                        Some(Planned::Reset),
                        offered.first().and_then(|a| a.target.clone()),
                    )
                } else {
                    let t = Instant::now();
                    let next = trial.choose(&view, &mut trial_rng);
                    let decision = trial.rationale();
                    let target = next.target.clone();
                    (
                        Some(Planned::Act {
                            action: next,
                            decision,
                            decide: t.elapsed(),
                        }),
                        target,
                    )
                }
            };
            self.stats.probes += 1;
            let t_probe = Instant::now();
            let probed = env.probe(locator.as_deref());
            self.stats.probe_time += t_probe.elapsed();
            let Ok(probe) = probed else {
                // The page cannot be asked: scanning is the safe answer.
                return None;
            };
            if probe.found && same_page(&probe, &obs) {
                return Some(Accepted {
                    agent: trial,
                    rng: trial_rng,
                    planned,
                    guess: guess.clone(),
                    obs,
                    probe,
                    index: i as u32 + 1,
                });
            }
            self.stats.rejected += 1;
        }
        None
    }

    /// The run's inference summary, with `stats` (every worker's counters added up).
    pub fn summary(&self, stats: &InferStats) -> InferenceSummary {
        stats.summary(self.cfg.to_string(), &self.base().kb.cardinality())
    }

    /// The knowledge base in display form, most confirmed interactions first.
    pub fn rows(&self) -> Vec<KnowledgeRow> {
        let label = |m: &HashMap<Key, String>, k: &Key| m.get(k).cloned().unwrap_or_default();
        let base = self.base();
        let mut rows: Vec<(u64, KnowledgeRow)> = base
            .kb
            .entries()
            .map(|((s, a), c)| {
                let uses = c.map_or(0, |c| c.iter().map(|c| c.confirmed).sum());
                let candidates = c
                    .unwrap_or(&[])
                    .iter()
                    .map(|c| {
                        format!(
                            "{} {} ({}×)",
                            c.data.analysis.state, c.data.obs.url, c.confirmed
                        )
                    })
                    .collect();
                (
                    uses,
                    KnowledgeRow {
                        state: label(&base.state_labels, &s),
                        action: label(&base.action_labels, &a),
                        candidates,
                        nondeterministic: c.is_none(),
                    },
                )
            })
            .collect();
        rows.sort_by(|x, y| {
            y.0.cmp(&x.0)
                .then_with(|| (&x.1.state, &x.1.action).cmp(&(&y.1.state, &y.1.action)))
        });
        rows.into_iter().map(|(_, r)| r).collect()
    }
}

/// The live page is the guessed one as far as one cheap query can tell: the same address
/// (normalised), and the same number of elements when both were counted (a list that grew
/// by a row offers the same actions at the same address, yet it is another page).
fn same_page(probe: &Probe, guess: &Observation) -> bool {
    normalize_url(&probe.url) == normalize_url(&guess.url)
        && match (probe.dom_size, guess.dom_size) {
            (Some(live), Some(stored)) => live == stored,
            _ => true,
        }
}

/// The guessed page as the step reports it: the page the agent copy saw, with what the
/// live page said about its address, title, error text and instrumentation.
pub(crate) fn observed(seen: &Observation, probe: &Probe) -> Observation {
    let mut obs = seen.clone();
    obs.url = probe.url.clone();
    obs.title = probe.title.clone();
    obs.error_text = probe.error_text.clone();
    obs.app = probe.app.clone();
    obs.dom_size = probe.dom_size;
    obs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guess_is_the_same_page_by_address_and_element_count() {
        let guess = Observation {
            url: "http://h/dashboard?sort=a".into(),
            dom_size: Some(40),
            ..Observation::default()
        };
        let probe = |url: &str, n: Option<u32>| Probe {
            found: true,
            url: url.into(),
            dom_size: n,
            ..Probe::default()
        };
        assert!(same_page(
            &probe("http://h/dashboard?sort=b", Some(40)),
            &guess
        ));
        assert!(
            !same_page(&probe("http://h/dashboard", Some(40)), &guess),
            "query keys differ"
        );
        assert!(
            !same_page(&probe("http://h/dashboard?sort=a", Some(44)), &guess),
            "a row more"
        );
        assert!(
            same_page(&probe("http://h/dashboard?sort=a", None), &guess),
            "not counted"
        );
    }
}
