//! Baselines: an earlier run's failures, read back from its `report.json` or run
//! directory, to tell this run's failures new from known and to list those gone since.

use crate::one_line;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;
use wayfarer_core::findings::{BaselineSummary, NewOrKnown};
use wayfarer_core::summary::FailureLine;

/// The failures of an earlier run, as compared against.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Baseline {
    /// The path it was read from, as given.
    pub from: String,
    /// The URL that run explored: its origin is taken out of signatures before comparing.
    pub target: String,
    pub failures: Vec<FailureLine>,
}

#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("baseline {path} does not exist; give the report.json of an earlier wayfarer run, or its run directory")]
    Missing { path: String },
    #[error("baseline {path} is a directory without report.json or run.sqlite; give the run directory an earlier `wayfarer explore` wrote (--out), or its report.json")]
    NotARunDirectory { path: String },
    #[error("cannot read baseline {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("baseline {path} is not valid JSON (line {line}, column {column}: {message}); give the report.json a wayfarer run wrote")]
    Malformed {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("baseline {path} is JSON but not a wayfarer report ({why}); give the report.json a wayfarer run wrote")]
    NotAReport { path: String, why: String },
    #[error("baseline {path}: {source}")]
    Store {
        path: String,
        #[source]
        source: wayfarer_store::StoreError,
    },
}

/// What a baseline needs of a report.json. Read alone rather than as a whole
/// `RunSummary`, so a report of an older wayfarer still serves as a baseline.
#[derive(Deserialize)]
struct ReportFailures {
    target: String,
    failures: Vec<FailureLine>,
}

/// Read a baseline from `path`: a `report.json`, a run directory (its `report.json`,
/// else its `run.sqlite`), or a `run.sqlite` file.
pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
    let shown = path.display().to_string();
    if path.is_dir() {
        let report = path.join("report.json");
        if report.is_file() {
            return load_report(&report, shown);
        }
        if path.join(wayfarer_store::STORE_FILE).is_file() {
            return load_store(path, shown);
        }
        return Err(BaselineError::NotARunDirectory { path: shown });
    }
    if !path.exists() {
        return Err(BaselineError::Missing { path: shown });
    }
    let bytes = std::fs::read(path).map_err(|source| BaselineError::Io {
        path: shown.clone(),
        source,
    })?;
    if bytes.starts_with(b"SQLite format 3\0") {
        return load_store(path, shown);
    }
    parse_report(&bytes, shown)
}

fn load_report(file: &Path, from: String) -> Result<Baseline, BaselineError> {
    let bytes = std::fs::read(file).map_err(|source| BaselineError::Io {
        path: file.display().to_string(),
        source,
    })?;
    parse_report(&bytes, from)
}

fn load_store(path: &Path, from: String) -> Result<Baseline, BaselineError> {
    let data = wayfarer_store::load(path).map_err(|source| BaselineError::Store {
        path: from.clone(),
        source,
    })?;
    Ok(Baseline {
        from,
        target: data.summary.target,
        failures: data.summary.failures,
    })
}

fn parse_report(bytes: &[u8], from: String) -> Result<Baseline, BaselineError> {
    // Syntax first, then shape: "not JSON" and "JSON of something else" need different
    // answers from the user.
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| BaselineError::Malformed {
            path: from.clone(),
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
    let not_a_report = |why: String| BaselineError::NotAReport {
        path: from.clone(),
        why,
    };
    let Some(object) = value.as_object() else {
        return Err(not_a_report("it is not an object".into()));
    };
    let missing: Vec<&str> = ["target", "failures"]
        .into_iter()
        .filter(|k| !object.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        return Err(not_a_report(format!("no {}", missing.join(" or "))));
    }
    let r: ReportFailures = serde_json::from_value(value)
        .map_err(|e| not_a_report(format!("its failures cannot be read: {e}")))?;
    Ok(Baseline {
        from,
        target: r.target,
        failures: r.failures,
    })
}

/// serde_json's message without its " at line L column C" tail, which the error says
/// on its own.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// The origin (`scheme://host[:port]`) of `url`, lowercased and without a default port
/// (the browser writes `http://h/`, never `http://h:80/`); None when it has none.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if scheme.is_empty() || end == 0 {
        return None;
    }
    let scheme = scheme.to_ascii_lowercase();
    let host = rest[..end].to_ascii_lowercase();
    let host = match scheme.as_str() {
        "http" => host.strip_suffix(":80").unwrap_or(&host),
        "https" => host.strip_suffix(":443").unwrap_or(&host),
        _ => &host,
    };
    Some(format!("{scheme}://{host}"))
}

