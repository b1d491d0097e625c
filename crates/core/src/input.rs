//! The input-generator seam: values to type and options to pick (DESIGN section 6).

use rand_chacha::ChaCha8Rng;

use crate::model::{Element, Observation};

/// Produces the text typed into an element.
pub trait InputGenerator {
    fn name(&self) -> &str;

    /// An independent copy with the same state (state inference tries a choice on a copy
    /// of the agent, generator included, and keeps it only when the guess holds).
    fn fork(&self) -> Box<dyn InputGenerator + Send>;

    /// The value to type into `element` (an input, a textarea, a contenteditable).
    fn text_for(&mut self, element: &Element, page: &Observation, rng: &mut ChaCha8Rng) -> String;

    /// The option value to choose in a `<select>`; `None` when it has no options.
    fn option_for(
        &mut self,
        element: &Element,
        _page: &Observation,
        rng: &mut ChaCha8Rng,
    ) -> Option<String> {
        use rand::seq::SliceRandom;
        element.options.choose(rng).cloned()
    }
}

// Strategies hold their generator in a box; cloning the box forks the generator, so a
// strategy can derive `Clone` and be forked by state inference.
impl Clone for Box<dyn InputGenerator + Send> {
    fn clone(&self) -> Self {
        self.fork()
    }
}
