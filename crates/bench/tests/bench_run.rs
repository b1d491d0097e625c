//! `run_bench` end to end on a small budget: it writes bench.md, bench.csv and the plots,
//! and a rerun with the same seeds gives the same numbers for the deterministic metrics.
//!
//! Needs Chromium (scripts/ensure-chromium.sh).

use std::path::Path;

use wayfarer_bench::{run_bench, Plan, RunRow, Target, COLUMNS};
use wayfarer_browser::find_chrome;
use wayfarer_core::{Budget, Config};
use wayfarer_testapps::App;

fn plan(out: &Path) -> Plan {
    Plan {
        targets: vec![Target::Bundled(App::Clinic)],
        strategies: vec!["random".into()],
        inferences: vec![None],
        workers: vec![1],
        app_latency: Default::default(),
        resume: false,
        peers: vec![],
        seeds: vec![1, 2],
        budget: Budget::actions(30),
        out: out.to_path_buf(),
        config: Config::default(),
        chrome: Some(find_chrome(None).expect("Chromium (scripts/ensure-chromium.sh)")),
        peer_cache: out.join("peers"),
        episode_steps: Some(10),
        command: "bench_run test".into(),
        shrink: Default::default(),
    }
}

/// The metrics that depend only on the seed (not on timing).
fn deterministic(r: &RunRow) -> impl PartialEq + std::fmt::Debug {
    (
        (r.app.clone(), r.strategy.clone(), r.seed, r.steps),
        (r.states, r.urls, r.actions, r.action_ids, r.screens),
        (r.failures, r.seeded_bugs, r.seeded_found.clone()),
        (
            r.feature_coverage.map(|f| (f * 1e6) as u64),
            r.features_covered.clone(),
        ),
    )
}

#[test]
fn a_small_bench_writes_its_outputs_and_reruns_identically() {
    let tmp = tempfile::tempdir().unwrap();
    let (a_dir, b_dir) = (tmp.path().join("a"), tmp.path().join("b"));
    let mut lines = Vec::new();
    let a = run_bench(&plan(&a_dir), &mut |l| lines.push(l.to_string())).unwrap();
    assert!(a.skipped.is_empty(), "{:?}", a.skipped);
    assert_eq!(a.runs.len(), 2);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("[1/2] clinic · random · seed 1: 30 steps"),
        "{lines:?}"
    );

    let csv = std::fs::read_to_string(a_dir.join("bench.csv")).unwrap();
    let mut rows = csv.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    assert_eq!(header, COLUMNS.iter().map(|c| c.0).collect::<Vec<_>>());
    assert_eq!(rows.count(), 2);
    let md = std::fs::read_to_string(a_dir.join("bench.md")).unwrap();
    assert!(
        md.contains("## clinic") && md.contains("| random |"),
        "{md}"
    );
    assert!(md.contains("clinic-vets-contact"), "{md}");
    for plot in ["states", "js-coverage", "failures"] {
        let svg = std::fs::read_to_string(a_dir.join(format!("plots/clinic-{plot}.svg"))).unwrap();
        assert!(svg.contains("random"), "{plot}");
    }
    // The run's store keeps each step's screen: all of them are screens the ground truth
    // declares (the tour reaches every declared one; exploration finds no other).
    let truth = wayfarer_testapps::ground_truth(App::Clinic).unwrap();
    let stored = wayfarer_store::load(&a_dir.join("runs/clinic-random-s1")).unwrap();
    assert_eq!(stored.steps.len(), 30);
    for s in &stored.steps {
        let screen = s.record.app_state.as_deref().unwrap_or("none");
        assert!(truth.states.contains(&screen), "undeclared screen {screen}");
    }
    // Where the run stopped: read back from the same store, one line per strategy.
    let stops = wayfarer_bench::stops::stops(&stored).expect("the run has steps");
    assert_eq!(stops.steps, 30);
    assert!(stops.urls >= 2 && stops.gain_end > 0, "{stops:?}");
    assert!(
        stops.last_url_s > 0.0 && stops.top5_share > 0.0,
        "{stops:?}"
    );
    let where_ = std::fs::read_to_string(a_dir.join("stops.md")).unwrap();
    assert!(where_.contains("| clinic | random | 2 | 30 |"), "{where_}");

    for (_, o) in &a.runs {
        let r = &o.row;
        assert_eq!(r.steps, 30);
        assert!(r.states >= 2 && r.urls >= 2, "{r:?}");
        assert!(
            r.screens.unwrap() >= 2,
            "the clinic says which screen it shows: {r:?}"
        );
        assert!(
            r.action_ids.unwrap() >= 2,
            "the clinic logs its action ids: {r:?}"
        );
        assert!(
            r.js_coverage.unwrap() > r.js_coverage_first_load.unwrap(),
            "{r:?}"
        );
        assert_eq!(
            r.seeded_bugs,
            Some(r.seeded_found.split(';').filter(|s| !s.is_empty()).count())
        );
        assert_eq!(o.series.last().map(|p| p.step), Some(30));
        assert!(o.series.windows(2).all(|w| w[0].step <= w[1].step));
    }

    let b = run_bench(&plan(&b_dir), &mut |_| {}).unwrap();
    let left: Vec<_> = a.runs.iter().map(|(_, o)| deterministic(&o.row)).collect();
    let right: Vec<_> = b.runs.iter().map(|(_, o)| deterministic(&o.row)).collect();
    assert_eq!(left, right);
}

