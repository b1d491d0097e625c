//! Tests of the whole page: hostile page data stays text, nothing is fetched, the
//! sections are there, an unfinished run says so, the features and their tests.

use std::collections::BTreeMap;
use std::path::PathBuf;

use wayfarer_core::summary::{CoverageSummary, FailureLine};
use wayfarer_core::trace::{ElementHint, TraceStep};
use wayfarer_core::{
    Action, ActionKind, Coverage, Event, EventKind, Failure, FailureKind, ResetRecord, RunSummary,
    SnapshotTable, StateId, StepRecord, StrategySnapshot,
};
use wayfarer_store::{
    ActionFeatureRecord, FeatureOutcome, FeatureQuery, FeatureRecord, FeatureTestRecord, RunData,
    RunMeta, Sample, StateRow, StoredFailure, StoredFeatures, StoredStep, TransitionRow,
};

use super::render;
use crate::SeededLine;

const H: &str = r#"<script>alert(1)</script>"><img src=x onerror=alert(1)>'"#;

fn hostile_url(i: usize) -> String {
    format!("http://app.test/p{i}?q={H}")
}

fn step(n: u64, from: u64, to: u64) -> StoredStep {
    let hint = ElementHint {
        tag: "input".into(),
        role: Some(H.into()),
        name: H.into(),
        label: H.into(),
        attrs: BTreeMap::from([("id".to_string(), H.to_string())]),
        same_name: 2,
        ..ElementHint::default()
    };
    StoredStep {
        record: StepRecord {
            step: n,
            episode: 1 + n / 10,
            worker: 0,
            episode_step: (n % 10) as u32,
            action: Action::on(ActionKind::Type, H).with_value(H.repeat(1 + n as usize % 3)),
            target: Some(H.into()),
            state_before: StateId(from),
            state_after: StateId(to),
            url_after: hostile_url(to as usize),
            title_after: H.into(),
            element: Some(hint),
            new_state: from != to,
            events: vec![
                Event::new(EventKind::Exception, H).at(H, Some(3), Some(7)),
                Event::http(500, hostile_url(9), false),
            ],
            timings: Default::default(),
            error: Some(H.into()),
            findings: vec![H.into()],
            app_actions: vec![],
            app_state: None,
            decision: Some(format!("replay to {H} (1/2)")),
            form: None,
            inference: None,
            // Every other step opened something.
            novelty: wayfarer_core::Novelty {
                scripts: (n % 2) as u32,
                endpoints: (n % 2) as u32,
                ..Default::default()
            },
        },
        sample: Sample {
            states: to as usize + 1,
            urls: n as usize / 2,
            failures: 1,
            episodes: 1 + n / 10,
            elapsed_ms: n * 300,
            coverage: Some(Coverage {
                covered_bytes: 100 + n,
                total_bytes: 1000,
                functions_covered: 3,
                functions_total: 9,
                first_load_covered_bytes: 100,
            }),
            ..Sample::default()
        },
    }
}

fn failure(step: u64, trace: Vec<TraceStep>) -> Failure {
    Failure {
        kind: FailureKind::Exception,
        message: H.into(),
        signature: H.into(),
        source: Some(H.into()),
        line: Some(1),
        column: Some(2),
        step,
        episode: 1,
        count: 3,
        page_url: hostile_url(1),
        trace,
        // A server can echo what the page sent it.
        server_output: wayfarer_core::server::ServerOutput::of([
            "Traceback (most recent call last):".to_string(),
            format!("ValueError: {H}"),
        ]),
    }
}

