//! After exploring: each unique failure shrunk by replay (first the shorter ways the
//! run's state graph knows, then delta debugging, each replay from a reset behind the
//! application so a restarted server or the reset hook comes before it), then its minimal
//! trace replayed again to tell a confirmed failure from a flaky one, all within a share
//! of the run's time.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use wayfarer_core::findings::{ShrinkSummary, Shrunk};
use wayfarer_core::minimize::{minimize, minimize_replayed, Limits};
use wayfarer_core::replay::{replay, Replay};
use wayfarer_core::shortcut::{self, Move, Part};
use wayfarer_core::{
    Environment, Failure, Observer, Oracles, RunSummary, StateId, StepRecord, TraceStep,
};

use wayfarer_report::one_line;

use crate::{Notice, Notices, RunError};

/// `--shrink`: how much time shrinking gets after the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShrinkBudget {
    Off,
    /// A share (0-1] of the time the run explored.
    Share(f64),
    Fixed(Duration),
}

/// Shrinking's default share of the exploring time.
pub const DEFAULT_SHARE: f64 = 0.2;
/// Replays that confirm a minimal trace, by default.
pub const DEFAULT_CONFIRM: u32 = 3;

impl Default for ShrinkBudget {
    fn default() -> ShrinkBudget {
        ShrinkBudget::Share(DEFAULT_SHARE)
    }
}

impl ShrinkBudget {
    /// The time it gives after a run that explored for `explored`; `None` when off.
    pub fn time(self, explored: Duration) -> Option<Duration> {
        match self {
            ShrinkBudget::Off => None,
            ShrinkBudget::Share(s) => Some(explored.mul_f64(s)),
            ShrinkBudget::Fixed(d) => Some(d),
        }
    }
}

impl std::str::FromStr for ShrinkBudget {
    type Err = String;

    fn from_str(s: &str) -> Result<ShrinkBudget, String> {
        let t = s.trim();
        let bad = || {
            format!(
                "--shrink {s:?}: give `off`, a share of the exploring time (`20%`) or a time (`90s`, `5m`)"
            )
        };
        if t == "off" {
            return Ok(ShrinkBudget::Off);
        }
        if let Some(p) = t.strip_suffix('%') {
            let p: f64 = p.trim().parse().map_err(|_| bad())?;
            if !(p > 0.0 && p <= 1000.0) {
                return Err(format!(
                    "--shrink {s:?}: a share must be above 0% (and at most 1000%); `off` turns shrinking off"
                ));
            }
            return Ok(ShrinkBudget::Share(p / 100.0));
        }
        // A time as a run's budget reads one (90s, 5m, 1h); a count of actions is not one.
        match t.parse::<wayfarer_core::Budget>() {
            Ok(wayfarer_core::Budget {
                actions: None,
                time: Some(d),
            }) => Ok(ShrinkBudget::Fixed(d)),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for ShrinkBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShrinkBudget::Off => f.write_str("off"),
            ShrinkBudget::Share(s) => write!(f, "{}%", (s * 100.0 * 10.0).round() / 10.0),
            ShrinkBudget::Fixed(d) => write!(f, "{}s", d.as_secs_f64()),
        }
    }
}

