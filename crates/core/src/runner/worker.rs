//! One worker of a run: its own environment, agent, generator and episode, stepping until
//! the budget is spent, the run is halted, or its browser is gone for good. What it finds
//! and records goes through the hub.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;

use super::episode::{begin_episode, judge, progress};
use super::handover::Duty;
use super::hub::Hub;
use super::perform::{perform, Done, Trying};
use super::predict::{Plan, Planned, Predictor, TrialCtx};
use super::spec_mix;
use super::{llm_seconds, share_snapshot, EMPTY_START_LIMIT};
use crate::agent::{Agent, Transition, View};
use crate::candidates::offered_actions;
use crate::env::{EnvError, Environment};
use crate::forms::FormTracker;
use crate::llm::Picture;
use crate::model::{ActionKind, AppProbe, EventKind, Observation};
use crate::record::{StepRecord, StepTimings};
use crate::state::Analysis;
use crate::trace::{ElementHint, TraceStep};

/// The loop's state between steps.
pub(super) struct Cursor {
    pub obs: Observation,
    pub analysis: Analysis,
    pub trace: Vec<TraceStep>,
    pub episode: u64,
    pub episode_step: u32,
    /// The next action, already chosen while validating a guessed state.
    pub planned: Option<Planned>,
}

/// The agent a worker drives: the caller's, one made for the worker, or the copy that
/// lived an accepted guess.
pub(super) enum Driver<'a> {
    Borrowed(&'a mut (dyn Agent + Send)),
    Owned(Box<dyn Agent + Send>),
}

impl Driver<'_> {
    pub fn get(&mut self) -> &mut (dyn Agent + Send) {
        match self {
            Driver::Borrowed(a) => &mut **a,
            Driver::Owned(b) => b.as_mut(),
        }
    }
}

/// A worker and what it did.
pub(super) struct Worker<'a> {
    pub id: u32,
    pub env: &'a mut (dyn Environment + Send),
    pub agent: Driver<'a>,
    pub rng: ChaCha8Rng,
    pub predictor: Option<Predictor>,
    /// The run has other workers: the agent shares a mind with theirs.
    pub shares: bool,
    pub forms: FormTracker,
    pub steps: u64,
    pub episodes: u64,
    pub restarts: u64,
    /// Why the worker stopped before the run did: its browser could not be brought back.
    pub retired: Option<String>,
    /// `--workers auto` left it waiting: it never explored.
    pub idle: bool,
}

impl Worker<'_> {
    /// Reset the environment and begin an episode there; `None` when the environment
    /// failed (the worker retires, or the run halts).
    fn reset(&mut self, hub: &Hub) -> Option<Cursor> {
        let t_reset = Instant::now();
        let reset = self.env.reset();
        let reset_time = t_reset.elapsed();
        let out = match reset {
            Ok(out) => out,
            Err(e) => {
                hub.lock().tally.resets += reset_time;
                self.fail(e, hub);
                return None;
            }
        };
        let mut s = hub.lock();
        s.tally.resets += reset_time;
        // A browser lost between episodes (a farm's session timeout) is found and
        // restarted by the reset itself.
        if out.restarted {
            self.restarts += 1;
            s.tally.restarts += 1;
        }
        let cur = begin_episode(
            out,
            self.id,
            self.env,
            self.agent.get(),
            &mut s,
            (hub.opts, hub.started, hub.active()),
        );
        self.episodes += 1;
        Some(cur)
    }

    /// The environment failed for good: a browser that cannot be restarted retires this
    /// worker; anything else (the application unreachable, the login or the reset hook
    /// failing) concerns every worker and halts the run.
    fn fail(&mut self, e: EnvError, hub: &Hub) {
        match e {
            EnvError::Browser(_) => {
                let why = e.to_string();
                let browser = self.env.endpoint().unwrap_or_default();
                tracing::debug!(worker = self.id, %browser, "worker retired: {why}");
                let mut s = hub.lock();
                for o in s.observers.iter_mut() {
                    o.on_retire(self.id, &browser, &why);
                }
                self.retired = Some(why);
            }
            e => hub.halt(e.to_string(), true),
        }
    }
}

