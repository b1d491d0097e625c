//! Minimising a failing trace: delta debugging over real replays, and the checks that
//! tell a failure the trace's actions cause from one that needs state a browser reset
//! does not undo (a throttle or a row kept by the server). Without a reset hook such a
//! failure "reproduces" after any short trace once a longer one has set the state, and
//! delta debugging would cut it to a lie.

use crate::ddmin::{ddmin_with_loops, Verdict};
use crate::env::{EnvError, Environment};
use crate::model::Action;
use crate::oracle::Oracles;
use crate::replay::replay;

/// What `minimize` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Minimized {
    /// Indices into the trace's actions, in order.
    pub kept: Vec<usize>,
    /// Replays done.
    pub tests: u32,
    /// Why the failure depends on state outside the browser, when a replay showed it:
    /// then `kept` is the first replay's actions, not shrunk.
    pub outside_state: Option<String>,
    /// The kept actions raised the failure again on a last replay.
    pub confirmed: bool,
}

/// One replay done: its number, how many actions it performed and its verdict.
pub type Progress<'a> = &'a mut dyn FnMut(u32, usize, Verdict);

/// The sentence a trace, a report and a spec carry for a failure that depends on state
/// outside the browser; `seen` says what showed it.
pub fn outside_state_warning(seen: &str) -> String {
    format!(
        "depends on state outside the browser: {seen}. The application remembers something \
         a browser reset does not clear (a throttle, a database row), or the failure \
         depends on timing; configure a [reset] hook so each replay starts from the same \
         state"
    )
}

