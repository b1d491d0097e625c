//! The whole inference with a model: a hand-made PetClinic exploration, the fixture
//! OpenAI-compatible server on 127.0.0.1 answering from a script, `LlmInferrer` and
//! `LlmJudge` in front of the heuristic. No browser.

use wayfarer_core::config::LlmConfig;
use wayfarer_core::embed::text::HashedText;
use wayfarer_core::llm::MemoryCache;
use wayfarer_core::secrets::Secrets;
use wayfarer_core::{ActionKind, StateId};
use wayfarer_features::db::Query;
use wayfarer_features::explore::{describe, ObservedAction, StateInfo};
use wayfarer_features::llm::GREY_ZONE;
use wayfarer_features::{
    infer, with_client, ActionFacts, ActionRef, ActionText, Exploration, FeatureModel, LlmStats,
    Ranking,
};
use wayfarer_llm::prompt::Prompts;
use wayfarer_llm::FeatureAsk;
use wayfarer_testapps::{FixtureReply, LlmFixture};

const APP: &str = "PetClinic: a veterinary clinic keeps its owners and their pets";

fn action(key: &str, role: &str, name: &str, fields: &[&str]) -> ObservedAction {
    let facts = ActionFacts {
        kind: Some(ActionKind::Click),
        tag: if role == "link" { "a" } else { "button" }.into(),
        role: Some(role.into()),
        name: name.into(),
        fields: fields.iter().map(|f| f.to_string()).collect(),
        ..ActionFacts::default()
    };
    ObservedAction {
        text: ActionText {
            key: key.into(),
            text: describe(&facts),
            facts,
        },
        steps: vec![],
    }
}

fn state(
    id: u64,
    title: &str,
    actions: Vec<ObservedAction>,
    from: Option<(u64, &str)>,
) -> StateInfo {
    StateInfo {
        id: StateId(id),
        url: format!("http://127.0.0.1:9/{id}"),
        title: title.into(),
        actions,
        reached_by: from.map(|(s, k)| (StateId(s), k.to_string())),
    }
}

/// Home (0) -> "Find owners" -> the search page (1: "Find Owner", "Add Owner") -> "Add
/// Owner" -> the owner form (2: "Add Owner" after its fields).
fn clinic() -> Exploration {
    Exploration {
        states: vec![
            state(
                0,
                "Home · PetClinic",
                vec![action("click #find", "link", "Find owners", &[])],
                None,
            ),
            state(
                1,
                "Find owners · PetClinic",
                vec![
                    action("click #search", "button", "Find Owner", &["Last name"]),
                    action("click #add", "link", "Add Owner", &[]),
                ],
                Some((0, "click #find")),
            ),
            state(
                2,
                "New owner · PetClinic",
                vec![action(
                    "click #save",
                    "button",
                    "Add Owner",
                    &["First Name", "City"],
                )],
                Some((1, "click #add")),
            ),
        ],
    }
}

fn cosine(a: &str, b: &str) -> f64 {
    let h = HashedText::default();
    let (x, y) = (h.vector(a), h.vector(b));
    x.iter().zip(&y).map(|(p, q)| f64::from(p * q)).sum()
}

