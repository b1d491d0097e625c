//! The exploration loop: episodes of agent steps against an environment, within a
//! budget, with every random choice drawn from one seeded generator.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::agent::{Agent, Transition, View};
use crate::budget::Budget;
use crate::candidates::{candidate_actions, DenyText};
use crate::env::{EnvError, Environment, Outcome};
use crate::model::{AppProbe, Event, EventKind, Observation};
use crate::observer::{Observer, Progress};
use crate::oracle::{FailureBook, Oracles};
use crate::record::{ResetRecord, StepRecord, StepTimings};
use crate::state::{Abstraction, Analysis};
use crate::summary::{RunSummary, Tally};
use crate::trace::TraceStep;

/// Resets in a row that found no action on the start page before the run gives up.
const EMPTY_START_LIMIT: u32 = 3;

/// How a run is shaped.
pub struct RunOptions {
    pub budget: Budget,
    /// Steps per episode before a reset.
    pub episode_steps: u32,
    pub seed: u64,
    pub deny: DenyText,
    pub oracles: Oracles,
    /// Set from outside (Ctrl-C) to end the run early with a summary.
    pub stop: Arc<AtomicBool>,
    /// What is explored, for the summary.
    pub target: String,
}

/// The loop's state between steps.
struct Cursor {
    obs: Observation,
    analysis: Analysis,
    trace: Vec<TraceStep>,
    episode: u64,
    episode_step: u32,
}

