//! The exploration loop: episodes of agent steps against an environment, within a
//! budget, with every random choice drawn from one seeded generator.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::agent::{Agent, Transition, View};
use crate::budget::Budget;
use crate::candidates::{offered_actions, DenyText};
use crate::env::{EnvError, Environment};
use crate::infer::InferenceConfig;
use crate::llm::{Picture, SharedUsage};
use crate::model::{AppProbe, EventKind, Observation};
use crate::observer::Observer;
use crate::oracle::{FailureBook, Oracles};
use crate::record::{StepRecord, StepTimings};
use crate::state::{Abstraction, Analysis};
use crate::summary::{RunSummary, Tally};
use crate::trace::{ElementHint, TraceStep};

mod carry;
mod episode;
mod perform;
mod predict;

use episode::{begin_episode, judge, progress, Loop};

use perform::{perform, Done, Trying};
pub use predict::{KnowledgeRow, StepInference};
use predict::{Plan, Planned, Predictor, TrialCtx};

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
    /// State inference (DESIGN 8); `None` scans after every action.
    pub inference: Option<InferenceConfig>,
    /// The usage counters of the language model the agent asks, when it asks one: the
    /// summary reports them, and the steps report the model's time apart from deciding.
    pub llm: Option<SharedUsage>,
}

/// The loop's state between steps.
struct Cursor {
    obs: Observation,
    analysis: Analysis,
    trace: Vec<TraceStep>,
    episode: u64,
    episode_step: u32,
    /// The next action, already chosen while validating a guessed state.
    planned: Option<Planned>,
}

/// The agent the loop drives: the caller's, or the copy that lived an accepted guess.
enum Driver<'a> {
    Borrowed(&'a mut dyn Agent),
    Owned(Box<dyn Agent + Send>),
}

impl Driver<'_> {
    fn get(&mut self) -> &mut dyn Agent {
        match self {
            Driver::Borrowed(a) => &mut **a,
            Driver::Owned(b) => b.as_mut(),
        }
    }
}

