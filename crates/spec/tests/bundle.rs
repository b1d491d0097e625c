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
    // The message names every side of the failed `or`, in the spec's order, and the cell.
    let m = bad["message"].as_str().unwrap();
    assert!(
        m.starts_with("counterStateMachine violated: none held of `")
            && m.ends_with("(counterValue = 3)"),
        "{m}"
    );
    assert_eq!(m.matches('`').count(), 6, "three sides: {m}");
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

/// Step a spec of one cell (index 1) through `(value, time)` states; the steps and the end.
fn stepped(spec_source: &str, states: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("spec.js", spec_source)]);
    let b = bundle(&dir.path().join("spec.js")).unwrap();
    node(
        &b.script,
        &format!(
            "spec.begin();
             const steps = {states}.map(([v, t]) => spec.step([[1, v]], t));
             console.log(JSON.stringify({{ steps, end: spec.end() }}));"
        ),
    )
}

const ERROR_GONE: &str = r#"
import { extract, always, now, eventually } from "@antithesishq/bombadil";
const error = extract((s) => s.error);
export const gone = always(now(() => error.current !== null).implies(
  eventually(() => error.current === null).within(5, "seconds")));
"#;

#[test]
fn eventually_within_is_violated_past_its_deadline_and_pending_before_it() {
    // Shown at 1 s, still shown at 6.5 s: violated at the state past the deadline.
    let late = stepped(
        ERROR_GONE,
        "[[null, 0], ['x', 1000], ['x', 3000], ['x', 6500]]",
    );
    assert_eq!(
        late["steps"][2]["violations"],
        serde_json::json!([]),
        "{late}"
    );
    let v = &late["steps"][3]["violations"][0];
    assert_eq!(v["property"], "gone", "{late}");
    assert!(
        v["note"]
            .as_str()
            .unwrap()
            .contains("within 5000 ms of state 2"),
        "{v}"
    );
    assert_eq!(v["cells"]["error"], "x", "the cells it last read: {v}");
    assert_eq!(
        v["message"],
        "gone violated: `() => error.current === null` was false: did not hold within 5000 ms of state 2 (last false at state 3) (error = \"x\")",
        "{v}"
    );
    // Gone in time: held. Shown again at the end: pending, not a pass.
    let ok = stepped(ERROR_GONE, "[['x', 0], [null, 4000]]");
    assert_eq!(ok["end"][0]["verdict"], "held", "{ok}");
    let open = stepped(ERROR_GONE, "[['x', 0], [null, 4000], ['y', 4500]]");
    assert_eq!(open["end"][0]["verdict"], "pending", "{open}");
}

#[test]
fn an_eventually_within_not_yet_met_is_due_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("spec.js", ERROR_GONE)]);
    let b = bundle(&dir.path().join("spec.js")).unwrap();
    let d = node(
        &b.script,
        "spec.begin();
         const due = [];
         due.push(spec.due());
         spec.step([[1, null]], 0); due.push(spec.due());
         spec.step([[1, 'x']], 1000); due.push(spec.due());
         spec.step([[1, null]], 2000); due.push(spec.due());
         spec.step([[1, 'x']], 3000); spec.step([[1, 'y']], 3500); due.push(spec.due());
         console.log(JSON.stringify(due));",
    );
    // Nothing before the error shows; its deadline once it does; nothing once it went.
    assert_eq!(d, serde_json::json!([null, null, 6000, null, 8000]), "{d}");
}

#[test]
fn connectives_and_negation_follow_the_three_valued_end() {
    let src = r#"
import { extract, always, eventually, not, now } from "@antithesishq/bombadil";
const n = extract((s) => s.n);
export const neverFive = not(eventually(() => n.current === 5));
export const someday = eventually(() => n.current === 5).or(always(() => n.current < 3));
export const both = always(() => n.current >= 0).and(eventually(() => n.current === 2));
"#;
    let r = stepped(src, "[[0, 0], [1, 10], [2, 20]]");
    let verdict = |name: &str| {
        r["end"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["property"] == name)
            .unwrap()["verdict"]
            .clone()
    };
    // not(eventually): nothing seen yet is "held so far", as an always would be.
    assert_eq!(verdict("neverFive"), "held", "{r}");
    assert_eq!(verdict("someday"), "held", "{r}");
    assert_eq!(verdict("both"), "held", "{r}");
    // A 5: the negated eventually is met (violated); the `or` is met by its left side.
    let r5 = stepped(src, "[[0, 0], [5, 10]]");
    let v = &r5["steps"][1]["violations"];
    assert_eq!(v.as_array().unwrap().len(), 1, "{r5}");
    assert_eq!(v[0]["property"], "neverFive", "{r5}");
    assert_eq!(
        v[0]["formula"], "not(eventually(() => n.current === 5))",
        "{r5}"
    );
    let some = r5["end"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["property"] == "someday")
        .unwrap();
    assert_eq!(some["verdict"], "held", "{r5}");
}

