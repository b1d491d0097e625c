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
    path_segment: Regex,
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
        path_segment: Regex::new(r"/[A-Za-z0-9_-]+").unwrap(),
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
    let s = random_ids(&p.path_segment, &s);
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

/// Path segments that are generated ids (`/email/3CwUKkNR`, `/email/bIOYQFjC`) become
/// `/<id>`: one fault at every email's URL is one failure, not one per email (MailDev's
/// 500 on deleting a deleted email was 23 signatures in one bench).
fn random_ids(segment: &Regex, s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for m in segment.find_iter(s) {
        // A whole segment only: `/index.DbQ2S_L7.entry.js` is a file name, not an id.
        let ends = s[m.end()..]
            .chars()
            .next()
            .is_none_or(|c| c.is_whitespace() || "/?#)(,;:'\"".contains(c));
        let seg = &m.as_str()[1..];
        let number = seg.bytes().all(|b| b.is_ascii_digit());
        if ends && (looks_generated(seg) || number) {
            out.push_str(&s[last..m.start()]);
            // A record's number in a request's path: the 500 of group 3 is the 500 of group 2.
            out.push_str(if number { "/<n>" } else { "/<id>" });
            last = m.end();
        }
    }
    out.push_str(&s[last..]);
    out
}

/// A word of mixed case that is not an identifier's words: `3CwUKkNR`, `spqBMTZU`,
/// `kAVeEoPE`, but not `petNew`, `OwnerEdit`, `iPhone`, `v2`, `README`.
pub(crate) fn looks_generated(w: &str) -> bool {
    if !(6..=64).contains(&w.len()) {
        return false;
    }
    let upper = w.chars().any(|c| c.is_ascii_uppercase());
    let lower = w.chars().any(|c| c.is_ascii_lowercase());
    upper && lower && !identifier_words(w)
}

/// `[A-Z]?[a-z]+` words and numbers one after another, split by `_` or `-` or nothing: how
/// people name things in camelCase, PascalCase or kebab-case (`getUserById`).
fn identifier_words(w: &str) -> bool {
    let b = w.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'_' || b[i] == b'-' {
            i += 1;
        } else if b[i].is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        } else {
            if b[i].is_ascii_uppercase() {
                i += 1;
            }
            let start = i;
            while i < b.len() && b[i].is_ascii_lowercase() {
                i += 1;
            }
            // An upper-case letter starts a word: "KkNR" is no word, "ById" two.
            if i == start {
                return false;
            }
        }
    }
    true
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
        // The source too: an HTTP failure's source is the request's URL, which holds the id.
        sig.push_str(&random_ids(
            &patterns().path_segment,
            &normalize_source(src),
        ));
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
    fn a_request_to_another_record_of_the_same_endpoint_is_the_same_failure() {
        let at = |url: &str| signature("http_5xx", "HTTP 500", Some(url), None, None);
        assert_eq!(
            at("http://x:8080/api/groups/3/transactions"),
            at("http://x:8080/api/groups/2/transactions")
        );
        assert_eq!(
            at("http://x:8080/api/groups/3/transactions"),
            "http_5xx|HTTP <n>|http://x:8080/api/groups/<n>/transactions"
        );
        // Creating and editing are two endpoints; a file's version stays.
        assert_ne!(
            at("http://x/api/groups/3/transactions"),
            at("http://x/api/groups/3/transactions/1")
        );
        assert_ne!(at("http://x/v2/app.js"), at("http://x/v3/app.js"));
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
    fn generated_ids_in_a_path_are_one_and_names_stay() {
        for id in [
            "3CwUKkNR", "bIOYQFjC", "spqBMTZU", "kAVeEoPE", "1jX8SbNe", "G11rEuLs",
        ] {
            assert_eq!(
                normalize_message(&format!("HTTP 500 from http://h/email/{id}")),
                "HTTP <n> from http://h/email/<id>",
                "{id}"
            );
        }
        for name in [
            "petNew",
            "OwnerEdit",
            "iPhone",
            "getUserById",
            "user_profile",
            "v2",
            "README",
        ] {
            let m = format!("HTTP 500 from http://h/api/{name}/list");
            assert_eq!(normalize_message(&m), m.replace("500", "<n>"), "{name}");
        }
        // File names and the middle of a word stay.
        let m = "at http://h/assets/index.DbQ2S_L7.entry.js";
        assert_eq!(normalize_message(m), m);
    }

    /// MailDev's 500 at each deleted email was still one signature per email after the
    /// message was masked: the failure's source, the request URL, kept the id.
    #[test]
    fn a_generated_id_in_the_source_url_is_one_signature() {
        let sig = |id: &str| {
            let url = format!("http://127.0.0.1:1080/email/{id}");
            signature(
                "http_5xx",
                &format!("HTTP 500 from {url}"),
                Some(&url),
                None,
                None,
            )
        };
        assert_eq!(sig("9UoetZCt"), sig("TrfELsRu"));
        let one = sig("C4IsvE0E");
        assert!(one.ends_with("|http://127.0.0.1:1080/email/<id>"), "{one}");
        // A script's file name stays, so two bundles are two sources.
        let js = |f: &str| signature("exception", "x", Some(f), Some(1), Some(2));
        assert_ne!(
            js("http://h/assets/index.DbQ2S_L7.entry.js"),
            js("http://h/assets/index.Xa8Kq2Lm.entry.js")
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
