//! Failure signatures (DESIGN section 9): the key that groups repeats of one fault.
//!
//! kind + message with volatile parts replaced by placeholders + source URL without its
//! query + line:column. Identifiers stay: "not valid for state petNew" and "... ownerEdit"
//! are two failures.

use std::sync::OnceLock;

use regex::Regex;

struct Patterns {
    quoted: Regex,
    uuid: Regex,
    hex: Regex,
    url_query: Regex,
    number: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        // Quoted values: what the user typed or the data shown, never the code's identity.
        quoted: Regex::new(r#""[^"]*"|'[^']*'|`[^`]*`"#).unwrap(),
        uuid: Regex::new(
            r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        )
        .unwrap(),
        hex: Regex::new(r"(?i)\b0x[0-9a-f]+\b|\b[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*\b|\b[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*\b").unwrap(),
        url_query: Regex::new(r"\?[^\s#]*").unwrap(),
        number: Regex::new(r"\b\d+(?:\.\d+)?\b").unwrap(),
    })
}

/// Replace the volatile parts of a failure message with placeholders.
///
/// Only hex words of at least 8 characters count as hex, so identifiers like `deadline`
/// or `cafe` stay as they are.
pub fn normalize_message(message: &str) -> String {
    // Masked first: a normalised secret (its digits made `<n>`) no longer matches the mask.
    let message = crate::secrets::mask_known(message);
    let p = patterns();
    let s = p.quoted.replace_all(&message, "<str>");
    let s = p.uuid.replace_all(&s, "<uuid>");
    let s = p.hex.replace_all(&s, |c: &regex::Captures| {
        let m = &c[0];
        if m.len() >= 8 || m.starts_with("0x") || m.starts_with("0X") {
            "<hex>".to_string()
        } else {
            m.to_string()
        }
    });
    let s = p.url_query.replace_all(&s, "?<query>");
    let s = p.number.replace_all(&s, "<n>");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The source URL without query and fragment.
pub fn normalize_source(url: &str) -> String {
    let cut = url.find(['?', '#']).unwrap_or(url.len());
    url[..cut].to_string()
}

/// The signature of a failure: `kind|message|source:line:column`.
pub fn signature(
    kind: &str,
    message: &str,
    source: Option<&str>,
    line: Option<u32>,
    column: Option<u32>,
) -> String {
    let mut sig = format!("{kind}|{}", normalize_message(message));
    if let Some(src) = source.filter(|s| !s.is_empty()) {
        sig.push('|');
        sig.push_str(&normalize_source(src));
        if let Some(l) = line {
            sig.push_str(&format!(":{l}"));
            if let Some(c) = column {
                sig.push_str(&format!(":{c}"));
            }
        }
    }
    sig
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_secret_is_masked_before_its_digits_are_made_placeholders() {
        crate::secrets::remember([("SIG_SECRET".into(), "Sig s3cr3t 42x".into())]);
        let n = normalize_message("cannot search for Sig s3cr3t 42x at 7");
        assert_eq!(n, "cannot search for ${SIG_SECRET} at <n>");
    }

    #[test]
    fn identifiers_stay_apart() {
        let a = normalize_message("Event not valid for state petNew");
        let b = normalize_message("Event not valid for state ownerEdit");
        assert_ne!(a, b);
        assert_eq!(a, "Event not valid for state petNew");
    }

    #[test]
    fn urls_differing_only_in_query_values_are_one() {
        let a = signature(
            "http_5xx",
            "HTTP 500 for /avatar?u=1&size=64",
            Some("http://x/avatar?u=1"),
            None,
            None,
        );
        let b = signature(
            "http_5xx",
            "HTTP 500 for /avatar?u=77&size=128",
            Some("http://x/avatar?u=77"),
            None,
            None,
        );
        assert_eq!(a, b);
    }

    #[test]
    fn numbers_hex_uuids_and_quotes_become_placeholders() {
        assert_eq!(
            normalize_message("Owner 42 not found: id 550e8400-e29b-41d4-a716-446655440000"),
            "Owner <n> not found: id <uuid>"
        );
        assert_eq!(
            normalize_message("bad pointer 0x7ffee3 in deadbeef00 cafe"),
            "bad pointer <hex> in <hex> cafe"
        );
        assert_eq!(
            normalize_message("Cannot read properties of undefined (reading 'trim')"),
            "Cannot read properties of undefined (reading <str>)"
        );
        assert_eq!(
            normalize_message("Invalid email \"a@b\" at 12.5"),
            "Invalid email <str> at <n>"
        );
    }

    #[test]
    fn source_line_and_column_are_part_of_it() {
        let a = signature(
            "exception",
            "TypeError: x is undefined",
            Some("http://h/app.js?v=3"),
            Some(10),
            Some(4),
        );
        assert_eq!(
            a,
            "exception|TypeError: x is undefined|http://h/app.js:10:4"
        );
        let b = signature(
            "exception",
            "TypeError: x is undefined",
            Some("http://h/app.js?v=4"),
            Some(11),
            Some(4),
        );
        assert_ne!(a, b);
    }

    proptest! {
        // Normalising twice changes nothing: placeholders are stable.
        #[test]
        fn normalisation_is_idempotent(s in "[ -~]{0,80}") {
            let once = normalize_message(&s);
            prop_assert_eq!(normalize_message(&once), once.clone());
        }

        // Messages that differ only in a number share a signature.
        #[test]
        fn numbers_never_split_a_signature(a in 0u32..1_000_000, b in 0u32..1_000_000) {
            let sa = signature("exception", &format!("row {a} missing"), Some("http://h/a.js"), Some(1), Some(2));
            let sb = signature("exception", &format!("row {b} missing"), Some("http://h/a.js"), Some(1), Some(2));
            prop_assert_eq!(sa, sb);
        }
    }
}
