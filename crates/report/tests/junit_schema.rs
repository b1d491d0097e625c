//! `junit.xml` validates against the JUnit schema CI systems read (checked with
//! xmllint, which `scripts/test.sh` installs), with hostile page text inside.

use std::path::PathBuf;
use std::process::Command;

use wayfarer_core::oracle::{Failure, FailureKind};
use wayfarer_core::trace::TraceStep;
use wayfarer_core::{Action, ActionKind, RunSummary};
use wayfarer_store::{RunData, RunMeta, StoredFailure};

const HOSTILE: &str = "<script>alert(1)</script> \"><img src=x onerror=alert(1)> & ]]> \u{1}\u{0}";

fn data(complete: bool) -> RunData {
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

fn validate(xml: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("junit.xml");
    std::fs::write(&file, xml).unwrap();
    let xsd = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/junit.xsd");
    let out = Command::new("xmllint")
        .args(["--noout", "--schema", xsd])
        .arg(&file)
        .output()
        .expect("xmllint is installed (scripts/test.sh installs libxml2-utils)");
    assert!(
        out.status.success(),
        "junit.xml does not validate:\n{}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn junit_validates_with_one_case_per_failure_plus_the_run() {
    let xml = wayfarer_report::junit::render(&data(true));
    validate(&xml);
    assert_eq!(xml.matches("<testcase ").count(), 3);
    assert_eq!(xml.matches("<failure ").count(), 2);
    assert!(!xml.contains("<script>"));
    assert!(!xml.contains("<img"));
    // The server's account of the failure goes with it, escaped.
    assert!(
        xml.contains("the server&apos;s output at step 12:\n  | ValueError: &lt;script&gt;"),
        "{xml}"
    );
}

#[test]
fn a_killed_run_is_an_error_case_and_still_validates() {
    let xml = wayfarer_report::junit::render(&data(false));
    validate(&xml);
    assert!(xml.contains("errors=\"1\""));
    assert_eq!(xml.matches("<error ").count(), 1);
}
