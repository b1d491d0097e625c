//! Replaying an action sequence from a reset and judging what it raises: the engine of
//! `wayfarer replay` and of each test `wayfarer minimize` runs.

use crate::ddmin::Verdict;
use crate::env::{EnvError, Environment, Outcome};
use crate::model::Action;
use crate::oracle::Oracles;
use crate::trace::{Chosen, LocatorKind, TraceStep};

/// A step a replay performs: its action, and how an exported test would find its
/// target. A recorded step's CSS path names a position (the third link of the menu, the
/// second row); the page of a replay may have another row or link there.
pub trait Replayable: Clone {
    fn action(&self) -> &Action;

    /// The test id, role and name, label or text to find the target by first; `None`:
    /// the action's target as it is.
    fn chosen(&self) -> Option<Chosen> {
        None
    }
}

impl Replayable for Action {
    fn action(&self) -> &Action {
        self
    }
}

impl Replayable for TraceStep {
    fn action(&self) -> &Action {
        &self.action
    }

    fn chosen(&self) -> Option<Chosen> {
        let t = self.action.target.as_deref()?;
        Some(crate::trace::chosen(t, self.element.as_ref())).filter(|c| c.kind != LocatorKind::Css)
    }
}

/// `step`'s action aimed where its locator finds its target now (the element the
/// exported test would act on); where the locator finds none or several, the recorded
/// target as it is. Only a fatal environment error is an error.
fn aimed<S: Replayable>(env: &mut dyn Environment, step: &S) -> Result<Action, EnvError> {
    let mut action = step.action().clone();
    if let Some(c) = step.chosen() {
        match env.resolve(&c) {
            Ok(found) => action.target = Some(found),
            Err(e) if e.is_fatal() => return Err(e),
            Err(_) => {}
        }
    }
    Ok(action)
}

/// What one replay saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replay {
    /// Actions performed (all of them unless one could not be, or the run stopped at
    /// the expected failure).
    pub performed: usize,
    /// The index of the action after which the expected signature appeared (`None` when
    /// it did not; `Some(0)` may also mean the reset itself raised it, see `at_reset`).
    pub hit: Option<usize>,
    /// The expected failure appeared right after the reset, before any action.
    pub at_reset: bool,
    /// The action that could not be performed, and why (the page no longer offered it).
    pub blocked: Option<(usize, String)>,
    /// Every failure signature seen, in order, without repeats.
    pub signatures: Vec<String>,
    /// The environment restarted itself (a crash) before the end.
    pub restarted: bool,
    /// The page after the reset, then after each performed action.
    pub urls: Vec<String>,
}

impl Replay {
    /// Stretches `[i, j)` of the performed actions after which the page was the one
    /// before them (`urls[i] == urls[j]`): likely detours, for `ddmin_with_loops`.
    pub fn loops(&self) -> Vec<(usize, usize)> {
        crate::ddmin::loops(&self.urls)
    }

    pub fn reproduced(&self) -> bool {
        self.hit.is_some() || self.at_reset
    }

    /// The verdict for delta debugging: a failure needs the actions up to its hit.
    pub fn verdict(&self) -> Verdict {
        match (self.at_reset, self.hit) {
            (true, _) => Verdict::FailAt(0),
            (false, Some(i)) => Verdict::FailAt(i),
            (false, None) => Verdict::Pass,
        }
    }
}

