//! `traces/*.json`: one replayable trace per unique failure, named so a directory
//! listing reads like the failure list.

use std::path::PathBuf;

use wayfarer_core::findings::{Shrunk, Verdict};
use wayfarer_core::trace::{Expected, Trace, TRACE_VERSION};
use wayfarer_core::Failure;
use wayfarer_store::RunData;

use crate::{write_file, WriteError};

/// `03-exception-typeerror-cannot-read-properties.json` for the third failure.
pub fn file_name(index: usize, f: &Failure) -> String {
    // URLs keep their path only: a port or host in a file name says nothing.
    let message: Vec<&str> = f
        .message
        .split_whitespace()
        .map(|w| match w.split_once("://") {
            Some((_, rest)) => rest.find('/').map(|i| &rest[i..]).unwrap_or(""),
            None => w,
        })
        .collect();
    let message = message.join(" ");
    let mut slug = String::new();
    for c in message.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.len() >= 40 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-');
    let kind = f.kind.as_str().replace('_', "-");
    if slug.is_empty() {
        format!("{:02}-{kind}.json", index + 1)
    } else {
        format!("{:02}-{kind}-{slug}.json", index + 1)
    }
}

/// `NAME.min.json` for `NAME.json`: where `wayfarer minimize` writes its result.
pub fn minimised_name(file: &str) -> String {
    let stem = file.strip_suffix(".json").unwrap_or(file);
    let stem = stem.strip_suffix(".min").unwrap_or(stem);
    format!("{stem}.min.json")
}

/// What shrinking after the run did to the failure `f`, when it ran.
fn shrunk_of<'a>(data: &'a RunData, f: &Failure) -> Option<&'a Shrunk> {
    data.summary
        .line(&f.signature)
        .and_then(|l| l.shrunk.as_ref())
}

/// The trace of the `index`-th failure of the run.
pub fn trace_of(data: &RunData, index: usize) -> Trace {
    let f = &data.failures[index].failure;
    let shrunk = shrunk_of(data, f);
    Trace {
        version: TRACE_VERSION,
        wayfarer: env!("CARGO_PKG_VERSION").to_string(),
        setup: data.meta.setup.clone(),
        expected: Expected {
            kind: f.kind.as_str().to_string(),
            signature: f.signature.clone(),
            message: f.message.clone(),
        },
        origin: format!(
            "{} seed {} on {}: first seen at step {} (episode {})",
            data.meta.strategy, data.meta.seed, data.meta.target, f.step, f.episode
        ),
        outside_state: shrunk.and_then(|s| s.outside_state.clone()),
        steps: f.trace.clone(),
    }
}

/// The minimal trace shrinking after the run found for the `index`-th failure, when it
/// is shorter than the recorded one.
pub fn minimal_of(data: &RunData, index: usize) -> Option<Trace> {
    let f = &data.failures[index].failure;
    let s = shrunk_of(data, f).filter(|s| s.shortened())?;
    let whole = trace_of(data, index);
    let verdict = Verdict::of(Some(s)).text(Some(s));
    Some(Trace {
        origin: format!(
            "{}; shrunk after the run ({} → {} actions, {} replays{}, {verdict})",
            whole.origin,
            s.of,
            s.kept.len(),
            s.replays,
            if s.finished { "" } else { ", out of time" },
        ),
        // The shorter way shrinking took may hold steps from elsewhere in the run.
        steps: s.steps(&f.trace)?,
        ..whole
    })
}

