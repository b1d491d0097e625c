use std::collections::HashMap;

use wayfarer_core::embed::text::HashedText;

use super::*;

/// Answers from a table: (action key, previous key or "") -> labels.
struct Scripted(HashMap<(String, String), Vec<String>>);

impl Scripted {
    fn new(rows: &[(&str, &str, &[&str])]) -> Scripted {
        Scripted(
            rows.iter()
                .map(|(a, p, l)| {
                    let labels = l.iter().map(|s| s.to_string()).collect();
                    ((a.to_string(), p.to_string()), labels)
                })
                .collect(),
        )
    }
}

impl Inferrer for Scripted {
    fn features(&mut self, q: &FeatureQuestion<'_>) -> Vec<String> {
        let prev = q.previous.map_or("", |p| p.key.as_str());
        self.0
            .get(&(q.action.key.clone(), prev.to_string()))
            .cloned()
            .unwrap_or_default()
    }
}

fn act(key: &str) -> ActionText {
    ActionText {
        key: key.into(),
        text: format!("click {key}"),
        ..ActionText::default()
    }
}

fn model(threshold: f64) -> FeatureModel {
    FeatureModel::new(
        Ranking::default(),
        Box::new(HashedText::default()),
        Box::new(CosineAtLeast(threshold)),
    )
}

const LN2: f64 = std::f64::consts::LN_2;

/// Home (0) -> "Find owners" -> the search page (1: "Add Owner", "Find Owner") ->
/// "Add Owner" -> the owner form (2: "Save").
fn clinic(m: &mut FeatureModel) {
    let mut answers = Scripted::new(&[
        ("nav", "", &["Find owners", "Add an owner"]),
        ("add", "", &["Add an owner"]),
        ("add", "nav", &["Add an owner", "Find owners"]),
        ("find", "", &["Find owners"]),
        ("find", "nav", &["Find owners"]),
        ("save", "", &["Add an owner", "Edit an owner"]),
        ("save", "add", &["Add an owner"]),
    ]);
    let (nav, add, find, save) = (act("nav"), act("add"), act("find"), act("save"));
    let visits = [
        Visit {
            state: StateId(0),
            context: "home",
            actions: std::slice::from_ref(&nav),
            previous: None,
        },
        Visit {
            state: StateId(1),
            context: "find owners",
            actions: &[add.clone(), find.clone()],
            previous: Some((StateId(0), &nav, "home")),
        },
        Visit {
            state: StateId(2),
            context: "new owner",
            actions: std::slice::from_ref(&save),
            previous: Some((StateId(1), &add, "find owners")),
        },
    ];
    for v in &visits {
        m.observe(v, "a pet clinic", &mut answers).unwrap();
    }
}

fn id(m: &FeatureModel, label: &str) -> FeatureId {
    m.db.iter().find(|(_, e)| e.label == label).unwrap().0
}

#[test]
fn scores_follow_equation_8_on_a_hand_made_exploration() {
    let mut m = model(0.99);
    clinic(&mut m);
    let (add, find, edit) = (
        id(&m, "Add an owner"),
        id(&m, "Find owners"),
        id(&m, "Edit an owner"),
    );
    assert_eq!(m.db.len(), 3);
    let s = |f| m.db.get(f).score;
    // Add: inserted at rank 2 for "nav" alone (-2 ln2); first after "nav", which ranked
    // it 2 (-ln2 + 2 ln2); first after "add", which ranked it 1 (0).
    assert!((s(add) + LN2).abs() < 1e-9, "{}", s(add));
    // Find: inserted first for "nav" alone (-ln2); second after "nav", which ranked it 1
    // (-2 ln2 + ln2); first after "nav" again (0).
    assert!((s(find) + 2.0 * LN2).abs() < 1e-9, "{}", s(find));
    // Edit: inserted at rank 2 for "save" alone, never seen after a previous action.
    assert!((s(edit) + 2.0 * LN2).abs() < 1e-9, "{}", s(edit));
    // Kept: ln 0.5 or more (Add sits exactly on the cutoff, up to rounding).
    assert_eq!(m.kept(), vec![add]);
    // 1 + 2 + 2 + 2 questions.
    assert_eq!(m.questions(), 7);
}

