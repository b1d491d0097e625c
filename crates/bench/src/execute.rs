//! One strategy run: serve the target if bundled, launch the browser, run the loop with
//! the run store and the bench's collector as observers, and turn what they saw into a
//! row of the table.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use wayfarer_browser::{BrowserEnv, BrowserOptions, CoveragePool};
use wayfarer_core::candidates::DenyText;
use wayfarer_core::infer::InferenceConfig;
use wayfarer_core::trace::Secrets;
use wayfarer_core::{run_workers, Environment, Observer, Oracles, RunOptions, RunSummary};
use wayfarer_store::{RunMeta, RunStart, StoreWriter};
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
}

/// A target ready to be explored: its URL, and the server when it is bundled.
pub(crate) struct Served {
    pub url: url::Url,
    _server: Option<Server>,
}

pub(crate) fn serve(plan: &Plan, target: &Target) -> Result<Served, BenchError> {
    match target {
        Target::Url(u) => Ok(Served {
            url: u.clone(),
            _server: None,
        }),
        Target::Bundled(app) => {
            let options = ServeOptions {
                latency: plan.app_latency,
                ..ServeOptions::default()
            };
            let server = Server::start(*app, options)
                .map_err(|e| BenchError::Serve(app.name().into(), e))?;
            let url = url::Url::parse(&server.url()).expect("a server URL parses");
            Ok(Served {
                url,
                _server: Some(server),
            })
        }
    }
}

/// Run `strategy` with `seed` on `target`, recording into `dir/run.sqlite`.
pub fn run_strategy(
    plan: &Plan,
    target: &Target,
    strategy: &str,
    inference: Option<InferenceConfig>,
    workers: u32,
    seed: u64,
    dir: &Path,
) -> Result<RunOutcome, BenchError> {
    let served = serve(plan, target)?;
    let url = served.url.clone();
    let config = plan.config_for(target);
    // Model answers are cached in this run's store (a rerun of the same run reuses them).
    let llm = wayfarer_llm::from_config(
        &config.llm,
        Box::new(wayfarer_store::StoreCache::at(dir)),
        Secrets::default(),
    )
    .map_err(|e| BenchError::Config(e.to_string()))?
    .map(|c| c.shared());
    let wayfarer_strategies::Setup {
        mut agent,
        mut abstraction,
        episode_steps,
        llm: usage,
        ..
    } = wayfarer_strategies::setup(strategy, &config, None, plan.episode_steps, llm)
        .map_err(|e| BenchError::Config(e.to_string()))?;
    let mut origins = vec![url.origin().ascii_serialization()];
    origins.extend(config.scope.allow_origins.iter().cloned());
    let oracles = Oracles::new(config.oracles.clone(), origins)
        .map_err(|e| BenchError::Config(e.to_string()))?;
    let opts = RunOptions {
        budget: plan.budget,
        episode_steps,
        seed,
        deny: DenyText::new(&config.deny),
        oracles,
        stop: Arc::new(AtomicBool::new(false)),
        target: url.to_string(),
        inference,
        llm: usage,
    };
    let meta = RunMeta::new(RunStart {
        url: url.as_str(),
        config: &config,
        strategy,
        seed,
        budget: plan.budget,
        episode_steps,
        command: &plan.command,
        app: target.app().map(|a| (a.name(), true)),
    });
    let mut store = StoreWriter::create(dir, &meta, Secrets::default())
        .map_err(|e| BenchError::Store(e.to_string()))?;
    if workers > 1 && agent.worker().is_none() {
        return Err(BenchError::Config(format!(
            "the strategy {strategy} cannot share what it learns between workers yet"
        )));
    }
    let options = BrowserOptions {
        start_url: url.clone(),
        config: config.browser.clone(),
        actions: config.actions.clone(),
        allow_origins: config.scope.allow_origins.clone(),
        subresources: config.scope.subresources,
        deny: config.deny.clone(),
        login: config.login.clone(),
        cdp_url: None,
        chrome: plan.chrome.clone(),
        // One pool for the run's workers: its coverage is what any of them covered.
        coverage: CoveragePool::default(),
    };
    let mut envs = BrowserEnv::launch_all(vec![options; workers.max(1) as usize])
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(BenchError::Browser)?;
    let mut collector = Collector::default();
    let result = {
        let mut observers: Vec<&mut (dyn Observer + Send)> = vec![&mut store, &mut collector];
        run_workers(
            envs.iter_mut()
                .map(|e| e as &mut (dyn Environment + Send))
                .collect(),
            agent.as_mut(),
            abstraction.as_mut(),
            &opts,
            &mut observers,
        )
    };
    for env in &mut envs {
        env.close();
    }
    let summary = result.map_err(BenchError::Browser)?;
    let row = strategy_row(plan, target, &summary, &collector);
    Ok(RunOutcome {
        row,
        series: collector.series,
        actions: collector.actions,
    })
}

/// The table row of a finished strategy run.
pub(crate) fn strategy_row(plan: &Plan, target: &Target, s: &RunSummary, c: &Collector) -> RunRow {
    let known = target.truth();
    let ids = c.action_ids().len();
    let instrumented = !c.screens.is_empty() || ids > 0;
    let (feature_coverage, features_covered) = features(&known, &c.episode_logs);
    let trace_precision = precision(&known, &c.episode_logs);
    let t = &s.timings_ms;
    let found: Vec<(String, u64)> = seeded(&known, s);
    RunRow {
        app: target.name(),
        strategy: s.strategy.clone(),
        kind: "strategy".into(),
        inference: s
            .inference
            .as_ref()
            .map_or_else(|| "off".to_string(), |i| i.config.clone()),
        workers: s.workers.len().max(1) as u32,
        seed: s.seed,
        budget: plan.budget.to_string(),
        steps: s.steps,
        states: s.states,
        urls: s.urls,
        actions: Some(s.actions_discovered),
        action_ids: instrumented.then_some(ids),
        screens: instrumented.then_some(c.screens.len()),
        js_coverage: s.js_coverage.as_ref().map(|c| c.ratio),
        js_coverage_first_load: s.js_coverage.as_ref().map(|c| c.first_load_ratio),
        failures: s.failures.len(),
        seeded_bugs: target.app().map(|_| found.len()),
        seeded_found: found_text(&found),
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
            s.failures
                .iter()
                .filter(|f| b.matches(&f.kind, &f.message))
                .map(|f| f.step)
                .min()
                .map(|step| (b.id.to_string(), step))
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
