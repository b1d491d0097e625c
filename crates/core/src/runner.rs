//! The exploration loop: episodes of agent steps against one environment or several at
//! once (workers), within a budget, with every random choice drawn from seeded generators.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::agent::Agent;
use crate::budget::Budget;
use crate::candidates::DenyText;
use crate::env::{EnvError, Environment};
use crate::forms::FormTracker;
use crate::infer::InferenceConfig;
use crate::llm::SharedUsage;
use crate::observer::Observer;
use crate::oracle::Oracles;
use crate::state::Abstraction;
use crate::summary::RunSummary;

mod auto;
mod carry;
mod episode;
mod finish;
mod handover;
mod hub;
mod perform;
mod predict;
mod spec_mix;
mod worker;

#[cfg(test)]
mod start_tests;
#[cfg(test)]
mod tests;

pub use crate::observer::KnowledgeRow;
pub use crate::record::StepInference;
pub use auto::{cpu_ticks, workers_for, AutoWorkers};
pub use handover::{Duty, Handover};
use hub::Hub;
use predict::Predictor;
use worker::{Cursor, Driver, Worker};

/// Resets in a row that found no action on the start page, each waited for, before the
/// run tries a fresh browser; a fresh browser that finds none either ends the run.
const EMPTY_START_LIMIT: u32 = 3;

/// How long a start page that offered nothing is waited for to show something (an
/// application that renders its interface late, or restores a saved workspace, after
/// its load event and a quiet moment): as long as a page may take to load.
const START_WAIT: Duration = Duration::from_secs(10);

/// How a run is shaped.
pub struct RunOptions {
    pub budget: Budget,
    /// Steps per episode before a reset.
    pub episode_steps: u32,
    pub seed: u64,
    pub deny: DenyText,
    pub oracles: Oracles,
    /// Set from outside (Ctrl-C) to end the run early with a summary.
    pub stop: Arc<AtomicBool>,
    /// What is explored, for the summary.
    pub target: String,
    /// State inference (DESIGN 8); `None` scans after every action.
    pub inference: Option<InferenceConfig>,
    /// The usage counters of the language model the agent asks, when it asks one: the
    /// summary reports them, and the steps report the model's time apart from deciding.
    pub llm: Option<SharedUsage>,
    /// `--workers auto`: the first worker probes alone, then as many of the others
    /// explore as the machine has room for (`runner::auto`); `None`: all of them at once.
    pub auto_workers: Option<AutoWorkers>,
    /// Work the browsers are handed over for besides exploring (shrinking the failures
    /// found): by a browser left idle, by one explorer at a time while the work's share
    /// allows, and by every browser once the budget is spent. `None`: none.
    pub handover: Option<Arc<dyn Handover>>,
}

impl RunOptions {
    /// A run of `budget` in episodes of `episode_steps`, seeded with `seed`, with nothing
    /// else asked for: no deny rule, the default oracles (no application origin named),
    /// never stopped from outside, no state inference, no language model; target "sim".
    /// What simulated runs (tests, benchmarks) start from.
    pub fn new(budget: Budget, episode_steps: u32, seed: u64) -> RunOptions {
        RunOptions {
            budget,
            episode_steps,
            seed,
            deny: DenyText::default(),
            oracles: Oracles::new(crate::config::OracleConfig::default(), Vec::new())
                .expect("the default oracle configuration is valid"),
            stop: Arc::new(AtomicBool::new(false)),
            target: "sim".into(),
            inference: None,
            llm: None,
            auto_workers: None,
            handover: None,
        }
    }
}

/// One more browser for a run with several workers: an environment of its own, explored
/// by an agent the first agent makes for it (`Agent::worker`).
pub type WorkerEnv<'a> = &'a mut (dyn Environment + Send);

/// Why inference cannot run here, when it cannot.
fn inference_blocker(env: &dyn Environment, agent: &dyn Agent) -> Option<String> {
    if !env.can_infer() {
        Some("the environment cannot act without scanning".into())
    } else if agent.fork().is_none() {
        Some(format!("the strategy {} cannot be copied", agent.name()))
    } else {
        None
    }
}

/// Runs one exploration and returns its summary. An environment that cannot be used at
/// all (the start URL unreachable, the browser gone) ends the run with a summary that says
/// why (`stopped_early`, `ended_by_environment`), so a report is still written.
pub fn run(
    env: &mut (dyn Environment + Send),
    agent: &mut (dyn Agent + Send),
    abstraction: &mut (dyn Abstraction + Send),
    opts: &RunOptions,
    observers: &mut [&mut (dyn Observer + Send)],
) -> Result<RunSummary, EnvError> {
    run_workers(vec![env], agent, abstraction, opts, observers)
}

