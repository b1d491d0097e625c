//! Several workers in one run, on the simulated application: the budget is shared and
//! every step is recorded once, in order; a worker whose browser dies retires while the
//! others go on; an application failure stops them all.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::agent::{Transition, View};
use crate::env::{Outcome, Performed};
use crate::model::{Action, ActionKind};
use crate::observer::Progress;
use crate::record::{ResetRecord, StepRecord};
use crate::runner::KnowledgeRow;
use crate::sim::{SimApp, SimEnv};
use crate::state::StructureAbstraction;

/// Uniform choices; the transitions learned by all of its workers are counted in one place.
#[derive(Clone)]
struct Uniform {
    learned: Arc<Mutex<u64>>,
}

impl Agent for Uniform {
    fn name(&self) -> &str {
        "uniform"
    }
    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let a = view.actions[rng.gen_range(0..view.actions.len())].clone();
        match a.kind {
            ActionKind::Type => a.with_value("x"),
            _ => a,
        }
    }
    fn learn(&mut self, _t: &Transition<'_>) {
        *self.learned.lock().unwrap() += 1;
    }
    fn worker(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(self.clone()))
    }
    /// A trial copy for state inference learns into a count of its own.
    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(Uniform {
            learned: Arc::new(Mutex::new(0)),
        }))
    }
}

/// A simulated browser that dies for good after `after` steps, or whose login fails then.
/// Each step waits a millisecond, as a browser waits for its page: the workers' threads
/// then interleave as they do on real browsers instead of one racing through the budget.
struct Dying {
    sim: SimEnv,
    after: u32,
    steps: u32,
    login: bool,
}

impl Dying {
    fn gone(&self) -> Option<EnvError> {
        (self.steps >= self.after).then(|| match self.login {
            true => EnvError::Login("login step 1 of 2 found no #user".into()),
            false => EnvError::Browser("the browser could not be restarted".into()),
        })
    }
}

impl Dying {
    /// One action's worth of the browser: its death, or a millisecond of waiting.
    fn act(&mut self) -> Result<(), EnvError> {
        if let Some(e) = self.gone() {
            return Err(e);
        }
        self.steps += 1;
        std::thread::sleep(std::time::Duration::from_millis(1));
        Ok(())
    }
}

impl Environment for Dying {
    fn reset(&mut self) -> Result<Outcome, EnvError> {
        match self.gone() {
            Some(e) => Err(e),
            None => self.sim.reset(),
        }
    }
    fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
        self.act()?;
        self.sim.step(action)
    }
    fn perform(&mut self, action: &Action) -> Result<Performed, EnvError> {
        self.act()?;
        self.sim.perform(action)
    }
    fn observe(&mut self) -> Result<Outcome, EnvError> {
        self.sim.observe()
    }
    fn probe(&mut self, locator: Option<&str>) -> Result<crate::env::Probe, EnvError> {
        self.sim.probe(locator)
    }
    fn can_infer(&self) -> bool {
        self.sim.can_infer()
    }
    fn endpoint(&self) -> Option<String> {
        Some("sim".into())
    }
}

#[derive(Default)]
struct Log {
    steps: Vec<(u64, u32, u64)>,
    actions: Vec<(u32, Action)>,
    resets: Vec<(u64, u32)>,
    retired: Vec<(u32, String)>,
    knowledge: Vec<usize>,
    ends: u32,
}

impl Observer for Log {
    fn on_step(&mut self, r: &StepRecord, p: &Progress) {
        assert_eq!(p.steps, r.step, "progress counts the step just recorded");
        self.steps.push((r.step, r.worker, r.episode));
        self.actions.push((r.worker, r.action.clone()));
    }
    fn on_reset(&mut self, r: &ResetRecord, _: &Progress) {
        self.resets.push((r.episode, r.worker));
    }
    fn on_retire(&mut self, worker: u32, browser: &str, why: &str) {
        self.retired.push((worker, format!("{browser}: {why}")));
    }
    fn on_knowledge(&mut self, rows: &[KnowledgeRow]) {
        self.knowledge.push(rows.len());
    }
    fn on_end(&mut self, _: &RunSummary) {
        self.ends += 1;
    }
}

fn options(budget: Budget) -> RunOptions {
    RunOptions::new(budget, 15, 3)
}

/// Run `envs` as the workers of one run of `Uniform`; returns the summary, the log and
/// how many transitions the agents learned together.
fn explore(envs: &mut [Dying], budget: Budget) -> (RunSummary, Log, u64) {
    explore_with(envs, options(budget))
}

