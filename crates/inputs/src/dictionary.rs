//! Configured values: `[inputs]` in `wayfarer.toml`, field-name pattern -> value.

use std::collections::BTreeMap;

use regex::{Regex, RegexBuilder};
use wayfarer_core::model::Element;

/// A field-name pattern that is not a valid regex.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("input pattern {pattern:?} is not a valid regex: {reason}")]
pub struct BadPattern {
    pub pattern: String,
    pub reason: String,
}

/// Field-name rules; the first rule (in the map's order) that matches any of the field's
/// names wins.
#[derive(Debug, Clone, Default)]
pub struct Dictionary {
    rules: Vec<(Regex, String)>,
}

impl Dictionary {
    /// Compiles every pattern as a case-insensitive regex.
    pub fn new(map: &BTreeMap<String, String>) -> Result<Dictionary, BadPattern> {
        let rules = map
            .iter()
            .map(|(pattern, value)| {
                RegexBuilder::new(pattern)
                    .case_insensitive(true)
                    .build()
                    .map(|re| (re, value.clone()))
                    .map_err(|e| BadPattern {
                        pattern: pattern.clone(),
                        reason: e.to_string(),
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Dictionary { rules })
    }

    /// The configured value for `e`, matched against its name, id, label, placeholder and
    /// aria-label. Empty names are skipped so that `.*` does not match nameless fields.
    pub fn lookup(&self, e: &Element) -> Option<&str> {
        let names = [
            e.attr("name").unwrap_or(""),
            e.attr("id").unwrap_or(""),
            e.label.as_str(),
            e.attr("placeholder").unwrap_or(""),
            e.attr("aria-label").unwrap_or(""),
        ];
        self.rules
            .iter()
            .find(|(re, _)| names.iter().any(|n| !n.is_empty() && re.is_match(n)))
            .map(|(_, v)| v.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    pub fn len(&self) -> usize {
        self.rules.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::input;

    fn dict(rules: &[(&str, &str)]) -> Dictionary {
        let map = rules
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Dictionary::new(&map).unwrap()
    }

    #[test]
    fn matches_label_and_placeholder_case_insensitively() {
        let d = dict(&[("user ?name", "alice"), ("PASSWORD", "s3cret!")]);
        let mut e = input("text", &[]);
        e.label = "User Name".into();
        assert_eq!(d.lookup(&e), Some("alice"));
        let e = input("password", &[("placeholder", "Your password")]);
        assert_eq!(d.lookup(&e), Some("s3cret!"));
        let e = input("text", &[("aria-label", "USERNAME")]);
        assert_eq!(d.lookup(&e), Some("alice"));
        let e = input("text", &[("id", "city")]);
        assert_eq!(d.lookup(&e), None);
    }

    #[test]
    fn first_rule_in_map_order_wins() {
        // BTreeMap order: "email" < "mail".
        let d = dict(&[("mail", "second"), ("email", "first")]);
        let e = input("email", &[("name", "email")]);
        assert_eq!(d.lookup(&e), Some("first"));
    }

    #[test]
    fn empty_names_never_match() {
        let d = dict(&[(".*", "x")]);
        assert_eq!(d.lookup(&input("text", &[])), None);
        assert!(!d.is_empty());
        assert!(Dictionary::default().is_empty());
    }

    #[test]
    fn bad_pattern_is_reported() {
        let map = BTreeMap::from([("(unclosed".to_string(), "v".to_string())]);
        let err = Dictionary::new(&map).unwrap_err();
        assert_eq!(err.pattern, "(unclosed");
        assert!(err.to_string().contains("(unclosed"), "{err}");
    }
}
