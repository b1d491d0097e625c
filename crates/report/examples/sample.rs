//! Renders `report.html` for a synthetic but realistic run (300 steps over a made-up
//! clinic application, 25 states, 3 failures, one screenshot), with hostile page data in
//! titles, messages, URLs and typed values, to look at the report and check escaping.
//!
//! `cargo run -p wayfarer-report --example sample -- /tmp/report.html [--incomplete]`
//! (`--incomplete` renders it as a killed run that recorded 212 steps).

#[path = "sample/app.rs"]
mod app;
#[path = "sample/png.rs"]
mod png;
#[path = "sample/walk.rs"]
mod walk;

use std::path::PathBuf;

use wayfarer_core::summary::{CoverageSummary, FailureLine, TimingMedians};
use wayfarer_core::{FailureKind, RunSummary, StateId};
use wayfarer_report::SeededLine;
use wayfarer_store::{RunData, RunMeta, StateRow, StoredFailure, TransitionRow};

use app::XSS;
use walk::{BASE, EPISODE};

fn main() {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().unwrap_or_else(|| "report.html".into()));
    let incomplete = args.any(|a| a == "--incomplete");
    let dir = std::env::temp_dir().join("wayfarer-sample-run");
    std::fs::create_dir_all(dir.join("screenshots")).expect("create the run directory");
    std::fs::write(dir.join("screenshots/f1.png"), png::mock_screenshot()).expect("screenshot");

    let pages = app::pages();
    let mut w = walk::walk(&pages, 300);
    if incomplete {
        // Killed at step 212: nothing after it was stored.
        w.steps.truncate(212);
        w.resets.retain(|r| r.after_step < 212);
        w.failures.retain(|f| f.step <= 212);
    }
    // One screenshot that is there, one whose file is gone, one never taken.
    let shots = ["screenshots/f1.png", "screenshots/missing.png"];
    let failures: Vec<_> = w
        .failures
        .into_iter()
        .enumerate()
        .map(|(i, failure)| StoredFailure {
            failure,
            screenshot: shots.get(i).map(PathBuf::from),
        })
        .collect();
    let coverage = w
        .steps
        .last()
        .and_then(|s| s.sample.coverage)
        .unwrap_or_default();
    let target = format!("{BASE}/");
    let summary = RunSummary {
        target: target.clone(),
        strategy: "qlearn".into(),
        seed: 7,
        budget: "300 steps".into(),
        steps: w.steps.len() as u64,
        episodes: w.resets.len() as u64,
        states: w.first_step.len(),
        urls: w.steps.last().map_or(0, |s| s.sample.urls),
        actions_discovered: w.steps.last().map_or(0, |s| s.sample.actions),
        failures: failures
            .iter()
            .map(|f| FailureLine::from(&f.failure))
            .collect(),
        js_coverage: Some(CoverageSummary::from(coverage)),
        timings_ms: TimingMedians {
            scan: 39.4,
            analysis: 4.6,
            decide: 1.2,
            act: 64.9,
            wait: 224.8,
            validate: 0.0,
            coverage: 0.0,
            judge: 0.2,
            learn: 0.1,
            name: 0.0,
            spec: 0.0,
            server: 0.0,
            step: 358.3,
            observers: 2.7,
        },
        time_split: wayfarer_core::summary::TimeSplit::of(
            &w.steps.iter().map(|s| s.record.timings).collect::<Vec<_>>(),
            &[],
        ),
        resets_s: 4.2,
        steps_per_second: 2.91,
        duration_s: 103.2,
        restarts: 1,
        step_errors: 3,
        stopped_early: None,
        ended_by_environment: false,
        logged_out: 0,
        scans_avoided: 0.0,
        analyses_avoided: 0.0,
        inference: None,
        deviation: None,
        llm: None,
        form_acceptance: Default::default(),
        workers: Vec::new(),
        ..RunSummary::default()
    };
    let data = RunData {
        dir,
        meta: RunMeta {
            wayfarer: "0.1.0".into(),
            started_at: 1_741_690_512,
            command: format!("wayfarer explore {target} --strategy qlearn --budget 300 --seed 7"),
            target,
            strategy: "qlearn".into(),
            seed: 7,
            budget: "300 steps".into(),
            episode_steps: EPISODE as u32,
            config: serde_json::json!({
                "target": format!("{BASE}/"),
                "login": [{ "fill": "#password", "value": "${CLINIC_PASSWORD}" }],
                "oracles": { "error_text": [XSS] },
            }),
            setup: Default::default(),
        },
        summary,
        complete: !incomplete,
        steps: w.steps,
        resets: w.resets,
        states: w
            .first_step
            .iter()
            .map(|(&i, &first_step)| StateRow {
                id: StateId(i as u64),
                first_step,
                url: format!("{BASE}{}", pages[i].path),
                title: pages[i].title.clone(),
            })
            .collect(),
        transitions: w
            .transitions
            .into_iter()
            .map(|((a, b, action), count)| TransitionRow {
                from: StateId(a),
                to: StateId(b),
                action,
                count,
            })
            .collect(),
        failures,
        strategy: None,
        knowledge: Vec::new(),
        features: None,
    };
    let found = |kind: FailureKind| {
        let f = data.failures.iter().find(|f| f.failure.kind == kind);
        f.map(|f| f.failure.step)
    };
    let seeded = vec![
        SeededLine {
            id: "clinic-1".into(),
            description: "Saving a new patient with an empty form throws in the error renderer"
                .into(),
            min_actions: 3,
            found_at_step: found(FailureKind::Exception),
            reported_actions: None,
            reproduced: None,
        },
        SeededLine {
            id: "clinic-2".into(),
            description: format!("Search fails on the server when the query holds {XSS}"),
            min_actions: 1,
            found_at_step: found(FailureKind::Http5xx),
            reported_actions: None,
            reproduced: None,
        },
        SeededLine {
            id: "clinic-3".into(),
            description: "Invoices with a zero total divide by zero".into(),
            min_actions: 4,
            found_at_step: None,
            reported_actions: None,
            reproduced: None,
        },
    ];
    let html = wayfarer_report::html::render(&data, Some(&seeded));
    std::fs::write(&out, html).expect("write the report");
    println!("wrote {}", out.display());
}
