//! Which abstraction keys the knowledge base and how many candidates an interaction may
//! have before it is marked non-deterministic: `types-1`, `types-5`, `actions-1`,
//! `actions-5`, `widgets-1`, `widgets-5` (the paper's six), or `off`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The largest non-determinism tolerance accepted (the paper studies 1 and 5).
pub const MAX_CAPACITY: usize = 20;

/// The abstraction functions of DESIGN section 5 that key the knowledge base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyKind {
    /// absS: URL and title; absA: the action kind and the type of the widget it involves.
    Types,
    /// absS: the set of enabled actions; absA: the action kind and its locator.
    Actions,
    /// absS: every widget with a subset of its properties; absA: kind, locator and value.
    Widgets,
}

impl KeyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Types => "types",
            KeyKind::Actions => "actions",
            KeyKind::Widgets => "widgets",
        }
    }
}

/// One inference configuration: the abstraction and the tolerance n.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InferenceConfig {
    pub keys: KeyKind,
    /// At most this many candidate next states per abstract interaction; one more marks
    /// it non-deterministic and it is always scanned from then on.
    pub capacity: usize,
}

impl fmt::Display for InferenceConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.keys.as_str(), self.capacity)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown inference configuration {0:?}: use off, or types-N, actions-N or widgets-N with N \
     from 1 to {MAX_CAPACITY} (the paper's six: types-1, types-5, actions-1, actions-5, widgets-1, \
     widgets-5)"
)]
pub struct BadInference(pub String);

impl FromStr for InferenceConfig {
    type Err = BadInference;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadInference(s.to_string());
        let lower = s.trim().to_ascii_lowercase();
        let (name, n) = lower.rsplit_once('-').ok_or_else(bad)?;
        let keys = match name {
            "types" => KeyKind::Types,
            "actions" => KeyKind::Actions,
            "widgets" => KeyKind::Widgets,
            _ => return Err(bad()),
        };
        let capacity: usize = n.parse().map_err(|_| bad())?;
        if !(1..=MAX_CAPACITY).contains(&capacity) {
            return Err(bad());
        }
        Ok(InferenceConfig { keys, capacity })
    }
}

/// `off` (or an empty string) is no inference; anything else must name a configuration.
pub fn parse_inference(s: &str) -> Result<Option<InferenceConfig>, BadInference> {
    match s.trim().to_ascii_lowercase().as_str() {
        "" | "off" | "none" => Ok(None),
        _ => s.parse().map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_six_names_parse_and_print_back() {
        for name in [
            "types-1",
            "types-5",
            "actions-1",
            "actions-5",
            "widgets-1",
            "widgets-5",
        ] {
            let c: InferenceConfig = name.parse().unwrap();
            assert_eq!(c.to_string(), name);
        }
        assert_eq!(parse_inference("off"), Ok(None));
        assert_eq!(parse_inference("Actions-3").unwrap().unwrap().capacity, 3);
    }

    #[test]
    fn bad_names_say_what_is_accepted() {
        for bad in [
            "actions",
            "actions-0",
            "actions-99",
            "pixels-5",
            "actions-x",
        ] {
            let e = parse_inference(bad).unwrap_err();
            assert!(e.to_string().contains("widgets-5"), "{e}");
        }
    }
}
