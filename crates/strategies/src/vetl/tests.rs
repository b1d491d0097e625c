use rand::SeedableRng;
use wayfarer_core::{Analysis, StateId};

use super::*;
use crate::testing::Fixed;

fn el(tag: &str, loc: &str, ty: Option<&str>, xpath: &str) -> Element {
    Element {
        locator: loc.into(),
        xpath: xpath.into(),
        tag: tag.into(),
        input_type: ty.map(String::from),
        form: (xpath.contains("form")).then(|| "#f".to_string()),
        actionable: vec![format!("tag:{tag}")],
        visible: true,
        enabled: true,
        ..Element::default()
    }
}

/// A sign-up form (name, e-mail, save) and a link away.
fn signup(filled: bool) -> (Observation, Vec<Action>) {
    let mut name = el(
        "input",
        "#name",
        Some("text"),
        "/html[1]/body[1]/form[1]/input[1]",
    );
    let mut email = el(
        "input",
        "#email",
        Some("email"),
        "/html[1]/body[1]/form[1]/input[2]",
    );
    let v = |s: &str| if filled { s.to_string() } else { String::new() };
    name.attrs.insert("value".into(), v("Ann"));
    email.attrs.insert("value".into(), v("a@b.co"));
    let page = Observation {
        url: "http://h/signup".into(),
        title: "Sign up".into(),
        elements: vec![
            name,
            email,
            el(
                "button",
                "#save",
                Some("submit"),
                "/html[1]/body[1]/form[1]/button[1]",
            ),
            el("a", "#home", None, "/html[1]/body[1]/nav[1]/a[1]"),
        ],
        ..Observation::default()
    };
    let actions = vec![
        Action::on(ActionKind::Type, "#name"),
        Action::on(ActionKind::Type, "#email"),
        Action::on(ActionKind::Click, "#save"),
        Action::on(ActionKind::Click, "#home"),
    ];
    (page, actions)
}

/// The paper's order: every empty field typed before any target.
fn agent(variant: VetlVariant) -> VetlAgent {
    let cfg = VetlConfig {
        target_first: false,
        ..VetlConfig::default()
    };
    VetlAgent::new(
        variant,
        cfg,
        Box::new(Fixed),
        wayfarer_llm::LlmClient::heuristic().shared(),
    )
}

fn choose(
    a: &mut VetlAgent,
    page: &Observation,
    actions: &[Action],
    rng: &mut ChaCha8Rng,
) -> Action {
    let analysis = Analysis::new(StateId(0), page.url.clone());
    let view = View {
        observation: page,
        analysis: &analysis,
        actions,
        episode_step: 1,
    };
    a.choose(&view, rng)
}

#[test]
fn the_empty_fields_are_filled_first_then_a_target_is_taken() {
    let mut a = agent(VetlVariant::H);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (empty, actions) = signup(false);
    assert_eq!(
        choose(&mut a, &empty, &actions, &mut rng),
        Action::on(ActionKind::Type, "#name").with_value("x")
    );
    assert!(
        a.rationale().unwrap().contains("then #save"),
        "{:?}",
        a.rationale()
    );
    assert_eq!(
        choose(&mut a, &empty, &actions, &mut rng),
        Action::on(ActionKind::Type, "#email").with_value("x")
    );
    // The nearest button in the tree is each field's interested element.
    assert_eq!(
        a.interested,
        vec![
            ("#save".to_string(), "#name".to_string()),
            ("#save".to_string(), "#email".to_string())
        ]
    );
    // Nothing left to fill (even if the page did not show the values yet): a target.
    let t = choose(&mut a, &empty, &actions, &mut rng);
    assert_eq!(t.kind, ActionKind::Click);
    assert!(a.pending.is_some());
}

