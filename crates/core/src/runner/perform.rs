//! One step's action and what it led to: a plain step with its scan, or, with guesses to
//! try, the action without a scan followed by the guesses and, when none holds, a scan.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;

use super::predict::{observed, Accepted, Guess, Planned, Predictor, TrialCtx};
use crate::agent::Agent;
use crate::env::{EnvError, EnvTimings, Environment, Outcome, Performed};
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
}

/// What `act` did.
enum Acted {
    /// An outcome with its scan, and the step's error when the action failed.
    Scanned(Box<Outcome>, Option<String>),
    /// Acted and waited, nothing scanned (state inference will guess the page).
    Unscanned {
        events: Vec<Event>,
        timings: EnvTimings,
    },
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
    let Some(t) = trying else {
        let Acted::Scanned(outcome, error) = act(env, action, before.0, false)? else {
            unreachable!("a scanned step is asked for");
        };
        return Ok(Done {
            outcome: *outcome,
            error,
            accepted: None,
            validate: Duration::ZERO,
        });
    };
    let (outcome, error, accepted) = match act(env, action, before.0, true)? {
        Acted::Scanned(outcome, error) => (*outcome, error, None),
        Acted::Unscanned { events, timings } => {
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
    };
    let decided = match &accepted {
        Some(Accepted {
            planned: Some(Planned::Act { decide, .. }),
            ..
        }) => *decide,
        _ => Duration::ZERO,
    };
    let t = &outcome.timings;
    let validate = started
        .elapsed()
        .saturating_sub(decided + t.act + t.wait + t.scan + t.coverage + t.name + t.spec);
    Ok(Done {
        outcome,
        error,
        accepted,
        validate,
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

/// Perform `action`, without a scan when `unscanned` is asked and the environment can.
/// A failed action is followed by a scan of where the page is.
fn act(
    env: &mut dyn Environment,
    action: &Action,
    before: &Observation,
    unscanned: bool,
) -> Result<Acted, EnvError> {
    let result = if unscanned {
        env.perform(action)
    } else {
        env.step(action).map(|o| Performed::Observed(Box::new(o)))
    };
    match result {
        Ok(Performed::Observed(out)) => Ok(Acted::Scanned(out, None)),
        Ok(Performed::Acted { events, timings }) => Ok(Acted::Unscanned { events, timings }),
        Err(e) if e.is_fatal() => Err(e),
        Err(e) => match env.observe() {
            Ok(out) => Ok(Acted::Scanned(Box::new(out), Some(e.to_string()))),
            Err(e2) if e2.is_fatal() => Err(e2),
            Err(_) => Ok(Acted::Scanned(
                Box::new(Outcome {
                    observation: before.clone(),
                    ..Outcome::default()
                }),
                Some(e.to_string()),
            )),
        },
    }
}
