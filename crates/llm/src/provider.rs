//! The seam every model sits behind: a `Provider` answers a `Request` (a prompt, maybe an
//! image, and the structured context the prompt was built from).

use std::time::Duration;

use wayfarer_core::model::{Element, Observation};

/// What a question is about. The text prompt is built from it; the heuristic provider
/// answers from it directly, without reading the prompt.
#[derive(Clone, Copy, Debug)]
pub enum Task<'a> {
    /// VETL's input prompt: a value for `field` on `page`.
    InputText {
        field: &'a Element,
        page: &'a Observation,
    },
    /// VETL's element prompt: which of `buttons` (numbered from 1 in this order) should be
    /// pressed after typing `value` into `field`.
    InterestedElement {
        field: &'a Element,
        value: &'a str,
        buttons: &'a [&'a Element],
        page: &'a Observation,
    },
    /// AutoE2E's feature question (paper 003): the features an action is part of. The
    /// heuristic provider has no answer to it (the caller has its own heuristic).
    Features(FeatureAsk<'a>),
    /// AutoE2E's judge: whether two feature labels name the same feature. No heuristic
    /// answer either.
    SameFeature {
        app: &'a str,
        new: &'a str,
        known: &'a str,
    },
}

/// What the feature prompt is built from.
#[derive(Clone, Copy, Debug)]
pub struct FeatureAsk<'a> {
    /// What the application is: a sentence, or its URL.
    pub app: &'a str,
    /// What the action's page is for, in a line.
    pub context: &'a str,
    /// The action, described (`click button "Add Owner" after filling "City"`).
    pub action: &'a str,
    /// The action that led to the page, and what its own page was for.
    pub previous: Option<(&'a str, &'a str)>,
    /// Labels wanted at most, most likely first.
    pub r: usize,
}

impl Task<'_> {
    /// The kind of question, for logs and the cache: `input`, `element`, `features` or
    /// `same-feature`.
    pub fn kind(&self) -> &'static str {
        match self {
            Task::InputText { .. } => "input",
            Task::InterestedElement { .. } => "element",
            Task::Features(_) => "features",
            Task::SameFeature { .. } => "same-feature",
        }
    }
}

/// One question to a model.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    pub task: Task<'a>,
    /// The whole user prompt, rendered from a template.
    pub prompt: String,
    /// A PNG sent with the prompt (vision models only).
    pub image: Option<&'a [u8]>,
    /// Drawn from the run's generator: the heuristic provider varies its answers with it
    /// (a model does not see it, and it is not part of the cache key).
    pub seed: u64,
}

/// A model's answer, as text, with what the endpoint said about its cost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// Requests repeated before this answer came (429, 5xx, timeouts).
    pub retries: u32,
}

/// Why a provider gave no answer. Messages never hold the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// Nothing listens there, or the name does not resolve.
    #[error("cannot reach {endpoint}: {reason}")]
    Unreachable { endpoint: String, reason: String },
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// A status the retries did not get past (the body's start, for the log).
    #[error("HTTP {status}: {body}")]
    Http { status: u16, body: String },
    /// 429 on every try.
    #[error("rate limited (HTTP 429) on every try")]
    RateLimited,
    /// The body is not the JSON of a chat completion.
    #[error("malformed response: {0}")]
    Malformed(String),
    /// A well-formed response with no text in it.
    #[error("empty answer")]
    Empty,
    /// The heuristic provider has no answer to this kind of question.
    #[error("the heuristic has no answer to {0} questions")]
    NoHeuristic(&'static str),
}

impl LlmError {
    /// The endpoint is down rather than the question bad: pause before asking again.
    pub fn endpoint_down(&self) -> bool {
        matches!(
            self,
            LlmError::Unreachable { .. } | LlmError::Timeout(_) | LlmError::RateLimited
        ) || matches!(self, LlmError::Http { status, .. } if *status >= 500)
    }
}

/// A language model, or something that answers like one.
pub trait Provider: Send {
    /// `openai` or `heuristic`.
    fn name(&self) -> &str;

    /// The model's name, part of the cache key.
    fn model(&self) -> &str;

    /// The model asked when a prompt carries an image.
    fn vision_model(&self) -> &str {
        self.model()
    }

    /// The endpoint's base URL, for the summary (never with a key).
    fn endpoint(&self) -> Option<&str> {
        None
    }

    /// Whether the answers are worth caching (a model's are; the heuristic's cost nothing).
    fn cacheable(&self) -> bool {
        true
    }

    /// Whether it reads images (a vision model).
    fn sees_images(&self) -> bool {
        false
    }

    /// Answer `request`, retrying what is worth retrying.
    fn complete(&mut self, request: &Request<'_>) -> Result<Reply, LlmError>;
}