/// Reset `env`, perform `actions` (each aimed by its locator, see `Replayable`), and look for `expected` among the failure signatures
/// the oracles find. With `stop_at_hit` the replay ends as soon as it appears. Only a
/// fatal environment error is an error; an action that cannot be performed ends the
/// replay as `blocked`.
pub fn replay<S: Replayable>(
    env: &mut dyn Environment,
    actions: &[S],
    oracles: &Oracles,
    expected: &str,
    stop_at_hit: bool,
) -> Result<Replay, EnvError> {
    let mut r = Replay::default();
    let out = env.reset()?;
    r.urls.push(out.observation.url.clone());
    // Books what the oracles find on one outcome; whether the expected failure is among it.
    let note = |out: &Outcome, r: &mut Replay| -> bool {
        let mut hit = false;
        for f in oracles.judge(&out.events, Some(&out.observation)) {
            hit |= f.signature == expected;
            if !r.signatures.contains(&f.signature) {
                r.signatures.push(f.signature);
            }
        }
        hit
    };
    if note(&out, &mut r) {
        r.at_reset = true;
        if stop_at_hit {
            return Ok(r);
        }
    }
    for (i, step) in actions.iter().enumerate() {
        let action = aimed(env, step)?;
        let out = match env.step(&action) {
            Ok(out) => out,
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => {
                r.blocked = Some((i, e.to_string()));
                return Ok(r);
            }
        };
        r.performed = i + 1;
        r.urls.push(out.observation.url.clone());
        if note(&out, &mut r) && r.hit.is_none() && !r.at_reset {
            r.hit = Some(i);
            if stop_at_hit {
                return Ok(r);
            }
        }
        if out.restarted {
            // The page is back at its start: the rest of the sequence means nothing.
            r.restarted = true;
            return Ok(r);
        }
    }
    // What comes due after the last action (a property's deadline) counts for it; only a
    // property's failure waits for it.
    if (r.reproduced() && stop_at_hit) || !expected.starts_with("property|") {
        return Ok(r);
    }
    let settled = match env.settle() {
        Ok(s) => s,
        Err(e) if e.is_fatal() => return Err(e),
        Err(_) => None,
    };
    if let Some(out) = settled {
        if note(&out, &mut r) && r.hit.is_none() && !r.at_reset {
            match r.performed.checked_sub(1) {
                Some(last) => r.hit = Some(last),
                None => r.at_reset = true,
            }
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::OracleConfig;
    use crate::sim::{SimApp, SimEnv};

    fn oracles() -> Oracles {
        Oracles::new(OracleConfig::default(), vec![]).unwrap()
    }

    /// Walk the sim app at random from its start until the bug is raised, recording
    /// the actions (many of them detours).
    fn path_to_bug(env: &mut SimEnv) -> (Vec<Action>, String) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut obs = env.reset().unwrap().observation;
        let mut actions = Vec::new();
        for _ in 0..2000 {
            let c = crate::candidates::candidate_actions(&obs, &Default::default(), false);
            let a = c[rng.gen_range(0..c.len())].clone();
            let out = env.step(&a).unwrap();
            actions.push(a);
            if let Some(f) = oracles().judge(&out.events, None).into_iter().next() {
                return (actions, f.signature);
            }
            obs = out.observation;
        }
        panic!("no bug reached");
    }

    #[test]
    fn replay_finds_the_expected_signature_and_stops_there() {
        let mut env = SimEnv::new(SimApp::form_chain(3, 0));
        let (mut actions, sig) = path_to_bug(&mut env);
        let n = actions.len();
        actions.push(actions[0].clone());
        let r = replay(&mut env, &actions, &oracles(), &sig, true).unwrap();
        assert!(r.reproduced());
        assert_eq!(r.hit, Some(n - 1));
        assert_eq!(r.performed, n);
        assert_eq!(r.verdict(), Verdict::FailAt(n - 1));
        assert_eq!(r.urls.len(), n + 1);
        let r = replay(&mut env, &actions[..n - 1], &oracles(), &sig, true).unwrap();
        assert!(!r.reproduced());
        assert_eq!(r.verdict(), Verdict::Pass);
        // Delta debugging over real replays keeps only the clicks that lead to the bug.
        let min = crate::ddmin::ddmin(&actions, |s| {
            replay(&mut env, s, &oracles(), &sig, true).map(|r| r.verdict())
        })
        .unwrap()
        .expect("the whole path reproduces");
        assert!(min.len() <= 3, "{} of {n} actions kept: {min:?}", min.len());
        let r = replay(&mut env, &min, &oracles(), &sig, true).unwrap();
        assert!(r.reproduced());
    }

    /// The sim app with a property that is violated only when the replay waits after its
    /// third action (a deadline that comes due).
    struct Due {
        env: SimEnv,
        acted: usize,
    }

    impl Environment for Due {
        fn reset(&mut self) -> Result<crate::env::Outcome, EnvError> {
            self.acted = 0;
            self.env.reset()
        }

        fn step(&mut self, action: &Action) -> Result<crate::env::Outcome, EnvError> {
            self.acted += 1;
            self.env.step(action)
        }

        fn settle(&mut self) -> Result<Option<crate::env::Outcome>, EnvError> {
            let mut out = self.env.observe()?;
            if self.acted >= 3 {
                out.events.push(crate::Event::property(
                    "late",
                    "late violated: not within 5000 ms",
                ));
            }
            Ok(Some(out))
        }
    }

    #[test]
    fn what_comes_due_after_the_last_action_counts_for_it() {
        let mut env = Due {
            env: SimEnv::new(SimApp::form_chain(3, 0)),
            acted: 0,
        };
        // Back on the start page: an action that can always be taken again.
        let actions = vec![Action::back(); 4];
        let sig = "property|late";
        let r = replay(&mut env, &actions[..3], &oracles(), sig, true).unwrap();
        assert_eq!((r.hit, r.performed), (Some(2), 3), "{r:?}");
        assert_eq!(r.verdict(), Verdict::FailAt(2));
        let r = replay(&mut env, &actions[..2], &oracles(), sig, true).unwrap();
        assert!(!r.reproduced(), "{r:?}");
        // Delta debugging keeps three actions: with fewer, nothing comes due.
        let min = crate::ddmin::ddmin(&actions, |s| {
            replay(&mut env, s, &oracles(), sig, true).map(|r| r.verdict())
        })
        .unwrap()
        .expect("the whole sequence reproduces");
        assert_eq!(min.len(), 3);
    }

    /// The sim app, where a locator finds what a recorded CSS path no longer does: the
    /// chosen locator's value is the element's target now.
    struct Moved(SimEnv);

    impl Environment for Moved {
        fn reset(&mut self) -> Result<crate::env::Outcome, EnvError> {
            self.0.reset()
        }

        fn step(&mut self, action: &Action) -> Result<crate::env::Outcome, EnvError> {
            self.0.step(action)
        }

        fn resolve(&mut self, c: &Chosen) -> Result<String, EnvError> {
            Ok(c.value.clone())
        }
    }

    #[test]
    fn a_step_is_aimed_by_its_locator_before_its_recorded_path() {
        let mut env = Moved(SimEnv::new(SimApp::form_chain(3, 0)));
        let (actions, sig) = path_to_bug(&mut env.0);
        // Every recorded path is stale; the hints' locators find the elements.
        let steps: Vec<TraceStep> = actions
            .iter()
            .map(|a| {
                let locator = a.target.as_ref().map(|t| Chosen {
                    kind: LocatorKind::Role,
                    by: "button".into(),
                    value: t.clone(),
                    verified: true,
                });
                let mut action = a.clone();
                if action.target.is_some() {
                    action.target = Some("#moved-away".into());
                }
                TraceStep {
                    action,
                    element: Some(crate::trace::ElementHint {
                        locator,
                        ..Default::default()
                    }),
                    url: String::new(),
                }
            })
            .collect();
        let r = replay(&mut env, &steps, &oracles(), &sig, true).unwrap();
        assert!(r.reproduced(), "{r:?}");
        assert_eq!(r.performed, actions.len());
        // The same actions without their hints stop at the first stale path.
        let bare: Vec<Action> = steps.iter().map(|s| s.action.clone()).collect();
        let r = replay(&mut env, &bare, &oracles(), &sig, true).unwrap();
        assert!(!r.reproduced());
        assert!(r.blocked.is_some(), "{r:?}");
    }
}
