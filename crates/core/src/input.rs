//! The input-generator seam: values to type and options to pick (DESIGN section 6).

use rand_chacha::ChaCha8Rng;

use crate::model::{Element, Observation};

/// Produces the text typed into an element.
pub trait InputGenerator {
    fn name(&self) -> &str;

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
