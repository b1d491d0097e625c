//! The book (docs/) and the README hold together: every chapter is in the summary and
//! every summary entry is a chapter, every relative link reaches a file, and every
//! `#anchor` a heading of it (by mdBook's ids). External links are not fetched.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fence = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fence = !fence;
                return false;
            }
            !fence
        })
        .collect()
}

/// A heading's id as mdBook makes it: the text without markup, lower case, spaces as
/// dashes, other punctuation dropped; a repeated id gets `-1`, `-2`, ...
fn ids(text: &str) -> BTreeSet<String> {
    let link = regex::Regex::new(r"\[([^\]]*)\]\([^)]*\)").unwrap();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in prose(text) {
        let Some(h) = line.strip_prefix('#') else {
            continue;
        };
        let h = h.trim_start_matches('#');
        if !h.starts_with(' ') {
            continue;
        }
        let h = link.replace_all(h.trim(), "$1").replace(['`', '*'], "");
        let id: String = h
            .chars()
            .filter_map(|c| match c {
                c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_ascii_lowercase()),
                c if c.is_whitespace() => Some('-'),
                _ => None,
            })
            .collect();
        let n = seen.entry(id.clone()).or_insert(0);
        out.insert(if *n == 0 {
            id.clone()
        } else {
            format!("{id}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of the Markdown links of `text` (inline `[text](target)` only).
fn links(text: &str) -> Vec<String> {
    let inline = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let code = regex::Regex::new(r"`[^`]*`").unwrap();
    prose(text)
        .into_iter()
        .flat_map(|l| {
            let l = code.replace_all(l, "");
            inline
                .captures_iter(&l)
                .map(|c| c[1].to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// What is wrong with the relative links of the Markdown file `file` (named relative to
/// `base` in the messages).
fn broken(file: &Path, base: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = Vec::new();
    for target in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let dest = if path.is_empty() {
            file.to_path_buf()
        } else {
            file.parent().unwrap().join(path)
        };
        let name = file
            .strip_prefix(base)
            .unwrap_or(file)
            .display()
            .to_string();
        if !dest.exists() {
            out.push(format!("{name}: {target}: no such file"));
            continue;
        }
        if let Some(a) = anchor {
            let there = std::fs::read_to_string(&dest).unwrap_or_default();
            if !ids(&there).contains(a) {
                out.push(format!("{name}: {target}: no heading with that id"));
            }
        }
    }
    out
}

fn chapters() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("docs/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_relative_link_of_the_book_and_the_readme_reaches_its_file_and_heading() {
    let mut files = chapters();
    files.push(root().join("README.md"));
    let wrong: Vec<String> = files.iter().flat_map(|f| broken(f, &root())).collect();
    assert!(wrong.is_empty(), "broken links:\n{}", wrong.join("\n"));
}

#[test]
fn the_summary_lists_every_chapter_and_only_chapters() {
    let summary = std::fs::read_to_string(root().join("docs/src/SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = links(&summary).into_iter().collect();
    let files: BTreeSet<String> = chapters()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| n != "SUMMARY.md")
        .collect();
    assert_eq!(listed, files, "docs/src/SUMMARY.md against docs/src/*.md");
}

/// The checks themselves: a heading's id, a link to a missing file or heading.
#[test]
fn the_link_check_sees_a_missing_file_and_a_missing_heading() {
    assert_eq!(
        ids("# Run it in CI\n## The `[server]` table\n## Again\n## Again\n```\n# not a heading\n```\n"),
        ["again", "again-1", "run-it-in-ci", "the-server-table"]
            .map(String::from)
            .into()
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    std::fs::write(dir.join("b.md"), "# B\n## Here\n").unwrap();
    let a = dir.join("a.md");
    std::fs::write(
        &a,
        "[ok](b.md#here) [file](c.md) [anchor](b.md#there) [web](https://x.org/#y) `[code](d.md)`\n",
    )
    .unwrap();
    let text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(
        links(&text),
        ["b.md#here", "c.md", "b.md#there", "https://x.org/#y"]
    );
    assert_eq!(
        broken(&a, &dir),
        [
            "a.md: c.md: no such file",
            "a.md: b.md#there: no heading with that id"
        ]
    );
}