/// A run where every page-controlled string is hostile markup.
pub fn hostile(complete: bool) -> RunData {
    let steps: Vec<_> = (1..=40).map(|n| step(n, n % 6, (n + 1) % 6)).collect();
    let trace: Vec<TraceStep> = steps
        .iter()
        .take(4)
        .map(|s| TraceStep {
            action: s.record.action.clone(),
            element: s.record.element.clone(),
            url: s.record.url_after.clone(),
        })
        .chain([TraceStep {
            action: Action::on(ActionKind::Navigate, H).with_value(H),
            element: None,
            url: H.into(),
        }])
        .collect();
    let failures = vec![
        StoredFailure {
            failure: failure(3, trace.clone()),
            screenshot: Some(PathBuf::from(format!("shots/{H}.png"))),
        },
        StoredFailure {
            failure: failure(10, Vec::new()),
            screenshot: None,
        },
    ];
    RunData {
        dir: std::env::temp_dir().join("wayfarer-report-test-no-such-dir"),
        meta: RunMeta {
            wayfarer: H.into(),
            started_at: 1_700_000_000,
            command: format!("wayfarer explore {H}"),
            target: H.into(),
            strategy: H.into(),
            seed: 7,
            budget: H.into(),
            episode_steps: 10,
            config: serde_json::json!({ "target": H, "login": [{ "fill": H }] }),
            setup: Default::default(),
        },
        summary: RunSummary {
            target: H.into(),
            budget: H.into(),
            steps: 40,
            failures: failures
                .iter()
                .map(|f| FailureLine::from(&f.failure))
                .collect(),
            js_coverage: Some(CoverageSummary {
                ratio: 0.14,
                first_load_ratio: 0.1,
                ..Default::default()
            }),
            stopped_early: Some(H.into()),
            ended_by_environment: false,
            logged_out: 0,
            scans_avoided: 0.75,
            inference: Some(wayfarer_core::infer::InferenceSummary {
                config: H.into(),
                steps: 40,
                predicted_steps: 30,
                cardinality: vec![wayfarer_core::infer::CardinalityRow {
                    candidates: H.into(),
                    interactions: 3,
                    share: 1.0,
                }],
                ..Default::default()
            }),
            ..Default::default()
        },
        knowledge: vec![wayfarer_core::runner::KnowledgeRow {
            state: H.into(),
            action: H.into(),
            candidates: vec![H.into()],
            nondeterministic: false,
        }],
        features: None,
        complete,
        resets: vec![ResetRecord {
            episode: 2,
            worker: 0,
            after_step: 10,
            state: StateId(0),
            url: H.into(),
            title: H.into(),
            events: vec![Event::new(EventKind::ConsoleError, H).at(H, None, None)],
            findings: vec![H.into()],
            app_state: None,
        }],
        states: (0..6)
            .map(|i| StateRow {
                id: StateId(i),
                first_step: i,
                url: hostile_url(i as usize),
                title: H.into(),
            })
            .collect(),
        transitions: (0..6)
            .map(|i| TransitionRow {
                from: StateId(i),
                to: StateId((i + 1) % 6),
                action: H.into(),
                count: i + 1,
            })
            .collect(),
        failures,
        steps,
        strategy: Some(StrategySnapshot {
            strategy: H.into(),
            counters: vec![(H.into(), 3), ("escapes from stagnation".into(), 2)],
            tables: vec![SnapshotTable {
                name: H.into(),
                columns: vec![H.into(), "Q".into()],
                rows: vec![vec![H.into(), "1.950".into()]],
                total_rows: 9,
            }],
        }),
    }
}

fn seeded() -> Vec<SeededLine> {
    vec![
        SeededLine {
            id: H.into(),
            description: H.into(),
            min_actions: 2,
            found_at_step: Some(3),
            reported_actions: None,
            reproduced: None,
        },
        SeededLine {
            id: "b2".into(),
            description: H.into(),
            min_actions: 5,
            found_at_step: None,
            reported_actions: None,
            reproduced: None,
        },
    ]
}

#[test]
fn hostile_page_data_is_only_ever_text() {
    let html = render(&hostile(true), Some(&seeded()));
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..html.len().min(500)]
    );
    assert!(!html.contains("<script"), "a script tag got through");
    assert!(!html.contains("<img src=x"), "an img tag got through");
    assert!(!html.contains("onerror=alert(1)>"));
    // Every image is an embedded one (here none: the screenshot file is missing).
    assert_eq!(
        html.matches("<img").count(),
        html.matches("<img src=\"data:").count()
    );
    assert!(
        html.contains("&lt;script&gt;alert(1)"),
        "the hostile text is shown, escaped"
    );
    assert!(
        html.contains("could not be read"),
        "the missing screenshot is explained"
    );
    assert!(
        html.contains("The server&#x27;s output at that step: 2 lines")
            || html.contains("The server's output at that step: 2 lines"),
        "the server's traceback is evidence"
    );
    assert!(html.contains("Traceback (most recent call last):\nValueError: &lt;script&gt;"));
}

