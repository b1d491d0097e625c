//! State inference (SIBILLA) in the loop, on the simulated application: the knowledge
//! base's cardinality on deterministic and input-dependent interactions, the overflow to
//! "non-deterministic", the policy left unchanged where guesses are exact, and failures
//! still reported on steps whose scan was skipped.

mod common;

use common::Valid;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::infer::InferenceConfig;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::runner::KnowledgeRow;
use wayfarer_core::sim::{Field, FieldRule, Form, Page, SimApp, SimEnv};
use wayfarer_core::state::StructureAbstraction;
use wayfarer_core::{
    run, Action, ActionKind, Agent, Budget, Element, Observation, Observer, Progress, RunOptions,
    RunSummary, StepRecord,
};
use wayfarer_strategies::WebRledConfig;
use wayfarer_strategies::{by_name, RandomAgent, Variant, WebRledAgent};

#[derive(Default)]
struct Log {
    steps: Vec<StepRecord>,
    knowledge: Vec<KnowledgeRow>,
}

impl Observer for Log {
    fn on_step(&mut self, r: &StepRecord, _: &Progress) {
        self.steps.push(r.clone());
    }
    fn on_knowledge(&mut self, rows: &[KnowledgeRow]) {
        self.knowledge = rows.to_vec();
    }
}

impl Log {
    fn actions(&self) -> Vec<Action> {
        self.steps.iter().map(|s| s.action.clone()).collect()
    }
}

fn explore(
    app: SimApp,
    agent: &mut (dyn Agent + Send),
    inference: Option<&str>,
    steps: u64,
    seed: u64,
) -> (RunSummary, Log, SimEnv) {
    let mut env = SimEnv::new(app);
    let mut abs = StructureAbstraction::default();
    let mut opts = RunOptions::new(Budget::actions(steps), 30, seed);
    opts.inference = inference.map(|i| i.parse::<InferenceConfig>().unwrap());
    let mut log = Log::default();
    let summary = run(&mut env, agent, &mut abs, &opts, &mut [&mut log]).unwrap();
    (summary, log, env)
}

/// A tree of links: every page has one way in, so every interaction (back included) has
/// one outcome. Pages differ in their number of dead buttons, so that every abstraction
/// tells them apart (the simulator's locators are the same on every page).
fn tree(pages: usize) -> SimApp {
    let mut out: Vec<Page> = (0..pages)
        .map(|i| Page {
            name: format!("p{i}"),
            dead_buttons: i + 1,
            ..Page::default()
        })
        .collect();
    for i in 1..pages {
        out[(i - 1) / 2].links.push(i);
    }
    SimApp {
        pages: out,
        bug_page: None,
    }
}

/// A login: one e-mail field guards the way to the home page.
fn login() -> SimApp {
    SimApp {
        pages: vec![
            Page {
                name: "login".into(),
                forms: vec![Form {
                    fields: vec![Field {
                        name: "email".into(),
                        rule: FieldRule::Email,
                    }],
                    target: 1,
                }],
                ..Page::default()
            },
            Page {
                name: "home".into(),
                dead_buttons: 1,
                ..Page::default()
            },
        ],
        bug_page: None,
    }
}

/// Good and bad e-mails in turn, so the same submit succeeds or fails by input.
#[derive(Clone, Default)]
struct Alternating(u64);

impl InputGenerator for Alternating {
    fn name(&self) -> &str {
        "alternating"
    }
    fn fork(&self) -> Box<dyn InputGenerator + Send> {
        Box::new(self.clone())
    }
    fn text_for(&mut self, _: &Element, _: &Observation, _: &mut ChaCha8Rng) -> String {
        self.0 += 1;
        if self.0.is_multiple_of(2) {
            "a@b.co"
        } else {
            "nope"
        }
        .into()
    }
}

fn row(s: &RunSummary, candidates: &str) -> u64 {
    let i = s.inference.as_ref().expect("inference summary");
    i.cardinality
        .iter()
        .find(|r| r.candidates == candidates)
        .map_or(0, |r| r.interactions)
}

