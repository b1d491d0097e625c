//! `random`: W3C-type-aware random values. Lengths come from a wide range on purpose:
//! empty, very long and unusual strings now and then find the bugs valid values never do.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::model::{Element, Observation};

use crate::{numeric, temporal, Kind};

/// The `random` generator; selects pick a uniform option (the trait's default).
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomInput;

impl InputGenerator for RandomInput {
    fn fork(&self) -> Box<dyn InputGenerator + Send> {
        Box::new(RandomInput)
    }

    fn name(&self) -> &str {
        "random"
    }

    fn text_for(&mut self, element: &Element, _page: &Observation, rng: &mut ChaCha8Rng) -> String {
        let kind = Kind::of(element);
        match rng.gen_range(0..100u32) {
            0..=4 => String::new(),
            5..=9 => long(kind, rng),
            10..=19 => unusual(rng),
            _ => typed(kind, element, rng),
        }
    }
}

/// Odd inputs that commonly break parsing, escaping or layout. No NUL bytes: browsers and
/// CDP treat them inconsistently, so they test the tool rather than the app.
const UNUSUAL: &[&str] = &[
    "Zoë Ñandú Straße",
    "日本語のテキスト",
    "Привет, мир",
    "😀🎉👍🏽",
    "👨‍👩‍👧‍👦",
    "مرحبا بالعالم",
    "שלום עולם",
    "\u{202e}txet desrever",
    "a\u{200b}b\u{200d}c",
    "e\u{301}\u{302}\u{303}",
    "'",
    "\"",
    "O'Brien",
    "\"quoted\" 'single'",
    "<script>alert(1)</script>",
    "<b>bold</b><img src=x onerror=alert(1)>",
    "' OR 1=1 --",
    "1; DROP TABLE users; --",
    "${7*7}{{7*7}}",
    "%s%n%x%d",
    "../../../etc/passwd",
    "\\",
    "&amp; &lt; &#x27;",
    "   ",
    "\t",
    "\n\n",
    "0",
    "-1",
    "1e309",
    "NaN",
    "null",
    "undefined",
    "true",
    "99999999999999999999",
    "0.1 + 0.2",
];

fn unusual(rng: &mut ChaCha8Rng) -> String {
    match rng.gen_range(0..4) {
        // Leading/trailing spaces around an ordinary value.
        0 => format!(
            "{}{}{}",
            " ".repeat(rng.gen_range(0..3)),
            short(rng, 1, 8),
            " ".repeat(rng.gen_range(1..3))
        ),
        // A number typed as text.
        1 => rng.gen_range(-100_000i64..100_000).to_string(),
        _ => UNUSUAL.choose(rng).copied().unwrap_or("'").to_string(),
    }
}

const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS: &[u8] = b"0123456789";
const PUNCT: &[u8] = b" .,-_!?@#&()/:";

/// Mostly lower-case letters, some capitals, digits and punctuation.
fn text_char(rng: &mut ChaCha8Rng) -> char {
    let set = match rng.gen_range(0..20) {
        0..=15 => LOWER,
        16 => UPPER,
        17 | 18 => DIGITS,
        _ => PUNCT,
    };
    char::from(set[rng.gen_range(0..set.len())])
}

fn short(rng: &mut ChaCha8Rng, lo: usize, hi: usize) -> String {
    let n = rng.gen_range(lo..=hi);
    (0..n).map(|_| text_char(rng)).collect()
}

fn from_set(rng: &mut ChaCha8Rng, set: &[u8], n: usize) -> String {
    (0..n)
        .map(|_| char::from(set[rng.gen_range(0..set.len())]))
        .collect()
}

/// 300 to 5000 chars of something the field type would plausibly hold.
fn long(kind: Kind, rng: &mut ChaCha8Rng) -> String {
    let n = rng.gen_range(300..=5000usize);
    match kind {
        Kind::Number | Kind::Tel => from_set(rng, DIGITS, n),
        Kind::Email => format!("{}@example.com", from_set(rng, LOWER, n - 12)),
        Kind::TextArea => (0..n)
            .map(|i| if i % 80 == 79 { '\n' } else { text_char(rng) })
            .collect(),
        _ => (0..n).map(|_| text_char(rng)).collect(),
    }
}

