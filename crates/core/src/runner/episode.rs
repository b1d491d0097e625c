//! The loop's bookkeeping around steps: starting an episode from a reset, the live
//! counters handed to observers, and judging events into failures.

use std::time::Instant;

use super::{Cursor, RunOptions};
use crate::agent::Agent;
use crate::env::{Environment, Outcome};
use crate::model::{Event, Observation};
use crate::observer::{Observer, Progress};
use crate::oracle::{FailureBook, Oracles};
use crate::record::ResetRecord;
use crate::state::Abstraction;
use crate::summary::Tally;

/// What `begin_episode` borrows from the loop.
pub(super) struct Loop<'a, 'o> {
    pub(super) env: &'a mut dyn Environment,
    pub(super) agent: &'a mut dyn Agent,
    pub(super) abstraction: &'a mut dyn Abstraction,
    pub(super) tally: &'a mut Tally,
    pub(super) book: &'a mut FailureBook,
    pub(super) observers: &'a mut [&'o mut dyn Observer],
    pub(super) opts: &'a RunOptions,
    pub(super) started: Instant,
    pub(super) steps: u64,
}

pub(super) fn begin_episode(out: Outcome, episode: u64, l: &mut Loop) -> Cursor {
    let mut analysis = l.abstraction.analyse(&out.observation);
    l.agent.annotate(&out.observation, analysis.data_mut());
    l.tally.urls.insert(analysis.url.clone());
    let cur = Cursor {
        obs: out.observation,
        analysis,
        trace: Vec::new(),
        episode,
        episode_step: 0,
        planned: None,
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
pub(super) fn progress(
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
pub(super) fn judge(
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