/// Why inference cannot run here, when it cannot.
fn inference_blocker(env: &dyn Environment, agent: &dyn Agent) -> Option<String> {
    if !env.can_infer() {
        Some("the environment cannot act without scanning".into())
    } else if agent.fork().is_none() {
        Some(format!("the strategy {} cannot be copied", agent.name()))
    } else {
        None
    }
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
    let blocked = opts
        .inference
        .and_then(|_| inference_blocker(&*env, &*agent));
    if let Some(why) = &blocked {
        tracing::warn!("state inference is off: {why}");
    }
    let mut predictor = opts
        .inference
        .filter(|_| blocked.is_none())
        .map(Predictor::new);
    let mut agent = Driver::Borrowed(agent);
    let mut book = FailureBook::default();
    let mut tally = Tally::default();
    let mut steps: u64 = 0;
    let mut stopped_early = None;
    // Set when the application or the browser ended the run, not the budget or the user.
    let mut ended_by_environment = false;
    let mut empty_starts = 0;
    let mut train_time = Duration::ZERO;

    let t_reset = Instant::now();
    let first = match env.reset() {
        Ok(first) => first,
        Err(e) => {
            // Nothing could be explored, but the run still ends with a summary (and so a
            // report) that says why.
            let summary = RunSummary {
                target: opts.target.clone(),
                strategy: agent.get().name().to_string(),
                seed: opts.seed,
                budget: opts.budget.to_string(),
                duration_s: started.elapsed().as_secs_f64(),
                stopped_early: Some(e.to_string()),
                ended_by_environment: true,
                ..Default::default()
            };
            for o in observers.iter_mut() {
                o.on_end(&summary);
            }
            return Ok(summary);
        }
    };
    tally.resets += t_reset.elapsed();
    let mut cur = begin_episode(
        first,
        1,
        &mut Loop {
            env: &mut *env,
            agent: agent.get(),
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
            let t_train = Instant::now();
            agent.get().on_episode_end();
            train_time += t_train.elapsed();
            share_snapshot(agent.get(), observers);
            let t_reset = Instant::now();
            let reset = env.reset();
            tally.resets += t_reset.elapsed();
            match reset {
                Ok(out) => {
                    cur = begin_episode(
                        out,
                        cur.episode + 1,
                        &mut Loop {
                            env: &mut *env,
                            agent: agent.get(),
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
                    ended_by_environment = true;
                    break;
                }
            }
        }
        // Training at the episode's end is counted with the step that follows it.
        let now = Instant::now();
        let step_start = now.checked_sub(train_time).unwrap_or(now);
        let train = std::mem::take(&mut train_time);
        let candidates = offered_actions(&cur.obs, &opts.deny, cur.episode_step > 0, agent.get());
        // Listing the candidates is part of deciding.
        let listing = step_start.elapsed();
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
                    ended_by_environment = true;
                    break;
                }
            }
            // A dead end with nowhere to go back to: start a new episode.
            cur.episode_step = opts.episode_steps;
            continue;
        }
        empty_starts = 0;
        let (action, decision, decided, asked) = match cur.planned.take() {
            Some(Planned::Reset) => {
                cur.episode_step = opts.episode_steps;
                continue;
            }
            Some(Planned::Act {
                action,
                decision,
                decide,
            }) => (action, decision, decide, Duration::ZERO),
            None => {
                let t_decide = Instant::now();
                let view = View {
                    observation: &cur.obs,
                    analysis: &cur.analysis,
                    actions: &candidates,
                    episode_step: cur.episode_step,
                };
                let agent = agent.get();
                // Only mid-episode: a reset at the start would change nothing and could
                // repeat forever.
                if cur.episode_step > 0 && agent.wants_reset(&view) {
                    cur.episode_step = opts.episode_steps;
                    continue;
                }
                // A picture of the page for a vision prompt, only when the agent asks.
                let mut pictured = Duration::ZERO;
                if let Some(region) = agent.wants_picture(&view) {
                    let t_picture = Instant::now();
                    cur.obs.picture = env.picture(region).map(|png| Picture {
                        png: Arc::new(png),
                        region,
                    });
                    pictured = t_picture.elapsed();
                }
                let view = View {
                    observation: &cur.obs,
                    analysis: &cur.analysis,
                    actions: &candidates,
                    episode_step: cur.episode_step,
                };
                let asked_before = llm_seconds(opts);
                let action = agent.choose(&view, &mut rng);
                let asked =
                    Duration::from_secs_f64((llm_seconds(opts) - asked_before).max(0.0)) + pictured;
                (
                    action,
                    agent.rationale(),
                    t_decide.elapsed().saturating_sub(asked),
                    asked,
                )
            }
        };
        let decide = decided + listing;
        steps += 1;
        cur.episode_step += 1;
        let target = action
            .target
            .as_deref()
            .and_then(|t| cur.obs.element(t))
            .map(|e| e.describe());
        let mut trace_step = TraceStep::new(action.clone(), &cur.obs);

        // State inference: the interaction's keys, and whether to try guesses.
        let keys = predictor.as_mut().map(|p| p.keys(&cur.obs, &action));
        let (plan, mut inference) = match (&predictor, keys) {
            (Some(p), Some(k)) => {
                let (plan, info) = p.plan(k);
                (Some(plan), Some(info))
            }
            _ => (None, None),
        };
        let guesses = match &plan {
            Some(Plan::Try(g)) => Some(g.as_slice()),
            _ => None,
        };
        let ctx = TrialCtx {
            deny: &opts.deny,
            last: cur.episode_step >= opts.episode_steps
                || opts.budget.exhausted(steps, started.elapsed()),
            next_episode_step: cur.episode_step,
        };
        let tried = match (predictor.as_mut(), guesses) {
            (Some(p), Some(g)) => Some(Trying {
                predictor: p,
                guesses: g,
                agent: agent.get(),
                rng: &rng,
                ctx,
            }),
            _ => None,
        };
        let Done {
            outcome,
            error,
            mut accepted,
            validate,
        } = match perform(env, &action, (&cur.obs, &cur.analysis), tried) {
            Ok(done) => done,
            Err(e) => {
                stopped_early = Some(e.to_string());
                ended_by_environment = true;
                break;
            }
        };
        if let Some(p) = predictor.as_mut() {
            p.stats.steps += 1;
            if accepted.is_some() {
                p.stats.predicted += 1;
            }
        }
        // The browser read the target's role and name from its accessibility tree, and
        // counted Playwright's other ways to it, just before acting: what the trace, the
        // report and exported tests name it by.
        // A target the observation did not hold (the page changed since it was read) is
        // named all the same.
        if let (Some(n), Some(t)) = (env.target_name(), trace_step.action.target.as_deref()) {
            trace_step
                .element
                .get_or_insert_with(ElementHint::default)
                .name_from_target(&n, t);
        }
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
        let (analysis, new_state) = match &accepted {
            // A guessed state comes with its analysis: it was seen before.
            Some(a) => (a.guess.analysis.clone(), false),
            None => {
                let states_before = abstraction.states();
                let mut analysis = abstraction.analyse(&outcome.observation);
                let new_state = abstraction.states() > states_before;
                agent
                    .get()
                    .annotate(&outcome.observation, analysis.data_mut());
                (analysis, new_state)
            }
        };
        let analysis_time = t_analysis.elapsed();
        let t_learn = Instant::now();
        tally.urls.insert(analysis.url.clone());
        if let (Some(p), Some(k), Some(info)) = (predictor.as_mut(), keys, inference.as_mut()) {
            match &mut accepted {
                Some(a) => {
                    p.confirm(k, &a.guess);
                    info.accepted = Some(a.index);
                    // Data that grows with the run is refined on the guessed page, and the
                    // knowledge base keeps the refined value.
                    let mut refined = a.guess.analysis.clone();
                    if a.agent.refine(&a.obs, refined.data_mut()) {
                        a.guess = p.refine(k, &a.guess, refined);
                    }
                }
                // What a scan found after a performed action is knowledge; a failed step or
                // a restart says nothing about the interaction.
                None if error.is_none()
                    && !outcome.restarted
                    && matches!(plan, Some(Plan::Try(_)) | Some(Plan::Scan { record: true })) =>
                {
                    p.record(k, &outcome.observation, &analysis);
                }
                None => {}
            }
        }

        let mut learn_time = t_learn.elapsed();
        // Failures are judged before a restart clears the trace, so it keeps the actions
        // that led to the crash.
        let t_judge = Instant::now();
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

        let judge_time = t_judge.elapsed();
        let t_learn = Instant::now();
        match accepted {
            // The copy that lived the guess already learned it and chose the next action.
            Some(a) => {
                agent = Driver::Owned(a.agent);
                rng = a.rng;
                cur.planned = a.planned;
            }
            None => agent.get().learn(&Transition {
                state: cur.analysis.state,
                observation: &cur.obs,
                action: &action,
                next_state: analysis.state,
                next_observation: &outcome.observation,
                events: &outcome.events,
                new_state,
                failed: error.is_some(),
            }),
        }

        learn_time += t_learn.elapsed();
        // Training along the episode (inside `learn`) is reported as training.
        let trained = agent.get().take_train_time();
        let learn_time = learn_time.saturating_sub(trained);
        let train = train + trained;
        let timings = StepTimings {
            scan: outcome.timings.scan,
            analysis: analysis_time,
            decide,
            act: outcome.timings.act,
            wait: outcome.timings.wait,
            validate,
            coverage: outcome.timings.coverage,
            judge: judge_time,
            learn: learn_time,
            name: outcome.timings.name,
            train,
            llm: asked,
            total: step_start.elapsed(),
        };
        tally.timings.push(timings);
        let logged_out = outcome
            .events
            .iter()
            .any(|e| e.kind == EventKind::LoggedOut);
        let form = if error.is_none() {
            tally
                .forms
                .step(&cur.obs, &action, &outcome.observation, decision.as_deref())
        } else {
            None
        };
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
            form,
            inference,
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
        if logged_out && !outcome.restarted {
            // Exploring the login page until the episode ends would waste it: reset now.
            tally.logged_out += 1;
            cur.episode_step = opts.episode_steps;
        }
        if outcome.restarted {
            // The environment reset itself: a new episode from its start page.
            let t_train = Instant::now();
            agent.get().on_episode_end();
            train_time += t_train.elapsed();
            share_snapshot(agent.get(), observers);
            cur.episode += 1;
            cur.episode_step = 0;
            cur.trace.clear();
            cur.planned = None;
        }
    }

    agent.get().on_run_end();
    share_snapshot(agent.get(), observers);
    let mut inference = predictor.as_ref().map(|p| p.summary());
    if let (Some(cfg), Some(why)) = (opts.inference, blocked) {
        inference = Some(crate::infer::InferenceSummary {
            config: cfg.to_string(),
            disabled: Some(why),
            ..Default::default()
        });
    }
    if let Some(p) = &predictor {
        let rows = p.rows();
        for o in observers.iter_mut() {
            o.on_knowledge(&rows);
        }
    }
    env.flush();
    let elapsed = started.elapsed();
    let stats = predictor
        .as_ref()
        .map(|p| p.stats.clone())
        .unwrap_or_default();
    let summary = RunSummary {
        target: opts.target.clone(),
        strategy: agent.get().name().to_string(),
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
        time_split: crate::summary::TimeSplit::of(&tally.timings, &tally.observers),
        resets_s: tally.resets.as_secs_f64(),
        steps_per_second: if elapsed > Duration::ZERO {
            steps as f64 / elapsed.as_secs_f64()
        } else {
            0.0
        },
        duration_s: elapsed.as_secs_f64(),
        restarts: tally.restarts,
        step_errors: tally.step_errors,
        stopped_early,
        ended_by_environment,
        logged_out: tally.logged_out,
        scans_avoided: stats.scans_avoided(),
        analyses_avoided: stats.analyses_avoided(),
        inference,
        deviation: None,
        llm: opts
            .llm
            .as_ref()
            .map(|u| u.lock().unwrap_or_else(|p| p.into_inner()).clone()),
        form_acceptance: tally.forms.counts,
    };
    for o in observers.iter_mut() {
        o.on_end(&summary);
    }
    Ok(summary)
}

/// The model's answer time so far, seconds (0 without a model).
fn llm_seconds(opts: &RunOptions) -> f64 {
    opts.llm.as_ref().map_or(0.0, |u| {
        u.lock().unwrap_or_else(|p| p.into_inner()).latency_s_total
    })
}

/// Hand what the agent has learned to the observers (the store keeps the latest).
fn share_snapshot(agent: &dyn Agent, observers: &mut [&mut dyn Observer]) {
    if let Some(snapshot) = agent.snapshot() {
        for o in observers.iter_mut() {
            o.on_strategy(&snapshot);
        }
    }
}