#[test]
fn a_deterministic_app_has_one_candidate_everywhere_and_the_same_actions() {
    for config in ["actions-5", "widgets-5", "actions-1"] {
        let (base, base_log, base_env) = explore(
            tree(7),
            &mut RandomAgent::new(Box::new(Valid)),
            None,
            400,
            3,
        );
        let (s, log, env) = explore(
            tree(7),
            &mut RandomAgent::new(Box::new(Valid)),
            Some(config),
            400,
            3,
        );
        let i = s.inference.as_ref().unwrap();
        assert!(i.disabled.is_none());
        assert!(i.interactions > 10, "{config}: {i:?}");
        assert_eq!(
            row(&s, "1"),
            i.interactions,
            "{config}: {:?}",
            i.cardinality
        );
        assert_eq!(row(&s, "non-deterministic"), 0);
        assert_eq!(
            i.rejected_candidates, 0,
            "{config}: exact guesses never fail"
        );
        // Exact guesses leave the policy alone: the very same actions, the same states.
        assert_eq!(log.actions(), base_log.actions(), "{config}");
        assert_eq!(s.states, base.states);
        // And they save scans: every predicted step is a scan the environment never did.
        assert!(s.scans_avoided > 0.5, "{config}: {}", s.scans_avoided);
        assert_eq!(s.scans_avoided, s.analyses_avoided);
        assert_eq!(
            env.scans,
            base_env.scans - i.predicted_steps,
            "{config}: scans {} vs {}",
            env.scans,
            base_env.scans
        );
        assert_eq!(env.probes, i.probes);
    }
}

#[test]
fn a_login_that_succeeds_or_fails_by_input_has_two_candidates_with_actions() {
    let mut agent = RandomAgent::new(Box::new(Alternating::default()));
    let (s, log, _) = explore(login(), &mut agent, Some("actions-5"), 300, 1);
    let submit = log
        .knowledge
        .iter()
        .find(|r| r.action == "click #f0-submit")
        .expect("the submit interaction is known");
    assert_eq!(submit.candidates.len(), 2, "{submit:?}");
    assert!(!submit.nondeterministic);
    assert!(row(&s, "2") >= 1);
    assert_eq!(row(&s, "non-deterministic"), 0);
    // Both outcomes were guessed right at least once.
    let guessed: std::collections::BTreeSet<u32> = log
        .steps
        .iter()
        .filter(|r| r.action.target.as_deref() == Some("#f0-submit"))
        .filter_map(|r| r.inference.as_ref().and_then(|i| i.accepted))
        .collect();
    assert!(guessed.len() == 2, "accepted candidates {guessed:?}");

    // With a tolerance of one, the same interaction overflows.
    let mut agent = RandomAgent::new(Box::new(Alternating::default()));
    let (s1, log1, _) = explore(login(), &mut agent, Some("actions-1"), 300, 1);
    let submit = log1
        .knowledge
        .iter()
        .find(|r| r.action == "click #f0-submit")
        .unwrap();
    assert!(submit.nondeterministic, "{submit:?}");
    assert!(row(&s1, "non-deterministic") >= 1);
}

#[test]
fn an_overflow_marks_the_interaction_non_deterministic_and_it_is_always_scanned() {
    // `types` sees every link click as one abstract action: from a page with links to
    // several pages, "click a" leads to more states than a tolerance of one allows.
    let (s, log, _) = explore(
        tree(7),
        &mut RandomAgent::new(Box::new(Valid)),
        Some("types-1"),
        400,
        2,
    );
    assert!(row(&s, "non-deterministic") >= 1, "{:?}", s.inference);
    let from_root = |r: &&StepRecord| {
        r.url_before_is_root()
            && r.action
                .target
                .as_deref()
                .is_some_and(|t| t.starts_with("#l"))
    };
    let clicks: Vec<&StepRecord> = log.steps.iter().filter(from_root).collect();
    let first_nd = clicks
        .iter()
        .position(|r| r.inference.as_ref().unwrap().nondeterministic)
        .expect("the root's link clicks become non-deterministic");
    assert!(first_nd >= 1, "it takes a second outcome to overflow");
    for r in &clicks[first_nd..] {
        let i = r.inference.as_ref().unwrap();
        assert!(i.nondeterministic, "step {}: {i:?}", r.step);
        assert_eq!(i.accepted, None, "step {} was guessed", r.step);
    }
}

