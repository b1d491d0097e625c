//! How short the traces a run hands the user are. A run shrinks each failure it finds by
//! replay and confirms the minimal trace (wayfarer-run's shrinking, `--shrink`); the bench
//! measures what came of it, so a change that hands users 89-action traces instead of
//! 4-action ones shows in its tables. On a bundled application the failures that match a
//! seeded bug are set against the fewest actions that bug needs.

use wayfarer_core::findings::Verdict;
use wayfarer_core::summary::FailureLine;
use wayfarer_testapps::SeededBug;

/// What one strategy run reported of its failures' traces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Minimal {
    /// The longest reported trace (actions) of the failures that match a seeded bug; of
    /// all the run's failures on an application without seeded bugs.
    pub longest: Option<usize>,
    /// The fewest actions the seeded bug of that longest trace needs.
    pub fewest: Option<u32>,
    /// The worst excess of a reported trace over its seeded bug's fewest actions.
    pub excess: Option<i64>,
    /// Unique failures shrinking shrank, and those its replays confirmed.
    pub shrunk: usize,
    pub confirmed: usize,
}

/// The length of the trace the run reports for `f`: its minimal trace when shrinking
/// shortened it (what the report, `traces/` and the terminal show), else the recorded one.
pub fn reported_len(f: &FailureLine) -> usize {
    match &f.shrunk {
        Some(s) if s.shortened() => s.kept.len(),
        _ => f.trace_len,
    }
}

/// Whether shrinking shrank `f` (its replays ran delta debugging on it, to the end or to
/// its share of the budget): a failure it never reached, whose first replay did not
/// raise it, or that needs state a reset does not undo was not shrunk.
pub fn shrunk(f: &FailureLine) -> bool {
    f.shrunk
        .as_ref()
        .is_some_and(|s| s.note.is_none() && s.outside_state.is_none())
}

/// What a strategy run's `failures` say of its traces, against the target's seeded `bugs`
/// (none: an application without ground truth).
pub fn measure(bugs: &[SeededBug], failures: &[FailureLine]) -> Minimal {
    let mut m = Minimal {
        shrunk: failures.iter().filter(|f| shrunk(f)).count(),
        confirmed: failures
            .iter()
            .filter(|f| f.verdict() == Verdict::Confirmed)
            .count(),
        ..Minimal::default()
    };
    if bugs.is_empty() {
        m.longest = failures.iter().map(reported_len).max();
        return m;
    }
    // Every (failure, bug it matches) pair: the longest trace with its bug's fewest (the
    // larger excess first on a tie), and the worst excess of any.
    let pairs = failures.iter().flat_map(|f| {
        bugs.iter()
            .filter(|b| b.matches(&f.kind, &f.message))
            .map(move |b| (reported_len(f), b.min_actions))
    });
    let excess = |(len, fewest): (usize, u32)| len as i64 - i64::from(fewest);
    let mut longest: Option<(usize, u32)> = None;
    for p in pairs {
        m.excess = Some(m.excess.map_or(excess(p), |e| e.max(excess(p))));
        if longest.is_none_or(|l| (p.0, excess(p)) > (l.0, excess(l))) {
            longest = Some(p);
        }
    }
    m.longest = longest.map(|l| l.0);
    m.fewest = longest.map(|l| l.1);
    m
}

/// `longest/fewest` as the tables write it (`5/4`), or the longest alone without a
/// seeded bug to set it against.
pub fn longest_text(longest: Option<usize>, fewest: Option<u32>) -> String {
    match (longest, fewest) {
        (Some(l), Some(f)) => format!("{l}/{f}"),
        (Some(l), None) => l.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::findings::Shrunk;
    use wayfarer_testapps::App;

    /// A failure of the expense app's seeded bug whose message is `message`.
    fn line(kind: &str, message: &str, trace_len: usize, shrunk: Option<Shrunk>) -> FailureLine {
        FailureLine {
            kind: kind.into(),
            signature: format!("{kind}|{message}|{trace_len}"),
            message: message.into(),
            step: 90,
            count: 1,
            trace_len,
            shrunk,
            ..FailureLine::default()
        }
    }

    /// A minimal trace of `kept` actions of `of`, raised on `hits` of 3 confirming replays.
    fn shrunk_to(kept: usize, of: usize, hits: u32) -> Shrunk {
        Shrunk {
            kept: (of - kept..of).collect(),
            of,
            replays: 12,
            finished: true,
            hits,
            runs: 3,
            ..Shrunk::default()
        }
    }

    /// A seeded bug of 4 actions, as the bundled apps carry them.
    fn bug() -> SeededBug {
        SeededBug {
            id: "four-step",
            app: App::Expense,
            description: "four steps to a TypeError",
            kind: "exception",
            message_contains: "TypeError: four",
            min_actions: 4,
            steps: &[],
        }
    }

    #[test]
    fn a_shrunk_seeded_failure_is_reported_with_its_minimal_trace() {
        let bugs = [bug()];
        let f = line(
            "exception",
            "TypeError: four (at app.js)",
            89,
            Some(shrunk_to(4, 89, 3)),
        );
        let m = measure(&bugs, std::slice::from_ref(&f));
        assert_eq!(reported_len(&f), 4);
        assert_eq!(
            m,
            Minimal {
                longest: Some(4),
                fewest: Some(4),
                excess: Some(0),
                shrunk: 1,
                confirmed: 1,
            }
        );
        assert_eq!(longest_text(m.longest, m.fewest), "4/4");
    }

    #[test]
    fn an_unshrunk_seeded_failure_keeps_its_recorded_trace_and_is_not_counted_as_shrunk() {
        let bugs = [bug()];
        let f = line("exception", "TypeError: four (at app.js)", 89, None);
        let m = measure(&bugs, std::slice::from_ref(&f));
        assert_eq!(
            m,
            Minimal {
                longest: Some(89),
                fewest: Some(4),
                excess: Some(85),
                shrunk: 0,
                confirmed: 0,
            }
        );
        assert_eq!(longest_text(m.longest, m.fewest), "89/4");
    }

    #[test]
    fn the_longest_and_the_worst_excess_are_over_the_seeded_failures_only() {
        let bugs = [bug()];
        let failures = [
            line(
                "exception",
                "TypeError: four",
                89,
                Some(shrunk_to(5, 89, 3)),
            ),
            // Not a seeded bug: its 200 actions are no seeded bug's.
            line("console_error", "noise", 200, None),
            // Its first replay did not raise it: not shrunk, not shortened, flaky.
            line(
                "unhandled_rejection",
                "TypeError: four again",
                30,
                Some(Shrunk {
                    note: Some("its replay did not raise it the first time".into()),
                    ..shrunk_to(30, 30, 1)
                }),
            ),
        ];
        let m = measure(&bugs, &failures);
        assert_eq!(
            m,
            Minimal {
                longest: Some(30),
                fewest: Some(4),
                excess: Some(26),
                shrunk: 1,
                confirmed: 1,
            }
        );
        // Without seeded bugs: the longest reported trace of any failure, alone.
        let m = measure(&[], &failures);
        assert_eq!((m.longest, m.fewest, m.excess), (Some(200), None, None));
        assert_eq!(longest_text(m.longest, m.fewest), "200");
        // No failure matches: nothing to set against the fewest.
        let m = measure(&bugs, &failures[1..2]);
        assert_eq!((m.longest, m.fewest, m.excess), (None, None, None));
        assert_eq!(longest_text(None, None), "");
    }
}
