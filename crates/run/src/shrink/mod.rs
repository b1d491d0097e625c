//! Each unique failure shrunk by replay on the run's own browsers, from the moment it is
//! found (first the shorter ways the run's state graph knows, then delta debugging, each
//! replay from a reset behind the application so a restarted server or the reset hook
//! comes before it), then its minimal trace replayed again to tell a confirmed failure
//! from a flaky one: while the run explores within a share of the browsers' time, and
//! after it within a share of the run's time, on every browser at once.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use wayfarer_core::findings::{ShrinkSummary, Shrunk};
use wayfarer_core::minimize::{minimize, minimize_replayed, Limits, Passed};
use wayfarer_core::replay::{replay, Replay};
use wayfarer_core::runner::{Duty, Handover};
use wayfarer_core::shortcut::{self, Part};
use wayfarer_core::{Environment, Failure, Observer, Oracles, RunSummary, StepRecord, TraceStep};

use wayfarer_report::one_line;

use crate::{Notice, Notices};

mod graph;
pub use graph::Graph;

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

/// Shrinking while the run goes (`Handover`): each failure is queued as it is found and
/// shrunk on one of the run's own browsers, one failure to a browser at a time. A browser
/// `--workers auto` left idle takes the queue at once; otherwise one explorer at a time
/// hands its browser over while the run has another exploring and shrinking has had less
/// than its share of the browsers' time; once the budget is spent every browser takes
/// what is left, in parallel, within the shrink budget. `apply` puts the results in the
/// run's summary.
pub struct Pool {
    oracles: Oracles,
    confirm: u32,
    budget: ShrinkBudget,
    /// The run's time budget, when it has one: how long an in-run job may take.
    run_time: Option<Duration>,
    /// When the pool was made, as the run began.
    created: Instant,
    /// The browsers that may serve: the tail's time is shared out among them.
    browsers: usize,
    graph: Mutex<Graph>,
    state: Mutex<PoolState>,
}

#[derive(Debug, Default)]
struct PoolState {
    /// Signatures of the failures waiting, in the order they were found.
    pending: Vec<String>,
    /// Browsers shrinking now, and how many of them were exploring before.
    serving: usize,
    /// The failures being shrunk now, by signature.
    busy: std::collections::HashSet<String>,
    /// The shorter ways each failure's passes replayed without it, by signature.
    failed: HashMap<String, Vec<Tried>>,
    /// Action sequences from a reset that a replay could not do (a group the run made,
    /// gone after a reset): no way that begins with one is replayed.
    blocked: HashSet<u64>,
    /// The candidates delta debugging replayed without it, by signature: a later pass
    /// does not replay them again.
    passed: HashMap<String, Passed>,
    explorers: usize,
    /// Browser time spent shrinking while the run explored.
    in_run: Duration,
    /// Browsers left idle that asked for work: explorers need not hand theirs over.
    idle: std::collections::BTreeSet<u32>,
    /// Failures whose replays did not fit an explorer's share: only an idle browser's pass
    /// (or the tail) takes them.
    idle_only: HashSet<String>,
    /// Each failure's shortest trace so far, by signature (the last pass's result).
    done: Vec<(String, Shrunk)>,
    /// Failures whose last pass ran out of time, queued again: the next pass starts from
    /// what that one kept.
    partial: HashMap<String, Shrunk>,
    /// Finished failures queued again once the run ended: its state graph may know a
    /// shorter way now than when they were shrunk (another login than the trace's).
    recheck: std::collections::HashSet<String>,
    /// Why a failure was not shrunk, by signature, and warnings, to print once the
    /// run's progress is done with the terminal.
    notes: HashMap<String, String>,
    warnings: Vec<String>,
    /// When the exploration ended, and when the shrink budget after it does.
    explored: Option<Instant>,
    tail_end: Option<Instant>,
    /// When the last job ended.
    last: Option<Instant>,
    error: Option<String>,
    /// Mean step time of the run so far (ms) and its count: what a replay will cost.
    step_ms: f64,
    steps: u64,
}

/// One failure to shrink: where a last pass left it, and until when.
struct Job {
    /// The failure as first seen: what the run reports, and what results are steps of.
    f: Failure,
    /// The same failure seen again with a shorter trace: a fresh pass starts from it.
    shorter: Option<Failure>,
    prior: Option<Shrunk>,
    deadline: Instant,
    /// Only the shorter ways the run's graph knows now, against a finished result.
    recheck: bool,
    /// An exploring browser was handed over for it.
    explorer: bool,
}

/// A later pass's result `next`, over the steps `prior` kept, as steps of the failure's
/// own trace and of the shorter ways either pass took from elsewhere.
fn continued(prior: &Shrunk, next: Shrunk) -> Shrunk {
    let d = prior.kept.len();
    let mut via = Vec::new();
    let mut kept = Vec::new();
    for &k in &next.kept {
        let step = match prior.kept.get(k).copied() {
            Some(j) if j < prior.of => {
                kept.push(j);
                continue;
            }
            Some(j) => prior.via.get(j - prior.of),
            None => next.via.get(k - d),
        };
        if let Some(st) = step {
            kept.push(prior.of + via.len());
            via.push(st.clone());
        }
    }
    Shrunk {
        kept,
        of: prior.of,
        via,
        replays: prior.replays + next.replays,
        seconds: prior.seconds + next.seconds,
        outside_state: next.outside_state.or_else(|| prior.outside_state.clone()),
        ..next
    }
}

/// Whether a job runs while the run explores or after it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum When {
    InRun,
    Tail,
}

