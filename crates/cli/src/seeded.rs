//! For the bundled demo applications: which of their seeded bugs the run found.

use wayfarer_core::RunSummary;
use wayfarer_report::SeededLine;
use wayfarer_testapps::{seeded_bugs, App};

/// Each seeded bug of `app` with the step of the first failure that matches it.
pub fn found(app: App, summary: &RunSummary) -> Vec<SeededLine> {
    seeded_bugs(app)
        .iter()
        .map(|bug| {
            let first = summary.first_matching(|kind, message| bug.matches(kind, message));
            let shrunk = first.and_then(|f| f.shrunk.as_ref());
            SeededLine {
                id: bug.id.to_string(),
                description: bug.description.to_string(),
                min_actions: bug.min_actions,
                found_at_step: first.map(|f| f.step),
                reported_actions: first.map(|f| match shrunk {
                    Some(s) if s.shortened() => s.kept.len(),
                    _ => f.trace_len,
                }),
                reproduced: first.map(|f| f.verdict_text()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::summary::FailureLine;

    #[test]
    fn a_failure_matches_its_seeded_bug_by_kind_and_message() {
        let summary = RunSummary {
            failures: vec![FailureLine {
                kind: "http_5xx".into(),
                signature: String::new(),
                message: "HTTP 500 from http://127.0.0.1:9/register".into(),
                step: 12,
                count: 1,
                page_url: String::new(),
                trace_len: 3,
                ..FailureLine::default()
            }],
            ..RunSummary::default()
        };
        let r = found(App::Expense, &summary);
        let hit = r
            .iter()
            .find(|r| r.id == "expense-register-email-500")
            .unwrap();
        assert_eq!(hit.found_at_step, Some(12));
        assert_eq!(r.iter().filter(|r| r.found_at_step.is_some()).count(), 1);
    }

    #[test]
    fn a_found_bug_says_its_verdict_and_unconfirmed_when_never_replayed() {
        let mut summary = RunSummary {
            failures: vec![FailureLine {
                kind: "http_5xx".into(),
                message: "HTTP 500 from http://127.0.0.1:9/register".into(),
                step: 12,
                trace_len: 3,
                ..FailureLine::default()
            }],
            ..RunSummary::default()
        };
        let line = |summary: &RunSummary| {
            let r = found(App::Expense, summary);
            wayfarer_report::text::seeded_text(&r)
                .lines()
                .find(|l| l.contains("expense-register-email-500"))
                .unwrap()
                .to_string()
        };
        assert!(
            line(&summary).ends_with(
                ": found at step 12, reported with 3 action(s), unconfirmed (never replayed)"
            ),
            "{}",
            line(&summary)
        );
        summary.failures[0].shrunk = Some(wayfarer_core::findings::Shrunk {
            kept: vec![1, 2],
            of: 3,
            hits: 3,
            runs: 3,
            ..Default::default()
        });
        assert!(
            line(&summary)
                .ends_with(": found at step 12, reported with 2 action(s), reproduced 3/3"),
            "{}",
            line(&summary)
        );
    }
}
