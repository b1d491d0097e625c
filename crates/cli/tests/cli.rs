//! The `wayfarer` binary: exit codes, one-line errors, the JSON summary.

use std::process::Command;
use std::time::{Duration, Instant};

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

#[test]
fn unreachable_and_malformed_urls_exit_2_fast_with_one_line() {
    for url in ["http://127.0.0.1:1", "not-a-url"] {
        let started = Instant::now();
        let out = wayfarer().args(["explore", url]).output().unwrap();
        assert!(started.elapsed() < Duration::from_secs(5), "{url}");
        assert_eq!(out.status.code(), Some(2), "{url}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{url}: {err}");
        assert!(err.starts_with("error: "), "{err}");
    }
}

#[test]
fn bad_flags_and_configs_exit_2() {
    let out = wayfarer().args(["explore", "--budget"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Zero steps per episode would reset forever without acting.
    for bench in [false, true] {
        let cmd: &[&str] = if bench {
            &["bench", "--episode-steps", "0"]
        } else {
            &["explore", "http://127.0.0.1:1/", "--episode-steps", "0"]
        };
        let out = wayfarer().args(cmd).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--episode-steps"), "{err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("wayfarer.toml");
    std::fs::write(&cfg, "[scope]\nnope = 1\n").unwrap();
    let out = wayfarer()
        .args(["explore", "http://127.0.0.1:1/", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown field"));
    // Confirming replays come after shrinking: shrinking off in the file cannot give them.
    std::fs::write(&cfg, "[budget]\nshrink = \"off\"\n").unwrap();
    let out = wayfarer()
        .args([
            "explore",
            "http://127.0.0.1:1/",
            "--fail-on",
            "confirmed",
            "--config",
        ])
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--fail-on confirmed/flaky needs"), "{err}");
    let out = wayfarer()
        .args(["demo", "--budget", "ten"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid budget"));
}

#[test]
fn demo_json_summary_has_the_promised_fields_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = wayfarer()
        .args([
            "demo",
            "--budget",
            "40",
            "--seed",
            "3",
            "--episode-steps",
            "10",
        ])
        .args(["--json", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout} / {}", String::from_utf8_lossy(&out.stderr)));
    for key in [
        "steps",
        "episodes",
        "states",
        "urls",
        "actions_discovered",
        "failures",
        "js_coverage",
        "timings_ms",
        "steps_per_second",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    assert_eq!(v["steps"], 40);
    // Regression: --episode-steps used to be ignored (episodes stayed 50 steps long).
    assert!(
        v["episodes"].as_u64().unwrap() >= 4,
        "episodes: {}",
        v["episodes"]
    );
    for key in ["covered_bytes", "total_bytes", "ratio", "first_load_ratio"] {
        assert!(v["js_coverage"].get(key).is_some(), "js_coverage.{key}");
    }
    for key in ["scan", "analysis", "decide", "act", "wait"] {
        assert!(v["timings_ms"].get(key).is_some(), "timings_ms.{key}");
    }
    let failures = v["failures"].as_array().unwrap();
    let expected = if failures.is_empty() { 0 } else { 1 };
    assert_eq!(out.status.code(), Some(expected));
    for f in failures {
        for key in ["kind", "signature", "message", "step"] {
            assert!(f.get(key).is_some(), "failure.{key}");
        }
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["steps"], v["steps"]);
    assert_eq!(v["scans_avoided"], 0.0);
    assert!(v.get("inference").is_none());

    // The same run with state inference, compared with the one above.
    let guessed = tempfile::tempdir().unwrap();
    let out = wayfarer()
        .args([
            "demo",
            "--budget",
            "40",
            "--seed",
            "3",
            "--episode-steps",
            "10",
        ])
        .args(["--inference", "actions-5", "--deviation-from"])
        .arg(dir.path())
        .args(["--json", "--out"])
        .arg(guessed.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let g: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout} / {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(g["steps"], 40);
    assert_eq!(g["inference"]["config"], "actions-5");
    for key in ["scans_avoided", "analyses_avoided", "deviation"] {
        let x = g[key].as_f64().unwrap_or_else(|| panic!("{key} in {g}"));
        assert!((0.0..=1.0).contains(&x), "{key} = {x}");
    }
    assert!(g["scans_avoided"].as_f64().unwrap() > 0.0, "{g}");
    let html = std::fs::read_to_string(guessed.path().join("report.html")).unwrap();
    assert!(html.contains("id=\"inference\""));
    // A baseline of another seed cannot be compared.
    let out = wayfarer()
        .args([
            "demo",
            "--budget",
            "5",
            "--seed",
            "4",
            "--inference",
            "actions-5",
        ])
        .arg("--deviation-from")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be compared"));
    let out = wayfarer()
        .args(["demo", "--inference", "actions"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("actions-5"));
}

#[test]
fn bench_refuses_bad_matrices_with_exit_2_and_says_what_is_available() {
    for (args, says) in [
        (
            vec!["--apps", "nope"],
            "available: all, expense, clinic, splitter, board",
        ),
        (vec!["--seeds", "x"], "invalid --seeds"),
        (vec!["--strategies", "psychic"], "unknown strategy"),
        (vec!["--peer", "monkeys"], "available: none, gremlins"),
        (vec!["--budget", "ten"], "invalid budget"),
        (vec!["--inference", "off,pixels-5"], "widgets-5"),
        (vec!["--url", "http://127.0.0.1:1/"], "cannot reach"),
    ] {
        let out = wayfarer().arg("bench").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: ") && err.contains(says),
            "{args:?}: {err}"
        );
    }
}

/// webrled keeps its networks in `<out>/model/`; `--networks` (a run directory or the model
/// directory) starts a later run from them, and networks of other sizes are refused.
#[test]
fn webrled_saves_its_networks_and_a_later_run_starts_from_them() {
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &std::path::Path, extra: &[&str]| {
        wayfarer()
            .args([
                "demo",
                "--strategy",
                "webrled",
                "--budget",
                "25",
                "--seed",
                "2",
            ])
            .args(["--episode-steps", "10", "--quiet", "--out"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap()
    };
    let first = dir.path().join("first");
    let out = run(&first, &[]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in [
        "webrled.json",
        "qnet.safetensors",
        "autoencoder.safetensors",
        "discriminator.safetensors",
    ] {
        assert!(first.join("model").join(file).exists(), "{file}");
    }
    let second = dir.path().join("second");
    let out = run(&second, &["--networks", first.to_str().unwrap()]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(second.join("model").join("webrled.json").exists());
    // Saved for 512 embedding slots: a run with 64 refuses them and says why.
    let cfg = dir.path().join("small.toml");
    std::fs::write(&cfg, "[abstraction]\ndims = 64\n").unwrap();
    let third = dir.path().join("third");
    let out = run(
        &third,
        &[
            "--networks",
            first.to_str().unwrap(),
            "--config",
            cfg.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("512") && err.contains("64"), "{err}");
}
