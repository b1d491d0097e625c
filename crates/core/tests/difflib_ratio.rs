//! `similarity::Matcher::ratio` equals Python difflib's
//! `SequenceMatcher(None, a, b, autojunk=False).ratio()` on 63 tag-sequence pairs
//! generated and scored by difflib (fixtures/difflib_ratio.json; the generator is named
//! in the file): empty ones, unrelated ones, mutated copies and shifted windows, up to
//! 400 tags long.

use std::collections::HashMap;

use wayfarer_core::similarity::Matcher;

#[test]
fn ratio_equals_difflib_on_generated_pairs() {
    let raw = include_str!("fixtures/difflib_ratio.json");
    let v: serde_json::Value = serde_json::from_str(raw).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    assert!(pairs.len() >= 50);
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut intern = |xs: &serde_json::Value| -> Vec<u32> {
        xs.as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let n = ids.len() as u32;
                *ids.entry(t.as_str().unwrap().to_string()).or_insert(n)
            })
            .collect()
    };
    let mut m = Matcher::default();
    for (n, p) in pairs.iter().enumerate() {
        let (a, b) = (intern(&p["a"]), intern(&p["b"]));
        let want = p["ratio"].as_f64().unwrap();
        assert_eq!(
            m.matched(&a, &b) as u64,
            p["matched"].as_u64().unwrap(),
            "pair {n}: matched elements"
        );
        let got = m.ratio(&a, &b);
        assert!(
            (got - want).abs() < 1e-12,
            "pair {n}: {got} vs difflib {want}"
        );
    }
}
