//! What one decision costs once a strategy has learned for 500 steps: `wants_reset`,
//! `choose` and `learn` on the simulated application (60 pages, forms, cycles). The
//! issue's goal is a median under 2 ms for `webexplor` and `bfs`; compare with the
//! `decide_ms` column of `wayfarer bench`, measured in the browser.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::candidates::{candidate_actions, DenyText};
use wayfarer_core::sim::{SimApp, SimEnv};
use wayfarer_core::tagseq::TagSeqAbstraction;
use wayfarer_core::{run, Abstraction, Budget, Environment, RunOptions, Transition, View};

fn trained(
    name: &str,
) -> (
    Box<dyn wayfarer_core::Agent + Send>,
    SimEnv,
    TagSeqAbstraction,
) {
    let inputs = wayfarer_inputs::by_name("heuristic", Default::default()).unwrap();
    let mut agent =
        wayfarer_strategies::by_name(name, &wayfarer_core::Config::default(), inputs).unwrap();
    let mut env = SimEnv::new(SimApp::generate(9, 60));
    let mut abs = TagSeqAbstraction::default();
    let opts = RunOptions::new(Budget::actions(500), 100, 1);
    run(&mut env, agent.as_mut(), &mut abs, &opts, &mut []).unwrap();
    (agent, env, abs)
}

fn decide(c: &mut Criterion) {
    for name in ["webexplor", "guided", "bfs", "dfs"] {
        let (mut agent, mut env, mut abs) = trained(name);
        let obs = env.observe().unwrap().observation;
        let analysis = abs.analyse(&obs);
        let actions = candidate_actions(&obs, &DenyText::default(), true);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        c.bench_function(&format!("{name}: decide after 500 steps"), |b| {
            b.iter(|| {
                let view = View {
                    observation: &obs,
                    analysis: &analysis,
                    actions: &actions,
                    episode_step: 5,
                };
                let wants = agent.wants_reset(&view);
                let action = agent.choose(&view, &mut rng);
                agent.learn(&Transition {
                    state: analysis.state,
                    observation: &obs,
                    action: &action,
                    next_state: analysis.state,
                    next_observation: &obs,
                    events: &[],
                    new_state: false,
                    failed: false,
                    novelty: Default::default(),
                });
                wants
            })
        });
    }
}

criterion_group!(benches, decide);
criterion_main!(benches);
