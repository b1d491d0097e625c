use std::collections::VecDeque;

use wayfarer_core::model::{Element, Observation};

use super::*;
use crate::provider::Reply;
use crate::HeuristicProvider;

/// Answers from a script, and remembers the prompts it saw.
struct Scripted {
    replies: VecDeque<Result<Reply, LlmError>>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Provider for Scripted {
    fn name(&self) -> &str {
        "openai"
    }
    fn model(&self) -> &str {
        "m"
    }
    fn endpoint(&self) -> Option<&str> {
        Some("http://127.0.0.1:9/v1")
    }
    fn complete(&mut self, r: &Request<'_>) -> Result<Reply, LlmError> {
        self.seen.lock().unwrap().push(r.prompt.clone());
        self.replies.pop_front().unwrap_or(Err(LlmError::Empty))
    }
}

fn text(t: &str) -> Result<Reply, LlmError> {
    Ok(Reply {
        text: t.into(),
        prompt_tokens: Some(100),
        completion_tokens: Some(10),
        retries: 1,
    })
}

fn client(replies: Vec<Result<Reply, LlmError>>) -> (LlmClient, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let p = Scripted {
        replies: replies.into(),
        seen: Arc::clone(&seen),
    };
    (
        LlmClient::new(Box::new(p), Box::new(MemoryCache::default())),
        seen,
    )
}

fn field() -> Element {
    Element {
        locator: "#email".into(),
        tag: "input".into(),
        input_type: Some("email".into()),
        ..Element::default()
    }
}

fn ask_input(c: &mut LlmClient, prompt: &str) -> (String, Source) {
    let f = field();
    let page = Observation::default();
    c.input_text(&Request {
        task: Task::InputText {
            field: &f,
            page: &page,
        },
        prompt: prompt.into(),
        image: None,
        seed: 3,
    })
}

#[test]
fn a_repeated_question_is_answered_from_the_cache() {
    let (mut c, seen) = client(vec![text("Generated Input Text: a@b.co")]);
    assert_eq!(ask_input(&mut c, "p"), ("a@b.co".into(), Source::Model));
    assert_eq!(ask_input(&mut c, "p"), ("a@b.co".into(), Source::Cache));
    assert_eq!(seen.lock().unwrap().len(), 1);
    let u = c.usage().lock().unwrap().clone();
    assert_eq!(
        (u.questions, u.calls, u.cache_hits, u.malformed),
        (2, 1, 1, 0)
    );
    assert_eq!(
        (u.prompt_tokens, u.completion_tokens, u.retries),
        (100, 10, 1)
    );
    assert_eq!(u.latencies_ms.len(), 1);
}

#[test]
fn costs_follow_the_configured_prices() {
    let (c, _) = client(vec![text("Generated Input Text: x")]);
    let mut c = c.with_prices(Prices {
        prompt_per_1k: 1.0,
        completion_per_1k: 2.0,
    });
    ask_input(&mut c, "p");
    let cost = c.usage().lock().unwrap().cost;
    assert!((cost - 0.12).abs() < 1e-9, "{cost}");
}

#[test]
fn a_malformed_answer_is_counted_and_typed_as_it_is() {
    let (mut c, _) = client(vec![text("hello there")]);
    assert_eq!(
        ask_input(&mut c, "p"),
        ("hello there".into(), Source::Model)
    );
    assert_eq!(c.usage().lock().unwrap().malformed, 1);
}

#[test]
fn an_answer_with_no_value_gets_the_heuristic_one() {
    let (mut c, _) = client(vec![text("Generated Input Text:  ")]);
    let (v, s) = ask_input(&mut c, "p");
    assert_eq!(s, Source::Heuristic);
    assert!(v.contains('@'), "{v}");
    let u = c.usage().lock().unwrap().clone();
    assert_eq!((u.malformed, u.heuristic), (1, 1));
}

#[test]
fn an_unreachable_endpoint_is_left_alone_for_a_while() {
    let down = LlmError::Unreachable {
        endpoint: "x".into(),
        reason: "refused".into(),
    };
    let (mut c, seen) = client(vec![Err(down), text("Generated Input Text: late")]);
    let (v, s) = ask_input(&mut c, "p1");
    assert_eq!(s, Source::Heuristic);
    assert!(v.contains('@'));
    // Within the pause nothing is sent.
    assert_eq!(ask_input(&mut c, "p2").1, Source::Heuristic);
    assert_eq!(seen.lock().unwrap().len(), 1);
    let u = c.usage().lock().unwrap().clone();
    assert_eq!((u.failed, u.skipped, u.heuristic), (1, 1, 2));
    assert!(u.last_error.unwrap().contains("refused"));
    // After it, the endpoint is asked again.
    c.pause = Duration::ZERO;
    c.down_until = Some(Instant::now());
    assert_eq!(ask_input(&mut c, "p3"), ("late".into(), Source::Model));
}

#[test]
fn a_bad_answer_does_not_pause_the_endpoint() {
    let (mut c, seen) = client(vec![
        Err(LlmError::Malformed("x".into())),
        text("Generated Input Text: ok"),
    ]);
    assert_eq!(ask_input(&mut c, "p1").1, Source::Heuristic);
    assert_eq!(ask_input(&mut c, "p2"), ("ok".into(), Source::Model));
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn secrets_never_reach_the_endpoint_or_the_cache() {
    let (c, seen) = client(vec![text("Generated Input Text: x")]);
    let mut c = c.with_secrets(Secrets::new([("PW".to_string(), "hunter22".to_string())]));
    ask_input(&mut c, "The input box will be filled with: hunter22.");
    assert_eq!(
        seen.lock().unwrap()[0],
        "The input box will be filled with: ${PW}."
    );
}

#[test]
fn the_element_answer_names_a_button_or_none() {
    let (mut c, _) = client(vec![
        text("Selected Button Number: 2"),
        text("Selected Button Number: 7"),
    ]);
    let f = field();
    let page = Observation::default();
    let b1 = Element::default();
    let b2 = Element::default();
    let buttons = [&b1, &b2];
    let ask = |c: &mut LlmClient, prompt: &str| {
        c.interested(&Request {
            task: Task::InterestedElement {
                field: &f,
                value: "v",
                buttons: &buttons,
                page: &page,
            },
            prompt: prompt.into(),
            image: None,
            seed: 0,
        })
    };
    assert_eq!(ask(&mut c, "a"), (Some(1), Source::Model));
    assert_eq!(ask(&mut c, "b"), (None, Source::Model));
    assert_eq!(c.usage().lock().unwrap().malformed, 1);
}

#[test]
fn without_a_model_the_heuristic_answers_and_nothing_is_cached() {
    let mut c = LlmClient::heuristic();
    assert!(!c.has_model());
    let (v, s) = ask_input(&mut c, "p");
    assert_eq!(s, Source::Heuristic);
    assert!(v.contains('@'));
    let u = c.usage().lock().unwrap().clone();
    assert_eq!(
        (u.questions, u.heuristic, u.calls, u.malformed),
        (1, 1, 0, 0)
    );
    assert_eq!(u.provider, "heuristic");
}

#[test]
fn the_cache_key_depends_on_model_prompt_and_image() {
    let k = cache_key("m", "p", None);
    assert_eq!(k.len(), 64);
    assert_ne!(k, cache_key("m2", "p", None));
    assert_ne!(k, cache_key("m", "p2", None));
    assert_ne!(k, cache_key("m", "p", Some(&image_hash(b"png"))));
    assert_eq!(k, cache_key("m", "p", None));
}

fn owner_ask<'a>() -> FeatureAsk<'a> {
    FeatureAsk {
        app: "PetClinic, a veterinary clinic's records of owners and pets",
        context: "New owner",
        action: "click button \"Add Owner\" after filling \"First Name\", \"City\"",
        previous: Some(("click link \"Add Owner\"", "Find owners")),
        r: 3,
    }
}

#[test]
fn feature_labels_come_from_the_model_then_the_cache() {
    let (mut c, seen) = client(vec![text(
        "Here are the features:\n1. Add an owner\n2. Add an owner\n3. Find owners\n4. Edit an owner\n5. Add a pet",
    )]);
    let ask = owner_ask();
    let (labels, s) = c.features(&ask).unwrap();
    assert_eq!(labels, ["Add an owner", "Find owners", "Edit an owner"]);
    assert_eq!(s, Source::Model);
    assert_eq!(c.features(&ask).unwrap().1, Source::Cache);
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        [Prompts::get().features(&ask)]
    );
    let u = c.usage().lock().unwrap().clone();
    assert_eq!(
        (u.questions, u.calls, u.cache_hits, u.malformed, u.heuristic),
        (2, 1, 1, 0, 0)
    );
}

#[test]
fn an_unreadable_feature_answer_is_no_answer() {
    let (mut c, _) = client(vec![text("I'm sorry, I cannot help with that.")]);
    let e = c.features(&owner_ask()).unwrap_err();
    assert!(
        matches!(
            e,
            NoAnswer::Unreadable {
                kind: "features",
                ..
            }
        ),
        "{e}"
    );
    let u = c.usage().lock().unwrap().clone();
    assert_eq!((u.calls, u.malformed, u.heuristic), (1, 1, 1));
}

#[test]
fn without_a_model_autoe2e_questions_get_no_heuristic_answer() {
    let mut c = LlmClient::heuristic();
    assert_eq!(
        c.features(&owner_ask()).unwrap_err(),
        NoAnswer::NoModel("features")
    );
    let e = c
        .same_feature("app", "Add an owner", "Add owner")
        .unwrap_err();
    assert_eq!(e, NoAnswer::NoModel("same-feature"));
    assert!(e.to_string().contains("no answer to same-feature"), "{e}");
    let u = c.usage().lock().unwrap().clone();
    assert_eq!((u.questions, u.heuristic, u.calls), (2, 2, 0));
    // The provider itself says so too.
    let ask = owner_ask();
    let r = HeuristicProvider::new().complete(&Request {
        task: Task::Features(ask),
        prompt: String::new(),
        image: None,
        seed: 0,
    });
    assert_eq!(r, Err(LlmError::NoHeuristic("features")));
}

#[test]
fn a_failed_autoe2e_question_is_no_answer_and_pauses_the_endpoint() {
    let down = LlmError::Unreachable {
        endpoint: "x".into(),
        reason: "refused".into(),
    };
    let (mut c, seen) = client(vec![Err(down)]);
    let e = c.features(&owner_ask()).unwrap_err();
    assert!(
        matches!(&e, NoAnswer::Failed { reason, .. } if reason.contains("refused")),
        "{e}"
    );
    let e = c.same_feature("app", "a", "b").unwrap_err();
    assert!(
        matches!(&e, NoAnswer::Failed { reason, .. } if reason.contains("paused")),
        "{e}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
    let u = c.usage().lock().unwrap().clone();
    assert_eq!((u.failed, u.skipped, u.heuristic), (1, 1, 2));
}

#[test]
fn the_judge_answers_yes_or_no_and_secrets_stay_out() {
    let (c, seen) = client(vec![
        text("Yes, both add an owner."),
        text("**No**"),
        text("Maybe."),
    ]);
    let mut c = c.with_secrets(Secrets::new([("PW".to_string(), "hunter22".to_string())]));
    let app = "Clinic (admin password hunter22)";
    assert_eq!(
        c.same_feature(app, "Add an owner", "Add owner"),
        Ok((true, Source::Model))
    );
    assert_eq!(
        c.same_feature(app, "Add an owner", "Edit an owner"),
        Ok((false, Source::Model))
    );
    let e = c
        .same_feature(app, "Add an owner", "Find owners")
        .unwrap_err();
    assert!(
        matches!(
            e,
            NoAnswer::Unreadable {
                kind: "same-feature",
                ..
            }
        ),
        "{e}"
    );
    let seen = seen.lock().unwrap();
    assert!(seen
        .iter()
        .all(|p| p.contains("${PW}") && !p.contains("hunter22")));
    assert_eq!(c.usage().lock().unwrap().malformed, 1);
}
