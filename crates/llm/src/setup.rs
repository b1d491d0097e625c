//! The client a run asks, built from `[llm]` (with the command line's flags applied): one
//! place for `explore`, `demo` and `bench`. The key is read from `WAYFARER_LLM_KEY` only.

use std::time::Duration;

use wayfarer_core::config::LlmConfig;
use wayfarer_core::llm::AnswerCache;
use wayfarer_core::secrets::Secrets;

use crate::client::{LlmClient, Prices};
use crate::openai::{BadEndpoint, OpenAiConfig, OpenAiProvider};

/// The environment variable the key is read from (never a flag or the file, so it stays
/// out of shell history, configurations and every output).
pub const KEY_VAR: &str = "WAYFARER_LLM_KEY";

#[derive(Debug, thiserror::Error)]
pub enum LlmConfigError {
    #[error("a language model is named ({0}) but no endpoint: add --llm URL (or [llm] url)")]
    NoUrl(String),
    #[error(
        "--llm {0} needs --model NAME (or [llm] model): the model the endpoint serves (for \
         a llama.cpp server any name will do; for Ollama or a hosted API, its name)"
    )]
    NoModel(String),
    #[error("[llm] {what} must be a positive number of seconds, not {value}")]
    Seconds { what: &'static str, value: f64 },
    #[error(transparent)]
    Endpoint(#[from] BadEndpoint),
}

/// `config` with the flags applied (flags win).
pub fn with_flags(config: &LlmConfig, url: Option<&str>, model: Option<&str>) -> LlmConfig {
    let mut c = config.clone();
    if let Some(u) = url {
        c.url = Some(u.to_string());
    }
    if let Some(m) = model {
        c.model = Some(m.to_string());
    }
    c
}

fn secs(value: f64, what: &'static str) -> Result<Duration, LlmConfigError> {
    if value.is_finite() && value > 0.0 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(LlmConfigError::Seconds { what, value })
    }
}

/// The client for `config`, answering through `cache`; `None` without an endpoint (the
/// strategies then use the heuristic provider). `secrets` never reach a prompt.
pub fn from_config(
    config: &LlmConfig,
    cache: Box<dyn AnswerCache>,
    secrets: Secrets,
) -> Result<Option<LlmClient>, LlmConfigError> {
    let Some(url) = config.url.as_deref() else {
        return match &config.model {
            Some(m) => Err(LlmConfigError::NoUrl(m.clone())),
            None => Ok(None),
        };
    };
    let model = config
        .model
        .as_deref()
        .ok_or_else(|| LlmConfigError::NoModel(crate::display_endpoint(url)))?;
    let mut c = OpenAiConfig::new(url, model);
    c.vision_model = config.vision_model.clone();
    c.vision = config.vision;
    c.key = std::env::var(KEY_VAR).ok().filter(|k| !k.trim().is_empty());
    c.timeout = secs(config.timeout_s, "timeout_s")?;
    c.retries = config.retries;
    c.max_tokens = config.max_tokens;
    c.temperature = config.temperature;
    let provider = OpenAiProvider::new(c)?;
    Ok(Some(
        LlmClient::new(Box::new(provider), cache)
            .with_secrets(secrets)
            .with_prices(Prices {
                prompt_per_1k: config.prompt_price_per_1k,
                completion_per_1k: config.completion_price_per_1k,
            })
            .with_pause(secs(config.pause_s, "pause_s")?),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::llm::MemoryCache;

    fn build(c: &LlmConfig) -> Result<Option<LlmClient>, LlmConfigError> {
        from_config(c, Box::new(MemoryCache::default()), Secrets::default())
    }

    #[test]
    fn no_endpoint_means_no_client_and_half_a_configuration_is_an_error() {
        assert!(build(&LlmConfig::default()).unwrap().is_none());
        let c = with_flags(&LlmConfig::default(), None, Some("gemma"));
        assert!(matches!(build(&c), Err(LlmConfigError::NoUrl(_))));
        let c = with_flags(&LlmConfig::default(), Some("http://127.0.0.1:1/v1"), None);
        let e = build(&c).err().unwrap().to_string();
        assert!(e.contains("needs --model"), "{e}");
        let c = with_flags(&c, None, Some("gemma"));
        let client = build(&c).unwrap().unwrap();
        assert!(client.has_model());
        assert!(!client.sees_images());
        let mut bad = c.clone();
        bad.timeout_s = 0.0;
        assert!(matches!(build(&bad), Err(LlmConfigError::Seconds { .. })));
        bad = c;
        bad.url = Some("ftp://x".into());
        assert!(matches!(build(&bad), Err(LlmConfigError::Endpoint(_))));
    }
}
