//! `summary.txt`: the run for people in a terminal, as `explore` and `demo` print it at
//! their end: the summary, each failure with its steps to reproduce, and for a bundled
//! demo app which of its seeded bugs the run found.

use std::fmt::Write;

use wayfarer_core::findings::NewOrKnown;
use wayfarer_core::{Failure, RunSummary, TraceStep};
use wayfarer_store::RunData;

use crate::format::{Format, Input};
use crate::{one_line, SeededLine};

pub struct Text;

impl Format for Text {
    fn name(&self) -> &'static str {
        "text"
    }
    fn about(&self) -> &'static str {
        "the summary a terminal shows at the run's end, for people and CI logs"
    }
    fn file(&self) -> &'static str {
        "summary.txt"
    }
    fn render(&self, input: &Input<'_>) -> String {
        let data = input.data;
        let mut out = summary_text(&data.summary);
        out.push_str(&failures_text(&data.summary, &|sig| recorded(data, sig)));
        if let Some(seeded) = input.seeded {
            out.push_str(&seeded_text(seeded));
        }
        out
    }
}

/// The stored failure with this signature (its trace, its server output).
fn recorded(data: &RunData, signature: &str) -> Option<Failure> {
    data.failures
        .iter()
        .find(|f| f.failure.signature == signature)
        .map(|f| f.failure.clone())
}

/// The demo's table of seeded bugs: which the run found, when and how short.
pub fn seeded_text(results: &[SeededLine]) -> String {
    let hits = results.iter().filter(|r| r.found_at_step.is_some()).count();
    let mut s = format!(
        "Seeded bugs of the demo app found: {hits} of {}\n",
        results.len()
    );
    for r in results {
        let status = match r.found_at_step {
            Some(step) => {
                let mut s = format!("found at step {step}");
                if let Some(n) = r.reported_actions {
                    s.push_str(&format!(", reported with {n} action(s)"));
                }
                if let Some(v) = &r.reproduced {
                    s.push_str(&format!(", {v}"));
                }
                s
            }
            None => "not found".to_string(),
        };
        s.push_str(&format!(
            "  {} (needs {} actions): {status}\n",
            r.id, r.min_actions
        ));
    }
    s
}