#[test]
fn nothing_is_loaded_from_elsewhere() {
    let html = render(&hostile(true), None).to_ascii_lowercase();
    for bad in [
        "<link",
        "src=\"http",
        "href=\"http",
        "src=http",
        "url(http",
        "@import",
        "<iframe",
        "<object",
        "<embed",
    ] {
        assert!(!html.contains(bad), "found {bad}");
    }
    assert!(html.contains("content-security-policy"));
}

#[test]
fn sections_and_svgs_are_present() {
    let html = render(&hostile(true), Some(&seeded()));
    for part in [
        "<svg class=\"graph\"",
        "<svg class=\"chart\"",
        "<svg class=\"bar\"",
        "id=\"failures\"",
        "Steps to reproduce",
        "Seeded bugs: 1 of 2 found",
        "id=\"strategy\"",
        "escapes from stagnation",
        "the first 1 of 9",
        "class=\"why\">replay to &lt;script&gt;",
        "class=\"why\">opened 1 script, 1 endpoint</div>",
        "id=\"inference\"",
        "30 of 40 (75%)",
        "Interactions by number of candidate pages",
    ] {
        assert!(html.contains(part), "missing {part}");
    }
    assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
    assert!(!html.contains("ended without finishing"));
}

#[test]
fn an_unfinished_run_says_so() {
    let html = render(&hostile(false), None);
    assert!(html.contains("ended without finishing"));
    assert!(html.contains("the 40 steps it recorded"));
}

#[test]
fn an_empty_run_still_renders() {
    let mut data = hostile(false);
    data.steps.clear();
    data.states.clear();
    data.transitions.clear();
    data.failures.clear();
    data.resets.clear();
    let html = render(&data, None);
    assert!(html.contains("No failures were found"));
    assert!(html.contains("No states were recorded"));
}

#[test]
fn a_large_graph_is_capped_and_keeps_its_failing_states() {
    let mut data = hostile(true);
    let n = 400u64;
    data.states = (0..n)
        .map(|i| StateRow {
            id: StateId(i),
            first_step: i,
            url: format!("http://app.test/{i}"),
            title: format!("page {i}"),
        })
        .collect();
    data.transitions = (1..n)
        .flat_map(|i| [(i / 3, i), (i, (i * 7) % n)])
        .map(|(a, b)| TransitionRow {
            from: StateId(a),
            to: StateId(b),
            action: "click a".into(),
            count: 1 + a % 4,
        })
        .collect();
    // The failure at step 3 ended in the deepest, last found state.
    data.steps[2].record.state_after = StateId(n - 1);
    let html = render(&data, None);
    let drawn = html.matches("<g class=\"node").count();
    assert_eq!(drawn, super::graph::MAX_NODES);
    assert!(html.contains(&format!("{} more states not drawn", n as usize - drawn)));
    assert!(
        html.contains(&format!("s{} /{}", n - 1, n - 1)),
        "the failing state is drawn"
    );
}

#[test]
fn report_json_carries_the_strategy_state() {
    let v: serde_json::Value =
        serde_json::from_str(&crate::json::render(&hostile(true), None)).unwrap();
    assert_eq!(
        v["strategy_state"]["counters"][1],
        serde_json::json!(["escapes from stagnation", 2])
    );
    assert_eq!(v["strategy_state"]["tables"][0]["total_rows"], 9);
    let mut plain = hostile(true);
    plain.strategy = None;
    let v: serde_json::Value = serde_json::from_str(&crate::json::render(&plain, None)).unwrap();
    assert!(v.get("strategy_state").is_none());
}

