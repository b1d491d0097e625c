//! `wayfarer export`: a run directory's traces become a Playwright project, a minimised
//! trace standing in for its original; a directory without traces is a clear error.

use std::process::Command;

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/expense-long-description.trace.json"
);

#[test]
fn traces_become_a_playwright_project_preferring_minimised_ones() {
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    std::fs::write(traces.join("01-exception-long.json"), &text).unwrap();
    // A minimised version: the four actions the bug needs.
    let mut min: serde_json::Value = serde_json::from_str(&text).unwrap();
    let steps = min["steps"].as_array().unwrap().clone();
    min["steps"] = serde_json::Value::Array(
        [13usize, 24, 30, 31]
            .iter()
            .map(|&i| steps[i].clone())
            .collect(),
    );
    std::fs::write(
        traces.join("01-exception-long.min.json"),
        serde_json::to_string_pretty(&min).unwrap(),
    )
    .unwrap();
    std::fs::write(traces.join("02-broken.json"), "{ not a trace").unwrap();

    let out = wayfarer().arg("export").arg(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("skipped") && stderr.contains("02-broken.json"),
        "{stderr}"
    );
    let pw = dir.path().join("playwright");
    assert!(pw.join("playwright.config.ts").is_file());
    assert!(pw.join("package.json").is_file());
    let spec = std::fs::read_to_string(pw.join("tests/01-exception-long.spec.ts")).unwrap();
    assert!(spec.contains("test("), "{spec}");
    // Four numbered steps: the minimised trace was used, not the 32-action original.
    assert!(
        spec.contains("// 4. ") && !spec.contains("// 5. "),
        "{spec}"
    );
    assert!(
        spec.contains(".repeat(") || spec.contains("ouiva2z6"),
        "{spec}"
    );
}

#[test]
fn a_directory_without_traces_is_an_error_that_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let out = wayfarer().arg("export").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("traces"), "{err}");
    let out = wayfarer()
        .args(["export", "--format", "cypress"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("playwright"));
}
