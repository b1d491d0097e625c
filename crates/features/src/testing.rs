//! Step records for unit tests.

use wayfarer_core::forms::Verdict;
use wayfarer_core::trace::ElementHint;
use wayfarer_core::{Action, StateId, StepRecord, StepTimings};

/// A step of episode 1 on target `role` `name`. States are numbered in the order found: a
/// step to a higher one found it.
pub fn step(n: u64, from: u64, to: u64, action: Action, role: &str, name: &str) -> StepRecord {
    StepRecord {
        step: n,
        episode: 1,
        worker: 0,
        episode_step: n as u32,
        action,
        target: None,
        state_before: StateId(from),
        state_after: StateId(to),
        url_after: format!("http://h/{to}"),
        title_after: format!("Page {to}"),
        element: Some(ElementHint {
            tag: "x".into(),
            role: Some(role.into()),
            name: name.into(),
            ..ElementHint::default()
        }),
        new_state: from < to,
        events: Vec::new(),
        timings: StepTimings::default(),
        error: None,
        findings: Vec::new(),
        app_actions: Vec::new(),
        app_state: None,
        decision: None,
        form: None,
        inference: None,
        novelty: Default::default(),
    }
}

/// `r` as a submission the page accepted.
pub fn submitted(r: StepRecord) -> StepRecord {
    StepRecord {
        form: Some(Verdict {
            deliberate: false,
            refused: None,
        }),
        ..r
    }
}
