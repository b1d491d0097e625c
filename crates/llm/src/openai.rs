//! `openai`: any OpenAI-compatible chat-completions endpoint (hosted, vLLM, Ollama, the
//! llama.cpp server). Images go as base64 data URLs; responses are read leniently (local
//! servers differ in what they fill in); 429, 5xx and timeouts are retried with backoff,
//! honouring Retry-After.

use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};

use crate::provider::{LlmError, Provider, Reply, Request};

/// How to reach the endpoint, and how patiently.
#[derive(Clone, Debug)]
pub struct OpenAiConfig {
    /// `http://127.0.0.1:8080`, `.../v1`, or the full `.../chat/completions` URL.
    pub url: String,
    pub model: String,
    /// The model asked when the prompt carries an image (default: `model`).
    pub vision_model: Option<String>,
    /// Whether the model reads images (vision prompts are sent only then).
    pub vision: bool,
    /// Sent as a bearer token; read from `WAYFARER_LLM_KEY` by the CLI, never from a file.
    pub key: Option<String>,
    /// One request's limit (connecting included).
    pub timeout: Duration,
    /// Further tries after a 429, a 5xx or a timeout.
    pub retries: u32,
    /// The first pause between tries; it doubles each time, up to `max_backoff`, which also
    /// caps a Retry-After.
    pub backoff: Duration,
    pub max_backoff: Duration,
    pub max_tokens: u32,
    pub temperature: f32,
}

impl OpenAiConfig {
    pub fn new(url: impl Into<String>, model: impl Into<String>) -> OpenAiConfig {
        OpenAiConfig {
            url: url.into(),
            model: model.into(),
            vision_model: None,
            vision: false,
            key: None,
            timeout: Duration::from_secs(60),
            retries: 3,
            backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            max_tokens: 64,
            temperature: 0.2,
        }
    }
}

/// The chat-completions URL for what a user may type: a bare server, its `/v1`, or the
/// full path.
pub fn completions_url(url: &str) -> String {
    let u = url.trim().trim_end_matches('/');
    if u.ends_with("/chat/completions") {
        u.to_string()
    } else if u.ends_with("/v1") {
        format!("{u}/chat/completions")
    } else {
        format!("{u}/v1/chat/completions")
    }
}

/// `url` without user info, query or fragment: what may be printed.
pub fn display_endpoint(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            u.to_string().trim_end_matches('/').to_string()
        }
        Err(_) => "(an invalid URL)".into(),
    }
}

/// Name ring as rustls' crypto provider for the process, once. reqwest is built without
/// a default TLS backend here (its default needs cmake and a C toolchain for aws-lc), and
/// Cargo unifies that choice for every reqwest client in the binary: anything that builds
/// one must call this first. A second call does nothing.
pub fn tls_ready() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

pub struct OpenAiProvider {
    config: OpenAiConfig,
    url: String,
    endpoint: String,
    http: reqwest::blocking::Client,
}

/// Why the configuration cannot make a client.
#[derive(Debug, thiserror::Error)]
#[error("invalid LLM endpoint {url}: {reason}")]
pub struct BadEndpoint {
    pub url: String,
    pub reason: String,
}