/// The shrinking phase after a run whose `graph` holds its failures (their traces
/// unmasked) and steps: each failure's result into its summary line, the phase's into `summary.shrink`.
/// Returns whether the summary changed. Skipped, saying why, when the user stopped the
/// run, the environment ended it, or no failure's replays fit in the budget.
pub fn after_run<E: Environment>(
    summary: &mut RunSummary,
    graph: &Graph,
    oracles: &Oracles,
    (shrink, confirm): (ShrinkBudget, u32),
    stopped: bool,
    launch: impl FnOnce() -> Result<E, RunError>,
    say: Notices,
) -> bool {
    let found = &graph.failures;
    let explored = Duration::from_secs_f64(summary.duration_s.max(0.0));
    let Some(time) = shrink.time(explored) else {
        return false;
    };
    if found.is_empty() {
        return false;
    }
    let skip = if stopped {
        Some("the run was stopped".to_string())
    } else if summary.ended_by_environment {
        Some("the environment ended the run".to_string())
    } else {
        None
    };
    if let Some(why) = skip {
        say(Notice::Info(format!(
            "wayfarer: failures not shrunk ({why}); `wayfarer minimize TRACE` shrinks one"
        )));
        return false;
    }
    let confirm = confirm.max(1);
    let cost = ReplayCost::of(summary);
    let mut phase = ShrinkSummary {
        budget_s: time.as_secs_f64(),
        confirm_runs: confirm,
        skipped: found.len(),
        ..ShrinkSummary::default()
    };
    // Each failure's shorter ways, found once: they size the budget check and are tried.
    let jobs: Vec<(&Failure, Vec<Vec<Part>>)> = found
        .iter()
        .map(|f| (f, graph.shortcuts(f, SHORTCUTS)))
        .collect();
    let shortest = jobs
        .iter()
        .map(|(f, ways)| {
            ways.first()
                .map_or(f.trace.len(), |w| w.len().min(f.trace.len()))
        })
        .min()
        .unwrap_or(0);
    let each = if cost.replay(shortest) * (confirm + 1) > time {
        say(Notice::Info(format!(
            "wayfarer: failures not shrunk: {:.0} s (--shrink {shrink}) is less than {} replays of the shortest trace take",
            time.as_secs_f64(),
            confirm + 1
        )));
        Vec::new()
    } else {
        say(Notice::Info(format!(
            "wayfarer: shrinking {} failure(s) by replay in a fresh browser (up to {:.0} s, --shrink {shrink}), each minimal trace replayed {confirm} times",
            found.len(),
            time.as_secs_f64()
        )));
        match launch() {
            Ok(mut env) => {
                let (each, p) = shrink_all(&mut env, &jobs, oracles, time, confirm, cost, say);
                env.close();
                phase = p;
                each
            }
            Err(e) => {
                say(Notice::Warning(format!(
                    "warning: failures not shrunk: {e}"
                )));
                phase.error = Some(e.to_string());
                Vec::new()
            }
        }
    };
    for line in &mut summary.failures {
        line.shrunk = each
            .iter()
            .find(|(sig, _)| *sig == line.signature)
            .map(|(_, r)| r.clone());
    }
    summary.shrink = Some(phase);
    true
}

/// What a replay costs, as the exploration measured it: a reset, and a step.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayCost {
    pub reset: Duration,
    pub step: Duration,
}

impl ReplayCost {
    /// From a run's summary: its mean step and mean reset.
    pub fn of(s: &wayfarer_core::RunSummary) -> ReplayCost {
        let resets = s.episodes.max(1) as f64;
        ReplayCost {
            reset: Duration::from_secs_f64((s.resets_s / resets).max(0.0)),
            step: Duration::from_secs_f64((s.time_split.step / 1e3).max(0.0)),
        }
    }

    /// One replay of `n` actions.
    pub fn replay(&self, n: usize) -> Duration {
        self.reset + self.step * n as u32
    }
}

