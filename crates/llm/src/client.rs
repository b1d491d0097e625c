//! The one way wayfarer asks a model: `LlmClient` puts the cache in front of the provider,
//! the heuristic behind it, counts everything, and keeps configured secrets out of every
//! prompt. VETL's questions always get an answer; AutoE2E's get the model's or a
//! [`NoAnswer`] saying why not. What failed is counted and said once.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use wayfarer_core::llm::{AnswerCache, CachedAnswer, LlmUsage, MemoryCache, SharedUsage};
use wayfarer_core::secrets::Secrets;

use crate::answer;
use crate::heuristic::HeuristicProvider;
use crate::prompt::Prompts;
use crate::provider::{FeatureAsk, LlmError, Provider, Request, Task};

/// Prices per 1000 tokens, for the cost counter (0: not counted).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prices {
    pub prompt_per_1k: f64,
    pub completion_per_1k: f64,
}

/// Who answered a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Model,
    Cache,
    /// The heuristic provider: the configured one, or the stand-in after a failure.
    Heuristic,
}

/// An answer and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub text: String,
    pub source: Source,
}

/// Why a question only a model answers (AutoE2E's) got no answer: the caller then answers
/// it with a heuristic of its own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoAnswer {
    /// No model is configured, and the heuristic provider has no answer to these.
    #[error("no language model to ask, and the heuristic provider has no answer to {0} questions")]
    NoModel(&'static str),
    /// The call failed, or the endpoint is paused after a failure (counted in the usage).
    #[error("the language model gave no answer to a {kind} question: {reason}")]
    Failed { kind: &'static str, reason: String },
    /// The model answered, but nothing in it reads as what was asked (its start, here).
    #[error("the model's answer to a {kind} question could not be read: {answer:?}")]
    Unreadable { kind: &'static str, answer: String },
}

/// How long a failing endpoint is left alone before it is asked again.
pub const DEFAULT_PAUSE: Duration = Duration::from_secs(30);

pub struct LlmClient {
    provider: Box<dyn Provider>,
    fallback: HeuristicProvider,
    cache: Box<dyn AnswerCache>,
    usage: SharedUsage,
    secrets: Secrets,
    prices: Prices,
    pause: Duration,
    /// The endpoint failed: questions go to the heuristic until then.
    down_until: Option<Instant>,
    /// The first failure was said (it is said once per run).
    said: bool,
}

/// The client shared by the input generator and the agent of one run (and their copies).
pub type SharedClient = Arc<Mutex<LlmClient>>;

/// The cache key of a question: SHA-256 over model, prompt and image hash.
pub fn cache_key(model: &str, prompt: &str, image_hash: Option<&str>) -> String {
    let mut h = Sha256::new();
    h.update(model.as_bytes());
    h.update([0]);
    h.update(prompt.as_bytes());
    h.update([0]);
    h.update(image_hash.unwrap_or("").as_bytes());
    hex(&h.finalize())
}

/// SHA-256 of an image, hex.
pub fn image_hash(png: &[u8]) -> String {
    hex(&Sha256::digest(png))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl LlmClient {
    /// Answers every question with `provider`, through `cache`.
    pub fn new(provider: Box<dyn Provider>, cache: Box<dyn AnswerCache>) -> LlmClient {
        let usage = LlmUsage {
            provider: provider.name().to_string(),
            model: provider.model().to_string(),
            endpoint: provider.endpoint().map(str::to_string),
            ..LlmUsage::default()
        };
        LlmClient {
            provider,
            fallback: HeuristicProvider::new(),
            cache,
            usage: Arc::new(Mutex::new(usage)),
            secrets: Secrets::default(),
            prices: Prices::default(),
            pause: DEFAULT_PAUSE,
            down_until: None,
            said: false,
        }
    }

    /// No model: the heuristic answers everything.
    pub fn heuristic() -> LlmClient {
        LlmClient::new(
            Box::new(HeuristicProvider::new()),
            Box::new(MemoryCache::default()),
        )
    }

    /// Configured secrets are replaced by their `${NAME}` reference in every prompt, so
    /// they never reach the endpoint or the cache.
    pub fn with_secrets(mut self, secrets: Secrets) -> LlmClient {
        self.secrets = secrets;
        self
    }

    pub fn with_prices(mut self, prices: Prices) -> LlmClient {
        self.prices = prices;
        self
    }

    /// How long a failed endpoint is left alone (default 30 s).
    pub fn with_pause(mut self, pause: Duration) -> LlmClient {
        self.pause = pause;
        self
    }

    pub fn shared(self) -> SharedClient {
        Arc::new(Mutex::new(self))
    }

    /// The counters, shared with whoever reports them.
    pub fn usage(&self) -> SharedUsage {
        Arc::clone(&self.usage)
    }

    /// Whether answers come from a model (not only the heuristic).
    pub fn has_model(&self) -> bool {
        self.provider.cacheable()
    }

    /// Whether images are worth sending (a model that reads them).
    pub fn sees_images(&self) -> bool {
        self.provider.sees_images()
    }

    fn count(&self, f: impl FnOnce(&mut LlmUsage)) {
        let mut u = self.usage.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut u);
    }

    /// Ask, and always answer: the cache, else the model, else the heuristic (whose text
    /// is empty for AutoE2E's questions: ask those with `features` and `same_feature`).
    pub fn ask(&mut self, request: &Request<'_>) -> Answer {
        match self.ask_model(request) {
            Ok(a) => a,
            Err(_) => self.heuristic_answer(request),
        }
    }

    /// The cache's or the model's answer (counted); why there is none otherwise (no model,
    /// the endpoint paused after a failure, or this call failed).
    fn ask_model(&mut self, request: &Request<'_>) -> Result<Answer, NoAnswer> {
        self.count(|u| u.questions += 1);
        let kind = request.task.kind();
        if !self.provider.cacheable() {
            return Err(NoAnswer::NoModel(kind));
        }
        let masked;
        let request = if self.secrets.is_empty() {
            request
        } else {
            masked = Request {
                prompt: self.secrets.mask(&request.prompt),
                ..request.clone()
            };
            &masked
        };
        let model = if request.image.is_some() {
            self.provider.vision_model()
        } else {
            self.provider.model()
        }
        .to_string();
        let img = request.image.map(image_hash);
        let key = cache_key(&model, &request.prompt, img.as_deref());
        if let Some(text) = self.cache.get(&key) {
            self.count(|u| u.cache_hits += 1);
            return Ok(Answer {
                text,
                source: Source::Cache,
            });
        }
        if self.down_until.is_some_and(|t| Instant::now() < t) {
            self.count(|u| u.skipped += 1);
            return Err(NoAnswer::Failed {
                kind,
                reason: "the endpoint is paused after a failure".into(),
            });
        }
        let started = Instant::now();
        match self.provider.complete(request) {
            Ok(reply) => {
                let ms = started.elapsed().as_millis().min(u128::from(u32::MAX)) as u32;
                let prices = self.prices;
                self.down_until = None;
                self.count(|u| {
                    u.calls += 1;
                    u.retries += u64::from(reply.retries);
                    u.record_latency(ms);
                    let (p, c) = (
                        reply.prompt_tokens.unwrap_or(0),
                        reply.completion_tokens.unwrap_or(0),
                    );
                    u.prompt_tokens += p;
                    u.completion_tokens += c;
                    u.cost += p as f64 / 1e3 * prices.prompt_per_1k
                        + c as f64 / 1e3 * prices.completion_per_1k;
                });
                self.cache.put(
                    &key,
                    &CachedAnswer {
                        model: &model,
                        kind,
                        prompt: &request.prompt,
                        image_hash: img.as_deref(),
                        answer: &reply.text,
                    },
                );
                Ok(Answer {
                    text: reply.text,
                    source: Source::Model,
                })
            }
            Err(e) => {
                self.failed(&e);
                Err(NoAnswer::Failed {
                    kind,
                    reason: e.to_string(),
                })
            }
        }
    }

    fn failed(&mut self, e: &LlmError) {
        let message = e.to_string();
        self.count(|u| {
            u.failed += 1;
            u.last_error = Some(message.clone());
        });
        if e.endpoint_down() {
            self.down_until = Some(Instant::now() + self.pause);
        }
        if !self.said {
            self.said = true;
            let endpoint = self.provider.endpoint().unwrap_or("the model").to_string();
            if e.endpoint_down() {
                tracing::warn!(
                    "the language model at {endpoint} is unreachable ({message}); the \
                     heuristic answers instead, and the model is tried again every {}s \
                     (counts in the summary)",
                    self.pause.as_secs()
                );
            } else {
                tracing::warn!(
                    "the language model at {endpoint} gave no usable answer ({message}); \
                     the heuristic answers such questions (counts in the summary)"
                );
            }
        }
    }

    /// AutoE2E's feature question (DESIGN 7.6): at most `ask.r` labels, most likely first,
    /// from the model or the cache. The heuristic provider has no answer to it: `Err` says
    /// why there is none, and the caller answers with its own heuristic (counted as such).
    pub fn features(&mut self, ask: &FeatureAsk<'_>) -> Result<(Vec<String>, Source), NoAnswer> {
        let request = Request {
            task: Task::Features(*ask),
            prompt: Prompts::get().features(ask),
            image: None,
            seed: 0,
        };
        let r = ask.r;
        self.read(&request, |text| {
            let labels = answer::feature_labels(text, r);
            (!labels.is_empty()).then_some(labels)
        })
    }

    /// AutoE2E's judge: whether `new` and `known` name the same feature of `app`, from the
    /// model or the cache; `Err` (the caller decides by itself) as for `features`.
    pub fn same_feature(
        &mut self,
        app: &str,
        new: &str,
        known: &str,
    ) -> Result<(bool, Source), NoAnswer> {
        let request = Request {
            task: Task::SameFeature { app, new, known },
            prompt: Prompts::get().same_feature(app, new, known),
            image: None,
            seed: 0,
        };
        self.read(&request, answer::yes_no)
    }

    /// A question only a model answers, its answer read by `parse`; an answer `parse`
    /// cannot read counts as malformed and is no answer.
    fn read<T>(
        &mut self,
        request: &Request<'_>,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<(T, Source), NoAnswer> {
        let kind = request.task.kind();
        let got = self.ask_model(request).and_then(|a| match parse(&a.text) {
            Some(v) => Ok((v, a.source)),
            None => {
                self.count(|u| u.malformed += 1);
                let answer: String = a.text.chars().take(200).collect();
                tracing::debug!(kind, ?answer, "a model answer that could not be read");
                Err(NoAnswer::Unreadable { kind, answer })
            }
        });
        if got.is_err() {
            // The caller's own heuristic answers it.
            self.count(|u| u.heuristic += 1);
        }
        got
    }

    fn heuristic_answer(&mut self, request: &Request<'_>) -> Answer {
        self.count(|u| u.heuristic += 1);
        let text = self
            .fallback
            .complete(request)
            .map(|r| r.text)
            .unwrap_or_default();
        Answer {
            text,
            source: Source::Heuristic,
        }
    }

    /// The value for an input question: the model's (VETL's fallback: an answer without
    /// the format is typed as it is), or the heuristic's when the model gave nothing usable.
    pub fn input_text(&mut self, request: &Request<'_>) -> (String, Source) {
        debug_assert!(matches!(request.task, Task::InputText { .. }));
        let a = self.ask(request);
        let (text, formed) = answer::input_text(&a.text);
        if a.source != Source::Heuristic && !formed {
            self.count(|u| u.malformed += 1);
        }
        match text {
            Some(t) => (t, a.source),
            None => {
                let seed = request.seed;
                self.count(|u| u.heuristic += 1);
                let value = self.fallback.answer(&request.task, seed);
                (value.unwrap_or_default(), Source::Heuristic)
            }
        }
    }

    /// The interested element of an element question: the chosen button's index (0-based
    /// among the request's buttons), or none when the answer names none (VETL then goes on
    /// without one).
    pub fn interested(&mut self, request: &Request<'_>) -> (Option<usize>, Source) {
        let Task::InterestedElement { buttons, .. } = request.task else {
            return (None, Source::Heuristic);
        };
        let a = self.ask(request);
        let (n, formed) = answer::button(&a.text, buttons.len());
        if a.source != Source::Heuristic && !formed {
            self.count(|u| u.malformed += 1);
        }
        (n.map(|n| n - 1), a.source)
    }
}

#[cfg(test)]
mod tests;
