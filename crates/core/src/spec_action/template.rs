//! Bombadil 0.7's action templates (`ActionTemplate = Action<Range, StringGenerator>`):
//! what a generator offers before the draw. A number may be `[lo, hi]`; the text of
//! `TypeText` may be a string generator.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};

use super::{short_json, SpecActionError};
use crate::pattern::Pattern;

/// The characters `{ Text: n }` draws from: what a person types into a text field.
const TEXT_CHARS: &str =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789      .,-'!?";

/// How long a `{ CharSet: ... }` string is: Bombadil's type gives no length.
const CHARSET_LEN: (usize, usize) = (1, 16);

/// The most characters a drawn text may have, so a range such as `[1, 1e9]` stays typeable.
const MAX_TEXT: u64 = 10_000;

/// The action `v` with each range drawn and each string generator run.
pub(super) fn draw(v: &Value, rng: &mut ChaCha8Rng) -> Result<Value, SpecActionError> {
    let Value::Object(outer) = v else {
        return Ok(v.clone());
    };
    let mut out = Map::new();
    for (kind, body) in outer {
        out.insert(kind.clone(), draw_body(kind, body, rng)?);
    }
    Ok(Value::Object(out))
}

fn draw_body(kind: &str, body: &Value, rng: &mut ChaCha8Rng) -> Result<Value, SpecActionError> {
    let Value::Object(fields) = body else {
        return Ok(body.clone());
    };
    let mut out = Map::new();
    for (name, value) in fields {
        let drawn = match (kind, name.as_str()) {
            ("TypeText", "text") => Value::String(text(value, rng)?),
            // A fingerprint and a file list are data, not numbers to draw.
            (_, "fingerprint" | "files" | "selector") => value.clone(),
            _ => numbers(value, rng)?,
        };
        out.insert(name.clone(), drawn);
    }
    Ok(Value::Object(out))
}

/// A number or a range `[lo, hi]` drawn; objects (a point) drawn field by field.
fn numbers(v: &Value, rng: &mut ChaCha8Rng) -> Result<Value, SpecActionError> {
    match v {
        Value::Array(pair) if pair.len() == 2 && pair.iter().all(Value::is_number) => {
            let (lo, hi) = (
                pair[0].as_f64().unwrap_or(0.0),
                pair[1].as_f64().unwrap_or(0.0),
            );
            range(lo, hi, rng).map_err(|e| SpecActionError(format!("{e}: {}", short_json(v))))
        }
        Value::Object(fields) => {
            let mut out = Map::new();
            for (k, f) in fields {
                out.insert(k.clone(), numbers(f, rng)?);
            }
            Ok(Value::Object(out))
        }
        _ => Ok(v.clone()),
    }
}

/// A value from `lo` to `hi`: an integer when both are integers (both ends included).
fn range(lo: f64, hi: f64, rng: &mut ChaCha8Rng) -> Result<Value, String> {
    if !(lo.is_finite() && hi.is_finite()) {
        return Err("a range's ends must be finite numbers".into());
    }
    if lo > hi {
        return Err("a range must go from its low end to its high end".into());
    }
    if lo.fract() == 0.0 && hi.fract() == 0.0 {
        let n = rng.gen_range(lo as i64..=hi as i64);
        return Ok(Value::from(n));
    }
    let x = if lo == hi { lo } else { rng.gen_range(lo..hi) };
    Ok(serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number))
}

/// The text a `TypeText` types: a string as it is, else its generator run.
fn text(v: &Value, rng: &mut ChaCha8Rng) -> Result<String, SpecActionError> {
    let bad = |why: &str| SpecActionError(format!("{why}: {}", short_json(v)));
    match v {
        Value::String(s) if s == "Email" => Ok(email(rng)),
        Value::String(s) => Ok(s.clone()),
        Value::Object(o) if o.len() == 1 => {
            let (gen, arg) = o.iter().next().expect("one entry");
            match gen.as_str() {
                "Text" => {
                    let n = count(arg, rng).map_err(|e| bad(&e))?;
                    let chars: Vec<char> = TEXT_CHARS.chars().collect();
                    Ok((0..n).map(|_| chars[rng.gen_range(0..chars.len())]).collect())
                }
                "CharSet" => {
                    let set = charset(arg).map_err(|e| bad(&e))?;
                    let n = rng.gen_range(CHARSET_LEN.0..=CHARSET_LEN.1);
                    Ok((0..n).map(|_| set[rng.gen_range(0..set.len())]).collect())
                }
                "Regexp" => {
                    let src = arg.as_str().ok_or_else(|| bad("a Regexp is a string"))?;
                    let p = Pattern::parse(src).ok_or_else(|| {
                        bad("wayfarer draws regular expressions of literals, classes, groups, \
                             alternatives and quantifiers, not backreferences, lookaround or \
                             anchors inside")
                    })?;
                    Ok(p.generate(rng))
                }
                _ => Err(bad(
                    "a text is a string, \"Email\", { Text: n }, { CharSet: [...] } or { Regexp: \"...\" }",
                )),
            }
        }
        _ => Err(bad(
            "a text is a string, \"Email\", { Text: n }, { CharSet: [...] } or { Regexp: \"...\" }",
        )),
    }
}

