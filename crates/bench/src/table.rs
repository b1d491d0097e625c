//! `bench.csv` (one row per run) and `bench.md` (medians and ranges per application and
//! strategy, then which seeded bugs each found).

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::engine::BenchResult;
use crate::metrics::{RunRow, COLUMNS};
use crate::plan::{Plan, Target};
use crate::BenchError;

pub(crate) fn write(plan: &Plan, result: &BenchResult) -> Result<Vec<PathBuf>, BenchError> {
    let rows: Vec<&RunRow> = result.runs.iter().map(|(_, o)| &o.row).collect();
    let csv_path = plan.out.join("bench.csv");
    crate::write_masked(&csv_path, &csv(&rows))?;
    let md_path = plan.out.join("bench.md");
    crate::write_masked(&md_path, &markdown(plan, result))?;
    Ok(vec![md_path, csv_path])
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The CSV text: a header of `COLUMNS` names, then one line per run.
pub fn csv(rows: &[&RunRow]) -> String {
    let mut s = COLUMNS.iter().map(|c| c.0).collect::<Vec<_>>().join(",");
    s.push('\n');
    for r in rows {
        let line: Vec<String> = r.values().iter().map(|v| csv_field(v)).collect();
        s.push_str(&line.join(","));
        s.push('\n');
    }
    s
}

/// Median and range of some numbers, as "m [lo–hi]" (just "m" when all are equal).
fn spread(v: Vec<f64>, fmt: fn(f64) -> String) -> String {
    let lo = v.iter().copied().reduce(f64::min);
    let hi = v.iter().copied().reduce(f64::max);
    match (median(v), lo, hi) {
        (Some(med), Some(lo), Some(hi)) if fmt(lo) != fmt(hi) => {
            format!("{} [{}–{}]", fmt(med), fmt(lo), fmt(hi))
        }
        (Some(med), _, _) => fmt(med),
        _ => "–".into(),
    }
}

fn int(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn pct(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

fn one(v: f64) -> String {
    format!("{v:.1}")
}

/// A column over the rows; "–" when no row has a value.
fn col(rows: &[&RunRow], f: impl Fn(&RunRow) -> Option<f64>, fmt: fn(f64) -> String) -> String {
    spread(rows.iter().filter_map(|r| f(r)).collect(), fmt)
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn markdown(plan: &Plan, result: &BenchResult) -> String {
    let mut s = String::from("# wayfarer bench\n\n");
    let seeds: Vec<String> = plan.seeds.iter().map(u64::to_string).collect();
    let _ = writeln!(
        s,
        "`{}`\n\nBudget {} per run · shrink {} · seeds {} · strategies {} · peers {} · {} CPU(s) · wayfarer {}\n",
        md_escape(&plan.command),
        plan.budget,
        plan.shrink,
        seeds.join(", "),
        plan.strategies.join(", "),
        if plan.peers.is_empty() { "none".to_string() } else { plan.peers.join(", ") },
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        env!("CARGO_PKG_VERSION"),
    );
    if !plan.app_latency.is_zero() {
        let _ = writeln!(
            s,
            "Bundled applications waited {} ms before every response (`--app-latency-ms`).\n",
            plan.app_latency.as_millis()
        );
    }
    s.push_str(
        "Each cell is the median over the seeds, with the range in brackets when the runs \
         differ. A peer gets the same budget: as many actions, and never more time than the \
         strategies took on the same application and seed (a minute when none spent its \
         budget). Columns: see `bench.csv` and the book (docs/src/bench.md).\n",
    );
    reach(&mut s, plan, result);
    server_reach(&mut s, plan, result);
    for target in &plan.targets {
        section(&mut s, plan, target, result);
    }
    if !result.skipped.is_empty() {
        s.push_str("\n## Skipped runs\n\n");
        for why in &result.skipped {
            let _ = writeln!(s, "- {}", md_escape(why));
        }
    }
    s
}

fn kb(v: f64) -> String {
    format!("{:.1} kB", v / 1000.0)
}

fn points(v: f64) -> String {
    format!("{:+.1}", v * 100.0)
}

/// What each tool reached on each application, in the units that compare across tools:
/// the application's JavaScript covered (bytes, and what exploration added to the first
/// load), distinct URLs, states, unique failures and speed.
fn reach(s: &mut String, plan: &Plan, result: &BenchResult) {
    s.push_str(
        "\n## Reach\n\nPer application and tool: the application's JavaScript covered at \
         the end (bytes), what exploration added over the first page load (bytes, and points \
         of the run's own denominator), distinct URLs, abstract states, unique failures and \
         actions per second. Medians over the runs, ranges in brackets.\n\n",
    );
    s.push_str("| application | tool | JS covered | gain over first load | gain (points) | URLs | states | unique failures | steps/s |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|\n");
    let labels = plan.strategy_labels();
    let names: Vec<&String> = labels.iter().chain(&plan.peers).collect();
    for target in &plan.targets {
        let app = target.name();
        for who in &names {
            let rows: Vec<&RunRow> = result.runs_of(&app, who).map(|o| &o.row).collect();
            if rows.is_empty() {
                continue;
            }
            let gain = |r: &RunRow| match (r.js_covered_bytes, r.js_first_load_bytes) {
                (Some(c), Some(f)) => Some(c as f64 - f as f64),
                _ => None,
            };
            let _ = writeln!(
                s,
                "| {} | {}{} | {} | {} | {} | {} | {} | {} | {} |",
                md_escape(&app),
                md_escape(who),
                if rows[0].kind == "peer" {
                    " (peer)"
                } else {
                    ""
                },
                col(&rows, |r| r.js_covered_bytes.map(|b| b as f64), kb),
                col(&rows, gain, kb),
                col(
                    &rows,
                    |r| r
                        .js_coverage
                        .zip(r.js_coverage_first_load)
                        .map(|(c, f)| c - f),
                    points
                ),
                col(&rows, |r| Some(r.urls as f64), int),
                col(&rows, |r| Some(r.states as f64), int),
                col(&rows, |r| Some(r.failures as f64), int),
                col(&rows, |r| Some(r.steps_per_second), one),
            );
        }
    }
}

/// The server's own code each tool made it run, where the bench read it: the same
/// yardstick for every tool, measured at the server.
fn server_reach(s: &mut String, plan: &Plan, result: &BenchResult) {
    if !result
        .runs
        .iter()
        .any(|(_, o)| o.row.server_lines.is_some())
    {
        return;
    }
    s.push_str(
        "\n## Server reach\n\nPer application and tool: lines of the server's own code run \
         at the end, what exploration added over the first page load, the share of the lines \
         of the files it loaded, and the mean time of one reading. Medians over the runs, \
         ranges in brackets.\n\n",
    );
    s.push_str("| application | tool | server lines | gain over first load | of loaded lines | reading ms |\n");
    s.push_str("|---|---|---|---|---|---|\n");
    let labels = plan.strategy_labels();
    let names: Vec<&String> = labels.iter().chain(&plan.peers).collect();
    for target in &plan.targets {
        let app = target.name();
        for who in &names {
            let rows: Vec<&RunRow> = result
                .runs_of(&app, who)
                .map(|o| &o.row)
                .filter(|r| r.server_lines.is_some())
                .collect();
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(
                s,
                "| {} ({}) | {}{} | {} | {} | {} | {} |",
                md_escape(&app),
                md_escape(&rows[0].server_stack),
                md_escape(who),
                if rows[0].kind == "peer" {
                    " (peer)"
                } else {
                    ""
                },
                col(&rows, |r| r.server_lines.map(|v| v as f64), int),
                col(
                    &rows,
                    |r| r
                        .server_lines
                        .zip(r.server_first_lines)
                        .map(|(c, f)| c as f64 - f as f64),
                    int
                ),
                col(
                    &rows,
                    |r| r
                        .server_lines
                        .zip(r.server_lines_total)
                        .filter(|(_, t)| *t > 0)
                        .map(|(c, t)| c as f64 / t as f64),
                    pct
                ),
                col(&rows, |r| r.server_read_ms, one),
            );
        }
    }
}

fn section(s: &mut String, plan: &Plan, target: &Target, result: &BenchResult) {
    let name = target.name();
    let _ = writeln!(s, "\n## {}\n", md_escape(&name));
    let known = target.truth();
    if let Some(t) = known.truth {
        let _ = writeln!(
            s,
            "Ground truth: {} screens, {} action ids, {} features, {} seeded bugs.\n",
            t.states.len(),
            t.actions.len(),
            known.grammar.as_ref().map_or(0, |g| g.len()),
            known.bugs.len()
        );
    }
    s.push_str("| strategy | steps | states | URLs | actions | screens | action ids | JS coverage | JS first load | failures | seeded bugs | features | forms accepted | steps/s | step ms | scan / act / wait / coverage / decide ms | train ms/episode | other |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let labels = plan.strategy_labels();
    let names: Vec<&String> = labels.iter().chain(&plan.peers).collect();
    for who in &names {
        let rows: Vec<&RunRow> = result.runs_of(&name, who).map(|o| &o.row).collect();
        if rows.is_empty() {
            continue;
        }
        let (parts, train, other) = if rows[0].kind == "peer" {
            ("–".to_string(), "–".to_string(), "–".to_string())
        } else {
            (
                format!(
                    "{} / {} / {} / {} / {}",
                    col(&rows, |r| r.scan_ms, one),
                    col(&rows, |r| r.act_ms, one),
                    col(&rows, |r| r.wait_ms, one),
                    col(&rows, |r| r.coverage_ms, one),
                    col(&rows, |r| r.decide_ms, one)
                ),
                col(&rows, |r| r.train_ms, int),
                col(&rows, |r| r.other_share, pct),
            )
        };
        let _ = writeln!(
            s,
            "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            md_escape(who),
            if rows[0].kind == "peer" {
                " (peer)"
            } else {
                ""
            },
            col(&rows, |r| Some(r.steps as f64), int),
            col(&rows, |r| Some(r.states as f64), int),
            col(&rows, |r| Some(r.urls as f64), int),
            col(&rows, |r| r.actions.map(|v| v as f64), int),
            col(&rows, |r| r.screens.map(|v| v as f64), int),
            col(&rows, |r| r.action_ids.map(|v| v as f64), int),
            col(&rows, |r| r.js_coverage, pct),
            col(&rows, |r| r.js_coverage_first_load, pct),
            col(&rows, |r| Some(r.failures as f64), int),
            col(&rows, |r| r.seeded_bugs.map(|v| v as f64), int),
            col(&rows, |r| r.feature_coverage, pct),
            col(&rows, |r| r.form_acceptance, pct),
            col(&rows, |r| Some(r.steps_per_second), one),
            col(&rows, |r| r.step_ms, one),
            parts,
            train,
            other,
        );
    }
    let stopped: Vec<&RunRow> = result
        .runs
        .iter()
        .filter(|(t, o)| t.name() == name && !o.row.stopped_early.is_empty())
        .map(|(_, o)| &o.row)
        .collect();
    if !stopped.is_empty() {
        s.push('\n');
        for r in stopped {
            let _ = writeln!(
                s,
                "- {} seed {} stopped after {} steps: {}",
                md_escape(&r.strategy),
                r.seed,
                r.steps,
                md_escape(&r.stopped_early)
            );
        }
    }
    login_lines(s, &name, result);
    if plan.inferences.iter().any(Option::is_some) {
        inference_table(s, plan, &name, result);
    }
    if plan.workers.iter().any(|&w| w != 1) {
        workers_table(s, plan, &name, result);
    }
    llm_table(s, plan, &name, result);
    tests_table(s, plan, &name, result);
    traces_table(s, plan, &name, !known.bugs.is_empty(), result);
    if known.bugs.is_empty() {
        return;
    }
    s.push_str("\nSeeded bugs: found in k of n runs (median step of the first sighting).\n\n");
    let _ = write!(s, "| bug | needs |");
    for who in &names {
        let _ = write!(s, " {} |", md_escape(who));
    }
    s.push_str("\n|---|---|");
    s.push_str(&"---|".repeat(names.len()));
    s.push('\n');
    for bug in known.bugs {
        let _ = write!(s, "| {} | {} |", bug.id, bug.min_actions);
        for who in &names {
            let rows: Vec<&RunRow> = result.runs_of(&name, who).map(|o| &o.row).collect();
            let steps: Vec<f64> = rows
                .iter()
                .filter_map(|r| {
                    r.seeded_found.split(';').find_map(|e| {
                        let (id, step) = e.split_once('@')?;
                        (id == bug.id).then(|| step.parse::<f64>().ok())?
                    })
                })
                .collect();
            if steps.is_empty() {
                let _ = write!(s, " 0/{} |", rows.len());
            } else {
                let _ = write!(
                    s,
                    " {}/{} ({}) |",
                    steps.len(),
                    rows.len(),
                    spread(steps, int)
                );
            }
        }
        s.push('\n');
    }
}

/// The traces each strategy run hands the user: per run, the longest reported trace of a
/// seeded bug against the fewest actions it needs (the longest of any failure on an
/// application without seeded bugs), the worst excess, and the shares of its unique
/// failures shrunk and confirmed; then a line per strategy over its runs.
/// Whether each peer run got past the application's login: the URLs it saw behind it and
/// how often it lost its login.
fn login_lines(s: &mut String, name: &str, result: &BenchResult) {
    let peers: Vec<&RunRow> = result
        .runs
        .iter()
        .filter(|(t, o)| t.name() == name && o.row.behind_login.is_some())
        .map(|(_, o)| &o.row)
        .collect();
    if peers.is_empty() {
        return;
    }
    s.push_str("\nPeers and the login (URLs seen while logged in; times the login was lost):\n\n");
    for r in peers {
        let behind = r.behind_login.unwrap_or(0);
        let past = if behind == 0 {
            "never got past the login".to_string()
        } else {
            format!("{behind} URLs behind the login")
        };
        let _ = writeln!(
            s,
            "- {} seed {}: {past}, logged out {} times",
            md_escape(&r.strategy),
            r.seed,
            r.logged_out.unwrap_or(0)
        );
    }
}

fn traces_table(s: &mut String, plan: &Plan, name: &str, seeded: bool, result: &BenchResult) {
    let rows = strategy_rows(plan, name, result, |r| r.failures_shrunk.is_some());
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\nReported traces (shrink {}): the longest trace a run reports {}, the shares of its \
         unique failures shrunk by replay and confirmed by every confirming replay, and a line \
         per strategy over its runs (the longest and worst of them, the shares of all their \
         failures).\n",
        plan.shrink,
        if seeded {
            "for a failure that matches a seeded bug (its minimal trace when shrinking \
             shortened it, else the recorded one) against the fewest actions that bug needs, \
             the worst excess over the fewest of any"
        } else {
            "for a failure (its minimal trace when shrinking shortened it, else the recorded \
             one)"
        },
    );
    if seeded {
        s.push_str(
            "| strategy | seed | failures | longest/fewest | worst excess | shrunk | confirmed |\n",
        );
        s.push_str("|---|---|---|---|---|---|---|\n");
    } else {
        s.push_str("| strategy | seed | failures | longest | shrunk | confirmed |\n");
        s.push_str("|---|---|---|---|---|---|\n");
    }
    let share = |n: usize, of: usize| {
        if of == 0 {
            "–".to_string()
        } else {
            format!("{} ({n}/{of})", pct(n as f64 / of as f64))
        }
    };
    let excess = |e: Option<i64>| e.map_or_else(|| "–".to_string(), |e| format!("{e:+}"));
    let longest = |l: Option<usize>, f: Option<u32>| {
        Some(crate::minimal::longest_text(l, f))
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "–".into())
    };
    for (who, rows) in rows {
        let mut cells = |who: String, seed: String, rs: &[&RunRow]| {
            let failures: usize = rs.iter().map(|r| r.failures).sum();
            let shrunk = rs.iter().filter_map(|r| r.failures_shrunk).sum();
            let confirmed = rs.iter().filter_map(|r| r.failures_confirmed).sum();
            // The longest of the runs (the larger excess first on a tie).
            let top = rs
                .iter()
                .filter_map(|r| Some((r.longest_trace?, r.fewest_actions)))
                .max_by_key(|&(l, f)| (l, f.map(|f| -i64::from(f))));
            let worst = rs.iter().filter_map(|r| r.trace_excess).max();
            let mut line = vec![
                who,
                seed,
                failures.to_string(),
                longest(top.map(|t| t.0), top.and_then(|t| t.1)),
            ];
            if seeded {
                line.push(excess(worst));
            }
            line.push(share(shrunk, failures));
            line.push(share(confirmed, failures));
            let _ = writeln!(s, "| {} |", line.join(" | "));
        };
        for r in &rows {
            cells(md_escape(&who), r.seed.to_string(), std::slice::from_ref(r));
        }
        cells(
            format!("**{}**", md_escape(&who)),
            format!("all {}", rows.len()),
            &rows,
        );
    }
}

/// Tests from each strategy's runs, scored as E2EBench scores them: every trace taken
/// as a test (the paper's Crawljax baseline) and, with `--feature-tests`, the tests
/// `wayfarer features` keeps.
fn tests_table(s: &mut String, plan: &Plan, name: &str, result: &BenchResult) {
    let rows = strategy_rows(plan, name, result, |r| r.trace_precision.is_some());
    if rows.is_empty() {
        return;
    }
    s.push_str(
        "\nTests (median over seeds): feature coverage is the share of the grammar's features \
some test covers, precision the share of tests that cover one.\n\n",
    );
    s.push_str("| strategy | traces as tests: coverage | precision | feature tests | coverage | precision |\n");
    s.push_str("|---|---|---|---|---|---|\n");
    for (who, rows) in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            md_escape(&who),
            col(&rows, |r| r.feature_coverage, pct),
            col(&rows, |r| r.trace_precision, two),
            col(&rows, |r| r.suite_tests.map(|v| v as f64), int),
            col(&rows, |r| r.suite_coverage, pct),
            col(&rows, |r| r.suite_precision, two),
        );
    }
}

/// Each strategy's rows on the target `name`, for the strategies with a row `keep` takes.
fn strategy_rows<'a>(
    plan: &Plan,
    name: &str,
    result: &'a BenchResult,
    keep: impl Fn(&RunRow) -> bool,
) -> Vec<(String, Vec<&'a RunRow>)> {
    plan.strategy_labels()
        .into_iter()
        .map(|who| {
            let rows: Vec<&RunRow> = result.runs_of(name, &who).map(|o| &o.row).collect();
            (who, rows)
        })
        .filter(|(_, rows)| rows.iter().any(|r| keep(r)))
        .collect()
}

