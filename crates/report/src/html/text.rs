//! Small text helpers of the HTML report: the one escape used for the SVG built in Rust,
//! truncation (core's), and the hand-made number and time formats.

/// Escape `s` for HTML or SVG text and for attribute values in double or single quotes.
/// Every page-controlled string in the SVG goes through here; the template escapes the rest.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML (the SVG would not parse).
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A file path as the `href` of a link relative to the report: every byte but the
/// unreserved ones and `/` percent-encoded, so a `#`, `?` or space in a file name stays
/// part of the path and a `name:` never reads as a URL scheme. HTML escaping is the
/// template's.
pub fn href_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        let b = if b == std::path::MAIN_SEPARATOR as u8 {
            b'/'
        } else {
            b
        };
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

pub use wayfarer_core::text::truncate;

/// A typed value as a reader wants it: whole when short, else its start and its length
/// ("xxxxxxxx… (201 chars)"), so a 5 kB fuzz string does not swamp the steps.
pub fn shorten_value(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max.saturating_sub(8).max(8)).collect();
    format!("{head}… ({n} chars)")
}

/// The path, query and fragment of a URL (what tells pages of one site apart), or the
/// whole string when it has no scheme.
pub fn short_url(url: &str) -> &str {
    let Some((_, rest)) = url.split_once("://") else {
        return url;
    };
    match rest.find('/') {
        Some(i) => &rest[i..],
        None => "/",
    }
}

/// A Unix time in UTC, split into its civil parts.
pub(crate) struct Civil {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: u64,
    pub minute: u64,
    pub second: u64,
}

/// Civil date and time of Unix seconds (civil-from-days, proleptic Gregorian).
pub(crate) fn civil(secs: u64) -> Civil {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    Civil {
        year: yoe + era * 400 + i64::from(month <= 2),
        month,
        day,
        hour: rem / 3600,
        minute: rem % 3600 / 60,
        second: rem % 60,
    }
}

/// Unix seconds as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn utc(secs: u64) -> String {
    let c = civil(secs);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// A duration in seconds as "42.0 s", "12m 05s" or "2h 03m".
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "–".into();
    }
    if secs < 60.0 {
        return format!("{secs:.1} s");
    }
    let s = secs.round() as u64;
    if s < 3600 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{}h {:02}m", s / 3600, s % 3600 / 60)
    }
}

/// An integer with thin spaces between thousands ("12 345"), for aligned tables.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let head = match digits.len() % 3 {
        0 => 3.min(digits.len()),
        r => r,
    };
    let mut out = digits[..head].to_string();
    for group in digits.as_bytes()[head..].chunks(3) {
        out.push('\u{2009}');
        out.extend(group.iter().map(|&b| b as char));
    }
    out
}

/// A value in milliseconds with sensible precision.
pub fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(escape("a\u{1}b"), "a\u{fffd}b");
    }

    #[test]
    fn formats_times_and_numbers() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_735_689_599), "2024-12-31 23:59:59 UTC");
        assert_eq!(thousands(1_234_567), "1\u{2009}234\u{2009}567");
        assert_eq!(thousands(123_456), "123\u{2009}456");
        assert_eq!(thousands(0), "0");
        assert_eq!(duration(725.0), "12m 05s");
        assert_eq!(duration(7380.0), "2h 03m");
        assert_eq!(
            shorten_value(&"x".repeat(201), 40),
            format!("{}… (201 chars)", "x".repeat(32))
        );
        assert_eq!(short_url("http://h:1/a/b?q=1"), "/a/b?q=1");
        assert_eq!(short_url("http://h:1"), "/");
        assert_eq!(
            href_path("features/tests/feature-Add Owner?#x.spec.ts"),
            "features/tests/feature-Add%20Owner%3F%23x.spec.ts"
        );
        assert_eq!(
            href_path("javascript:alert(1)"),
            "javascript%3Aalert%281%29"
        );
        assert_eq!(href_path("/abs/é.ts"), "/abs/%C3%A9.ts");
    }
}