/// Shrink and confirm each of `failures` (their traces as recorded, secrets filled in)
/// in `env` within `budget`. First every failure gets its cheap replays, shortest trace
/// first: the shortcuts the run's state `graph` knows and the pruned trace (one replay
/// each), which take most of the length away. Then delta debugging shares what is left
/// by what each failure's search will cost (a replay of what it starts from, times the log
/// of its length), so a long trace is not starved by a short one shrunk first. Returns
/// each failure's result by signature, and the phase's summary. A replay the environment
/// cannot do (the browser gone) ends the phase; what was done is kept.
#[allow(clippy::too_many_arguments)]
pub fn shrink_all(
    env: &mut dyn Environment,
    failures: &[(&Failure, Vec<Vec<Part>>)],
    oracles: &Oracles,
    budget: Duration,
    confirm: u32,
    cost: ReplayCost,
    say: Notices,
) -> (Vec<(String, Shrunk)>, ShrinkSummary) {
    let began = Instant::now();
    let end = began + budget;
    let confirm = confirm.max(1);
    let mut out = Vec::new();
    let mut error = None;
    let n = failures.len();
    // Shortest traces first: with time for only some failures, shrink as many as it can.
    let mut order: Vec<&(&Failure, Vec<Vec<Part>>)> = failures.iter().collect();
    order.sort_by_key(|(f, _)| f.trace.len());
    let mut ready = Vec::new();
    for (i, (f, ways)) in order.into_iter().enumerate() {
        if Instant::now() >= end {
            break;
        }
        match prepare(env, f, ways, oracles, end, confirm, cost) {
            Ok(Ok(p)) => ready.push((i, p)),
            Ok(Err(why)) => say(Notice::Info(format!(
                "  {}/{n} {}: not shrunk: {why}",
                i + 1,
                one_line(&f.message, 70)
            ))),
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    let weights: Vec<f64> = ready.iter().map(|(_, p)| p.weight(cost)).collect();
    for (k, (i, p)) in ready.into_iter().enumerate() {
        if error.is_some() {
            break;
        }
        let now = Instant::now();
        let share = share_of(weights[k], &weights[k + 1..]);
        // Past the end, delta debugging stops at once and what was pruned is confirmed.
        let deadline = now + end.saturating_duration_since(now).mul_f64(share);
        let f = p.f;
        match finish(env, p, oracles, deadline, confirm) {
            Ok(shrunk) => {
                say(Notice::Info(format!(
                    "  {}/{n} {}: {}",
                    i + 1,
                    one_line(&f.message, 70),
                    describe(&shrunk)
                )));
                out.push((f.signature.clone(), shrunk));
            }
            Err(e) => error = Some(e.to_string()),
        }
    }
    let skipped = n - out.len();
    if let Some(e) = &error {
        say(Notice::Warning(format!(
            "warning: shrinking stopped: {e}; {skipped} failure(s) keep their recorded trace"
        )));
    } else if skipped > 0 {
        say(Notice::Warning(format!(
            "warning: the shrink budget ({:.0} s) was too short for {skipped} failure(s): they keep their recorded trace (--shrink sets it)",
            budget.as_secs_f64()
        )));
    }
    let summary = ShrinkSummary {
        budget_s: budget.as_secs_f64(),
        seconds: began.elapsed().as_secs_f64(),
        confirm_runs: confirm,
        skipped,
        error,
    };
    (out, summary)
}

/// Shortcuts tried per failure at most.
const SHORTCUTS: usize = 5;

/// The share of the time left that a failure claiming `w` gets, with `rest` still to come.
fn share_of(w: f64, rest: &[f64]) -> f64 {
    w / (w + rest.iter().sum::<f64>())
}

/// A failure after its cheap replays: the steps delta debugging starts from, the replay
/// of them when one was done, and what it took so far.
struct Prepared<'a> {
    f: &'a Failure,
    base: Vec<Part>,
    replayed: Option<Replayed>,
    tried: u32,
    /// The time its cheap replays took.
    took: Duration,
}

impl Prepared<'_> {
    /// Its claim on delta debugging's time: ddmin's tests on n actions cost about n log n
    /// steps, plus a reset each.
    fn weight(&self, cost: ReplayCost) -> f64 {
        let n = self.base.len();
        cost.replay(n).as_secs_f64().max(1e-3) * ((n + 1) as f64).log2().max(1.0)
    }
}