#[test]
fn a_chain_goes_back_through_the_actions_that_led_to_the_feature() {
    let mut m = model(0.99);
    clinic(&mut m);
    let chain = m.chain(id(&m, "Add an owner"));
    let keys: Vec<(u64, &str)> = chain
        .iter()
        .map(|a| (a.state.0, a.action.as_str()))
        .collect();
    assert_eq!(keys, vec![(0, "nav"), (1, "add"), (2, "save")]);
    // Find owners was last inferred after "nav", for "find".
    let chain = m.chain(id(&m, "Find owners"));
    let keys: Vec<(u64, &str)> = chain
        .iter()
        .map(|a| (a.state.0, a.action.as_str()))
        .collect();
    assert_eq!(keys, vec![(0, "nav"), (1, "find")]);
    // A feature only asked about alone: its action.
    let chain = m.chain(id(&m, "Edit an owner"));
    assert_eq!(chain.len(), 1);
    assert_eq!(chain[0].action, "save");
}

#[test]
fn labels_match_known_features_by_the_judge() {
    let mut m = model(0.6);
    let (a, new) = m.resolve("Add an owner").unwrap();
    assert!(new);
    // The same words in another case: one feature, asked once.
    assert_eq!(m.resolve("add AN owner").unwrap(), (a, false));
    // Near enough for the threshold: an alias.
    assert_eq!(m.resolve("Add new owners").unwrap(), (a, false));
    assert_eq!(m.db.get(a).aliases, vec!["Add an owner", "Add new owners"]);
    // Far: a new feature, score 0 until an answer scores it.
    let (b, new) = m.resolve("Export the monthly report").unwrap();
    assert!(new && a != b);
    assert_eq!(m.db.get(b).score, 0.0);
    // A judge that never agrees keeps even near labels apart.
    let mut strict = model(1.1);
    let (a, _) = strict.resolve("Add an owner").unwrap();
    assert_ne!(strict.resolve("Add new owners").unwrap().0, a);
}

#[test]
fn two_labels_of_one_feature_in_an_answer_count_once_at_the_better_rank() {
    let mut m = model(0.6);
    let mut answers = Scripted::new(&[("add", "", &["Add an owner", "Add new owners"])]);
    let add = act("add");
    let v = Visit {
        state: StateId(0),
        context: "",
        actions: std::slice::from_ref(&add),
        previous: None,
    };
    m.observe(&v, "", &mut answers).unwrap();
    assert_eq!(m.afd.rows().len(), 1);
    assert!((m.db.get(FeatureId(0)).score + LN2).abs() < 1e-12);
}

/// A state, its one action, and what led there (state, action, context).
type OneVisit<'a> = (
    u64,
    &'a ActionText,
    Option<(StateId, &'a ActionText, &'a str)>,
);

/// Observe one action per state, each visit with what led there.
fn visit_each(m: &mut FeatureModel, answers: &mut Scripted, visits: &[OneVisit<'_>]) {
    for &(state, action, previous) in visits {
        m.observe(
            &Visit {
                state: StateId(state),
                context: "page",
                actions: std::slice::from_ref(action),
                previous,
            },
            "",
            answers,
        )
        .unwrap();
    }
}

#[test]
fn a_chain_does_not_take_the_same_action_twice_in_a_row() {
    let mut m = model(0.99);
    let mut answers = Scripted::new(&[
        ("vets", "", &["View vets"]),
        ("vets", "vets", &["View vets"]),
    ]);
    let vets = act("vets");
    // The vets page has the same menu link, asked after the link that led there.
    visit_each(
        &mut m,
        &mut answers,
        &[
            (0, &vets, None),
            (1, &vets, Some((StateId(0), &vets, "home"))),
        ],
    );
    let chain = m.chain(id(&m, "View vets"));
    assert_eq!(chain.len(), 1, "{chain:?}");
    assert_eq!(chain[0].state, StateId(0));
}

#[test]
fn a_chain_ends_before_an_action_it_already_took() {
    let mut m = model(0.99);
    let mut answers = Scripted::new(&[
        ("nav", "", &["Find owners"]),
        ("find", "nav", &["Find owners"]),
        ("nav", "find", &["Find owners"]),
    ]);
    let (nav, find) = (act("nav"), act("find"));
    visit_each(
        &mut m,
        &mut answers,
        &[
            (0, &nav, None),
            (1, &find, Some((StateId(0), &nav, "home"))),
            // The result page's menu has the same link, asked after the search.
            (2, &nav, Some((StateId(1), &find, "find"))),
        ],
    );
    let chain = m.chain(id(&m, "Find owners"));
    let keys: Vec<(u64, &str)> = chain
        .iter()
        .map(|a| (a.state.0, a.action.as_str()))
        .collect();
    assert_eq!(keys, vec![(0, "nav"), (1, "find")]);
}
