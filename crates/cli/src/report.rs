//! After a run, and for `wayfarer report DIR`: rebuild every report from the run store,
//! then print the summary (text or JSON).

use std::path::Path;

use anyhow::{Context, Result};
use wayfarer_core::RunSummary;
use wayfarer_report::json::Summary;
use wayfarer_report::{SeededLine, Written};
use wayfarer_store::RunData;

use crate::args::RunArgs;
use crate::{print, seeded};

/// Read the store in `dir` and write report.html, report.json, junit.xml and traces.
pub fn rebuild(dir: &Path) -> Result<(RunData, Option<Vec<SeededLine>>, Written)> {
    let data = wayfarer_store::load(dir)?;
    let seeded = data
        .meta
        .setup
        .app
        .as_deref()
        .filter(|_| data.meta.setup.app_bugs != Some(false))
        .and_then(wayfarer_testapps::App::from_name)
        .map(|app| seeded::found(app, &data.summary));
    let written = wayfarer_report::write_all(&data, seeded.as_deref())
        .with_context(|| format!("cannot write the reports into {}", dir.display()))?;
    Ok((data, seeded, written))
}

/// Write the reports of the run in `dir` and print its summary; returns the exit code
/// (0 no failure, 1 failures).
pub fn emit(dir: &Path, args: &RunArgs) -> Result<i32> {
    let (data, seeded, written) = rebuild(dir)?;
    let summary = &data.summary;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&Summary {
                summary,
                seeded: seeded.as_deref()
            })?
        );
    } else if !args.quiet {
        print!("{}", print::summary_text(summary));
        if let Some(seeded) = &seeded {
            print!("{}", seeded::text(seeded));
        }
        println!("Report: {}", written.html.display());
        if !written.traces.is_empty() {
            println!(
                "Traces: {} (wayfarer replay / minimize TRACE; wayfarer export --format playwright {})",
                dir.join("traces").display(),
                dir.display()
            );
        }
    }
    Ok(exit_code(summary))
}

/// 2 when the environment ended the run early (the report says why), else 1 when the run
/// found failures, else 0.
pub fn exit_code(summary: &RunSummary) -> i32 {
    if summary.ended_by_environment {
        2
    } else if summary.failures.is_empty() {
        0
    } else {
        1
    }
}

/// `wayfarer report DIR`.
pub fn command(dir: &Path) -> Result<i32> {
    let (data, _, written) = rebuild(dir)?;
    if !data.complete {
        eprintln!(
            "note: the run in {} did not finish; the reports hold its {} recorded steps",
            dir.display(),
            data.steps.len()
        );
    }
    println!("{}", written.html.display());
    println!("{}", written.json.display());
    println!("{}", written.junit.display());
    for t in &written.traces {
        println!("{}", t.display());
    }
    Ok(0)
}
