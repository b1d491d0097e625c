//! The text around a spec's steps: the header that records the expected failure, the
//! test title, the imports, the secrets read from the environment and what counts as a
//! failure (the trace's oracle settings).

use std::fmt::Write as _;

use wayfarer_core::text::truncate;
use wayfarer_core::trace::Trace;

use crate::spec::{Body, SpecContext};
use crate::ts::{comment, str_lit};

/// The kind of failure as the test title says it: its check's phrase.
fn kind_phrase(kind: &str) -> &str {
    let id = wayfarer_core::FailureKind::named(kind).as_str();
    wayfarer_core::check::check(id).map_or(kind, |c| c.phrase())
}

/// What the generic checks cannot see, said in the header so nobody trusts a green run.
fn unchecked_note(kind: &str) -> Option<&'static str> {
    match kind {
        "request_failed" => Some("failed requests are not checked by this test (only page errors, console errors and HTTP errors)"),
        "error_text" => Some("error text shown on a page is not checked by this test (only page errors, console errors and HTTP errors)"),
        "hang" => Some("pages that never settle are not checked by this test beyond Playwright's timeouts"),
        // What the test checks itself, or cannot check at all.
        "exception" | "unhandled_rejection" | "console_error" | "http_5xx" | "http5xx"
        | "http_4xx" | "http4xx" | "property" | "page_crash" => None,
        k if wayfarer_core::check::check(k).is_some() => Some(
            "wayfarer's page checks are not repeated by this test (only page errors, console errors and HTTP errors)",
        ),
        _ => None,
    }
}

/// Lines of a multi-line failure message (a stack) kept in the header after the first.
const MESSAGE_LINES: usize = 8;

/// The whole spec file around the body `b`.
pub fn document(trace: &Trace, cx: &SpecContext, b: &Body) -> String {
    let e = &trace.expected;
    let origin = cx.start.origin().ascii_serialization();
    // The first line (a stack may follow), without the origin the config already names.
    let first_line = e.message.lines().next().unwrap_or("");
    let short = first_line.replace(&origin, "");
    let property = e
        .signature
        .strip_prefix("property|")
        .filter(|_| e.kind == "property");
    let title = match (cx.check, property) {
        (Some(c), _) => format!("feature: {}", truncate(&comment(&c.label), 100)),
        // A property's message is long (formula and cells); its name says what must hold.
        (None, Some(name)) => format!(
            "property {} holds (found by wayfarer)",
            truncate(&comment(name), 100)
        ),
        (None, None) => format!(
            "no {}: {} (found by wayfarer)",
            kind_phrase(&e.kind),
            truncate(&comment(&short), 100)
        ),
    };
    let mut s = String::new();
    let w = &mut s;
    match cx.check {
        Some(c) => feature_header(w, trace, cx, c),
        None => header(w, trace, cx),
    }
    let _ = writeln!(w);
    let _ = writeln!(w, "import {{ expect, test }} from '@playwright/test';");
    let mut imports = b.imports.clone();
    if !b.secrets.is_empty() {
        imports.insert("missing");
    }
    let imports: Vec<&str> = imports.into_iter().collect();
    let _ = writeln!(w, "import {{ {} }} from './wayfarer';", imports.join(", "));
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "test({}, async ({{ page, baseURL }}) => {{",
        str_lit(&title)
    );
    if !b.secrets.is_empty() {
        let _ = writeln!(
            w,
            "  // Secrets come from the environment; wayfarer never writes their values."
        );
        let _ = writeln!(w, "  const secret = {{");
        for n in &b.secrets {
            let _ = writeln!(w, "    {n}: process.env.{n} ?? missing({}),", str_lit(n));
        }
        let _ = writeln!(w, "  }};");
    }
    watch_options(w, trace, cx);
    for l in &b.lines {
        if l.is_empty() {
            let _ = writeln!(w);
        } else {
            let _ = writeln!(w, "  {l}");
        }
    }
    let _ = writeln!(w, "}});");
    s
}

/// The comment on top: why the test exists and the failure it guards against.
fn header(w: &mut String, trace: &Trace, cx: &SpecContext) {
    let e = &trace.expected;
    // Writing to a String cannot fail (here and below).
    let _ = writeln!(
        w,
        "// Regression test for a failure wayfarer found: it repeats the steps that led to"
    );
    let _ = writeln!(w, "// it and fails as long as the application still fails.");
    let _ = writeln!(w, "//");
    let _ = writeln!(w, "// Expected failure (what wayfarer saw):");
    let _ = writeln!(w, "//   kind:      {}", comment(&e.kind));
    let mut lines = e.message.lines().filter(|l| !l.trim().is_empty());
    let _ = writeln!(w, "//   message:   {}", comment(lines.next().unwrap_or("")));
    for l in lines.take(MESSAGE_LINES) {
        let _ = writeln!(w, "//              {}", comment(l.trim_end()));
    }
    let _ = writeln!(w, "//   signature: {}", comment(&e.signature));
    if let Some(note) = unchecked_note(&e.kind) {
        let _ = writeln!(w, "//   note:      {note}");
    }
    if let Some(why) = &trace.outside_state {
        let _ = writeln!(w, "//");
        let _ = writeln!(w, "// Warning: this failure {}.", comment(why));
        let _ = writeln!(
            w,
            "// The steps below may pass on a fresh application: reset its state first."
        );
    }
    let origin_note = if trace.origin.is_empty() {
        String::new()
    } else {
        format!(", {}", comment(&trace.origin))
    };
    let _ = writeln!(
        w,
        "// Trace: {} ({} steps; wayfarer {}{origin_note}).",
        comment(cx.trace_name),
        trace.steps.len(),
        comment(&trace.wayfarer)
    );
}