/// Runs one exploration and returns its summary. Fails only when the environment cannot
/// be used at all (the start URL is unreachable, the browser cannot be started).
pub fn run(
    env: &mut dyn Environment,
    agent: &mut dyn Agent,
    abstraction: &mut dyn Abstraction,
    opts: &RunOptions,
    observers: &mut [&mut dyn Observer],
) -> Result<RunSummary, EnvError> {
    let started = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let mut book = FailureBook::default();
    let mut tally = Tally::default();
    let mut steps: u64 = 0;
    let mut stopped_early = None;
    let mut empty_starts = 0;

    let first = env.reset()?;
    let mut cur = begin_episode(
        first,
        1,
        &mut Loop {
            env: &mut *env,
            abstraction: &mut *abstraction,
            tally: &mut tally,
            book: &mut book,
            observers: &mut *observers,
            opts,
            started,
            steps,
        },
    );

    while !opts.budget.exhausted(steps, started.elapsed()) {
        if opts.stop.load(Ordering::Relaxed) {
            stopped_early = Some("interrupted".to_string());
            break;
        }
        if cur.episode_step >= opts.episode_steps {
            agent.on_episode_end();
            share_snapshot(agent, observers);
            match env.reset() {
                Ok(out) => {
                    cur = begin_episode(
                        out,
                        cur.episode + 1,
                        &mut Loop {
                            env: &mut *env,
                            abstraction: &mut *abstraction,
                            tally: &mut tally,
                            book: &mut book,
                            observers: &mut *observers,
                            opts,
                            started,
                            steps,
                        },
                    );
                }
                Err(e) => {
                    stopped_early = Some(e.to_string());
                    break;
                }
            }
        }
        let step_start = Instant::now();
        let candidates = candidate_actions(&cur.obs, &opts.deny, cur.episode_step > 0);
        for a in &candidates {
            tally.actions.insert((
                cur.analysis.url.clone(),
                format!("{} {}", a.kind.as_str(), a.target.as_deref().unwrap_or("")),
            ));
        }
        if candidates.is_empty() {
            if cur.episode_step == 0 {
                // The start page itself offers nothing: resetting again will not help for long.
                empty_starts += 1;
                if empty_starts >= EMPTY_START_LIMIT {
                    stopped_early = Some(format!(
                        "the start page ({}) offered no action after {EMPTY_START_LIMIT} resets; \
                         does it load, and is anything on it clickable?",
                        cur.obs.url
                    ));
                    break;
                }
            }
            // A dead end with nowhere to go back to: start a new episode.
            cur.episode_step = opts.episode_steps;
            continue;
        }
        empty_starts = 0;
        let t_decide = Instant::now();
        let view = View {
            observation: &cur.obs,
            analysis: &cur.analysis,
            actions: &candidates,
            episode_step: cur.episode_step,
        };
        // Only mid-episode: a reset at the start would change nothing and could repeat forever.
        if cur.episode_step > 0 && agent.wants_reset(&view) {
            cur.episode_step = opts.episode_steps;
            continue;
        }
        let action = agent.choose(&view, &mut rng);
        let decision = agent.rationale();
        let decide = t_decide.elapsed();
        steps += 1;
        cur.episode_step += 1;
        let target = action
            .target
            .as_deref()
            .and_then(|t| cur.obs.element(t))
            .map(|e| e.describe());
        let trace_step = TraceStep::new(action.clone(), &cur.obs);

        let (outcome, error) = match env.step(&action) {
            Ok(out) => (out, None),
            Err(e) if e.is_fatal() => {
                stopped_early = Some(e.to_string());
                break;
            }
            Err(e) => match env.observe() {
                Ok(out) => (out, Some(e.to_string())),
                Err(e2) if e2.is_fatal() => {
                    stopped_early = Some(e2.to_string());
                    break;
                }
                Err(_) => (
                    Outcome {
                        observation: cur.obs.clone(),
                        ..Outcome::default()
                    },
                    Some(e.to_string()),
                ),
            },
        };
        if error.is_some() {
            tally.step_errors += 1;
        } else {
            cur.trace.push(trace_step.clone());
        }
        if outcome.restarted {
            tally.restarts += outcome
                .events
                .iter()
                .filter(|e| e.kind == EventKind::BrowserRestart)
                .count()
                .max(1) as u64;
        }

        let t_analysis = Instant::now();
        let states_before = abstraction.states();
        let analysis = abstraction.analyse(&outcome.observation);
        let new_state = abstraction.states() > states_before;
        let analysis_time = t_analysis.elapsed();
        tally.urls.insert(analysis.url.clone());

        // Failures are judged before a restart clears the trace, so it keeps the actions
        // that led to the crash.
        let findings = judge(
            &opts.oracles,
            &cur,
            &outcome.events,
            steps,
            &mut book,
            observers,
            &outcome.observation,
            env,
        );

        agent.learn(&Transition {
            state: cur.analysis.state,
            action: &action,
            next_state: analysis.state,
            next_observation: &outcome.observation,
            events: &outcome.events,
            new_state,
            failed: error.is_some(),
        });

        let timings = StepTimings {
            scan: outcome.timings.scan,
            analysis: analysis_time,
            decide,
            act: outcome.timings.act,
            wait: outcome.timings.wait,
            total: step_start.elapsed(),
        };
        tally.timings.push(timings);
        let record = StepRecord {
            step: steps,
            episode: cur.episode,
            episode_step: cur.episode_step,
            action,
            target,
            state_before: cur.analysis.state,
            state_after: analysis.state,
            url_after: outcome.observation.url.clone(),
            title_after: outcome.observation.title.clone(),
            element: trace_step.element,
            new_state,
            events: outcome.events,
            timings,
            error,
            findings,
            app_actions: AppProbe::logged_since(&cur.obs, &outcome.observation),
            app_state: outcome
                .observation
                .app
                .as_ref()
                .and_then(|a| a.state.clone()),
            decision,
        };
        let progress = progress(
            opts,
            started,
            steps,
            cur.episode,
            abstraction,
            &tally,
            &book,
            env,
        );
        let t_observers = Instant::now();
        for o in observers.iter_mut() {
            o.on_step(&record, &progress);
        }
        tally.observers.push(t_observers.elapsed());
        cur.obs = outcome.observation;
        cur.analysis = analysis;
        if outcome.restarted {
            // The environment reset itself: a new episode from its start page.
            agent.on_episode_end();
            share_snapshot(agent, observers);
            cur.episode += 1;
            cur.episode_step = 0;
            cur.trace.clear();
        }
    }

    share_snapshot(agent, observers);
    let elapsed = started.elapsed();
    let summary = RunSummary {
        target: opts.target.clone(),
        strategy: agent.name().to_string(),
        seed: opts.seed,
        budget: opts.budget.to_string(),
        steps,
        episodes: cur.episode,
        states: abstraction.states(),
        urls: tally.urls.len(),
        actions_discovered: tally.actions.len(),
        failures: book.failures().iter().map(Into::into).collect(),
        js_coverage: env.coverage().map(Into::into),
        timings_ms: tally.medians(),
        steps_per_second: if elapsed > Duration::ZERO {
            steps as f64 / elapsed.as_secs_f64()
        } else {
            0.0
        },
        duration_s: elapsed.as_secs_f64(),
        restarts: tally.restarts,
        step_errors: tally.step_errors,
        stopped_early,
    };
    for o in observers.iter_mut() {
        o.on_end(&summary);
    }
    Ok(summary)
}

