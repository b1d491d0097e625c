//! The one mask for secrets: values that came from `${NAME}` references (in the
//! configuration, or filled into a trace from the environment) are written back as
//! `${NAME}` wherever a string enters something we keep or show, in every form an
//! application may echo them in: as typed, inside a longer string, percent-encoded in a
//! URL, escaped in HTML, JSON or a `{:?}` log line.

use std::collections::HashMap;
use std::fmt;
use std::sync::{PoisonError, RwLock};

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS, NON_ALPHANUMERIC};
use regex::Regex;

/// Values to mask, and the matcher built from every form of them.
#[derive(Clone, Default)]
pub struct Secrets {
    /// (name, value), longest value first so a value that contains another masks whole.
    pairs: Vec<(String, String)>,
    /// One pass over a text: every form of every value, longest first, and the name
    /// each form stands for.
    matcher: Option<(Regex, HashMap<String, String>)>,
}

impl PartialEq for Secrets {
    fn eq(&self, other: &Secrets) -> bool {
        self.pairs == other.pairs
    }
}

// Never the values: a `{:?}` of a config or an error must not be the leak.
impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.pairs.iter().map(|(n, _)| format!("${{{n}}}")))
            .finish()
    }
}

impl Secrets {
    pub fn new(pairs: impl IntoIterator<Item = (String, String)>) -> Secrets {
        let mut pairs: Vec<_> = pairs.into_iter().filter(|(_, v)| !v.is_empty()).collect();
        pairs.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
        pairs.dedup();
        let mut named: HashMap<String, String> = HashMap::new();
        for (name, value) in &pairs {
            for form in forms(value) {
                // Two names with one value: the first (longest, then by name) wins.
                named.entry(form).or_insert_with(|| name.clone());
            }
        }
        let mut needles: Vec<&String> = named.keys().collect();
        needles.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        // Alternatives are tried in order: longest first, so a value that contains another
        // (or a form that extends another) masks whole.
        let alternation = needles
            .iter()
            .map(|n| regex::escape(n))
            .collect::<Vec<_>>()
            .join("|");
        let matcher = (!named.is_empty()).then(|| {
            let re = regex::RegexBuilder::new(&alternation)
                .size_limit(64 << 20)
                .build()
                .expect("escaped literals always compile");
            (re, named)
        });
        Secrets { pairs, matcher }
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The values, longest first (for code that must find them where no text passes
    /// through the mask: the pixels of a screenshot).
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.pairs.iter().map(|(_, v)| v.as_str())
    }

    /// Whether `s` holds a secret value in any of its forms.
    pub fn occurs_in(&self, s: &str) -> bool {
        self.matcher.as_ref().is_some_and(|(re, _)| re.is_match(s))
    }

    /// Replace every secret value in `s`, in any of its forms, by its `${NAME}` reference.
    pub fn mask(&self, s: &str) -> String {
        match &self.matcher {
            None => s.to_string(),
            Some((re, named)) => re
                .replace_all(s, |c: &regex::Captures| format!("${{{}}}", named[&c[0]]))
                .into_owned(),
        }
    }

    /// `v` serialised to JSON with every string in it (object keys too) masked: the text
    /// stays valid JSON whatever the values are.
    pub fn mask_serialized<T: serde::Serialize>(&self, v: &T) -> String {
        let text = serde_json::to_string(v).expect("run records always serialise");
        // Most records hold none (a value inside a JSON string is there as typed or
        // JSON-escaped, both among its forms): only those that do are rebuilt.
        if !self.occurs_in(&text) {
            return text;
        }
        let mut value = serde_json::to_value(v).expect("run records always serialise");
        self.mask_value(&mut value);
        value.to_string()
    }

    /// Mask every string of a JSON value in place.
    pub fn mask_value(&self, v: &mut serde_json::Value) {
        use serde_json::Value;
        match v {
            Value::String(s) => {
                if self.occurs_in(s) {
                    *s = self.mask(s);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.mask_value(i)),
            Value::Object(map) => {
                if map.keys().any(|k| self.occurs_in(k)) {
                    let old = std::mem::take(map);
                    for (k, mut item) in old {
                        self.mask_value(&mut item);
                        map.insert(self.mask(&k), item);
                    }
                } else {
                    map.values_mut().for_each(|i| self.mask_value(i));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// The secrets this process has read so far (the configuration's, a trace's filled from
/// the environment), for text made where no `Secrets` is at hand: the log, a line cut
/// short (mask first, or a cut value escapes the mask), a console message.
static KNOWN: RwLock<Known> = RwLock::new(Known {
    pairs: Vec::new(),
    secrets: None,
});

/// The pairs remembered, and their matcher, built when text is first masked after a
/// change: building it costs more with every value, and a process that reads many
/// configurations (the config's property tests: 256 values) masked nothing in between.
struct Known {
    pairs: Vec<(String, String)>,
    secrets: Option<Secrets>,
}

/// Mask these (name, value) pairs in `mask_known` from now on.
pub fn remember(pairs: impl IntoIterator<Item = (String, String)>) {
    let mut known = KNOWN.write().unwrap_or_else(PoisonError::into_inner);
    let before = known.pairs.len();
    for pair in pairs {
        if !pair.1.is_empty() && !known.pairs.contains(&pair) {
            known.pairs.push(pair);
        }
    }
    if known.pairs.len() != before {
        known.secrets = None;
    }
}

/// `f` of every secret this process has read so far, the matcher built if it is not.
fn with_known<R>(f: impl FnOnce(&Secrets) -> R) -> R {
    {
        let known = KNOWN.read().unwrap_or_else(PoisonError::into_inner);
        match &known.secrets {
            Some(s) => return f(s),
            None if known.pairs.is_empty() => return f(&Secrets::default()),
            None => {}
        }
    }
    let mut known = KNOWN.write().unwrap_or_else(PoisonError::into_inner);
    let pairs = known.pairs.clone();
    f(known.secrets.get_or_insert_with(|| Secrets::new(pairs)))
}

/// Every secret this process has read so far.
pub fn known() -> Secrets {
    with_known(Secrets::clone)
}

/// `text` with every secret this process has read masked (see [`Secrets::mask`]).
pub fn mask_known(text: &str) -> String {
    with_known(|s| s.mask(text))
}

/// `text` masked, then cut to its first `n` characters: cut first, a secret across the
/// cut would no longer match the mask.
pub fn mask_then_cut(text: &str, n: usize) -> String {
    mask_known(text).chars().take(n).collect()
}

/// encodeURIComponent leaves letters, digits and `-_.!~*'()`.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');
/// RFC 3986's unreserved characters stay, every other byte is escaped.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');
/// The WHATWG URL parser's query set for special schemes (it leaves most punctuation).
const QUERY: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'\'');
/// The WHATWG URL parser's path set.
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}');

/// The forms a value takes where we keep or show what an application answered: as typed;
/// escaped in JSON and in a `{:?}` log line; percent-encoded by a form submission (`+` for
/// a space), by `encodeURIComponent`, by the URL parser (which leaves most punctuation),
/// every byte but the unreserved ones, each in upper and lower case hex; escaped in HTML
/// (quotes as entities or left alone).
fn forms(value: &str) -> Vec<String> {
    let mut out = vec![value.to_string()];
    let json = serde_json::to_string(value).expect("a string serialises");
    out.push(json[1..json.len() - 1].to_string());
    out.push(value.escape_debug().to_string());
    let form: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
    let encoded =
        [COMPONENT, UNRESERVED, QUERY, PATH].map(|set| utf8_percent_encode(value, set).to_string());
    for p in [form.replace('+', "%20"), form].into_iter().chain(encoded) {
        out.push(lower_hex(&p));
        out.push(p);
    }
    let html = value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    out.push(html.replace('"', "&quot;").replace('\'', "&#39;"));
    out.push(html.replace('"', "&#34;").replace('\'', "&#x27;"));
    out.push(html);
    out.sort();
    out.dedup();
    out.retain(|f| !f.is_empty());
    out
}

/// The `%XX` escapes of `s` in lower case hex.
fn lower_hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let esc = rest.get(at..at + 3).unwrap_or(&rest[at..]);
        out.push_str(&esc.to_ascii_lowercase());
        rest = &rest[at + esc.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, value: &str) -> Secrets {
        Secrets::new([(name.to_string(), value.to_string())])
    }

    #[test]
    fn longest_value_masks_whole() {
        let s = Secrets::new([
            ("PW".to_string(), "hunter2".to_string()),
            ("PWX".to_string(), "hunter2x".to_string()),
        ]);
        assert_eq!(s.mask("a hunter2x b hunter2"), "a ${PWX} b ${PW}");
        assert_eq!(s.mask("nothing here"), "nothing here");
    }

    #[test]
    fn every_echoed_form_is_masked() {
        let s = one("S", "s3cr3t Zq&9<b>\"ar'é");
        for text in [
            "s3cr3t Zq&9<b>\"ar'é",
            "/owners?lastName=s3cr3t+Zq%269%3Cb%3E%22ar%27%C3%A9&x=1",
            "/owners?lastName=s3cr3t%20Zq%269%3Cb%3E%22ar%27%C3%A9",
            "/owners?lastName=s3cr3t%20Zq%269%3cb%3e%22ar%27%c3%a9",
            "q=s3cr3t%20Zq&9%3Cb%3E%22ar%27%C3%A9",
            "q=s3cr3t%20Zq%269%3Cb%3E%22ar'%C3%A9",
            "<p>No owner s3cr3t Zq&amp;9&lt;b&gt;&quot;ar&#39;é</p>",
            "<p>No owner s3cr3t Zq&amp;9&lt;b&gt;\"ar'é</p>",
            "<p>No owner s3cr3t Zq&amp;9&lt;b&gt;&#34;ar&#x27;é</p>",
            r#"{"v":"s3cr3t Zq&9<b>\"ar'é"}"#,
            r#"typed "s3cr3t Zq&9<b>\"ar\'é" at -vv"#,
        ] {
            let m = s.mask(text);
            assert!(m.contains("${S}"), "{text} -> {m}");
            assert!(!m.contains("s3cr3t"), "{text} -> {m}");
        }
    }

    #[test]
    fn a_longer_string_holding_the_value_keeps_its_rest() {
        let s = one("S", "s3cr3t-Zq9-bar");
        assert_eq!(s.mask("s3cr3t-Zq9-barxxxx"), "${S}xxxx");
        assert_eq!(s.mask("/o?n=s3cr3t-Zq9-bar!&p=2"), "/o?n=${S}!&p=2");
    }

    #[test]
    fn json_stays_json_whatever_the_value() {
        // A value that is also a number, a key or JSON punctuation.
        let s = Secrets::new([
            ("N".to_string(), "1".to_string()),
            ("Q".to_string(), "\",\"".to_string()),
        ]);
        let v = serde_json::json!({"step": 1, "url": "/p?x=1", "k\",\"": ["a\",\"b"]});
        let text = s.mask_serialized(&v);
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["step"], 1);
        assert_eq!(back["url"], "/p?x=${N}");
        assert_eq!(back["k${Q}"][0], "a${Q}b");
    }

    #[test]
    fn known_values_are_masked_as_they_come() {
        // Process-wide: names and values of this test's own.
        assert_eq!(mask_known("k3-known-x1"), "k3-known-x1");
        remember([("KNOWN_T1".to_string(), "k3-known-x1".to_string())]);
        remember([("KNOWN_T2".to_string(), "z8-known-y2".to_string())]);
        assert_eq!(
            mask_known("typed \"k3-known-x1\" then z8-known-y2"),
            "typed \"${KNOWN_T1}\" then ${KNOWN_T2}"
        );
    }

    #[test]
    fn a_value_remembered_after_a_mask_is_masked_too() {
        // Process-wide: names and values of this test's own. The first mask builds the
        // matcher; the next value must not be missed by it.
        remember([("LATE_T1".to_string(), "q7-late-a1".to_string())]);
        assert_eq!(mask_known("q7-late-a1 w4-late-b2"), "${LATE_T1} w4-late-b2");
        remember([("LATE_T2".to_string(), "w4-late-b2".to_string())]);
        assert_eq!(mask_known("q7-late-a1 w4-late-b2"), "${LATE_T1} ${LATE_T2}");
        assert!(known().occurs_in("x w4-late-b2"));
        // Remembered again: nothing changes, nothing is lost.
        remember([("LATE_T2".to_string(), "w4-late-b2".to_string())]);
        assert_eq!(mask_known("w4-late-b2"), "${LATE_T2}");
    }

    #[test]
    fn debug_names_never_values() {
        let s = one("PW", "hunter2");
        assert_eq!(format!("{s:?}"), "[\"${PW}\"]");
        assert!(s.occurs_in("x hunter2"));
        assert!(!s.occurs_in("x hunter"));
        assert!(!Secrets::default().occurs_in("x"));
    }
}
