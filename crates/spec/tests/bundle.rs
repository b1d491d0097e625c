//! Bundles of the manual's examples and of small module graphs, evaluated in Node: what
//! each exports, how its cells are named, what its properties say on made-up states.

use std::path::{Path, PathBuf};
use std::process::Command;

use wayfarer_spec::{bundle, SpecError};

fn specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps/specs")
}

/// Evaluate `script` in Node, then `driver` (JavaScript using `spec`), and parse what it
/// printed as JSON. Node comes with the test set-up (scripts/ensure-playwright.sh).
fn node(script: &str, driver: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.js");
    std::fs::write(
        &file,
        format!("{script}\nconst spec = globalThis.__wayfarerSpec;\n{driver}\n"),
    )
    .unwrap();
    let out = Command::new("node")
        .arg(&file)
        .output()
        .expect("node runs (scripts/ensure-playwright.sh installs it)");
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn describe(path: &Path) -> serde_json::Value {
    let b = bundle(path).unwrap_or_else(|e| panic!("{e}"));
    node(&b.script, "console.log(JSON.stringify(spec.describe()));")
}

#[test]
fn every_example_of_the_manual_bundles_with_its_properties_and_our_oracles() {
    for (file, property, cells) in [
        (
            "max-notifications.ts",
            "max_notifications_shown",
            vec!["notificationCount"],
        ),
        (
            "constant-count.ts",
            "constantNotificationCount",
            vec!["notificationCount"],
        ),
        (
            "error-disappears.ts",
            "errorDisappears",
            vec!["errorMessage"],
        ),
        (
            "notification-includes-name.ts",
            "notificationIncludesMessage",
            vec!["name", "submitInProgress", "notificationText"],
        ),
        ("counter.ts", "counterStateMachine", vec!["counterValue"]),
    ] {
        let d = describe(&specs().join(file));
        let names: Vec<&str> = d["properties"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, [property], "{file}: {d}");
        let oracles: Vec<&str> = d["oracles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            oracles,
            [
                "console-error",
                "http-error",
                "exception",
                "unhandled-rejection"
            ],
            "{file}: the defaults map onto wayfarer's oracles: {d}"
        );
        let named: Vec<&str> = d["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .filter(|c| *c != "time")
            .collect();
        assert_eq!(named, cells, "{file}: cells are named after their bindings");
        assert_eq!(d["ignored"], serde_json::json!([]), "{file}");
    }
}

#[test]
fn the_counter_example_is_violated_by_a_jump_of_two_and_holds_otherwise() {
    let b = bundle(&specs().join("counter.ts")).unwrap();
    let d = node(
        &b.script,
        r#"
        const run = (values) => {
          spec.begin();
          const steps = values.map((v, i) => spec.step([[1, v]], i * 100));
          return { steps, end: spec.end() };
        };
        console.log(JSON.stringify({ ok: run([0, 1, 1, 0, -1]), bad: run([0, 1, 3, 3]) }));
        "#,
    );
    let ok = &d["ok"];
    assert!(
        ok["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["violations"] == serde_json::json!([])),
        "{ok}"
    );
    assert_eq!(ok["end"][0]["verdict"], "held");
    let bad = &d["bad"]["steps"][2]["violations"][0];
    assert_eq!(bad["property"], "counterStateMachine", "{d}");
    assert_eq!(bad["cells"]["counterValue"], 3, "{d}");
    assert_eq!(bad["state"], 3);
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

#[test]
fn imports_of_modules_data_and_packages_are_bundled() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "spec.ts",
                r#"
import { extract, always, actions } from "@antithesishq/bombadil";
import { limit, type Limit } from "./lib/limits.js";
import * as words from "./lib/words";
import data from "./fixtures/data.json";
import raw from "./fixtures/list.txt" with { type: "text" };
import bytes from "./fixtures/blob.dat" with { type: "binary" };
import pad from "left-pad";
export { limit as theLimit } from "./lib/limits.js";
interface Unused { a: number }
const count: ReturnType<typeof extract<number>> = extract((s) => s.document.n as number);
export const underLimit = always(() => count.current <= (limit satisfies Limit));
export const clickTheCanvas = actions(() => [{ Click: { name: "canvas", point: { x: 1, y: 2 } } }]);
export const facts = [data.answer, raw.trim(), bytes.length, words.first, pad("7", 3)];
"#,
            ),
            (
                "lib/limits.ts",
                "export type Limit = number;\nexport const limit: Limit = 5;\n",
            ),
            ("lib/words/index.js", "export const first = 'alpha';\n"),
            ("fixtures/data.json", "{\"answer\": 42}"),
            ("fixtures/list.txt", "one\n"),
            ("fixtures/blob.dat", "\u{1}\u{2}\u{3}"),
            (
                "node_modules/left-pad/package.json",
                "{\"name\": \"left-pad\", \"main\": \"index.js\"}",
            ),
            (
                "node_modules/left-pad/index.js",
                "const rep = require('./rep');\nmodule.exports = function (s, n) { return rep(' ', n - s.length) + s; };\n",
            ),
            (
                "node_modules/left-pad/rep.js",
                "module.exports = (c, n) => c.repeat(Math.max(0, n));\n",
            ),
        ],
    );
    let b = bundle(&dir.path().join("spec.ts")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.files.len(), 8, "{:?}", b.files);
    let d = node(
        &b.script,
        r#"
        const entry = spec.entryModule();
        console.log(JSON.stringify({ d: spec.describe(), facts: entry.facts, limit: entry.theLimit }));
        "#,
    );
    assert_eq!(
        d["facts"],
        serde_json::json!([42, "one", 3, "alpha", "  7"])
    );
    assert_eq!(d["limit"], 5);
    assert_eq!(d["d"]["properties"][0]["name"], "underLimit");
    assert_eq!(d["d"]["actions"], serde_json::json!(["clickTheCanvas"]));
    assert_eq!(d["d"]["cells"][1], "count");
}

#[test]
fn a_syntax_error_names_the_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "spec.ts",
                "import { x } from \"./lib\";\nexport const p = x;\n",
            ),
            ("lib.ts", "export const x = 1;\nexport const y = (2;\n"),
        ],
    );
    let e = bundle(&dir.path().join("spec.ts")).unwrap_err();
    assert!(matches!(e, SpecError::Syntax { line: 2, .. }), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("lib.ts:2:"), "{text}");
}

#[test]
fn a_missing_import_names_the_importer_and_the_specifier() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[(
            "spec.js",
            "import { a } from \"./nowhere\";\nimport b from \"@antithesishq/bombadil/nope\";\n",
        )],
    );
    let text = bundle(&dir.path().join("spec.js")).unwrap_err().to_string();
    assert!(
        text.contains("spec.js:1:") && text.contains("\"./nowhere\""),
        "{text}"
    );
    let missing = tempfile::tempdir().unwrap();
    let text = bundle(&missing.path().join("absent.ts"))
        .unwrap_err()
        .to_string();
    assert!(text.contains("absent.ts"), "{text}");
}

#[test]
fn a_dynamic_import_is_refused_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[(
            "spec.js",
            "export const p = 1;\nconst later = () => import(\"./x.js\");\n",
        )],
    );
    let text = bundle(&dir.path().join("spec.js")).unwrap_err().to_string();
    assert!(
        text.contains("spec.js:2:") && text.contains("dynamic import"),
        "{text}"
    );
}