trait RootStep {
    fn url_before_is_root(&self) -> bool;
}

impl RootStep for StepRecord {
    /// The step started on the start page (the tree's root): its `state_before` is the
    /// first state the run saw.
    fn url_before_is_root(&self) -> bool {
        self.state_before.0 == 0
    }
}

#[test]
fn failures_on_guessed_steps_are_still_reported_at_their_step() {
    // The bug button throws without changing the page: a perfect guess, and the
    // exception still comes from the step's events.
    let app = SimApp::form_chain(1, 0);
    let mut agent = by_name("random", &Default::default(), Box::new(Valid)).unwrap();
    let (s, log, _) = explore(app, agent.as_mut(), Some("actions-5"), 200, 4);
    assert_eq!(s.failures.len(), 1, "{:?}", s.failures);
    let guessed_bug_clicks: Vec<&StepRecord> = log
        .steps
        .iter()
        .filter(|r| r.action.target.as_deref() == Some("#bug"))
        .filter(|r| r.inference.as_ref().is_some_and(|i| i.accepted.is_some()))
        .collect();
    assert!(
        !guessed_bug_clicks.is_empty(),
        "some bug clicks were guessed"
    );
    for r in guessed_bug_clicks {
        assert_eq!(r.findings.len(), 1, "step {} lost its finding", r.step);
        assert!(r.timings.scan.is_zero());
    }
    let first = log.steps.iter().find(|r| !r.findings.is_empty()).unwrap();
    assert_eq!(s.failures[0].step, first.step);
    assert_eq!(
        s.failures[0].count as usize,
        log.steps.iter().filter(|r| !r.findings.is_empty()).count()
    );
}

#[test]
fn inference_is_reported_off_when_the_environment_cannot_skip_scans() {
    struct NoSkip(SimEnv);
    impl wayfarer_core::Environment for NoSkip {
        fn reset(&mut self) -> Result<wayfarer_core::Outcome, wayfarer_core::EnvError> {
            self.0.reset()
        }
        fn step(&mut self, a: &Action) -> Result<wayfarer_core::Outcome, wayfarer_core::EnvError> {
            self.0.step(a)
        }
    }
    let mut env = NoSkip(SimEnv::new(tree(3)));
    let mut abs = StructureAbstraction::default();
    let mut opts = RunOptions::new(Budget::actions(20), 30, 1);
    opts.inference = Some("actions-5".parse().unwrap());
    let mut agent = RandomAgent::new(Box::new(Valid));
    let s = run(&mut env, &mut agent, &mut abs, &opts, &mut []).unwrap();
    let i = s.inference.unwrap();
    assert!(i.disabled.unwrap().contains("cannot act without scanning"));
    assert_eq!(s.scans_avoided, 0.0);
    assert_eq!(s.steps, 20);
}

#[test]
fn every_strategy_follows_the_same_policy_when_guesses_are_exact() {
    // Forking must copy everything a strategy decides with (tables, routes, its input
    // generator): on a deterministic app, runs with and without inference are identical.
    for strategy in ["random", "bfs", "dfs", "webexplor"] {
        let make = || by_name(strategy, &Default::default(), Box::new(Valid)).unwrap();
        let (base, base_log, _) = explore(tree(15), make().as_mut(), None, 300, 9);
        let (s, log, _) = explore(tree(15), make().as_mut(), Some("widgets-5"), 300, 9);
        assert_eq!(log.actions(), base_log.actions(), "{strategy}");
        assert_eq!(s.states, base.states, "{strategy}");
        assert!(s.scans_avoided > 0.3, "{strategy}: {}", s.scans_avoided);
    }
}

