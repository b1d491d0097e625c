//! wayfarer-report: every report of a run, made from its store alone (`RunData`), so
//! `wayfarer report DIR` can rebuild them after the run, even a killed one.
//!
//! - `html`: `report.html`, one self-contained page (summary, failures, state graph,
//!   features and their tests, plots)
//! - `json`: `report.json`, the `--json` summary plus the failures with their traces
//! - `junit`: `junit.xml`, one test case per unique failure plus one for the run
//! - `ctrf`: `ctrf.json`, the Common Test Report Format
//! - `text`: `summary.txt`, the summary a terminal shows at the run's end
//! - `playwright`: `playwright/`, a Playwright project with a regression test per failure
//!   (on demand: `wayfarer report DIR --format playwright`, or `wayfarer export`)
//! - `traces`: `traces/*.json`, one replayable trace per unique failure
//!
//! The file formats are listed once, in `format::FORMATS`.

pub mod baseline;
pub mod chart;
pub mod ci;
pub mod ctrf;
pub mod format;
pub mod html;
pub mod json;
pub mod junit;
pub mod playwright;
pub mod text;
pub mod traces;

use std::path::{Path, PathBuf};

use format::Format as _;
use serde::{Deserialize, Serialize};
use wayfarer_store::RunData;

/// A seeded bug of a bundled application and whether the run found it (demo runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeededLine {
    pub id: String,
    pub description: String,
    /// The fewest actions from a reset that reach it.
    pub min_actions: u32,
    /// The step its failure was first seen at, when found.
    pub found_at_step: Option<u64>,
    /// The actions its reported steps to reproduce have (the minimal trace's, when
    /// shrinking found one), when found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_actions: Option<usize>,
    /// Its failure's verdict, when found: "reproduced 3/3", "flaky 1/3", "not reproduced
    /// 0/3", or "unconfirmed (never replayed)" (`FailureLine::verdict_text`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduced: Option<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("cannot write {path}: {source}")]
pub struct WriteError {
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

pub(crate) fn write_file(path: &Path, text: &str) -> Result<(), WriteError> {
    std::fs::write(path, text).map_err(|source| WriteError {
        path: path.display().to_string(),
        source,
    })
}

/// `text` on one line (whitespace runs made one space), cut to `max` characters: how a
/// failure's message reads in a list (terminal, diff, CI output).
pub fn one_line(text: &str, max: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let joined = words.join(" ");
    if joined.chars().count() <= max {
        joined
    } else {
        let cut: String = joined.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}

/// What `write_all` wrote.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// The page people open (`report.html`).
    pub html: PathBuf,
    /// Every format's file, in `format::FORMATS` order.
    pub files: Vec<PathBuf>,
    pub traces: Vec<PathBuf>,
}

/// Write every report of `data` into its run directory.
pub fn write_all(data: &RunData, seeded: Option<&[SeededLine]>) -> Result<Written, WriteError> {
    write(data, seeded, None, &format::every_run())
}

/// Write the traces and the reports of `formats` into the run directory of `data`.
pub fn write(
    data: &RunData,
    seeded: Option<&[SeededLine]>,
    chromium: Option<&str>,
    formats: &[&dyn format::Format],
) -> Result<Written, WriteError> {
    let dir = &data.dir;
    let traces = traces::write(data)?;
    let input = format::Input {
        data,
        seeded,
        chromium,
    };
    let mut files = Vec::new();
    for f in formats {
        let made = f.files(&input).map_err(|e| WriteError {
            path: dir.join(f.file()).display().to_string(),
            source: std::io::Error::other(e),
        })?;
        for (name, text) in made {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|source| WriteError {
                    path: parent.display().to_string(),
                    source,
                })?;
            }
            write_file(&path, &text)?;
            files.push(path);
        }
    }
    Ok(Written {
        html: dir.join(html::Html.file()),
        files,
        traces,
    })
}