fn explore_with(envs: &mut [Dying], opts: RunOptions) -> (RunSummary, Log, u64) {
    let learned = Arc::new(Mutex::new(0));
    let mut agent = Uniform {
        learned: learned.clone(),
    };
    let mut abs = StructureAbstraction::default();
    let mut log = Log::default();
    let summary = run_workers(
        envs.iter_mut()
            .map(|e| e as &mut (dyn Environment + Send))
            .collect(),
        &mut agent,
        &mut abs,
        &opts,
        &mut [&mut log],
    )
    .unwrap();
    let n = *learned.lock().unwrap();
    (summary, log, n)
}

fn envs(n: usize, after: &[u32]) -> Vec<Dying> {
    let app = SimApp::generate(5, 12);
    (0..n)
        .map(|i| Dying {
            sim: SimEnv::new(app.clone()),
            after: after.get(i).copied().unwrap_or(u32::MAX),
            steps: 0,
            login: false,
        })
        .collect()
}

/// Every step is recorded once and numbered in order; each episode is one worker's.
fn check_records(log: &Log, steps: u64) {
    let numbers: Vec<u64> = log.steps.iter().map(|s| s.0).collect();
    assert_eq!(numbers, (1..=steps).collect::<Vec<_>>());
    let owner: BTreeMap<u64, u32> = log.resets.iter().copied().collect();
    assert_eq!(owner.len(), log.resets.len(), "episode numbers are unique");
    for (step, worker, episode) in &log.steps {
        assert_eq!(
            owner.get(episode),
            Some(worker),
            "step {step} of worker {worker} is in an episode its worker began"
        );
    }
    assert_eq!(log.ends, 1);
}

#[test]
fn three_workers_share_the_budget_and_every_step_is_recorded_once_in_order() {
    let mut e = envs(3, &[]);
    let (summary, log, learned) = explore(&mut e, Budget::actions(300));
    assert_eq!(summary.steps, 300);
    check_records(&log, 300);
    assert_eq!(
        learned, 300,
        "every worker's agent learned into the shared count"
    );
    assert_eq!(summary.workers.len(), 3);
    assert_eq!(summary.workers.iter().map(|w| w.steps).sum::<u64>(), 300);
    let by_worker: BTreeSet<u32> = log.steps.iter().map(|s| s.1).collect();
    assert_eq!(by_worker, BTreeSet::from([0, 1, 2]));
    assert!(summary.workers.iter().all(|w| w.steps >= 20), "{summary:?}");
    assert_eq!(
        summary.episodes,
        summary.workers.iter().map(|w| w.episodes).sum::<u64>()
    );
    assert_eq!(summary.stopped_early, None);
}

#[test]
fn a_worker_whose_browser_dies_retires_and_the_others_spend_the_budget() {
    let mut e = envs(3, &[u32::MAX, 20]);
    let (summary, log, _) = explore(&mut e, Budget::actions(240));
    assert_eq!(
        summary.steps, 240,
        "the claimed step of the dead worker was given back"
    );
    check_records(&log, 240);
    assert_eq!(summary.stopped_early, None);
    assert!(!summary.ended_by_environment);
    let dead = &summary.workers[1];
    assert_eq!(dead.steps, 20);
    assert!(dead
        .retired
        .as_deref()
        .unwrap()
        .contains("could not be restarted"));
    assert!(summary.workers[0].retired.is_none() && summary.workers[2].retired.is_none());
    assert_eq!(log.retired.len(), 1);
    assert_eq!(log.retired[0].0, 1);
    assert!(log.retired[0].1.starts_with("sim: browser unavailable"));
}

#[test]
fn when_every_browser_is_gone_the_environment_ended_the_run() {
    let mut e = envs(2, &[10, 15]);
    let (summary, log, _) = explore(&mut e, Budget::actions(200));
    assert_eq!(summary.steps, 25);
    check_records(&log, 25);
    assert!(summary.ended_by_environment);
    assert!(summary
        .stopped_early
        .as_deref()
        .unwrap()
        .contains("could not be restarted"));
}

#[test]
fn a_failing_login_stops_every_worker() {
    let mut e = envs(3, &[u32::MAX, u32::MAX, 30]);
    e[2].login = true;
    let (summary, log, _) = explore(&mut e, Budget::actions(3000));
    assert!(summary.steps < 3000);
    check_records(&log, summary.steps);
    assert!(summary.ended_by_environment);
    assert!(summary.stopped_early.as_deref().unwrap().contains("login"));
    assert!(summary.workers.iter().all(|w| w.retired.is_none()));
    assert!(log.retired.is_empty());
}