pub fn summary_text(s: &RunSummary) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "wayfarer explored {} with {} (seed {}, budget {})",
        s.target, s.strategy, s.seed, s.budget
    );
    let _ = writeln!(
        o,
        "  {} steps in {:.1}s ({:.1} steps/s), {} episodes, {} states, {} URLs, {} actions discovered",
        s.steps, s.duration_s, s.steps_per_second, s.episodes, s.states, s.urls, s.actions_discovered
    );
    if let Some(a) = &s.auto_workers {
        let _ = writeln!(o, "  --workers auto: {a}");
    }
    if let Some(c) = &s.js_coverage {
        let _ = writeln!(
            o,
            "  JS coverage {:.1}% ({} of {} bytes; {:.1}% after the first load), {} of {} functions",
            c.ratio * 100.0,
            c.covered_bytes,
            c.total_bytes,
            c.first_load_ratio * 100.0,
            c.functions_covered,
            c.functions_total
        );
    }
    if let Some(c) = &s.server_coverage {
        let _ = writeln!(o, "  {}", server_line(&c.totals));
    }
    for p in &s.properties {
        let episodes = p.violated + p.pending + p.held + p.errors;
        let _ = writeln!(
            o,
            "  property {}: {} (episodes: {} violated, {} pending, {} held, {} not evaluable; of {episodes})",
            p.name,
            p.verdict(),
            p.violated,
            p.pending,
            p.held,
            p.errors
        );
    }
    if !s.warnings.is_empty() {
        let _ = writeln!(
            o,
            "  warnings: {} (advice, not failures; `[oracles]` can make them failures)",
            s.warnings.len()
        );
        for w in s.warnings.iter().take(10) {
            let _ = writeln!(
                o,
                "    {}: {} (on {}, seen {}x)",
                w.kind.as_str(),
                one_line(&w.message, 160),
                w.page_url,
                w.count
            );
        }
        if s.warnings.len() > 10 {
            let _ = writeln!(o, "    ... {} more in report.json", s.warnings.len() - 10);
        }
    }
    let t = &s.timings_ms;
    let _ = writeln!(
        o,
        "  median ms per step {:.1}: scan {:.1} · analysis {:.2} · decide {:.2} · act {:.1} · wait {:.1}; recording {:.2}",
        t.step, t.scan, t.analysis, t.decide, t.act, t.wait, t.observers
    );
    if !s.properties.is_empty() {
        let _ = writeln!(
            o,
            "  median ms per step checking the properties: {:.2}",
            t.spec
        );
    }
    let split = &s.time_split;
    if split.step > 0.0 {
        let mut parts: Vec<(&str, f64)> = split
            .parts
            .iter()
            .map(|(n, v)| (n.as_str(), *v))
            .filter(|p| p.1 / split.step >= 0.005)
            .collect();
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        let shares: Vec<String> = parts
            .iter()
            .map(|(n, v)| format!("{n} {:.0}%", v / split.step * 100.0))
            .collect();
        let _ = writeln!(
            o,
            "  mean ms per step {:.1}: {} · other {:.1}%; resets {:.1}s in all",
            split.step,
            shares.join(" · "),
            split.other_share() * 100.0,
            s.resets_s
        );
    }
    if let Some(i) = &s.inference {
        match &i.disabled {
            Some(why) => {
                let _ = writeln!(o, "  state inference {} did not run: {why}", i.config);
            }
            None => {
                let card: Vec<String> = i
                    .cardinality
                    .iter()
                    .filter(|r| r.interactions > 0)
                    .map(|r| match r.candidates.as_str() {
                        "non-deterministic" => format!("{} non-deterministic", r.interactions),
                        "1" => format!("{} with one outcome", r.interactions),
                        n => format!("{} with {n}", r.interactions),
                    })
                    .collect();
                let _ = writeln!(
                    o,
                    "  state inference {}: {:.0}% of scans and analyses avoided ({} of {} steps); \
                     {} of {} guesses rejected, {:.1} ms per check; {} interactions: {}",
                    i.config,
                    s.scans_avoided * 100.0,
                    i.predicted_steps,
                    i.steps,
                    i.rejected_candidates,
                    i.probes,
                    i.probe_ms,
                    i.interactions,
                    if card.is_empty() {
                        "none".to_string()
                    } else {
                        card.join(", ")
                    }
                );
            }
        }
    }
    let f = &s.form_acceptance;
    if let Some(share) = f.share() {
        let deliberate = if f.deliberate > 0 {
            format!("; {} more broken on purpose (+mutate)", f.deliberate)
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "  forms: {:.0}% of {} submissions with valid values accepted{deliberate}",
            share * 100.0,
            f.submissions
        );
    }
    if let Some(u) = &s.llm {
        let _ = writeln!(o, "  {}", llm_line(u));
    }
    if s.restarts > 0 {
        let _ = writeln!(
            o,
            "  browser restarted {} time(s) after a crash, a hang or a lost connection",
            s.restarts
        );
    }
    if s.step_errors > 0 {
        let _ = writeln!(
            o,
            "  {} step(s) could not be performed (element gone or step error)",
            s.step_errors
        );
    }
    if s.logged_out > 0 {
        let _ = writeln!(
            o,
            "  logged out mid-run {} time(s): the login form came back; each time the run reset and logged in again",
            s.logged_out
        );
    }
    if let Some(why) = &s.stopped_early {
        let _ = writeln!(o, "  stopped before the budget: {why}");
        if s.ended_by_environment {
            let _ = writeln!(
                o,
                "  the application or the browser ended the run early (exit code 2)"
            );
        }
    }
    o
}

