use proptest::prelude::*;
use regex::Regex;

use super::*;
use crate::testutil::{input, rng};

fn gen(e: &Element, seed: u64) -> String {
    HeuristicInput::new().text_for(e, &Observation::default(), &mut rng(seed))
}

fn email_re() -> Regex {
    Regex::new(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$").unwrap()
}

#[test]
fn emails_are_valid() {
    let re = email_re();
    for seed in 0..200 {
        let v = gen(&input("email", &[]), seed);
        assert!(re.is_match(&v) && v.contains('.'), "{v}");
        let v = gen(&input("text", &[("name", "userEmail")]), seed);
        assert!(re.is_match(&v), "{v}");
    }
}

#[test]
fn multiple_emails_are_comma_separated() {
    let re = email_re();
    let v = gen(&input("email", &[("multiple", "")]), 3);
    let parts: Vec<&str> = v.split(',').collect();
    assert!(parts.len() >= 2, "{v}");
    assert!(parts.iter().all(|p| re.is_match(p)), "{v}");
    for max in [3usize, 8, 20, 40] {
        let m = max.to_string();
        for seed in 0..50 {
            let v = gen(
                &input("email", &[("multiple", ""), ("maxlength", &m)]),
                seed,
            );
            assert!(v.len() <= max, "{v} > {max}");
            assert!(v.split(',').all(|p| re.is_match(p)), "{v}");
        }
    }
}

#[test]
fn number_fields_are_in_range_and_on_step() {
    let e = input(
        "number",
        &[
            ("name", "price"),
            ("min", "10"),
            ("max", "20"),
            ("step", "0.05"),
        ],
    );
    for seed in 0..200 {
        let v: f64 = gen(&e, seed).parse().unwrap();
        assert!((10.0..=20.0).contains(&v), "{v}");
        let q = (v - 10.0) / 0.05;
        assert!((q - q.round()).abs() < 1e-6, "{v}");
    }
    let age = input("number", &[("name", "age")]);
    let v: i64 = gen(&age, 1).parse().unwrap();
    assert!((18..=80).contains(&v));
}

#[test]
fn text_amount_has_two_decimals_within_range() {
    let e = input("text", &[("name", "amount"), ("min", "5"), ("max", "7")]);
    for seed in 0..50 {
        let v = gen(&e, seed);
        let (_, cents) = v.split_once('.').unwrap();
        assert_eq!(cents.len(), 2, "{v}");
        let x: f64 = v.parse().unwrap();
        assert!((5.0..=7.0).contains(&x), "{v}");
    }
}

#[test]
fn confirm_password_repeats_password() {
    let page = Observation::default();
    let mut g = HeuristicInput::new();
    let mut r = rng(9);
    for _ in 0..20 {
        let pw = g.text_for(&input("password", &[("name", "password")]), &page, &mut r);
        let _ = g.text_for(&input("text", &[("name", "city")]), &page, &mut r);
        let confirm = input("password", &[("id", "confirmPassword")]);
        assert_eq!(g.text_for(&confirm, &page, &mut r), pw);
        let mut again = input("password", &[]);
        again.label = "Repeat password".into();
        assert_eq!(g.text_for(&again, &page, &mut r), pw);
    }
}

#[test]
fn passwords_are_strong() {
    for seed in 0..200 {
        let v = gen(&input("password", &[]), seed);
        assert!(v.len() >= 8, "{v}");
        assert!(v.chars().any(|c| c.is_ascii_lowercase()), "{v}");
        assert!(v.chars().any(|c| c.is_ascii_uppercase()), "{v}");
        assert!(v.chars().any(|c| c.is_ascii_digit()), "{v}");
        assert!(v.chars().any(|c| !c.is_ascii_alphanumeric()), "{v}");
    }
    let v = gen(&input("password", &[("maxlength", "6")]), 1);
    assert_eq!(v.len(), 6, "{v}");
}

#[test]
fn phone_is_ten_digits() {
    let digits10 = Regex::new(r"^\d{10}$").unwrap();
    let cases = [
        input("tel", &[("maxlength", "10")]),
        input("tel", &[("pattern", r"\d{10}")]),
        input("text", &[("name", "phone"), ("maxlength", "10")]),
        input("text", &[("name", "mobile"), ("pattern", "[0-9]{10}")]),
    ];
    for e in &cases {
        for seed in 0..50 {
            let v = gen(e, seed);
            assert!(digits10.is_match(&v), "{v} for {:?}", e.attrs);
        }
    }
}

#[test]
fn tel_pattern_with_dashes() {
    let re = Regex::new(r"^[0-9]{3}-[0-9]{3}-[0-9]{4}$").unwrap();
    let e = input("tel", &[("pattern", "[0-9]{3}-[0-9]{3}-[0-9]{4}")]);
    for seed in 0..50 {
        assert!(re.is_match(&gen(&e, seed)));
    }
}

#[test]
fn patterns_are_matched_on_text_fields() {
    for p in [
        r"[A-Z]{3}\d{4}",
        r"[a-z]{2,4}-\d+",
        r"(yes|no)",
        r"[A-Za-z ]{3,30}",
    ] {
        let re = Regex::new(&format!("^(?:{p})$")).unwrap();
        for seed in 0..50 {
            let v = gen(&input("text", &[("name", "code"), ("pattern", p)]), seed);
            assert!(re.is_match(&v), "{v} vs {p}");
        }
    }
    // A meaningful value that already matches is kept.
    let v = gen(
        &input("text", &[("name", "city"), ("pattern", "[A-Za-z ]+")]),
        1,
    );
    assert!(words::CITIES.contains(&v.as_str()), "{v}");
}

#[test]
fn fields_get_meaningful_values() {
    let mut label = input("text", &[]);
    label.label = "First name".into();
    assert!(words::FIRST_NAMES.contains(&gen(&label, 1).as_str()));
    let v = gen(&input("text", &[("name", "lastName")]), 1);
    assert!(words::LAST_NAMES.contains(&v.as_str()), "{v}");
    let v = gen(&input("text", &[("name", "full_name")]), 1);
    assert_eq!(v.split(' ').count(), 2, "{v}");
    let v = gen(&input("text", &[("id", "zip")]), 1);
    assert!(v.len() == 5 && v.chars().all(|c| c.is_ascii_digit()), "{v}");
    let v = gen(&input("text", &[("placeholder", "City")]), 1);
    assert!(words::CITIES.contains(&v.as_str()), "{v}");
    let v = gen(&input("text", &[("name", "company_name")]), 1);
    assert!(words::COMPANIES.contains(&v.as_str()), "{v}");
    let v = gen(&input("text", &[("name", "cardNumber")]), 1);
    assert_eq!(v, "4111111111111111");
    let v = gen(&input("text", &[("name", "website")]), 1);
    assert!(v.starts_with("https://"), "{v}");
    let v = gen(&input("text", &[("name", "message")]), 1);
    assert!(v.ends_with('.'), "{v}"); // a sentence, not an age
    let v = gen(
        &input("text", &[("name", "dob"), ("placeholder", "MM/DD/YYYY")]),
        1,
    );
    assert!(
        Regex::new(r"^\d\d/\d\d/(19[5-9]\d|200[0-5])$")
            .unwrap()
            .is_match(&v),
        "{v}"
    );
    let v = gen(&input("text", &[("name", "qty")]), 1);
    assert!((1..=10).contains(&v.parse::<i32>().unwrap()), "{v}");
}

#[test]
fn textarea_is_multi_line() {
    let e = Element {
        tag: "textarea".into(),
        attrs: [("name".to_string(), "comments".to_string())].into(),
        ..Element::default()
    };
    assert!(gen(&e, 1).contains('\n'));
}

#[test]
fn dates_respect_min_max() {
    let e = input("date", &[("min", "2024-01-01"), ("max", "2024-01-31")]);
    for seed in 0..50 {
        let v = gen(&e, seed);
        assert!(
            v.as_str() >= "2024-01-01" && v.as_str() <= "2024-01-31",
            "{v}"
        );
    }
    let v = gen(&input("date", &[]), 1);
    assert!(
        Regex::new(r"^20[23]\d-\d\d-\d\d$").unwrap().is_match(&v),
        "{v}"
    );
}

#[test]
fn select_skips_placeholders() {
    let e = Element {
        tag: "select".into(),
        options: ["", "--", "Select...", "Choose one", "red", "green"]
            .map(String::from)
            .to_vec(),
        ..Element::default()
    };
    let mut g = HeuristicInput::new();
    let mut r = rng(1);
    for _ in 0..100 {
        let o = g.option_for(&e, &Observation::default(), &mut r).unwrap();
        assert!(o == "red" || o == "green", "{o}");
    }
    let only = Element {
        options: vec!["".into()],
        ..e
    };
    assert_eq!(
        g.option_for(&only, &Observation::default(), &mut r)
            .as_deref(),
        Some("")
    );
}

#[test]
fn deterministic_given_the_rng() {
    let fields = [
        input("text", &[("name", "name")]),
        input("email", &[]),
        input("password", &[]),
        input("number", &[("min", "1"), ("max", "9")]),
        input("date", &[]),
        input("tel", &[]),
    ];
    let run = |seed| {
        let mut g = HeuristicInput::new();
        let mut r = rng(seed);
        fields
            .iter()
            .cycle()
            .take(60)
            .map(|e| g.text_for(e, &Observation::default(), &mut r))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

const TYPES: &[&str] = &[
    "text", "email", "password", "search", "tel", "url", "textarea",
];
const NAMES: &[&str] = &[
    "email",
    "first_name",
    "lastName",
    "fullname",
    "username",
    "password",
    "confirm_password",
    "phone",
    "zip",
    "city",
    "street",
    "country",
    "company",
    "title",
    "description",
    "amount",
    "qty",
    "age",
    "dob",
    "date",
    "time",
    "url",
    "q",
    "cvv",
    "cardNumber",
    "otp",
    "pin",
    "misc",
    "expiry",
    "state",
];

proptest! {
    #[test]
    fn length_limits_always_hold(
        ty in prop::sample::select(TYPES),
        name in prop::sample::select(NAMES),
        max in proptest::option::of(1usize..60),
        min in proptest::option::of(0usize..60),
        multiple in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut attrs = vec![("name", name.to_string())];
        if let Some(m) = max {
            attrs.push(("maxlength", m.to_string()));
        }
        if let Some(m) = min {
            attrs.push(("minlength", m.to_string()));
        }
        if multiple {
            attrs.push(("multiple", String::new()));
        }
        let attrs: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut e = input(ty, &attrs);
        if ty == "textarea" {
            e.tag = "textarea".into();
            e.input_type = None;
        }
        let mut g = HeuristicInput::new();
        let mut r = rng(seed);
        // Twice, so a confirm field may reuse the password of the first call.
        for _ in 0..2 {
            let v = g.text_for(&e, &Observation::default(), &mut r);
            let n = v.chars().count();
            let max = max.unwrap_or(usize::MAX);
            let min = min.unwrap_or(0).min(max);
            prop_assert!(
                n <= max && n >= min,
                "{:?} ({} chars) for {} {} min {} max {}", v, n, ty, name, min, max
            );
        }
    }

    #[test]
    fn numbers_always_valid(
        name in prop::sample::select(vec!["age", "qty", "price", "year", "n", "zip"]),
        min in proptest::option::of(-500i32..500),
        span in 0i32..1000,
        has_max in any::<bool>(),
        step in prop::sample::select(vec!["1", "0.01", "0.5", "5", "any", "2.5"]),
        seed in any::<u64>(),
    ) {
        let min = min.map(f64::from);
        let max = has_max.then(|| min.unwrap_or(0.0) + f64::from(span));
        let mut attrs = vec![("name", name.to_string()), ("step", step.to_string())];
        if let Some(m) = min { attrs.push(("min", m.to_string())); }
        if let Some(m) = max { attrs.push(("max", m.to_string())); }
        let attrs: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let v = gen(&input("number", &attrs), seed);
        let x: f64 = v.parse().map_err(|_| TestCaseError::fail(format!("not a number: {v}")))?;
        let inside = min.is_none_or(|m| x >= m - 1e-9) && max.is_none_or(|m| x <= m + 1e-9);
        prop_assert!(inside, "{} out of {:?}..{:?}", v, min, max);
        if step != "any" {
            let s: f64 = step.parse().unwrap();
            let q = (x - min.unwrap_or(0.0)) / s;
            prop_assert!((q - q.round()).abs() < 1e-6, "{} not on step {}", v, s);
        }
    }
}
