//! `error_text`: a page that shows an error (a traceback, "Internal Server Error", an
//! exception's name), unless the step's own document answered 5xx (that is already the
//! failure) or the page quotes what the run typed (the application answering the user).

use std::collections::BTreeSet;

use super::{Check, Page};
use crate::config::Severity;
use crate::model::{EventKind, Observation};
use crate::oracle::{FailureKind, Finding};

pub struct ErrorText;

impl Check for ErrorText {
    fn id(&self) -> &'static str {
        "error_text"
    }
    fn kind(&self) -> FailureKind {
        FailureKind::ErrorText
    }
    fn phrase(&self) -> &'static str {
        "error page"
    }
    fn about(&self) -> &'static str {
        "a page that shows an error: a traceback, an exception's name, an error status in words"
    }
    fn default_severity(&self) -> Severity {
        Severity::Fail
    }
    fn judge(&self, p: &Page<'_>) -> Vec<Finding> {
        let document_5xx = p.events.iter().any(|e| {
            e.kind == EventKind::HttpResponse && e.document && e.status.is_some_and(|s| s >= 500)
        });
        if document_5xx {
            return Vec::new();
        }
        shown(p.obs, p.typed).into_iter().collect()
    }
}

/// The error `o` shows, unless it quotes a value the run typed (`NameError: name
/// 'grydj9ra' is not defined` after typing grydj9ra): that is the application answering
/// the user. Signed by its message alone: one error on /notebooks/1 and /notebooks/2, as
/// an exception thrown on two pages, is one failure; the page stays its source.
fn shown(o: &Observation, typed: &BTreeSet<String>) -> Option<Finding> {
    let text = o.error_text.as_ref()?;
    if typed.iter().any(|v| echoes(text, v)) {
        return None;
    }
    let mut f = Finding::new(FailureKind::ErrorText, text.clone(), None);
    f.source = Some(crate::signature::normalize_source(&o.url));
    Some(f)
}

/// Whether `text` shows the typed value `v` (its first 40 characters: the scan cuts long
/// text): quoted, or as a word of its own holding a letter and at least 3 characters (a
/// typed "1" is not the 1 of "line 1").
fn echoes(text: &str, v: &str) -> bool {
    let v: String = v.trim().chars().take(40).collect();
    if v.is_empty() {
        return false;
    }
    let word = v.chars().count() >= 3 && v.chars().any(char::is_alphabetic);
    text.match_indices(v.as_str()).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + v.len()..].chars().next();
        let quoted =
            |c: Option<char>| c.is_some_and(|c| "\"'`\u{201c}\u{201d}\u{2018}\u{2019}".contains(c));
        let apart = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
        (quoted(before) && quoted(after)) || (word && apart(before) && apart(after))
    })
}
