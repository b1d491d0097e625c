//! `wayfarer export DIR`: the run's failures as a Playwright project (the `playwright`
//! format of wayfarer-report) written where `--out` says; only the run's traces are read
//! (a minimised trace, `NAME.min.json`, stands in for its `NAME.json`).

use std::path::Path;

use anyhow::{bail, Context, Result};
use wayfarer_report::playwright;

/// The Chromium binary exported tests point at; none found is not fatal here
/// (Playwright's own browsers can stand in).
pub fn chromium(chrome: Option<&str>) -> Option<String> {
    match wayfarer_browser::find_chrome(chrome) {
        Ok(p) => Some(p.to_string_lossy().into_owned()),
        Err(e) => {
            meprintln!("warning: {e}; playwright.config.ts will use Playwright's own browser");
            None
        }
    }
}

pub fn command(format: &str, dir: &Path, out: Option<&Path>, chrome: Option<&str>) -> Result<i32> {
    if format != "playwright" {
        bail!("unknown export format {format:?}; available: playwright");
    }
    let tdir = dir.join("traces");
    std::fs::read_dir(&tdir).with_context(|| {
        format!(
            "cannot read {}; give a run directory written by `wayfarer explore` (it has traces/ when failures were found)",
            tdir.display()
        )
    })?;
    let traces = playwright::traces(&tdir);
    if traces.is_empty() {
        bail!(
            "no trace in {}: the run found no failure to turn into a test",
            tdir.display()
        );
    }
    let files =
        playwright::project_of(&traces, chromium(chrome).as_deref()).map_err(anyhow::Error::msg)?;
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.join(playwright::FOLDER));
    let mut specs = 0;
    for (path, text) in &files {
        let path = out.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        specs += usize::from(path.to_string_lossy().ends_with(".spec.ts"));
    }
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