/// How the strategies that ask a language model used it, when any did.
fn llm_table(s: &mut String, plan: &Plan, name: &str, result: &BenchResult) {
    let asking = strategy_rows(plan, name, result, |r| !r.llm_provider.is_empty());
    if asking.is_empty() {
        return;
    }
    s.push_str(
        "\nLanguage model (median over seeds): questions, and who answered them; submissions \
with values meant to be valid and the share accepted (`+mutate`'s deliberate ones apart).\n\n",
    );
    s.push_str("| strategy | provider | questions | model calls | cache hits | heuristic | failed | malformed | latency ms | tokens | submissions | accepted | deliberate |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (who, rows) in asking {
        let n = |f: fn(&RunRow) -> Option<u64>| col(&rows, move |r| f(r).map(|v| v as f64), int);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            md_escape(&who),
            md_escape(&rows[0].llm_provider),
            n(|r| r.llm_questions),
            n(|r| r.llm_calls),
            n(|r| r.llm_cache_hits),
            n(|r| r.llm_heuristic),
            n(|r| r.llm_failed),
            col(&rows, |r| r.llm_malformed_share, pct),
            col(&rows, |r| r.llm_latency_ms, one),
            n(|r| r.llm_tokens),
            n(|r| r.form_submissions),
            col(&rows, |r| r.form_acceptance, pct),
            n(|r| r.form_deliberate),
        );
    }
}