/// An ordinary-length value shaped for the input type, sometimes slightly malformed.
fn typed(kind: Kind, e: &Element, rng: &mut ChaCha8Rng) -> String {
    match kind {
        Kind::Email => email(rng),
        Kind::Password => {
            let n = rng.gen_range(1..=16);
            (0..n)
                .map(|_| char::from(rng.gen_range(b'!'..=b'~')))
                .collect()
        }
        Kind::Tel => {
            let n = rng.gen_range(1..=15);
            from_set(rng, b"0123456789012345678901234567890123456789+-() ", n)
        }
        Kind::Url => url(rng),
        Kind::Number => number(e, rng),
        Kind::TextArea => {
            let lines = rng.gen_range(1..=4);
            (0..lines)
                .map(|_| short(rng, 1, 12))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Kind::Date | Kind::Time | Kind::DateTimeLocal | Kind::Month | Kind::Week => {
            if rng.gen_bool(0.15) {
                invalid_temporal(kind, rng)
            } else {
                valid_temporal(kind, rng)
            }
        }
        Kind::Text | Kind::Search | Kind::ContentEditable => short(rng, 1, 12),
    }
}

fn email(rng: &mut ChaCha8Rng) -> String {
    const MALFORMED: &[&str] = &[
        "plainaddress",
        "@example.com",
        "user@",
        "a@@example.com",
        "a b@example.com",
        "user@example..com",
        "user@.com",
        "user.@example.com",
    ];
    if rng.gen_bool(0.1) {
        return MALFORMED.choose(rng).copied().unwrap_or("@").to_string();
    }
    if rng.gen_bool(0.1) {
        // Valid for HTML (no dot needed after the @), yet many servers choke on it.
        let (local_len, host_len) = (rng.gen_range(1..=8), rng.gen_range(1..=8));
        let local = from_set(rng, LOWER, local_len);
        let host = from_set(rng, LOWER, host_len);
        return format!("{local}@{host}");
    }
    let local_len = rng.gen_range(1..=12);
    let local = from_set(rng, b"abcdefghijklmnopqrstuvwxyz0123456789._+", local_len);
    let host_len = rng.gen_range(1..=8);
    let host = from_set(rng, LOWER, host_len);
    let tld = ["com", "org", "net", "io", "dev", "co.uk"]
        .choose(rng)
        .copied()
        .unwrap_or("com");
    format!("{local}@{host}.{tld}")
}

fn url(rng: &mut ChaCha8Rng) -> String {
    let scheme = ["http://", "https://", "https://", "", "ftp://", "//"]
        .choose(rng)
        .copied()
        .unwrap_or("");
    let host_len = rng.gen_range(1..=10);
    let host = from_set(rng, LOWER, host_len);
    let mut s = format!("{scheme}{host}.example");
    if rng.gen_bool(0.5) {
        let path_len = rng.gen_range(1..=8);
        s.push('/');
        s.push_str(&from_set(rng, LOWER, path_len));
    }
    if rng.gen_bool(0.2) {
        s.push_str("?q=1&x=%20");
    }
    s
}

/// Respects nothing: sometimes in range, often negative, huge, decimal or exotic.
fn number(e: &Element, rng: &mut ChaCha8Rng) -> String {
    match rng.gen_range(0..100) {
        0..=29 => rng.gen_range(0..100).to_string(),
        30..=44 => rng.gen_range(-1_000_000i64..0).to_string(),
        45..=54 => {
            let n = rng.gen_range(10..=30);
            from_set(rng, DIGITS, n)
        }
        55..=69 => format!(
            "{:.*}",
            rng.gen_range(1..=6),
            rng.gen_range(-1000.0..1000.0f64)
        ),
        70..=89 => {
            // In range when the field says what the range is.
            let lo = numeric::parse(e.attr("min")).unwrap_or(0.0);
            let hi = numeric::parse(e.attr("max")).unwrap_or(lo + 100.0).max(lo);
            format!("{}", (rng.gen_range(lo..=hi)).round())
        }
        _ => [
            "1e5", "-0", "0x1F", "+7", "1,000", ".5", "5.", "Infinity", "--1",
        ]
        .choose(rng)
        .copied()
        .unwrap_or("0")
        .to_string(),
    }
}

fn valid_temporal(kind: Kind, rng: &mut ChaCha8Rng) -> String {
    let date = temporal::any_date(rng);
    let time = format!("{:02}:{:02}", rng.gen_range(0..24), rng.gen_range(0..60));
    match kind {
        Kind::Time => time,
        Kind::DateTimeLocal => format!("{date}T{time}"),
        Kind::Month => date[..7].to_string(),
        Kind::Week => format!("{}-W{:02}", &date[..4], rng.gen_range(1..=52)),
        _ => date,
    }
}

fn invalid_temporal(kind: Kind, rng: &mut ChaCha8Rng) -> String {
    let bad: &[&str] = match kind {
        Kind::Time => &["24:00", "12:60", "7pm", "noon", "1:2", "99:99"],
        Kind::Month => &["2023-13", "2023-00", "23-01", "January", "0000-00"],
        Kind::Week => &["2023-W00", "2023-W54", "2023W10", "W10"],
        Kind::DateTimeLocal => &["2023-02-30T10:00", "2023-01-01T25:00", "2023-01-01", "now"],
        _ => &[
            "2023-02-30",
            "2023-13-01",
            "0000-00-00",
            "9999-99-99",
            "20230101",
            "01/02/2023",
            "tomorrow",
        ],
    };
    bad.choose(rng).copied().unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{input, rng};

    fn draws(e: &Element, seed: u64, n: usize) -> Vec<String> {
        let mut g = RandomInput;
        let mut r = rng(seed);
        let page = Observation::default();
        (0..n).map(|_| g.text_for(e, &page, &mut r)).collect()
    }

    #[test]
    fn email_fields_usually_get_an_at_sign() {
        let v = draws(&input("email", &[]), 1, 1000);
        let with_at = v.iter().filter(|s| s.contains('@')).count();
        assert!(with_at > 600 && with_at < 1000, "{with_at}");
    }

    #[test]
    fn dotless_domains_appear_among_emails() {
        // "a@b" passes the browser's validation and reaches the server: worth trying.
        let v = draws(&input("email", &[]), 4, 1000);
        let dotless = v
            .iter()
            .filter(|s| {
                s.split_once('@')
                    .is_some_and(|(l, d)| !l.is_empty() && !d.is_empty() && !d.contains('.'))
            })
            .count();
        assert!(dotless > 30, "{dotless}");
    }

    #[test]
    fn long_and_empty_strings_appear() {
        let v = draws(&input("text", &[]), 2, 1000);
        let long = v.iter().filter(|s| s.chars().count() >= 300).count();
        assert!(long > 10, "{long}");
        assert!(v.iter().all(|s| s.chars().count() <= 5000));
        assert!(v.iter().any(String::is_empty));
        // Most values stay short.
        let short = v
            .iter()
            .filter(|s| (1..=12).contains(&s.chars().count()))
            .count();
        assert!(short > 600, "{short}");
    }

    #[test]
    fn unusual_strings_appear() {
        let v = draws(&input("text", &[]), 3, 1000);
        assert!(v.iter().any(|s| !s.is_ascii()));
        assert!(v.iter().any(|s| s.starts_with(' ') || s.ends_with(' ')));
    }

    #[test]
    fn same_seed_same_sequence() {
        for ty in ["text", "email", "number", "date", "password"] {
            let e = input(ty, &[]);
            assert_eq!(draws(&e, 42, 300), draws(&e, 42, 300));
            assert_ne!(draws(&e, 42, 300), draws(&e, 43, 300));
        }
    }

    #[test]
    fn never_null_bytes() {
        for ty in [
            "text", "email", "password", "search", "tel", "url", "number", "date", "week",
        ] {
            assert!(draws(&input(ty, &[]), 4, 500)
                .iter()
                .all(|s| !s.contains('\0')));
        }
    }

    #[test]
    fn numbers_vary_wildly() {
        let v = draws(&input("number", &[("min", "1"), ("max", "10")]), 5, 1000);
        let nums: Vec<f64> = v.iter().filter_map(|s| s.parse().ok()).collect();
        assert!(nums.iter().any(|n| *n < 0.0));
        assert!(nums.iter().any(|n| n.fract() != 0.0));
        assert!(nums.iter().any(|n| *n > 1e9));
        assert!(nums.iter().any(|n| (1.0..=10.0).contains(n)));
    }

    #[test]
    fn dates_are_mostly_iso() {
        let iso = regex::Regex::new(r"^\d{4}-\d{2}-\d{2}$").unwrap();
        let v = draws(&input("date", &[]), 6, 1000);
        let ok = v.iter().filter(|s| iso.is_match(s)).count();
        assert!(ok > 600 && ok < 1000, "{ok}");
    }

    #[test]
    fn textarea_gets_multiple_lines() {
        let e = Element {
            tag: "textarea".into(),
            ..Element::default()
        };
        assert!(draws(&e, 7, 200).iter().any(|s| s.contains('\n')));
    }

    #[test]
    fn select_is_uniform_over_options() {
        let e = Element {
            tag: "select".into(),
            options: vec!["a".into(), "b".into(), "c".into()],
            ..Element::default()
        };
        let mut g = RandomInput;
        let mut r = rng(8);
        let page = Observation::default();
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..900 {
            *counts
                .entry(g.option_for(&e, &page, &mut r).unwrap())
                .or_insert(0) += 1;
        }
        assert!(counts.values().all(|&c| c > 200), "{counts:?}");
    }
}
