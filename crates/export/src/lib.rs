//! wayfarer-export: Playwright Test specs from wayfarer traces.
//!
//! [`playwright`] turns the failure traces of a run into a Playwright project a team can
//! keep: `tests/<trace>.spec.ts` (one regression test per failure: it repeats the login
//! and the recorded steps and asserts that no page error, console error or HTTP error of
//! the application happens), `tests/wayfarer.ts` (their support code),
//! `playwright.config.ts` and `package.json`. Secrets stay `process.env` reads. A trace
//! of a run with a specification (`--spec`) also gets `tests/<trace>.properties.js`, the
//! bundle its test checks after every step.

mod locator;
mod project;
mod render;
mod spec;
mod ts;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use url::Url;
use wayfarer_core::Trace;

pub use project::PLAYWRIGHT_VERSION;

use spec::{spec, SpecContext};

/// A trace and the name it goes by (its file stem, e.g. `exception-1`).
#[derive(Clone, Debug)]
pub struct NamedTrace {
    pub name: String,
    pub trace: Trace,
}

/// What a feature's test checks once its steps ran (wayfarer's `features`): the page
/// the exploration ended on, as a person would check it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FeatureCheck {
    /// The feature's name ("Add Owner").
    pub label: String,
    pub score: f64,
    /// The page after the last step: its URL (checked up to ids) and its title.
    pub end_url: String,
    pub end_title: String,
    /// Other features whose test is this one.
    pub also: Vec<String>,
}

/// A feature's test: its steps as a trace (no failure expected) and what to check.
#[derive(Clone, Debug)]
pub struct FeatureSpec {
    pub name: String,
    pub trace: Trace,
    pub check: FeatureCheck,
}

