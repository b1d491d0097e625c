//! After the workers: what the run did, put together once from the hub's shared state
//! and each worker's own (its environment's coverage and properties, its forms, why it
//! retired), told to the observers as the run's summary.

use std::time::{Duration, Instant};

use super::hub::{Hub, Shared};
use super::predict::Predictor;
use super::worker::Worker;
use super::{merge_properties, share_snapshot, RunOptions};
use crate::summary::{CoverageSummary, RunSummary};

/// How the exploration ended, read off the hub before its state is taken apart.
pub(super) struct Ended {
    /// Halted for all (by the user, or by the application), and whether the environment did it.
    halt: Option<(String, bool)>,
    /// The exploration's length: what the browsers did after it is not in it.
    elapsed: Duration,
    /// What `--workers auto` chose, and why.
    auto_workers: Option<String>,
}

impl Ended {
    pub fn of(hub: &Hub<'_, '_>, opts: &RunOptions, asked: usize, started: Instant) -> Ended {
        let auto_workers = hub
            .auto_note
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .or_else(|| {
                (opts.auto_workers.is_some() && asked > 1)
                    .then(|| "1 browser: the run ended before the probe could measure".to_string())
            });
        Ended {
            halt: hub.halted(),
            elapsed: hub.ended().saturating_duration_since(started),
            auto_workers,
        }
    }
}

/// The run's summary, told to every observer.
pub(super) fn summarize(
    workers: &mut [Worker<'_>],
    s: Shared<'_, '_>,
    ended: Ended,
    (opts, strategy, asked): (&RunOptions, String, usize),
    (predictor, blocked): (Option<&Predictor>, Option<String>),
) -> RunSummary {
    if let Some(w) = workers.first_mut() {
        share_snapshot(w.agent.get(), s.observers);
    }
    let mut stats = crate::infer::InferStats::default();
    for p in workers.iter().filter_map(|w| w.predictor.as_ref()) {
        stats.add(&p.stats);
    }
    let mut inference = predictor.map(|p| p.summary(&stats));
    if let (Some(cfg), Some(why)) = (opts.inference, blocked) {
        inference = Some(crate::infer::InferenceSummary {
            config: cfg.to_string(),
            disabled: Some(why),
            ..Default::default()
        });
    }
    if let Some(p) = predictor {
        let rows = p.rows();
        for o in s.observers.iter_mut() {
            o.on_knowledge(&rows);
        }
    }
    for w in workers.iter_mut() {
        w.env.flush();
    }
    let (stopped_early, ended_by_environment) = stopped(workers, ended.halt);
    let mut forms = crate::forms::FormAcceptance::default();
    for w in workers.iter() {
        forms.add(&w.forms.counts);
    }
    let measured = Measured::of(workers);
    let elapsed = ended.elapsed;
    let summary = RunSummary {
        target: opts.target.clone(),
        strategy,
        seed: opts.seed,
        budget: opts.budget.to_string(),
        steps: s.steps,
        episodes: s.episodes,
        states: s.abstraction.states(),
        urls: s.tally.urls.len(),
        actions_discovered: s.tally.actions.len(),
        failures: s.book.failures().iter().map(Into::into).collect(),
        js_coverage: measured.js,
        server_coverage: measured.server,
        properties: measured.properties,
        warnings: s.book.warnings().to_vec(),
        timings_ms: s.tally.medians(),
        time_split: crate::summary::TimeSplit::of(&s.tally.timings, &s.tally.observers),
        resets_s: s.tally.resets.as_secs_f64(),
        steps_per_second: if elapsed > Duration::ZERO {
            s.steps as f64 / elapsed.as_secs_f64()
        } else {
            0.0
        },
        duration_s: elapsed.as_secs_f64(),
        restarts: s.tally.restarts,
        step_errors: s.tally.step_errors,
        stopped_early,
        ended_by_environment,
        logged_out: s.tally.logged_out,
        scans_avoided: stats.scans_avoided(),
        analyses_avoided: stats.analyses_avoided(),
        inference,
        deviation: None,
        llm: opts
            .llm
            .as_ref()
            .map(|u| u.lock().unwrap_or_else(|p| p.into_inner()).clone()),
        form_acceptance: forms,
        workers: if asked > 1 {
            worker_lines(workers)
        } else {
            Vec::new()
        },
        auto_workers: ended.auto_workers,
        shrink: None,
        baseline: None,
    };
    for o in s.observers.iter_mut() {
        o.on_end(&summary);
    }
    summary
}

/// Why the run stopped early, if it did, and whether the environment ended it: halted
/// for all (by the user or the application), or every worker retired.
fn stopped(workers: &[Worker<'_>], halt: Option<(String, bool)>) -> (Option<String>, bool) {
    let last_retired = workers.iter().rev().find_map(|w| w.retired.clone());
    let all_retired = workers.iter().all(|w| w.retired.is_some() || w.idle);
    match (halt, last_retired) {
        (Some((why, by_env)), _) => (Some(why), by_env),
        (None, Some(why)) if all_retired => (Some(why), true),
        _ => (None, false),
    }
}

/// What the environments measured over the run.
struct Measured {
    js: Option<CoverageSummary>,
    server: Option<crate::summary::ServerCoverageSummary>,
    properties: Vec<crate::summary::PropertyVerdict>,
}

impl Measured {
    /// Workers share one accumulator: the first that measures speaks for all.
    fn of(workers: &mut [Worker<'_>]) -> Measured {
        let js = workers.iter_mut().find_map(|w| {
            let c = w.env.coverage()?;
            Some(CoverageSummary::from(c).with_scripts(w.env.coverage_by_script()))
        });
        let server = workers.iter_mut().find_map(|w| {
            let c = w.env.server_coverage()?;
            Some(crate::summary::ServerCoverageSummary::new(
                c,
                w.env.server_coverage_by_file(),
            ))
        });
        let properties = merge_properties(workers.iter_mut().map(|w| w.env.properties()));
        Measured {
            js,
            server,
            properties,
        }
    }
}

/// What each worker did, on which browser (a run of several).
fn worker_lines(workers: &[Worker<'_>]) -> Vec<crate::summary::WorkerLine> {
    workers
        .iter()
        .map(|w| crate::summary::WorkerLine {
            worker: w.id,
            browser: w.env.endpoint().unwrap_or_default(),
            steps: w.steps,
            episodes: w.episodes,
            restarts: w.restarts,
            retired: w
                .retired
                .clone()
                .or_else(|| w.idle.then(|| "left idle by --workers auto".to_string())),
        })
        .collect()
}