/// One failure's cheap replays (its shortcuts, then the pruned trace), while (confirm + 1)
/// replays of what is tried still fit before `end`: where delta debugging starts, or why
/// the failure is not shrunk (`Ok(Err(..))`), or the environment's fatal error.
#[allow(clippy::too_many_arguments)]
fn prepare<'a>(
    env: &mut dyn Environment,
    f: &'a Failure,
    ways: &[Vec<Part>],
    oracles: &Oracles,
    end: Instant,
    confirm: u32,
    cost: ReplayCost,
) -> Result<Result<Prepared<'a>, String>, wayfarer_core::EnvError> {
    let started = Instant::now();
    let n = f.trace.len();
    let fits = |len: usize| {
        cost.replay(len) * (confirm + 1) <= end.saturating_duration_since(Instant::now())
    };
    let mut tried = 0u32;
    let mut outcomes: Vec<String> = Vec::new();
    // The shortcut that raised it, and its replay (delta debugging's first test).
    let mut base: Option<(Vec<Part>, Replay, Duration)> = None;
    for cand in ways {
        if !fits(cand.len()) {
            break;
        }
        tried += 1;
        let steps = steps_of(cand, &f.trace);
        let t = Instant::now();
        let r = replay(env, &steps, oracles, &f.signature, true)?;
        let took = t.elapsed();
        outcomes.push(match (&r.blocked, r.hit) {
            (_, Some(_)) => format!("{} actions raised it", cand.len()),
            (Some((at, why)), None) => format!(
                "{} actions: action {} could not be done ({})",
                cand.len(),
                at + 1,
                one_line(why, 60)
            ),
            (None, None) => format!("{} actions did not raise it", cand.len()),
        });
        tracing::debug!(
            failure = %one_line(&f.message, 60),
            shortcut = %steps.iter().map(|s| s.action.describe()).collect::<Vec<_>>().join(" | "),
            outcome = %outcomes.last().map(String::as_str).unwrap_or(""),
            "shortcut replayed"
        );
        if let (Some(k), false) = (r.hit, r.at_reset) {
            base = Some((cand[..=k].to_vec(), r, took));
            break;
        }
    }
    let (base, replayed) = match base {
        Some((b, r, took)) => (b, Some((r, took))),
        None if fits(n) => ((0..n).map(Part::Trace).collect(), None),
        None => {
            return Ok(Err(format!(
                "replaying its {n} actions {} times takes about {:.0} s, more than the time left{}",
                confirm + 1,
                (cost.replay(n) * (confirm + 1)).as_secs_f64(),
                if tried > 0 {
                    format!(" (shorter ways tried: {})", outcomes.join("; "))
                } else {
                    String::new()
                }
            )))
        }
    };
    let (base, replayed) = prune(env, base, replayed, f, oracles, fits, &mut tried)?;
    Ok(Ok(Prepared {
        f,
        base,
        replayed,
        tried,
        took: started.elapsed(),
    }))
}

/// Delta debugging from where `prepare` left a failure, until `deadline`, then the
/// confirming replays: its result, or the environment's fatal error.
fn finish(
    env: &mut dyn Environment,
    p: Prepared,
    oracles: &Oracles,
    deadline: Instant,
    confirm: u32,
) -> Result<Shrunk, wayfarer_core::EnvError> {
    let Prepared {
        f,
        base,
        replayed,
        mut tried,
        took,
    } = p;
    let started = Instant::now();
    let n = f.trace.len();
    let steps = steps_of(&base, &f.trace);
    let limits = Limits {
        deadline: Some(deadline),
        confirm,
    };
    let t0 = Instant::now();
    let mut progress = |k: u32, len: usize, v: wayfarer_core::ddmin::Verdict| {
        tracing::debug!(
            failure = %one_line(&f.message, 60),
            replay = k,
            actions = len,
            verdict = ?v,
            at_s = t0.elapsed().as_secs_f64(),
            "delta debugging replayed"
        );
    };
    let result = match replayed {
        // The shortcut's replay was the first test: one replay fewer.
        Some(whole) => {
            tried -= 1;
            minimize_replayed(
                env,
                &steps,
                whole,
                oracles,
                &f.signature,
                limits,
                &mut progress,
            )?
        }
        None => minimize(env, &steps, oracles, &f.signature, limits, &mut progress)?,
    };
    let mut shrunk = Shrunk {
        of: n,
        ..Shrunk::default()
    };
    let kept: Vec<usize> = match result {
        Some(m) => {
            shrunk.replays = tried + m.tests;
            shrunk.finished = m.finished;
            shrunk.outside_state = m.outside_state;
            shrunk.hits = m.hits;
            shrunk.runs = m.runs;
            m.kept
        }
        // Its first replay did not raise it: the other replays tell a flaky failure from
        // one that never comes back.
        None => {
            shrunk.replays = tried;
            shrunk.hits = replays(env, &steps, oracles, &f.signature, confirm - 1)?;
            shrunk.runs = confirm;
            shrunk.note =
                Some("its replay did not raise it the first time, so it was not shrunk".into());
            (0..base.len()).collect()
        }
    };
    for k in kept {
        match &base[k] {
            Part::Trace(j) => shrunk.kept.push(*j),
            Part::Via(st) => {
                shrunk.kept.push(n + shrunk.via.len());
                shrunk.via.push((**st).clone());
            }
        }
    }
    shrunk.seconds = (took + started.elapsed()).as_secs_f64();
    Ok(shrunk)
}