/// The failures of a run, each with the steps that reproduce it (the minimal ones when
/// shrinking found them) and what the server wrote at its step; `recorded` gives each
/// failure as the run recorded it, by signature.
pub fn failures_text(s: &RunSummary, recorded: &dyn Fn(&str) -> Option<Failure>) -> String {
    let mut o = String::new();
    if let Some(b) = &s.baseline {
        let _ = writeln!(
            o,
            "Against the baseline {}: {} new, {} known, {} gone",
            b.from,
            b.new,
            b.known,
            b.gone.len()
        );
        for g in &b.gone {
            let _ = writeln!(o, "  gone: [{}] {}", g.kind, one_line(&g.message, 150));
        }
    }
    if let Some(sh) = &s.shrink {
        let during = match sh.during_run_s {
            d if d > 0.0 => format!(
                "{d:.1}s of browser time while exploring on {} browser(s), then ",
                sh.browsers
            ),
            _ => String::new(),
        };
        let _ = write!(
            o,
            "Shrinking took {during}{:.1}s of its {:.0}s after {:.1}s exploring; each minimal trace replayed {} time(s)",
            sh.seconds, sh.budget_s, s.duration_s, sh.confirm_runs
        );
        if sh.skipped > 0 {
            let _ = write!(o, "; {} failure(s) not reached", sh.skipped);
        }
        if let Some(e) = &sh.error {
            let _ = write!(o, "; stopped: {e}");
        }
        o.push('\n');
    }
    if s.failures.is_empty() {
        let _ = writeln!(o, "No failures found.");
        return o;
    }
    let _ = writeln!(o, "{} unique failure(s):", s.failures.len());
    for (i, f) in s.failures.iter().enumerate() {
        let mut tags = Vec::new();
        if let Some(b) = f.baseline {
            tags.push(match b {
                NewOrKnown::New => "new".to_string(),
                NewOrKnown::Known => "known".to_string(),
            });
        }
        // Every failure has one: "reproduced 3/3", ..., "unconfirmed (never replayed)".
        tags.push(f.verdict_text());
        let tags = format!(" ({})", tags.join(", "));
        let _ = writeln!(
            o,
            "  {}. [{}] {}{tags}\n     first at step {} on {} · seen {} time(s)",
            i + 1,
            f.kind,
            one_line(&f.message, 160),
            f.step,
            f.page_url,
            f.count,
        );
        let rec = recorded(&f.signature);
        let steps = rec.as_ref().map(|r| r.trace.clone()).unwrap_or_default();
        let minimal = f
            .shrunk
            .as_ref()
            .filter(|sh| sh.shortened())
            .and_then(|sh| Some((sh, sh.steps(&steps)?)));
        let (shown, head): (Vec<TraceStep>, String) = match minimal {
            Some((sh, kept)) => (
                kept,
                format!(
                    "{} of {} recorded actions{}",
                    sh.kept.len(),
                    f.trace_len,
                    if sh.finished {
                        ""
                    } else {
                        ", the shortest found before shrinking ran out of time"
                    }
                ),
            ),
            None => (
                steps.clone(),
                format!("{} action(s) from a reset", f.trace_len),
            ),
        };
        if let Some(why) = f.shrunk.as_ref().and_then(|sh| sh.outside_state.as_ref()) {
            let _ = writeln!(o, "     warning: {}", one_line(why, 300));
        }
        if shown.is_empty() {
            let _ = writeln!(o, "     {head}");
        } else {
            let _ = writeln!(o, "     steps to reproduce ({head}):");
            for (k, st) in shown.iter().enumerate().take(MAX_STEPS) {
                let _ = writeln!(o, "       {}. {}", k + 1, one_line(&st.describe(), 160));
            }
            if shown.len() > MAX_STEPS {
                let _ = writeln!(
                    o,
                    "       … {} more (the trace file has them all)",
                    shown.len() - MAX_STEPS
                );
            }
        }
        if let Some(out) = rec.map(|r| r.server_output).filter(|o| !o.is_empty()) {
            let _ = writeln!(o, "     the server's output at step {}:", f.step);
            // Python's `^^^~~` markers under a frame's line say little in a terminal.
            let said = wayfarer_core::server::ServerOutput {
                lines: out
                    .lines
                    .into_iter()
                    .filter(|l| !l.trim().chars().all(|c| matches!(c, '^' | '~' | ' ')))
                    .collect(),
                omitted: out.omitted,
            };
            for line in said.tail(MAX_SERVER_LINES) {
                // Indented as written: a traceback's frames and their code lines differ so.
                let line: String = line.chars().take(200).collect();
                let _ = writeln!(o, "       | {line}");
            }
        }
    }
    o
}

/// "server coverage (node) 41.3% (120 of 290 lines in 3 of 4 files; +85 after the
/// start), read 312 times, 2.1 ms each (max 9.0)".
pub fn server_line(c: &wayfarer_core::server::ServerCoverage) -> String {
    let per = if c.reads > 0 {
        c.read_ms_total / c.reads as f64
    } else {
        0.0
    };
    format!(
        "server coverage ({}) {:.1}% ({} of {} lines in {} of {} files; +{} after the start), read {} times, {per:.1} ms each (max {:.1})",
        c.stack,
        c.ratio() * 100.0,
        c.lines_covered,
        c.lines_total,
        c.files_run,
        c.files,
        c.gain(),
        c.reads,
        c.read_ms_max
    )
}

/// Steps printed per failure at most; a longer trace is in its file.
const MAX_STEPS: usize = 12;

/// Lines of the server's output printed per failure at most: a traceback's end, where
/// its exception is; the report has them all.
const MAX_SERVER_LINES: usize = 12;

