//! Dates and times in the W3C input formats (`YYYY-MM-DD`, `HH:MM`, `YYYY-MM-DDTHH:MM`,
//! `YYYY-MM`, `YYYY-Www`), as integers so min/max/step work like numbers.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::numeric::pick_k;
use crate::Kind;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

pub(crate) fn days_in_month(y: i64, m: u32) -> u32 {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    (days_from_civil(ny, nm, 1) - days_from_civil(y, m, 1)) as u32
}

fn num<T: std::str::FromStr>(s: &str, len: usize) -> Option<T> {
    (s.len() == len && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

pub(crate) fn parse_date(s: &str) -> Option<i64> {
    let mut it = s.splitn(3, '-');
    let y: i64 = num(it.next()?, 4)?;
    let m: u32 = num(it.next()?, 2)?;
    let d: u32 = num(it.next()?, 2)?;
    ((1..=12).contains(&m) && (1..=days_in_month(y, m)).contains(&d))
        .then(|| days_from_civil(y, m, d))
}

/// Minutes since midnight; seconds are dropped.
fn parse_time(s: &str) -> Option<i64> {
    let h: i64 = num(s.get(0..2)?, 2)?;
    let m: i64 = num(s.get(3..5)?, 2)?;
    (s.as_bytes().get(2) == Some(&b':') && h < 24 && m < 60).then_some(h * 60 + m)
}

fn parse_month(s: &str) -> Option<i64> {
    let (y, m) = s.split_once('-')?;
    let (y, m): (i64, i64) = (num(y, 4)?, num(m, 2)?);
    (1..=12).contains(&m).then_some(y * 12 + m - 1)
}

/// Weeks are indexed as 52 per year: every generated week (01..52) exists in every year.
fn parse_week(s: &str) -> Option<i64> {
    let (y, w) = s.split_once("-W")?;
    let (y, w): (i64, i64) = (num(y, 4)?, num(w, 2)?);
    (1..=53).contains(&w).then_some(y * 52 + w.min(52) - 1)
}

fn parse_datetime(s: &str) -> Option<i64> {
    let (d, t) = s.split_once(['T', ' '])?;
    Some(parse_date(d)? * 1440 + parse_time(t)?)
}

pub(crate) fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

fn format_time(min: i64) -> String {
    let min = min.rem_euclid(1440);
    format!("{:02}:{:02}", min / 60, min % 60)
}

fn format(kind: Kind, v: i64) -> String {
    match kind {
        Kind::Time => format_time(v),
        Kind::Month => format!("{:04}-{:02}", v.div_euclid(12), v.rem_euclid(12) + 1),
        Kind::Week => format!("{:04}-W{:02}", v.div_euclid(52), v.rem_euclid(52) + 1),
        Kind::DateTimeLocal => format!(
            "{}T{}",
            format_date(v.div_euclid(1440)),
            format_time(v.rem_euclid(1440))
        ),
        _ => format_date(v),
    }
}

fn parse(kind: Kind, s: &str) -> Option<i64> {
    let s = s.trim();
    match kind {
        Kind::Time => parse_time(s),
        Kind::Month => parse_month(s),
        Kind::Week => parse_week(s),
        Kind::DateTimeLocal => parse_datetime(s),
        _ => parse_date(s),
    }
}

/// The range a field prefers when it gives no min/max: recent dates, office hours, or
/// adult birth dates.
fn preferred(kind: Kind, birth: bool) -> (i64, i64) {
    let (y0, y1) = if birth { (1950, 2005) } else { (2020, 2030) };
    let (d0, d1) = (days_from_civil(y0, 1, 1), days_from_civil(y1, 12, 31));
    match kind {
        Kind::Time => (8 * 60, 18 * 60),
        Kind::Month => (y0 * 12, y1 * 12 + 11),
        Kind::Week => (y0 * 52, y1 * 52 + 51),
        Kind::DateTimeLocal => (d0 * 1440 + 8 * 60, d1 * 1440 + 18 * 60),
        _ => (d0, d1),
    }
}

/// Units of the grid per `step` attribute unit: days, months and weeks step in their own
/// unit; time and datetime-local step in seconds and we count minutes.
fn step_units(kind: Kind, step: Option<&str>) -> i64 {
    let Some(step) = step
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| *s > 0.0)
    else {
        return 1;
    };
    match kind {
        Kind::Time | Kind::DateTimeLocal => ((step / 60.0).round() as i64).max(1),
        _ => (step.round() as i64).max(1),
    }
}

/// A valid value for a date-like input: inside min/max, on the step grid from min.
pub(crate) fn value(
    kind: Kind,
    min: Option<&str>,
    max: Option<&str>,
    step: Option<&str>,
    birth: bool,
    rng: &mut ChaCha8Rng,
) -> String {
    let min = min.and_then(|s| parse(kind, s));
    let max = max.and_then(|s| parse(kind, s));
    let step = step_units(kind, step);
    let base = min.unwrap_or(0);
    let (plo, phi) = preferred(kind, birth);
    let kmin = min.map(|m| (m - base + step - 1).div_euclid(step));
    let kmax = max.map(|m| (m - base).div_euclid(step));
    let k = pick_k(
        kmin,
        kmax,
        (plo - base + step - 1).div_euclid(step),
        (phi - base).div_euclid(step),
        rng,
    );
    format(kind, k.map_or(base, |k| base + k * step))
}

/// A random valid date between 1900 and 2100.
pub(crate) fn any_date(rng: &mut ChaCha8Rng) -> String {
    let d = rng.gen_range(days_from_civil(1900, 1, 1)..=days_from_civil(2100, 12, 31));
    format_date(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::rng;

    #[test]
    fn civil_round_trip() {
        for d in (-800_000..800_000).step_by(997) {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2023, 2), 28);
    }

    #[test]
    fn dates_respect_min_max() {
        let mut r = rng(4);
        for _ in 0..200 {
            let v = value(
                Kind::Date,
                Some("2024-02-10"),
                Some("2024-03-05"),
                None,
                false,
                &mut r,
            );
            let d = parse_date(&v).unwrap();
            assert!(
                d >= parse_date("2024-02-10").unwrap() && d <= parse_date("2024-03-05").unwrap()
            );
        }
    }

    #[test]
    fn every_kind_formats_validly() {
        let mut r = rng(5);
        for kind in [
            Kind::Date,
            Kind::Time,
            Kind::Month,
            Kind::Week,
            Kind::DateTimeLocal,
        ] {
            for _ in 0..50 {
                let v = value(kind, None, None, None, false, &mut r);
                assert!(parse(kind, &v).is_some(), "{kind:?}: {v}");
            }
        }
        let t = value(
            Kind::Time,
            Some("09:00"),
            Some("09:30"),
            Some("900"),
            false,
            &mut r,
        );
        assert!(["09:00", "09:15", "09:30"].contains(&t.as_str()), "{t}");
        let w = value(
            Kind::Week,
            Some("2025-W10"),
            Some("2025-W12"),
            None,
            false,
            &mut r,
        );
        assert!(
            ["2025-W10", "2025-W11", "2025-W12"].contains(&w.as_str()),
            "{w}"
        );
    }
}
