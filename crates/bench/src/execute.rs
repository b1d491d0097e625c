//! One strategy run: serve the target if bundled, then explore it as `wayfarer explore`
//! does (wayfarer-run puts the run together: an apps file's application is started by its
//! `[server]`), with the bench's collector beside the run store, and turn what they saw
//! into a row of the table.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use wayfarer_core::infer::InferenceConfig;
use wayfarer_core::secrets::Secrets;
use wayfarer_core::summary::FailureLine;
use wayfarer_core::{Observer, RunSummary};
use wayfarer_run::{Application, Notice, Settings, Workers};
use wayfarer_testapps::{ServeOptions, Server};

use crate::collect::Collector;
use crate::metrics::RunRow;
use crate::plan::{Known, Plan, Target};
use crate::series::SeriesPoint;
use crate::BenchError;

/// A finished run: its row and its curve.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub row: RunRow,
    pub series: Vec<SeriesPoint>,
    /// The strategy's actions in order (empty for a peer).
    pub actions: Vec<wayfarer_core::Action>,
    /// Its unique failures, for the bench's list of every failure found.
    pub failures: Vec<FailureLine>,
    /// Where the run left its store (a strategy) or its files (a peer).
    pub dir: Option<std::path::PathBuf>,
    /// Its JS coverage script by script (empty without coverage).
    pub scripts: Vec<wayfarer_core::ScriptReach>,
}

/// A target ready to be explored: its URL, and what serves it (a bundled server, an
/// application started for the run) for as long as this lives.
pub(crate) struct Served {
    pub url: url::Url,
    _server: Option<Server>,
    app: Option<Application>,
}

impl Served {
    /// The application started for this run, when one was.
    pub fn app(&self) -> Option<&Application> {
        self.app.as_ref()
    }
}

/// Where the bench's runs say what they do: progress in the log, warnings too.
pub(crate) fn notices(n: Notice) {
    match n {
        Notice::Info(line) => tracing::info!("{line}"),
        Notice::Warning(line) => tracing::warn!("{line}"),
    }
}

/// Serve `target` for a peer run: a bundled app in process, an apps file's application
/// started (unless `shared` already runs it), its output in `dir/server.log`.
pub(crate) fn serve(
    plan: &Plan,
    target: &Target,
    dir: &Path,
    shared: Option<&Application>,
) -> Result<Served, BenchError> {
    match target {
        Target::Url(u) => Ok(Served {
            url: u.clone(),
            _server: None,
            app: None,
        }),
        Target::Bundled(app) => {
            let server = serve_bundled(plan, *app)?;
            let url = url::Url::parse(&server.url()).expect("a server URL parses");
            Ok(Served {
                url,
                _server: Some(server),
                app: None,
            })
        }
        Target::Served(spec) => {
            if let Some(app) = shared {
                return Ok(Served {
                    url: app.start_url().clone(),
                    _server: None,
                    app: None,
                });
            }
            let app = start_app(spec, dir)?;
            Ok(Served {
                url: app.start_url().clone(),
                _server: None,
                app: Some(app),
            })
        }
    }
}

/// Start an apps file's application, its output in `dir/server.log`.
pub(crate) fn start_app(
    spec: &crate::apps::AppSpec,
    dir: &Path,
) -> Result<Application, BenchError> {
    std::fs::create_dir_all(dir).map_err(|e| BenchError::Write(dir.to_path_buf(), e))?;
    Application::prepare(
        &spec.config,
        spec.path.as_deref(),
        &dir.join("server.log"),
        false,
        &mut notices,
    )
    .map_err(|e| BenchError::App(spec.name.clone(), e.to_string()))
}

fn serve_bundled(plan: &Plan, app: wayfarer_testapps::App) -> Result<Server, BenchError> {
    let options = ServeOptions {
        latency: plan.app_latency,
        ..ServeOptions::default()
    };
    Server::start(app, options).map_err(|e| BenchError::Serve(app.name().into(), e))
}

