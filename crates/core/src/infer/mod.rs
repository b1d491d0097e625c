//! State inference (SIBILLA, DESIGN section 8): a knowledge base that predicts the state an
//! action leads to, so the loop can skip the scan and the state analysis when the
//! prediction holds.
//!
//! - `config`: the six named configurations (`types-1` ... `widgets-5`) and `off`.
//! - `keys`: the abstraction functions absS and absA that key the knowledge base.
//! - `knowledge`: the knowledge base itself, generic over the state data it carries.
//! - `stats`: what inference saved and how often it guessed, for the summary.
//!
//! The loop side (asking for candidates, letting the agent choose in one, validating the
//! choice against the live page) is in `runner::predict`.

pub mod config;
pub mod keys;
pub mod knowledge;
pub mod stats;

pub use config::{parse_inference, BadInference, InferenceConfig, KeyKind};
pub use knowledge::{Candidate, Cardinality, Knowledge, Lookup, Recorded};
pub use stats::{deviation, CardinalityRow, InferStats, InferenceSummary};
