//! A fixture OpenAI-compatible chat-completions server on 127.0.0.1, for testing the LLM
//! layer without a model: it records every request (body and authorization header) and
//! answers from a queue of scripted replies (faults included: malformed bodies, empty
//! answers, 5xx, 429 with Retry-After, delays), then from recorded answers chosen by what
//! the prompt asks for.

use std::collections::VecDeque;
use std::net::{Ipv4Addr, TcpListener as StdListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::server::Server;

/// One scripted reply.
#[derive(Clone, Debug)]
pub enum FixtureReply {
    /// A well-formed completion whose message content is this text (may be empty).
    Text(String),
    /// Any status and body, with extra headers.
    Raw {
        status: u16,
        body: String,
        headers: Vec<(String, String)>,
    },
    /// Wait, then give the inner reply (longer than the client's timeout: a timeout).
    Delay(Duration, Box<FixtureReply>),
}

impl FixtureReply {
    pub fn text(t: &str) -> FixtureReply {
        FixtureReply::Text(t.into())
    }
    /// A 200 whose body is not a completion.
    pub fn malformed() -> FixtureReply {
        FixtureReply::Raw {
            status: 200,
            body: "<html><body>upstream hiccup</body></html>".into(),
            headers: vec![],
        }
    }
    /// A completion with nothing in it.
    pub fn empty() -> FixtureReply {
        FixtureReply::Text(String::new())
    }
    pub fn status(code: u16) -> FixtureReply {
        FixtureReply::Raw {
            status: code,
            body: json!({"error": {"message": "fixture fault"}}).to_string(),
            headers: vec![],
        }
    }
    /// 429 with `Retry-After: secs`.
    pub fn rate_limited(secs: u32) -> FixtureReply {
        FixtureReply::Raw {
            status: 429,
            body: json!({"error": {"message": "slow down"}}).to_string(),
            headers: vec![("retry-after".into(), secs.to_string())],
        }
    }
    pub fn delayed(by: Duration, then: FixtureReply) -> FixtureReply {
        FixtureReply::Delay(by, Box::new(then))
    }
}

/// What the fixture received.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub body: Value,
    /// The `authorization` header, as sent.
    pub authorization: Option<String>,
}

impl RecordedRequest {
    /// The text parts of the first message.
    pub fn prompt(&self) -> String {
        let content = &self.body["messages"][0]["content"];
        match content {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter(|p| p["type"] == "text")
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            _ => String::new(),
        }
    }

    /// The data URLs of the image parts of the first message.
    pub fn images(&self) -> Vec<String> {
        match &self.body["messages"][0]["content"] {
            Value::Array(parts) => parts
                .iter()
                .filter(|p| p["type"] == "image_url")
                .filter_map(|p| p["image_url"]["url"].as_str().map(String::from))
                .collect(),
            _ => vec![],
        }
    }
}

#[derive(Default)]
struct Shared {
    queue: VecDeque<FixtureReply>,
    requests: Vec<RecordedRequest>,
}

/// The running fixture. Dropping it stops it.
pub struct LlmFixture {
    server: Server,
    shared: Arc<Mutex<Shared>>,
}

impl LlmFixture {
    pub fn start() -> std::io::Result<LlmFixture> {
        let shared = Arc::new(Mutex::new(Shared::default()));
        let router = Router::new()
            .route("/v1/chat/completions", post(complete))
            .route("/v1/models", get(models))
            .with_state(Arc::clone(&shared));
        let listener = StdListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let server = Server::serve(listener, router, "llm-fixture")?;
        Ok(LlmFixture { server, shared })
    }

    /// The base URL to give `--llm`: `http://127.0.0.1:PORT/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.server.addr())
    }

    /// Queue replies; they are used in order before the recorded answers.
    pub fn push(&self, replies: impl IntoIterator<Item = FixtureReply>) {
        self.shared.lock().unwrap().queue.extend(replies);
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().unwrap().requests.clone()
    }
}

/// The recorded answer for a prompt: a plausible value for the field the input prompt
/// describes, or the first button for an element prompt.
pub fn recorded_answer(prompt: &str) -> String {
    let p = prompt.to_lowercase();
    if p.contains("selected button number") {
        return "Selected Button Number: 1".into();
    }
    let has = |s: &str| p.contains(s);
    let value = if has("type email") || has("about email") || has("about e mail") {
        "jane.doe@example.com"
    } else if has("type password") {
        "Correct-Horse-42"
    } else if has("type number") {
        "42"
    } else if has("type date") {
        "2024-05-17"
    } else if has("type tel") {
        "555-0100"
    } else if has("type url") {
        "https://example.com"
    } else if has("about name") || has("user name") || has("username") {
        "jane"
    } else {
        "Lisbon trip"
    };
    format!("Generated Input Text: {value}")
}

fn completion(text: &str) -> Value {
    json!({
        "id": "fixture",
        "object": "chat.completion",
        "model": "fixture",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 8, "total_tokens": 108}
    })
}

async fn complete(
    State(shared): State<Arc<Mutex<Shared>>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let recorded = RecordedRequest {
        body: parsed,
        authorization,
    };
    let prompt = recorded.prompt();
    let reply = {
        let mut s = shared.lock().unwrap();
        s.requests.push(recorded);
        s.queue.pop_front()
    };
    let reply = reply.unwrap_or_else(|| FixtureReply::Text(recorded_answer(&prompt)));
    respond(reply).await
}

async fn respond(mut reply: FixtureReply) -> Response {
    loop {
        match reply {
            FixtureReply::Delay(by, inner) => {
                tokio::time::sleep(by).await;
                reply = *inner;
            }
            FixtureReply::Text(t) => return Json(completion(&t)).into_response(),
            FixtureReply::Raw {
                status,
                body,
                headers,
            } => {
                let mut r = (
                    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                    body,
                )
                    .into_response();
                for (k, v) in headers {
                    if let (Ok(k), Ok(v)) = (
                        axum::http::HeaderName::try_from(k),
                        axum::http::HeaderValue::try_from(v),
                    ) {
                        r.headers_mut().insert(k, v);
                    }
                }
                return r;
            }
        }
    }
}

async fn models() -> Json<Value> {
    Json(json!({"object": "list", "data": [{"id": "fixture", "object": "model"}]}))
}
