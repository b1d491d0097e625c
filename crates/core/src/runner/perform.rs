//! One step's action and what it led to: a plain step with its scan, or, with guesses to
//! try, the action without a scan followed by the guesses and, when none holds, a scan.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;

use super::predict::{observed, Accepted, Guess, Planned, Predictor, TrialCtx};
use crate::agent::Agent;
use crate::env::{
    Aftermath, Answer, EnvError, EnvTimings, Environment, Outcome, Performed, TargetName,
};
use crate::model::{Action, Event, Observation};
use crate::state::Analysis;

/// Guesses to try after the action, with what trying them needs.
pub(super) struct Trying<'a> {
    pub predictor: &'a mut Predictor,
    pub guesses: &'a [Arc<Guess>],
    pub agent: &'a dyn Agent,
    pub rng: &'a ChaCha8Rng,
    pub ctx: TrialCtx<'a>,
}

/// What a step did.
pub(super) struct Done {
    pub outcome: Outcome,
    /// Why the action failed, when it did (the outcome is then a scan of where the page is).
    pub error: Option<String>,
    /// The guess that held, if one did.
    pub accepted: Option<Accepted>,
    /// Time trying guesses, less the next choice an accepted one already made.
    pub validate: Duration,
    /// How the target was named, and what the step caused beyond the page.
    pub target_name: Option<TargetName>,
    pub aftermath: Aftermath,
}

/// Perform `action` from the page `before`; only a fatal error (the run cannot go on) is
/// an `Err`.
pub(super) fn perform(
    env: &mut dyn Environment,
    action: &Action,
    before: (&Observation, &Analysis),
    trying: Option<Trying<'_>>,
) -> Result<Done, EnvError> {
    let started = Instant::now();
    let guessed = trying.is_some();
    let answer = env.answer(action, before.0, guessed)?;
    let Answer {
        performed,
        error,
        target_name,
        aftermath,
    } = answer;
    let (outcome, error, accepted) = match (performed, trying) {
        (Performed::Observed(outcome), _) => (*outcome, error, None),
        (Performed::Acted { events, timings }, Some(t)) => {
            let accepted = t.predictor.try_guesses(
                t.guesses, t.agent, t.rng, env, before, action, &events, &t.ctx,
            );
            match accepted {
                Some(a) => {
                    let outcome = Outcome {
                        observation: observed(&a.obs, &a.probe),
                        events,
                        timings,
                        restarted: false,
                    };
                    (outcome, None, Some(a))
                }
                None => {
                    t.predictor.stats.fallbacks += 1;
                    let (outcome, error) = scan_after(env, before.0, events, timings)?;
                    (outcome, error, None)
                }
            }
        }
        // An environment that skipped the scan unasked: scan now.
        (Performed::Acted { events, timings }, None) => {
            let (outcome, error) = scan_after(env, before.0, events, timings)?;
            (outcome, error, None)
        }
    };
    let decided = match &accepted {
        Some(Accepted {
            planned: Some(Planned::Act { decide, .. }),
            ..
        }) => *decide,
        _ => Duration::ZERO,
    };
    let t = &outcome.timings;
    // Validation is what trying guesses took beyond the step's own parts.
    let validate = if guessed {
        started.elapsed().saturating_sub(
            decided
                + t.act
                + t.wait
                + t.scan
                + t.coverage
                + t.name
                + t.spec
                + aftermath.server_time,
        )
    } else {
        Duration::ZERO
    };
    Ok(Done {
        outcome,
        error,
        accepted,
        validate,
        target_name,
        aftermath,
    })
}

/// No guess held: scan the page the action left, keeping the action's events and times.
fn scan_after(
    env: &mut dyn Environment,
    before: &Observation,
    mut events: Vec<Event>,
    timings: EnvTimings,
) -> Result<(Outcome, Option<String>), EnvError> {
    match env.observe() {
        Ok(mut out) => {
            events.append(&mut out.events);
            out.events = events;
            out.timings.act = timings.act;
            out.timings.wait = timings.wait;
            out.timings.coverage += timings.coverage;
            out.timings.name = timings.name;
            out.timings.spec += timings.spec;
            Ok((out, None))
        }
        Err(e) if e.is_fatal() => Err(e),
        Err(e) => Ok((
            Outcome {
                observation: before.clone(),
                events,
                timings,
                restarted: false,
            },
            Some(e.to_string()),
        )),
    }
}