/// A replay done, and what it took: delta debugging's first test when it raised the failure.
type Replayed = (Replay, Duration);

/// `base` without the steps a replay can do without (`shortcut::resubmitted`, else
/// `shortcut::pruned`), when one replay of that shows the failure still comes: then with
/// that replay.
fn prune(
    env: &mut dyn Environment,
    base: Vec<Part>,
    replayed: Option<Replayed>,
    f: &Failure,
    oracles: &Oracles,
    fits: impl Fn(usize) -> bool,
    tried: &mut u32,
) -> Result<(Vec<Part>, Option<Replayed>), wayfarer_core::EnvError> {
    let steps = steps_of(&base, &f.trace);
    // The bolder pruning first: when it holds, it saves delta debugging the most tests.
    let ways = [
        ("resubmitted", shortcut::resubmitted(&steps)),
        ("pruned", shortcut::pruned(&steps)),
    ];
    for (how, kept) in ways.into_iter().filter_map(|(h, k)| Some((h, k?))) {
        if !fits(kept.len()) {
            continue;
        }
        let cand: Vec<Part> = kept.iter().map(|&i| base[i].clone()).collect();
        *tried += 1;
        let t = Instant::now();
        let r = replay(env, &steps_of(&cand, &f.trace), oracles, &f.signature, true)?;
        let took = t.elapsed();
        tracing::debug!(
            failure = %one_line(&f.message, 60),
            of = base.len(),
            kept = cand.len(),
            raised = r.hit.is_some(),
            how,
            "pruned trace replayed"
        );
        if let (Some(k), false) = (r.hit, r.at_reset) {
            return Ok((cand[..=k].to_vec(), Some((r, took))));
        }
    }
    Ok((base, replayed))
}

/// The steps of a candidate, each with its hint: replays aim by its locator.
fn steps_of(parts: &[Part], trace: &[TraceStep]) -> Vec<TraceStep> {
    parts
        .iter()
        .map(|p| match p {
            Part::Trace(j) => trace[*j].clone(),
            Part::Via(st) => (**st).clone(),
        })
        .collect()
}

/// The run's state graph as shrinking needs it, collected while the run goes: every
/// performed step as a move between states, and the state before each.
#[derive(Debug, Default)]
pub struct Graph {
    moves: Vec<Move>,
    /// (step, episode, state before) of every performed step.
    steps: Vec<(u64, u64, StateId)>,
    /// The page each worker is on, for the next move's `url`.
    pages: HashMap<u32, String>,
    /// Each worker's steps in its current state since it came there.
    here: HashMap<u32, Vec<TraceStep>>,
    /// Each failure as first seen, its trace unmasked.
    pub failures: Vec<Failure>,
}

impl Graph {
    /// Shortcut candidates for `f`, shortest first (none when its trace and the steps
    /// recorded for its episode do not line up).
    fn shortcuts(&self, f: &Failure, max: usize) -> Vec<Vec<Part>> {
        let mut mine: Vec<&(u64, u64, StateId)> = self
            .steps
            .iter()
            .filter(|(step, episode, _)| *episode == f.episode && *step <= f.step)
            .collect();
        mine.sort_by_key(|s| s.0);
        let states: Vec<StateId> = mine.iter().map(|s| s.2).collect();
        match states.first() {
            Some(&start) => shortcut::candidates(&self.moves, start, &states, &f.trace, max),
            None => Vec::new(),
        }
    }
}

impl Observer for Graph {
    fn on_reset(&mut self, r: &wayfarer_core::ResetRecord, _: &wayfarer_core::Progress) {
        self.pages.insert(r.worker, r.url.clone());
        self.here.remove(&r.worker);
    }

    fn on_step(&mut self, r: &StepRecord, _: &wayfarer_core::Progress) {
        let page = self
            .pages
            .insert(r.worker, r.url_after.clone())
            .unwrap_or_default();
        if r.error.is_some() {
            return;
        }
        self.steps.push((r.step, r.episode, r.state_before));
        let here = self.here.entry(r.worker).or_default();
        // Where "back" leads depends on the history, which a replay from a reset lacks.
        if r.action.uses_history() {
            here.clear();
            return;
        }
        let step = TraceStep {
            action: r.action.clone(),
            element: r.element.clone(),
            url: page,
        };
        if r.state_before == r.state_after {
            here.push(step);
            return;
        }
        let mut before = std::mem::take(here);
        // A link leads where its href says, whatever was typed before it.
        if shortcut::leaves(&step) {
            before.clear();
        }
        self.moves.push(Move {
            from: r.state_before,
            to: r.state_after,
            step,
            before,
        });
    }

