//! What the loop knows of language models, without knowing any: the usage counters a run
//! reports (calls, cache hits, tokens, latency, cost, what was skipped), and the picture
//! of the page an agent may ask for before it decides (vision prompts). The providers,
//! prompts and cache live in `wayfarer-llm`.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::model::Rect;

/// A PNG of a region of the page, taken for the agent just before it decides.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    pub png: Arc<Vec<u8>>,
    /// The region of the page the image shows, in CSS pixels from the page's top-left
    /// corner (element rects use the same frame): image pixel = (x - region.x) * scale.
    pub region: Rect,
}

/// How a run used its language model. Counted by `wayfarer-llm`'s client, reported in the
/// summary, the report and `bench`. Never holds a key.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LlmUsage {
    /// `openai` or `heuristic`.
    pub provider: String,
    pub model: String,
    /// The endpoint's base URL (`None` for the heuristic provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Questions asked (every one is answered: by the model, the cache or the heuristic).
    pub questions: u64,
    /// Requests the model answered (cache hits not included).
    pub calls: u64,
    /// Questions answered from the cache (this run's, or one kept from an earlier run in
    /// the same directory).
    pub cache_hits: u64,
    /// Questions the heuristic provider answered: all of them without a model; with one,
    /// those whose call failed or was skipped.
    pub heuristic: u64,
    /// Calls that failed after their retries (unreachable, timeout, HTTP error, garbage).
    pub failed: u64,
    /// Questions not sent because the endpoint had just failed (it is tried again after a
    /// pause).
    pub skipped: u64,
    /// Requests repeated (after a 429, a 5xx or a timeout) before an answer came; the
    /// tries of calls that failed in the end are not counted.
    pub retries: u64,
    /// Model answers without the structure the prompt asked for (used as the paper's
    /// fallbacks say).
    pub malformed: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Median and 90th percentile of the model's answer time, ms (calls only).
    pub latency_ms_median: f64,
    pub latency_ms_p90: f64,
    /// Sum of the model's answer times, seconds.
    pub latency_s_total: f64,
    /// Estimated cost from the configured prices per 1000 tokens (0 when none is set).
    pub cost: f64,
    /// The last error of a failed call, key-free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Every call's latency, ms, for the percentiles.
    #[serde(skip)]
    pub latencies_ms: Vec<u32>,
}

impl LlmUsage {
    /// Count one answered call's latency and refresh the percentiles.
    pub fn record_latency(&mut self, ms: u32) {
        self.latencies_ms.push(ms);
        self.latency_s_total += f64::from(ms) / 1e3;
        let mut v = self.latencies_ms.clone();
        v.sort_unstable();
        let at = |q: f64| {
            let i = ((v.len() - 1) as f64 * q).round() as usize;
            f64::from(v[i])
        };
        self.latency_ms_median = if v.len() % 2 == 1 {
            at(0.5)
        } else {
            let h = v.len() / 2;
            (f64::from(v[h - 1]) + f64::from(v[h])) / 2.0
        };
        self.latency_ms_p90 = at(0.9);
    }

    /// Share of model answers (calls and cache hits) that were malformed, 0-1.
    pub fn malformed_share(&self) -> f64 {
        let answers = self.calls + self.cache_hits;
        if answers == 0 {
            0.0
        } else {
            self.malformed as f64 / answers as f64
        }
    }

    /// Share of questions answered from the cache, 0-1.
    pub fn cache_hit_share(&self) -> f64 {
        if self.questions == 0 {
            0.0
        } else {
            self.cache_hits as f64 / self.questions as f64
        }
    }
}

/// The usage counters shared between the client that counts and the loop that reports.
pub type SharedUsage = Arc<Mutex<LlmUsage>>;

/// One answer worth keeping, with what it answered (for people reading the store).
#[derive(Clone, Copy, Debug)]
pub struct CachedAnswer<'a> {
    pub model: &'a str,
    /// The kind of question (`input`, `element`).
    pub kind: &'a str,
    pub prompt: &'a str,
    /// SHA-256 of the image sent with the prompt, hex.
    pub image_hash: Option<&'a str>,
    pub answer: &'a str,
}

/// Where model answers are kept between questions and between runs, keyed by a hash of
/// (model, prompt, image hash). The run store implements it; a failing cache is a miss.
pub trait AnswerCache: Send {
    fn get(&mut self, key: &str) -> Option<String>;
    fn put(&mut self, key: &str, entry: &CachedAnswer<'_>);
}

/// A cache that lives as long as the run (tests, and runs without a store).
#[derive(Debug, Default)]
pub struct MemoryCache(std::collections::HashMap<String, String>);

impl AnswerCache for MemoryCache {
    fn get(&mut self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn put(&mut self, key: &str, entry: &CachedAnswer<'_>) {
        self.0.insert(key.to_string(), entry.answer.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_follow_the_calls() {
        let mut u = LlmUsage::default();
        u.record_latency(100);
        assert_eq!((u.latency_ms_median, u.latency_ms_p90), (100.0, 100.0));
        u.record_latency(300);
        assert_eq!(u.latency_ms_median, 200.0);
        for ms in [50, 60, 70, 1000] {
            u.record_latency(ms);
        }
        // 50 60 70 100 300 1000
        assert_eq!(u.latency_ms_median, 85.0);
        assert_eq!(u.latency_ms_p90, 1000.0);
        assert!((u.latency_s_total - 1.58).abs() < 1e-9);
    }

    #[test]
    fn shares_are_zero_without_answers() {
        let mut u = LlmUsage::default();
        assert_eq!((u.malformed_share(), u.cache_hit_share()), (0.0, 0.0));
        u.questions = 4;
        u.calls = 2;
        u.cache_hits = 2;
        u.malformed = 1;
        assert_eq!((u.malformed_share(), u.cache_hit_share()), (0.25, 0.5));
    }
}