/// A length: a number or a range of them, at most [`MAX_TEXT`].
fn count(v: &Value, rng: &mut ChaCha8Rng) -> Result<usize, String> {
    let n = match numbers(v, rng).map_err(|e| e.0)? {
        Value::Number(n) => n.as_f64().unwrap_or(-1.0),
        _ => -1.0,
    };
    if n < 0.0 || n.fract() != 0.0 {
        return Err("a length is a whole number or a range [lo, hi] of them".into());
    }
    Ok((n as u64).min(MAX_TEXT) as usize)
}

/// The characters a `CharSet` names: `{ Range: [from, to] }` (code points) and
/// `{ Literal: "..." }` (each of its characters).
fn charset(v: &Value) -> Result<Vec<char>, String> {
    let mut out = Vec::new();
    for e in v.as_array().ok_or("a CharSet is a list of entries")? {
        if let Some(lit) = e.get("Literal").and_then(Value::as_str) {
            out.extend(lit.chars());
        } else if let Some(r) = e.get("Range") {
            let ends: Vec<u32> = match r {
                Value::Array(p) => p
                    .iter()
                    .filter_map(Value::as_u64)
                    .map(|n| n as u32)
                    .collect(),
                Value::Number(n) => n
                    .as_u64()
                    .map(|n| vec![n as u32, n as u32])
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            let [from, to] = ends[..] else {
                return Err("a CharSet range is [from, to] in code points".into());
            };
            out.extend((from..=to.min(from.saturating_add(0x1_0000))).filter_map(char::from_u32));
        } else {
            return Err("a CharSet entry is { Range: [from, to] } or { Literal: \"...\" }".into());
        }
    }
    if out.is_empty() {
        return Err("a CharSet with no characters".into());
    }
    Ok(out)
}

fn email(rng: &mut ChaCha8Rng) -> String {
    const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let word = |rng: &mut ChaCha8Rng, n: usize| -> String {
        (0..n)
            .map(|_| LOWER[rng.gen_range(0..LOWER.len())] as char)
            .collect()
    };
    let user = rng.gen_range(3..=10);
    let host = rng.gen_range(3..=8);
    let tld = ["com", "org", "net", "io"][rng.gen_range(0..4)];
    format!("{}@{}.{tld}", word(rng, user), word(rng, host))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use serde_json::json;

    fn rng() -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(7)
    }

    #[test]
    fn ranges_are_drawn_within_their_ends_and_integers_stay_integers() {
        let mut r = rng();
        for _ in 0..50 {
            let v = draw(
                &json!({ "TypeText": { "text": "hi", "delayMillis": [1, 100] } }),
                &mut r,
            )
            .unwrap();
            let d = &v["TypeText"]["delayMillis"];
            assert!(d.is_i64(), "{d}");
            assert!((1..=100).contains(&d.as_i64().unwrap()));
            let v = draw(
                &json!({ "ScrollDown": { "origin": { "x": [0.5, 2.5], "y": 3 }, "distance": 10 } }),
                &mut r,
            )
            .unwrap();
            let x = v["ScrollDown"]["origin"]["x"].as_f64().unwrap();
            assert!((0.5..2.5).contains(&x));
        }
        let bad = draw(
            &json!({ "SetViewport": { "width": [900, 300], "height": 10 } }),
            &mut r,
        );
        assert!(bad.unwrap_err().0.contains("low end"));
    }

    #[test]
    fn string_generators_give_what_they_name() {
        let mut r = rng();
        let typed = |v: Value, r: &mut ChaCha8Rng| {
            draw(&json!({ "TypeText": { "text": v, "delayMillis": 0 } }), r).unwrap()["TypeText"]
                ["text"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let e = typed(json!("Email"), &mut r);
        assert!(
            regex::Regex::new(r"^[a-z0-9]+@[a-z0-9]+\.[a-z]+$")
                .unwrap()
                .is_match(&e),
            "{e}"
        );
        assert_eq!(typed(json!("plain words"), &mut r), "plain words");
        let t = typed(json!({ "Text": [3, 5] }), &mut r);
        assert!((3..=5).contains(&t.chars().count()), "{t:?}");
        let d = typed(json!({ "Regexp": "\\d{1,5}" }), &mut r);
        assert!(regex::Regex::new(r"^\d{1,5}$").unwrap().is_match(&d), "{d}");
        let c = typed(
            json!({ "CharSet": [{ "Range": [97, 99] }, { "Literal": "XY" }] }),
            &mut r,
        );
        assert!(
            c.chars().all(|ch| "abcXY".contains(ch)) && !c.is_empty(),
            "{c}"
        );
        let err = draw(
            &json!({ "TypeText": { "text": { "Regexp": "(a)\\1" } } }),
            &mut r,
        );
        assert!(err.unwrap_err().0.contains("backreferences"));
        let err = draw(&json!({ "TypeText": { "text": { "Words": 3 } } }), &mut r);
        assert!(err.unwrap_err().0.contains("Regexp"));
    }

    #[test]
    fn the_same_seed_draws_the_same_action_and_data_is_left_alone() {
        let t = json!({ "SetFileInputFiles": { "selector": "#f", "files": ["a.txt", "b.txt"] } });
        assert_eq!(draw(&t, &mut rng()).unwrap(), t);
        let t = json!({ "TypeText": { "text": { "Text": [1, 100] }, "delayMillis": [1, 100] } });
        assert_eq!(draw(&t, &mut rng()).unwrap(), draw(&t, &mut rng()).unwrap());
        assert_eq!(draw(&json!("Back"), &mut rng()).unwrap(), json!("Back"));
    }
}