    fn on_failure(&mut self, f: &Failure, _: Option<&[u8]>) {
        self.failures.push(f.clone());
    }
}

/// How often `k` replays of `steps` raised `expected`.
fn replays(
    env: &mut dyn Environment,
    steps: &[TraceStep],
    oracles: &Oracles,
    expected: &str,
    k: u32,
) -> Result<u32, wayfarer_core::EnvError> {
    let mut hits = 0;
    for _ in 0..k {
        hits += u32::from(replay(env, steps, oracles, expected, true)?.reproduced());
    }
    Ok(hits)
}

/// "58 → 6 actions in 14 replays, reproduced 3/3 (9.2 s)".
pub fn describe(s: &Shrunk) -> String {
    let mut text = if s.replays == 0 {
        format!("{} actions, not shrunk", s.of)
    } else {
        format!(
            "{} → {} actions in {} replays",
            s.of,
            s.kept.len(),
            s.replays
        )
    };
    if !s.finished && s.replays > 0 {
        text.push_str(" (out of time: the shortest so far)");
    }
    if s.outside_state.is_some() {
        text.push_str(" (depends on state outside the browser)");
    }
    let verdict = s.verdict_text();
    if !verdict.is_empty() {
        text.push_str(&format!(", {verdict}"));
    }
    text.push_str(&format!(" ({:.1} s)", s.seconds));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::config::OracleConfig;
    use wayfarer_core::sim::{SimApp, SimEnv};
    use wayfarer_core::summary::FailureLine;
    use wayfarer_core::{Action, TraceStep};

    fn app() -> SimApp {
        SimApp::form_chain(3, 0)
    }

    fn oracles() -> Oracles {
        Oracles::new(OracleConfig::default(), vec![]).unwrap()
    }

    /// A random walk (detours, as a real exploration records) until the sim app's bug.
    fn found() -> Failure {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut env = SimEnv::new(app());
        let mut obs = env.reset().unwrap().observation;
        let mut trace = Vec::new();
        for _ in 0..2000 {
            let c = wayfarer_core::candidates::candidate_actions(&obs, &Default::default(), false);
            let a = c[rng.gen_range(0..c.len())].clone();
            trace.push(TraceStep::new(a.clone(), &obs));
            let out = env.step(&a).unwrap();
            if let Some(f) = oracles().judge(&out.events, None).into_iter().next() {
                return Failure {
                    kind: f.kind,
                    message: f.message,
                    signature: f.signature,
                    source: f.source,
                    line: f.line,
                    column: f.column,
                    step: trace.len() as u64,
                    episode: 1,
                    count: 1,
                    page_url: out.observation.url,
                    trace,
                };
            }
            obs = out.observation;
        }
        panic!("the walk never reached the bug");
    }

    fn graph(f: &Failure) -> Graph {
        Graph {
            failures: vec![f.clone()],
            ..Graph::default()
        }
    }

    fn summary(f: &Failure) -> RunSummary {
        RunSummary {
            duration_s: 60.0,
            episodes: 1,
            failures: vec![FailureLine::from(f)],
            ..RunSummary::default()
        }
    }

    /// The demo's two failures once pruned (5 and 8 actions, 0.6 s a reset, 0.17 s a
    /// step): the old split gave the first half the time however short it was.
    #[test]
    fn delta_debugging_time_follows_what_each_search_costs() {
        let cost = ReplayCost {
            reset: Duration::from_millis(600),
            step: Duration::from_millis(170),
        };
        let f = found();
        let at = |n: usize| Prepared {
            f: &f,
            base: (0..n).map(Part::Trace).collect(),
            replayed: None,
            tried: 0,
            took: Duration::ZERO,
        };
        let (short, long) = (at(5).weight(cost), at(40).weight(cost));
        assert!(long > 5.0 * short, "{short} {long}");
        let first = share_of(short, &[long]);
        assert!(first < 0.2, "{first}");
        // The last one gets all that is left; equal claims share equally.
        assert_eq!(share_of(long, &[]), 1.0);
        assert_eq!(share_of(short, &[short]), 0.5);
        // A trace of one action still claims its replay.
        assert!(at(1).weight(cost) >= cost.replay(1).as_secs_f64());
    }

    #[test]
    fn after_the_run_each_failure_is_shrunk_and_confirmed() {
        let f = found();
        assert!(
            f.trace.len() > 3,
            "a trace worth shrinking: {}",
            f.trace.len()
        );
        let mut s = summary(&f);
        let mut said = Vec::new();
        let changed = after_run(
            &mut s,
            &graph(&f),
            &oracles(),
            (ShrinkBudget::default(), 3),
            false,
            || Ok(SimEnv::new(app())),
            &mut |n| said.push(n),
        );
        assert!(changed);
        let sh = s.failures[0].shrunk.clone().expect("shrunk");
        assert!(sh.kept.len() <= 3, "{} of {} kept", sh.kept.len(), sh.of);
        assert!(sh.finished);
        assert_eq!((sh.hits, sh.runs), (3, 3));
        assert_eq!(sh.verdict_text(), "reproduced 3/3");
        let phase = s.shrink.expect("the phase is summarised");
        assert_eq!((phase.skipped, phase.confirm_runs), (0, 3));
        assert!((phase.budget_s - 12.0).abs() < 1e-9, "{phase:?}");
        assert!(said
            .iter()
            .any(|n| matches!(n, Notice::Info(l) if l.contains("reproduced 3/3"))));
    }

    #[test]
    fn a_stopped_run_or_shrinking_off_leaves_the_failures_as_recorded() {
        let f = found();
        for (budget, stopped) in [(ShrinkBudget::Off, false), (ShrinkBudget::default(), true)] {
            let mut s = summary(&f);
            let launched = std::cell::Cell::new(false);
            let changed = after_run(
                &mut s,
                &graph(&f),
                &oracles(),
                (budget, 3),
                stopped,
                || {
                    launched.set(true);
                    Ok(SimEnv::new(app()))
                },
                &mut |_| {},
            );
            assert!(!changed && !launched.get());
            assert_eq!(s.failures[0].shrunk, None);
        }
    }

    #[test]
    fn a_budget_too_short_for_any_replay_launches_nothing_and_says_so() {
        let f = found();
        let mut s = RunSummary {
            // Slow steps: four replays of the trace take far more than 12 s.
            time_split: wayfarer_core::summary::TimeSplit {
                step: 5_000.0,
                ..Default::default()
            },
            ..summary(&f)
        };
        let mut said = Vec::new();
        let changed = after_run(
            &mut s,
            &graph(&f),
            &oracles(),
            (ShrinkBudget::default(), 3),
            false,
            || -> Result<SimEnv, RunError> { panic!("no browser for nothing") },
            &mut |n| said.push(n),
        );
        assert!(changed);
        assert_eq!(s.shrink.unwrap().skipped, 1);
        assert_eq!(s.failures[0].shrunk, None);
        assert!(said
            .iter()
            .any(|n| matches!(n, Notice::Info(l) if l.contains("not shrunk"))));
    }

    #[test]
    fn budgets_parse_as_off_a_share_or_a_time() {
        assert_eq!("off".parse::<ShrinkBudget>(), Ok(ShrinkBudget::Off));
        assert_eq!("20%".parse::<ShrinkBudget>(), Ok(ShrinkBudget::Share(0.2)));
        assert_eq!(
            "5m".parse::<ShrinkBudget>(),
            Ok(ShrinkBudget::Fixed(Duration::from_secs(300)))
        );
        assert_eq!(
            "90s".parse::<ShrinkBudget>(),
            Ok(ShrinkBudget::Fixed(Duration::from_secs(90)))
        );
        for bad in ["", "0%", "-5%", "5", "5x", "m", "0s", "abc%"] {
            let e = bad.parse::<ShrinkBudget>().unwrap_err();
            assert!(e.contains("--shrink"), "{bad}: {e}");
        }
        assert_eq!(
            ShrinkBudget::default().time(Duration::from_secs(120)),
            Some(Duration::from_secs(24))
        );
        assert_eq!(ShrinkBudget::Off.time(Duration::from_secs(120)), None);
        assert_eq!(ShrinkBudget::Share(0.2).to_string(), "20%");
    }

    fn record(step: u64, episode: u64, from: u64, to: u64, target: &str) -> StepRecord {
        StepRecord {
            step,
            episode,
            worker: 0,
            episode_step: 0,
            action: Action::on(wayfarer_core::ActionKind::Click, target.to_string()),
            target: None,
            state_before: StateId(from),
            state_after: StateId(to),
            url_after: format!("http://app.test/{to}"),
            title_after: String::new(),
            element: None,
            new_state: false,
            events: vec![],
            timings: Default::default(),
            error: None,
            findings: vec![],
            app_actions: vec![],
            app_state: None,
            decision: None,
            form: None,
            inference: None,
            novelty: Default::default(),
        }
    }

    #[test]
    fn the_graph_lines_a_failure_up_with_its_episode_and_offers_the_shorter_way() {
        let mut g = Graph::default();
        let p = wayfarer_core::Progress::default();
        // Episode 1 filled the login form and went straight to the reports; episode 2
        // wandered, then failed there.
        for r in [
            record(0, 1, 0, 0, "#fill"),
            record(1, 1, 0, 1, "#login"),
            record(2, 1, 1, 3, "#reports"),
            record(3, 2, 0, 1, "#login"),
            record(4, 2, 1, 2, "#help"),
            record(5, 2, 2, 1, "#back"),
            record(7, 2, 1, 3, "#reports"),
            record(8, 2, 3, 4, "#boom"),
        ] {
            g.on_step(&r, &p);
        }
        // A step that could not be done is in neither the trace nor the states.
        let mut failed = record(6, 2, 1, 1, "#gone");
        failed.error = Some("element not found".into());
        g.on_step(&failed, &p);
        let trace: Vec<TraceStep> = ["#login", "#help", "#back", "#reports", "#boom"]
            .iter()
            .map(|t| TraceStep {
                action: Action::on(wayfarer_core::ActionKind::Click, t.to_string()),
                element: None,
                url: String::new(),
            })
            .collect();
        let f = Failure {
            kind: wayfarer_core::FailureKind::Exception,
            message: "boom".into(),
            signature: "exception|boom".into(),
            source: None,
            line: None,
            column: None,
            step: 8,
            episode: 2,
            count: 1,
            page_url: String::new(),
            trace,
        };
        let c = g.shortcuts(&f, 5);
        let first: Vec<String> = c[0]
            .iter()
            .map(|p| match p {
                Part::Trace(j) => format!("t{j}"),
                Part::Via(s) => format!("via {} on {}", s.action.target.clone().unwrap(), s.url),
            })
            .collect();
        // Typing before a link is not part of the way through it.
        let mut typed = record(10, 3, 0, 0, "#q");
        typed.action.kind = wayfarer_core::ActionKind::Type;
        g.on_step(&typed, &p);
        let mut link = record(11, 3, 0, 5, "#help-link");
        link.element = Some(wayfarer_core::trace::ElementHint {
            tag: "a".into(),
            attrs: [("href".to_string(), "/help".to_string())].into(),
            ..Default::default()
        });
        g.on_step(&link, &p);
        assert!(g.moves.last().unwrap().before.is_empty());
        // Episode 1's login is a move that needed the filling before it.
        let login = &g.moves[0];
        assert_eq!(login.step.action.target.as_deref(), Some("#login"));
        let before: Vec<_> = login
            .before
            .iter()
            .map(|s| s.action.target.clone())
            .collect();
        assert_eq!(before, [Some("#fill".to_string())]);
        // The detour (help, back) is gone; episode 2's own login needed no filling, so
        // the cheaper path takes it; the path through episode 1's "#reports" does the
        // same actions, so it is not tried twice.
        assert_eq!(
            first,
            ["via #login on http://app.test/3", "t3", "t4"],
            "{c:?}"
        );
        assert_eq!(c.len(), 1, "{c:?}");
        // Another episode's failure, or one whose steps were not seen: nothing guessed.
        let other = Failure {
            episode: 9,
            ..f.clone()
        };
        assert!(g.shortcuts(&other, 5).is_empty());
    }
}
