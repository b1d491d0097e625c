//! `ctrf.json` validates against the CTRF JSON schema (`ctrf-schema-0.0.json`, from the
//! npm package ctrf 0.3.0, MIT), with hostile page text inside, for a finished run and a
//! killed one.

mod common;

use boon::{Compiler, Schemas};
use serde_json::Value;
use wayfarer_report::format::{format, Input};

fn validate(text: &str) -> Value {
    let instance: Value = serde_json::from_str(text).expect("ctrf.json is JSON");
    let schema: Value = serde_json::from_str(include_str!("ctrf-schema-0.0.json")).unwrap();
    let mut schemas = Schemas::new();
    let mut compiler = Compiler::new();
    compiler.enable_format_assertions();
    compiler
        .add_resource("file:///ctrf-schema-0.0.json", schema)
        .unwrap();
    let id = compiler
        .compile("file:///ctrf-schema-0.0.json", &mut schemas)
        .unwrap();
    if let Err(e) = schemas.validate(&instance, id) {
        panic!("ctrf.json does not fit the schema: {e:#}\n{text}");
    }
    instance
}

#[test]
fn ctrf_fits_its_schema_and_counts_the_failures_as_failed_tests() {
    let ctrf = format("ctrf").expect("ctrf is a format");
    for complete in [true, false] {
        let data = common::data(complete);
        let text = ctrf.render(&Input {
            data: &data,
            seeded: None,
            chromium: None,
        });
        let v = validate(&text);
        let summary = &v["results"]["summary"];
        // Two failures, and the exploration itself (failed when the run was killed).
        assert_eq!(summary["tests"], 3);
        assert_eq!(summary["failed"], if complete { 2 } else { 3 }, "{summary}");
        let tests = v["results"]["tests"].as_array().unwrap();
        assert!(tests[1]["trace"]
            .as_str()
            .unwrap()
            .contains("replay: wayfarer replay traces/"));
        assert!(tests[1]["message"]
            .as_str()
            .unwrap()
            .contains(common::HOSTILE.trim_end_matches(['\u{1}', '\u{0}'])));
    }
}

/// The schema check can fail: a document without its required fields is refused.
#[test]
fn the_schema_refuses_a_report_without_its_results() {
    let result =
        std::panic::catch_unwind(|| validate(r#"{"reportFormat":"CTRF","specVersion":"0.0.0"}"#));
    assert!(result.is_err());
}
