//! The book's GitHub Actions workflow (docs/src/ci.md, "Run it in CI", copied into the
//! README's section of the same name) is valid YAML of the right shape, so the copy users make of it works: triggers, a job, the explore command
//! with its CI flags and a baseline only when there is one, the artifact upload, the
//! baseline cache, and scripts bash can parse.

use std::os::unix::fs::PermissionsExt;

use yaml_rust2::{Yaml, YamlLoader};

const SECTION: &str = "# Run it in CI";

/// The first ```yaml block of the book's CI chapter.
fn workflow_block(chapter: &str) -> Result<String, String> {
    section_block(chapter, SECTION)
}

/// The first ```yaml block under the title `title`, up to the next title of its level.
fn section_block(chapter: &str, title: &str) -> Result<String, String> {
    let level = &title[..title.find(' ').unwrap_or(0) + 1];
    let start = chapter
        .find(title)
        .ok_or_else(|| format!("the text has no title {title:?}"))?;
    let rest = &chapter[start + title.len()..];
    // The section ends at the next title of its level.
    let next = format!("\n{level}");
    let section = rest.find(&next).map_or(rest, |end| &rest[..end]);
    let open = section
        .find("\n```yaml\n")
        .ok_or("the CI section has no ```yaml block")?;
    let body = &section[open + "\n```yaml\n".len()..];
    let close = body
        .find("\n```\n")
        .ok_or("the CI section's ```yaml block is not closed")?;
    Ok(body[..close + 1].to_string())
}

fn parse(text: &str) -> Result<Yaml, String> {
    let mut docs =
        YamlLoader::load_from_str(text).map_err(|e| format!("the workflow is not YAML: {e}"))?;
    match docs.len() {
        1 => Ok(docs.remove(0)),
        n => Err(format!("the workflow holds {n} YAML documents, not one")),
    }
}

fn book_workflow() -> Yaml {
    let chapter =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/src/ci.md"))
            .expect("read docs/src/ci.md");
    let block = workflow_block(&chapter).unwrap_or_else(|e| panic!("{e}"));
    parse(&block).unwrap_or_else(|e| panic!("{e}\n{block}"))
}

fn has_key(map: &Yaml, key: &str) -> bool {
    map.as_hash()
        .is_some_and(|h| h.contains_key(&Yaml::String(key.into())))
}

fn text<'a>(step: &'a Yaml, key: &str) -> &'a str {
    step[key].as_str().unwrap_or("")
}

/// The steps of the workflow's one job.
fn steps(doc: &Yaml) -> Vec<Yaml> {
    let jobs = doc["jobs"].as_hash().expect("`jobs` is a map");
    assert_eq!(jobs.len(), 1, "one job");
    let job = jobs.values().next().unwrap();
    assert!(
        job["runs-on"]
            .as_str()
            .is_some_and(|r| r.starts_with("ubuntu")),
        "the job runs on an Ubuntu runner: {:?}",
        job["runs-on"]
    );
    job["steps"].as_vec().expect("the job has steps").clone()
}

/// The explore step's script, with `\` line continuations joined.
fn explore_script(steps: &[Yaml]) -> String {
    let explore: Vec<&Yaml> = steps
        .iter()
        .filter(|s| {
            text(s, "run")
                .lines()
                .any(|l| l.trim_start().starts_with("wayfarer explore "))
        })
        .collect();
    assert_eq!(explore.len(), 1, "one step runs wayfarer explore");
    text(explore[0], "run").replace("\\\n", " ")
}

/// The README's copy is the book's, byte for byte: one workflow, shown where a new user
/// looks first.
#[test]
fn the_readme_shows_the_books_workflow() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("read README.md");
    let chapter =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/src/ci.md"))
            .expect("read docs/src/ci.md");
    let shown = section_block(&readme, "## Run it in CI").unwrap_or_else(|e| panic!("{e}"));
    parse(&shown).unwrap_or_else(|e| panic!("{e}\n{shown}"));
    assert_eq!(shown, workflow_block(&chapter).unwrap());
}

#[test]
fn triggers_are_push_and_pull_request() {
    let doc = book_workflow();
    // YAML 1.2 reads `on` as a string, as GitHub does (YAML 1.1 would make it `true`).
    let on = &doc["on"];
    assert!(has_key(on, "push"), "on.push: {on:?}");
    assert!(has_key(on, "pull_request"), "on.pull_request: {on:?}");
}