impl OpenAiProvider {
    pub fn new(config: OpenAiConfig) -> Result<OpenAiProvider, BadEndpoint> {
        let endpoint = display_endpoint(&config.url);
        let url = completions_url(&config.url);
        let bad = |reason: String| BadEndpoint {
            url: endpoint.clone(),
            reason,
        };
        let parsed = url::Url::parse(&url).map_err(|e| bad(e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(bad("the scheme must be http or https".into()));
        }
        tls_ready();
        let http = reqwest::blocking::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(5)))
            .build()
            .map_err(|e| bad(e.to_string()))?;
        Ok(OpenAiProvider {
            config,
            url,
            endpoint,
            http,
        })
    }

    fn body(&self, request: &Request<'_>) -> Value {
        let content = match request.image {
            // Text alone goes as a plain string: servers of text-only models may reject
            // the list form.
            None => Value::String(request.prompt.clone()),
            Some(png) => json!([
                {"type": "text", "text": request.prompt},
                {"type": "image_url", "image_url": {
                    "url": format!("data:image/png;base64,{}",
                        base64::engine::general_purpose::STANDARD.encode(png))
                }}
            ]),
        };
        json!({
            "model": self.model_for(request.image.is_some()),
            "messages": [{"role": "user", "content": content}],
            "max_tokens": self.config.max_tokens,
            "temperature": self.config.temperature,
            "stream": false,
        })
    }

    fn model_for(&self, image: bool) -> &str {
        match (&self.config.vision_model, image) {
            (Some(v), true) => v,
            _ => &self.config.model,
        }
    }

    /// One try: the reply, or the error with how long the server asked us to wait.
    fn attempt(&self, body: &Value) -> Result<Reply, (LlmError, Option<Duration>)> {
        let mut req = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(key) = &self.config.key {
            req = req.bearer_auth(key);
        }
        let resp = req.send().map_err(|e| (self.transport(&e), None))?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64);
        let text = resp.text().map_err(|e| (self.transport(&e), None))?;
        if status == 429 {
            return Err((LlmError::RateLimited, retry_after));
        }
        if !(200..300).contains(&status) {
            let body: String = text.chars().take(200).collect();
            return Err((LlmError::Http { status, body }, retry_after));
        }
        parse_completion(&text).map_err(|e| (e, None))
    }

    fn transport(&self, e: &reqwest::Error) -> LlmError {
        if e.is_timeout() {
            LlmError::Timeout(self.config.timeout)
        } else if e.is_connect() {
            LlmError::Unreachable {
                endpoint: self.endpoint.clone(),
                reason: root_cause(e),
            }
        } else {
            // A connection dropped mid-answer and the like: the server's side.
            LlmError::Http {
                status: 0,
                body: root_cause(e),
            }
        }
    }
}

/// The innermost cause of a transport error ("Connection refused (os error 111)"),
/// without the request URL reqwest puts in its own message.
fn root_cause(e: &reqwest::Error) -> String {
    let mut cur: &dyn std::error::Error = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// The text of a chat completion, read leniently: `choices[0].message.content` as a
/// string or a list of text parts, or a completions-style `choices[0].text`.
pub fn parse_completion(body: &str) -> Result<Reply, LlmError> {
    let v: Value = serde_json::from_str(body).map_err(|e| {
        let start: String = body.chars().take(80).collect();
        LlmError::Malformed(format!("not JSON ({e}): {start:?}"))
    })?;
    let choice = v
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| LlmError::Malformed("no choices in the response".into()))?;
    let content = choice
        .get("message")
        .and_then(|m| m.get("content"))
        .or_else(|| choice.get("text"));
    let text = match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Some(Value::Null) | None => String::new(),
        Some(other) => {
            return Err(LlmError::Malformed(format!(
                "content is neither text nor parts: {other}"
            )))
        }
    };
    if text.trim().is_empty() {
        return Err(LlmError::Empty);
    }
    let tokens = |k: &str| {
        v.get("usage")
            .and_then(|u| u.get(k))
            .and_then(Value::as_u64)
    };
    Ok(Reply {
        text,
        prompt_tokens: tokens("prompt_tokens"),
        completion_tokens: tokens("completion_tokens"),
        retries: 0,
    })
}

impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        "openai"
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn vision_model(&self) -> &str {
        self.model_for(true)
    }

    fn endpoint(&self) -> Option<&str> {
        Some(&self.endpoint)
    }

    fn sees_images(&self) -> bool {
        self.config.vision
    }

    fn complete(&mut self, request: &Request<'_>) -> Result<Reply, LlmError> {
        let body = self.body(request);
        let mut pause = self.config.backoff;
        let mut tries = 0u32;
        let started = Instant::now();
        loop {
            match self.attempt(&body) {
                Ok(mut reply) => {
                    reply.retries = tries;
                    return Ok(reply);
                }
                Err((e, asked)) => {
                    let again = match &e {
                        LlmError::RateLimited | LlmError::Timeout(_) => true,
                        LlmError::Http { status, .. } => *status >= 500 || *status == 0,
                        // A server still starting: one more try; a closed port stays closed.
                        LlmError::Unreachable { .. } => tries == 0,
                        LlmError::Malformed(_) | LlmError::Empty | LlmError::NoHeuristic(_) => {
                            false
                        }
                    };
                    if !again || tries >= self.config.retries {
                        tracing::debug!(
                            "llm: giving up after {} tries in {:?}: {e}",
                            tries + 1,
                            started.elapsed()
                        );
                        return Err(e);
                    }
                    let wait = asked.unwrap_or(pause).min(self.config.max_backoff);
                    tracing::debug!("llm: {e}; trying again in {wait:?}");
                    std::thread::sleep(wait);
                    pause = (pause * 2).min(self.config.max_backoff);
                    tries += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_completions_url_is_found_from_what_users_type() {
        for (typed, want) in [
            (
                "http://127.0.0.1:8080",
                "http://127.0.0.1:8080/v1/chat/completions",
            ),
            (
                "http://127.0.0.1:8080/",
                "http://127.0.0.1:8080/v1/chat/completions",
            ),
            ("http://h/v1", "http://h/v1/chat/completions"),
            (
                "http://h/v1/chat/completions",
                "http://h/v1/chat/completions",
            ),
            (
                "https://api.example.com/openai/v1/",
                "https://api.example.com/openai/v1/chat/completions",
            ),
        ] {
            assert_eq!(completions_url(typed), want, "{typed}");
        }
    }

    #[test]
    fn the_endpoint_is_shown_without_credentials() {
        assert_eq!(
            display_endpoint("http://user:s3cret@h:1/v1?key=s3cret#x"),
            "http://h:1/v1"
        );
        assert_eq!(display_endpoint("not a url s3cret"), "(an invalid URL)");
    }

    #[test]
    fn responses_are_read_leniently() {
        let r = parse_completion(
            r#"{"choices":[{"message":{"content":"Generated Input Text: 199"}}],
                "usage":{"prompt_tokens":12,"completion_tokens":5}}"#,
        )
        .unwrap();
        assert_eq!(r.text, "Generated Input Text: 199");
        assert_eq!((r.prompt_tokens, r.completion_tokens), (Some(12), Some(5)));
        let parts = parse_completion(
            r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"text":"b"}]}}]}"#,
        )
        .unwrap();
        assert_eq!((parts.text.as_str(), parts.prompt_tokens), ("ab", None));
        let legacy = parse_completion(r#"{"choices":[{"text":"x"}]}"#).unwrap();
        assert_eq!(legacy.text, "x");
    }

    #[test]
    fn garbage_and_silence_are_told_apart() {
        assert!(matches!(
            parse_completion("<html>502</html>"),
            Err(LlmError::Malformed(_))
        ));
        assert!(matches!(
            parse_completion(r#"{"error":"x"}"#),
            Err(LlmError::Malformed(_))
        ));
        assert!(matches!(
            parse_completion(r#"{"choices":[{"message":{"content":7}}]}"#),
            Err(LlmError::Malformed(_))
        ));
        for empty in [
            r#"{"choices":[{"message":{"content":"  \n"}}]}"#,
            r#"{"choices":[{"message":{"content":null}}]}"#,
            r#"{"choices":[{"message":{}}]}"#,
        ] {
            assert_eq!(parse_completion(empty), Err(LlmError::Empty), "{empty}");
        }
    }

    #[test]
    fn an_endpoint_must_be_http() {
        assert!(OpenAiProvider::new(OpenAiConfig::new("ftp://h/v1", "m")).is_err());
        assert!(OpenAiProvider::new(OpenAiConfig::new("::", "m")).is_err());
        let p = OpenAiProvider::new(OpenAiConfig::new("http://127.0.0.1:9/v1", "m")).unwrap();
        assert_eq!(p.endpoint(), Some("http://127.0.0.1:9/v1"));
    }
}
