//! Numbers on the HTML step grid: `base + k * step` within `[min, max]`, close to what
//! the field's meaning suggests (an age, a quantity, a price).

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::model::Element;

/// Slack for float error when deciding whether a grid point is inside a bound.
const EPS: f64 = 1e-9;
/// Grid indices beyond this are not worth the float trouble.
const K_LIMIT: f64 = 1e15;

/// The range a field's meaning prefers, and whether it is money (two decimals).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pref {
    pub lo: f64,
    pub hi: f64,
    pub cents: bool,
}

/// Picks a grid index: inside `[kmin, kmax]` (hard bounds) and preferably inside
/// `[plo, phi]`; when they do not meet, the hard window nearest the preference.
pub(crate) fn pick_k(
    kmin: Option<i64>,
    kmax: Option<i64>,
    plo: i64,
    phi: i64,
    rng: &mut ChaCha8Rng,
) -> Option<i64> {
    let (lo, hi) = (kmin.unwrap_or(i64::MIN), kmax.unwrap_or(i64::MAX));
    if lo > hi {
        return None;
    }
    let width = phi.saturating_sub(plo).max(0);
    let (a, b) = if plo.max(lo) <= phi.min(hi) {
        (plo.max(lo), phi.min(hi))
    } else if phi < lo {
        (lo, hi.min(lo.saturating_add(width)))
    } else {
        (lo.max(hi.saturating_sub(width)), hi)
    };
    Some(rng.gen_range(a..=b))
}

/// A valid value for an `<input type=number>` (or a text field meant to hold a number):
/// respects min, max and step; `default_step` stands in for a missing step attribute.
pub(crate) fn on_grid(
    e: &Element,
    pref: Pref,
    default_step: Option<&str>,
    rng: &mut ChaCha8Rng,
) -> String {
    let min = parse(e.attr("min"));
    let max = parse(e.attr("max"));
    let step_attr = e.attr("step").or(default_step).map(str::trim);
    // HTML: the step base is min, else the value attribute, else 0.
    let (base, base_str) = match (min, parse(e.attr("value"))) {
        (Some(m), _) => (m, e.attr("min")),
        (None, Some(v)) => (v, e.attr("value")),
        _ => (0.0, None),
    };
    let (base, step, prec) = match step_attr {
        Some(s) if s.eq_ignore_ascii_case("any") => {
            // Any value is valid: use a cents or unit grid from 0 for readable numbers.
            (
                0.0,
                if pref.cents { 0.01 } else { 1.0 },
                usize::from(pref.cents) * 2,
            )
        }
        _ => {
            let step_str = step_attr.filter(|s| parse(Some(s)).is_some_and(|v| v > 0.0));
            let step = step_str.and_then(|s| parse(Some(s))).unwrap_or(1.0);
            let prec = decimals(step_str.unwrap_or("1")).max(decimals(base_str.unwrap_or("0")));
            (base, step, prec)
        }
    };
    let k = |x: f64, up: bool| {
        let q = ((x - base) / step).clamp(-K_LIMIT, K_LIMIT);
        (if up {
            (q - EPS).ceil()
        } else {
            (q + EPS).floor()
        }) as i64
    };
    let kmin = min.map(|m| k(m, true));
    let kmax = max.map(|m| k(m, false));
    let value = match pick_k(kmin, kmax, k(pref.lo, true), k(pref.hi, false), rng) {
        Some(i) => base + i as f64 * step,
        // min above max: nothing is valid; min is the least surprising answer.
        None => min.unwrap_or(base),
    };
    format_num(value, prec)
}