/// Shrink `actions` (a trace that recorded `expected` after its last action) to the
/// fewest that still raise it, replaying each candidate from a reset. `Ok(None)` when
/// the whole trace does not reproduce.
///
/// Two replays guard against state outside the browser: the first replay of the whole
/// trace must not fail earlier than the trace recorded, and when the result is shorter,
/// the same actions replayed again must fail where they first did. When either does not
/// hold, the result is the first replay's actions with the reason in `outside_state`.
pub fn minimize(
    env: &mut dyn Environment,
    actions: &[Action],
    oracles: &Oracles,
    expected: &str,
    progress: Progress,
) -> Result<Option<Minimized>, EnvError> {
    let n = actions.len();
    let whole = replay(env, actions, oracles, expected, true)?;
    let mut tests = 1u32;
    progress(tests, n, whole.verdict());
    let first = match whole.verdict() {
        Verdict::Pass => return Ok(None),
        Verdict::FailAt(k) => k,
    };
    if n > 0 && (whole.at_reset || first + 1 < n) {
        let at = if whole.at_reset {
            "on the start page".to_string()
        } else {
            format!("after action {}", first + 1)
        };
        return Ok(Some(Minimized {
            kept: (0..n).collect(),
            tests,
            outside_state: Some(outside_state_warning(&format!(
                "the first replay raised it {at} of {n}, the trace recorded it after action {n}"
            ))),
            confirmed: true,
        }));
    }
    let indices: Vec<usize> = (0..n).collect();
    let kept = ddmin_with_loops(&indices, Some(whole.verdict()), &whole.loops(), |cand| {
        tests += 1;
        let seq: Vec<Action> = cand.iter().map(|&i| actions[i].clone()).collect();
        let v = replay(env, &seq, oracles, expected, true)?.verdict();
        progress(tests, cand.len(), v);
        Ok::<_, EnvError>(v)
    })?
    .unwrap_or_else(|| (0..=first.min(n.saturating_sub(1))).collect());
    let prefix: Vec<usize> = (0..n.min(first + 1)).collect();
    if kept.len() < prefix.len() {
        // The first replay's actions again: with state only the browser holds, they fail
        // where they first did.
        tests += 1;
        let seq: Vec<Action> = prefix.iter().map(|&i| actions[i].clone()).collect();
        let again = replay(env, &seq, oracles, expected, true)?;
        progress(tests, seq.len(), again.verdict());
        let earlier = match again.verdict() {
            Verdict::FailAt(_) if again.at_reset => Some("on the start page".to_string()),
            Verdict::FailAt(j) if j < first => Some(format!("after action {}", j + 1)),
            _ => None,
        };
        if let Some(at) = earlier {
            return Ok(Some(Minimized {
                kept: prefix,
                tests,
                outside_state: Some(outside_state_warning(&format!(
                    "after shorter traces had run, the whole trace raised it {at} where its \
                     first replay raised it after action {}",
                    first + 1
                ))),
                confirmed: true,
            }));
        }
    }
    // One more replay of the result, so a flaky failure cannot pass off a wrong answer.
    tests += 1;
    let seq: Vec<Action> = kept.iter().map(|&i| actions[i].clone()).collect();
    let last = replay(env, &seq, oracles, expected, true)?;
    progress(tests, seq.len(), last.verdict());
    Ok(Some(Minimized {
        kept,
        tests,
        outside_state: None,
        confirmed: last.reproduced(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::OracleConfig;
    use crate::env::{Outcome, WithApp};
    use crate::model::{ActionKind, Event, Observation};
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    /// A login page whose server locks a user out after `limit` failed logins: every
    /// later login answers HTTP 500. The count lives in `failed`, outside the browser:
    /// `reset` does not clear it.
    struct Throttled {
        failed: Arc<AtomicU32>,
        limit: u32,
    }

    fn obs() -> Observation {
        Observation {
            url: "http://app.test/login".into(),
            ..Observation::default()
        }
    }

    impl Environment for Throttled {
        fn reset(&mut self) -> Result<Outcome, EnvError> {
            Ok(Outcome {
                observation: obs(),
                ..Outcome::default()
            })
        }
        fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
            let mut events = Vec::new();
            if action.target.as_deref() == Some("#login") {
                if self.failed.load(Ordering::SeqCst) >= self.limit {
                    events.push(Event::http(500, "http://app.test/login", true));
                } else {
                    self.failed.fetch_add(1, Ordering::SeqCst);
                }
            }
            Ok(Outcome {
                observation: obs(),
                events,
                ..Outcome::default()
            })
        }
    }

    /// Six rounds of typing and a failed login, with detours: the sixth login fails.
    fn trace() -> Vec<Action> {
        let mut a = Vec::new();
        for i in 0..6 {
            let mut t = Action::on(ActionKind::Type, "#user".to_string());
            t.value = Some(format!("user{i}"));
            a.push(t);
            a.push(Action::on(ActionKind::Click, "#help".to_string()));
            a.push(Action::on(ActionKind::Click, "#login".to_string()));
        }
        a
    }

    fn oracles() -> Oracles {
        Oracles::new(OracleConfig::default(), vec!["http://app.test".into()]).unwrap()
    }

    fn expected(env: &mut dyn Environment, actions: &[Action]) -> String {
        env.reset().unwrap();
        for a in actions {
            let out = env.step(a).unwrap();
            if let Some(f) = oracles().judge(&out.events, None).into_iter().next() {
                return f.signature;
            }
        }
        panic!("the trace raises nothing");
    }

    fn logins(actions: &[Action], kept: &[usize]) -> usize {
        kept.iter()
            .filter(|&&i| actions[i].target.as_deref() == Some("#login"))
            .count()
    }

    #[test]
    fn with_a_reset_hook_the_minimal_trace_keeps_every_login_the_lock_needs() {
        let failed = Arc::new(AtomicU32::new(0));
        let actions = trace();
        let inner = Throttled {
            failed: failed.clone(),
            limit: 5,
        };
        let clear = failed.clone();
        let mut env = WithApp::new(
            inner,
            Some(Box::new(move || {
                clear.store(0, Ordering::SeqCst);
                Ok(())
            })),
        );
        let sig = expected(&mut env, &actions);
        let m = minimize(&mut env, &actions, &oracles(), &sig, &mut |_, _, _| {})
            .unwrap()
            .expect("reproduces");
        assert_eq!(m.outside_state, None);
        assert!(m.confirmed);
        assert_eq!(logins(&actions, &m.kept), 6, "{:?}", m.kept);
        assert_eq!(
            m.kept.len(),
            6,
            "typing and help are not needed: {:?}",
            m.kept
        );
    }

    #[test]
    fn without_a_hook_a_lock_left_by_the_recording_is_seen_on_the_first_replay() {
        let failed = Arc::new(AtomicU32::new(0));
        let actions = trace();
        let mut env = Throttled {
            failed: failed.clone(),
            limit: 5,
        };
        // Recording the trace left the user locked out, as exploration would.
        let sig = expected(&mut env, &actions);
        let m = minimize(&mut env, &actions, &oracles(), &sig, &mut |_, _, _| {})
            .unwrap()
            .expect("reproduces");
        let why = m.outside_state.expect("state outside the browser is seen");
        assert!(
            why.contains("first replay raised it after action 3 of 18"),
            "{why}"
        );
        assert_eq!(m.kept.len(), 18, "not shrunk");
        assert_eq!(m.tests, 1);
    }

    #[test]
    fn without_a_hook_a_lock_set_by_the_first_replay_is_seen_before_a_lie_is_kept() {
        let failed = Arc::new(AtomicU32::new(0));
        let actions = trace();
        let mut env = Throttled {
            failed: failed.clone(),
            limit: 5,
        };
        let sig = expected(&mut env, &actions);
        // The lock expired before minimising: the first replay is right, the rest are not.
        failed.store(0, Ordering::SeqCst);
        let m = minimize(&mut env, &actions, &oracles(), &sig, &mut |_, _, _| {})
            .unwrap()
            .expect("reproduces");
        let why = m.outside_state.expect("state outside the browser is seen");
        assert!(why.contains("after shorter traces had run"), "{why}");
        assert!(logins(&actions, &m.kept) >= 6, "{:?}", m.kept);
    }

    #[test]
    fn a_failure_only_the_actions_cause_is_shrunk_as_before() {
        // A lock that never engages on its own: the 500 needs the sixth login of one
        // replay (the count is reset with the browser).
        struct InBrowser(u32);
        impl Environment for InBrowser {
            fn reset(&mut self) -> Result<Outcome, EnvError> {
                self.0 = 0;
                Ok(Outcome {
                    observation: obs(),
                    ..Outcome::default()
                })
            }
            fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
                let mut events = Vec::new();
                if action.target.as_deref() == Some("#login") {
                    self.0 += 1;
                    if self.0 > 5 {
                        events.push(Event::http(500, "http://app.test/login", true));
                    }
                }
                Ok(Outcome {
                    observation: obs(),
                    events,
                    ..Outcome::default()
                })
            }
        }
        let actions = trace();
        let mut env = InBrowser(0);
        let sig = expected(&mut env, &actions);
        let mut seen = 0;
        let m = minimize(&mut env, &actions, &oracles(), &sig, &mut |_, _, _| {
            seen += 1
        })
        .unwrap()
        .expect("reproduces");
        assert_eq!(m.outside_state, None);
        assert_eq!(m.kept.len(), 6);
        assert!(m.confirmed);
        assert_eq!(seen, m.tests);
    }
}
