//! `ctrf.json`: the run in the Common Test Report Format (CTRF, specVersion 0.0.0), which
//! CI reporters read whatever tool made the tests: one failed test per unique failure
//! (its message, and its steps to reproduce as the trace), one for the exploration itself
//! (passed, or failed when the run did not finish).

use serde_json::{json, Value};
use wayfarer_core::findings::Verdict;

use crate::format::{Format, Input};
use crate::junit::failure_text;

/// The CTRF specification version this writes.
pub const SPEC_VERSION: &str = "0.0.0";

pub struct Ctrf;

impl Format for Ctrf {
    fn name(&self) -> &'static str {
        "ctrf"
    }
    fn about(&self) -> &'static str {
        "Common Test Report Format JSON, for CI reporters (ctrf.io)"
    }
    fn file(&self) -> &'static str {
        "ctrf.json"
    }
    fn render(&self, input: &Input<'_>) -> String {
        let v = render(input);
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        s
    }
}

fn render(input: &Input<'_>) -> Value {
    let data = input.data;
    let s = &data.summary;
    let start = data.meta.started_at.saturating_mul(1000);
    let duration = (s.duration_s.max(0.0) * 1000.0).round() as u64;
    let stop = start.saturating_add(duration);
    let mut tests = vec![exploration(input, duration)];
    for (i, sf) in data.failures.iter().enumerate() {
        let f = &sf.failure;
        let shrunk = s.line(&f.signature).and_then(|l| l.shrunk.as_ref());
        let verdict = Verdict::of(shrunk);
        tests.push(json!({
            "name": format!("{}: {}", f.kind.as_str(), crate::one_line(&f.message, 100)),
            "status": "failed",
            "duration": 0,
            "message": crate::one_line(&f.message, 300),
            "trace": failure_text(data, i),
            "suite": ["wayfarer", f.kind.as_str()],
            "type": "e2e",
            "browser": "chromium",
            "flaky": verdict == Verdict::Flaky,
            "labels": {
                "signature": f.signature,
                "page": f.page_url,
                "step": f.step,
                "verdict": verdict.text(shrunk),
            },
        }));
    }
    let failed = tests.iter().filter(|t| t["status"] == "failed").count();
    let flaky = tests.iter().filter(|t| t["flaky"] == true).count();
    json!({
        "reportFormat": "CTRF",
        "specVersion": SPEC_VERSION,
        "generatedBy": format!("wayfarer {}", data.meta.wayfarer),
        "results": {
            "tool": { "name": "wayfarer", "version": data.meta.wayfarer },
            "summary": {
                "tests": tests.len(),
                "passed": tests.len() - failed,
                "failed": failed,
                "skipped": 0,
                "pending": 0,
                "other": 0,
                "flaky": flaky,
                "start": start,
                "stop": stop,
                "duration": duration,
            },
            "tests": tests,
            "environment": {
                "appName": s.target,
                "testEnvironment": format!("{} seed {}", s.strategy, s.seed),
            },
        },
    })
}

/// The exploration as a test: it passes when the run finished (its failures are tests of
/// their own) and fails, saying why, when it stopped early.
fn exploration(input: &Input<'_>, duration: u64) -> Value {
    let s = &input.data.summary;
    let name = format!(
        "explore {} ({} steps, {} states)",
        s.target, s.steps, s.states
    );
    let mut t = json!({
        "name": name,
        "status": if input.data.complete { "passed" } else { "failed" },
        "duration": duration,
        "suite": ["wayfarer"],
        "type": "e2e",
        "browser": "chromium",
    });
    if !input.data.complete {
        let why = s
            .stopped_early
            .clone()
            .unwrap_or_else(|| "the run did not finish".into());
        t["message"] = json!(why);
    }
    if let Some(seeded) = input.seeded {
        let found = seeded.iter().filter(|l| l.found_at_step.is_some()).count();
        t["labels"] = json!({ "seeded bugs found": format!("{found} of {}", seeded.len()) });
    }
    t
}
