//! What the workers of a run share: one abstraction, one failure table, one tally and one
//! set of observers behind one lock (so the store has one writer and numbers the steps in
//! the order they are recorded), and the budget, claimed one step at a time.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use super::auto::Gate;
use super::RunOptions;
use crate::novelty::NoveltyTracker;
use crate::observer::Observer;
use crate::oracle::FailureBook;
use crate::state::Abstraction;
use crate::summary::Tally;

/// The run's shared state, locked as a whole: a worker holds it to analyse a page, to
/// judge and record a step, to begin an episode.
pub(super) struct Shared<'a, 'o> {
    pub abstraction: &'a mut (dyn Abstraction + Send),
    pub book: FailureBook,
    pub tally: Tally,
    pub observers: &'a mut [&'o mut (dyn Observer + Send)],
    /// Steps recorded so far: the number of the latest.
    pub steps: u64,
    /// Episodes begun so far: the number of the latest.
    pub episodes: u64,
    /// What the run has seen (scripts, endpoints, pages, functions): each step's novelty.
    pub novelty: NoveltyTracker,
    /// Every value the run has typed: a page may show it back (the oracles' `judge_typed`).
    pub typed: std::collections::BTreeSet<String>,
}

pub(super) struct Hub<'a, 'o> {
    shared: Mutex<Shared<'a, 'o>>,
    /// Steps claimed: a worker claims one after choosing it and before acting, so N
    /// workers never take more steps than an action budget allows.
    claimed: AtomicU64,
    /// Why every worker must stop, and whether the application or the browser (not the
    /// user) ended the run; the first reason is kept.
    halt: Mutex<Option<(String, bool)>>,
    /// Workers still exploring.
    active: AtomicUsize,
    /// Workers `--workers auto` left idle (counted in `active` until they end).
    idle: AtomicUsize,
    /// When the last worker stopped exploring: the run's length, without what the
    /// browsers were handed over for afterwards.
    ended: Mutex<Option<Instant>>,
    /// When a worker first saw the budget spent: a worker that was handed over past it
    /// stopped exploring then.
    spent: std::sync::OnceLock<Instant>,
    pub opts: &'a RunOptions,
    pub started: Instant,
    /// Where workers wait while `--workers auto` probes (open otherwise).
    pub gate: Gate,
    /// How `--workers auto` chose, once it did.
    pub auto_note: Mutex<Option<String>>,
}

impl<'a, 'o> Hub<'a, 'o> {
    pub fn new(
        abstraction: &'a mut (dyn Abstraction + Send),
        observers: &'a mut [&'o mut (dyn Observer + Send)],
        opts: &'a RunOptions,
        started: Instant,
        workers: usize,
    ) -> Self {
        Hub {
            shared: Mutex::new(Shared {
                abstraction,
                book: FailureBook::default(),
                tally: Tally::default(),
                observers,
                steps: 0,
                episodes: 0,
                novelty: NoveltyTracker::new(opts.oracles.app_origins().to_vec()),
                typed: Default::default(),
            }),
            claimed: AtomicU64::new(0),
            halt: Mutex::new(None),
            active: AtomicUsize::new(workers),
            idle: AtomicUsize::new(0),
            ended: Mutex::new(None),
            spent: std::sync::OnceLock::new(),
            opts,
            started,
            gate: match opts.auto_workers {
                Some(_) if workers > 1 => Gate::probing(workers),
                _ => Gate::open(workers),
            },
            auto_note: Mutex::new(None),
        }
    }

    /// The shared state. A worker that panicked while holding it left it usable: every
    /// update under the lock is a whole record, so the others go on.
    pub fn lock(&self) -> MutexGuard<'_, Shared<'a, 'o>> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn into_shared(self) -> Shared<'a, 'o> {
        self.shared.into_inner().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the budget is spent (steps claimed, time elapsed).
    pub fn exhausted(&self) -> bool {
        let spent = self
            .opts
            .budget
            .exhausted(self.claimed.load(Ordering::SeqCst), self.started.elapsed());
        if spent {
            self.spent.get_or_init(Instant::now);
        }
        spent
    }

    /// Claim one step of an action budget; `false` when another worker took the last one.
    /// Time is not looked at: a worker that passed the check at the top of its step takes
    /// it, as a single worker always did.
    pub fn claim(&self) -> bool {
        let max = self.opts.budget.actions.unwrap_or(u64::MAX);
        self.claimed
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .is_ok()
    }

    /// Workers still exploring.
    pub fn active(&self) -> usize {
        self.active.load(Ordering::SeqCst)
    }

    /// Workers exploring now (those left idle not counted).
    pub fn exploring(&self) -> usize {
        self.active()
            .saturating_sub(self.idle.load(Ordering::SeqCst))
    }

    /// A worker was left idle by `--workers auto`.
    pub fn idled(&self) {
        self.idle.fetch_add(1, Ordering::SeqCst);
    }

    /// A worker stopped exploring (an idle one: stopped waiting, which ends nothing).
    pub fn finished(&self, idle: bool) {
        self.active.fetch_sub(1, Ordering::SeqCst);
        if idle {
            self.idle.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        let now = Instant::now();
        let until = self.spent.get().map_or(now, |&s| s.min(now));
        let mut e = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        *e = Some(until.max(e.unwrap_or(self.started)));
    }

    /// When the exploration ended (now while a worker still explores).
    pub fn ended(&self) -> Instant {
        let e = *self.ended.lock().unwrap_or_else(|p| p.into_inner());
        match self.active() {
            0 => e.unwrap_or_else(Instant::now),
            _ => Instant::now(),
        }
    }

    /// Give back a claimed step that was never taken (its worker's browser is gone).
    pub fn release(&self) {
        self.claimed.fetch_sub(1, Ordering::SeqCst);
    }

    /// Stop every worker (the first reason is kept); `by_environment` when the
    /// application or the browser ended the run.
    pub fn halt(&self, why: String, by_environment: bool) {
        let mut h = self.halt.lock().unwrap_or_else(|p| p.into_inner());
        h.get_or_insert((why, by_environment));
    }

    /// `--workers auto`: once the first worker took its probe steps, decide how many
    /// explore from what the probe's steps in `s` waited.
    pub fn probe(&self, s: &Shared<'_, '_>, steps: u64) {
        let Some(auto) = self.opts.auto_workers else {
            return;
        };
        if steps < auto.probe_steps || !self.gate.is_probing() {
            return;
        }
        let (waited, total) = s.tally.timings.iter().fold((0.0, 0.0), |(w, t), x| {
            (
                w + (x.act + x.wait).as_secs_f64(),
                t + x.total.as_secs_f64(),
            )
        });
        let waiting = if total > 0.0 { waited / total } else { 0.0 };
        if let Some((_, why)) = self.gate.decide(waiting, steps) {
            tracing::info!("--workers auto: {why}");
            *self.auto_note.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
        }
    }

    pub fn halted(&self) -> Option<(String, bool)> {
        self.halt.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}