/// Run `strategy` with `seed` on `target`, recording into `dir/run.sqlite`; an apps
/// file's application is `shared` when the bench keeps one server for all its runs, else
/// started for this run.
#[allow(clippy::too_many_arguments)]
pub fn run_strategy(
    plan: &Plan,
    target: &Target,
    strategy: &str,
    inference: Option<InferenceConfig>,
    workers: u32,
    seed: u64,
    dir: &Path,
    shared: Option<&Application>,
) -> Result<RunOutcome, BenchError> {
    let mut _bundled = None;
    let (url, secrets) = match target {
        Target::Url(u) => (Some(u.to_string()), Secrets::default()),
        Target::Bundled(app) => {
            let server = serve_bundled(plan, *app)?;
            let url = server.url();
            _bundled = Some(server);
            (Some(url), Secrets::default())
        }
        Target::Served(spec) => (spec.path.clone(), spec.secrets.clone()),
    };
    let settings = Settings {
        url,
        strategy: Some(strategy.to_string()),
        budget: Some(plan.budget),
        seed: Some(seed),
        episode_steps: plan.episode_steps,
        inference,
        out: dir.to_path_buf(),
        workers: Some(match workers {
            crate::plan::AUTO => Workers::Auto,
            n => Workers::Count(n),
        }),
        chrome: plan
            .chrome
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        bundled: target.app().map(|a| (a.name().to_string(), true)),
        command: plan.command.clone(),
        stop: Arc::new(AtomicBool::new(false)),
        // As `wayfarer explore` by default (`--shrink`): the bench measures the traces a
        // user is handed, not only what exploring found.
        shrink: Some(plan.shrink),
        ..Settings::default()
    };
    let mut collector = Collector::default();
    let explored = {
        let mut observers: Vec<&mut (dyn Observer + Send)> = vec![&mut collector];
        wayfarer_run::explore(
            &settings,
            config_of(plan, target),
            secrets,
            shared,
            &mut observers,
            &mut notices,
        )
        .map_err(|e| BenchError::Run(e.to_string()))?
    };
    let summary = explored.summary;
    let row = strategy_row(plan, target, &summary, &collector);
    Ok(RunOutcome {
        row,
        series: collector.series,
        actions: collector.actions,
        scripts: summary.js_coverage.map(|c| c.scripts).unwrap_or_default(),
        failures: summary.failures,
        dir: Some(dir.to_path_buf()),
    })
}

/// The configuration of a strategy run: the target's, with the bench's `--shrink` in
/// `[budget] shrink` (the flag wins anyway), so that the run's store records what it was
/// made with and `--resume` keeps only runs made with the same.
pub(crate) fn config_of(plan: &Plan, target: &Target) -> wayfarer_core::Config {
    let mut c = plan.config_for(target);
    c.budget.shrink = Some(plan.shrink.to_string());
    c
}

