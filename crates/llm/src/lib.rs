//! # wayfarer-llm
//!
//! One job: ask a language model, and always get an answer (DESIGN section 10). Most
//! users run without a model: the heuristic provider then answers every question from
//! the same structured context, offline and deterministically.
//!
//! - [`Provider`]: the seam. [`OpenAiProvider`] speaks OpenAI-compatible chat completions
//!   (hosted, vLLM, Ollama, llama.cpp's server) with images as base64, lenient parsing,
//!   retries with backoff; [`HeuristicProvider`] answers without a model.
//! - [`LlmClient`]: the cache in front (keyed by model, prompt and image hash, kept in the
//!   run store), the heuristic behind, the usage counters, secrets masked out of prompts.
//!   AutoE2E's questions ([`LlmClient::features`], [`LlmClient::same_feature`]) have no
//!   heuristic answer here: without a usable model answer they return [`NoAnswer`].
//! - [`prompt`]: VETL's input and element prompts and AutoE2E's feature and judge prompts,
//!   from versioned template files.
//! - [`answer`]: reading "Generated Input Text: ..." and "Selected Button Number: ...", and
//!   AutoE2E's feature labels and yes-or-no answers.
//! - [`annotate`]: the screenshot with the input framed in red and numbered blue frames
//!   on the clickables.
//! - [`LlmInput`]: an input generator that asks the client for each field's value.

pub mod annotate;
pub mod answer;
mod client;
mod heuristic;
mod input;
mod openai;
pub mod prompt;
mod provider;
mod setup;

pub use client::{
    cache_key, image_hash, Answer, LlmClient, NoAnswer, Prices, SharedClient, Source,
};
pub use heuristic::{distance, nearest, HeuristicProvider};
pub use input::LlmInput;
pub use openai::{
    completions_url, display_endpoint, tls_ready, BadEndpoint, OpenAiConfig, OpenAiProvider,
};
pub use provider::{FeatureAsk, LlmError, Provider, Reply, Request, Task};
pub use setup::{from_config, with_flags, LlmConfigError, KEY_VAR};