/// The key a failure is compared by across runs: its signature with the origin of the
/// run's `target` replaced by `{origin}`, so two runs of one application on different
/// ports (bundled apps get a fresh port per run) match; other origins stay as they are.
pub fn key(signature: &str, target: &str) -> String {
    let Some(origin) = origin(target) else {
        return signature.to_string();
    };
    // ASCII lowercasing keeps byte offsets, so matches map back onto the signature.
    let lower = signature.to_ascii_lowercase();
    let mut out = String::with_capacity(signature.len());
    let mut last = 0;
    for (i, _) in lower.match_indices(&origin) {
        if i < last {
            continue;
        }
        let before = lower[..i].chars().next_back();
        let after = lower[i + origin.len()..].chars().next();
        // Only a whole origin: not the prefix of a longer host or port
        // (`localhost:3000` in `localhost:30001`), nor the tail of another scheme.
        let starts = before.is_none_or(|c| !(c.is_ascii_alphanumeric() || "+.-".contains(c)));
        let ends = after.is_none_or(|c| "/?#|".contains(c) || c.is_whitespace());
        if starts && ends {
            out.push_str(&signature[last..i]);
            out.push_str("{origin}");
            last = i + origin.len();
        }
    }
    out.push_str(&signature[last..]);
    out
}

/// Mark each of `now` (this run's failures, on `target`) new or known against `base`,
/// and count them; `gone` is the baseline's failures this run did not raise.
pub fn compare(base: &Baseline, target: &str, now: &mut [FailureLine]) -> BaselineSummary {
    let known: HashSet<String> = base
        .failures
        .iter()
        .map(|f| key(&f.signature, &base.target))
        .collect();
    let mut seen = HashSet::new();
    let (mut new, mut old) = (0, 0);
    for line in now.iter_mut() {
        let k = key(&line.signature, target);
        let verdict = if known.contains(&k) {
            old += 1;
            NewOrKnown::Known
        } else {
            new += 1;
            NewOrKnown::New
        };
        line.baseline = Some(verdict);
        seen.insert(k);
    }
    let mut gone = Vec::new();
    for f in &base.failures {
        // `seen` also drops a signature the baseline listed twice.
        if seen.insert(key(&f.signature, &base.target)) {
            gone.push(FailureLine {
                // New or known against the baseline's own baseline says nothing here.
                baseline: None,
                ..f.clone()
            });
        }
    }
    BaselineSummary {
        from: base.from.clone(),
        new,
        known: old,
        gone,
    }
}

