//! `wayfarer export --format playwright DIR`: Playwright Test specs from a run's traces
//! (a minimised trace, `NAME.min.json`, stands in for its `NAME.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use wayfarer_export::{NamedTrace, PlaywrightOptions};

use wayfarer_run::trace::read_trace;

/// The traces of a run directory by name, the minimised version of each when present.
fn traces(dir: &Path) -> Result<Vec<NamedTrace>> {
    let tdir = dir.join("traces");
    let entries = std::fs::read_dir(&tdir).with_context(|| {
        format!(
            "cannot read {}; give a run directory written by `wayfarer explore` (it has traces/ when failures were found)",
            tdir.display()
        )
    })?;
    let mut by_name: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    // Plain names first, so a `.min.json` read later replaces its original.
    files.sort_by_key(|p| (p.to_string_lossy().ends_with(".min.json"), p.clone()));
    for p in files {
        let stem = p.file_stem().unwrap_or_default().to_string_lossy();
        let name = stem.strip_suffix(".min").unwrap_or(&stem).to_string();
        by_name.insert(name, p);
    }
    let mut out = Vec::new();
    for (name, path) in by_name {
        match read_trace(&path) {
            Ok(trace) => out.push(NamedTrace { name, trace }),
            Err(e) => meprintln!("warning: skipped {}: {e:#}", path.display()),
        }
    }
    Ok(out)
}

pub fn command(format: &str, dir: &Path, out: Option<&Path>, chrome: Option<&str>) -> Result<i32> {
    if format != "playwright" {
        bail!("unknown export format {format:?}; available: playwright");
    }
    let traces = traces(dir)?;
    if traces.is_empty() {
        bail!(
            "no trace in {}: the run found no failure to turn into a test",
            dir.join("traces").display()
        );
    }
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.join("playwright"));
    // The config points Playwright at the same Chromium wayfarer uses; none found is
    // not fatal here (Playwright's own browsers can stand in).
    let chromium = match wayfarer_browser::find_chrome(chrome) {
        Ok(p) => Some(p.to_string_lossy().into_owned()),
        Err(e) => {
            meprintln!("warning: {e}; playwright.config.ts will use Playwright's own browser");
            None
        }
    };
    let written = wayfarer_export::playwright(&traces, &PlaywrightOptions { chromium }, &out)?;
    let specs = written
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".spec.ts"))
        .count();
    mprintln!(
        "{specs} Playwright spec(s) from {} trace(s) in {}",
        traces.len(),
        out.display()
    );
    mprintln!(
        "run them: cd {} && npm install && npx playwright test",
        out.display()
    );
    Ok(0)
}