/// Runs one exploration with one worker per environment, at once, each on its own thread
/// (the first on the caller's). `agent` drives the first; each other worker gets
/// `agent.worker()`, which shares what the first learns. The workers share the abstraction,
/// the failure table, the budget and the observers: steps are numbered in the order they
/// are recorded, episodes likewise. Worker `i` draws from stream `i` of the seed's
/// generator, so one worker is exactly the single-browser run. A worker whose browser
/// cannot be restarted retires and the others go on; when none is left, the summary says
/// why, as with one worker.
pub fn run_workers(
    envs: Vec<WorkerEnv<'_>>,
    agent: &mut (dyn Agent + Send),
    abstraction: &mut (dyn Abstraction + Send),
    opts: &RunOptions,
    observers: &mut [&mut (dyn Observer + Send)],
) -> Result<RunSummary, EnvError> {
    let started = Instant::now();
    let asked = envs.len();
    let blocked = match (opts.inference, envs.first()) {
        (Some(_), Some(env)) => inference_blocker(&**env, &*agent),
        _ => None,
    };
    if let Some(why) = &blocked {
        tracing::warn!("state inference is off: {why}");
    }
    let strategy = agent.name().to_string();
    // One knowledge base for the run: what one worker scanned, another may guess.
    let base = opts
        .inference
        .filter(|_| blocked.is_none())
        .map(Predictor::new);
    let mut workers = make_workers(envs, agent, opts, base.as_ref());
    let hub = Hub::new(abstraction, observers, opts, started, workers.len());
    explore_all(&mut workers, &hub);
    for w in workers.iter_mut().rev() {
        w.agent.get().on_run_end();
    }
    let ended = finish::Ended::of(&hub, opts, asked, started);
    let s = hub.into_shared();
    let summary = finish::summarize(
        &mut workers,
        s,
        ended,
        (opts, strategy, asked),
        (base.as_ref(), blocked),
    );
    Ok(summary)
}

/// One worker per environment, each with its agent (the first drives `agent` itself, the
/// others its `worker()` copies, as many as it can share with) and its random stream.
fn make_workers<'e: 'a, 'a>(
    envs: Vec<WorkerEnv<'e>>,
    agent: &'a mut (dyn Agent + Send),
    opts: &RunOptions,
    base: Option<&Predictor>,
) -> Vec<Worker<'a>> {
    let asked = envs.len();
    let strategy = agent.name().to_string();
    let mut extra_agents = Vec::new();
    for i in 1..asked {
        match agent.worker() {
            Some(a) => extra_agents.push(a),
            None => {
                tracing::warn!(
                    "the strategy {strategy} cannot share its learning between workers: it runs with {i}"
                );
                break;
            }
        }
    }
    let mut agents =
        std::iter::once(Driver::Borrowed(agent)).chain(extra_agents.into_iter().map(Driver::Owned));
    let mut workers = Vec::with_capacity(asked);
    for (id, env) in envs.into_iter().enumerate() {
        let Some(agent) = agents.next() else {
            break;
        };
        let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
        rng.set_stream(id as u64);
        workers.push(Worker {
            id: id as u32,
            env,
            agent,
            rng,
            predictor: base.map(Predictor::worker),
            shares: asked > 1,
            forms: FormTracker::default(),
            steps: 0,
            episodes: 0,
            restarts: 0,
            retired: None,
            idle: false,
        });
    }
    workers
}

/// Every worker explores on a thread of its own, the first on the caller's.
fn explore_all(workers: &mut [Worker<'_>], hub: &Hub<'_, '_>) {
    match workers {
        [] => {}
        [only] => worker::explore(only, hub),
        [first, rest @ ..] => std::thread::scope(|scope| {
            for w in rest.iter_mut() {
                scope.spawn(move || worker::explore(w, hub));
            }
            worker::explore(first, hub);
        }),
    }
}

/// The model's answer time so far, seconds (0 without a model).
/// Every worker's verdicts, property by property (each checks the same specification).
fn merge_properties(
    all: impl Iterator<Item = Vec<crate::summary::PropertyVerdict>>,
) -> Vec<crate::summary::PropertyVerdict> {
    let mut out: Vec<crate::summary::PropertyVerdict> = Vec::new();
    for v in all.flatten() {
        match out.iter_mut().find(|o| o.name == v.name) {
            Some(o) => {
                o.violated += v.violated;
                o.pending += v.pending;
                o.held += v.held;
                o.errors += v.errors;
            }
            None => out.push(v),
        }
    }
    out
}

fn llm_seconds(opts: &RunOptions) -> f64 {
    opts.llm.as_ref().map_or(0.0, |u| {
        u.lock().unwrap_or_else(|p| p.into_inner()).latency_s_total
    })
}

/// Hand what the agent has learned to the observers (the store keeps the latest).
fn share_snapshot(agent: &dyn Agent, observers: &mut [&mut (dyn Observer + Send)]) {
    if let Some(snapshot) = agent.snapshot() {
        for o in observers.iter_mut() {
            o.on_strategy(&snapshot);
        }
    }
}