/// Step worker `w` until the run ends for it.
pub(super) fn explore(w: &mut Worker, hub: &Hub) {
    let admitted = w.id == 0
        || hub
            .gate
            .admits(w.id, || hub.exhausted() || hub.halted().is_some());
    if admitted {
        steps(w, hub);
    } else {
        w.idle = true;
        hub.idled();
        serve_while_idle(w, hub);
    }
    if w.id == 0 {
        // A probe the run ended before lets the others stop waiting.
        hub.gate.close();
    }
    hub.finished(w.idle);
    finish_handover(w, hub);
}

/// A browser `--workers auto` left idle does the handed-over work (shrinking) while the
/// others explore, instead of waiting for the run's end.
fn serve_while_idle(w: &mut Worker, hub: &Hub) {
    let Some(h) = hub.opts.handover.as_deref() else {
        return;
    };
    // It never explores: nothing it runs is the run's coverage.
    w.env.measure(false);
    while !hub.exhausted() && hub.halted().is_none() && !hub.opts.stop.load(Ordering::Relaxed) {
        let duty = Duty {
            worker: w.id,
            idle: true,
            exploring: hub.exploring(),
            elapsed: hub.started.elapsed(),
        };
        if !(h.wanted(duty) && h.serve(w.id, w.env)) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Once the budget is spent, every browser does what is left of the handed-over work;
/// not when the user or the environment stopped the run, nor with a browser gone.
fn finish_handover(w: &mut Worker, hub: &Hub) {
    let Some(h) = hub.opts.handover.as_deref() else {
        return;
    };
    if hub.halted().is_some() || w.retired.is_some() || hub.opts.stop.load(Ordering::Relaxed) {
        return;
    }
    w.env.measure(false);
    h.finish(w.id, w.env, hub.started);
}

/// Whether worker `w` hands its browser over now (see `Handover::wanted`), and if so the
/// work it did: the worker then begins a new episode.
fn hand_over(w: &mut Worker, hub: &Hub) -> bool {
    let Some(h) = hub.opts.handover.as_deref() else {
        return false;
    };
    let duty = Duty {
        worker: w.id,
        idle: false,
        exploring: hub.exploring(),
        elapsed: hub.started.elapsed(),
    };
    if !h.wanted(duty) {
        return false;
    }
    // Replays go over ground the run covered; what they run is not exploration's.
    w.env.measure(false);
    let served = h.serve(w.id, w.env);
    w.env.measure(true);
    served
}

/// What a phase of a step tells the loop.
enum Flow<T> {
    /// Go on with the step.
    Go(T),
    /// Skip to the next turn of the loop (the episode may have been ended).
    Next,
    /// Leave the loop.
    Stop,
}

/// A step's start: the candidates and what the specification offers, and the time
/// spent getting them.
struct Begun {
    step_start: Instant,
    /// Training at the episode's end, counted with this step.
    train: Duration,
    candidates: Vec<crate::model::Action>,
    spec_choice: Option<crate::model::Action>,
    listing: Duration,
}

/// The action to take, why, and the time deciding took (the model's share apart).
struct Decided {
    action: crate::model::Action,
    decision: Option<String>,
    decided: Duration,
    asked: Duration,
}

/// The action performed, with what state inference planned for it and what it cost.
struct Acted {
    done: Done,
    trace_step: TraceStep,
    target: Option<String>,
    keys: Option<(crate::infer::keys::Key, crate::infer::keys::Key)>,
    plan: Option<Plan>,
    inference: Option<crate::record::StepInference>,
    restarts: u64,
}

/// Where the step led, as the run's abstraction and novelty see it.
struct Seen {
    analysis: Analysis,
    new_state: bool,
    novelty: crate::novelty::Novelty,
    time: Duration,
}

/// The steps of one worker, each in its phases: begin (episode bookkeeping, the
/// candidates), decide, act, analyse, learn, judge and record, then move on.
fn steps(w: &mut Worker, hub: &Hub) {
    let opts = hub.opts;
    let Some(mut cur) = w.reset(hub) else {
        return;
    };
    let mut empty_starts = 0;
    let mut train_time = Duration::ZERO;

    while !hub.exhausted() && hub.halted().is_none() {
        let begun = match begin(w, hub, &mut cur, &mut train_time, &mut empty_starts) {
            Flow::Go(b) => b,
            Flow::Next => continue,
            Flow::Stop => break,
        };
        let decided = match decide(w, hub, &mut cur, &begun) {
            Flow::Go(d) => d,
            Flow::Next => {
                cur.episode_step = opts.episode_steps;
                continue;
            }
            Flow::Stop => break,
        };
        // Another worker may have taken the budget's last step meanwhile.
        if !hub.claim() {
            break;
        }
        w.steps += 1;
        cur.episode_step += 1;
        let Some(mut acted) = act(w, hub, &cur, &decided.action) else {
            break;
        };
        if acted.done.error.is_none() {
            cur.trace.push(acted.trace_step.clone());
        }
        w.restarts += acted.restarts;
        let seen = analyse(w, hub, &acted);
        let (learn_time, trained) = learn(w, &mut cur, &decided.action, &mut acted, &seen);
        let restarted = acted.done.outcome.restarted;
        let logged_out = acted
            .done
            .outcome
            .events
            .iter()
            .any(|e| e.kind == EventKind::LoggedOut);
        let next_obs = judge_and_record(
            w,
            hub,
            &cur,
            begun,
            decided,
            acted,
            &seen,
            (learn_time, trained),
        );
        cur.obs = next_obs;
        cur.analysis = seen.analysis;
        if logged_out && !restarted {
            // Exploring the login page until the episode ends would waste it: reset now.
            cur.episode_step = opts.episode_steps;
        }
        if restarted {
            restarted_episode(w, hub, &mut cur, &mut train_time);
        }
    }
}

/// Begin a step: stop when asked, hand the browser over to shrinking when it is its
/// turn, end the episode when it is over, and list what may be done here.
fn begin(
    w: &mut Worker,
    hub: &Hub,
    cur: &mut Cursor,
    train_time: &mut Duration,
    empty_starts: &mut u32,
) -> Flow<Begun> {
    let opts = hub.opts;
    if opts.stop.load(Ordering::Relaxed) {
        hub.halt("interrupted".to_string(), false);
        return Flow::Stop;
    }
    // A failure found is shrunk while the others explore: this browser's turn.
    // The page is wherever the work left it: the episode ends here.
    if hand_over(w, hub) {
        cur.episode_step = opts.episode_steps;
        return Flow::Next;
    }
    if cur.episode_step >= opts.episode_steps {
        let t_train = Instant::now();
        w.agent.get().on_episode_end();
        *train_time += t_train.elapsed();
        share_snapshot(w.agent.get(), hub.lock().observers);
        match w.reset(hub) {
            Some(next) => *cur = next,
            None => return Flow::Stop,
        }
    }
    // Training at the episode's end is counted with the step that follows it.
    let now = Instant::now();
    let step_start = now.checked_sub(*train_time).unwrap_or(now);
    let train = std::mem::take(train_time);
    let candidates = offered_actions(&cur.obs, &opts.deny, cur.episode_step > 0, w.agent.get());
    // The specification's generators offer theirs at this state (none without them),
    // and may take the step instead of the strategy.
    let generated = match cur.planned {
        None => w.env.spec_actions(spec_mix::seed(opts.seed, w.id, w.steps)),
        Some(_) => Vec::new(),
    };
    let spec_choice = spec_mix::pick(&generated, !candidates.is_empty(), &mut w.rng);
    // Listing the candidates is part of deciding.
    let listing = step_start.elapsed();
    {
        let mut s = hub.lock();
        for a in &candidates {
            s.tally.actions.insert((
                cur.analysis.url.clone(),
                format!("{} {}", a.kind.as_str(), a.target.as_deref().unwrap_or("")),
            ));
        }
    }
    if candidates.is_empty() && spec_choice.is_none() {
        if cur.episode_step == 0 {
            match empty_start(w, hub, cur, empty_starts) {
                Start::Again => return Flow::Next,
                Start::Empty => {}
                Start::Over => return Flow::Stop,
            }
        }
        // A dead end with nowhere to go back to: start a new episode.
        cur.episode_step = opts.episode_steps;
        return Flow::Next;
    }
    *empty_starts = 0;
    Flow::Go(Begun {
        step_start,
        train,
        candidates,
        spec_choice,
        listing,
    })
}

/// Decide the action: one planned while a guessed state was validated, one the
/// specification's generators offered, or the strategy's choice. `Next`: the episode
/// ends here (a planned reset, or the strategy asked for one).
fn decide(w: &mut Worker, hub: &Hub, cur: &mut Cursor, begun: &Begun) -> Flow<Decided> {
    let opts = hub.opts;
    match (cur.planned.take(), begun.spec_choice.clone()) {
        (Some(Planned::Reset), _) => Flow::Next,
        (
            Some(Planned::Act {
                action,
                decision,
                decide,
            }),
            _,
        ) => Flow::Go(Decided {
            action,
            decision,
            decided: decide,
            asked: Duration::ZERO,
        }),
        (None, Some(action)) => Flow::Go(Decided {
            action,
            decision: Some("offered by the specification's action generators".to_string()),
            decided: Duration::ZERO,
            asked: Duration::ZERO,
        }),
        (None, None) => {
            let t_decide = Instant::now();
            let view = View {
                observation: &cur.obs,
                analysis: &cur.analysis,
                actions: &begun.candidates,
                episode_step: cur.episode_step,
            };
            let agent = w.agent.get();
            // Only mid-episode: a reset at the start would change nothing and could
            // repeat forever.
            if cur.episode_step > 0 && agent.wants_reset(&view) {
                return Flow::Next;
            }
            // A picture of the page for a vision prompt, only when the agent asks.
            let mut pictured = Duration::ZERO;
            if let Some(region) = agent.wants_picture(&view) {
                let t_picture = Instant::now();
                cur.obs.picture = w.env.picture(region).map(|png| Picture {
                    png: Arc::new(png),
                    region,
                });
                pictured = t_picture.elapsed();
            }
            let view = View {
                observation: &cur.obs,
                analysis: &cur.analysis,
                actions: &begun.candidates,
                episode_step: cur.episode_step,
            };
            let asked_before = llm_seconds(opts);
            let agent = w.agent.get();
            let action = agent.choose(&view, &mut w.rng);
            let asked =
                Duration::from_secs_f64((llm_seconds(opts) - asked_before).max(0.0)) + pictured;
            Flow::Go(Decided {
                action,
                decision: agent.rationale(),
                decided: t_decide.elapsed().saturating_sub(asked),
                asked,
            })
        }
    }
}

/// Perform `action` (trying state inference's guesses where it has some), then read
/// what the step made the server run and name its target. None: the browser is gone
/// (the step is given back and the worker retires).
fn act(w: &mut Worker, hub: &Hub, cur: &Cursor, action: &crate::model::Action) -> Option<Acted> {
    let opts = hub.opts;
    let target = action
        .target
        .as_deref()
        .and_then(|t| cur.obs.element(t))
        .map(|e| e.describe());
    let mut trace_step = TraceStep::new(action.clone(), &cur.obs);

    // State inference: the interaction's keys, and whether to try guesses.
    let keys = w.predictor.as_mut().map(|p| p.keys(&cur.obs, action));
    let (plan, inference) = match (&w.predictor, keys) {
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
        last: cur.episode_step >= opts.episode_steps || hub.exhausted(),
        next_episode_step: cur.episode_step,
    };
    let tried = match (w.predictor.as_mut(), guesses) {
        (Some(p), Some(g)) => Some(Trying {
            predictor: p,
            guesses: g,
            agent: w.agent.get(),
            rng: &w.rng,
            ctx,
        }),
        _ => None,
    };
    let done = match perform(w.env, action, (&cur.obs, &cur.analysis), tried) {
        Ok(done) => done,
        Err(e) => {
            // The step never happened: another worker may take it.
            hub.release();
            w.steps -= 1;
            w.fail(e, hub);
            return None;
        }
    };
    if let Some(p) = w.predictor.as_mut() {
        p.stats.steps += 1;
        if done.accepted.is_some() {
            p.stats.predicted += 1;
        }
    }
    // The browser read the target's role and name from its accessibility tree, and
    // counted Playwright's other ways to it, just before acting: what the trace, the
    // report and exported tests name it by.
    // A target the observation did not hold (the page changed since it was read) is
    // named all the same.
    if let (Some(n), Some(t)) = (&done.target_name, trace_step.action.target.as_deref()) {
        trace_step
            .element
            .get_or_insert_with(ElementHint::default)
            .name_from_target(n, t);
    }
    let restarts = if done.outcome.restarted {
        done.outcome
            .events
            .iter()
            .filter(|e| e.kind == EventKind::BrowserRestart)
            .count()
            .max(1) as u64
    } else {
        0
    };
    Some(Acted {
        done,
        trace_step,
        target,
        keys,
        plan,
        inference,
        restarts,
    })
}

/// Where the step led: its state (a guessed one comes with its analysis), and what it
/// newly caused (a script, an endpoint, a page, functions, server lines): cheap set
/// lookups over the step's events. Functions come from the coverage taken so far, which
/// lazy coverage takes at page leaves: they may be credited late.
fn analyse(w: &mut Worker, hub: &Hub, acted: &Acted) -> Seen {
    let outcome = &acted.done.outcome;
    let t_analysis = Instant::now();
    let functions = acted.done.aftermath.functions;
    // A guessed state comes with its analysis: it was seen before.
    let guessed = acted
        .done
        .accepted
        .as_ref()
        .map(|a| a.guess.analysis.clone());
    // One lock for the state and the novelty: the hub is shared by every worker.
    let (mut analysis, scanned, new_state, novelty) = {
        let mut s = hub.lock();
        let (analysis, scanned, new_state) = match guessed {
            Some(g) => (g, false, false),
            None => {
                let states_before = s.abstraction.states();
                let analysis = s.abstraction.analyse(&outcome.observation);
                let new_state = s.abstraction.states() > states_before;
                (analysis, true, new_state)
            }
        };
        let mut n = s
            .novelty
            .absorb(&outcome.events, &outcome.observation.url, functions);
        n.regions = s
            .novelty
            .regions(&outcome.observation.url, &outcome.observation.regions);
        n.server_lines = acted.done.aftermath.server_lines;
        (analysis, scanned, new_state, n)
    };
    if scanned {
        w.agent
            .get()
            .annotate(&outcome.observation, analysis.data_mut());
    }
    Seen {
        analysis,
        new_state,
        novelty,
        time: t_analysis.elapsed(),
    }
}

/// What the step teaches: state inference's knowledge base (a guess confirmed, or the
/// scan recorded), and the strategy (the transition it saw, or the one the copy that
/// lived an accepted guess saw). The learning time, less the training inside it, and
/// that training.
fn learn(
    w: &mut Worker,
    cur: &mut Cursor,
    action: &crate::model::Action,
    acted: &mut Acted,
    seen: &Seen,
) -> (Duration, Duration) {
    let t_learn = Instant::now();
    let Done {
        outcome,
        error,
        accepted,
        ..
    } = &mut acted.done;
    if let (Some(p), Some(k), Some(info)) =
        (w.predictor.as_mut(), acted.keys, acted.inference.as_mut())
    {
        match accepted {
            Some(a) => {
                p.confirm(k, &a.guess);
                info.accepted = Some(a.index);
                // Data that grows with the run is refined on the guessed page, and the
                // knowledge base keeps the refined value.
                let mut refined = a.guess.analysis.clone();
                // With other workers the worker's own agent lives the guess (below).
                let refiner = match w.shares {
                    true => w.agent.get(),
                    false => a.agent.as_mut(),
                };
                if refiner.refine(&a.obs, refined.data_mut()) {
                    a.guess = p.refine(k, &a.guess, refined);
                }
            }
            // What a scan found after a performed action is knowledge; a failed step or
            // a restart says nothing about the interaction.
            None if error.is_none()
                && !outcome.restarted
                && matches!(
                    acted.plan,
                    Some(Plan::Try(_)) | Some(Plan::Scan { record: true })
                ) =>
            {
                p.record(k, &outcome.observation, &seen.analysis);
            }
            None => {}
        }
    }
    match accepted.take() {
        // A copy's learning would stay in the copy, away from the mind the workers
        // share: the worker's own agent learns the guessed transition, and chooses its
        // next action anew on the guessed page (the copy's choice validated the page).
        Some(a) if w.shares => {
            w.agent.get().learn(&Transition {
                state: cur.analysis.state,
                observation: &cur.obs,
                action,
                next_state: seen.analysis.state,
                next_observation: &a.obs,
                events: &outcome.events,
                new_state: false,
                failed: false,
                novelty: seen.novelty,
            });
            cur.planned = None;
        }
        // The copy that lived the guess already learned it and chose the next action.
        Some(a) => {
            w.agent = Driver::Owned(a.agent);
            w.rng = a.rng;
            cur.planned = a.planned;
        }
        None => w.agent.get().learn(&Transition {
            state: cur.analysis.state,
            observation: &cur.obs,
            action,
            next_state: seen.analysis.state,
            next_observation: &outcome.observation,
            events: &outcome.events,
            new_state: seen.new_state,
            failed: error.is_some(),
            novelty: seen.novelty,
        }),
    }
    let learn_time = t_learn.elapsed();
    // Training along the episode (inside `learn`) is reported as training.
    let trained = w.agent.get().take_train_time();
    (learn_time.saturating_sub(trained), trained)
}

/// Judge the step's events and page and record the step, under the hub's lock: the step
/// takes its number here, so the store sees the steps of all workers in order, each
/// once. Failures are judged before a restart clears the trace, so it keeps the actions
/// that led to the crash. Returns the page the step led to.
#[allow(clippy::too_many_arguments)]
fn judge_and_record(
    w: &mut Worker,
    hub: &Hub,
    cur: &Cursor,
    begun: Begun,
    decided: Decided,
    acted: Acted,
    seen: &Seen,
    (learn_time, trained): (Duration, Duration),
) -> Observation {
    let opts = hub.opts;
    let Decided {
        action,
        decision,
        decided,
        asked,
    } = decided;
    let Acted {
        done,
        trace_step,
        target,
        inference,
        restarts,
        ..
    } = acted;
    let Done {
        outcome,
        error,
        validate,
        aftermath,
        ..
    } = done;
    let train = begun.train + trained;
    let form = if error.is_none() {
        w.forms
            .step(&cur.obs, &action, &outcome.observation, decision.as_deref())
    } else {
        None
    };
    let server = aftermath.server_output;
    let logged_out = outcome
        .events
        .iter()
        .any(|e| e.kind == EventKind::LoggedOut);
    let mut guard = hub.lock();
    let s = &mut *guard;
    s.steps += 1;
    let step = s.steps;
    s.tally.urls.insert(seen.analysis.url.clone());
    if error.is_some() {
        s.tally.step_errors += 1;
    }
    s.tally.restarts += restarts;
    let t_judge = Instant::now();
    if action.kind == ActionKind::Type {
        if let Some(v) = action.value.as_ref().filter(|v| !v.is_empty()) {
            s.typed.insert(v.clone());
        }
    }
    let findings = judge(
        &opts.oracles,
        cur,
        (&outcome.events, &server),
        step,
        &mut s.book,
        s.observers,
        &outcome.observation,
        &s.typed,
        w.env,
    );
    let timings = StepTimings {
        scan: outcome.timings.scan,
        analysis: seen.time,
        decide: decided + begun.listing,
        act: outcome.timings.act,
        wait: outcome.timings.wait,
        validate,
        coverage: outcome.timings.coverage,
        judge: t_judge.elapsed(),
        learn: learn_time,
        name: outcome.timings.name,
        spec: outcome.timings.spec,
        train,
        llm: asked,
        server: aftermath.server_time,
        total: begun.step_start.elapsed(),
    };
    s.tally.timings.push(timings);
    if w.id == 0 {
        hub.probe(s, w.steps);
    }
    let record = StepRecord {
        step,
        episode: cur.episode,
        worker: w.id,
        episode_step: cur.episode_step,
        action,
        target,
        state_before: cur.analysis.state,
        state_after: seen.analysis.state,
        url_after: outcome.observation.url.clone(),
        title_after: outcome.observation.title.clone(),
        element: trace_step.element,
        new_state: seen.new_state,
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
        novelty: seen.novelty,
    };
    let progress = progress(s, opts, hub.started, hub.active(), w.env);
    let t_observers = Instant::now();
    for o in s.observers.iter_mut() {
        o.on_step(&record, &progress);
    }
    s.tally.observers.push(t_observers.elapsed());
    if logged_out && !outcome.restarted {
        s.tally.logged_out += 1;
    }
    outcome.observation
}

/// The environment reset itself (a restarted browser, a crashed page): a new episode
/// from its start page.
fn restarted_episode(w: &mut Worker, hub: &Hub, cur: &mut Cursor, train_time: &mut Duration) {
    let t_train = Instant::now();
    w.agent.get().on_episode_end();
    *train_time += t_train.elapsed();
    let mut s = hub.lock();
    share_snapshot(w.agent.get(), s.observers);
    s.episodes += 1;
    cur.episode = s.episodes;
    w.episodes += 1;
    cur.episode_step = 0;
    cur.trace.clear();
    cur.planned = None;
}

/// What became of a start page that offered nothing.
enum Start {
    /// Look at it again: it changed while waited for, or a fresh browser shows it.
    Again,
    /// Still nothing: the next episode resets.
    Empty,
    /// The run halted, or this worker retired.
    Over,
}

/// The start page offered nothing. An application that renders late (a workspace
/// restored after the load) is waited for first; resets that still find nothing count,
/// and at the limit a fresh browser gets one try before the run halts saying what the
/// page showed.
fn empty_start(w: &mut Worker, hub: &Hub, cur: &mut Cursor, empty_starts: &mut u32) -> Start {
    match await_start(w, hub, cur) {
        Ok(true) => return Start::Again,
        Ok(false) => {}
        Err(e) => {
            w.fail(e, hub);
            return Start::Over;
        }
    }
    *empty_starts += 1;
    if *empty_starts < EMPTY_START_LIMIT || hub.halted().is_some() {
        return Start::Empty;
    }
    let seen = seen_on(&cur.obs);
    let shot = w.env.screenshot();
    for o in hub.lock().observers.iter_mut() {
        o.on_empty_start(w.id, &seen, shot.as_deref());
    }
    let wait = super::START_WAIT.as_secs();
    // A fresh browser cannot help a server that never answered the start page.
    if cur.obs.status.is_none() {
        hub.halt(
            format!(
                "the start page offered no action after {EMPTY_START_LIMIT} resets: its document                  never answered (it was {seen}); is the application's server up?"
            ),
            true,
        );
        return Start::Over;
    }
    if *empty_starts > EMPTY_START_LIMIT {
        hub.halt(
            format!(
                "the start page offered no action after {EMPTY_START_LIMIT} resets and a fresh \
                 browser, each waited for up to {wait}s: it was {seen}; does it load, and is \
                 anything on it clickable?"
            ),
            true,
        );
        return Start::Over;
    }
    let why = format!("the start page offered no action after {EMPTY_START_LIMIT} resets");
    tracing::warn!(
        worker = w.id,
        "{why}, each waited for up to {wait}s (it was {seen}): trying a fresh browser"
    );
    match relaunch(w, hub, &why) {
        Some(next) => {
            *cur = next;
            Start::Again
        }
        None => Start::Over,
    }
}

/// Wait, up to `START_WAIT`, for a start page that offered nothing to offer something;
/// whether it does (`cur` then holds the page as it is now). A look that failed is as
/// good as no change; only an environment gone for good is an error.
fn await_start(w: &mut Worker, hub: &Hub, cur: &mut Cursor) -> Result<bool, EnvError> {
    // A start page whose document never answered waits on its server, not on rendering.
    if cur.obs.status.is_none() {
        return Ok(false);
    }
    let t = Instant::now();
    let mut offers = false;
    let mut failed = None;
    while !offers && !hub.exhausted() && hub.halted().is_none() {
        let left = super::START_WAIT.saturating_sub(t.elapsed());
        if left.is_zero() {
            break;
        }
        match w.env.await_change(left) {
            Ok(Some(out)) => {
                absorb_start(w, hub, cur, out);
                offers =
                    !offered_actions(&cur.obs, &hub.opts.deny, false, w.agent.get()).is_empty();
            }
            Ok(None) => break,
            Err(e) if e.is_fatal() => {
                failed = Some(e);
                break;
            }
            Err(e) => {
                tracing::debug!(worker = w.id, "waiting for the start page: {e}");
                break;
            }
        }
    }
    // Getting to a start page that shows something is part of the reset.
    hub.lock().tally.resets += t.elapsed();
    match failed {
        Some(e) => Err(e),
        None => Ok(offers),
    }
}

/// The start page as it is after waiting replaces the one the reset saw: analysed, and
/// what it raised meanwhile judged, within the same episode.
fn absorb_start(w: &mut Worker, hub: &Hub, cur: &mut Cursor, out: crate::env::Outcome) {
    // What the start page made the server run is where exploration begins (its lines
    // are not the first step's).
    let after = w.env.aftermath();
    let (server, functions) = (after.server_output, after.functions);
    let mut guard = hub.lock();
    let s = &mut *guard;
    s.novelty
        .absorb(&out.events, &out.observation.url, functions);
    s.novelty
        .regions(&out.observation.url, &out.observation.regions);
    let mut analysis = s.abstraction.analyse(&out.observation);
    w.agent
        .get()
        .annotate(&out.observation, analysis.data_mut());
    s.tally.urls.insert(analysis.url.clone());
    if out.restarted {
        w.restarts += 1;
        s.tally.restarts += 1;
    }
    cur.obs = out.observation;
    cur.analysis = analysis;
    judge(
        &hub.opts.oracles,
        cur,
        (&out.events, &server),
        s.steps,
        &mut s.book,
        s.observers,
        &cur.obs,
        &s.typed,
        w.env,
    );
}

/// A fresh browser and a new episode on its start page; `None` when there is none (the
/// worker retires, or the run halts).
fn relaunch(w: &mut Worker, hub: &Hub, why: &str) -> Option<Cursor> {
    w.agent.get().on_episode_end();
    share_snapshot(w.agent.get(), hub.lock().observers);
    let t = Instant::now();
    let relaunched = w.env.relaunch(why);
    hub.lock().tally.resets += t.elapsed();
    let out = match relaunched {
        Ok(out) => out,
        Err(e) => {
            w.fail(e, hub);
            return None;
        }
    };
    let mut s = hub.lock();
    w.restarts += 1;
    s.tally.restarts += 1;
    let cur = begin_episode(
        out,
        w.id,
        w.env,
        w.agent.get(),
        &mut s,
        (hub.opts, hub.started, hub.active()),
    );
    w.episodes += 1;
    Some(cur)
}

/// What a page showed, for a message: its URL, title and first text.
fn seen_on(obs: &Observation) -> String {
    format!(
        "{} (title {:?}) showing {:?}",
        obs.url,
        obs.title,
        html_text(&obs.html, SEEN_CHARS)
    )
}

/// Characters of a page's text a message quotes.
const SEEN_CHARS: usize = 200;

/// The text of the scan's simplified HTML, whitespace collapsed, cut at `max` characters.
pub(super) fn html_text(html: &str, max: usize) -> String {
    let mut text = String::with_capacity(html.len().min(4 * max));
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                text.push(' ');
            }
            '>' if in_tag => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match words.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &words[..cut]),
        None => words,
    }
}