#[test]
fn the_explore_step_has_the_ci_flags() {
    let doc = book_workflow();
    let script = explore_script(&steps(&doc));
    let command = script
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("wayfarer explore "))
        .expect("a line starting with `wayfarer explore`");
    let words: Vec<&str> = command.split_whitespace().collect();
    for flag in [
        ["--annotations", "github"],
        ["--summary-md", "\"$GITHUB_STEP_SUMMARY\""],
    ] {
        assert!(
            words.windows(2).any(|w| w == flag),
            "{} in {command}",
            flag.join(" ")
        );
    }
    assert!(
        words
            .get(2)
            .is_some_and(|u| u.starts_with("http://127.0.0.1:")),
        "it explores the application on 127.0.0.1: {command}"
    );
    assert!(
        script
            .lines()
            .any(|l| l.contains("--baseline wayfarer-baseline/report.json")
                && l.contains("--fail-on new")),
        "{script}"
    );
}

/// The explore step run with a stand-in `wayfarer` that records its arguments: with a
/// baseline it fails on new failures only; the first run on main, without one, must not
/// pass `--fail-on new`, which wayfarer refuses without `--baseline`.
#[test]
fn the_baseline_flags_follow_the_baseline_file() {
    let doc = book_workflow();
    let script = explore_script(&steps(&doc));
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("wayfarer");
    std::fs::write(&fake, "#!/bin/sh\nprintf '%s\\n' \"$@\" > args.txt\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = || -> Vec<String> {
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let out = std::process::Command::new("bash")
            .args(["-e", "-c", &script])
            .current_dir(dir.path())
            .env("PATH", path)
            .env("GITHUB_STEP_SUMMARY", "summary.md")
            .output()
            .expect("run bash");
        assert!(out.status.success(), "{out:?}");
        std::fs::read_to_string(dir.path().join("args.txt"))
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    };
    let pair = |args: &[String], a: &str, b: &str| args.windows(2).any(|w| w[0] == a && w[1] == b);

    let first = run();
    assert_eq!(first[0], "explore");
    assert!(!first.iter().any(|a| a == "--baseline"), "{first:?}");
    assert!(!pair(&first, "--fail-on", "new"), "{first:?}");
    assert!(pair(&first, "--annotations", "github"), "{first:?}");
    assert!(pair(&first, "--summary-md", "summary.md"), "{first:?}");

    std::fs::create_dir(dir.path().join("wayfarer-baseline")).unwrap();
    std::fs::write(dir.path().join("wayfarer-baseline/report.json"), "{}").unwrap();
    let later = run();
    assert!(
        pair(&later, "--baseline", "wayfarer-baseline/report.json"),
        "{later:?}"
    );
    assert!(pair(&later, "--fail-on", "new"), "{later:?}");
    assert!(pair(&later, "--annotations", "github"), "{later:?}");
}

#[test]
fn artifacts_exports_and_baselines() {
    let doc = book_workflow();
    let steps = steps(&doc);
    let uses = |prefix: &str| -> Vec<&Yaml> {
        steps
            .iter()
            .filter(|s| text(s, "uses").starts_with(prefix))
            .collect()
    };
    let upload = uses("actions/upload-artifact@v4");
    assert_eq!(upload.len(), 1, "one upload-artifact@v4 step");
    assert_eq!(
        text(upload[0], "if"),
        "always()",
        "upload even when it failed"
    );
    assert!(text(&upload[0]["with"], "path").contains("wayfarer-out"));

    assert!(steps
        .iter()
        .any(|s| text(s, "run").contains("wayfarer export --format playwright wayfarer-out")));

    let restore = uses("actions/cache/restore@");
    assert_eq!(restore.len(), 1, "the baseline is restored");
    assert!(has_key(&restore[0]["with"], "restore-keys"));
    let save = uses("actions/cache/save@");
    assert_eq!(save.len(), 1, "the next baseline is saved");
    assert!(text(save[0], "if").contains("github.ref == 'refs/heads/main'"));
    assert!(text(&save[0]["with"], "key").contains("github.run_id"));
}

#[test]
fn every_script_is_valid_bash() {
    let doc = book_workflow();
    for step in steps(&doc) {
        let script = text(&step, "run");
        if script.is_empty() {
            continue;
        }
        let out = std::process::Command::new("bash")
            .args(["-n", "-c", script])
            .output()
            .expect("run bash -n");
        assert!(
            out.status.success(),
            "{}\n{script}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_missing_or_broken_block_is_an_error() {
    assert!(workflow_block("# Strategies\n\n## Which\n").is_err());
    let no_block = format!("{SECTION}\n\ntext\n\n# Next\n\n```yaml\na: 1\n```\n");
    assert!(workflow_block(&no_block)
        .unwrap_err()
        .contains("no ```yaml block"));
    let broken = format!("{SECTION}\n\n```yaml\njobs: [a, b\n```\n");
    let block = workflow_block(&broken).unwrap();
    assert!(parse(&block).unwrap_err().contains("not YAML"), "{block}");
}