#[test]
fn workers_end_a_time_budget_together() {
    let mut e = envs(2, &[]);
    let (summary, log, _) = explore(&mut e, "1s".parse().unwrap());
    assert!(summary.duration_s >= 1.0 && summary.duration_s < 5.0);
    check_records(&log, summary.steps);
    assert!(summary.workers.iter().all(|w| w.steps > 0));
}

#[test]
fn worker_zero_takes_the_single_runs_actions_and_the_others_their_own() {
    let mut one = envs(1, &[]);
    let (a, single, _) = explore(&mut one, Budget::actions(90));
    assert!(a.workers.is_empty());
    let mut three = envs(3, &[]);
    let (_, fleet, _) = explore(&mut three, Budget::actions(90));
    let of = |log: &Log, w: u32| -> Vec<Action> {
        log.actions
            .iter()
            .filter(|(x, _)| *x == w)
            .map(|(_, a)| a.clone())
            .collect()
    };
    // Worker 0 draws from the seed's own stream on its own browser: its steps are the
    // single run's first ones, whatever the others do meanwhile.
    let zero = of(&fleet, 0);
    assert!(zero.len() >= 10);
    assert_eq!(zero[..], of(&single, 0)[..zero.len()]);
    // The others draw from other streams.
    let one = of(&fleet, 1);
    let n = one.len().min(zero.len());
    assert_ne!(one[..n], zero[..n]);
}

#[test]
fn with_state_inference_the_workers_guess_from_one_knowledge_base_and_their_own_agents_learn_every_step(
) {
    let mut e = envs(3, &[]);
    let mut opts = options(Budget::actions(600));
    opts.inference = Some("actions-3".parse().unwrap());
    let (summary, log, learned) = explore_with(&mut e, opts);
    check_records(&log, 600);
    let inference = summary.inference.expect("inference ran");
    assert_eq!(inference.disabled, None);
    assert_eq!(inference.steps, 600, "every worker's steps are counted");
    assert!(inference.predicted_steps > 0, "{inference:?}");
    // A guess that held is learned by the worker's own agent (into the shared count), not
    // by the trial copy alone.
    assert_eq!(learned, 600);
    assert_eq!(log.knowledge.len(), 1, "one knowledge base for the run");
    assert!(log.knowledge[0] > 0);
}

#[test]
fn with_auto_workers_the_first_probes_alone_then_the_chosen_ones_explore() {
    let mut e = envs(3, &[]);
    let mut opts = options(Budget::actions(120));
    opts.auto_workers = Some(AutoWorkers { probe_steps: 20 });
    let (summary, log, _) = explore_with(&mut e, opts);
    assert_eq!(summary.steps, 120);
    check_records(&log, 120);
    assert!(
        log.steps[..20].iter().all(|s| s.1 == 0),
        "the probe is the first worker's alone"
    );
    let note = summary
        .auto_workers
        .clone()
        .expect("auto says what it chose");
    let chosen: usize = note.split(' ').next().unwrap().parse().unwrap();
    assert!(
        note.contains("of 3 browsers") && note.contains("over its first 20 steps"),
        "{note}"
    );
    let explored = summary.workers.iter().filter(|w| w.steps > 0).count();
    assert_eq!(explored, chosen, "{summary:?}");
    for w in &summary.workers[chosen..] {
        assert_eq!(w.retired.as_deref(), Some("left idle by --workers auto"));
    }
    assert_eq!(summary.stopped_early, None);
}

#[test]
fn a_run_shorter_than_the_probe_keeps_one_browser_and_says_so() {
    let mut e = envs(3, &[]);
    let mut opts = options(Budget::actions(10));
    opts.auto_workers = Some(AutoWorkers { probe_steps: 20 });
    let (summary, log, _) = explore_with(&mut e, opts);
    assert_eq!(summary.steps, 10);
    assert!(log.steps.iter().all(|s| s.1 == 0));
    assert!(summary
        .auto_workers
        .as_deref()
        .unwrap()
        .contains("ended before the probe"));
    assert_eq!(summary.workers[1].steps, 0);
    assert_eq!(
        summary.stopped_early, None,
        "idle workers are no reason to stop"
    );
}

/// A handover that wants the first explorer that asks once a step was taken, and counts
/// what it was given.
#[derive(Default)]
struct Counting {
    served: Mutex<Vec<(u32, usize)>>,
    finished: Mutex<Vec<u32>>,
    wanted_once: Mutex<bool>,
}