#[test]
fn runs_with_inference_are_compared_with_off_and_a_bench_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut p = plan(tmp.path());
    p.seeds = vec![3];
    p.inferences = vec![None, Some("actions-5".parse().unwrap())];
    let first = run_bench(&p, &mut |_| {}).unwrap();
    assert_eq!(first.runs.len(), 2, "{:?}", first.skipped);
    let (off, on) = (&first.runs[0].1.row, &first.runs[1].1.row);
    assert_eq!(
        (off.inference.as_str(), on.inference.as_str()),
        ("off", "actions-5")
    );
    assert_eq!(off.deviation, None);
    let dev = on
        .deviation
        .expect("compared with the run without inference");
    assert!((0.0..=1.0).contains(&dev));
    // How many guesses hold in 30 steps depends on the machine's load; that some do is
    // asserted on longer runs (crates/cli/tests/cli.rs, the simulator tests).
    assert!((0.0..=1.0).contains(&on.scans_avoided.unwrap()), "{on:?}");
    assert!(on.scan_analysis_cut.is_some());
    let md = std::fs::read_to_string(tmp.path().join("bench.md")).unwrap();
    assert!(md.contains("| random · actions-5 |"), "{md}");
    assert!(md.contains("State inference:"), "{md}");
    assert!(tmp
        .path()
        .join("runs/clinic-random-actions-5-s3/run.sqlite")
        .exists());

    // Resumed: both runs are read back, not run again, and give the same rows.
    p.resume = true;
    let mut lines = Vec::new();
    let again = run_bench(&p, &mut |l| lines.push(l.to_string())).unwrap();
    assert!(lines.iter().all(|l| l.contains(" kept ")), "{lines:?}");
    let rows = |r: &wayfarer_bench::BenchResult| -> Vec<RunRow> {
        r.runs.iter().map(|(_, o)| o.row.clone()).collect()
    };
    assert_eq!(rows(&again), rows(&first));
    // A different budget is not kept.
    p.budget = Budget::actions(5);
    let mut lines = Vec::new();
    run_bench(&p, &mut |l| lines.push(l.to_string())).unwrap();
    assert!(lines.iter().all(|l| !l.contains(" kept ")), "{lines:?}");
}