pub(crate) fn parse(s: Option<&str>) -> Option<f64> {
    s?.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Digits after the decimal point in a number as written (`"0.25"` -> 2).
pub(crate) fn decimals(s: &str) -> usize {
    let s = s.trim();
    if s.contains(['e', 'E']) {
        return 6;
    }
    s.split_once('.').map_or(0, |(_, f)| f.len()).min(10)
}

pub(crate) fn format_num(v: f64, prec: usize) -> String {
    let s = format!("{v:.prec$}");
    // Avoid "-0" / "-0.00": valid, but odd.
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{input, rng};
    use proptest::prelude::*;

    const PREF: Pref = Pref {
        lo: 1.0,
        hi: 100.0,
        cents: false,
    };

    /// Whether `v` is a valid value for a number field with these attributes.
    pub(crate) fn valid(v: &str, min: Option<f64>, max: Option<f64>, step: f64) -> bool {
        let Ok(x) = v.parse::<f64>() else {
            return false;
        };
        let base = min.unwrap_or(0.0);
        let q = (x - base) / step;
        min.is_none_or(|m| x >= m - 1e-9)
            && max.is_none_or(|m| x <= m + 1e-9)
            && (q - q.round()).abs() < 1e-6
    }

    fn attrs(min: Option<f64>, max: Option<f64>, step: &str) -> Element {
        let mut a = vec![("step", step.to_string())];
        if let Some(m) = min {
            a.push(("min", m.to_string()));
        }
        if let Some(m) = max {
            a.push(("max", m.to_string()));
        }
        let a: Vec<(&str, &str)> = a.iter().map(|(k, v)| (*k, v.as_str())).collect();
        input("number", &a)
    }

    #[test]
    fn decimal_step_gives_decimals() {
        let e = input("number", &[("min", "0"), ("max", "10"), ("step", "0.25")]);
        let mut r = rng(3);
        for _ in 0..100 {
            let v = on_grid(&e, PREF, None, &mut r);
            assert!(valid(&v, Some(0.0), Some(10.0), 0.25), "{v}");
        }
    }

    #[test]
    fn preference_outside_range_still_valid() {
        let e = input("number", &[("min", "1000"), ("max", "1003")]);
        let v = on_grid(&e, PREF, None, &mut rng(1));
        assert!(valid(&v, Some(1000.0), Some(1003.0), 1.0), "{v}");
        let e = input("number", &[("max", "-50")]);
        let v = on_grid(&e, PREF, None, &mut rng(1));
        assert!(valid(&v, None, Some(-50.0), 1.0), "{v}");
    }

    #[test]
    fn cents_with_step_any() {
        let e = input("number", &[("step", "any"), ("min", "5"), ("max", "6")]);
        let pref = Pref {
            cents: true,
            ..PREF
        };
        let v = on_grid(&e, pref, None, &mut rng(9));
        let (_, frac) = v.split_once('.').unwrap();
        assert_eq!(frac.len(), 2, "{v}");
        assert!(valid(&v, Some(5.0), Some(6.0), 0.01), "{v}");
    }

    proptest! {
        #[test]
        fn number_within_range_and_on_step(
            min in proptest::option::of(-1000i32..1000),
            span in 0i32..2000,
            has_max in any::<bool>(),
            step in prop::sample::select(vec!["1", "0.5", "0.01", "5", "0.25", "3", "0.1", "7"]),
            lo in -500i32..500,
            width in 0i32..300,
            seed in any::<u64>(),
        ) {
            let min = min.map(|m| m as f64 / 4.0);
            let max = has_max.then(|| min.unwrap_or(0.0) + span as f64 / 4.0);
            let e = attrs(min, max, step);
            let pref = Pref { lo: lo as f64, hi: (lo + width) as f64, cents: false };
            let v = on_grid(&e, pref, None, &mut rng(seed));
            let step: f64 = step.parse().unwrap();
            // A range without any grid point has no valid value; skip those.
            let empty = match (min, max) {
                (Some(a), Some(b)) => ((b - a) / step + 1e-9).floor() < 0.0,
                _ => false,
            };
            prop_assume!(!empty);
            prop_assert!(
                valid(&v, min, max, step),
                "{} not valid for {:?}..{:?} step {}", v, min, max, step
            );
        }
    }
}