/// How to export.
#[derive(Clone, Debug, Default)]
pub struct PlaywrightOptions {
    /// The Chromium binary the tests launch (`launchOptions.executablePath`); `None`
    /// leaves Playwright its own browsers.
    pub chromium: Option<String>,
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("trace {name}: start URL {url:?} is not a URL: {source}")]
    StartUrl {
        name: String,
        url: String,
        #[source]
        source: url::ParseError,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Write a Playwright project for `traces` into `out_dir` (created when missing) and
/// return the files written. Nothing is written without traces.
pub fn playwright(
    traces: &[NamedTrace],
    opts: &PlaywrightOptions,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ExportError> {
    write_project(playwright_files(traces, opts)?, out_dir)
}

/// Write a Playwright project with one test per feature into `out_dir`: each repeats
/// the feature's steps, then checks the page it ends on and that nothing failed.
pub fn playwright_features(
    specs: &[FeatureSpec],
    opts: &PlaywrightOptions,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ExportError> {
    let items: Vec<Item> = specs
        .iter()
        .map(|t| Item {
            name: &t.name,
            trace: &t.trace,
            check: Some(&t.check),
        })
        .collect();
    project(&items, opts, out_dir)
}

/// One spec to write.
struct Item<'a> {
    name: &'a str,
    trace: &'a Trace,
    check: Option<&'a FeatureCheck>,
}

fn project(
    traces: &[Item],
    opts: &PlaywrightOptions,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ExportError> {
    write_project(project_files(traces, opts)?, out_dir)
}

/// Write `files` (paths inside the project) into `out_dir`; the paths written.
fn write_project(
    files: Vec<(PathBuf, String)>,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ExportError> {
    let mut written = Vec::with_capacity(files.len());
    for (path, text) in files {
        let path = out_dir.join(path);
        write(&path, &text)?;
        written.push(path);
    }
    Ok(written)
}

/// The files of a Playwright project for `traces`, by their paths inside the project,
/// without writing them (none without traces).
pub fn playwright_files(
    traces: &[NamedTrace],
    opts: &PlaywrightOptions,
) -> Result<Vec<(PathBuf, String)>, ExportError> {
    let items: Vec<Item> = traces
        .iter()
        .map(|t| Item {
            name: &t.name,
            trace: &t.trace,
            check: None,
        })
        .collect();
    project_files(&items, opts)
}

fn project_files(
    traces: &[Item],
    opts: &PlaywrightOptions,
) -> Result<Vec<(PathBuf, String)>, ExportError> {
    let Some(first) = traces.first() else {
        return Ok(Vec::new());
    };
    let starts = traces
        .iter()
        .map(|t| {
            Url::parse(&t.trace.setup.start_url).map_err(|source| ExportError::StartUrl {
                name: t.name.to_string(),
                url: t.trace.setup.start_url.clone(),
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let base = &starts[0];
    let test_id_attr = &test_id_attribute(traces.iter().map(|t| t.trace));
    let mut files = vec![
        (
            PathBuf::from("playwright.config.ts"),
            project::config(
                base,
                opts.chromium.as_deref(),
                test_id_attr,
                &first.trace.setup.browser,
            ),
        ),
        (PathBuf::from("package.json"), project::package_json()),
        (
            Path::new("tests").join("wayfarer.ts"),
            project::SUPPORT_TS.to_string(),
        ),
    ];
    let names = file_names(traces.iter().map(|t| t.name));
    for ((t, start), name) in traces.iter().zip(&starts).zip(names) {
        // The specification the trace's run checked, bundled next to its test.
        let spec_file = t.trace.setup.spec.as_ref().map(|s| {
            let file = format!("{name}.properties.js");
            files.push((Path::new("tests").join(&file), s.bundle.clone()));
            file
        });
        let cx = SpecContext {
            trace_name: t.name,
            start,
            base,
            test_id_attr,
            check: t.check,
            spec_file: spec_file.as_deref(),
        };
        let path = Path::new("tests").join(format!("{name}.spec.ts"));
        files.push((path, spec(t.trace, &cx)));
    }
    Ok(files)
}

fn write(path: &Path, text: &str) -> Result<(), ExportError> {
    let err = |source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)
}

/// The test id attribute the traces' locators use most (`data-testid` on a tie or when
/// none does): Playwright has one `testIdAttribute` per project; locators by another
/// attribute are written as attribute selectors.
fn test_id_attribute<'a>(traces: impl Iterator<Item = &'a Trace>) -> String {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for s in traces.flat_map(|t| &t.steps) {
        if let Some(target) = s.action.target.as_deref() {
            let c = locator::chosen(target, s.element.as_ref());
            if c.kind == wayfarer_core::trace::LocatorKind::TestId {
                *count.entry(c.by).or_default() += 1;
            }
        }
    }
    let best = count.values().copied().max().unwrap_or(0);
    let testid = count.get("data-testid").copied().unwrap_or(0);
    match count.into_iter().find(|(_, n)| *n == best) {
        Some((attr, _)) if best > testid => attr,
        _ => "data-testid".to_string(),
    }
}

/// File stems for the specs: the trace names with anything but ASCII letters, digits,
/// `-` and `_` replaced (no path can escape `tests/`), never empty, unique regardless of
/// case (a `-2` suffix).
fn file_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut used = BTreeSet::new();
    names
        .map(|n| {
            let mut s = String::new();
            for c in n.chars() {
                let keep = c.is_ascii_alphanumeric() || matches!(c, '-' | '_');
                if keep {
                    s.push(c);
                } else if !s.ends_with('-') {
                    s.push('-');
                }
            }
            let mut stem = s.trim_matches('-').chars().take(80).collect::<String>();
            if stem.is_empty() {
                stem = "trace".into();
            }
            let mut unique = stem.clone();
            let mut k = 2;
            while !used.insert(unique.to_lowercase()) {
                unique = format!("{stem}-{k}");
                k += 1;
            }
            unique
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_sanitised_and_unique() {
        let names = file_names(
            [
                "exception-1",
                "../../etc/passwd",
                "a b/c",
                "",
                "...",
                "v1.2",
                "Exception-1",
                "tëst",
            ]
            .into_iter(),
        );
        assert_eq!(
            names,
            vec![
                "exception-1",
                "etc-passwd",
                "a-b-c",
                "trace",
                "trace-2",
                "v1-2",
                "Exception-1-2",
                "t-st"
            ]
        );
    }
}
