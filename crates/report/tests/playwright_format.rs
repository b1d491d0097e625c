//! The `playwright` format: written on demand, from the traces the run wrote, one spec
//! per failure; a run's own end writes everything but it.

mod common;

use wayfarer_report::format::{format, Input};

#[test]
fn the_playwright_format_is_a_project_with_a_spec_per_failure_written_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = common::data(true);
    data.dir = dir.path().to_path_buf();
    data.meta.setup.start_url = "http://127.0.0.1:9/".into();

    let all = wayfarer_report::write_all(&data, None).unwrap();
    assert_eq!(all.traces.len(), 2, "{all:?}");
    assert!(!dir.path().join("playwright").exists(), "not on every run");

    let pw = format("playwright").expect("a format");
    assert!(!pw.every_run());
    let written = wayfarer_report::write(&data, None, Some("/opt/chromium"), &[pw]).unwrap();
    let root = dir.path().join("playwright");
    let specs: Vec<_> = written
        .files
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".spec.ts"))
        .collect();
    assert_eq!(specs.len(), 2, "{:?}", written.files);
    assert!(specs.iter().all(|p| p.starts_with(root.join("tests"))));
    let config = std::fs::read_to_string(root.join("playwright.config.ts")).unwrap();
    assert!(config.contains("/opt/chromium"), "{config}");
    assert!(root.join("package.json").is_file());

    // Its one-text view lists every file of the project under its path.
    let text = pw.render(&Input {
        data: &data,
        seeded: None,
        chromium: None,
    });
    assert!(text.contains("// playwright.config.ts"), "{text}");
    assert_eq!(text.matches(".spec.ts\n").count(), 2, "{text}");
}
