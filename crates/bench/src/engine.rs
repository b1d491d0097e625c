//! The benchmark loop: for each target and seed, every strategy, then every peer with
//! the same budget, one run after another; then the table and the plots.

use std::path::PathBuf;
use std::time::Duration;

use wayfarer_core::infer::deviation;
use wayfarer_core::summary::FailureLine;
use wayfarer_core::RunSummary;

use crate::execute::{
    features, found_text, precision, run_strategy, seeded, serve, start_app, RunOutcome,
};
use crate::metrics::RunRow;
use crate::peer::{self, PeerOptions, PeerResult};
use crate::plan::{label, Plan, Target};
use crate::{plot, table, BenchError};

/// Everything a benchmark produced.
#[derive(Debug, Default)]
pub struct BenchResult {
    pub runs: Vec<(Target, RunOutcome)>,
    /// Runs that could not be made, with why (the bench goes on without them).
    pub skipped: Vec<String>,
    /// The files written.
    pub written: Vec<PathBuf>,
}

impl BenchResult {
    /// The runs of one strategy or peer on the target called `target`.
    pub fn runs_of<'a>(
        &'a self,
        target: &str,
        who: &str,
    ) -> impl Iterator<Item = &'a RunOutcome> + 'a {
        let (target, who) = (target.to_string(), who.to_string());
        self.runs
            .iter()
            .filter(move |(t, o)| t.name() == target && o.row.who() == who)
            .map(|(_, o)| o)
    }
}

/// Turns a finished strategy run (its directory) into feature tests and replays them:
/// each kept test's action-id log, or why it could not (`--feature-tests`: the CLI's
/// `wayfarer features`; the bench scores the logs).
pub type SuiteFn<'a> = dyn FnMut(&std::path::Path) -> Result<Vec<Vec<String>>, String> + 'a;

/// Run the whole plan, telling `progress` one line per run; then write bench.md,
/// bench.csv and the plots into `plan.out`.
pub fn run_bench(plan: &Plan, progress: &mut dyn FnMut(&str)) -> Result<BenchResult, BenchError> {
    run_bench_with(plan, progress, None)
}

/// `run_bench`, each strategy run also turned into feature tests by `suite`.
pub fn run_bench_with(
    plan: &Plan,
    progress: &mut dyn FnMut(&str),
    mut suite: Option<&mut SuiteFn>,
) -> Result<BenchResult, BenchError> {
    std::fs::create_dir_all(&plan.out).map_err(|e| BenchError::Write(plan.out.clone(), e))?;
    let mut peers = Vec::new();
    for name in &plan.peers {
        let mut p = peer::by_name(name, plan.peer_cache.clone()).ok_or_else(|| {
            BenchError::Config(format!(
                "unknown peer {name:?}; available: {}",
                peer::NAMES.join(", ")
            ))
        })?;
        match p.ensure_installed() {
            Ok(line) => {
                progress(&line);
                peers.push(p);
            }
            Err(e) => return Err(BenchError::Peer(e)),
        }
    }
    let total = plan.runs();
    let mut result = BenchResult::default();
    let mut n = 0;
    for target in &plan.targets {
        // `restart = "never"`: one server for every run of this application.
        let shared = match target {
            Target::Served(spec)
                if spec.config.server.as_ref().map(|s| s.restart)
                    == Some(wayfarer_core::config::Restart::Never) =>
            {
                let dir = plan
                    .out
                    .join("runs")
                    .join(format!("{}-server", target.slug()));
                match start_app(spec, &dir) {
                    Ok(app) => Some(app),
                    Err(e) => {
                        let why = format!("{}: {e}", target.name());
                        progress(&format!("skipped every run of {why}"));
                        result.skipped.push(why);
                        continue;
                    }
                }
            }
            _ => None,
        };
        for &seed in &plan.seeds {
            let mut durations = Vec::new();
            for strategy in &plan.strategies {
                for &workers in &plan.workers {
                    let first = result.runs.len();
                    for &inference in &plan.inferences {
                        n += 1;
                        let who = label(strategy, inference, workers);
                        let mut suffix = inference.map(|i| format!("-{i}")).unwrap_or_default();
                        if workers != 1 {
                            suffix.push_str(&format!("-w{}", crate::plan::workers_name(workers)));
                        }
                        let dir = plan.out.join("runs").join(format!(
                            "{}-{}{suffix}-s{seed}",
                            target.slug(),
                            // webrled+ and webrled* as directory names without shell
                            // metacharacters.
                            strategy.replace('+', "_plus").replace('*', "_star")
                        ));
                        // The peer's time is that of the single-browser runs without inference.
                        let timed = inference.is_none() && workers == 1;
                        let kept = plan
                            .resume
                            .then(|| crate::resume::finished_run(plan, target, &dir))
                            .flatten();
                        let (run, verb) = match kept {
                            Some(out) => (Ok(out), "kept "),
                            None => (
                                run_strategy(
                                    plan,
                                    target,
                                    strategy,
                                    inference,
                                    workers,
                                    seed,
                                    &dir,
                                    shared.as_ref(),
                                ),
                                "",
                            ),
                        };
                        match run {
                            Ok(mut out) => {
                                if let Some(f) = suite.as_deref_mut() {
                                    score_suite(&mut out.row, target, &dir, f, progress);
                                }
                                progress(&format!("[{n}/{total}] {verb}{}", line(&out.row)));
                                // A run that gave up early says nothing about the time a
                                // budget takes.
                                if out.row.stopped_early.is_empty() && timed {
                                    durations.push(out.row.duration_s);
                                }
                                result.runs.push((target.clone(), out));
                            }
                            Err(e) => {
                                let why = format!("{} · {who} · seed {seed}: {e}", target.name());
                                progress(&format!("[{n}/{total}] skipped {why}"));
                                result.skipped.push(why);
                            }
                        }
                    }
                    compare_with_off(&mut result.runs[first..]);
                }
            }
            for p in &peers {
                n += 1;
                let dir =
                    plan.out
                        .join("runs")
                        .join(format!("{}-{}-s{seed}", target.slug(), p.name()));
                let kept = plan
                    .resume
                    .then(|| crate::resume::finished_peer(plan, &dir))
                    .flatten();
                let (run, verb) = match kept {
                    Some(out) => (Ok(out), "kept "),
                    None => (
                        run_one_peer(
                            plan,
                            target,
                            p.as_ref(),
                            seed,
                            &durations,
                            &dir,
                            shared.as_ref(),
                        ),
                        "",
                    ),
                };
                match run {
                    Ok(out) => {
                        progress(&format!("[{n}/{total}] {verb}{}", line(&out.row)));
                        result.runs.push((target.clone(), out));
                    }
                    Err(e) => {
                        let why = format!("{} · {} · seed {seed}: {e}", target.name(), p.name());
                        progress(&format!("[{n}/{total}] skipped {why}"));
                        result.skipped.push(why);
                    }
                }
            }
        }
    }
    result.written = table::write(plan, &result)?;
    result.written.extend(plot::write(plan, &result)?);
    result.written.push(crate::findings::write(plan, &result)?);
    result.written.push(crate::stops::write(plan, &result)?);
    result.written.push(crate::scripts::write(plan, &result)?);
    Ok(result)
}