#[test]
fn the_model_names_the_features_and_the_heuristic_answers_what_it_could_not() {
    // The script below relies on which label pairs the judge is asked about.
    let grey = |a, b| (GREY_ZONE.0..GREY_ZONE.1).contains(&cosine(a, b));
    assert!(grey("Add a new owner", "Add Owner"));
    assert!(grey("Add pet to owner", "Add Owner"));
    assert!(
        cosine("Add pet to owner", "Add Owner") >= 0.8,
        "offline it would merge"
    );
    assert!(!grey("Add Owner", "Find owners") && !grey("Add pet to owner", "Find owners"));

    let fx = LlmFixture::start().unwrap();
    fx.push([
        // 0: Find owners link, alone.
        FixtureReply::text("Here are the features:\n1. Find owners"),
        // 1: the search button, alone; 2: after the Find owners link.
        FixtureReply::text("- **Search owners by last name** - the form's purpose"),
        FixtureReply::text("Search owners by last name"),
        // 3: the Add Owner link, alone: nothing readable, so the heuristic's label.
        FixtureReply::text("I'm sorry, I can't tell from this page."),
        // 4: the Add Owner link after Find owners; 5: the judge on its label.
        FixtureReply::text("1. Add a new owner"),
        FixtureReply::text("Yes."),
        // 6: the owner form's submit, alone; 7: the judge says its second label is new.
        FixtureReply::text("1. Add a new owner\n2. Add pet to owner"),
        FixtureReply::text("No, one adds a pet."),
        // 8: the submit after the Add Owner link.
        FixtureReply::text("Add a new owner"),
    ]);
    let config = wayfarer_llm::with_flags(&LlmConfig::default(), Some(&fx.url()), Some("fx"));
    let client = wayfarer_llm::from_config(
        &config,
        Box::new(MemoryCache::default()),
        Secrets::default(),
    )
    .unwrap()
    .unwrap()
    .shared();
    let usage = client.lock().unwrap().usage();
    let (mut inferrer, judge) = with_client(client, APP);
    let mut model = FeatureModel::new(
        Ranking::default(),
        Box::new(HashedText::default()),
        Box::new(judge),
    );
    let x = clinic();
    infer(&x, APP, &mut inferrer, &mut model).unwrap();

    // Every scripted reply was asked for, in order, and nothing more.
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 9);
    let p = Prompts::get();
    let find = &x.states[0].actions[0].text.text;
    let search = &x.states[1].actions[0].text.text;
    let ask = |context, action, previous, r| FeatureAsk {
        app: APP,
        context,
        action,
        previous,
        r,
    };
    assert_eq!(reqs[0].prompt(), p.features(&ask("Home", find, None, 5)));
    assert_eq!(
        reqs[2].prompt(),
        p.features(&ask("Find owners", search, Some((find, "Home")), 5))
    );
    assert_eq!(
        reqs[5].prompt(),
        p.same_feature(APP, "Add a new owner", "Add Owner")
    );
    assert_eq!(
        reqs[7].prompt(),
        p.same_feature(APP, "Add pet to owner", "Add Owner")
    );
    assert!(reqs[5].prompt().contains("Answer yes or no"));
    assert!(reqs[0].prompt().contains("one per line"));

    let label = |id| model.db.get(id).label.clone();
    let kept: Vec<String> = model.kept().into_iter().map(label).collect();
    assert_eq!(
        kept,
        ["Search owners by last name", "Add Owner", "Find owners"],
        "{:#?}",
        model.db
    );
    // The unreadable answer: the heuristic named the Add Owner link's feature...
    let add = ActionRef {
        state: StateId(1),
        action: "click #add".into(),
    };
    let alone: Vec<String> = model
        .afd
        .rows()
        .iter()
        .filter(|r| r.at == add && r.query == Query::Alone)
        .map(|r| label(r.feature))
        .collect();
    assert_eq!(alone, ["Add Owner"]);
    // ...and the judge said the model's "Add a new owner" is the same one...
    let owner = model
        .db
        .iter()
        .find(|(_, e)| e.label == "Add Owner")
        .unwrap()
        .1;
    assert_eq!(owner.aliases, ["Add Owner", "Add a new owner"]);
    // ...but "Add pet to owner" is not, though its cosine would have merged it offline.
    assert!(model.db.iter().any(|(_, e)| e.label == "Add pet to owner"));
    assert_eq!(model.db.len(), 4);

    let stats = inferrer.stats();
    assert_eq!(
        stats,
        LlmStats {
            features_model: 6,
            features_fallback: 1,
            same_model: 2,
            same_fallback: 0,
            same_by_cosine: 2,
        }
    );
    let u = usage.lock().unwrap().clone();
    assert_eq!(
        (u.questions, u.calls, u.malformed, u.heuristic, u.failed),
        (9, 9, 1, 1, 0)
    );
}

#[test]
fn an_unreachable_model_leaves_every_answer_to_the_heuristic_and_the_threshold() {
    // A port nothing listens on: the first call fails, the rest wait out the pause.
    let fx = LlmFixture::start().unwrap();
    let url = fx.url();
    drop(fx);
    let mut config = wayfarer_llm::with_flags(&LlmConfig::default(), Some(&url), Some("fx"));
    config.retries = 0;
    let client = wayfarer_llm::from_config(
        &config,
        Box::new(MemoryCache::default()),
        Secrets::default(),
    )
    .unwrap()
    .unwrap()
    .shared();
    let (mut inferrer, judge) = with_client(client, APP);
    let mut with_model = FeatureModel::new(
        Ranking::default(),
        Box::new(HashedText::default()),
        Box::new(judge),
    );
    let x = clinic();
    infer(&x, APP, &mut inferrer, &mut with_model).unwrap();
    let mut offline = FeatureModel::new(
        Ranking::default(),
        Box::new(HashedText::default()),
        Box::new(wayfarer_features::CosineAtLeast(0.8)),
    );
    infer(
        &x,
        APP,
        &mut wayfarer_features::heuristic::Heuristic,
        &mut offline,
    )
    .unwrap();
    let labels = |m: &FeatureModel| -> Vec<String> {
        m.kept()
            .into_iter()
            .map(|id| m.db.get(id).label.clone())
            .collect()
    };
    assert_eq!(labels(&with_model), labels(&offline));
    assert!(!labels(&offline).is_empty());
    let s = inferrer.stats();
    assert_eq!((s.features_model, s.same_model), (0, 0));
    assert_eq!(s.features_fallback, with_model.questions());
}
