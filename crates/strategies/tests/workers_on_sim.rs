//! Several workers of one run, driven by hand: each on its own simulated browser of the
//! same application, on its own thread, with its own generator, all analysing pages with
//! one abstraction (as the loop's workers will). They run at once without deadlock or
//! panic, and what they learn lands in one mind: the first agent's snapshot counts every
//! worker's steps.

use std::collections::HashSet;
use std::sync::Mutex;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::candidates::{offered_actions, DenyText};
use wayfarer_core::sim::{SimApp, SimEnv};
use wayfarer_core::state::StructureAbstraction;
use wayfarer_core::{Abstraction, Agent, Config, Environment, StateId, Transition, View};
use wayfarer_inputs::mutate::judge::route;

/// Steps of each worker, and of its episodes.
const STEPS: u32 = 60;
const EPISODE: u32 = 15;

/// What one worker saw: the states it was in, the elements of the pages it reached.
#[derive(Default)]
struct Seen {
    states: HashSet<StateId>,
    elements: HashSet<String>,
}

/// `STEPS` steps of `agent` on its own browser, as the loop takes them.
fn drive(agent: &mut dyn Agent, abs: &Mutex<StructureAbstraction>, seed: u64) -> Seen {
    let mut env = SimEnv::new(SimApp::generate(21, 14));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let deny = DenyText::default();
    let analyse = |obs: &wayfarer_core::Observation, agent: &mut dyn Agent| {
        let mut a = abs.lock().unwrap();
        let before = a.states();
        let mut analysis = a.analyse(obs);
        let new = a.states() > before;
        drop(a);
        agent.annotate(obs, analysis.data_mut());
        (analysis, new)
    };
    let mut seen = Seen::default();
    let mut obs = env.reset().unwrap().observation;
    let mut analysis = analyse(&obs, agent).0;
    let (mut taken, mut episode_step) = (0, 0);
    while taken < STEPS {
        if episode_step >= EPISODE {
            agent.on_episode_end();
            obs = env.reset().unwrap().observation;
            analysis = analyse(&obs, agent).0;
            episode_step = 0;
        }
        let actions = offered_actions(&obs, &deny, episode_step > 0, agent);
        if actions.is_empty() {
            episode_step = EPISODE;
            continue;
        }
        seen.states.insert(analysis.state);
        let view = View {
            observation: &obs,
            analysis: &analysis,
            actions: &actions,
            episode_step,
        };
        if episode_step > 0 && agent.wants_reset(&view) {
            episode_step = EPISODE;
            continue;
        }
        let action = agent.choose(&view, &mut rng);
        let (next, failed) = match env.step(&action) {
            Ok(out) => (out, false),
            Err(_) => (env.observe().unwrap(), true),
        };
        let (next_analysis, new_state) = analyse(&next.observation, agent);
        let path = route(&next.observation.url);
        for e in &next.observation.elements {
            seen.elements.insert(format!("{path} {}", e.locator));
        }
        agent.learn(&Transition {
            state: analysis.state,
            observation: &obs,
            action: &action,
            next_state: next_analysis.state,
            next_observation: &next.observation,
            events: &next.events,
            new_state,
            failed,
            novelty: Default::default(),
        });
        taken += 1;
        episode_step += 1;
        obs = next.observation;
        analysis = next_analysis;
    }
    agent.on_episode_end();
    seen
}

/// Three workers of `strategy` at once; the first agent and what each worker saw.
fn run_workers(strategy: &str) -> (Box<dyn Agent + Send>, Vec<Seen>) {
    let mut first = wayfarer_strategies::setup(strategy, &Config::default(), None, None, None)
        .unwrap()
        .agent;
    let mut others: Vec<Box<dyn Agent + Send>> = (0..2)
        .map(|_| first.worker().expect("every strategy runs with workers"))
        .collect();
    let abs = Mutex::new(StructureAbstraction::default());
    let seen = std::thread::scope(|scope| {
        let abs = &abs;
        let mut handles = vec![scope.spawn(|| drive(first.as_mut(), abs, 1))];
        for (i, w) in others.iter_mut().enumerate() {
            handles.push(scope.spawn(move || drive(w.as_mut(), abs, 2 + i as u64)));
        }
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker panicked"))
            .collect::<Vec<_>>()
    });
    (first, seen)
}

fn counter(agent: &dyn Agent, name: &str) -> u64 {
    let snap = agent.snapshot().expect("a snapshot");
    snap.counters
        .iter()
        .find(|c| c.0 == name)
        .unwrap_or_else(|| panic!("no counter {name:?} in {snap:?}"))
        .1
}

const ALL: u64 = 3 * STEPS as u64;

#[test]
fn random_workers_run_side_by_side() {
    let (first, seen) = run_workers("random");
    assert_eq!(seen.len(), 3);
    assert!(first.snapshot().is_none(), "random learns nothing");
}

#[test]
fn webexplor_workers_learn_into_one_mind() {
    let (first, _) = run_workers("webexplor");
    assert_eq!(counter(first.as_ref(), "steps learned"), ALL);
}

#[test]
fn crawl_workers_crawl_one_graph() {
    for strategy in ["bfs", "dfs"] {
        let (first, seen) = run_workers(strategy);
        let states: HashSet<StateId> = seen.iter().flat_map(|s| s.states.clone()).collect();
        // Every state any worker stood in was queued in the one graph.
        assert_eq!(counter(first.as_ref(), "states"), states.len() as u64);
        assert!(counter(first.as_ref(), "actions fired") > 0);
    }
}

#[test]
fn vetl_workers_share_the_bandit() {
    let (first, seen) = run_workers("vetl-h");
    let elements: HashSet<&String> = seen.iter().flat_map(|s| &s.elements).collect();
    // The session's elements are those every worker's pages showed.
    assert_eq!(
        counter(first.as_ref(), "elements seen"),
        elements.len() as u64
    );
}

#[test]
fn webrled_workers_share_the_networks_and_the_replay() {
    let (first, _) = run_workers("webrled");
    assert_eq!(counter(first.as_ref(), "steps learned"), ALL);
    // Every worker ended episodes: the run trained on each.
    assert!(counter(first.as_ref(), "episodes trained") >= 3 * (STEPS / EPISODE) as u64);
    assert!(counter(first.as_ref(), "Q-network trainings") > 0);
}