/// What state inference saved and changed, per strategy and configuration.
fn inference_table(s: &mut String, plan: &Plan, name: &str, result: &BenchResult) {
    s.push_str(
        "\nState inference: scan+analysis is the mean per-step time in scan, state analysis \
         and validation of guesses; the cut and the deviation (share of steps whose action \
         differs) compare each run with the run without inference of the same strategy and \
         seed.\n\n",
    );
    s.push_str("| strategy | inference | step ms | scan+analysis ms | cut | scans avoided | deviation | states | JS coverage |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for strategy in &plan.strategies {
        for i in &plan.inferences {
            // Inference runs with one worker.
            let who = crate::plan::label(strategy, *i, 1);
            let rows: Vec<&RunRow> = result.runs_of(name, &who).map(|o| &o.row).collect();
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                md_escape(strategy),
                i.map_or_else(|| "off".to_string(), |c| c.to_string()),
                col(&rows, |r| r.step_ms, one),
                col(&rows, |r| r.scan_analysis_ms, two),
                col(&rows, |r| r.scan_analysis_cut, pct),
                col(&rows, |r| r.scans_avoided, pct),
                col(&rows, |r| r.deviation, pct),
                col(&rows, |r| Some(r.states as f64), int),
                col(&rows, |r| r.js_coverage, pct),
            );
        }
    }
}

