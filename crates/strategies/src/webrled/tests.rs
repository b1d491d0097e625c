use super::*;
use wayfarer_core::{Element, Rect, Size, StateId};

use crate::testing::Fixed;

#[test]
fn every_covered_cell_gets_its_share_of_the_reward_plus_the_discounted_best() {
    let cover: Cover = vec![(0, 1.0), (1, 0.5), (4, 0.0)];
    let next_values = vec![1.0, 3.0, 0.0, 10.0, -2.0];
    // Next actions worth the mean of their cells: (1+3)/2 = 2 and (10-2)/2 = 4.
    let next_covers = vec![vec![(0, 1.0), (1, 0.2)], vec![(3, 1.0), (4, 0.3)]];
    let t = cell_targets(&cover, 2.0, 0.5, &next_values, &next_covers);
    assert_eq!(t, vec![(0, 2.0 + 2.0), (1, 1.0 + 2.0), (4, 0.0 + 2.0)]);
    // A page with no action: nothing to bootstrap from.
    assert_eq!(
        cell_targets(&cover, 2.0, 0.5, &next_values, &[]),
        vec![(0, 2.0), (1, 1.0), (4, 0.0)]
    );
}

fn page(n: usize) -> Observation {
    let buttons: String = (0..n)
        .map(|i| format!("<button id=\"b{i}\">B</button>"))
        .collect();
    Observation {
        url: "http://h/".into(),
        html: format!("<html><body><div class=\"p{n}\">{buttons}</div></body></html>"),
        viewport: Size {
            width: 1000.0,
            height: 800.0,
        },
        page: Size {
            width: 1000.0,
            height: 800.0,
        },
        elements: (0..n)
            .map(|i| Element {
                locator: format!("#b{i}"),
                tag: "button".into(),
                actionable: vec!["tag:button".into()],
                rect: Rect {
                    x: 100.0 * i as f64,
                    y: 50.0,
                    width: 80.0,
                    height: 30.0,
                },
                visible: true,
                enabled: true,
                ..Element::default()
            })
            .collect(),
        ..Observation::default()
    }
}

/// `agent` learns that `action` on `obs` led to `next`.
fn learn_step(agent: &mut WebRledAgent, obs: &Observation, action: &Action, next: &Observation) {
    agent.learn(&Transition {
        state: StateId(0),
        observation: obs,
        action,
        next_state: StateId(1),
        next_observation: next,
        events: &[],
        new_state: false,
        failed: false,
        novelty: Default::default(),
    });
}

/// Drive an agent by hand for `steps` steps over pages with 1..=4 buttons.
fn drive(agent: &mut WebRledAgent, steps: usize, rng: &mut ChaCha8Rng) {
    for i in 0..steps {
        let obs = page(1 + i % 4);
        let next = page(1 + (i + 1) % 4);
        let acts: Vec<Action> =
            wayfarer_core::candidates::candidate_actions(&obs, &Default::default(), false);
        let extra = agent.extra_actions(&obs, &acts);
        assert!(extra.is_empty(), "nothing unselected here");
        let an = wayfarer_core::Analysis::new(StateId(0), "u".into());
        let view = View {
            observation: &obs,
            analysis: &an,
            actions: &acts,
            episode_step: (i % 10) as u32,
        };
        let a = agent.choose(&view, rng);
        learn_step(agent, &obs, &a, &next);
        if i % 10 == 9 {
            agent.on_episode_end();
        }
    }
}