/// The feature tests of the run in `dir`, scored against the target's grammar; a run
/// that yields none is said and left without the columns.
fn score_suite(
    row: &mut RunRow,
    target: &Target,
    dir: &std::path::Path,
    suite: &mut SuiteFn,
    progress: &mut dyn FnMut(&str),
) {
    let known = target.truth();
    match suite(dir) {
        Ok(logs) => {
            row.suite_tests = Some(logs.len());
            row.suite_coverage = features(&known, &logs).0;
            row.suite_precision = precision(&known, &logs);
        }
        Err(e) => progress(&format!("no feature tests from {}: {e}", dir.display())),
    }
}

/// Deviation and scan+analysis cut of the runs with inference against the run without
/// it (same target, seed and strategy), when the group has one.
fn compare_with_off(group: &mut [(Target, RunOutcome)]) {
    let Some(off) = group.iter().position(|(_, o)| o.row.inference == "off") else {
        return;
    };
    let base_actions = group[off].1.actions.clone();
    let base_sa = group[off].1.row.scan_analysis_ms;
    for (i, (_, o)) in group.iter_mut().enumerate() {
        if i == off {
            continue;
        }
        o.row.deviation = Some(deviation(&base_actions, &o.actions));
        o.row.scan_analysis_cut = match (base_sa, o.row.scan_analysis_ms) {
            (Some(b), Some(x)) if b > 0.0 => Some(1.0 - x / b),
            _ => None,
        };
    }
}

/// The progress line of a finished run.
fn line(r: &RunRow) -> String {
    let mut s = format!(
        "{} · {} · seed {}: {} steps in {:.1} s, {} states, {} failures",
        r.app,
        r.who(),
        r.seed,
        r.steps,
        r.duration_s,
        r.states,
        r.failures
    );
    if let Some(a) = r.scans_avoided.filter(|_| r.inference != "off") {
        s.push_str(&format!(", {:.0}% scans avoided", a * 100.0));
    }
    if let Some(c) = r.js_coverage {
        s.push_str(&format!(", {:.1}% JS", c * 100.0));
    }
    if let Some(b) = r.seeded_bugs {
        s.push_str(&format!(", {b} seeded"));
    }
    if r.longest_trace.is_some() {
        s.push_str(&format!(
            ", longest trace {}",
            crate::minimal::longest_text(r.longest_trace, r.fewest_actions)
        ));
    }
    if let Some(f) = r.feature_coverage {
        s.push_str(&format!(", {:.0}% features", f * 100.0));
    }
    if let (Some(n), Some(c)) = (r.suite_tests, r.suite_coverage) {
        s.push_str(&format!(", {n} feature tests cover {:.0}%", c * 100.0));
    }
    if !r.stopped_early.is_empty() {
        s.push_str(&format!(" (stopped early: {})", r.stopped_early));
    }
    s
}

