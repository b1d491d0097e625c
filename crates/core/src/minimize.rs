//! Minimising a failing trace: delta debugging over real replays, and the checks that
//! tell a failure the trace's actions cause from one that needs state a browser reset
//! does not undo (a throttle or a row kept by the server). Without a reset hook such a
//! failure "reproduces" after any short trace once a longer one has set the state, and
//! delta debugging would cut it to a lie.

use crate::ddmin::{ddmin_with_loops, Verdict};
use crate::env::{EnvError, Environment};
use crate::oracle::Oracles;
use crate::replay::{replay, Replay, Replayable};

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

/// What `minimize` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Minimized {
    /// Indices into the trace's actions, in order.
    pub kept: Vec<usize>,
    /// Replays done to shrink (the confirming ones not counted).
    pub tests: u32,
    /// Why the failure depends on state outside the browser, when a replay showed it:
    /// then `kept` is the first replay's actions, not shrunk.
    pub outside_state: Option<String>,
    /// False when the deadline came first: `kept` is the shortest failing trace seen.
    pub finished: bool,
    /// Confirming replays of `kept` that raised the failure again, of `runs`.
    pub hits: u32,
    pub runs: u32,
}

impl Minimized {
    /// Every confirming replay raised the failure.
    pub fn confirmed(&self) -> bool {
        self.runs > 0 && self.hits == self.runs
    }
}

/// How far `minimize` may go.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// No shrinking replay starts once the one it would take could end past it; the
    /// confirming replays are counted in (estimated from the shortest failing replay).
    pub deadline: Option<Instant>,
    /// Replays of the result that confirm it (at least one is done).
    pub confirm: u32,
    /// False when a later pass goes on from where this one stops: a search the deadline
    /// cut short is then neither checked nor confirmed (`runs` 0), which the last pass
    /// does for what it kept.
    pub last_pass: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            deadline: None,
            confirm: 1,
            last_pass: true,
        }
    }
}

/// The action sequences replays showed do not raise a failure: kept over the passes of
/// one failure (shrinking in slices of a run's time), so that a later pass does not
/// replay what an earlier one tried.
#[derive(Clone, Debug, Default)]
pub struct Passed(HashSet<u64>);