/// The table row of a finished strategy run.
pub(crate) fn strategy_row(plan: &Plan, target: &Target, s: &RunSummary, c: &Collector) -> RunRow {
    let known = target.truth();
    let minimal = crate::minimal::measure(known.bugs, &s.failures);
    let ids = c.action_ids().len();
    let instrumented = !c.screens.is_empty() || ids > 0;
    let (feature_coverage, features_covered) = features(&known, &c.episode_logs);
    let trace_precision = precision(&known, &c.episode_logs);
    let t = &s.timings_ms;
    let found: Vec<(String, u64)> = seeded(&known, s);
    let (server_stack, server_lines, server_lines_total, server_first_lines, server_read_ms) =
        crate::metrics::server_columns(s.server_coverage.as_ref().map(|c| &c.totals));
    RunRow {
        app: target.name(),
        strategy: s.strategy.clone(),
        kind: "strategy".into(),
        inference: s
            .inference
            .as_ref()
            .map_or_else(|| "off".to_string(), |i| i.config.clone()),
        // What the plan asked for, so the row is found under its label (`guided · auto
        // workers`), not the three browsers auto starts; `browsers` is what it chose.
        workers: if s.auto_workers.is_some() {
            crate::plan::AUTO
        } else {
            s.workers.len().max(1) as u32
        },
        browsers: s.workers.iter().filter(|w| w.steps > 0).count().max(1) as u32,
        seed: s.seed,
        budget: plan.budget.to_string(),
        shrink: plan.shrink.to_string(),
        steps: s.steps,
        states: s.states,
        urls: s.urls,
        actions: Some(s.actions_discovered),
        action_ids: instrumented.then_some(ids),
        screens: instrumented.then_some(c.screens.len()),
        js_coverage: s.js_coverage.as_ref().map(|c| c.ratio),
        js_coverage_first_load: s.js_coverage.as_ref().map(|c| c.first_load_ratio),
        js_covered_bytes: s.js_coverage.as_ref().map(|c| c.covered_bytes),
        js_total_bytes: s.js_coverage.as_ref().map(|c| c.total_bytes),
        // The summary keeps the first load as a share of the same denominator.
        js_first_load_bytes: s
            .js_coverage
            .as_ref()
            .map(|c| (c.first_load_ratio * c.total_bytes as f64).round() as u64),
        server_stack,
        server_lines,
        server_lines_total,
        server_first_lines,
        server_read_ms,
        failures: s.failures.len(),
        seeded_bugs: target.app().map(|_| found.len()),
        seeded_found: found_text(&found),
        longest_trace: minimal.longest,
        fewest_actions: minimal.fewest,
        trace_excess: minimal.excess,
        failures_shrunk: Some(minimal.shrunk),
        failures_confirmed: Some(minimal.confirmed),
        feature_coverage,
        features_covered,
        trace_precision,
        suite_tests: None,
        suite_coverage: None,
        suite_precision: None,
        steps_per_second: s.steps_per_second,
        duration_s: s.duration_s,
        scan_ms: Some(t.scan),
        analysis_ms: Some(t.analysis),
        decide_ms: Some(t.decide),
        act_ms: Some(t.act),
        wait_ms: Some(t.wait),
        step_ms: Some(t.step),
        coverage_ms: Some(t.coverage),
        name_ms: Some(t.name),
        step_mean_ms: Some(s.time_split.step),
        train_ms: Some(train_per_episode(s)),
        other_share: Some(s.time_split.other_share()),
        resets_s: Some(s.resets_s),
        validate_ms: Some(t.validate),
        scan_analysis_ms: Some(if s.steps > 0 {
            c.scan_analysis.as_secs_f64() * 1e3 / s.steps as f64
        } else {
            0.0
        }),
        scan_analysis_cut: None,
        scans_avoided: Some(s.scans_avoided),
        deviation: None,
        restarts: s.restarts,
        step_errors: s.step_errors,
        stopped_early: s.stopped_early.clone().unwrap_or_default(),
        logged_out: Some(s.logged_out),
        behind_login: None,
        form_submissions: Some(s.form_acceptance.submissions),
        form_acceptance: s.form_acceptance.share(),
        form_deliberate: Some(s.form_acceptance.deliberate),
        llm_provider: s
            .llm
            .as_ref()
            .map(|u| u.provider.clone())
            .unwrap_or_default(),
        llm_questions: s.llm.as_ref().map(|u| u.questions),
        llm_calls: s.llm.as_ref().map(|u| u.calls),
        llm_cache_hits: s.llm.as_ref().map(|u| u.cache_hits),
        llm_heuristic: s.llm.as_ref().map(|u| u.heuristic),
        llm_failed: s.llm.as_ref().map(|u| u.failed),
        llm_malformed_share: s.llm.as_ref().map(|u| u.malformed_share()),
        llm_latency_ms: s.llm.as_ref().map(|u| u.latency_ms_median),
        llm_tokens: s
            .llm
            .as_ref()
            .map(|u| u.prompt_tokens + u.completion_tokens),
        llm_cost: s.llm.as_ref().map(|u| u.cost),
    }
}