#[test]
fn saved_networks_start_a_later_run_where_this_one_stopped() {
    let dir = std::env::temp_dir().join(format!("wf-webrled-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = WebRledConfig {
        hidden: 16,
        batch: 4,
        train_batches: 3,
        save: Some(dir.to_string_lossy().into_owned()),
        ..WebRledConfig::default()
    };
    let mut a = WebRledAgent::new(cfg.clone(), 32, Variant::Full, Box::new(Fixed)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    drive(&mut a, 30, &mut rng);
    a.on_run_end();
    assert!(dir.join("qnet.safetensors").exists());
    assert!(dir.join("webrled.json").exists());
    let state = embed(&page(3), 32);
    let before = a.with_nets(|n| n.q.values(&state).unwrap()).unwrap();

    let loaded = WebRledAgent::new(
        WebRledConfig {
            model: Some(dir.to_string_lossy().into_owned()),
            save: None,
            ..cfg.clone()
        },
        32,
        Variant::Full,
        Box::new(Fixed),
    )
    .unwrap();
    assert_eq!(
        loaded.with_nets(|n| n.q.values(&state).unwrap()).unwrap(),
        before
    );
    assert_eq!(lock_mind(&loaded.mind).scale, lock_mind(&a.mind).scale);

    // Other sizes than the saved ones: a clear error, not a silent fresh start.
    let err = WebRledAgent::new(
        WebRledConfig {
            model: Some(dir.to_string_lossy().into_owned()),
            save: None,
            ..cfg.clone()
        },
        64,
        Variant::Full,
        Box::new(Fixed),
    )
    .err()
    .expect("dims differ");
    assert!(err.to_string().contains("64"), "{err}");
    let missing = WebRledAgent::new(
        WebRledConfig {
            model: Some(dir.join("nowhere").to_string_lossy().into_owned()),
            ..cfg
        },
        32,
        Variant::Full,
        Box::new(Fixed),
    )
    .err()
    .expect("no model there");
    assert!(missing.to_string().contains("nowhere"), "{missing}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_variants_have_the_papers_names_and_value_slots() {
    for v in Variant::ALL {
        assert_eq!(Variant::from_name(v.name()), Some(v));
    }
    let cfg = WebRledConfig::default();
    let full = WebRledAgent::new(cfg.clone(), 32, Variant::Full, Box::new(Fixed)).unwrap();
    assert_eq!(full.slots(), 20 * 20 + 1);
    let list = WebRledAgent::new(cfg.clone(), 32, Variant::ListBased, Box::new(Fixed)).unwrap();
    assert_eq!(list.slots(), cfg.list_size + 1);
    // List-based: the i-th candidate is slot i (the last slot for back and beyond).
    let obs = page(3);
    assert_eq!(
        list.cover(&obs, &Action::on(ActionKind::Click, "#b2"), 2),
        vec![(2, 1.0)]
    );
    assert_eq!(
        list.cover(&obs, &Action::back(), 1),
        vec![(cfg.list_size, 1.0)]
    );
    assert_eq!(
        list.cover(&obs, &Action::on(ActionKind::Click, "#b2"), 999),
        vec![(cfg.list_size - 1, 1.0)]
    );
}

#[test]
fn probing_follows_what_probes_find() {
    let cfg = WebRledConfig {
        probe_steps: 10,
        ..WebRledConfig::default()
    };
    let a = WebRledAgent::new(cfg, 16, Variant::Full, Box::new(Fixed)).unwrap();
    // Before the first probe: the full budget.
    assert_eq!(a.probe_budget(), 10);
    // Probes that find nothing: one per episode, never none.
    lock_mind(&a.mind).probes = 40;
    lock_mind(&a.mind).probe_hits = 0;
    assert_eq!(a.probe_budget(), 1);
    lock_mind(&a.mind).probes = 1000;
    assert_eq!(a.probe_budget(), 1);
    // One find in ten: fewer than the budget; one in four or better: all of it.
    lock_mind(&a.mind).probes = 40;
    lock_mind(&a.mind).probe_hits = 4;
    assert_eq!(a.probe_budget(), 5);
    lock_mind(&a.mind).probe_hits = 10;
    assert_eq!(a.probe_budget(), 10);
    lock_mind(&a.mind).probe_hits = 30;
    assert_eq!(a.probe_budget(), 10);
}

#[test]
fn a_page_where_only_back_acts_is_probed_once_per_look_then_left() {
    // Regression: Chrome's "Confirm Form Resubmission" page (met by going back to a
    // form's answer) has text leaves and nothing else; every look was probed again and
    // again without a change, 150 of 500 steps.
    let mut obs = page(0);
    obs.elements = ["title", "detail"]
        .iter()
        .enumerate()
        .map(|(i, class)| Element {
            locator: format!("#t{i}"),
            tag: "div".into(),
            text: format!("{class} text"),
            attrs: [("class".to_string(), class.to_string())].into(),
            rect: Rect {
                x: 10.0,
                y: 40.0 * i as f64,
                width: 200.0,
                height: 30.0,
            },
            visible: true,
            enabled: true,
            ..Element::default()
        })
        .collect();
    let mut agent =
        WebRledAgent::new(WebRledConfig::default(), 32, Variant::Full, Box::new(Fixed)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let an = wayfarer_core::Analysis::new(StateId(0), "u".into());
    let mut kinds = Vec::new();
    for step in 0..12 {
        let candidates = vec![Action::back()];
        let mut acts = candidates.clone();
        acts.extend(agent.extra_actions(&obs, &candidates));
        let view = View {
            observation: &obs,
            analysis: &an,
            actions: &acts,
            episode_step: 5 + step,
        };
        let a = agent.choose(&view, &mut rng);
        kinds.push(a.kind);
        learn_step(&mut agent, &obs, &a, &obs);
    }
    // Two looks, each clicked and double-clicked once; then back, every time.
    let probes = kinds.iter().filter(|k| **k != ActionKind::Back).count();
    assert_eq!(probes, 4, "{kinds:?}");
    assert!(
        kinds[4..].iter().all(|k| *k == ActionKind::Back),
        "{kinds:?}"
    );
}

#[test]
fn training_along_an_episode_happens_once_per_due_step_whoever_learns_it() {
    // A copy living a guessed step (state inference) trains the shared networks; the
    // agent learning the same step after a rejected guess must not train them again.
    let cfg = WebRledConfig {
        hidden: 16,
        batch: 2,
        train_batches: 10,
        train_every: 3,
        ..WebRledConfig::default()
    };
    let make = || WebRledAgent::new(cfg.clone(), 32, Variant::Full, Box::new(Fixed)).unwrap();
    let (mut a, mut alone) = (make(), make());
    let (mut ra, mut rb) = (ChaCha8Rng::seed_from_u64(8), ChaCha8Rng::seed_from_u64(8));
    // 11 steps each: the next learned step (12) is due.
    drive(&mut a, 11, &mut ra);
    drive(&mut alone, 11, &mut rb);
    let state = embed(&page(2), 32);
    let values = |x: &WebRledAgent| x.with_nets(|n| n.q.values(&state).unwrap()).unwrap();
    assert_eq!(values(&a), values(&alone));
    let (obs, next) = (page(4), page(1));
    let step = |x: &mut WebRledAgent, a: &Action| learn_step(x, &obs, a, &next);
    let click = Action::on(ActionKind::Click, "#b0");
    // Trainings at steps 3, 6 and 9 not reported yet.
    assert!(a.take_train_time() > Duration::ZERO);
    alone.take_train_time();
    let mut copy = a.fork_agent();
    step(&mut copy, &click);
    assert_ne!(
        values(&a),
        values(&alone),
        "the copy trained the shared networks"
    );
    step(&mut a, &click);
    step(&mut alone, &click);
    assert_eq!(values(&a), values(&alone));
    // The training is reported as such once (the step's time split moves it out of
    // `learn`); the agent whose copy trained has none to report.
    assert!(alone.take_train_time() > Duration::ZERO);
    assert_eq!(alone.take_train_time(), Duration::ZERO);
    assert_eq!(a.take_train_time(), Duration::ZERO);
    assert_eq!(a.q_trainings(), alone.q_trainings());
}

#[test]
fn the_mean_of_the_cells_does_not_favour_elements_with_more_cells() {
    let values = vec![0.6; 20 * 20 + 1];
    let mut edge = values.clone();
    let g = Grid::new(20, 1.5);
    // An element in a page corner covers 4 cells, one in the middle 9.
    let corner = g.cover_point(0.025, 0.025);
    let middle = g.cover_point(0.525, 0.525);
    assert_eq!((corner.len(), middle.len()), (4, 9));
    for (i, _) in &corner {
        edge[*i] = 1.0;
    }
    let agent = |action_value| {
        let cfg = WebRledConfig {
            action_value,
            ..WebRledConfig::default()
        };
        WebRledAgent::new(cfg, 32, Variant::Full, Box::new(Fixed)).unwrap()
    };
    let (sum, mean) = (agent(CellValue::Sum), agent(CellValue::Mean));
    assert!(sum.action_value(&edge, &corner) < sum.action_value(&edge, &middle));
    assert!(mean.action_value(&edge, &corner) > mean.action_value(&edge, &middle));
}

#[test]
fn random_until_trained_makes_no_greedy_choice_before_the_first_training() {
    let cfg = WebRledConfig {
        hidden: 16,
        batch: 4,
        train_batches: 2,
        train_every: 0,
        epsilon: 0.0,
        random_until_trained: true,
        ..WebRledConfig::default()
    };
    let mut a = WebRledAgent::new(cfg, 32, Variant::NoDiscriminator, Box::new(Fixed)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let obs = page(3);
    let acts = wayfarer_core::candidates::candidate_actions(&obs, &Default::default(), false);
    let an = wayfarer_core::Analysis::new(StateId(0), "u".into());
    let mut why = Vec::new();
    for i in 0..12 {
        let view = View {
            observation: &obs,
            analysis: &an,
            actions: &acts,
            episode_step: i,
        };
        let choice = a.choose(&view, &mut rng);
        why.push(a.rationale().unwrap_or_default());
        learn_step(&mut a, &obs, &choice, &obs);
        if i == 5 {
            a.on_episode_end();
        }
    }
    // Epsilon 0: every choice is greedy once the network has trained (after step 6).
    assert!(why[..6].iter().all(|w| w.starts_with("random")), "{why:?}");
    assert!(why[6..].iter().all(|w| w.starts_with("greedy")), "{why:?}");
}

#[test]
fn workers_share_the_networks_the_replay_and_the_counters() {
    let cfg = WebRledConfig {
        hidden: 16,
        batch: 2,
        train_batches: 3,
        ..WebRledConfig::default()
    };
    let mut a = WebRledAgent::new(cfg, 32, Variant::Full, Box::new(Fixed)).unwrap();
    let mut b = a.worker_agent();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // The second worker chooses first: it builds the networks for both, and trains them
    // at its episode's end.
    drive(&mut b, 10, &mut rng);
    let state = embed(&page(2), 32);
    let values = |x: &WebRledAgent| x.with_nets(|n| n.q.values(&state).unwrap());
    assert!(
        values(&a).is_some(),
        "the first sees the networks the second built"
    );
    assert_eq!(values(&a), values(&b));
    let count = |x: &WebRledAgent, name: &str| {
        let snap = x.snapshot().unwrap();
        snap.counters.iter().find(|c| c.0 == name).unwrap().1
    };
    assert_eq!(count(&a, "steps learned"), 10);
    assert_eq!(count(&a, "episodes trained"), 1);
    assert_eq!(count(&a, "replay buffer"), 10);
    assert!(count(&a, "Q-network trainings") >= 1);
    // Episodic memory is each worker's own: pages the second saw are new to the first.
    drive(&mut b, 5, &mut rng);
    let seen = embed(&page(1), 32);
    assert!(b.episodic.count(&seen) > 1.5);
    assert_eq!(a.episodic.count(&seen), 1.0);
    // The first worker's episode trains on the replay of both.
    let before = values(&a);
    drive(&mut a, 10, &mut rng);
    assert_eq!(count(&b, "steps learned"), 25);
    assert_eq!(count(&b, "replay buffer"), 25);
    assert_eq!(count(&b, "episodes trained"), 2);
    assert_ne!(values(&b), before);
    // A fork learns into a copy.
    let mut trial = a.fork_agent();
    drive(&mut trial, 3, &mut rng);
    assert_eq!(count(&trial, "steps learned"), 28);
    assert_eq!(count(&a, "steps learned"), 25);
}