/// The comment on top of a feature's test: what the feature is and where it came from.
fn feature_header(w: &mut String, trace: &Trace, cx: &SpecContext, c: &crate::FeatureCheck) {
    let _ = writeln!(w, "// Feature: {}", comment(&c.label));
    for other in &c.also {
        let _ = writeln!(w, "// Also:    {}", comment(other));
    }
    let _ = writeln!(w, "//");
    let _ = writeln!(
        w,
        "// wayfarer inferred this feature from an exploration of the application (score"
    );
    let _ = writeln!(
        w,
        "// {:.2}) and wrote this test from the steps it took: it repeats them, then checks",
        c.score
    );
    let _ = writeln!(
        w,
        "// the page they end on and that no page error, console error or HTTP error happened."
    );
    let _ = writeln!(
        w,
        "// Steps: {} ({}; wayfarer {}).",
        trace.steps.len(),
        comment(cx.trace_name),
        comment(&trace.wayfarer)
    );
}

/// `const app = watchApp(page, {...})`: what counts as a failure, from the trace's oracles.
fn watch_options(w: &mut String, trace: &Trace, cx: &SpecContext) {
    let o = &trace.setup.oracles;
    let mut origins = vec![if cx.start.origin() == cx.base.origin() {
        "baseURL".to_string()
    } else {
        str_lit(&cx.start.origin().ascii_serialization())
    }];
    origins.extend(trace.setup.allow_origins.iter().map(|a| str_lit(a)));
    let _ = writeln!(w, "  const app = watchApp(page, {{");
    let _ = writeln!(w, "    origins: [{}],", origins.join(", "));
    let _ = writeln!(w, "    consoleErrors: {},", o.console_errors);
    let _ = writeln!(w, "    http4xx: {},", o.http_4xx);
    let ignore: Vec<String> = o.ignore.iter().filter_map(|p| js_regex(p)).collect();
    if !ignore.is_empty() {
        let _ = writeln!(w, "    ignore: [{}],", ignore.join(", "));
    }
    let _ = writeln!(w, "  }});");
    for p in o.ignore.iter().filter(|p| js_regex(p).is_none()) {
        let _ = writeln!(
            w,
            "  // Not carried over (Rust-only regex syntax): {}",
            comment(p)
        );
    }
    let _ = writeln!(w);
}

/// A `[oracles] ignore` pattern (Rust regex) as a JavaScript RegExp, when the syntax is
/// shared: a leading `(?i)` becomes the `i` flag; other inline flags have no JS form.
fn js_regex(p: &str) -> Option<String> {
    let (body, flags) = match p.strip_prefix("(?i)") {
        Some(rest) => (rest, "'i'"),
        None => (p, ""),
    };
    let inline_flags = body
        .match_indices("(?")
        .any(|(i, _)| body[i + 2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '-'));
    if inline_flags || body.contains("\\A") || body.contains("\\z") {
        return None;
    }
    Some(if flags.is_empty() {
        format!("new RegExp({})", str_lit(body))
    } else {
        format!("new RegExp({}, {flags})", str_lit(body))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_regexes_become_js_regexps_when_the_syntax_is_shared() {
        assert_eq!(
            js_regex("(?i)^console_error: .*favicon").as_deref(),
            Some("new RegExp('^console_error: .*favicon', 'i')")
        );
        assert_eq!(
            js_regex(r"HTTP 404 from .*/x\.png").as_deref(),
            Some(r"new RegExp('HTTP 404 from .*/x\\.png')")
        );
        assert_eq!(
            js_regex("(?:a|b)c").as_deref(),
            Some("new RegExp('(?:a|b)c')")
        );
        assert_eq!(js_regex("a(?i)b"), None);
        assert_eq!(js_regex("(?P<n>x)"), None);
        assert_eq!(js_regex(r"\Aabc\z"), None);
    }

    #[test]
    fn kinds_read_as_what_must_not_happen() {
        assert_eq!(kind_phrase("http_5xx"), "HTTP error");
        assert_eq!(kind_phrase("unhandled_rejection"), "unhandled rejection");
        assert_eq!(kind_phrase("new_kind"), "new_kind");
        assert!(unchecked_note("error_text").is_some());
        assert!(unchecked_note("exception").is_none());
        // A page check's wording comes from the check.
        assert_eq!(kind_phrase("image_alt"), "image without alt text");
        assert!(unchecked_note("image_alt").is_some());
    }
}