#[test]
fn the_bandit_mostly_exploits_the_interested_element() {
    let (empty, actions) = signup(false);
    let (filled, _) = signup(true);
    let mut saves = 0;
    for seed in 0..200 {
        let mut a = agent(VetlVariant::L);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        choose(&mut a, &empty, &actions, &mut rng);
        choose(&mut a, &empty, &actions, &mut rng);
        if choose(&mut a, &filled, &actions, &mut rng) == Action::on(ActionKind::Click, "#save") {
            saves += 1;
        }
    }
    // 1 - epsilon exploits (#save), and half the explorations (clicks only: #save, #home)
    // pick it too: ~85%.
    assert!((155..=185).contains(&saves), "{saves} of 200");
}

#[test]
fn without_interested_elements_the_bandit_explores() {
    let mut a = agent(VetlVariant::H);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (filled, actions) = signup(true);
    choose(&mut a, &filled, &actions, &mut rng);
    assert_eq!(lock(&a.bandit).counts.no_interested, 1);
    assert!(a
        .rationale()
        .unwrap()
        .starts_with("explore (no interested element)"));
}

#[test]
fn q_is_the_running_mean_of_new_elements_after_the_target() {
    let mut a = agent(VetlVariant::H);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (filled, actions) = signup(true);
    let step = |a: &mut VetlAgent, next: &Observation, rng: &mut ChaCha8Rng| {
        let act = choose(a, &filled, &actions, rng);
        a.learn(&Transition {
            state: StateId(0),
            observation: &filled,
            action: &act,
            next_state: StateId(1),
            next_observation: next,
            events: &[],
            new_state: true,
            failed: false,
            novelty: Default::default(),
        });
        VetlAgent::arm_key(&filled, &act)
    };
    let mut next = signup(true).0;
    next.url = "http://h/welcome".into();
    let k = step(&mut a, &next, &mut rng);
    // Four elements never seen: reward 4.
    assert_eq!(lock(&a.bandit).arms[&k].q, 4.0);
    assert_eq!(lock(&a.bandit).arms[&k].n, 1);
    // The same page again brings nothing new; whichever arm, its mean moves towards 0.
    let k2 = step(&mut a, &next, &mut rng);
    let arm = lock(&a.bandit).arms[&k2];
    assert!(arm.q == 2.0 || arm.q == 0.0, "{arm:?}");
}

#[test]
fn softmax_favours_the_higher_value() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let picks: usize = (0..2000).map(|_| softmax_pick(&[0.0, 2.0], &mut rng)).sum();
    // exp(2) / (1 + exp(2)) = 0.88
    assert!((1680..=1840).contains(&picks), "{picks}");
}

#[test]
fn variants_are_named_and_split_as_the_paper_says() {
    for name in VetlVariant::NAMES {
        assert_eq!(VetlVariant::from_name(name).unwrap().name(), name);
    }
    use VetlVariant::*;
    let split: Vec<(bool, bool)> = [Vetl, V1, LV, L, H]
        .iter()
        .map(|v| (v.sees_for_values(), v.asks_for_elements()))
        .collect();
    assert_eq!(
        split,
        vec![
            (true, true),
            (true, false),
            (false, true),
            (false, false),
            (false, false)
        ]
    );
    assert!(VetlVariant::from_name("vetl-x").is_none());
}

#[test]
fn a_picture_is_asked_only_by_vision_variants_with_a_seeing_model() {
    let (empty, actions) = signup(false);
    let analysis = Analysis::new(StateId(0), empty.url.clone());
    let view = View {
        observation: &empty,
        analysis: &analysis,
        actions: &actions,
        episode_step: 1,
    };
    // The heuristic provider sees nothing: no screenshot is worth taking.
    assert_eq!(agent(VetlVariant::Vetl).wants_picture(&view), None);
    assert_eq!(agent(VetlVariant::L).wants_picture(&view), None);
}

