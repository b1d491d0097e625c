//! A run the schema tests render: two failures, hostile page text in every field.

use std::path::PathBuf;

use wayfarer_core::oracle::{Failure, FailureKind};
use wayfarer_core::trace::TraceStep;
use wayfarer_core::{Action, ActionKind, RunSummary};
use wayfarer_store::{RunData, RunMeta, StoredFailure};

pub const HOSTILE: &str =
    "<script>alert(1)</script> \"><img src=x onerror=alert(1)> & ]]> \u{1}\u{0}";

pub fn data(complete: bool) -> RunData {
    let failure = Failure {
        kind: FailureKind::Exception,
        message: format!("TypeError: {HOSTILE}"),
        signature: format!("exception|{HOSTILE}|x"),
        source: Some("http://127.0.0.1/app.js".into()),
        line: Some(3),
        column: Some(9),
        step: 12,
        episode: 1,
        count: 2,
        page_url: format!("http://127.0.0.1/?q={HOSTILE}"),
        trace: vec![TraceStep {
            action: Action::on(ActionKind::Type, "#q").with_value(HOSTILE),
            element: None,
            url: "http://127.0.0.1/".into(),
        }],
        server_output: wayfarer_core::server::ServerOutput::of([format!("ValueError: {HOSTILE}")]),
    };
    RunData {
        dir: PathBuf::from("."),
        meta: RunMeta {
            wayfarer: "0.1.0".into(),
            started_at: 1_795_305_600,
            target: format!("http://127.0.0.1/{HOSTILE}"),
            strategy: "random".into(),
            ..RunMeta::default()
        },
        summary: RunSummary {
            target: format!("http://127.0.0.1/{HOSTILE}"),
            strategy: "random".into(),
            steps: 40,
            duration_s: 12.5,
            failures: vec![(&failure).into()],
            stopped_early: (!complete).then(|| "killed".to_string()),
            ..RunSummary::default()
        },
        complete,
        steps: vec![],
        resets: vec![],
        states: vec![],
        transitions: vec![],
        failures: vec![
            StoredFailure {
                failure: failure.clone(),
                screenshot: None,
            },
            StoredFailure {
                failure: Failure {
                    kind: FailureKind::Http5xx,
                    signature: "other".into(),
                    message: "HTTP 500 from http://127.0.0.1/register".into(),
                    ..failure
                },
                screenshot: None,
            },
        ],
        strategy: None,
        knowledge: Vec::new(),
        features: None,
    }
}