/// Hand what the agent has learned to the observers (the store keeps the latest).
fn share_snapshot(agent: &dyn Agent, observers: &mut [&mut dyn Observer]) {
    if let Some(snapshot) = agent.snapshot() {
        for o in observers.iter_mut() {
            o.on_strategy(&snapshot);
        }
    }
}

/// What `begin_episode` borrows from the loop.
struct Loop<'a, 'o> {
    env: &'a mut dyn Environment,
    abstraction: &'a mut dyn Abstraction,
    tally: &'a mut Tally,
    book: &'a mut FailureBook,
    observers: &'a mut [&'o mut dyn Observer],
    opts: &'a RunOptions,
    started: Instant,
    steps: u64,
}

fn begin_episode(out: Outcome, episode: u64, l: &mut Loop) -> Cursor {
    let analysis = l.abstraction.analyse(&out.observation);
    l.tally.urls.insert(analysis.url.clone());
    let cur = Cursor {
        obs: out.observation,
        analysis,
        trace: Vec::new(),
        episode,
        episode_step: 0,
    };
    let findings = judge(
        &l.opts.oracles,
        &cur,
        &out.events,
        l.steps,
        l.book,
        l.observers,
        &cur.obs,
        l.env,
    );
    let record = ResetRecord {
        episode,
        after_step: l.steps,
        state: cur.analysis.state,
        url: cur.obs.url.clone(),
        title: cur.obs.title.clone(),
        events: out.events,
        findings,
        app_state: cur.obs.app.as_ref().and_then(|a| a.state.clone()),
    };
    let progress = progress(
        l.opts,
        l.started,
        l.steps,
        episode,
        l.abstraction,
        l.tally,
        l.book,
        l.env,
    );
    for o in l.observers.iter_mut() {
        o.on_reset(&record, &progress);
    }
    cur
}

#[allow(clippy::too_many_arguments)]
fn progress(
    opts: &RunOptions,
    started: Instant,
    steps: u64,
    episode: u64,
    abstraction: &dyn Abstraction,
    tally: &Tally,
    book: &FailureBook,
    env: &mut dyn Environment,
) -> Progress {
    Progress {
        steps,
        episodes: episode,
        states: abstraction.states(),
        urls: tally.urls.len(),
        actions: tally.actions.len(),
        failures: book.len(),
        elapsed: started.elapsed(),
        budget_used: opts.budget.used(steps, started.elapsed()),
        coverage: env.coverage(),
    }
}

/// Judge the events of a step (or a reset) on the page they left; returns the
/// signatures found, and tells observers about new ones with a screenshot.
#[allow(clippy::too_many_arguments)]
fn judge(
    oracles: &Oracles,
    cur: &Cursor,
    events: &[Event],
    step: u64,
    book: &mut FailureBook,
    observers: &mut [&mut dyn Observer],
    obs: &Observation,
    env: &mut dyn Environment,
) -> Vec<String> {
    let mut found = Vec::new();
    for finding in oracles.judge(events, Some(obs)) {
        found.push(finding.signature.clone());
        if let Some(f) = book.record(finding, step, cur.episode, &obs.url, &cur.trace) {
            let shot = env.screenshot();
            for o in observers.iter_mut() {
                o.on_failure(f, shot.as_deref());
            }
        }
    }
    found
}