impl Handover for Counting {
    fn wanted(&self, duty: Duty) -> bool {
        let mut once = self.wanted_once.lock().unwrap();
        if *once || duty.idle {
            return false;
        }
        *once = true;
        self.served
            .lock()
            .unwrap()
            .push((duty.worker, duty.exploring));
        true
    }
    fn serve(&self, _worker: u32, env: &mut dyn Environment) -> bool {
        // A replay: the page is left wherever it ends.
        env.reset().unwrap();
        true
    }
    fn finish(&self, worker: u32, _env: &mut dyn Environment, _started: Instant) {
        self.finished.lock().unwrap().push(worker);
        // Work after the budget is not the exploration's time.
        std::thread::sleep(Duration::from_secs(3));
    }
}

#[test]
fn browsers_are_handed_over_during_the_run_and_each_finishes_the_work_after_it() {
    let mut e = envs(2, &[]);
    let counting = Arc::new(Counting::default());
    let mut opts = options(Budget::actions(60));
    opts.handover = Some(counting.clone());
    let (summary, log, _) = explore_with(&mut e, opts);
    assert_eq!(summary.steps, 60, "handing over took no step of the budget");
    check_records(&log, 60);
    let served = counting.served.lock().unwrap().clone();
    assert_eq!(served.len(), 1, "{served:?}");
    assert_eq!(served[0].1, 2, "both explored when one handed over");
    let mut finished = counting.finished.lock().unwrap().clone();
    finished.sort();
    assert_eq!(finished, [0, 1], "every browser finishes the work");
    assert!(
        summary.duration_s < 2.0,
        "the run's length leaves out the work after it: {}",
        summary.duration_s
    );
}

#[test]
fn a_stopped_run_does_not_finish_the_handed_over_work() {
    let mut e = envs(2, &[]);
    let counting = Arc::new(Counting::default());
    let mut opts = options(Budget::actions(60));
    opts.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    opts.handover = Some(counting.clone());
    let _ = explore_with(&mut e, opts);
    assert!(counting.finished.lock().unwrap().is_empty());
}

/// An environment that answers a step only through `answer` and `aftermath`: any other
/// question about it (a scan, the server's lines and output, the target's name) panics.
struct Answering {
    sim: SimEnv,
    answers: u32,
    aftermaths: u32,
}

impl Environment for Answering {
    fn reset(&mut self) -> Result<Outcome, EnvError> {
        self.sim.reset()
    }
    fn step(&mut self, _: &Action) -> Result<Outcome, EnvError> {
        panic!("the loop asked for a step outside `answer`")
    }
    fn server_take(&mut self) -> Option<u64> {
        panic!("the loop read the server's lines outside `answer`")
    }
    fn server_output(&mut self) -> crate::server::ServerOutput {
        panic!("the loop read the server's output outside `answer`")
    }
    fn target_name(&mut self) -> Option<crate::env::TargetName> {
        panic!("the loop asked the target's name outside `answer`")
    }
    fn answer(
        &mut self,
        action: &Action,
        _before: &crate::model::Observation,
        _unscanned: bool,
    ) -> Result<crate::env::Answer, EnvError> {
        self.answers += 1;
        let out = self.sim.step(action)?;
        Ok(crate::env::Answer {
            performed: Performed::Observed(Box::new(out)),
            error: None,
            target_name: None,
            aftermath: self.aftermath(),
        })
    }
    fn aftermath(&mut self) -> crate::env::Aftermath {
        self.aftermaths += 1;
        crate::env::Aftermath {
            server_lines: Some(u64::from(self.answers % 3)),
            ..Default::default()
        }
    }
}

#[test]
fn the_loop_asks_the_environment_once_a_step_and_reads_the_answer() {
    let mut env = Answering {
        sim: SimEnv::new(SimApp::generate(5, 12)),
        answers: 0,
        aftermaths: 0,
    };
    let mut agent = Uniform {
        learned: Arc::new(Mutex::new(0)),
    };
    let mut abs = StructureAbstraction::default();
    let mut log = Log::default();
    let mut lines = Vec::new();
    struct Lines<'a>(&'a mut Vec<Option<u64>>);
    impl Observer for Lines<'_> {
        fn on_step(&mut self, r: &StepRecord, _: &Progress) {
            self.0.push(r.novelty.server_lines);
        }
    }
    let summary = run_workers(
        vec![&mut env as &mut (dyn Environment + Send)],
        &mut agent,
        &mut abs,
        &options(Budget::actions(40)),
        &mut [&mut log, &mut Lines(&mut lines)],
    )
    .unwrap();
    assert_eq!(summary.steps, 40);
    assert_eq!(env.answers, 40, "one answer a step");
    assert_eq!(
        env.aftermaths,
        40 + log.resets.len() as u32,
        "one aftermath a step (inside its answer) and one a reset"
    );
    let expected: Vec<Option<u64>> = (1..=40).map(|n| Some(n % 3)).collect();
    assert_eq!(lines, expected, "each step's server lines are its answer's");
}
