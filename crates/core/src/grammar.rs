//! Feature grammars (as in E2EBench): each feature of an application is a regular
//! expression over the space-separated log of action ids a test or session produced.
//! The matcher says which features an action-id log covers.
//!
//! Format, one feature per line: `name: regex`; blank lines and lines starting with `#`
//! are ignored; names are `[A-Za-z0-9_]+` and unique; the regex (Rust `regex` syntax) is
//! searched, unanchored, in the ids joined by single spaces followed by one space, so a
//! pattern may end every id with a space (`(\S+ )*` means "any actions in between").

use regex::Regex;

/// One feature: its name and its pattern.
#[derive(Clone, Debug)]
pub struct Feature {
    pub name: String,
    pub pattern: Regex,
}

/// The features of one application.
#[derive(Clone, Debug, Default)]
pub struct FeatureGrammar {
    features: Vec<Feature>,
}

/// A grammar line that could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GrammarError {
    #[error("line {line}: expected `name: regex`, found {text:?}")]
    Syntax { line: usize, text: String },
    #[error("line {line}: feature name {name:?} must be letters, digits and underscores")]
    BadName { line: usize, name: String },
    #[error("line {line}: feature {name:?} is defined twice")]
    Duplicate { line: usize, name: String },
    #[error("line {line}: feature {name:?}: {reason}")]
    BadRegex {
        line: usize,
        name: String,
        reason: String,
    },
}

impl FeatureGrammar {
    /// Parse a grammar file's text.
    pub fn parse(text: &str) -> Result<FeatureGrammar, GrammarError> {
        let mut features: Vec<Feature> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let t = raw.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let Some((name, re)) = t.split_once(':') else {
                return Err(GrammarError::Syntax {
                    line,
                    text: t.to_string(),
                });
            };
            let (name, re) = (name.trim(), re.trim());
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(GrammarError::BadName {
                    line,
                    name: name.to_string(),
                });
            }
            if re.is_empty() {
                return Err(GrammarError::Syntax {
                    line,
                    text: t.to_string(),
                });
            }
            if features.iter().any(|f| f.name == name) {
                return Err(GrammarError::Duplicate {
                    line,
                    name: name.to_string(),
                });
            }
            let pattern = Regex::new(re).map_err(|e| GrammarError::BadRegex {
                line,
                name: name.to_string(),
                reason: e.to_string(),
            })?;
            features.push(Feature {
                name: name.to_string(),
                pattern,
            });
        }
        Ok(FeatureGrammar { features })
    }

    pub fn features(&self) -> &[Feature] {
        &self.features
    }

    pub fn len(&self) -> usize {
        self.features.len()
    }

    pub fn is_empty(&self) -> bool {
        self.features.is_empty()
    }

    /// The names of the features `log` covers, in grammar order.
    pub fn covered<S: AsRef<str>>(&self, log: &[S]) -> Vec<&str> {
        let text = joined(log);
        self.features
            .iter()
            .filter(|f| f.pattern.is_match(&text))
            .map(|f| f.name.as_str())
            .collect()
    }

    /// The names of the features any of `logs` covers (each log matched on its own: a
    /// feature must happen within one test or episode).
    pub fn covered_by_any<S: AsRef<str>>(&self, logs: &[Vec<S>]) -> Vec<&str> {
        let texts: Vec<String> = logs.iter().map(|l| joined(l)).collect();
        self.features
            .iter()
            .filter(|f| texts.iter().any(|t| f.pattern.is_match(t)))
            .map(|f| f.name.as_str())
            .collect()
    }
}

/// The ids joined by single spaces, with a trailing space so every id ends with one.
fn joined<S: AsRef<str>>(log: &[S]) -> String {
    let mut s = String::new();
    for id in log {
        s.push_str(id.as_ref());
        s.push(' ');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: &str = "# comment\n\nlogin: (a\\.login\\.(email|demo) )+(\\S+ )*a\\.login\\.submit\n\
                     logout: a\\.nav\\.logout\n";

    #[test]
    fn parses_and_matches() {
        let g = FeatureGrammar::parse(G).unwrap();
        assert_eq!(g.len(), 2);
        let log = ["a.login.demo", "a.nav.home", "a.login.submit"];
        assert_eq!(g.covered(&log), vec!["login"]);
        assert!(g.covered(&["a.login.submit", "a.login.demo"]).is_empty());
        assert_eq!(g.covered(&["a.nav.logout"]), vec!["logout"]);
    }

    #[test]
    fn a_space_follows_every_id() {
        let g = FeatureGrammar::parse("x: a\\.b\\.c (\\S+ )*a\\.d ").unwrap();
        assert!(g.covered(&["a.b.c", "a.d"]).contains(&"x"));
        assert!(g.covered(&["a.b.c", "q", "a.d"]).contains(&"x"));
        assert!(g.covered(&["a.b.cd", "a.d"]).is_empty());
        assert!(g.covered(&["a.b.c"]).is_empty());
    }

    #[test]
    fn features_happen_within_one_log() {
        let g = FeatureGrammar::parse(G).unwrap();
        let split = vec![vec!["a.login.demo"], vec!["a.login.submit"]];
        assert!(g.covered_by_any(&split).is_empty());
        let whole = vec![
            vec!["a.nav.logout"],
            vec!["a.login.email", "a.login.submit"],
        ];
        assert_eq!(g.covered_by_any(&whole), vec!["login", "logout"]);
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(
            FeatureGrammar::parse("ok: a\nnope").unwrap_err(),
            GrammarError::Syntax {
                line: 2,
                text: "nope".into()
            }
        );
        assert!(matches!(
            FeatureGrammar::parse("a-b: x"),
            Err(GrammarError::BadName { line: 1, .. })
        ));
        assert!(matches!(
            FeatureGrammar::parse("a: x\na: y"),
            Err(GrammarError::Duplicate { line: 2, .. })
        ));
        assert!(matches!(
            FeatureGrammar::parse("a: (x"),
            Err(GrammarError::BadRegex { line: 1, .. })
        ));
    }
}