impl Passed {
    fn key<S: Replayable>(seq: &[S]) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for s in seq {
            serde_json::to_string(s.action())
                .unwrap_or_default()
                .hash(&mut h);
        }
        h.finish()
    }

    /// Whether a replay of `seq` showed it does not raise the failure.
    pub fn knows<S: Replayable>(&self, seq: &[S]) -> bool {
        self.0.contains(&Self::key(seq))
    }

    pub fn insert<S: Replayable>(&mut self, seq: &[S]) {
        self.0.insert(Self::key(seq));
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
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
/// fewest that still raise it, replaying each candidate from a reset, then replay the
/// result `limits.confirm` times. `Ok(None)` when the whole trace does not reproduce.
///
/// Two replays guard against state outside the browser: the first replay of the whole
/// trace must not fail earlier than the trace recorded, and when the result is shorter,
/// the same actions replayed again must fail where they first did. When either does not
/// hold, the result is the first replay's actions with the reason in `outside_state`.
pub fn minimize<S: Replayable>(
    env: &mut dyn Environment,
    actions: &[S],
    oracles: &Oracles,
    expected: &str,
    (limits, passed): (Limits, &mut Passed),
    progress: Progress,
) -> Result<Option<Minimized>, EnvError> {
    let began = Instant::now();
    let whole = replay(env, actions, oracles, expected, true)?;
    progress(1, actions.len(), whole.verdict());
    let took = began.elapsed();
    minimize_replayed(
        env,
        actions,
        (whole, took),
        oracles,
        expected,
        (limits, passed),
        progress,
    )
}

/// `minimize` after its first replay of all of `actions`, done by the caller (`whole`,
/// which took the time given): a replay that found the trace is not done twice. The
/// caller's replay counts as the first test.
pub fn minimize_replayed<S: Replayable>(
    env: &mut dyn Environment,
    actions: &[S],
    (whole, took): (Replay, Duration),
    oracles: &Oracles,
    expected: &str,
    (limits, passed): (Limits, &mut Passed),
    progress: Progress,
) -> Result<Option<Minimized>, EnvError> {
    let n = actions.len();
    let mut tests = 1u32;
    // The cost of a confirming replay: the shortest failing replay seen so far.
    let mut failing_replay = took;
    let first = match whole.verdict() {
        Verdict::Pass => return Ok(None),
        Verdict::FailAt(k) => k,
    };
    let mut outside_state = None;
    let mut finished = true;
    let kept = if n == 0 {
        // Raised by the reset itself (loading the start page): nothing to take away.
        Vec::new()
    } else if whole.at_reset || first + 1 < n {
        let at = if whole.at_reset {
            "on the start page".to_string()
        } else {
            format!("after action {}", first + 1)
        };
        outside_state = Some(outside_state_warning(&format!(
            "the first replay raised it {at} of {n}, the trace recorded it after action {n}"
        )));
        (0..n).collect()
    } else {
        let indices: Vec<usize> = (0..n).collect();
        let confirm = limits.confirm.max(1);
        let kept = ddmin_with_loops(&indices, Some(whole.verdict()), &whole.loops(), |cand| {
            // Past the deadline every candidate counts as passing untried: the search
            // runs out at once and keeps the shortest failing trace it has.
            let left = limits
                .deadline
                .map(|d| d.saturating_duration_since(Instant::now()));
            let seq: Vec<S> = cand.iter().map(|&i| actions[i].clone()).collect();
            // An earlier pass over this failure replayed these actions without it.
            if passed.knows(&seq) {
                return Ok(Verdict::Pass);
            }
            // The last pass keeps time to check and confirm what it keeps (the first
            // replay's actions once more, the result `confirm` times); another only its test.
            let needs = match limits.last_pass {
                true => failing_replay * confirm + took.max(failing_replay),
                false => failing_replay,
            };
            if left.is_some_and(|left| left < needs) {
                finished = false;
                return Ok(Verdict::Pass);
            }
            tests += 1;
            let t = Instant::now();
            let v = replay(env, &seq, oracles, expected, true)?.verdict();
            match v {
                Verdict::Pass => passed.insert(&seq),
                Verdict::FailAt(_) => failing_replay = failing_replay.min(t.elapsed()),
            }
            progress(tests, cand.len(), v);
            Ok::<_, EnvError>(v)
        })?
        .unwrap_or_else(|| (0..=first.min(n.saturating_sub(1))).collect());
        let prefix: Vec<usize> = (0..n.min(first + 1)).collect();
        if !finished && !limits.last_pass {
            kept
        } else if kept.len() < prefix.len() {
            // The first replay's actions again: with state only the browser holds, they
            // fail where they first did.
            tests += 1;
            let seq: Vec<S> = prefix.iter().map(|&i| actions[i].clone()).collect();
            let again = replay(env, &seq, oracles, expected, true)?;
            progress(tests, seq.len(), again.verdict());
            let earlier = match again.verdict() {
                Verdict::FailAt(_) if again.at_reset => Some("on the start page".to_string()),
                Verdict::FailAt(j) if j < first => Some(format!("after action {}", j + 1)),
                _ => None,
            };
            match earlier {
                Some(at) => {
                    outside_state = Some(outside_state_warning(&format!(
                        "after shorter traces had run, the whole trace raised it {at} where its \
                         first replay raised it after action {}",
                        first + 1
                    )));
                    prefix
                }
                None => kept,
            }
        } else {
            kept
        }
    };
    // Replays of the result, so a flaky failure cannot pass off a wrong answer.
    let seq: Vec<S> = kept.iter().map(|&i| actions[i].clone()).collect();
    let runs = match !finished && !limits.last_pass {
        true => 0,
        false => limits.confirm.max(1),
    };
    let mut hits = 0;
    for k in 0..runs {
        let r = replay(env, &seq, oracles, expected, true)?;
        progress(tests + k + 1, seq.len(), r.verdict());
        hits += u32::from(r.reproduced());
    }
    Ok(Some(Minimized {
        kept,
        tests,
        outside_state,
        finished,
        hits,
        runs,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::OracleConfig;
    use crate::env::{Outcome, WithApp};
    use crate::model::{Action, ActionKind, Event, Observation};
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
    fn a_later_pass_does_not_replay_what_an_earlier_one_showed_passes() {
        let failed = Arc::new(AtomicU32::new(0));
        let actions = trace();
        let clear = failed.clone();
        let mut env = WithApp::new(
            Throttled { failed, limit: 5 },
            Some(Box::new(move || {
                clear.store(0, Ordering::SeqCst);
                Ok(())
            })),
        );
        let sig = expected(&mut env, &actions);
        let mut passed = Passed::default();
        let pass = |env: &mut dyn Environment, passed: &mut Passed| {
            let m = minimize(
                env,
                &actions,
                &oracles(),
                &sig,
                (Limits::default(), passed),
                &mut |_, _, _| {},
            );
            m.unwrap().expect("reproduces")
        };
        let first = pass(&mut env, &mut passed);
        assert!(!passed.is_empty());
        let second = pass(&mut env, &mut passed);
        assert_eq!(second.kept, first.kept, "the same search, the same result");
        // Only the candidates that raised it are replayed again.
        assert!(
            second.tests < first.tests,
            "{} then {}",
            first.tests,
            second.tests
        );
        let fresh = pass(&mut env, &mut Passed::default());
        assert_eq!(fresh.tests, first.tests);
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
        let m = minimize(
            &mut env,
            &actions,
            &oracles(),
            &sig,
            (Limits::default(), &mut Passed::default()),
            &mut |_, _, _| {},
        )
        .unwrap()
        .expect("reproduces");
        assert_eq!(m.outside_state, None);
        assert!(m.confirmed());
        assert_eq!(logins(&actions, &m.kept), 6, "{:?}", m.kept);
        assert_eq!(
            m.kept.len(),
            6,
            "typing and help are not needed: {:?}",
            m.kept
        );
    }

    #[test]
    fn a_first_replay_done_by_the_caller_is_not_done_again() {
        let hooked = |failed: &Arc<AtomicU32>| {
            let clear = failed.clone();
            WithApp::new(
                Throttled {
                    failed: failed.clone(),
                    limit: 5,
                },
                Some(Box::new(move || {
                    clear.store(0, Ordering::SeqCst);
                    Ok(())
                })),
            )
        };
        let actions = trace();
        let mut env = hooked(&Arc::new(AtomicU32::new(0)));
        let sig = expected(&mut env, &actions);
        let count = |env: &mut dyn Environment, replayed: bool| {
            let mut calls = 0u32;
            let mut progress = |_: u32, _: usize, _: Verdict| calls += 1;
            let m = if replayed {
                let whole = replay(env, &actions, &oracles(), &sig, true).unwrap();
                minimize_replayed(
                    env,
                    &actions,
                    (whole, Duration::from_millis(1)),
                    &oracles(),
                    &sig,
                    (Limits::default(), &mut Passed::default()),
                    &mut progress,
                )
            } else {
                minimize(
                    env,
                    &actions,
                    &oracles(),
                    &sig,
                    (Limits::default(), &mut Passed::default()),
                    &mut progress,
                )
            };
            (m.unwrap().expect("reproduces"), calls)
        };
        let (all, calls_all) = count(&mut env, false);
        let (after, calls_after) = count(&mut env, true);
        assert_eq!(after, all, "the same search, the same result");
        assert_eq!(calls_after + 1, calls_all, "one replay fewer");
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
        let m = minimize(
            &mut env,
            &actions,
            &oracles(),
            &sig,
            (Limits::default(), &mut Passed::default()),
            &mut |_, _, _| {},
        )
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
        let m = minimize(
            &mut env,
            &actions,
            &oracles(),
            &sig,
            (Limits::default(), &mut Passed::default()),
            &mut |_, _, _| {},
        )
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
        let m = minimize(
            &mut env,
            &actions,
            &oracles(),
            &sig,
            (Limits::default(), &mut Passed::default()),
            &mut |_, _, _| seen += 1,
        )
        .unwrap()
        .expect("reproduces");
        assert_eq!(m.outside_state, None);
        assert_eq!(m.kept.len(), 6);
        assert!(m.confirmed());
        assert_eq!(seen, m.tests + m.runs);
    }

    #[test]
    fn past_its_deadline_minimising_keeps_what_it_has_and_says_so() {
        let actions = trace();
        // Needs six logins of one replay: an in-browser count, as in the test above.
        struct Count(u32);
        impl Environment for Count {
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
        let mut env = Count(0);
        let sig = expected(&mut env, &actions);
        let limits = Limits {
            deadline: Some(Instant::now()),
            confirm: 3,
            last_pass: true,
        };
        let m = minimize(
            &mut env,
            &actions,
            &oracles(),
            &sig,
            (limits, &mut Passed::default()),
            &mut |_, _, _| {},
        )
        .unwrap()
        .expect("reproduces");
        assert!(!m.finished);
        assert_eq!(m.kept.len(), actions.len(), "nothing tried, nothing cut");
        assert_eq!((m.tests, m.hits, m.runs), (1, 3, 3));
        // A pass that another goes on from confirms nothing it did not finish.
        let limits = Limits {
            last_pass: false,
            ..limits
        };
        let m = minimize(
            &mut env,
            &actions,
            &oracles(),
            &sig,
            (limits, &mut Passed::default()),
            &mut |_, _, _| {},
        )
        .unwrap()
        .expect("reproduces");
        assert!(!m.finished);
        assert_eq!((m.tests, m.hits, m.runs), (1, 0, 0));
    }

    #[test]
    fn a_failure_raised_on_every_other_replay_is_not_confirmed() {
        // The server fails every second login request it gets, whatever came before.
        struct Alternating(u32);
        impl Environment for Alternating {
            fn reset(&mut self) -> Result<Outcome, EnvError> {
                Ok(Outcome {
                    observation: obs(),
                    ..Outcome::default()
                })
            }
            fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
                let mut events = Vec::new();
                if action.target.as_deref() == Some("#login") {
                    self.0 += 1;
                    if self.0.is_multiple_of(2) {
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
        let actions = vec![Action::on(ActionKind::Click, "#login".to_string())];
        let sig = expected(&mut Alternating(1), &actions);
        let mut env = Alternating(1);
        let limits = Limits {
            deadline: None,
            confirm: 3,
            last_pass: true,
        };
        let m = minimize(
            &mut env,
            &actions,
            &oracles(),
            &sig,
            (limits, &mut Passed::default()),
            &mut |_, _, _| {},
        )
        .unwrap()
        .expect("its first replay raises it");
        assert_eq!(
            (m.hits, m.runs),
            (1, 3),
            "fail; then pass, fail, pass: {m:?}"
        );
        assert!(!m.confirmed());
    }

    #[test]
    fn a_failure_the_start_page_raises_has_nothing_to_shrink_and_is_confirmed() {
        // The start page answers 500 on every load: the failure's trace is empty.
        struct Broken;
        impl Environment for Broken {
            fn reset(&mut self) -> Result<Outcome, EnvError> {
                Ok(Outcome {
                    observation: obs(),
                    events: vec![Event::http(500, "http://app.test/login", true)],
                    ..Outcome::default()
                })
            }
            fn step(&mut self, _: &Action) -> Result<Outcome, EnvError> {
                Ok(Outcome {
                    observation: obs(),
                    ..Outcome::default()
                })
            }
        }
        let out = Broken.reset().unwrap();
        let sig = oracles().judge(&out.events, None).remove(0).signature;
        let limits = Limits {
            deadline: None,
            confirm: 3,
            last_pass: true,
        };
        let m = minimize::<Action>(
            &mut Broken,
            &[],
            &oracles(),
            &sig,
            (limits, &mut Passed::default()),
            &mut |_, _, _| {},
        )
        .unwrap()
        .expect("the reset raises it");
        assert!(m.kept.is_empty());
        assert_eq!((m.hits, m.runs, m.outside_state), (3, 3, None));
    }
}
