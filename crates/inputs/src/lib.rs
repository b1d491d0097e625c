//! # wayfarer-inputs
//!
//! One job: decide what text to type into a form field and which option to pick in a
//! `<select>` (DESIGN section 6). Everything here implements
//! [`wayfarer_core::input::InputGenerator`]:
//!
//! - [`RandomInput`] (`random`): W3C-type-aware random values with lengths drawn from a
//!   wide range, including empty, very long and unusual strings now and then.
//! - [`HeuristicInput`] (`heuristic`): valid, meaningful values read off the field's type,
//!   names, label and constraints (maxlength, pattern, min/max/step, ...).
//! - [`Dictionary`]: configured `field-name pattern -> value` rules (`[inputs]` in
//!   `wayfarer.toml`), and [`Layered`], which asks the dictionary before the generator.
//! - [`Mutate`] (`random+mutate`, `heuristic+mutate`): on top of either, once a form was
//!   accepted with valid values, every other submission of it changes one field to a
//!   boundary value from [`mutate::CATALOGUE`].
//!
//! All randomness comes from the `rng` argument, so the same seed gives the same values.

mod classify;
mod dictionary;
mod heuristic;
pub mod mutate;
mod numeric;
mod random;
mod temporal;
mod words;

use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::model::{Action, Element, Event, Observation};

pub use dictionary::{BadPattern, Dictionary};
pub use heuristic::HeuristicInput;
pub use mutate::Mutate;
pub use random::RandomInput;
pub use wayfarer_core::pattern::{self, Pattern};

/// The generator names `by_name` accepts: each base generator, and each with the
/// `mutate` layer on top.
pub const GENERATOR_NAMES: [&str; 4] = ["random", "heuristic", "random+mutate", "heuristic+mutate"];

/// The suffix that puts the `mutate` layer on top of a generator.
pub const MUTATE_SUFFIX: &str = "+mutate";

/// A generator name that `by_name` does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown input generator {name:?}; valid names: {}", GENERATOR_NAMES.join(", "))]
pub struct UnknownGenerator {
    pub name: String,
}

/// The named generator behind the configured dictionary (`random`, `heuristic`), with
/// the `mutate` layer on top of both when the name ends in `+mutate`.
pub fn by_name(
    name: &str,
    dict: Dictionary,
) -> Result<Box<dyn InputGenerator + Send>, UnknownGenerator> {
    let (base, mutate) = match name.strip_suffix(MUTATE_SUFFIX) {
        Some(base) => (base, true),
        None => (name, false),
    };
    let generator: Box<dyn InputGenerator + Send> = match base {
        "random" => Box::new(Layered::new(dict, RandomInput)),
        "heuristic" => Box::new(Layered::new(dict, HeuristicInput::new())),
        _ => {
            return Err(UnknownGenerator {
                name: name.to_string(),
            })
        }
    };
    // Mutate goes on top: configured values (credentials) are the valid ones it breaks
    // one at a time, every other submission.
    Ok(if mutate {
        Box::new(Mutate::new(generator))
    } else {
        generator
    })
}

/// Configured values first, then the inner generator (DESIGN 6: "a layered generator").
#[derive(Debug, Clone)]
pub struct Layered<G> {
    dict: Dictionary,
    inner: G,
}

impl<G> Layered<G> {
    pub fn new(dict: Dictionary, inner: G) -> Self {
        Layered { dict, inner }
    }

    pub fn dictionary(&self) -> &Dictionary {
        &self.dict
    }

    pub fn inner(&self) -> &G {
        &self.inner
    }
}

impl<G: InputGenerator + Clone + Send + 'static> InputGenerator for Layered<G> {
    fn fork(&self) -> Box<dyn InputGenerator + Send> {
        Box::new(self.clone())
    }

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn text_for(&mut self, element: &Element, page: &Observation, rng: &mut ChaCha8Rng) -> String {
        match self.dict.lookup(element) {
            Some(v) => v.to_string(),
            None => self.inner.text_for(element, page, rng),
        }
    }

    fn option_for(
        &mut self,
        element: &Element,
        page: &Observation,
        rng: &mut ChaCha8Rng,
    ) -> Option<String> {
        // A configured value only wins when the select actually offers it.
        if let Some(v) = self.dict.lookup(element) {
            if element.options.iter().any(|o| o == v) {
                return Some(v.to_string());
            }
        }
        self.inner.option_for(element, page, rng)
    }

    fn learn(
        &mut self,
        before: &Observation,
        action: &Action,
        after: &Observation,
        events: &[Event],
    ) {
        self.inner.learn(before, action, after, events);
    }

    fn learn_server(&mut self, before: &Observation, action: &Action, new_lines: u64) {
        self.inner.learn_server(before, action, new_lines);
    }

    fn note(&self) -> Option<String> {
        self.inner.note()
    }
}