#[test]
fn a_minimised_trace_beside_the_failure_is_shown_with_its_outside_state_warning() {
    let dir = std::env::temp_dir().join(format!("wayfarer-report-min-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    let mut data = hostile(true);
    data.dir = dir.clone();
    let mut min = crate::traces::trace_of(&data, 0);
    min.steps.truncate(2);
    min.outside_state =
        Some("depends on state outside the browser: it came back after 1 action".into());
    let name = crate::traces::file_name(0, &data.failures[0].failure);
    let min_name = crate::traces::minimised_name(&name);
    std::fs::write(dir.join("traces").join(&min_name), min.to_json()).unwrap();
    // The second failure's minimised file is garbage: the card says so and renders.
    let garbage =
        crate::traces::minimised_name(&crate::traces::file_name(1, &data.failures[1].failure));
    std::fs::write(dir.join("traces").join(&garbage), "{ not json").unwrap();
    let html = render(&data, None);
    std::fs::remove_dir_all(&dir).unwrap();
    // The minimal steps come first; the recorded trace is folded under them.
    assert!(html.contains(&format!(
        "2 of 5 recorded actions, <span class=\"mono\">traces/{min_name}"
    )));
    assert!(html.contains("<summary>The recorded trace (5 actions)</summary>"));
    assert!(html.contains(
        "Warning: the failure depends on state outside the browser: it came back after 1 action"
    ));
    assert!(html.contains(&format!(
        "unreadable, <span class=\"mono\">traces/{garbage}"
    )));
    // Without the files, only the recorded trace.
    let plain = render(&hostile(true), None);
    assert!(!plain.contains("Minimal reproduction") && !plain.contains("recorded actions"));
}

fn feature(id: u64, label: &str, score: f64, outcome: FeatureOutcome) -> FeatureRecord {
    FeatureRecord {
        id,
        label: label.into(),
        score,
        aliases: vec![label.into()],
        outcome,
    }
}

fn tested(file: &str, steps: u32, covers: Option<&[&str]>) -> FeatureOutcome {
    FeatureOutcome::Tested(FeatureTestRecord {
        file: file.into(),
        steps,
        covers: covers.map(|c| c.iter().map(|s| s.to_string()).collect()),
    })
}

/// An inference over a clinic: tests with and without a grammar feature, one test that
/// performs two features, one kept feature whose steps did not replay, a hostile label
/// and file name, and two features not kept. In id order, not score order.
fn inference() -> StoredFeatures {
    StoredFeatures {
        questions: 48,
        embedder: "hashed words".into(),
        checked: true,
        features: vec![
            feature(
                0,
                "Find owners",
                -0.35,
                tested(
                    "features/tests/feature-Find owners.spec.ts",
                    1,
                    Some(&["find-owner"]),
                ),
            ),
            feature(
                1,
                "Add Owner",
                0.0,
                tested(
                    "features/tests/feature-Add Owner.spec.ts",
                    5,
                    Some(&["add-owner", "view-owner"]),
                ),
            ),
            feature(
                2,
                "View owner",
                -0.4,
                FeatureOutcome::SameTestAs("Add Owner".into()),
            ),
            feature(
                3,
                H,
                -0.5,
                tested(&format!("features/tests/feature-{H}.spec.ts"), 2, Some(&[])),
            ),
            feature(
                4,
                "Export",
                -0.69,
                FeatureOutcome::NoTest(
                    "its steps do not replay: step 2 (click #export) fails: http 500".into(),
                ),
            ),
            feature(5, "Home (page)", -1.39, FeatureOutcome::NotKept),
            feature(6, "View vets", -2.08, FeatureOutcome::NotKept),
        ],
        actions: vec![ActionFeatureRecord {
            state: StateId(1),
            action: "click #add".into(),
            feature: 1,
            rank: 1,
            rank_score: -std::f64::consts::LN_2,
            query: FeatureQuery::AfterPrevious {
                state: StateId(0),
                action: "click #find".into(),
            },
        }],
    }
}

/// The Features section of `html`, from its opening tag to its closing one.
fn features_section(html: &str) -> &str {
    let start = html
        .find("<section id=\"features\">")
        .expect("a Features section");
    let end = start + html[start..].find("</section>").unwrap() + "</section>".len();
    &html[start..end]
}

#[test]
fn the_features_section_lists_kept_features_with_their_tests_then_the_rest() {
    let mut data = hostile(true);
    data.features = Some(inference());
    let html = render(&data, None);
    assert!(html.contains("<a href=\"#features\">Features (5)</a>"));
    let section = features_section(&html);
    // The hostile label and file name are text, and the link stays a relative path.
    assert!(!section.contains("<script") && !section.contains("<img src=x"));
    assert!(section.contains("<a href=\"features&#x2f;tests&#x2f;feature-%3Cscript%3E"));
    insta::assert_snapshot!(section);
}

#[test]
fn a_run_without_an_inference_has_no_features_section() {
    let html = render(&hostile(true), None);
    assert!(!html.contains("id=\"features\""));
    assert!(!html.contains("href=\"#features\""));
    // An inference that kept nothing still says what it did.
    let mut data = hostile(true);
    data.features = Some(StoredFeatures {
        features: vec![feature(0, "Home (page)", -1.39, FeatureOutcome::NotKept)],
        ..inference()
    });
    let html = render(&data, None);
    let section = features_section(&html);
    assert!(section.contains("0 kept of 1 inferred, 0 tests"));
    assert!(section.contains("No feature scored high enough to be kept."));
    assert!(section.contains("Inferred but not kept: 1"));
}

#[test]
fn a_feature_sharing_a_test_that_was_left_out_is_said_and_long_tails_are_cut() {
    let mut inf = inference();
    // Its host's steps did not replay: the shared test is gone too.
    inf.features[1].outcome = FeatureOutcome::NoTest("its steps do not replay".into());
    inf.features.extend((0..150).map(|i| {
        feature(
            10 + i,
            &format!("once {i}"),
            -3.0 - i as f64,
            FeatureOutcome::NotKept,
        )
    }));
    let mut data = hostile(true);
    data.features = Some(inf);
    let html = render(&data, None);
    let section = features_section(&html);
    assert!(section.contains("View owner <span class=\"muted\">(-0.40)</span>: the same steps as the test of Add Owner, which has none"));
    assert!(section.contains("Inferred but not kept: 152"));
    assert!(section.contains(&format!(
        "… and {} more",
        152 - super::features::MAX_DROPPED
    )));
    assert!(!section.contains("once 149"), "the worst are not named");
}

#[test]
fn the_code_never_run_lists_the_scripts_with_the_most_left_first_and_caps_them() {
    let mut data = hostile(true);
    let scripts: Vec<wayfarer_core::ScriptReach> = (0..25u64)
        .map(|i| wayfarer_core::ScriptReach {
            url: format!("http://127.0.0.1:3000/chunk-{i}.js"),
            bytes: 1000 + i,
            covered_bytes: 500,
            first_load_covered_bytes: if i == 24 { 250 } else { 0 },
        })
        .collect();
    data.summary.js_coverage = data
        .summary
        .js_coverage
        .take()
        .map(|c| c.with_scripts(scripts));
    let html = render(&data, None);
    let section = &html[html.find("<section id=\"scripts\">").expect("the section")..];
    let section = &section[..section.find("</section>").unwrap()];
    // chunk-24 has the most never run (524 bytes): first, with its first load's share.
    let first = section.find("chunk-24.js").unwrap();
    assert!(first < section.find("chunk-23.js").unwrap());
    assert!(section.contains("<td class=\"num\">1\u{2009}024</td><td class=\"num\">49%</td><td class=\"num\">24%</td><td class=\"num\">524</td>"), "{section}");
    // 20 of the 25: the ones with the least never run are left to report.json.
    assert!(!section.contains("chunk-4.js<"));
    assert!(section.contains("The first 20 of 25"));
    let v: serde_json::Value = serde_json::from_str(&crate::json::render(&data, None)).unwrap();
    assert_eq!(
        v["js_coverage"]["scripts"].as_array().map(Vec::len),
        Some(25)
    );
    // Without scripts (an older report, or no coverage), no section.
    assert!(!render(&hostile(true), None).contains("<section id=\"scripts\">"));
}