impl Pool {
    /// A pool for a run of `run_time` (when timed) on `browsers` browsers; `None` when
    /// shrinking is off.
    pub fn new(
        oracles: Oracles,
        (budget, confirm): (ShrinkBudget, u32),
        run_time: Option<Duration>,
        browsers: usize,
    ) -> Option<Pool> {
        if budget == ShrinkBudget::Off {
            return None;
        }
        Some(Pool {
            oracles,
            confirm: confirm.max(1),
            budget,
            run_time,
            created: Instant::now(),
            browsers: browsers.max(1),
            graph: Mutex::new(Graph::default()),
            state: Mutex::new(PoolState::default()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn graph(&self) -> std::sync::MutexGuard<'_, Graph> {
        self.graph.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// When the tail of a timed run ends at the latest: no in-run pass goes past it (an
    /// idle browser's long pass begun near the run's end held a 24 s tail to 44 s).
    fn latest(&self) -> Option<Instant> {
        let t = self.run_time?;
        let tail = self.budget.time(t).unwrap_or_default();
        Some(self.created + t + tail.mul_f64(TAIL_SHARE))
    }

    /// The share of the browsers' time shrinking may take while the run explores.
    fn in_run_share(&self) -> f64 {
        match self.budget {
            ShrinkBudget::Off => 0.0,
            ShrinkBudget::Share(s) => s.min(0.5),
            ShrinkBudget::Fixed(_) => DEFAULT_SHARE,
        }
    }

    /// What a replay costs, from the run's steps so far: a reset is taken as three
    /// steps, at least 0.3 s (the demo's: 0.6 s against 0.17 s a step).
    fn cost(&self) -> ReplayCost {
        ReplayCost::of_steps(self.lock().step_ms)
    }

    /// The next job: the waiting failure with the shortest trace, where its last pass
    /// left it (when one ran out of time), and its deadline.
    fn take(&self, when: When, idle: bool) -> Option<Job> {
        let now = Instant::now();
        let graph = self.graph();
        let mut st = self.lock();
        let pick = st
            .pending
            .iter()
            .enumerate()
            .filter(|(_, sig)| idle || when == When::Tail || !st.idle_only.contains(*sig))
            .filter_map(|(i, sig)| Some((i, graph.failure(sig)?)))
            // Failures with no result yet first, then passes to continue, then rechecks;
            // the shortest first within each.
            .min_by_key(|(_, f)| {
                let sig = &f.signature;
                match st.partial.get(sig) {
                    Some(p) => (1, p.kept.len()),
                    None if st.recheck.contains(sig) => (2, f.trace.len()),
                    None => (0, f.trace.len()),
                }
            })
            .map(|(i, f)| (i, f.clone()))?;
        let first = graph.first(&pick.1.signature)?.clone();
        let deadline = match when {
            // A pass may take a share of the run's time: one that runs out is queued
            // again behind the failures found since, which get their turn first.
            When::InRun => {
                let cap = self
                    .run_time
                    .map_or(Duration::from_secs(30), |t| t.mul_f64(self.in_run_share()));
                // A browser left idle loses the run nothing: its pass gets time enough to
                // replay a long trace (twice its confirming replays), not the share alone.
                let len = st
                    .partial
                    .get(&pick.1.signature)
                    .map_or(pick.1.trace.len(), |p| p.kept.len());
                let long = ReplayCost::of_steps(st.step_ms).replay(len) * (2 * (self.confirm + 1));
                let cap = match idle {
                    true => cap.max(long),
                    false => cap,
                };
                let end = now + cap.max(Duration::from_secs(5));
                // A pass the run's end overtakes ends with the tail, not past it.
                self.latest().map_or(end, |l| end.min(l))
            }
            // The tail's time left, shared among the jobs still to do and the browsers.
            When::Tail => {
                let end = st.tail_end?;
                if now >= end {
                    return None;
                }
                let jobs = (st.pending.len() + st.serving) as f64;
                let part = (self.browsers as f64 / jobs).min(1.0);
                // At least what a verdict takes (the trace and its confirming replays):
                // shares too small for any replay left roundup's eight late failures all
                // unconfirmed, where the shortest first could have had one each.
                let len = st
                    .partial
                    .get(&pick.1.signature)
                    .map_or(pick.1.trace.len(), |p| p.kept.len());
                let verdict = ReplayCost::of_steps(st.step_ms).replay(len) * (self.confirm + 1);
                (now + (end - now).mul_f64(part).max(verdict)).min(end)
            }
        };
        st.pending.remove(pick.0);
        st.serving += 1;
        st.busy.insert(pick.1.signature.clone());
        let explorer = when == When::InRun && !idle;
        st.explorers += usize::from(explorer);
        let prior = st.partial.remove(&pick.1.signature);
        let recheck = st.recheck.remove(&pick.1.signature);
        let shorter = (pick.1.step != first.step).then_some(pick.1);
        Some(Job {
            f: first,
            shorter,
            prior,
            deadline,
            recheck,
            explorer,
        })
    }

    /// Shrink and confirm a job's failure on `env` until its deadline, and book the
    /// result; one that ran out of time but got shorter is queued again.
    fn run(&self, env: &mut dyn Environment, job: Job, when: When) {
        let t = Instant::now();
        let Job {
            f,
            shorter,
            prior,
            deadline,
            recheck,
            explorer,
        } = job;
        let best = self.best(&f.signature);
        let best_len = best.as_ref().map(|b| b.kept.len());
        // A later pass shrinks what the last one kept, as a trace of its own, first
        // through the shorter ways the graph knows to its steps; a recheck tries only
        // those, against the result it has.
        let start = match recheck {
            true => best.clone(),
            false => prior.clone(),
        };
        let (from, ways, whole) = match &start {
            Some(p) => {
                let mut ways = self.graph().shortcuts_of(&f, p, SHORTCUTS);
                ways.retain(|w| w.len() < p.kept.len());
                let trace = p.steps(&f.trace).unwrap_or_else(|| f.trace.clone());
                (Failure { trace, ..f.clone() }, ways, !recheck)
            }
            None => {
                let from = shorter.clone().unwrap_or_else(|| f.clone());
                let ways = self.graph().shortcuts(&from, SHORTCUTS);
                (from, ways, true)
            }
        };
        let cost = self.cost();
        let (oracles, confirm) = (&self.oracles, self.confirm);
        let (mut failed, mut passed, mut blocked) = {
            let mut st = self.lock();
            let failed = st.failed.remove(&f.signature).unwrap_or_default();
            let passed = st.passed.remove(&f.signature).unwrap_or_default();
            (failed, passed, st.blocked.clone())
        };
        let ways = (ways.as_slice(), whole, &mut failed, &mut blocked);
        // A pass the tail does not run may go on in a later one, unless it ends too near
        // the tail's end for another to replay and confirm what it kept: none would.
        let next_pass = cost.replay(from.trace.len()) * (confirm + 1);
        let last = when == When::Tail || self.latest().is_some_and(|l| deadline + next_pass >= l);
        let mut verdict_only = false;
        let result = match prepare(env, &from, ways, oracles, deadline, confirm, cost) {
            Ok(Ok(p)) => finish(env, p, oracles, (deadline, confirm, last), &mut passed).map(Ok),
            // The last chance, too short to shrink: the recorded trace (or what an earlier
            // pass kept of it) replayed as often as fits still gives a verdict.
            Ok(Err(why)) if last && !recheck => {
                let fit = (deadline
                    .saturating_duration_since(Instant::now())
                    .as_secs_f64()
                    / cost.replay(from.trace.len()).as_secs_f64().max(1e-3))
                    as u32;
                verdict_only = true;
                match fit.min(confirm) {
                    0 => Ok(Err(why)),
                    k => replays(env, &from.trace, oracles, &f.signature, k).map(|hits| {
                        Ok(Shrunk {
                            kept: (0..from.trace.len()).collect(),
                            of: from.trace.len(),
                            // What an earlier pass kept is the shortest it saw, no more.
                            finished: start.is_none(),
                            hits,
                            runs: k,
                            note: start.is_none().then(|| format!("not shrunk: {why}")),
                            seconds: t.elapsed().as_secs_f64(),
                            ..Shrunk::default()
                        })
                    }),
                }
            }
            Ok(Err(why)) => Ok(Err(why)),
            Err(e) => Err(e),
        };
        let took = t.elapsed();
        // The graph before the state, as `take` locks them.
        let mut graph = self.graph();
        let seen = graph.failure(&f.signature).map(|s| s.trace.len());
        let mut st = self.lock();
        st.failed.insert(f.signature.clone(), failed);
        st.blocked.extend(blocked);
        st.passed.insert(f.signature.clone(), passed);
        st.serving -= 1;
        st.busy.remove(&f.signature);
        st.explorers -= usize::from(explorer);
        st.last = Some(Instant::now());
        if when == When::InRun {
            st.in_run += took;
        }
        let sig = f.signature.clone();
        match result {
            Ok(Ok(shrunk)) => {
                let shrunk = match (&start, &shorter) {
                    (Some(p), _) => continued(p, shrunk),
                    (None, Some(from)) => rebased(&from.trace, f.trace.len(), shrunk),
                    (None, None) => shrunk,
                };
                let fewer = best_len.is_none_or(|b| shrunk.kept.len() < b);
                // A pass that continues the last one's result always does better; another
                // (a recheck, a fresh start from a shorter sighting) only when confirmed.
                let continues = prior.is_some() && !recheck;
                let better = continues
                    || best.as_ref().is_none_or(|b| {
                        shrunk.hits > 0
                            && (fewer || (b.hits == 0 && shrunk.kept.len() <= b.kept.len()))
                    });
                if !better {
                    Self::again_if_seen_shorter(&mut st, &sig, seen, best_len);
                    return;
                }
                // Out of time: on again later, from what it kept (its tests are remembered);
                // not a last chance's verdict, which had no time to shrink.
                if !shrunk.finished && shrunk.kept.len() > 1 && !verdict_only {
                    st.pending.push(sig.clone());
                    st.partial.insert(sig.clone(), shrunk.clone());
                }
                let len = shrunk.kept.len();
                // Its steps, which a replay did, are short ways for the other failures.
                graph.learn(&f, &shrunk);
                st.done.retain(|(s, _)| *s != sig);
                st.done.push((sig.clone(), shrunk));
                Self::again_if_seen_shorter(&mut st, &sig, seen, Some(len));
            }
            Ok(Err(_)) if recheck => {}
            // Too long for an explorer's share: a browser left idle takes it, or the tail
            // (splitter's 89-action failure waited 100 s for the tail, then had no time).
            Ok(Err(_)) if explorer => {
                st.pending.push(sig.clone());
                st.idle_only.insert(sig.clone());
                if let Some(p) = prior {
                    st.partial.insert(sig, p);
                }
            }
            Ok(Err(why)) => {
                // Seen meanwhile with a trace shorter than the one that did not fit: again.
                let tried = shorter.as_ref().unwrap_or(&f).trace.len();
                match seen.is_some_and(|s| s < tried) {
                    true => st.pending.push(sig),
                    false => {
                        st.notes.insert(sig, why);
                    }
                }
            }
            Err(e) => {
                st.warnings.push(format!(
                    "warning: shrinking {} stopped: {e}; it keeps what was found so far",
                    one_line(&f.message, 70)
                ));
                st.error.get_or_insert(e.to_string());
            }
        }
    }

    /// Queue `sig` afresh when the run saw it with a trace (`seen` actions) shorter than
    /// its result (`len`) while it was shrunk.
    fn again_if_seen_shorter(
        st: &mut PoolState,
        sig: &str,
        seen: Option<usize>,
        len: Option<usize>,
    ) {
        let shorter = matches!((seen, len), (Some(s), Some(l)) if s < l);
        if shorter && !st.pending.iter().any(|p| p == sig) {
            st.partial.remove(sig);
            st.pending.push(sig.to_string());
        }
    }

    /// The run saw `sigs` again, each with a trace shorter than before: a failure waiting
    /// starts from it, one already shrunk to more actions than that trace has (or not
    /// shrunk, its replays too long for the time) is queued again. One being shrunk now
    /// is looked at when its pass ends.
    fn seen_shorter(&self, sigs: &[String]) {
        if sigs.is_empty() {
            return;
        }
        let lens: Vec<(String, usize)> = {
            let graph = self.graph();
            sigs.iter()
                .filter_map(|s| Some((s.clone(), graph.failure(s)?.trace.len())))
                .collect()
        };
        let mut st = self.lock();
        for (sig, len) in lens {
            if st.busy.contains(&sig) {
                continue;
            }
            if st.pending.contains(&sig) {
                // A pass to continue from more actions than the new trace has starts afresh.
                if st.partial.get(&sig).is_some_and(|p| p.kept.len() > len) {
                    st.partial.remove(&sig);
                }
                continue;
            }
            let best = st
                .done
                .iter()
                .find(|(s, _)| *s == sig)
                .map(|(_, r)| r.kept.len());
            if st.notes.remove(&sig).is_some() || best.is_some_and(|b| b > len) {
                st.pending.push(sig);
            }
        }
    }

    /// A failure's shortest result so far.
    fn best(&self, signature: &str) -> Option<Shrunk> {
        let st = self.lock();
        st.done
            .iter()
            .find(|(s, _)| s == signature)
            .map(|(_, r)| r.clone())
    }

    /// The phase's results into `summary`: each failure's minimal trace and verdict, the
    /// phase's summary, the confirmed failures first; a hang no replay showed again is a
    /// warning, not a failure. Prints what shrinking said. Returns whether it changed.
    pub fn apply(&self, summary: &mut RunSummary, stopped: bool, say: Notices) -> bool {
        if summary.failures.is_empty() {
            return false;
        }
        let st = self.lock();
        let n = summary.failures.len();
        let shrunk = st.done.len();
        if shrunk > 0 || !st.notes.is_empty() {
            say(Notice::Info(format!(
                "wayfarer: shrinking on the run's {} browser(s), each minimal trace replayed {} times:",
                self.browsers, self.confirm
            )));
        }
        for l in &summary.failures {
            let sig = &l.signature;
            let what = match st.done.iter().find(|(s, _)| s == sig) {
                Some((_, sh)) => describe(sh),
                None => match st.notes.get(sig) {
                    Some(why) => format!("not shrunk: {why}"),
                    None => continue,
                },
            };
            say(Notice::Info(format!(
                "  {}: {what}",
                one_line(&l.message, 70)
            )));
        }
        for w in &st.warnings {
            say(Notice::Warning(w.clone()));
        }
        let skipped = n.saturating_sub(shrunk);
        let why_not = if stopped {
            Some("the run was stopped")
        } else if summary.ended_by_environment {
            Some("the environment ended the run")
        } else {
            None
        };
        if skipped > 0 {
            let text = match why_not {
                Some(why) => format!(
                    "wayfarer: {skipped} failure(s) not shrunk ({why}); `wayfarer minimize TRACE` shrinks one"
                ),
                None => format!(
                    "warning: the shrink budget (--shrink {}) was too short for {skipped} failure(s): they keep their recorded trace and are unconfirmed",
                    self.budget
                ),
            };
            say(match why_not {
                Some(_) => Notice::Info(text),
                None => Notice::Warning(text),
            });
        }
        for line in &mut summary.failures {
            line.shrunk = st
                .done
                .iter()
                .find(|(sig, _)| *sig == line.signature)
                .map(|(_, r)| r.clone());
        }
        let explored = Duration::from_secs_f64(summary.duration_s.max(0.0));
        let tail = match (st.explored, st.last) {
            (Some(e), Some(l)) => l.saturating_duration_since(e).as_secs_f64(),
            _ => 0.0,
        };
        summary.shrink = Some(ShrinkSummary {
            budget_s: self.budget.time(explored).unwrap_or_default().as_secs_f64(),
            seconds: tail,
            during_run_s: st.in_run.as_secs_f64(),
            browsers: self.browsers,
            confirm_runs: self.confirm,
            skipped,
            error: st.error.clone(),
        });
        drop(st);
        judge_verdicts(summary, say);
        true
    }
}

/// A hang no replay showed again is a warning with its evidence, not a failure (two busy
/// browsers on two cores make pages slow); the confirmed failures come first.
fn judge_verdicts(summary: &mut RunSummary, say: Notices) {
    let (keep, unshown): (Vec<_>, Vec<_>) = std::mem::take(&mut summary.failures)
        .into_iter()
        .partition(|l| !l.timing_only() || l.reproduced());
    for l in unshown {
        let evidence = match l.shrunk.as_ref().filter(|s| s.runs > 0) {
            Some(s) => format!("not seen again in {} replay(s)", s.runs),
            None => "never replayed".to_string(),
        };
        say(Notice::Info(format!(
            "wayfarer: [{}] {} is a warning: {evidence}",
            l.kind,
            one_line(&l.message, 70)
        )));
        summary.warnings.push(wayfarer_core::oracle::Warning {
            kind: serde_json::from_value(serde_json::Value::String(l.kind.clone()))
                .unwrap_or(wayfarer_core::FailureKind::Hang),
            message: format!("{} ({evidence})", l.message),
            signature: l.signature,
            step: l.step,
            count: l.count,
            page_url: l.page_url,
        });
    }
    summary.failures = keep;
    summary.failures.sort_by_key(|l| l.verdict().rank());
}

impl Pool {
    /// At the tail's start, queue again what the run's time did not finish: a failure
    /// whose replays did not fit a pass's time, and a pass that ran out of it, each with
    /// the tail's longer time; and each finished failure for which the run's whole graph
    /// knows a way shorter than its result.
    fn queue_rechecks(graph: &Graph, st: &mut PoolState) {
        let unfit: Vec<String> = st.notes.keys().cloned().collect();
        for sig in unfit {
            st.notes.remove(&sig);
            st.pending.push(sig);
        }
        let mut again = Vec::new();
        for (sig, sh) in &st.done {
            // One being shrunk now is queued again, if need be, when its pass ends.
            if st.pending.contains(sig) || st.busy.contains(sig) || sh.kept.len() <= 1 {
                continue;
            }
            if !sh.finished {
                st.partial.insert(sig.clone(), sh.clone());
                again.push(sig.clone());
                continue;
            }
            let Some(f) = graph.first(sig) else {
                continue;
            };
            // Only a way no earlier pass replayed in vain.
            let tried = st.failed.get(sig).map(Vec::as_slice).unwrap_or(&[]);
            let Some(trace) = sh.steps(&f.trace) else {
                continue;
            };
            let shorter = graph.shortcuts_of(f, sh, SHORTCUTS).iter().any(|w| {
                let steps = steps_of(w, &trace);
                w.len() < sh.kept.len() && untried(&steps, tried, &st.blocked)
            });
            if shorter {
                st.recheck.insert(sig.clone());
                again.push(sig.clone());
            }
        }
        st.pending.extend(again);
    }
}

impl Handover for Pool {
    fn wanted(&self, duty: Duty) -> bool {
        let mut st = self.lock();
        if duty.idle {
            st.idle.insert(duty.worker);
        }
        let for_explorer = st.pending.iter().any(|s| !st.idle_only.contains(s));
        if st.pending.is_empty() || st.tail_end.is_some() || !(duty.idle || for_explorer) {
            return false;
        }
        if duty.idle {
            return true;
        }
        // An explorer only when every idle browser is busy shrinking: one at a time,
        // never the last one exploring, and within the share.
        let idle_busy = st.serving - st.explorers;
        if idle_busy < st.idle.len() || st.explorers > 0 || duty.exploring < 2 {
            return false;
        }
        let allowed = duty
            .elapsed
            .mul_f64(self.in_run_share() * duty.exploring as f64);
        st.in_run < allowed
    }

    fn serve(&self, worker: u32, env: &mut dyn Environment) -> bool {
        let idle = self.lock().idle.contains(&worker);
        let Some(job) = self.take(When::InRun, idle) else {
            return false;
        };
        self.run(env, job, When::InRun);
        true
    }

    fn finish(&self, _worker: u32, env: &mut dyn Environment, started: Instant) {
        {
            // The graph before the state, as `take` locks them.
            let graph = self.graph();
            let mut st = self.lock();
            if st.tail_end.is_none() {
                let now = Instant::now();
                let time = self.budget.time(now - started).unwrap_or_default();
                st.explored = Some(now);
                st.tail_end = Some(now + time.mul_f64(TAIL_SHARE));
                Pool::queue_rechecks(&graph, &mut st);
            }
        }
        while let Some(job) = self.take(When::Tail, false) {
            self.run(env, job, When::Tail);
        }
    }
}

/// The observer side of a [`Pool`]: the run's state graph and its failures, each queued.
pub struct PoolObserver(pub std::sync::Arc<Pool>);

impl Observer for PoolObserver {
    fn on_reset(&mut self, r: &wayfarer_core::ResetRecord, p: &wayfarer_core::Progress) {
        self.0.graph().on_reset(r, p);
    }

    fn on_step(&mut self, r: &StepRecord, _: &wayfarer_core::Progress) {
        let again = self.0.graph().step(r);
        {
            let mut st = self.0.lock();
            st.steps += 1;
            let ms = r.timings.total.as_secs_f64() * 1e3;
            st.step_ms += (ms - st.step_ms) / st.steps as f64;
        }
        self.0.seen_shorter(&again);
    }

    fn on_failure(&mut self, f: &Failure, shot: Option<&[u8]>) {
        self.0.graph().on_failure(f, shot);
        self.0.lock().pending.push(f.signature.clone());
    }
}

/// What a replay costs: a reset, and a step.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayCost {
    pub reset: Duration,
    pub step: Duration,
}

impl ReplayCost {
    /// At `step_ms` a step: a reset is taken as three steps, at least 0.3 s (the demo's:
    /// 0.6 s against 0.17 s a step).
    fn of_steps(step_ms: f64) -> ReplayCost {
        let step = Duration::from_secs_f64((step_ms / 1e3).max(0.0));
        ReplayCost {
            reset: (step * 3).max(Duration::from_millis(300)),
            step,
        }
    }

    /// One replay of `n` actions.
    pub fn replay(&self, n: usize) -> Duration {
        self.reset + self.step * n as u32
    }
}

/// The share of the shrink budget the tail plans for: the rest is kept for the replays
/// in flight at its end, which finish past it.
const TAIL_SHARE: f64 = 0.9;

/// Shortest paths offered per failure at most (other ways: all, `SHORTCUTS_PER_PASS` a pass).
const SHORTCUTS: usize = 5;

/// Shortcuts one pass replays at most; the next pass tries the next ones.
const SHORTCUTS_PER_PASS: u32 = 8;

/// A way's actions as `PoolState::failed` knows it.
fn way_key(steps: &[TraceStep]) -> String {
    serde_json::to_string(&steps.iter().map(|s| &s.action).collect::<Vec<_>>()).unwrap_or_default()
}

/// A hash of each prefix of `steps`' actions, as `PoolState::blocked` knows them.
fn prefix_hashes(steps: &[TraceStep]) -> Vec<u64> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    steps
        .iter()
        .map(|s| {
            serde_json::to_string(&s.action)
                .unwrap_or_default()
                .hash(&mut h);
            h.finish()
        })
        .collect()
}

/// Whether a way is worth a replay: not one replayed without the failure before, nor one
/// that begins with actions a replay could not do.
fn untried(steps: &[TraceStep], failed: &[Tried], blocked: &HashSet<u64>) -> bool {
    let key = way_key(steps);
    !failed.iter().any(|(k, _)| *k == key)
        && !prefix_hashes(steps).iter().any(|h| blocked.contains(h))
}

/// The ways tried, for a note: the first few and how many more.
fn tried_text(failed: &[Tried]) -> String {
    let mut text: Vec<&str> = failed.iter().take(3).map(|(_, o)| o.as_str()).collect();
    let more = failed.len().saturating_sub(3);
    let more = format!("and {more} more");
    if failed.len() > 3 {
        text.push(&more);
    }
    text.join("; ")
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

/// One failure's cheap replays (its shortcuts, then the pruned trace), while (confirm + 1)
/// replays of what is tried still fit before `end`: where delta debugging starts, or why
/// the failure is not shrunk (`Ok(Err(..))`), or the environment's fatal error.
/// A shorter way an earlier pass replayed without the failure: its actions, and what came.
type Tried = (String, String);

#[allow(clippy::too_many_arguments)]
fn prepare<'a>(
    env: &mut dyn Environment,
    f: &'a Failure,
    (ways, whole, failed, blocked): (&[Vec<Part>], bool, &mut Vec<Tried>, &mut HashSet<u64>),
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
    let (whole_fits, span) = (whole && fits(n), end.saturating_duration_since(started));
    // The shortcut that raised it, and its replay (delta debugging's first test).
    let mut base: Option<(Vec<Part>, Replay, Duration)> = None;
    for cand in ways {
        let steps = steps_of(cand, &f.trace);
        // A way that did not raise it in an earlier pass is not replayed again.
        if !untried(&steps, failed, blocked) {
            continue;
        }
        // The rest wait for the next pass, which skips these: delta debugging gets its turn,
        // and while it could shrink the whole trace, two thirds of the pass at least.
        let late = whole_fits && started.elapsed() + cost.replay(cand.len()) > span / 3;
        if tried >= SHORTCUTS_PER_PASS || !fits(cand.len()) || late {
            break;
        }
        tried += 1;
        let t = Instant::now();
        let r = replay(env, &steps, oracles, &f.signature, true)?;
        let took = t.elapsed();
        let outcome = match (&r.blocked, r.hit) {
            (_, Some(_)) => format!("{} actions raised it", cand.len()),
            (Some((at, why)), None) => format!(
                "{} actions: action {} could not be done ({})",
                cand.len(),
                at + 1,
                one_line(why, 60)
            ),
            (None, None) => format!("{} actions did not raise it", cand.len()),
        };
        tracing::debug!(
            failure = %one_line(&f.message, 60),
            shortcut = %steps.iter().map(|s| s.action.describe()).collect::<Vec<_>>().join(" | "),
            %outcome,
            "shortcut replayed"
        );
        if let (Some(k), false) = (r.hit, r.at_reset) {
            base = Some((cand[..=k].to_vec(), r, took));
            break;
        }
        if let Some(h) = r
            .blocked
            .as_ref()
            .and_then(|(at, _)| prefix_hashes(&steps).get(*at).copied())
        {
            blocked.insert(h);
        }
        failed.push((way_key(&steps), outcome));
    }
    let outcomes = tried_text(failed);
    let (base, replayed) = match base {
        Some((b, r, took)) => (b, Some((r, took))),
        None if !whole => return Ok(Err(format!("no shorter way raised it ({outcomes})",))),
        None if fits(n) => ((0..n).map(Part::Trace).collect(), None),
        None => {
            return Ok(Err(format!(
                "replaying its {n} actions {} times takes about {:.0} s, more than the time left{}",
                confirm + 1,
                (cost.replay(n) * (confirm + 1)).as_secs_f64(),
                if !outcomes.is_empty() {
                    format!(" (shorter ways tried: {outcomes})")
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

/// Delta debugging from where `prepare` left a failure, until the confirming replays of
/// what it kept just fit before `deadline`, then those replays (not in a pass that is not
/// the `last` and ran out of time: the next goes on): its result, or the environment's
/// fatal error. `passed` holds what earlier passes replayed without the failure, and
/// gets this one's.
fn finish(
    env: &mut dyn Environment,
    p: Prepared,
    oracles: &Oracles,
    (deadline, confirm, last): (Instant, u32, bool),
    passed: &mut Passed,
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
    // Delta debugging keeps the time its confirming replays take.
    let limits = Limits {
        deadline: Some(deadline),
        confirm,
        last_pass: last,
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
                (limits, passed),
                &mut progress,
            )?
        }
        None => minimize(
            env,
            &steps,
            oracles,
            &f.signature,
            (limits, passed),
            &mut progress,
        )?,
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

/// A result over the steps of `from` (a failure's shorter sighting) as steps of its first
/// trace (`of` actions long): every kept step one taken elsewhere.
fn rebased(from: &[TraceStep], of: usize, s: Shrunk) -> Shrunk {
    let Some(via) = s.steps(from) else {
        return s;
    };
    Shrunk {
        kept: (of..of + via.len()).collect(),
        of,
        via,
        ..s
    }
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
    use std::sync::Arc;
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

    /// The failure a finding makes at the end of `trace`.
    fn failure_of(
        f: wayfarer_core::oracle::Finding,
        trace: Vec<TraceStep>,
        episode: u64,
        page_url: String,
    ) -> Failure {
        Failure {
            kind: f.kind,
            message: f.message,
            signature: f.signature,
            source: f.source,
            line: f.line,
            column: f.column,
            step: trace.len() as u64,
            episode,
            count: 1,
            page_url,
            trace,
            server_output: Default::default(),
        }
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
                return failure_of(f, trace, 1, out.observation.url);
            }
            obs = out.observation;
        }
        panic!("the walk never reached the bug");
    }

    fn summary(f: &Failure) -> RunSummary {
        RunSummary {
            duration_s: 60.0,
            episodes: 1,
            failures: vec![FailureLine::from(f)],
            ..RunSummary::default()
        }
    }

    /// A pool of `browsers` that has seen `failures` found.
    fn pool_with(budget: ShrinkBudget, browsers: usize, failures: &[Failure]) -> Arc<Pool> {
        let pool = Arc::new(Pool::new(oracles(), (budget, 3), None, browsers).unwrap());
        let mut seen = PoolObserver(pool.clone());
        for f in failures {
            seen.on_failure(f, None);
        }
        pool
    }

    /// Finish the pool's work on `envs`, one thread each, after a run of 60 s.
    fn finish_on<E: Environment + Send>(pool: &Pool, envs: &mut [E]) {
        let started = Instant::now() - Duration::from_secs(60);
        std::thread::scope(|s| {
            for (i, env) in envs.iter_mut().enumerate() {
                s.spawn(move || pool.finish(i as u32, env, started));
            }
        });
    }

    #[test]
    fn after_the_run_each_failure_is_shrunk_and_confirmed() {
        let f = found();
        assert!(
            f.trace.len() > 3,
            "a trace worth shrinking: {}",
            f.trace.len()
        );
        let pool = pool_with(ShrinkBudget::default(), 1, std::slice::from_ref(&f));
        finish_on(&pool, &mut [SimEnv::new(app())]);
        let mut s = summary(&f);
        let mut said = Vec::new();
        assert!(pool.apply(&mut s, false, &mut |n| said.push(n)));
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
    fn shrinking_off_makes_no_pool_and_a_stopped_run_says_why_its_failures_are_unconfirmed() {
        assert!(Pool::new(oracles(), (ShrinkBudget::Off, 3), None, 2).is_none());
        let f = found();
        let pool = pool_with(ShrinkBudget::default(), 2, std::slice::from_ref(&f));
        let mut s = summary(&f);
        let mut said = Vec::new();
        assert!(pool.apply(&mut s, true, &mut |n| said.push(n)));
        assert_eq!(s.failures[0].shrunk, None);
        assert_eq!(
            s.failures[0].verdict(),
            wayfarer_core::findings::Verdict::Unconfirmed
        );
        assert!(said.iter().any(
            |n| matches!(n, Notice::Info(l) if l.contains("not shrunk (the run was stopped)"))
        ));
    }

    #[test]
    fn a_budget_with_no_time_left_replays_nothing_and_says_so() {
        let f = found();
        let pool = Arc::new(
            Pool::new(oracles(), (ShrinkBudget::Fixed(Duration::ZERO), 3), None, 1).unwrap(),
        );
        PoolObserver(pool.clone()).on_failure(&f, None);
        finish_on(&pool, &mut [SimEnv::new(app())]);
        let mut s = summary(&f);
        let mut said = Vec::new();
        assert!(pool.apply(&mut s, false, &mut |n| said.push(n)));
        assert_eq!(s.shrink.unwrap().skipped, 1);
        assert_eq!(s.failures[0].shrunk, None);
        assert!(said
            .iter()
            .any(|n| matches!(n, Notice::Warning(l) if l.contains("too short for 1 failure"))));
    }

    #[test]
    fn a_tail_share_too_small_for_a_verdict_gets_what_one_takes() {
        let many = found_many();
        assert!(many.len() >= 3, "{}", many.len());
        let pool = pool_with(ShrinkBudget::default(), 1, &many);
        let shortest = many.iter().map(|f| f.trace.len()).min().unwrap();
        let need = ReplayCost::of_steps(100.0).replay(shortest) * 4;
        let start = Instant::now();
        {
            let mut st = pool.lock();
            st.step_ms = 100.0;
            // Twice one verdict's time, for every failure on one browser: a fair share is
            // less than one verdict.
            st.tail_end = Some(start + need * 2);
        }
        let job = pool.take(When::Tail, false).expect("a job");
        assert_eq!(job.f.trace.len(), shortest, "the shortest first");
        assert!(job.deadline >= start + need, "{:?}", job.deadline - start);
        assert!(job.deadline <= start + need * 2);
    }

    #[test]
    fn a_tail_too_short_to_shrink_still_replays_the_trace_for_a_verdict() {
        let f = found();
        // A replay is taken as 0.3 s (no step timed yet): four do not fit in the 0.99 s tail.
        let pool = Arc::new(
            Pool::new(
                oracles(),
                (ShrinkBudget::Fixed(Duration::from_secs(1)), 3),
                None,
                1,
            )
            .unwrap(),
        );
        PoolObserver(pool.clone()).on_failure(&f, None);
        finish_on(&pool, &mut [SimEnv::new(app())]);
        let mut s = summary(&f);
        pool.apply(&mut s, false, &mut |_| {});
        let sh = s.failures[0]
            .shrunk
            .clone()
            .expect("replayed for a verdict");
        assert_eq!(sh.kept.len(), f.trace.len(), "not shrunk");
        // As many replays as the time holds, at most the three asked for.
        assert!((1..=3).contains(&sh.runs) && sh.hits == sh.runs, "{sh:?}");
        assert!(
            sh.note
                .as_deref()
                .unwrap_or("")
                .starts_with("not shrunk: replaying its"),
            "{sh:?}"
        );
        assert_eq!(
            s.failures[0].verdict(),
            wayfarer_core::findings::Verdict::Confirmed
        );
    }

    #[test]
    fn a_way_that_begins_with_actions_a_replay_could_not_do_is_not_replayed() {
        let step = |t: &str| TraceStep {
            action: Action::on(wayfarer_core::ActionKind::Click, t.to_string()),
            element: None,
            url: String::new(),
        };
        let way = |ts: &[&str]| ts.iter().map(|t| step(t)).collect::<Vec<_>>();
        // A replay of "home, the fourth group, settle" could not click the fourth group.
        let gone = way(&["#home", "#group-4", "#settle"]);
        let blocked = HashSet::from([prefix_hashes(&gone)[1]]);
        assert!(!untried(&gone, &[], &blocked));
        assert!(!untried(
            &way(&["#home", "#group-4", "#add", "#save"]),
            &[],
            &blocked
        ));
        assert!(untried(
            &way(&["#home", "#group-2", "#settle"]),
            &[],
            &blocked
        ));
        assert!(untried(&way(&["#group-4", "#settle"]), &[], &blocked));
        // One replayed in vain before is not replayed again either.
        let failed = vec![(way_key(&way(&["#home", "#settle"])), "did not".to_string())];
        assert!(!untried(
            &way(&["#home", "#settle"]),
            &failed,
            &HashSet::new()
        ));
        assert_eq!(tried_text(&failed), "did not");
        let many: Vec<Tried> = (0..5).map(|i| (i.to_string(), format!("w{i}"))).collect();
        assert_eq!(tried_text(&many), "w0; w1; w2; and 2 more");
    }

    #[test]
    fn a_tail_too_short_to_go_on_still_replays_what_a_pass_kept_for_a_verdict() {
        let f = found();
        let pool = Arc::new(
            Pool::new(
                oracles(),
                (ShrinkBudget::Fixed(Duration::from_secs(1)), 3),
                None,
                1,
            )
            .unwrap(),
        );
        PoolObserver(pool.clone()).on_failure(&f, None);
        // An in-run pass ran out of time having cut nothing, unconfirmed: queued again.
        let partial = Shrunk {
            kept: (0..f.trace.len()).collect(),
            of: f.trace.len(),
            replays: 4,
            ..Shrunk::default()
        };
        {
            let mut st = pool.lock();
            st.partial.insert(f.signature.clone(), partial.clone());
            st.done.push((f.signature.clone(), partial));
        }
        finish_on(&pool, &mut [SimEnv::new(app())]);
        let mut s = summary(&f);
        pool.apply(&mut s, false, &mut |_| {});
        let sh = s.failures[0].shrunk.clone().expect("a result");
        assert!((1..=3).contains(&sh.runs) && sh.hits == sh.runs, "{sh:?}");
        // Still the shortest seen before time ran out, not a minimal one.
        assert!(!sh.finished, "{sh:?}");
        assert_eq!(sh.replays, 4, "{sh:?}");
        assert_eq!(
            s.failures[0].verdict(),
            wayfarer_core::findings::Verdict::Confirmed
        );
        assert!(pool.lock().pending.is_empty(), "not queued again");
    }

    /// The sim app with more bugs: a button that does nothing elsewhere throws on some
    /// pages, an error naming the page.
    struct Bugs {
        sim: SimEnv,
        pages: Vec<&'static str>,
        at: String,
    }

    impl Environment for Bugs {
        fn reset(&mut self) -> Result<wayfarer_core::env::Outcome, wayfarer_core::EnvError> {
            let out = self.sim.reset()?;
            self.at = out.observation.url.clone();
            Ok(out)
        }
        fn step(
            &mut self,
            a: &wayfarer_core::Action,
        ) -> Result<wayfarer_core::env::Outcome, wayfarer_core::EnvError> {
            let page = self.at.rsplit('/').next().unwrap_or("").to_string();
            let mut out = self.sim.step(a)?;
            self.at = out.observation.url.clone();
            // Numbers are masked in a signature: each page's error is named by a word.
            let words = ["alpha", "beta", "gamma", "delta"];
            let dead = a.target.as_deref().is_some_and(|t| t.starts_with("#dead"));
            if let (true, Some(i)) = (dead, self.pages.iter().position(|p| *p == page)) {
                out.events.push(wayfarer_core::Event::new(
                    wayfarer_core::EventKind::Exception,
                    format!("Error: broken {}", words[i % words.len()]),
                ));
            }
            Ok(out)
        }
    }

    fn bugs() -> Bugs {
        Bugs {
            sim: SimEnv::new(SimApp::generate(11, 10)),
            pages: vec!["p0", "p2", "p3"],
            at: String::new(),
        }
    }

    /// Random walks over `bugs()` with detours, the first failure of each signature.
    fn found_many() -> Vec<Failure> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut env = bugs();
        let mut out: Vec<Failure> = Vec::new();
        for episode in 1..=60 {
            let mut obs = env.reset().unwrap().observation;
            let mut trace = Vec::new();
            for _ in 0..60 {
                let c =
                    wayfarer_core::candidates::candidate_actions(&obs, &Default::default(), false);
                let a = c[rng.gen_range(0..c.len())].clone();
                trace.push(TraceStep::new(a.clone(), &obs));
                let Ok(o) = env.step(&a) else { break };
                for f in oracles().judge(&o.events, None) {
                    if out.iter().all(|g| g.signature != f.signature) {
                        let url = o.observation.url.clone();
                        out.push(failure_of(f, trace.clone(), episode, url));
                    }
                }
                obs = o.observation;
            }
        }
        out
    }

    /// Each failure's kept steps, by signature.
    fn kept(pool: &Pool, failures: &[Failure]) -> Vec<(String, Vec<usize>, u32)> {
        let mut s = RunSummary {
            duration_s: 600.0,
            failures: failures.iter().map(FailureLine::from).collect(),
            ..RunSummary::default()
        };
        pool.apply(&mut s, false, &mut |_| {});
        let mut out: Vec<_> = s
            .failures
            .iter()
            .map(|l| {
                let sh = l.shrunk.clone().expect("every failure shrunk");
                (l.signature.clone(), sh.kept, sh.hits)
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn parallel_shrinking_gives_the_same_minimal_traces_as_sequential() {
        let failures = found_many();
        assert!(failures.len() >= 3, "{} failures", failures.len());
        assert!(failures.iter().any(|f| f.trace.len() > 10));
        let budget = ShrinkBudget::Fixed(Duration::from_secs(600));
        let one = pool_with(budget, 1, &failures);
        finish_on(&one, &mut [bugs()]);
        let three = pool_with(budget, 3, &failures);
        finish_on(&three, &mut [bugs(), bugs(), bugs()]);
        let (a, b) = (kept(&one, &failures), kept(&three, &failures));
        assert_eq!(a, b);
        for (sig, steps, hits) in &a {
            assert_eq!(*hits, 3, "{sig} confirmed");
            assert!(steps.len() < 10, "{sig}: {steps:?}");
        }
    }

    /// A walk over the sim app from `seed` until its bug (`None` past 200 actions), as
    /// the run records its steps (worker 1, episode `episode`, each step 100 ms, the last
    /// naming the failure), and the failure as first seen there.
    fn walk(seed: u64, episode: u64) -> Option<(Vec<StepRecord>, Failure)> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut env = SimEnv::new(app());
        let mut obs = env.reset().unwrap().observation;
        let (mut records, mut trace) = (Vec::new(), Vec::new());
        for i in 0..200u64 {
            let c = wayfarer_core::candidates::candidate_actions(&obs, &Default::default(), false);
            let a = c[rng.gen_range(0..c.len())].clone();
            trace.push(TraceStep::new(a.clone(), &obs));
            let out = env.step(&a).unwrap();
            let found = oracles().judge(&out.events, None).into_iter().next();
            records.push(StepRecord {
                step: episode * 1000 + i,
                episode,
                worker: 1,
                episode_step: i as u32,
                action: a,
                target: None,
                state_before: wayfarer_core::StateId(0),
                state_after: wayfarer_core::StateId(0),
                url_after: out.observation.url.clone(),
                title_after: String::new(),
                element: None,
                new_state: false,
                events: vec![],
                timings: wayfarer_core::record::StepTimings {
                    total: Duration::from_millis(100),
                    ..Default::default()
                },
                error: None,
                findings: found.iter().map(|f| f.signature.clone()).collect(),
                app_actions: vec![],
                app_state: None,
                decision: None,
                form: None,
                inference: None,
                novelty: Default::default(),
            });
            if let Some(f) = found {
                let mut f = failure_of(f, trace, episode, out.observation.url);
                f.step = episode * 1000 + i;
                return Some((records, f));
            }
            obs = out.observation;
        }
        None
    }

    #[test]
    fn a_failure_seen_again_with_a_shorter_trace_is_shrunk_from_it() {
        let walks: Vec<_> = (0..300).filter_map(|s| walk(s, 1)).collect();
        let (long, f) = walks.iter().find(|w| w.0.len() >= 25).expect("a long walk");
        let (short, _) = walks
            .iter()
            .find(|w| w.0.len() <= 10)
            .expect("a short walk");
        let (long_n, short_n) = (long.len(), short.len());
        // The long trace's replays do not fit the time; the shorter sighting's do.
        let fits = |n: usize| Duration::from_millis(4 * (300 + 100 * n as u64));
        let time = (fits(short_n) + fits(long_n)) / 2;
        let pool = Arc::new(Pool::new(oracles(), (ShrinkBudget::Fixed(time), 3), None, 1).unwrap());
        let mut seen = PoolObserver(pool.clone());
        let p = wayfarer_core::Progress::default();
        for r in long {
            seen.on_step(r, &p);
        }
        seen.on_failure(f, None);
        // Seen again in another episode, sooner.
        for r in short {
            seen.on_step(
                &StepRecord {
                    episode: 2,
                    ..r.clone()
                },
                &p,
            );
        }
        assert_eq!(
            pool.graph().failure(&f.signature).unwrap().trace.len(),
            short_n
        );
        assert_eq!(
            pool.graph().first(&f.signature).unwrap().trace.len(),
            long_n
        );
        finish_on(&pool, &mut [SimEnv::new(app())]);
        let mut s = summary(f);
        pool.apply(&mut s, false, &mut |_| {});
        let sh = s.failures[0]
            .shrunk
            .clone()
            .expect("shrunk from the shorter trace");
        // Steps of the reported (first) trace: every kept one taken from the other.
        assert_eq!(sh.of, long_n);
        assert!(
            sh.kept.len() <= short_n && sh.kept.iter().all(|&k| k >= long_n),
            "{sh:?}"
        );
        assert_eq!((sh.hits, sh.runs), (3, 3));
        assert_eq!(sh.steps(&f.trace).unwrap().len(), sh.kept.len());
    }

    #[test]
    fn a_hang_no_replay_shows_again_is_a_warning_and_the_confirmed_come_first() {
        use wayfarer_core::findings::Verdict;
        let line = |kind: &str, sig: &str, hits: Option<u32>| FailureLine {
            kind: kind.into(),
            signature: sig.into(),
            message: format!("{sig} message"),
            step: 1,
            count: 1,
            page_url: "http://app.test/".into(),
            trace_len: 9,
            shrunk: hits.map(|h| Shrunk {
                hits: h,
                runs: 3,
                of: 9,
                ..Shrunk::default()
            }),
            baseline: None,
        };
        let mut s = RunSummary {
            failures: vec![
                line("hang", "hang|slow", None),
                line("exception", "exception|never", None),
                line("hang", "hang|again", Some(2)),
                line("hang", "hang|gone", Some(0)),
                line("exception", "exception|boom", Some(3)),
            ],
            ..RunSummary::default()
        };
        let mut said = Vec::new();
        judge_verdicts(&mut s, &mut |n| said.push(n));
        let order: Vec<(&str, Verdict)> = s
            .failures
            .iter()
            .map(|l| (l.signature.as_str(), l.verdict()))
            .collect();
        assert_eq!(
            order,
            [
                ("exception|boom", Verdict::Confirmed),
                ("hang|again", Verdict::Flaky),
                ("exception|never", Verdict::Unconfirmed),
            ]
        );
        let warned: Vec<&str> = s.warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            warned,
            [
                "hang|slow message (never replayed)",
                "hang|gone message (not seen again in 3 replay(s))"
            ]
        );
        assert!(s
            .warnings
            .iter()
            .all(|w| w.kind == wayfarer_core::FailureKind::Hang));
    }

    #[test]
    fn a_later_pass_is_put_back_in_the_failures_own_steps_and_shorter_ways() {
        let via = |t: &str| TraceStep {
            action: Action::on(wayfarer_core::ActionKind::Click, t.to_string()),
            element: None,
            url: String::new(),
        };
        // The first pass kept trace steps 2 and 7 and a shorter way's step between them.
        let prior = Shrunk {
            kept: vec![2, 10, 7],
            of: 10,
            via: vec![via("#v0")],
            replays: 5,
            ..Shrunk::default()
        };
        // The next pass, over those three, took a shorter way of its own to the last two.
        let next = Shrunk {
            kept: vec![3, 1, 2],
            of: 3,
            via: vec![via("#w0")],
            replays: 4,
            finished: true,
            hits: 3,
            runs: 3,
            ..Shrunk::default()
        };
        let c = continued(&prior, next);
        assert_eq!(c.kept, [10, 11, 7]);
        let targets: Vec<_> = c
            .via
            .iter()
            .map(|s| s.action.target.clone().unwrap())
            .collect();
        assert_eq!(targets, ["#w0", "#v0"]);
        assert_eq!((c.of, c.replays, c.finished, c.hits), (10, 9, true, 3));
    }

    #[test]
    fn an_idle_browser_shrinks_first_and_an_explorer_only_within_the_share() {
        let f = found();
        let pool = pool_with(ShrinkBudget::default(), 3, std::slice::from_ref(&f));
        let duty = |worker, idle, exploring, secs| Duty {
            worker,
            idle,
            exploring,
            elapsed: Duration::from_secs(secs),
        };
        // The last one exploring never hands over; two may, once the run has time behind it.
        assert!(!pool.wanted(duty(0, false, 1, 60)));
        assert!(pool.wanted(duty(0, false, 2, 60)));
        // Shrinking has had its share of the browsers' time: 20% of 2 x 60 s.
        pool.lock().in_run = Duration::from_secs(25);
        assert!(!pool.wanted(duty(0, false, 2, 60)));
        pool.lock().in_run = Duration::ZERO;
        // An idle browser takes the work, and while it is free the explorers keep exploring.
        assert!(pool.wanted(duty(2, true, 2, 60)));
        assert!(!pool.wanted(duty(0, false, 2, 60)));
        // Busy with one failure, it leaves the next to one explorer at a time.
        pool.lock().serving = 1;
        assert!(pool.wanted(duty(0, false, 2, 60)));
        pool.lock().explorers = 1;
        pool.lock().serving = 2;
        assert!(!pool.wanted(duty(1, false, 2, 60)));
        // Nothing waiting: nobody is wanted.
        pool.lock().pending.clear();
        assert!(!pool.wanted(duty(2, true, 2, 60)));
    }

    #[test]
    fn a_trace_too_long_for_an_explorers_share_waits_for_an_idle_browser() {
        let f = found();
        let pool = Arc::new(
            Pool::new(
                oracles(),
                (ShrinkBudget::default(), 3),
                Some(Duration::from_secs(10)),
                3,
            )
            .unwrap(),
        );
        PoolObserver(pool.clone()).on_failure(&f, None);
        // A second a step: four replays of the trace take far more than the 5 s a pass of
        // an explorer gets in a 10 s run.
        pool.lock().step_ms = 1000.0;
        assert!(pool.serve(0, &mut SimEnv::new(app())));
        let duty = |worker, idle| Duty {
            worker,
            idle,
            exploring: 2,
            elapsed: Duration::from_secs(5),
        };
        {
            let st = pool.lock();
            assert_eq!(
                st.pending,
                std::slice::from_ref(&f.signature),
                "queued again, not parked"
            );
            assert!(st.notes.is_empty());
        }
        assert!(
            !pool.wanted(duty(0, false)),
            "no explorer hands over for it"
        );
        assert!(pool.take(When::InRun, false).is_none());
        assert!(pool.wanted(duty(2, true)));
        assert!(pool.take(When::InRun, true).is_some());
    }

    #[test]
    fn a_failure_being_shrunk_when_the_run_ends_is_not_shrunk_twice_at_once() {
        let f = found();
        let unfinished = Shrunk {
            kept: (0..f.trace.len()).collect(),
            of: f.trace.len(),
            replays: 3,
            ..Shrunk::default()
        };
        let mut st = PoolState::default();
        st.done.push((f.signature.clone(), unfinished));
        st.busy.insert(f.signature.clone());
        let mut graph = Graph::default();
        graph.failures.push(f.clone());
        Pool::queue_rechecks(&graph, &mut st);
        assert!(st.pending.is_empty(), "{:?}", st.pending);
        // Not busy: its unfinished pass goes on in the tail.
        st.busy.clear();
        Pool::queue_rechecks(&graph, &mut st);
        assert_eq!(st.pending, std::slice::from_ref(&f.signature));
    }

    #[test]
    fn what_the_run_did_not_finish_gets_the_tail() {
        let f = found();
        let pool = pool_with(ShrinkBudget::default(), 1, std::slice::from_ref(&f));
        // While the run explored, the failure's replays did not fit a pass's time.
        {
            let mut st = pool.lock();
            st.pending.clear();
            st.notes
                .insert(f.signature.clone(), "more than the time left".into());
        }
        finish_on(&pool, &mut [SimEnv::new(app())]);
        let mut s = summary(&f);
        assert!(pool.apply(&mut s, false, &mut |_| {}));
        let sh = s.failures[0].shrunk.clone().expect("shrunk in the tail");
        assert!(sh.finished && sh.kept.len() <= 3, "{sh:?}");
        assert_eq!((sh.hits, sh.runs), (3, 3));
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
}
