//! The OpenAI client against wayfarer's fixture server: what goes on the wire, the cache,
//! and every fault the issue names (malformed, empty, 500, 429 with Retry-After, timeout),
//! each recorded while the caller still gets an answer.

use std::time::{Duration, Instant};

use base64::Engine;
use wayfarer_core::llm::MemoryCache;
use wayfarer_core::model::{Element, Observation};
use wayfarer_llm::{LlmClient, OpenAiConfig, OpenAiProvider, Request, Source, Task};
use wayfarer_testapps::{FixtureReply, LlmFixture};

const KEY: &str = "sk-fixture-9f8e7d6c5b4a";

fn config(fx: &LlmFixture) -> OpenAiConfig {
    let mut c = OpenAiConfig::new(fx.url(), "fixture-model");
    c.vision_model = Some("fixture-vision".into());
    c.key = Some(KEY.into());
    c.timeout = Duration::from_millis(800);
    c.retries = 2;
    c.backoff = Duration::from_millis(20);
    c.max_backoff = Duration::from_secs(2);
    c
}

fn client(fx: &LlmFixture) -> LlmClient {
    let p = OpenAiProvider::new(config(fx)).unwrap();
    LlmClient::new(Box::new(p), Box::new(MemoryCache::default()))
}

fn field() -> Element {
    Element {
        locator: "#amount".into(),
        tag: "input".into(),
        input_type: Some("number".into()),
        ..Element::default()
    }
}

fn ask(c: &mut LlmClient, prompt: &str, image: Option<&[u8]>) -> (String, Source) {
    let f = field();
    let page = Observation::default();
    c.input_text(&Request {
        task: Task::InputText {
            field: &f,
            page: &page,
        },
        prompt: prompt.into(),
        image,
        seed: 7,
    })
}

#[test]
fn text_and_image_parts_go_as_the_api_expects() {
    let fx = LlmFixture::start().unwrap();
    let mut c = client(&fx);
    fx.push([
        FixtureReply::text("Generated Input Text: 199"),
        FixtureReply::text("Generated Input Text: 5"),
    ]);
    assert_eq!(
        ask(&mut c, "amount please", None),
        ("199".into(), Source::Model)
    );
    let png = b"\x89PNG fake bytes";
    assert_eq!(
        ask(&mut c, "amount, seen", Some(png)),
        ("5".into(), Source::Model)
    );
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 2);
    let text = &reqs[0].body;
    assert_eq!(text["model"], "fixture-model");
    assert_eq!(text["messages"][0]["role"], "user");
    assert_eq!(text["messages"][0]["content"], "amount please");
    assert!(text["max_tokens"].as_u64().unwrap() > 0);
    assert_eq!(
        reqs[0].authorization.as_deref(),
        Some(&*format!("Bearer {KEY}"))
    );
    let vision = &reqs[1];
    assert_eq!(vision.body["model"], "fixture-vision");
    assert_eq!(vision.prompt(), "amount, seen");
    let images = vision.images();
    assert_eq!(images.len(), 1);
    let b64 = images[0].strip_prefix("data:image/png;base64,").unwrap();
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap(),
        png
    );
    let u = c.usage().lock().unwrap().clone();
    assert_eq!(
        (u.calls, u.prompt_tokens, u.completion_tokens),
        (2, 200, 16)
    );
}

#[test]
fn a_repeated_question_is_not_sent_again() {
    let fx = LlmFixture::start().unwrap();
    let mut c = client(&fx);
    let first = ask(&mut c, "The input has type email.", None);
    assert_eq!(first, ("jane.doe@example.com".into(), Source::Model));
    assert_eq!(
        ask(&mut c, "The input has type email.", None).1,
        Source::Cache
    );
    // The same prompt with an image is another question.
    assert_eq!(
        ask(&mut c, "The input has type email.", Some(b"img")).1,
        Source::Model
    );
    assert_eq!(fx.requests().len(), 2);
    assert_eq!(c.usage().lock().unwrap().cache_hits, 1);
}