/// Feature coverage of `logs` (one per trace) against the target's grammar.
pub(crate) fn features(known: &Known, logs: &[Vec<String>]) -> (Option<f64>, String) {
    match &known.grammar {
        Some(g) if !g.is_empty() => {
            let covered = g.covered_by_any(logs);
            (
                Some(covered.len() as f64 / g.len() as f64),
                covered.join(";"),
            )
        }
        _ => (None, String::new()),
    }
}

/// The share of `logs` (one per test) that cover some feature of the target's grammar.
pub(crate) fn precision(known: &Known, logs: &[Vec<String>]) -> Option<f64> {
    match &known.grammar {
        Some(g) if !g.is_empty() && !logs.is_empty() => {
            let precise = logs.iter().filter(|l| !g.covered(l).is_empty()).count();
            Some(precise as f64 / logs.len() as f64)
        }
        _ => None,
    }
}

/// Each seeded bug the run's failures match, with the step it was first seen at.
pub(crate) fn seeded(known: &Known, s: &RunSummary) -> Vec<(String, u64)> {
    known
        .bugs
        .iter()
        .filter_map(|b| {
            s.first_matching(|kind, message| b.matches(kind, message))
                .map(|f| (b.id.to_string(), f.step))
        })
        .collect()
}

pub(crate) fn found_text(found: &[(String, u64)]) -> String {
    found
        .iter()
        .map(|(id, step)| format!("{id}@{step}"))
        .collect::<Vec<_>>()
        .join(";")
}

/// Training time per trained episode: every episode but the last ends with a training.
fn train_per_episode(s: &wayfarer_core::RunSummary) -> f64 {
    let mean = s
        .time_split
        .parts
        .iter()
        .find(|(name, _)| name == "train")
        .map_or(0.0, |p| p.1);
    mean * s.steps as f64 / s.episodes.saturating_sub(1).max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::summary::WorkerLine;

    fn worker(worker: u32, steps: u64) -> WorkerLine {
        WorkerLine {
            worker,
            steps,
            ..WorkerLine::default()
        }
    }

    /// The tables look runs up by the plan's label: a run of `--workers auto` that took
    /// two of its three browsers was filed as "3 workers" and left out of every table.
    #[test]
    fn an_auto_run_is_filed_under_auto_with_the_browsers_it_chose() {
        let target = Target::Url("http://127.0.0.1:9/".parse().unwrap());
        let plan = Plan::for_tests("guided", vec![crate::plan::AUTO]);
        let summary = RunSummary {
            strategy: "guided".into(),
            workers: vec![worker(0, 300), worker(1, 280), worker(2, 0)],
            auto_workers: Some("2 of 3 browsers: one kept 48% of the machine's CPU busy".into()),
            ..RunSummary::default()
        };
        let row = strategy_row(&plan, &target, &summary, &Collector::default());
        assert_eq!(
            row.who(),
            crate::plan::label("guided", None, crate::plan::AUTO)
        );
        assert_eq!((row.workers, row.browsers), (crate::plan::AUTO, 2));
        let csv = row.values();
        assert_eq!(&csv[5..7], ["auto", "2"]);

        let fixed = RunSummary {
            strategy: "guided".into(),
            workers: vec![worker(0, 300), worker(1, 280), worker(2, 290)],
            ..RunSummary::default()
        };
        let row = strategy_row(&plan, &target, &fixed, &Collector::default());
        assert_eq!((row.workers, row.browsers), (3, 3));
        let one = RunSummary {
            strategy: "guided".into(),
            ..RunSummary::default()
        };
        let row = strategy_row(&plan, &target, &one, &Collector::default());
        assert_eq!((row.workers, row.browsers), (1, 1));
    }
}