/// The peer's wall-clock limit: the budget's time when it has one; otherwise (an action
/// budget) the median time the strategies took on this target and seed, so a peer never
/// gets more time than they had; a minute when no strategy spent its budget.
fn peer_duration(plan: &Plan, strategy_durations: &[f64]) -> Duration {
    if let Some(t) = plan.budget.time {
        return t;
    }
    let mut d = strategy_durations.to_vec();
    d.sort_by(|a, b| a.total_cmp(b));
    match d.get(d.len() / 2) {
        Some(&s) if s > 0.0 => Duration::from_secs_f64(s),
        _ => Duration::from_secs(60),
    }
}

fn run_one_peer(
    plan: &Plan,
    target: &Target,
    p: &dyn peer::Peer,
    seed: u64,
    strategy_durations: &[f64],
    dir: &std::path::Path,
    shared: Option<&wayfarer_run::Application>,
) -> Result<RunOutcome, BenchError> {
    let served = serve(plan, target, dir, shared)?;
    let config = plan.config_for(target);
    let opts = PeerOptions {
        start_url: served.url.clone(),
        chrome: plan.chrome.clone(),
        seed,
        duration: peer_duration(plan, strategy_durations),
        max_steps: plan.budget.actions,
        sample_every: Duration::from_millis(200),
        oracles: config.oracles.clone(),
        log_dir: Some(dir.to_path_buf()),
        login: config.login.clone(),
        deny: config.deny.clone(),
        server: served
            .app()
            .or(shared)
            .and_then(|a| a.handle())
            .and_then(peer::ServerReader::new),
    };
    let res = peer::run_peer(p, &opts).map_err(BenchError::Peer)?;
    let out = RunOutcome {
        row: peer_row(plan, target, p.name(), seed, &res),
        series: res.series.clone(),
        actions: Vec::new(),
        failures: res.failures.iter().map(FailureLine::from).collect(),
        dir: Some(dir.to_path_buf()),
        scripts: res.scripts.clone(),
    };
    crate::resume::keep_peer(plan, dir, &out)?;
    Ok(out)
}

fn peer_row(plan: &Plan, target: &Target, name: &str, seed: u64, r: &PeerResult) -> RunRow {
    let known = target.truth();
    // Seeded bugs are matched as for strategies, on the same failure lines.
    let summary = RunSummary {
        failures: r.failures.iter().map(FailureLine::from).collect(),
        ..RunSummary::default()
    };
    let found = seeded(&known, &summary);
    let (feature_coverage, features_covered) =
        features(&known, std::slice::from_ref(&r.action_log));
    let trace_precision = precision(&known, std::slice::from_ref(&r.action_log));
    let instrumented = !r.screens.is_empty() || !r.action_log.is_empty();
    let secs = r.elapsed.as_secs_f64();
    let ids: std::collections::BTreeSet<&String> = r.action_log.iter().collect();
    let (server_stack, server_lines, server_lines_total, server_first_lines, server_read_ms) =
        crate::metrics::server_columns(r.server.as_ref());
    RunRow {
        app: target.name(),
        strategy: name.to_string(),
        kind: "peer".into(),
        workers: 1,
        browsers: 1,
        seed,
        budget: plan.budget.to_string(),
        steps: r.steps,
        states: r.states,
        urls: r.urls,
        actions: None,
        action_ids: instrumented.then_some(ids.len()),
        screens: instrumented.then_some(r.screens.len()),
        js_coverage: r.coverage.map(|c| c.ratio()),
        js_coverage_first_load: r.coverage.map(|c| c.first_load_ratio()),
        js_covered_bytes: r.coverage.map(|c| c.covered_bytes),
        js_total_bytes: r.coverage.map(|c| c.total_bytes),
        js_first_load_bytes: r.coverage.map(|c| c.first_load_covered_bytes),
        server_stack,
        server_lines,
        server_lines_total,
        server_first_lines,
        server_read_ms,
        failures: r.failures.len(),
        seeded_bugs: target.app().map(|_| found.len()),
        seeded_found: found_text(&found),
        feature_coverage,
        features_covered,
        trace_precision,
        steps_per_second: if secs > 0.0 {
            r.steps as f64 / secs
        } else {
            0.0
        },
        duration_s: secs,
        stopped_early: r.ended_early.clone().unwrap_or_default(),
        logged_out: r.behind_login.map(|_| r.logouts),
        behind_login: r.behind_login,
        ..RunRow::default()
    }
}