#[test]
fn webrled_follows_the_same_policy_when_guesses_are_exact() {
    // Its copies share the networks and copy the rest (replay, samples, episode memory,
    // probes): guessed pages must lead to the choices scanned ones do, trainings
    // included (small networks, short episodes, the discriminator on early).
    let cfg = WebRledConfig {
        hidden: 16,
        episode_steps: 15,
        probe_steps: 3,
        zeta: 10,
        retrain_every: 2,
        batch: 8,
        train_batches: 4,
        ..WebRledConfig::default()
    };
    // Trained along the episode too: a copy living a guessed step trains the shared
    // networks as the agent would have, once.
    let along = WebRledConfig {
        train_every: 5,
        ..cfg.clone()
    };
    for cfg in [cfg, along] {
        let make = || WebRledAgent::new(cfg.clone(), 64, Variant::Full, Box::new(Valid)).unwrap();
        let (base, base_log, _) = explore(tree(15), &mut make(), None, 200, 9);
        let (s, log, _) = explore(tree(15), &mut make(), Some("widgets-5"), 200, 9);
        assert_eq!(log.actions(), base_log.actions(), "{cfg:?}");
        assert_eq!(s.states, base.states);
        assert!(s.scans_avoided > 0.3, "{}", s.scans_avoided);
        // A submit whose outcome depends on the input: some guesses are rejected, and
        // their copies' training must not count twice.
        let make = || {
            WebRledAgent::new(
                cfg.clone(),
                64,
                Variant::Full,
                Box::new(Alternating::default()),
            )
            .unwrap()
        };
        let (_, base_log, _) = explore(login(), &mut make(), None, 200, 9);
        let (s, log, _) = explore(login(), &mut make(), Some("widgets-5"), 200, 9);
        assert_eq!(log.actions(), base_log.actions(), "{cfg:?}");
        assert!(s.scans_avoided > 0.1, "{}", s.scans_avoided);
    }
}

/// Offers a double click on every link (an action no rule offers) and takes one of those
/// whenever it is offered: a guessed page must offer them as a scanned one does.
#[derive(Clone)]
struct DoubleClicker;

impl Agent for DoubleClicker {
    fn name(&self) -> &str {
        "double-clicker"
    }
    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(self.clone()))
    }
    fn extra_actions(&mut self, _: &Observation, candidates: &[Action]) -> Vec<Action> {
        candidates
            .iter()
            .filter(|a| a.target.as_deref().is_some_and(|t| t.starts_with("#l")))
            .map(|a| Action::on(ActionKind::DoubleClick, a.target.clone().unwrap()))
            .collect()
    }
    fn choose(&mut self, view: &wayfarer_core::View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let doubles: Vec<&Action> = view
            .actions
            .iter()
            .filter(|a| a.kind == ActionKind::DoubleClick)
            .collect();
        match doubles.choose(rng) {
            Some(a) => (*a).clone(),
            None => view.actions.choose(rng).expect("back at least").clone(),
        }
    }
}

#[test]
fn guessed_pages_offer_the_strategys_extra_actions() {
    // Regression: a trial offered its copy only the rules' candidates, so a strategy
    // that acts through its own extra actions chose otherwise on a guessed page.
    let (base, base_log, _) = explore(tree(15), &mut DoubleClicker, None, 200, 4);
    let doubles = |log: &Log| {
        log.actions()
            .iter()
            .filter(|a| a.kind == ActionKind::DoubleClick)
            .count()
    };
    assert!(doubles(&base_log) > 20, "{}", doubles(&base_log));
    let (s, log, _) = explore(tree(15), &mut DoubleClicker, Some("widgets-5"), 200, 4);
    assert_eq!(log.actions(), base_log.actions());
    assert_eq!(s.states, base.states);
    assert!(s.scans_avoided > 0.3, "{}", s.scans_avoided);
}

/// What the annotating strategy saw, shared by all its copies.
#[derive(Default)]
struct Seen {
    annotated: u64,
    refined: u64,
    views_without_data: u64,
    most_visits: u64,
}

/// Per-page data: how many times the page was met (refined on every guessed visit).
struct Visits(u64);

/// Random choices, plus per-page data kept in the state's typed slot.
#[derive(Clone)]
struct Annotating {
    inner: RandomAgent,
    seen: std::sync::Arc<std::sync::Mutex<Seen>>,
}