/// What `wayfarer diff A B` prints: B's failures against A's, counts first, then the
/// new, known and gone ones (B's order for the first two, A's for the last).
pub fn diff_text(a: &Baseline, b: &Baseline) -> String {
    let mut now = b.failures.clone();
    let s = compare(a, &b.target, &mut now);
    let mut out = String::new();
    let _ = writeln!(out, "wayfarer diff");
    for (name, run) in [("A", a), ("B", b)] {
        let _ = writeln!(
            out,
            "  {name}: {} ({}, {} failure{})",
            run.from,
            if run.target.is_empty() {
                "no target"
            } else {
                &run.target
            },
            run.failures.len(),
            plural(run.failures.len())
        );
    }
    let _ = writeln!(
        out,
        "{} new, {} known, {} gone",
        s.new,
        s.known,
        s.gone.len()
    );
    let group = |out: &mut String, title: &str, lines: Vec<&FailureLine>| {
        let _ = writeln!(out, "\n{title} ({}):", lines.len());
        if lines.is_empty() {
            let _ = writeln!(out, "  none");
        }
        for (i, f) in lines.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {}. [{}] {} ({})",
                i + 1,
                f.kind,
                one_line(&f.message, 160),
                f.verdict_text()
            );
        }
    };
    let of = |v: NewOrKnown| -> Vec<&FailureLine> {
        now.iter().filter(|f| f.baseline == Some(v)).collect()
    };
    group(&mut out, "new in B", of(NewOrKnown::New));
    group(&mut out, "known (in both)", of(NewOrKnown::Known));
    group(&mut out, "gone (in A only)", s.gone.iter().collect());
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::findings::Shrunk;

    const A: &str = "http://127.0.0.1:41427/";
    const B: &str = "http://127.0.0.1:39001/";

    fn line(kind: &str, message: &str, source: &str) -> FailureLine {
        FailureLine {
            kind: kind.into(),
            signature: format!("{kind}|{message}|{source}"),
            message: message.into(),
            ..FailureLine::default()
        }
    }

    fn app_failures(origin: &str) -> Vec<FailureLine> {
        vec![
            line(
                "exception",
                "TypeError: x is undefined",
                &format!("{origin}/app.js:10:4"),
            ),
            line(
                "http_5xx",
                "HTTP 500 from http://<n>.<n>:<n>/register",
                &format!("{origin}/register"),
            ),
        ]
    }

    fn base(target: &str, failures: Vec<FailureLine>) -> Baseline {
        Baseline {
            from: "base/report.json".into(),
            target: target.into(),
            failures,
        }
    }

    #[test]
    fn keys_replace_only_the_runs_own_origin() {
        let sig = "exception|x|http://127.0.0.1:41427/app.js:10:4";
        assert_eq!(key(sig, A), "exception|x|{origin}/app.js:10:4");
        assert_eq!(key(sig, "HTTP://127.0.0.1:41427/admin/?x=1"), key(sig, A));
        // Another port, a longer port, another host: not this run's origin.
        assert_eq!(key(sig, B), sig);
        assert_eq!(key(sig, "http://127.0.0.1:4142/"), sig);
        let cdn = "exception|x|https://cdn.example.com/lib.js:1:2";
        assert_eq!(key(cdn, A), cdn);
        // The browser never writes a default port.
        assert_eq!(
            key("http_5xx|y|http://localhost/api", "http://localhost:80/"),
            "http_5xx|y|{origin}/api"
        );
        assert_eq!(key(sig, ""), sig);
        assert_eq!(key(sig, "not a url"), sig);
    }

    #[test]
    fn a_port_change_still_matches() {
        let a = base(
            A.trim_end_matches('/'),
            app_failures(A.trim_end_matches('/')),
        );
        let mut now = app_failures(B.trim_end_matches('/'));
        let s = compare(&a, B, &mut now);
        assert_eq!((s.new, s.known, s.gone.len()), (0, 2, 0));
        assert!(now.iter().all(|f| f.baseline == Some(NewOrKnown::Known)));
        assert_eq!(s.from, "base/report.json");
    }

    #[test]
    fn a_fixed_bug_is_gone_and_a_new_one_is_new() {
        let a = base(A, app_failures("http://127.0.0.1:41427"));
        let mut now = app_failures("http://127.0.0.1:39001");
        // The 500 was fixed; a new exception appeared.
        now.remove(1);
        now.push(line(
            "unhandled_rejection",
            "Error: quota",
            "http://127.0.0.1:39001/sync.js:3:1",
        ));
        let s = compare(&a, B, &mut now);
        assert_eq!((s.new, s.known), (1, 1));
        assert_eq!(now[0].baseline, Some(NewOrKnown::Known));
        assert_eq!(now[1].baseline, Some(NewOrKnown::New));
        assert_eq!(s.gone.len(), 1);
        assert_eq!(s.gone[0].kind, "http_5xx");
        assert_eq!(s.gone[0].baseline, None);
    }

    #[test]
    fn diff_text_lists_new_known_and_gone() {
        let a = base(A, app_failures("http://127.0.0.1:41427"));
        let mut failures = app_failures("http://127.0.0.1:39001");
        failures.remove(1);
        let mut fresh = line(
            "unhandled_rejection",
            "Error: quota\n  at sync (sync.js:3)",
            "http://127.0.0.1:39001/sync.js:3:1",
        );
        fresh.shrunk = Some(Shrunk {
            kept: vec![1, 3],
            of: 5,
            hits: 1,
            runs: 3,
            ..Shrunk::default()
        });
        failures.push(fresh);
        let b = Baseline {
            from: "head/report.json".into(),
            target: B.into(),
            failures,
        };
        insta::assert_snapshot!(diff_text(&a, &b));
        let same = diff_text(&a, &a);
        assert!(same.contains("0 new, 2 known, 0 gone"), "{same}");
    }

    #[test]
    fn diff_text_says_unconfirmed_for_a_failure_never_replayed() {
        let a = base(A, app_failures("http://127.0.0.1:41427"));
        let b = base(B, app_failures("http://127.0.0.1:39001"));
        let text = diff_text(&a, &b);
        assert!(
            text.contains(
                "  1. [exception] TypeError: x is undefined (unconfirmed (never replayed))\n"
            ),
            "{text}"
        );
        assert_eq!(
            text.matches(" (unconfirmed (never replayed))\n").count(),
            2,
            "{text}"
        );
    }

    #[test]
    fn a_report_json_with_or_without_verdicts_loads() {
        // An older report.json: no verdict on its failures.
        let old = r#"{"target": "http://127.0.0.1:41427/", "failures": [
            {"kind": "exception", "signature": "exception|x", "message": "x", "step": 3,
             "count": 1, "page_url": "", "trace_len": 2}]}"#;
        let b = parse_report(old.as_bytes(), "old/report.json".into()).unwrap();
        assert_eq!(b.failures.len(), 1);
        assert_eq!(
            b.failures[0].verdict(),
            wayfarer_core::findings::Verdict::Unconfirmed
        );
        // A newer one: the verdict written beside each failure is read past.
        let data = crate::ci::tests::sample_run();
        let json = crate::json::render(&data, None);
        assert!(json.contains("\"verdict\": \"flaky\""), "{json}");
        let b = parse_report(json.as_bytes(), "new/report.json".into()).unwrap();
        assert_eq!(b.failures, data.summary.failures);
    }

    #[test]
    fn files_that_are_not_reports_say_so() {
        let dir = tempfile::tempdir().unwrap();
        let err = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            load(&p).unwrap_err().to_string()
        };
        let e = err("bad.json", "{\n  \"target\": \"x\",\n  \"failures\": [\n");
        assert!(
            e.contains("bad.json is not valid JSON (line 4, column 0"),
            "{e}"
        );
        let e = err("package.json", r#"{"name": "app", "version": "1.0.0"}"#);
        assert!(
            e.contains("package.json is JSON but not a wayfarer report (no target or failures)"),
            "{e}"
        );
        let e = err("list.json", "[1, 2]");
        assert!(
            e.contains("not a wayfarer report (it is not an object)"),
            "{e}"
        );
        let e = err("odd.json", r#"{"target": "x", "failures": [{"kind": 3}]}"#);
        assert!(e.contains("its failures cannot be read"), "{e}");

        let e = load(&dir.path().join("nowhere.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("nowhere.json does not exist"), "{e}");
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let e = load(&empty).unwrap_err().to_string();
        assert!(
            e.contains("is a directory without report.json or run.sqlite"),
            "{e}"
        );
        // A directory whose run.sqlite is not a store: the store's own error, named.
        std::fs::write(empty.join("run.sqlite"), "not sqlite").unwrap();
        let e = load(&empty).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("baseline {}", empty.display())),
            "{e}"
        );
    }

    #[test]
    fn a_rendered_report_round_trips() {
        let mut data = crate::ci::tests::sample_run();
        data.summary.baseline = None;
        let json = crate::json::render(&data, None);
        // report.json is a RunSummary with more fields beside it.
        let summary: wayfarer_core::RunSummary = serde_json::from_str(&json).unwrap();
        assert_eq!(summary.failures, data.summary.failures);

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("report.json"), &json).unwrap();
        let from_dir = load(dir.path()).unwrap();
        assert_eq!(from_dir.target, data.summary.target);
        assert_eq!(from_dir.failures, data.summary.failures);
        assert_eq!(from_dir.from, dir.path().display().to_string());
        let from_file = load(&dir.path().join("report.json")).unwrap();
        assert_eq!(from_file.failures, from_dir.failures);

        // The same run on another port: nothing new, nothing gone.
        let mut now = data.summary.failures.clone();
        for f in &mut now {
            f.signature = f.signature.replace(":41427", ":39001");
        }
        let s = compare(&from_dir, "http://127.0.0.1:39001/", &mut now);
        assert_eq!((s.new, s.gone.len()), (0, 0));
    }
}
