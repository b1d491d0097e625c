//! `junit.xml`: one test case per unique failure plus one passing case for the run, in
//! the JUnit XML dialect CI systems read (Jenkins, GitLab, GitHub actions reporters).

use std::fmt::Write;

use wayfarer_core::findings::{NewOrKnown, Verdict};
use wayfarer_store::RunData;

use crate::traces::file_name;

/// Escape text for XML content and attribute values, dropping the characters XML 1.0
/// cannot carry at all (page data may hold any of them).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

fn short(s: &str, n: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > n {
        format!("{}…", one_line.chars().take(n).collect::<String>())
    } else {
        one_line
    }
}

/// JUnit XML: one test case per unique failure plus one for the run, for CI.
pub struct Junit;

impl crate::format::Format for Junit {
    fn name(&self) -> &'static str {
        "junit"
    }
    fn about(&self) -> &'static str {
        "JUnit XML: one test case per unique failure plus one for the run, for CI."
    }
    fn file(&self) -> &'static str {
        "junit.xml"
    }
    fn render(&self, input: &crate::format::Input<'_>) -> String {
        render(input.data)
    }
}

pub fn render(data: &RunData) -> String {
    let s = &data.summary;
    let n = data.failures.len();
    let time = format!("{:.3}", s.duration_s);
    let suite = format!("wayfarer {} {}", s.strategy, s.target);
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let errors = usize::from(!data.complete);
    let _ = writeln!(
        x,
        "<testsuites name=\"wayfarer\" tests=\"{}\" failures=\"{n}\" errors=\"{errors}\" time=\"{time}\">",
        n + 1
    );
    let _ = writeln!(
        x,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{n}\" errors=\"{errors}\" skipped=\"0\" time=\"{time}\" timestamp=\"{}\">",
        escape(&suite),
        n + 1,
        timestamp(data.meta.started_at)
    );
    x.push_str("    <properties>\n");
    for (k, v) in [
        ("target", s.target.clone()),
        ("strategy", s.strategy.clone()),
        ("seed", s.seed.to_string()),
        ("budget", s.budget.clone()),
        ("steps", s.steps.to_string()),
        ("states", s.states.to_string()),
        ("wayfarer", data.meta.wayfarer.clone()),
    ] {
        let _ = writeln!(x, "      <property name=\"{k}\" value=\"{}\"/>", escape(&v));
    }
    x.push_str("    </properties>\n");
    let _ = write!(
        x,
        "    <testcase classname=\"wayfarer.run\" name=\"{}\" time=\"{time}\"",
        escape(&format!("explore {} ({} steps)", s.target, s.steps))
    );
    if data.complete {
        x.push_str("/>\n");
    } else {
        let why = s.stopped_early.clone().unwrap_or_default();
        let _ = writeln!(
            x,
            ">\n      <error message=\"{}\" type=\"incomplete\">{}</error>\n    </testcase>",
            escape(&why),
            escape(&why)
        );
    }
    for (i, sf) in data.failures.iter().enumerate() {
        let f = &sf.failure;
        let kind = f.kind.as_str();
        let body = failure_text(data, i);
        let _ = writeln!(
            x,
            "    <testcase classname=\"wayfarer.{kind}\" name=\"{}\" time=\"0\">\n      <failure message=\"{}\" type=\"{kind}\">{}</failure>\n    </testcase>",
            escape(&format!("{kind}: {}", short(&f.message, 100))),
            escape(&short(&f.message, 300)),
            escape(&body)
        );
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}

/// A failure for a CI log: what, where, first seen when, its verdict, the steps to
/// reproduce it (the minimal ones when shrinking found them), how to replay it and the
/// server's output; the body of its JUnit case and its CTRF test's trace.
pub(crate) fn failure_text(data: &RunData, i: usize) -> String {
    let s = &data.summary;
    let f = &data.failures[i].failure;
    let kind = f.kind.as_str();
    let mut body = format!(
        "{kind}: {}\nsignature: {}\nfirst seen at step {} (episode {}), {} time(s), on {}\n",
        f.message, f.signature, f.step, f.episode, f.count, f.page_url
    );
    if let (Some(src), Some(line)) = (&f.source, f.line) {
        let _ = writeln!(body, "source: {src}:{line}:{}", f.column.unwrap_or(0));
    }
    let line = s.line(&f.signature);
    if let Some(b) = line.and_then(|l| l.baseline) {
        let _ = writeln!(
            body,
            "baseline: {}",
            match b {
                NewOrKnown::New => "new",
                NewOrKnown::Known => "known",
            }
        );
    }
    let shrunk = line.and_then(|l| l.shrunk.as_ref());
    // Every failure has one; one the summary does not list was never replayed.
    let _ = writeln!(body, "verdict: {}", Verdict::of(shrunk).text(shrunk));
    let mut file = file_name(i, f);
    match shrunk
        .filter(|s| s.shortened())
        .and_then(|s| Some((s, s.steps(&f.trace)?)))
    {
        Some((sh, kept)) => {
            let _ = writeln!(
                body,
                "minimal steps from a reset ({} of {}):",
                sh.kept.len(),
                f.trace.len()
            );
            for (k, st) in kept.iter().enumerate() {
                let _ = writeln!(body, "  {}. {}", k + 1, st.describe());
            }
            file = crate::traces::minimised_name(&file);
        }
        None => {
            let _ = writeln!(body, "steps from a reset ({}):", f.trace.len());
            for (k, st) in f.trace.iter().enumerate() {
                let _ = writeln!(body, "  {}. {}", k + 1, st.describe());
            }
        }
    }
    let _ = writeln!(body, "replay: wayfarer replay traces/{file}");
    if !f.server_output.is_empty() {
        // A CI log shows this body: the server's own account of the failure goes with it.
        let _ = writeln!(body, "the server's output at step {}:", f.step);
        for line in f.server_output.tail(40) {
            let _ = writeln!(body, "  | {line}");
        }
    }
    body
}

/// ISO 8601 without time zone, as the JUnit schema wants, from Unix seconds (UTC).
pub fn timestamp(unix: u64) -> String {
    let c = crate::html::text::civil(unix);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_civil_utc() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00");
        assert_eq!(timestamp(951_782_400), "2000-02-29T00:00:00");
        assert_eq!(timestamp(1_795_305_600 + 3_723), "2026-11-22T01:02:03");
    }

    #[test]
    fn every_failure_says_its_verdict_and_a_never_replayed_one_says_unconfirmed() {
        let mut data = crate::ci::tests::sample_run();
        data.summary.failures[1].shrunk = None;
        let xml = render(&data);
        assert_eq!(
            xml.matches("\nverdict: reproduced 3/3\n").count(),
            2,
            "{xml}"
        );
        assert_eq!(
            xml.matches("\nverdict: unconfirmed (never replayed)\n")
                .count(),
            1,
            "{xml}"
        );
        // Shrinking off: every failure says so.
        let xml = render(&crate::ci::tests::never_replayed_run());
        assert_eq!(
            xml.matches("\nverdict: unconfirmed (never replayed)\n")
                .count(),
            3,
            "{xml}"
        );
    }

    #[test]
    fn escape_drops_what_xml_cannot_hold() {
        assert_eq!(
            escape("a<b>&\"'\u{0}\u{7}\tz"),
            "a&lt;b&gt;&amp;&quot;&apos;\tz"
        );
    }
}