#[test]
fn runs_with_several_workers_get_their_column_and_their_table() {
    let tmp = tempfile::tempdir().unwrap();
    let mut p = plan(tmp.path());
    p.seeds = vec![2];
    p.workers = vec![1, 2];
    let result = run_bench(&p, &mut |_| {}).unwrap();
    assert_eq!(result.runs.len(), 2, "{:?}", result.skipped);
    let (one, two) = (&result.runs[0].1.row, &result.runs[1].1.row);
    assert_eq!((one.workers, two.workers), (1, 2));
    assert_eq!(two.who(), "random · 2 workers");
    assert_eq!(
        two.steps, 30,
        "an action budget is the run's, not each worker's"
    );
    let stored = wayfarer_store::load(&tmp.path().join("runs/clinic-random-w2-s2")).unwrap();
    let numbers: Vec<u64> = stored.steps.iter().map(|s| s.record.step).collect();
    assert_eq!(numbers, (1..=30).collect::<Vec<_>>());
    let workers: std::collections::BTreeSet<u32> =
        stored.steps.iter().map(|s| s.record.worker).collect();
    assert_eq!(workers, [0, 1].into());
    let csv = std::fs::read_to_string(tmp.path().join("bench.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|c| *c == "workers").unwrap();
    let cells: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(col).unwrap())
        .collect();
    assert_eq!(cells, ["1", "2"]);
    let md = std::fs::read_to_string(tmp.path().join("bench.md")).unwrap();
    assert!(md.contains("Workers: steps, states"), "{md}");
    assert!(md.contains("| random | 2 |"), "{md}");
}

/// The bundled Python server as an apps file's application, its coverage read.
fn notes_app(dir: &Path) -> wayfarer_bench::apps::AppSpec {
    let servers = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testapps/servers")
        .canonicalize()
        .unwrap();
    let file = dir.join("notes.toml");
    std::fs::write(
        &file,
        format!(
            "[server]\ncommand = \"exec python3 notes.py {{port}}\"\nready = \"^notes: http\"\n\
             cwd = \"{}\"\ncoverage = \"python\"\n",
            servers.display()
        ),
    )
    .unwrap();
    let apps = dir.join("apps.toml");
    std::fs::write(
        &apps,
        "[[app]]\nname = \"notes\"\nconfig = \"notes.toml\"\n",
    )
    .unwrap();
    wayfarer_bench::apps::load(&apps)
        .unwrap()
        .into_iter()
        .next()
        .unwrap()
}

#[test]
fn every_run_peers_included_gets_the_servers_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let p = Plan {
        targets: vec![Target::Served(std::sync::Arc::new(notes_app(tmp.path())))],
        seeds: vec![1],
        budget: Budget::actions(20),
        peers: vec!["gremlins".into()],
        // Where the peer tests install gremlins.js: once for all of them.
        peer_cache: std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("peers"),
        ..plan(&tmp.path().join("out"))
    };
    let result = run_bench(&p, &mut |_| {}).unwrap();
    assert!(result.skipped.is_empty(), "{:?}", result.skipped);
    assert_eq!(result.runs.len(), 2);
    for (_, o) in &result.runs {
        let r = &o.row;
        assert_eq!(r.server_stack, "python", "{r:?}");
        let (lines, total, first) = (
            r.server_lines.unwrap(),
            r.server_lines_total.unwrap(),
            r.server_first_lines.unwrap(),
        );
        assert!(first > 20 && lines >= first && lines < total, "{r:?}");
        assert!(r.server_read_ms.unwrap() > 0.0);
    }
    let md = std::fs::read_to_string(tmp.path().join("out/bench.md")).unwrap();
    let at = md.find("## Server reach").expect("a server reach table");
    assert!(md[at..].contains("| notes (python) | random |"), "{md}");
    assert!(
        md[at..].contains("| notes (python) | gremlins (peer) |"),
        "{md}"
    );
    let csv = std::fs::read_to_string(tmp.path().join("out/bench.csv")).unwrap();
    assert!(csv.lines().next().unwrap().contains(",server_lines,"));
}