/// What the language model did: who answered, at what cost, and what went wrong.
pub fn llm_line(u: &wayfarer_core::llm::LlmUsage) -> String {
    if u.provider == "heuristic" {
        return format!(
            "inputs: {} questions answered by the heuristic provider (no model)",
            u.questions
        );
    }
    let mut line = format!(
        "llm {} at {}: {} questions · {} calls ({:.0} ms median, {:.0} ms p90) · {} cache hits ·          {} heuristic · {:.0}% malformed · {} tokens",
        u.model,
        u.endpoint.as_deref().unwrap_or("?"),
        u.questions,
        u.calls,
        u.latency_ms_median,
        u.latency_ms_p90,
        u.cache_hits,
        u.heuristic,
        u.malformed_share() * 100.0,
        u.prompt_tokens + u.completion_tokens
    );
    if u.cost > 0.0 {
        let _ = write!(line, " · cost {:.4}", u.cost);
    }
    if u.failed > 0 || u.skipped > 0 {
        let _ = write!(
            line,
            "\n  llm: {} call(s) failed, {} question(s) not sent while the endpoint was down; last error: {}",
            u.failed,
            u.skipped,
            u.last_error.as_deref().unwrap_or("?")
        );
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::findings::Shrunk;
    use wayfarer_core::infer::{CardinalityRow, InferenceSummary};

    fn row(candidates: &str, interactions: u64) -> CardinalityRow {
        CardinalityRow {
            candidates: candidates.into(),
            interactions,
            share: 0.0,
        }
    }

    #[test]
    fn the_inference_line_says_what_was_avoided_and_how_interactions_behaved() {
        let mut s = RunSummary {
            scans_avoided: 0.75,
            inference: Some(InferenceSummary {
                config: "actions-5".into(),
                steps: 40,
                predicted_steps: 30,
                probes: 35,
                probe_ms: 3.04,
                rejected_candidates: 2,
                interactions: 3,
                cardinality: vec![row("1", 2), row("2", 0), row("non-deterministic", 1)],
                ..Default::default()
            }),
            ..Default::default()
        };
        let text = summary_text(&s);
        assert!(
            text.contains(
                "  state inference actions-5: 75% of scans and analyses avoided (30 of 40 steps); \
                 2 of 35 guesses rejected, 3.0 ms per check; 3 interactions: 2 with one outcome, \
                 1 non-deterministic\n"
            ),
            "{text}"
        );
        s.inference = Some(InferenceSummary {
            config: "widgets-1".into(),
            disabled: Some("the strategy x cannot be copied".into()),
            ..Default::default()
        });
        assert!(summary_text(&s)
            .contains("state inference widgets-1 did not run: the strategy x cannot be copied"));
    }

    #[test]
    fn every_failure_says_its_verdict_and_a_never_replayed_one_says_unconfirmed() {
        let line = |message: &str, shrunk: Option<Shrunk>| wayfarer_core::summary::FailureLine {
            kind: "exception".into(),
            signature: message.into(),
            message: message.into(),
            trace_len: 2,
            shrunk,
            ..Default::default()
        };
        let replayed = |hits, runs| Shrunk {
            kept: vec![0, 1],
            of: 2,
            finished: true,
            hits,
            runs,
            ..Shrunk::default()
        };
        let mut out_of_time = line("out of time", Some(replayed(0, 0)));
        out_of_time.baseline = Some(NewOrKnown::New);
        let s = RunSummary {
            failures: vec![
                line("confirmed", Some(replayed(3, 3))),
                line("flaky", Some(replayed(1, 3))),
                line("gone", Some(replayed(0, 3))),
                out_of_time,
                line("never shrunk", None),
            ],
            ..Default::default()
        };
        let text = failures_text(&s, &|_| None);
        for want in [
            "1. [exception] confirmed (reproduced 3/3)\n",
            "2. [exception] flaky (flaky 1/3)\n",
            "3. [exception] gone (not reproduced 0/3)\n",
            "4. [exception] out of time (new, unconfirmed (never replayed))\n",
            "5. [exception] never shrunk (unconfirmed (never replayed))\n",
        ] {
            assert!(text.contains(want), "{want:?} in\n{text}");
        }
    }

    #[test]
    fn a_failure_prints_the_end_of_what_the_server_wrote_at_its_step() {
        let line = wayfarer_core::summary::FailureLine {
            kind: "http_error".into(),
            signature: "http 500 /search".into(),
            message: "HTTP 500 on GET /search".into(),
            step: 7,
            ..Default::default()
        };
        let mut lines: Vec<String> = (1..=30).map(|i| format!("  frame {i}")).collect();
        lines.insert(0, "Traceback (most recent call last):".into());
        lines.push("ValueError: a bad page number".into());
        let failure = Failure {
            kind: wayfarer_core::FailureKind::Http5xx,
            message: line.message.clone(),
            signature: line.signature.clone(),
            source: None,
            line: None,
            column: None,
            step: 7,
            episode: 1,
            count: 1,
            page_url: "http://127.0.0.1/search".into(),
            trace: Vec::new(),
            server_output: wayfarer_core::server::ServerOutput::of(lines),
        };
        let s = RunSummary {
            failures: vec![line],
            ..Default::default()
        };
        let text = failures_text(&s, &|_| Some(failure.clone()));
        assert!(
            text.contains("the server's output at step 7:\n       | … 20 earlier line(s)\n"),
            "{text}"
        );
        assert!(
            text.ends_with("       | ValueError: a bad page number\n"),
            "{text}"
        );
        assert!(!text.contains("frame 19\n"), "{text}");
        // Without output (no server started), nothing is said of it.
        let text = failures_text(&s, &|_| None);
        assert!(!text.contains("server"), "{text}");
    }
}