impl Agent for Annotating {
    fn name(&self) -> &str {
        "annotating"
    }
    fn choose(&mut self, view: &wayfarer_core::View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let mut seen = self.seen.lock().unwrap();
        match view.analysis.data().get::<Visits>() {
            Some(v) => seen.most_visits = seen.most_visits.max(v.0),
            None => seen.views_without_data += 1,
        }
        drop(seen);
        self.inner.choose(view, rng)
    }
    fn annotate(&mut self, _: &Observation, data: &mut wayfarer_core::state::StateData) {
        self.seen.lock().unwrap().annotated += 1;
        data.insert(Visits(1));
    }
    fn refine(&mut self, _: &Observation, data: &mut wayfarer_core::state::StateData) -> bool {
        self.seen.lock().unwrap().refined += 1;
        let n = data.get::<Visits>().map_or(0, |v| v.0);
        data.insert(Visits(n + 1));
        true
    }
    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(self.clone()))
    }
}

#[test]
fn strategy_data_rides_with_guessed_states_and_is_refined_there() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Seen::default()));
    let mut agent = Annotating {
        inner: RandomAgent::new(Box::new(Valid)),
        seen: seen.clone(),
    };
    let (s, _, env) = explore(tree(7), &mut agent, Some("actions-5"), 300, 5);
    let i = s.inference.unwrap();
    let seen = seen.lock().unwrap();
    // Computed once per scanned page (steps and resets), never on a guessed one...
    assert_eq!(seen.annotated, env.scans);
    assert!(i.predicted_steps > 100);
    // ...yet every page the strategy decided on carried it,
    assert_eq!(seen.views_without_data, 0);
    // and guessed visits refined it in the knowledge base.
    assert_eq!(seen.refined, i.predicted_steps);
    assert!(seen.most_visits > 5, "most visits {}", seen.most_visits);
}

/// Valid values that change from one use to the next, so a form holds other values on
/// every visit (as the heuristic generator's do).
#[derive(Clone, Default)]
struct Varied(u64);

impl InputGenerator for Varied {
    fn name(&self) -> &str {
        "varied"
    }
    fn fork(&self) -> Box<dyn InputGenerator + Send> {
        Box::new(self.clone())
    }
    fn text_for(&mut self, e: &Element, _: &Observation, _: &mut ChaCha8Rng) -> String {
        self.0 += 1;
        match e.input_type.as_deref() {
            Some("email") => format!("u{}@b.co", self.0),
            Some("number") => (1 + self.0 % 90).to_string(),
            _ => format!("x{}", self.0),
        }
    }
}

/// A form of three fields leading to a page that links back to it: the form is filled
/// again and again, with other values each time.
fn signup() -> SimApp {
    let field = |name: &str, rule| Field {
        name: name.into(),
        rule,
    };
    SimApp {
        pages: vec![
            Page {
                name: "signup".into(),
                forms: vec![Form {
                    fields: vec![
                        field("name", FieldRule::NonEmpty),
                        field("email", FieldRule::Email),
                        field("age", FieldRule::Number { min: 1, max: 99 }),
                    ],
                    target: 1,
                }],
                ..Page::default()
            },
            Page {
                name: "welcome".into(),
                links: vec![0],
                dead_buttons: 1,
                ..Page::default()
            },
        ],
        bug_page: None,
    }
}

#[test]
fn a_strategy_that_reads_field_values_sees_the_live_ones_after_typing() {
    // actions-5 ignores typed values, so the page remembered after typing into a field
    // holds the values of the visit it was scanned on. webexplor fills a form's empty
    // fields before its button: shown another visit's values, it would fill other fields
    // than a run that scans. A guess after typing carries the live values, and the runs
    // agree. (After a click that keeps the document, the remembered values still show.)
    for seed in 1..=6 {
        let make = || {
            by_name(
                "webexplor",
                &Default::default(),
                Box::new(Varied::default()),
            )
        };
        let (base, base_log, _) = explore(signup(), make().unwrap().as_mut(), None, 300, seed);
        let (s, log, _) = explore(
            signup(),
            make().unwrap().as_mut(),
            Some("actions-5"),
            300,
            seed,
        );
        let i = s.inference.as_ref().unwrap();
        assert!(i.predicted_steps > 100, "seed {seed}: {i:?}");
        let first = base_log
            .actions()
            .iter()
            .zip(log.actions())
            .position(|(a, b)| *a != b);
        assert_eq!(first, None, "seed {seed}: the first step that differs");
        assert_eq!(s.states, base.states, "seed {seed}");
    }
}