/// Write one trace per failure into `DIR/traces/`, and its minimal trace (`NAME.min.json`)
/// when shrinking after the run found one and no such file is there yet.
pub fn write(data: &RunData) -> Result<Vec<PathBuf>, WriteError> {
    let dir = data.dir.join("traces");
    if data.failures.is_empty() {
        return Ok(Vec::new());
    }
    std::fs::create_dir_all(&dir).map_err(|source| WriteError {
        path: dir.display().to_string(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, f) in data.failures.iter().enumerate() {
        let name = file_name(i, &f.failure);
        let path = dir.join(&name);
        write_file(&path, &trace_of(data, i).to_json())?;
        out.push(path);
        // One `wayfarer minimize` wrote later is newer than the run's: it stays.
        let min = dir.join(minimised_name(&name));
        if let (Some(t), false) = (minimal_of(data, i), min.exists()) {
            write_file(&min, &t.to_json())?;
            out.push(min);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::FailureKind;

    fn failure(kind: FailureKind, message: &str) -> Failure {
        Failure {
            kind,
            message: message.into(),
            signature: String::new(),
            source: None,
            line: None,
            column: None,
            step: 1,
            episode: 1,
            count: 1,
            page_url: String::new(),
            trace: vec![],
            server_output: Default::default(),
        }
    }

    #[test]
    fn file_names_read_like_the_failure_without_hosts() {
        let f = failure(
            FailureKind::Http5xx,
            "HTTP 500 from http://127.0.0.1:41427/register",
        );
        assert_eq!(file_name(0, &f), "01-http-5xx-http-500-from-register.json");
        let f = failure(
            FailureKind::Exception,
            "TypeError: <b>x</b> is \"undefined\"",
        );
        assert_eq!(
            file_name(11, &f),
            "12-exception-typeerror-b-x-b-is-undefined.json"
        );
        assert_eq!(
            file_name(2, &failure(FailureKind::PageCrash, "")),
            "03-page-crash.json"
        );
    }

    #[test]
    fn a_minimal_trace_keeps_the_steps_its_shorter_way_took_from_elsewhere() {
        use wayfarer_core::summary::FailureLine;
        use wayfarer_core::{Action, ActionKind, TraceStep};
        let step = |t: &str| TraceStep {
            action: Action::on(ActionKind::Click, t.to_string()),
            element: None,
            url: String::new(),
        };
        let mut f = failure(FailureKind::Exception, "boom");
        f.signature = "exception|boom".into();
        f.trace = ["#help", "#back", "#register", "#boom"].map(step).to_vec();
        let mut line = FailureLine::from(&f);
        // Kept: a step of another episode (index 4 = via[0]), then the trace's last.
        line.shrunk = Some(Shrunk {
            kept: vec![4, 3],
            of: 4,
            via: vec![step("#register-direct")],
            finished: true,
            ..Shrunk::default()
        });
        let data = RunData {
            dir: PathBuf::from("out"),
            meta: Default::default(),
            summary: wayfarer_core::RunSummary {
                failures: vec![line],
                ..Default::default()
            },
            complete: true,
            steps: vec![],
            resets: vec![],
            states: vec![],
            transitions: vec![],
            failures: vec![wayfarer_store::StoredFailure {
                failure: f,
                screenshot: None,
            }],
            strategy: None,
            knowledge: vec![],
            features: None,
        };
        let t = minimal_of(&data, 0).expect("a minimal trace");
        let targets: Vec<_> = t
            .steps
            .iter()
            .map(|s| s.action.target.clone().unwrap())
            .collect();
        assert_eq!(targets, ["#register-direct", "#boom"]);
        // Shrunk, but its confirming replays never ran (out of time): unconfirmed.
        assert!(
            t.origin.ends_with(
                "; shrunk after the run (4 → 2 actions, 0 replays, unconfirmed (never replayed))"
            ),
            "{}",
            t.origin
        );
    }

    #[test]
    fn a_minimal_trace_says_its_verdict() {
        let mut data = crate::ci::tests::sample_run();
        let t = minimal_of(&data, 0).expect("a minimal trace");
        assert!(
            t.origin.ends_with(", 6 replays, reproduced 3/3)"),
            "{}",
            t.origin
        );
        let s = data.summary.failures[0].shrunk.as_mut().unwrap();
        (s.hits, s.runs) = (0, 0);
        let t = minimal_of(&data, 0).expect("a minimal trace");
        assert!(
            t.origin
                .ends_with(", 6 replays, unconfirmed (never replayed))"),
            "{}",
            t.origin
        );
    }
}
