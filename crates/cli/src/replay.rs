//! `wayfarer replay TRACE`: perform a trace's actions from a reset, `--repeat N` times,
//! and say whether (and how often) its failure came back.

use std::path::Path;

use anyhow::{bail, Result};
use serde::Serialize;
use wayfarer_core::minimize::outside_state_warning;
use wayfarer_core::replay::{replay, Replay};

use crate::args::TraceArgs;
use crate::explore::printer;

#[derive(Serialize)]
struct RunLine {
    reproduced: bool,
    /// 1-based action after which the failure appeared.
    after_action: Option<usize>,
    performed: usize,
    blocked: Option<String>,
    other_failures: Vec<String>,
}

#[derive(Serialize)]
struct ReplayJson<'a> {
    trace: String,
    start_url: &'a str,
    expected: &'a str,
    actions: usize,
    repeat: u32,
    reproduced: u32,
    /// Set when a run raised the failure earlier than the trace recorded it.
    outside_state: Option<String>,
    runs: Vec<RunLine>,
}

fn line(r: &Replay, expected: &str) -> RunLine {
    RunLine {
        reproduced: r.reproduced(),
        after_action: r.hit.map(|i| i + 1),
        performed: r.performed,
        blocked: r
            .blocked
            .as_ref()
            .map(|(i, why)| format!("action {}: {why}", i + 1)),
        other_failures: r
            .signatures
            .iter()
            .filter(|s| *s != expected)
            .cloned()
            .collect(),
    }
}

/// Returns the exit code: 1 when the failure reproduced at least once, 0 when never.
pub fn command(path: &Path, args: &TraceArgs, repeat: u32, json: bool) -> Result<i32> {
    if repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    let quiet = args.quiet || json;
    let mut say = printer(!quiet);
    let mut t = wayfarer_run::trace::open(path, &place(args), &mut say)?;
    if !quiet {
        meprintln!(
            "wayfarer: replaying {} ({} actions) against {}; expecting {}: {}",
            path.display(),
            t.steps.len(),
            t.start_url,
            t.trace.expected.kind,
            t.trace.expected.message
        );
    }
    let mut runs = Vec::new();
    let mut error = None;
    let mut outside_state = None;
    let n = t.steps.len();
    for i in 1..=repeat {
        match replay(&mut t.env, &t.steps, &t.oracles, &t.expected, true) {
            Ok(r) => {
                // The trace recorded its failure after its last action: raised sooner, it
                // needed something the reset did not put back.
                let early = if r.at_reset && n > 0 {
                    Some("on the start page".to_string())
                } else {
                    r.hit
                        .filter(|&h| h + 1 < n)
                        .map(|h| format!("after action {}", h + 1))
                };
                if let Some(at) = early.filter(|_| outside_state.is_none()) {
                    outside_state = Some(outside_state_warning(&format!(
                        "run {i} raised it {at} of {n}, the trace recorded it after action {n}"
                    )));
                }
                let l = line(&r, &t.expected);
                if !quiet {
                    meprintln!("  run {i}/{repeat}: {}", describe(&l, t.steps.len()));
                }
                runs.push(l);
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let hits = runs.iter().filter(|r| r.reproduced).count() as u32;
    let start_url = t.start_url.clone();
    let expected = t.expected.clone();
    let actions = t.steps.len();
    t.close();
    if let Some(e) = error {
        bail!("run {} stopped: {e}", runs.len() + 1);
    }
    if let (Some(why), false) = (&outside_state, json) {
        meprintln!("warning: the failure {why}");
    }
    if json {
        mprintln!(
            "{}",
            serde_json::to_string(&ReplayJson {
                trace: path.display().to_string(),
                start_url: &start_url,
                expected: &expected,
                actions,
                repeat,
                reproduced: hits,
                outside_state,
                runs,
            })?
        );
    } else {
        let verdict = match hits {
            0 => "not reproduced",
            h if h == repeat => "reproduced",
            _ => "reproduced sometimes (flaky)",
        };
        mprintln!("{verdict}: {hits}/{repeat} runs raised {expected}");
    }
    Ok(if hits > 0 { 1 } else { 0 })
}

/// Where the flags say to replay.
pub fn place(args: &TraceArgs) -> wayfarer_run::trace::Place {
    wayfarer_run::trace::Place {
        url: args.url.clone(),
        fixed: args.fixed,
        chrome: args.chrome.clone(),
        cdp: args.cdp.clone(),
        config: args.config.clone(),
        serve: args.serve.clone(),
        server_log: None,
    }
}

fn describe(l: &RunLine, total: usize) -> String {
    let mut s = match (l.reproduced, l.after_action, &l.blocked) {
        (true, Some(k), _) => format!("reproduced after action {k} of {total}"),
        (true, None, _) => "reproduced on the start page".to_string(),
        (false, _, Some(b)) => format!("not reproduced: could not perform {b}"),
        (false, _, None) => format!("not reproduced after {} actions", l.performed),
    };
    if !l.other_failures.is_empty() {
        s.push_str(&format!(" (also saw {})", l.other_failures.join("; ")));
    }
    s
}
