//! Property-test helpers for the readers of untrusted JSON (traces, the page scan's
//! answer): any JSON value shaped like a format, and every place in a value. Built for
//! this crate's tests and, with the `testing` feature, for other crates' tests.

use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value: scalars of every kind plus `extra` ones, and arrays and objects
/// (nested up to 6 deep) whose keys are mostly `keys`, so wrong types sit where a
/// format's fields are expected.
pub fn any_json(keys: &'static [&'static str], extra: Vec<Value>) -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        3 => prop::sample::select(keys).prop_map(String::from),
        1 => any::<String>(),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        prop::sample::select(if extra.is_empty() {
            vec![Value::Null]
        } else {
            extra
        }),
    ];
    leaf.prop_recursive(6, 96, 10, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..40).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..10)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every place in `v` as a JSON pointer (the whole value is "").
pub fn json_places(v: &Value) -> Vec<String> {
    fn walk(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    walk(v, format!("{at}/{k}"), out);
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    walk(v, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
        out.push(at);
    }
    let mut out = Vec::new();
    walk(v, String::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_place_is_a_pointer_that_resolves() {
        let v = serde_json::json!({"a": [1, {"b": null}], "c": "x"});
        let places = super::json_places(&v);
        assert_eq!(places.len(), 6, "{places:?}");
        for p in &places {
            assert!(v.pointer(p).is_some(), "{p}");
        }
    }
}