/// What more workers bought, per strategy: the run's numbers per wall-minute (the
/// budget's minutes, as the runs took them), and their median as a multiple of the same
/// strategy's one-worker runs.
fn workers_table(s: &mut String, plan: &Plan, name: &str, result: &BenchResult) {
    s.push_str(
        "\nWorkers: steps, states, URLs and JS coverage per wall-minute (medians over the \
         seeds), and each as a multiple of the same strategy with one worker. Coverage is a \
         share of the application's code: it saturates, so its multiple stays near 1 once one \
         browser covers what the application offers.\n\n",
    );
    s.push_str("| strategy | workers | steps/min | states/min | URLs/min | JS coverage/min | steps × | states × | URLs × | JS coverage × |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    type Metric = fn(&RunRow) -> Option<f64>;
    let metrics: [Metric; 4] = [
        |r| Some(r.steps as f64),
        |r| Some(r.states as f64),
        |r| Some(r.urls as f64),
        |r| r.js_coverage,
    ];
    let per_minute = |rows: &[&RunRow], f: Metric| -> Vec<f64> {
        rows.iter()
            .filter(|r| r.duration_s > 0.0)
            .filter_map(|r| f(r).map(|v| v * 60.0 / r.duration_s))
            .collect()
    };
    for strategy in &plan.strategies {
        let base: Vec<&RunRow> = result
            .runs_of(name, &crate::plan::label(strategy, None, 1))
            .map(|o| &o.row)
            .collect();
        for &w in &plan.workers {
            let who = crate::plan::label(strategy, None, w);
            let rows: Vec<&RunRow> = result.runs_of(name, &who).map(|o| &o.row).collect();
            if rows.is_empty() {
                continue;
            }
            let mut cells = vec![md_escape(strategy), crate::plan::workers_name(w)];
            for (i, f) in metrics.iter().enumerate() {
                let fmt = if i == 3 { pct } else { one };
                cells.push(spread(per_minute(&rows, *f), fmt));
            }
            for f in metrics {
                let ratio = match (median(per_minute(&rows, f)), median(per_minute(&base, f))) {
                    (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
                    _ => "–".into(),
                };
                cells.push(ratio);
            }
            let _ = writeln!(s, "| {} |", cells.join(" | "));
        }
    }
}

/// The median of `v`; `None` when it is empty.
pub(crate) fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn two(v: f64) -> String {
    format!("{v:.2}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_it() {
        let r = RunRow {
            app: "http://x/?a=1,2".into(),
            stopped_early: "said \"no\"".into(),
            ..RunRow::default()
        };
        let text = csv(&[&r]);
        let mut lines = text.lines();
        assert!(lines.next().unwrap().starts_with("app,strategy,kind,seed"));
        let row = lines.next().unwrap();
        assert!(row.starts_with("\"http://x/?a=1,2\","));
        assert!(row.contains(",\"said \"\"no\"\"\","), "{row}");
    }

    #[test]
    fn the_workers_table_gives_each_metric_per_minute_and_its_multiple_of_one_worker() {
        let plan = Plan::for_tests("random", vec![1, 3]);
        let row = |workers, steps, states, duration_s| RunRow {
            app: "clinic".into(),
            strategy: "random".into(),
            kind: "strategy".into(),
            inference: "off".into(),
            workers,
            steps,
            states,
            urls: 4,
            js_coverage: Some(0.5),
            duration_s,
            ..RunRow::default()
        };
        let outcome = |r| {
            (
                crate::plan::Target::Url("http://clinic/".parse().unwrap()),
                crate::execute::RunOutcome {
                    row: r,
                    series: vec![],
                    actions: vec![],
                    failures: vec![],
                    dir: None,
                    scripts: vec![],
                },
            )
        };
        let result = BenchResult {
            runs: vec![
                outcome(row(1, 120, 10, 120.0)),
                outcome(row(3, 300, 25, 120.0)),
            ],
            ..Default::default()
        };
        let mut s = String::new();
        let name = result.runs[0].0.name();
        workers_table(&mut s, &plan, &name, &result);
        let lines: Vec<&str> = s.lines().filter(|l| l.starts_with("| random")).collect();
        assert_eq!(
            lines,
            [
                "| random | 1 | 60.0 | 5.0 | 2.0 | 25.0% | 1.00 | 1.00 | 1.00 | 1.00 |",
                "| random | 3 | 150.0 | 12.5 | 2.0 | 25.0% | 2.50 | 2.50 | 1.00 | 1.00 |",
            ]
        );
    }

    #[test]
    fn each_peer_run_says_whether_it_got_past_the_login() {
        let row = |strategy: &str, seed, behind, logged_out| RunRow {
            app: "roundup".into(),
            strategy: strategy.into(),
            kind: "peer".into(),
            seed,
            behind_login: behind,
            logged_out,
            ..RunRow::default()
        };
        let outcome = |r| {
            (
                crate::plan::Target::Url("http://roundup/".parse().unwrap()),
                crate::execute::RunOutcome {
                    row: r,
                    series: vec![],
                    actions: vec![],
                    failures: vec![],
                    dir: None,
                    scripts: vec![],
                },
            )
        };
        let result = BenchResult {
            runs: vec![
                outcome(row("bombadil", 1, Some(12), Some(3))),
                outcome(row("bombadil@0.4.5", 1, Some(0), Some(0))),
                outcome(row("random", 1, None, Some(0))),
            ],
            ..Default::default()
        };
        let mut s = String::new();
        let name = result.runs[0].0.name();
        login_lines(&mut s, &name, &result);
        let lines: Vec<&str> = s.lines().filter(|l| l.starts_with("- ")).collect();
        assert_eq!(
            lines,
            [
                "- bombadil seed 1: 12 URLs behind the login, logged out 3 times",
                "- bombadil@0.4.5 seed 1: never got past the login, logged out 0 times",
            ]
        );
    }

    /// A run that hands its user an 89-action trace of a 4-action seeded bug shows, in
    /// bench.csv and bench.md, next to one that was shrunk to 4.
    #[test]
    fn reported_traces_are_set_against_the_fewest_actions_in_the_csv_and_the_table() {
        use wayfarer_core::findings::Shrunk;
        use wayfarer_core::summary::FailureLine;
        use wayfarer_core::RunSummary;

        let expense = Target::Bundled(wayfarer_testapps::App::Expense);
        let url = Target::Url("http://127.0.0.1:9/".parse().unwrap());
        let mut plan = Plan::for_tests("random", vec![1]);
        plan.targets = vec![expense.clone(), url.clone()];
        // expense-long-description: a RangeError after 4 actions at the fewest.
        let long_description = |trace_len, shrunk| FailureLine {
            kind: "exception".into(),
            signature: "exception|RangeError".into(),
            message: "RangeError: Invalid count value: -1".into(),
            step: 89,
            count: 1,
            trace_len,
            shrunk,
            ..FailureLine::default()
        };
        let noise = FailureLine {
            kind: "console_error".into(),
            signature: "console_error|noise".into(),
            message: "noise".into(),
            trace_len: 120,
            ..FailureLine::default()
        };
        let to_four = Shrunk {
            kept: vec![3, 40, 77, 88],
            of: 89,
            finished: true,
            hits: 3,
            runs: 3,
            ..Shrunk::default()
        };
        let run = |target: &Target, seed, failures| {
            let summary = RunSummary {
                strategy: "random".into(),
                seed,
                failures,
                ..RunSummary::default()
            };
            let row = crate::execute::strategy_row(
                &plan,
                target,
                &summary,
                &crate::collect::Collector::default(),
            );
            (
                target.clone(),
                crate::execute::RunOutcome {
                    row,
                    series: vec![],
                    actions: vec![],
                    failures: vec![],
                    dir: None,
                    scripts: vec![],
                },
            )
        };
        let result = BenchResult {
            runs: vec![
                run(
                    &expense,
                    1,
                    vec![long_description(89, Some(to_four.clone()))],
                ),
                run(&expense, 2, vec![long_description(89, None), noise.clone()]),
                run(
                    &url,
                    1,
                    vec![noise.clone(), long_description(89, Some(to_four))],
                ),
            ],
            ..Default::default()
        };

        let rows: Vec<&RunRow> = result.runs.iter().map(|(_, o)| &o.row).collect();
        let text = csv(&rows);
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let cells: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        let pick = |row: &[&str]| {
            [
                "shrink",
                "failures",
                "longest_trace",
                "fewest_actions",
                "trace_excess",
                "shrunk_share",
                "confirmed_share",
            ]
            .map(|c| row[at(c)].to_string())
        };
        assert_eq!(
            pick(&cells[0]),
            ["20%", "1", "4", "4", "0", "1.0000", "1.0000"]
        );
        assert_eq!(
            pick(&cells[1]),
            ["20%", "2", "89", "4", "85", "0.0000", "0.0000"]
        );
        // No seeded bugs: the longest reported trace of any failure, alone.
        assert_eq!(
            pick(&cells[2]),
            ["20%", "2", "120", "", "", "0.5000", "0.5000"]
        );

        let md = markdown(&plan, &result);
        assert!(
            md.contains("Budget 10 actions per run · shrink 20% ·"),
            "{md}"
        );
        let table = |from: &str| -> Vec<String> {
            md[md.find(from).unwrap()..]
                .lines()
                .skip_while(|l| !l.starts_with("Reported traces (shrink 20%)"))
                .skip(2)
                .take_while(|l| l.starts_with('|'))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(
            table("## expense"),
            [
                "| strategy | seed | failures | longest/fewest | worst excess | shrunk | confirmed |",
                "|---|---|---|---|---|---|---|",
                "| random | 1 | 1 | 4/4 | +0 | 100.0% (1/1) | 100.0% (1/1) |",
                "| random | 2 | 2 | 89/4 | +85 | 0.0% (0/2) | 0.0% (0/2) |",
                "| **random** | all 2 | 3 | 89/4 | +85 | 33.3% (1/3) | 33.3% (1/3) |",
            ]
        );
        assert_eq!(
            table("## http://127.0.0.1:9/"),
            [
                "| strategy | seed | failures | longest | shrunk | confirmed |",
                "|---|---|---|---|---|---|",
                "| random | 1 | 2 | 120 | 50.0% (1/2) | 50.0% (1/2) |",
                "| **random** | all 1 | 2 | 120 | 50.0% (1/2) | 50.0% (1/2) |",
            ]
        );
    }

    #[test]
    fn spreads() {
        assert_eq!(spread(vec![3.0, 1.0, 2.0], int), "2 [1–3]");
        assert_eq!(spread(vec![2.0, 2.0], int), "2");
        assert_eq!(spread(vec![], int), "–");
        assert_eq!(spread(vec![0.5, 0.25], pct), "37.5% [25.0%–50.0%]");
    }
}
