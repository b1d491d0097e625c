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
//!
//! All randomness comes from the `rng` argument, so the same seed gives the same values.

mod classify;
mod dictionary;
mod heuristic;
mod numeric;
mod pattern;
mod random;
mod temporal;
mod words;

use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::model::{Element, Observation};

pub use dictionary::{BadPattern, Dictionary};
pub use heuristic::HeuristicInput;
pub use pattern::Pattern;
pub use random::RandomInput;

/// The generator names `by_name` accepts.
pub const GENERATOR_NAMES: [&str; 2] = ["random", "heuristic"];

/// A generator name that `by_name` does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown input generator {name:?}; valid names: random, heuristic")]
pub struct UnknownGenerator {
    pub name: String,
}

/// The named generator (`random` or `heuristic`) behind the configured dictionary.
pub fn by_name(
    name: &str,
    dict: Dictionary,
) -> Result<Box<dyn InputGenerator + Send>, UnknownGenerator> {
    match name {
        "random" => Ok(Box::new(Layered::new(dict, RandomInput))),
        "heuristic" => Ok(Box::new(Layered::new(dict, HeuristicInput::new()))),
        other => Err(UnknownGenerator {
            name: other.to_string(),
        }),
    }
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