#[test]
fn a_button_refused_twice_is_no_longer_interesting_in_the_episode() {
    let mut a = agent(VetlVariant::H);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (empty, actions) = signup(false);
    let (filled, _) = signup(true);
    choose(&mut a, &empty, &actions, &mut rng);
    choose(&mut a, &empty, &actions, &mut rng);
    let save = Action::on(ActionKind::Click, "#save");
    let refuse = |a: &mut VetlAgent| {
        // As if the bandit had just taken #save, and the page stayed as it was.
        a.pending = Some(VetlAgent::arm_key(&filled, &save));
        a.rationale = Some("interested after #name".into());
        a.learn(&Transition {
            state: StateId(0),
            observation: &filled,
            action: &save,
            next_state: StateId(0),
            next_observation: &filled,
            events: &[],
            new_state: false,
            failed: false,
            novelty: Default::default(),
        });
    };
    refuse(&mut a);
    let key = VetlAgent::arm_key(&filled, &save);
    assert_eq!(a.refused[&key], 1);
    refuse(&mut a);
    let (_, why) = a.bandit(
        &View {
            observation: &filled,
            analysis: &Analysis::new(StateId(0), filled.url.clone()),
            actions: &actions,
            episode_step: 3,
        },
        &mut rng,
    );
    assert_eq!(why, "explore (no interested element)");
    // A new episode forgets it.
    a.on_episode_end();
    assert!(a.refused.is_empty());
}

fn target_first(epsilon: f64) -> VetlAgent {
    let cfg = VetlConfig {
        epsilon,
        target_first: true,
        ..VetlConfig::default()
    };
    VetlAgent::new(
        VetlVariant::H,
        cfg,
        Box::new(Fixed),
        wayfarer_llm::LlmClient::heuristic().shared(),
    )
}

/// The sign-up form beside a search form (its own field and button).
fn two_forms() -> (Observation, Vec<Action>) {
    let (mut page, mut actions) = signup(false);
    let mut q = el(
        "input",
        "#q",
        Some("search"),
        "/html[1]/body[1]/form[2]/input[1]",
    );
    q.form = Some("#search".into());
    q.attrs.insert("value".into(), String::new());
    let mut go = el(
        "button",
        "#go",
        Some("submit"),
        "/html[1]/body[1]/form[2]/button[1]",
    );
    go.form = Some("#search".into());
    page.elements.extend([q, go]);
    actions.extend([
        Action::on(ActionKind::Type, "#q"),
        Action::on(ActionKind::Click, "#go"),
    ]);
    (page, actions)
}

#[test]
fn target_first_types_only_the_form_its_target_sends() {
    let (page, actions) = two_forms();
    let mut targets = HashSet::new();
    for seed in 0..20 {
        // Epsilon 0: always an interested element (#save or #go, equal Q).
        let mut a = target_first(0.0);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut typed = Vec::new();
        let target = loop {
            let x = choose(&mut a, &page, &actions, &mut rng);
            match x.kind {
                ActionKind::Type => typed.push(x.target.unwrap()),
                _ => break x.target.unwrap(),
            }
            assert!(typed.len() <= 3, "{typed:?}");
        };
        let want: Vec<&str> = match target.as_str() {
            "#save" => vec!["#name", "#email"],
            "#go" => vec!["#q"],
            t => panic!("exploited {t}, not an interested element"),
        };
        assert_eq!(typed, want, "seed {seed}");
        assert!(a.pending.is_some());
        // The other form's values wait for their own target.
        let left: Vec<&str> = a
            .planned
            .iter()
            .filter_map(|p| p.fill.target.as_deref())
            .collect();
        assert_eq!(left.len(), 3 - want.len(), "{left:?}");
        targets.insert(target);
    }
    assert_eq!(targets.len(), 2, "{targets:?}");
}

