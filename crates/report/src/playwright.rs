//! `playwright/`: the run's failures as a Playwright project a team can keep, one
//! regression test per failure (wayfarer-export writes the specs). Written on demand
//! (`wayfarer report DIR --format playwright`, or `wayfarer export DIR`): a run writes
//! its traces, and a later `wayfarer minimize` may shorten them first.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wayfarer_core::Trace;
use wayfarer_export::{NamedTrace, PlaywrightOptions};

use crate::format::{Format, Input};

/// The project's folder in the run directory.
pub const FOLDER: &str = "playwright";

pub struct Playwright;

impl Format for Playwright {
    fn name(&self) -> &'static str {
        "playwright"
    }
    fn about(&self) -> &'static str {
        "a Playwright project with a regression test per failure (on demand)"
    }
    fn file(&self) -> &'static str {
        "playwright/"
    }
    fn every_run(&self) -> bool {
        false
    }
    fn render(&self, input: &Input<'_>) -> String {
        match project(input) {
            Ok(files) => files
                .iter()
                .map(|(path, text)| format!("// {}\n{text}", path.display()))
                .collect::<Vec<_>>()
                .join("\n"),
            Err(e) => format!("// {e}\n"),
        }
    }
    fn files(&self, input: &Input<'_>) -> Result<Vec<(PathBuf, String)>, String> {
        let files = project(input)?;
        Ok(files
            .into_iter()
            .map(|(path, text)| (Path::new(FOLDER).join(path), text))
            .collect())
    }
}

/// The project's files by their paths inside it; none when the run found no failure.
fn project(input: &Input<'_>) -> Result<Vec<(PathBuf, String)>, String> {
    let traces = traces(&input.data.dir.join("traces"));
    project_of(&traces, input.chromium)
}

/// The project of `traces`, its tests launching `chromium`.
pub fn project_of(
    traces: &[NamedTrace],
    chromium: Option<&str>,
) -> Result<Vec<(PathBuf, String)>, String> {
    let opts = PlaywrightOptions {
        chromium: chromium.map(str::to_string),
    };
    wayfarer_export::playwright_files(traces, &opts).map_err(|e| e.to_string())
}

/// The traces in `dir` by name, the minimised version of each (`NAME.min.json`) where
/// there is one; a trace that cannot be read is skipped with a warning.
pub fn traces(dir: &Path) -> Vec<NamedTrace> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    // Plain names first, so a `.min.json` read later replaces its original.
    files.sort_by_key(|p| (p.to_string_lossy().ends_with(".min.json"), p.clone()));
    let mut by_name: BTreeMap<String, PathBuf> = BTreeMap::new();
    for p in files {
        let stem = p.file_stem().unwrap_or_default().to_string_lossy();
        let name = stem.strip_suffix(".min").unwrap_or(&stem).to_string();
        by_name.insert(name, p);
    }
    let mut out = Vec::new();
    for (name, path) in by_name {
        let read = std::fs::read_to_string(&path).map_err(|e| e.to_string());
        match read.and_then(|text| Trace::parse(&text).map_err(|e| e.to_string())) {
            Ok(trace) => out.push(NamedTrace { name, trace }),
            Err(e) => tracing::warn!("skipped {}: {e}", path.display()),
        }
    }
    out
}