#[test]
fn a_formula_that_throws_is_an_error_of_its_property_only() {
    let src = r#"
import { extract, always } from "@antithesishq/bombadil";
const n = extract((s) => s.n);
export const throws = always(() => n.current.deep.value === 1);
export const fine = always(() => n.current !== undefined);
"#;
    let r = stepped(src, "[[{}, 0], [{}, 10]]");
    assert_eq!(r["steps"][0]["errors"][0]["property"], "throws", "{r}");
    assert!(
        r["steps"][0]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("reading 'value'"),
        "{r}"
    );
    let end: Vec<(String, String)> = r["end"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["property"].as_str().unwrap().to_string(),
                e["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        end,
        [
            ("fine".into(), "held".into()),
            ("throws".into(), "error".into())
        ]
    );
}

/// Bombadil 0.7.0's README examples and a spec in 0.7's language bundle unchanged: the
/// `/browser` modules, the defaults mapped onto our checks and explorer, `weighted` around
/// a generator, and the templates (ranges) passed on for wayfarer to draw.
#[test]
fn bombadil_07s_modules_and_readme_examples_bundle() {
    let d = describe(&specs().join("v07-title.ts"));
    assert_eq!(d["properties"][0]["name"], "has_title", "{d}");
    assert_eq!(d["cells"], serde_json::json!(["time", "title"]), "{d}");
    let d = describe(&specs().join("v07-defaults.ts"));
    assert_eq!(d["oracles"].as_array().unwrap().len(), 4, "{d}");
    assert_eq!(d["explorer"], serde_json::json!(["defaultActions"]), "{d}");

    let b = bundle(&specs().join("v07-board.ts")).unwrap_or_else(|e| panic!("{e}"));
    let out = node(
        &b.script,
        r#"
        const fp = { tag: "canvas", testId: null, id: "board", role: null, accessibleName: null,
          href: null, nameAttr: null, placeholder: null, inputType: null, textContent: null,
          structuralPath: null };
        spec.begin();
        const cells = spec.describe().cells;
        const values = [[cells.indexOf("board"), { fingerprint: fp, point: { x: 5, y: 6 } }],
          [cells.indexOf("clearedEntries"), 3]];
        const stepped = spec.step(values, 1000);
        console.log(JSON.stringify({ d: spec.describe(), offered: spec.actions(1), stepped }));
        "#,
    );
    assert_eq!(
        out["d"]["actions"],
        serde_json::json!(["boardActions"]),
        "{out}"
    );
    assert_eq!(
        out["d"]["explorer"],
        serde_json::json!(["defaultActions"]),
        "{out}"
    );
    let offered = out["offered"]["actions"].as_array().unwrap();
    assert_eq!(offered.len(), 2, "{out}");
    let (w, dbl) = (&offered[0][0], &offered[0][1]["DoubleClick"]);
    assert!((w.as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9, "{out}");
    assert_eq!(
        dbl["delayMillis"],
        serde_json::json!([0, 40]),
        "the range is drawn by wayfarer"
    );
    assert_eq!(dbl["fingerprint"]["id"], "board");
    assert_eq!(
        offered[1][1],
        serde_json::json!({ "PressKey": { "code": 46 } })
    );
    let v = &out["stepped"]["violations"][0];
    assert_eq!(v["property"], "fewer_than_three_cleared_entries", "{out}");
}

/// Bombadil's default generators inside a spec's own `weighted`: wayfarer runs the defaults
/// as its explorer, so the generator is refused with what to write instead.
#[test]
fn a_default_generator_inside_weighted_is_refused_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[(
            "spec.ts",
            r#"
import { weighted } from "@antithesishq/bombadil/browser";
import { clicks, lastAction } from "@antithesishq/bombadil/browser/defaults/actions";
import { CharSet } from "@antithesishq/bombadil/actions";
export const mine = weighted([[10, clicks], [1, "Wait"]]);
export const letters = CharSet.union(CharSet.fromRange(97, 99), CharSet.fromLiterals("x"));
export const last = lastAction;
"#,
        )],
    );
    let b = bundle(&dir.path().join("spec.ts")).unwrap_or_else(|e| panic!("{e}"));
    let out = node(
        &b.script,
        r#"
        console.log(JSON.stringify({ offered: spec.actions(1), letters: spec.entryModule().letters }));
        "#,
    );
    let err = out["offered"]["errors"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(err.contains("`clicks`") && err.contains("export"), "{out}");
    assert_eq!(
        out["letters"],
        serde_json::json!([{ "Range": [97, 99] }, { "Literal": "x" }])
    );
}