#[test]
fn each_fault_is_recorded_and_answered_by_the_heuristic() {
    let fx = LlmFixture::start().unwrap();
    let mut c = client(&fx).with_pause(Duration::ZERO);
    // Malformed body: no retry, heuristic answer.
    fx.push([FixtureReply::malformed()]);
    let (v, s) = ask(&mut c, "q1", None);
    assert_eq!(s, Source::Heuristic);
    assert!(v.parse::<f64>().is_ok(), "a number from the heuristic: {v}");
    // Empty answer: same.
    fx.push([FixtureReply::empty()]);
    assert_eq!(ask(&mut c, "q2", None).1, Source::Heuristic);
    // 500 on every try: retried, then the heuristic.
    fx.push([
        FixtureReply::status(500),
        FixtureReply::status(500),
        FixtureReply::status(500),
    ]);
    assert_eq!(ask(&mut c, "q3", None).1, Source::Heuristic);
    let u = c.usage().lock().unwrap().clone();
    assert_eq!((u.failed, u.calls, u.heuristic), (3, 0, 3));
    assert!(
        u.last_error.as_deref().unwrap().contains("HTTP 500"),
        "{u:?}"
    );
    // 500 then an answer: the retry gets it.
    fx.push([
        FixtureReply::status(503),
        FixtureReply::text("Generated Input Text: 8"),
    ]);
    assert_eq!(ask(&mut c, "q4", None), ("8".into(), Source::Model));
    assert_eq!(c.usage().lock().unwrap().retries, 1);
    assert_eq!(fx.requests().len(), 1 + 1 + 3 + 2);
    // Nothing of the key in what the run keeps.
    let u = c.usage().lock().unwrap().clone();
    assert!(!serde_json::to_string(&u).unwrap().contains(KEY));
}

#[test]
fn a_429_waits_as_long_as_retry_after_says() {
    let fx = LlmFixture::start().unwrap();
    let mut c = client(&fx);
    fx.push([
        FixtureReply::rate_limited(1),
        FixtureReply::text("Generated Input Text: 3"),
    ]);
    let t = Instant::now();
    assert_eq!(ask(&mut c, "q", None), ("3".into(), Source::Model));
    let waited = t.elapsed();
    assert!(waited >= Duration::from_millis(950), "{waited:?}");
    assert_eq!(c.usage().lock().unwrap().retries, 1);
}

#[test]
fn a_timeout_is_retried_then_given_up() {
    let fx = LlmFixture::start().unwrap();
    let mut c = client(&fx);
    let slow = || FixtureReply::delayed(Duration::from_secs(3), FixtureReply::text("late"));
    fx.push([slow(), slow(), slow()]);
    let t = Instant::now();
    assert_eq!(ask(&mut c, "q", None).1, Source::Heuristic);
    // Three tries of 0.8 s and two short pauses, not three slow answers.
    assert!(
        t.elapsed() < Duration::from_millis(3500),
        "{:?}",
        t.elapsed()
    );
    let u = c.usage().lock().unwrap().clone();
    assert_eq!((u.failed, u.retries), (1, 0));
    assert!(u.last_error.unwrap().contains("no answer within"));
    // The endpoint is then left alone for a while: the next question is not sent.
    let before = fx.requests().len();
    assert_eq!(ask(&mut c, "q2", None).1, Source::Heuristic);
    assert_eq!(fx.requests().len(), before);
    assert_eq!(c.usage().lock().unwrap().skipped, 1);
}

#[test]
fn a_closed_port_answers_with_the_heuristic_quickly() {
    // Bind then drop: a port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut cfg = OpenAiConfig::new(format!("http://127.0.0.1:{port}/v1"), "m");
    cfg.backoff = Duration::from_millis(10);
    let p = OpenAiProvider::new(cfg).unwrap();
    let mut c = LlmClient::new(Box::new(p), Box::new(MemoryCache::default()));
    let t = Instant::now();
    for i in 0..20 {
        assert_eq!(ask(&mut c, &format!("q{i}"), None).1, Source::Heuristic);
    }
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let u = c.usage().lock().unwrap().clone();
    assert_eq!((u.failed, u.skipped, u.heuristic), (1, 19, 20));
    assert!(
        u.last_error.unwrap().contains("cannot reach"),
        "unreachable"
    );
}
