//! What the simulator tests of the strategies share: valid values for the simulated
//! forms, and the run options of a simulated run.

use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Element, Observation};

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
