//! The input-generator seam: values to type and options to pick (DESIGN section 6).

use rand_chacha::ChaCha8Rng;

use crate::model::{Action, Element, Event, Observation};

/// How a generator's note on a value made invalid on purpose starts (`mutate email: ...`):
/// steps whose rationale holds it are deliberate, not a failure of input quality.
pub const MUTATE_NOTE: &str = "mutate ";

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

    /// The file to set in the file input `element` (`crate::files::FileSpec`'s value):
    /// by default one that fits its `accept`.
    fn file_for(
        &mut self,
        element: &Element,
        _page: &Observation,
        _rng: &mut ChaCha8Rng,
    ) -> String {
        crate::files::fitting(element.attr("accept")).value()
    }

    /// The values for the fields of one form filled together before its button, one per
    /// field in order (`None`: leave that field alone). Selects get an option, the other
    /// fields text. A generator that decides per form (one field mutated, the others
    /// valid) overrides it.
    fn fill_form(
        &mut self,
        page: &Observation,
        fields: &[&Element],
        rng: &mut ChaCha8Rng,
    ) -> Vec<Option<String>> {
        fields
            .iter()
            .map(|f| {
                if f.tag == "select" {
                    self.option_for(f, page, rng)
                } else {
                    Some(self.text_for(f, page, rng))
                }
            })
            .collect()
    }

    /// One step as the agent saw it: `action` was taken on `before` and led to `after`,
    /// raising `events`. Generators that adapt to the application (was the form
    /// accepted?) learn here; the others ignore it.
    fn learn(
        &mut self,
        _before: &Observation,
        _action: &Action,
        _after: &Observation,
        _events: &[Event],
    ) {
    }

    /// What the server ran for the step `learn` was just told of: `new_lines` of its own
    /// code never run before in the run. Called only where the server's coverage is read
    /// (`[server] coverage`). A generator that steers by it (the mutate layer attacks again
    /// the field whose boundary value opened a new branch on the server) overrides it.
    fn learn_server(&mut self, _before: &Observation, _action: &Action, _new_lines: u64) {}

    /// A short human note on the last value chosen, when it was chosen on purpose to
    /// break something (`mutate email: a@b (no dot in the domain)`), for the step's
    /// rationale.
    fn note(&self) -> Option<String> {
        None
    }

    /// Whether filling the form that `action` submits on `page` again, or typing into the
    /// field it types into, would try something this generator has not tried on that form
    /// yet (the mutate layer's boundary values for a form that took valid ones): work left
    /// for a strategy that otherwise moves on from actions that brought nothing new.
    fn work_left(&self, _page: &Observation, _action: &Action) -> bool {
        false
    }

    /// Values that are typed whole or not at all (the configuration's `${NAME}` secrets):
    /// a value made from one (cut, padded) would carry part of it past the mask.
    /// Generators that rewrite values keep them; layers pass them on.
    fn keep_whole(&mut self, _secrets: &crate::secrets::Secrets) {}
}

// Strategies hold their generator in a box; cloning the box forks the generator, so a
// strategy can derive `Clone` and be forked by state inference.
impl Clone for Box<dyn InputGenerator + Send> {
    fn clone(&self) -> Self {
        self.fork()
    }
}
