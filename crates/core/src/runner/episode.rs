//! The loop's bookkeeping around steps: starting an episode from a reset, the live
//! counters handed to observers, and judging events into failures.

use std::time::Instant;

use super::hub::Shared;
use super::{Cursor, RunOptions};
use crate::agent::Agent;
use crate::env::{Environment, Outcome};
use crate::model::{Event, Observation};
use crate::observer::{Observer, Progress};
use crate::oracle::{FailureBook, Oracles};
use crate::record::ResetRecord;
use crate::server::ServerOutput;

/// Begin an episode of `worker` from the outcome of its reset: the next episode number of
/// the run, the start page analysed, judged and recorded.
pub(super) fn begin_episode(
    out: Outcome,
    worker: u32,
    env: &mut dyn Environment,
    agent: &mut dyn Agent,
    s: &mut Shared,
    hub: (&RunOptions, Instant, usize),
) -> Cursor {
    let (opts, started, workers) = hub;
    s.episodes += 1;
    let episode = s.episodes;
    // What the start page loads (and makes the server run, read here) is where
    // exploration begins, not what it found.
    let after = env.aftermath();
    s.novelty
        .absorb(&out.events, &out.observation.url, after.functions);
    s.novelty
        .regions(&out.observation.url, &out.observation.regions);
    let mut analysis = s.abstraction.analyse(&out.observation);
    agent.annotate(&out.observation, analysis.data_mut());
    s.tally.urls.insert(analysis.url.clone());
    let cur = Cursor {
        obs: out.observation,
        analysis,
        trace: Vec::new(),
        episode,
        episode_step: 0,
        planned: None,
    };
    let server = after.server_output;
    let findings = judge(
        &opts.oracles,
        &cur,
        (&out.events, &server),
        s.steps,
        &mut s.book,
        s.observers,
        &cur.obs,
        &s.typed,
        env,
    );
    let record = ResetRecord {
        episode,
        worker,
        after_step: s.steps,
        state: cur.analysis.state,
        url: cur.obs.url.clone(),
        title: cur.obs.title.clone(),
        events: out.events,
        findings,
        app_state: cur.obs.app.as_ref().and_then(|a| a.state.clone()),
    };
    let progress = progress(s, opts, started, workers, env);
    for o in s.observers.iter_mut() {
        o.on_reset(&record, &progress);
    }
    cur
}

/// The live counters of the run, as the latest recorded step leaves them.
pub(super) fn progress(
    s: &Shared,
    opts: &RunOptions,
    started: Instant,
    workers: usize,
    env: &mut dyn Environment,
) -> Progress {
    Progress {
        steps: s.steps,
        episodes: s.episodes,
        states: s.abstraction.states(),
        urls: s.tally.urls.len(),
        actions: s.tally.actions.len(),
        failures: s.book.len(),
        elapsed: started.elapsed(),
        budget_used: opts.budget.used(s.steps, started.elapsed()),
        coverage: env.coverage(),
        server: env.server_coverage(),
        workers,
    }
}

/// Judge the events of a step (or a reset) on the page they left; returns the
/// signatures found, and tells observers about new ones with a screenshot. A new failure
/// keeps what the server wrote meanwhile as its evidence.
#[allow(clippy::too_many_arguments)]
pub(super) fn judge(
    oracles: &Oracles,
    cur: &Cursor,
    (events, server): (&[Event], &ServerOutput),
    step: u64,
    book: &mut FailureBook,
    observers: &mut [&mut (dyn Observer + Send)],
    obs: &Observation,
    typed: &std::collections::BTreeSet<String>,
    env: &mut dyn Environment,
) -> Vec<String> {
    let mut found = Vec::new();
    for finding in oracles.judge_typed(events, Some(obs), typed) {
        found.push(finding.signature.clone());
        if let Some(f) = book.record(finding, step, cur.episode, &obs.url, &cur.trace, server) {
            let shot = env.screenshot();
            for o in observers.iter_mut() {
                o.on_failure(f, shot.as_deref());
            }
        }
    }
    found
}
