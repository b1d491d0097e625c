//! What the simulator tests of the strategies share: valid values for the simulated
//! forms, and the run options of a simulated run.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use wayfarer_core::candidates::DenyText;
use wayfarer_core::config::OracleConfig;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Budget, Element, Observation, Oracles, RunOptions};

/// Valid values by input type, so forms can be passed: the heuristic generator's job,
/// without its crate.
// Not every test crate that shares this module types values.
#[allow(dead_code)]
pub struct Valid;

impl InputGenerator for Valid {
    fn fork(&self) -> Box<dyn InputGenerator + Send> {
        Box::new(Valid)
    }
    fn name(&self) -> &str {
        "valid"
    }
    fn text_for(&mut self, e: &Element, _: &Observation, _: &mut ChaCha8Rng) -> String {
        match e.input_type.as_deref() {
            Some("email") => "a@b.co".into(),
            Some("number") => "5".into(),
            _ => "x".into(),
        }
    }
}

/// A simulated run: the default oracles, no deny rule, never stopped from outside.
pub fn sim_options(budget: Budget, episode_steps: u32, seed: u64) -> RunOptions {
    RunOptions {
        budget,
        episode_steps,
        seed,
        deny: DenyText::default(),
        oracles: Oracles::new(OracleConfig::default(), vec![]).unwrap(),
        stop: Arc::new(AtomicBool::new(false)),
        target: "sim".into(),
        inference: None,
        llm: None,
    }
}