/// The W3C input kinds the generators tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    Email,
    Password,
    Search,
    Tel,
    Url,
    Number,
    Date,
    Time,
    DateTimeLocal,
    Month,
    Week,
    TextArea,
    ContentEditable,
}

impl Kind {
    pub(crate) fn of(e: &Element) -> Kind {
        match e.tag.as_str() {
            "textarea" => Kind::TextArea,
            "input" => match e.input_type.as_deref().unwrap_or("text") {
                "email" => Kind::Email,
                "password" => Kind::Password,
                "search" => Kind::Search,
                "tel" => Kind::Tel,
                "url" => Kind::Url,
                "number" => Kind::Number,
                "date" => Kind::Date,
                "time" => Kind::Time,
                "datetime-local" | "datetime" => Kind::DateTimeLocal,
                "month" => Kind::Month,
                "week" => Kind::Week,
                _ => Kind::Text,
            },
            _ if e.attr("contenteditable").is_some_and(|v| v != "false") => Kind::ContentEditable,
            _ => Kind::Text,
        }
    }

    /// Single-line text kinds where maxlength/minlength/pattern apply.
    pub(crate) fn is_texty(self) -> bool {
        matches!(
            self,
            Kind::Text | Kind::Email | Kind::Password | Kind::Search | Kind::Tel | Kind::Url
        )
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use wayfarer_core::model::Element;

    pub fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    /// An `<input type=...>` with the given attributes.
    pub fn input(ty: &str, attrs: &[(&str, &str)]) -> Element {
        Element {
            locator: "#f".into(),
            tag: "input".into(),
            input_type: Some(ty.into()),
            attrs: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Element::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::{input, rng};
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn by_name_knows_both_generators() {
        for name in GENERATOR_NAMES {
            let g = by_name(name, Dictionary::default()).unwrap();
            assert_eq!(g.name(), name);
        }
    }

    #[test]
    fn mutate_goes_on_top_of_either_generator_and_not_on_unknown_ones() {
        for name in ["random+mutate", "heuristic+mutate"] {
            assert_eq!(by_name(name, Dictionary::default()).unwrap().name(), name);
        }
        for bad in ["mutate", "+mutate", "llm+mutate", "heuristic+mutate+mutate"] {
            let err = by_name(bad, Dictionary::default()).err().unwrap();
            assert_eq!(err.name, bad);
        }
    }

    #[test]
    fn by_name_error_lists_valid_names() {
        let err = by_name("llm", Dictionary::default()).err().unwrap();
        let msg = err.to_string();
        assert!(msg.contains("\"llm\""), "{msg}");
        for name in GENERATOR_NAMES {
            assert!(msg.contains(name), "{msg}");
        }
    }

    #[test]
    fn dictionary_wins_over_both_generators() {
        let map = BTreeMap::from([("e-?mail".to_string(), "me@corp.test".to_string())]);
        let page = Observation::default();
        for name in GENERATOR_NAMES {
            let mut g = by_name(name, Dictionary::new(&map).unwrap()).unwrap();
            let mut r = rng(1);
            for _ in 0..50 {
                let e = input("email", &[("name", "E-Mail")]);
                assert_eq!(g.text_for(&e, &page, &mut r), "me@corp.test");
            }
            // Fields the dictionary does not know still get generated values.
            let other = input("text", &[("name", "city")]);
            let _ = g.text_for(&other, &page, &mut r);
        }
    }

    #[test]
    fn dictionary_option_only_when_offered() {
        let map = BTreeMap::from([("country".to_string(), "fr".to_string())]);
        let mut g = Layered::new(Dictionary::new(&map).unwrap(), HeuristicInput::new());
        let page = Observation::default();
        let mut sel = Element {
            tag: "select".into(),
            attrs: [("name".to_string(), "country".to_string())].into(),
            options: vec!["".into(), "de".into(), "fr".into()],
            ..Element::default()
        };
        let mut r = rng(2);
        assert_eq!(g.option_for(&sel, &page, &mut r).as_deref(), Some("fr"));
        sel.options = vec!["".into(), "de".into()];
        assert_eq!(g.option_for(&sel, &page, &mut r).as_deref(), Some("de"));
    }

    #[test]
    fn kinds() {
        assert_eq!(Kind::of(&input("email", &[])), Kind::Email);
        assert_eq!(Kind::of(&input("weird", &[])), Kind::Text);
        let mut e = Element {
            tag: "div".into(),
            ..Element::default()
        };
        e.attrs.insert("contenteditable".into(), "true".into());
        assert_eq!(Kind::of(&e), Kind::ContentEditable);
        e.tag = "textarea".into();
        assert_eq!(Kind::of(&e), Kind::TextArea);
    }
}
