//! `junit.xml` validates against the JUnit schema CI systems read (checked with
//! xmllint, which `scripts/test.sh` installs), with hostile page text inside.

mod common;

use std::process::Command;

use common::data;

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