#[test]
fn target_first_types_nothing_before_a_link() {
    let (page, actions) = signup(false);
    let mut links = 0;
    for seed in 0..40 {
        // Epsilon 1: a uniform click, #save or #home.
        let mut a = target_first(1.0);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let first = choose(&mut a, &page, &actions, &mut rng);
        if first == Action::on(ActionKind::Click, "#home") {
            links += 1;
            // Its fields stay planned for when #save is taken.
            assert_eq!(a.planned.len(), 2);
        } else {
            // #save: its form first, then #save itself.
            assert_eq!(first.target.as_deref(), Some("#name"), "seed {seed}");
            choose(&mut a, &page, &actions, &mut rng);
            let t = choose(&mut a, &page, &actions, &mut rng);
            assert_eq!(t, Action::on(ActionKind::Click, "#save"));
            assert!(a.rationale().unwrap().starts_with("explore"));
        }
    }
    assert!((10..=30).contains(&links), "{links} of 40");
}

#[test]
fn target_first_drops_a_target_that_went_away_while_typing() {
    let (page, actions) = signup(false);
    let mut a = target_first(0.0);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    assert_eq!(
        choose(&mut a, &page, &actions, &mut rng).kind,
        ActionKind::Type
    );
    assert_eq!(
        choose(&mut a, &page, &actions, &mut rng).kind,
        ActionKind::Type
    );
    // The page re-rendered without #save: no click on a button that is gone.
    let without: Vec<Action> = actions
        .iter()
        .filter(|x| x.target.as_deref() != Some("#save"))
        .cloned()
        .collect();
    let next = choose(&mut a, &page, &without, &mut rng);
    assert_ne!(next.target.as_deref(), Some("#save"));
    assert!(a.chosen.is_none());
}

#[test]
fn workers_share_the_bandit_and_keep_their_own_plans() {
    let mut a = agent(VetlVariant::H);
    let mut b = a.worker_agent();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (filled, actions) = signup(true);
    let mut next = signup(true).0;
    next.url = "http://h/welcome".into();
    let step = |ag: &mut VetlAgent, rng: &mut ChaCha8Rng| {
        let act = choose(ag, &filled, &actions, rng);
        ag.learn(&Transition {
            state: StateId(0),
            observation: &filled,
            action: &act,
            next_state: StateId(1),
            next_observation: &next,
            events: &[],
            new_state: true,
            failed: false,
            novelty: Default::default(),
        });
        VetlAgent::arm_key(&filled, &act)
    };
    let k = step(&mut a, &mut rng);
    assert_eq!(lock(&b.bandit).arms[&k].q, 4.0);
    // The page the first worker saw is no news to the second: its target's mean falls
    // (to 2 when it is the same arm, to 0 when it is another).
    let k2 = step(&mut b, &mut rng);
    let arm = lock(&a.bandit).arms[&k2];
    assert!(arm.q == 2.0 || arm.q == 0.0, "{arm:?}");
    // Each worker fills its own page: both start with the first field.
    let (mut empty, actions) = signup(false);
    empty.url = "http://h/signup-again".into();
    let first = Action::on(ActionKind::Type, "#name").with_value("x");
    assert_eq!(choose(&mut a, &empty, &actions, &mut rng), first);
    assert_eq!(choose(&mut b, &empty, &actions, &mut rng), first);
    let snap = a.snapshot().unwrap();
    let count = |name: &str| snap.counters.iter().find(|c| c.0 == name).unwrap().1;
    assert_eq!(count("elements seen"), 4);
    assert_eq!(count("fields filled"), 2);
    // A fork learns into a copy.
    let mut trial = a.fork().unwrap();
    let mut other = next.clone();
    other.url = "http://h/other".into();
    trial.learn(&Transition {
        state: StateId(1),
        observation: &next,
        action: &Action::on(ActionKind::Click, "#home"),
        next_state: StateId(2),
        next_observation: &other,
        events: &[],
        new_state: true,
        failed: false,
        novelty: Default::default(),
    });
    assert_eq!(trial.snapshot().unwrap().counters[7].1, 8);
    assert_eq!(lock(&a.bandit).seen.len(), 4);
    assert_eq!(lock(&b.bandit).seen.len(), 4);
}
