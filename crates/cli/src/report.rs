//! After a run, and for `wayfarer report DIR`: rebuild every report from the run store,
//! then print the summary (text or JSON).

use std::path::Path;

use anyhow::{Context, Result};
use wayfarer_core::findings::FailOn;
use wayfarer_core::RunSummary;
use wayfarer_report::json::Summary;
use wayfarer_report::{SeededLine, Written};
use wayfarer_store::RunData;

use crate::args::RunArgs;
use crate::seeded;
use wayfarer_report::format::Format as _;

/// Read the store in `dir` and write every format's report (`format::FORMATS`) and traces.
pub fn rebuild(dir: &Path) -> Result<(RunData, Option<Vec<SeededLine>>, Written)> {
    let data = wayfarer_store::load(dir)?;
    let seeded = seeded_of(&data);
    let written = wayfarer_report::write_all(&data, seeded.as_deref())
        .with_context(|| format!("cannot write the reports into {}", dir.display()))?;
    Ok((data, seeded, written))
}

/// For a run of a bundled demo app with its bugs on: which seeded bugs it found.
fn seeded_of(data: &RunData) -> Option<Vec<SeededLine>> {
    data.meta
        .setup
        .app
        .as_deref()
        .filter(|_| data.meta.setup.app_bugs != Some(false))
        .and_then(wayfarer_testapps::App::from_name)
        .map(|app| seeded::found(app, &data.summary))
}

/// Write the reports of the run in `dir` and print its summary; returns the exit code
/// (0 no failure, 1 failures).
pub fn emit(dir: &Path, args: &RunArgs) -> Result<i32> {
    let (data, seeded, written) = rebuild(dir)?;
    let summary = &data.summary;
    if args.json {
        mprintln!(
            "{}",
            serde_json::to_string(&Summary {
                summary,
                seeded: seeded.as_deref()
            })?
        );
    } else if !args.quiet {
        // The terminal summary is the `text` format, as summary.txt holds it.
        let input = wayfarer_report::format::Input {
            data: &data,
            seeded: seeded.as_deref(),
            chromium: None,
        };
        mprint!("{}", wayfarer_report::text::Text.render(&input));
        mprintln!("Report: {}", written.html.display());
        if !written.traces.is_empty() {
            mprintln!(
                "Traces: {} (wayfarer replay / minimize TRACE; wayfarer export --format playwright {})",
                dir.join("traces").display(),
                dir.display()
            );
        }
    }
    if args.annotations.as_deref() == Some("github") {
        mprint!("{}", wayfarer_report::ci::github_annotations(&data));
    }
    if let Some(path) = &args.summary_md {
        // Appended: GitHub's step summary file may already hold other steps' output.
        let md = wayfarer_report::ci::summary_markdown(&data, None);
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, md.as_bytes()));
        if let Err(e) = written {
            meprintln!(
                "warning: --summary-md: cannot write {}: {e}",
                path.display()
            );
        }
    }
    Ok(exit_code(summary, &args.fail_on))
}

/// 2 when the environment ended the run early (the report says why), else 1 when the run
/// found a failure `fail_on` counts, else 0.
pub fn exit_code(summary: &RunSummary, fail_on: &FailOn) -> i32 {
    if summary.ended_by_environment {
        2
    } else if summary.failures.iter().any(|f| fail_on.fails(f)) {
        1
    } else {
        0
    }
}

/// `wayfarer report DIR [--format NAME]...`.
pub fn command(dir: &Path, formats: &[String]) -> Result<i32> {
    let chosen = formats
        .iter()
        .map(|name| {
            wayfarer_report::format::format(name).ok_or_else(|| {
                anyhow::anyhow!(
                    "--format: no format {name:?}; available: {}",
                    wayfarer_report::format::names().join(", ")
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let data = wayfarer_store::load(dir)?;
    let seeded = seeded_of(&data);
    let formats = if chosen.is_empty() {
        wayfarer_report::format::every_run()
    } else {
        chosen
    };
    let chromium = formats
        .iter()
        .any(|f| f.name() == "playwright")
        .then(|| crate::export::chromium(None))
        .flatten();
    let written = wayfarer_report::write(&data, seeded.as_deref(), chromium.as_deref(), &formats)
        .with_context(|| format!("cannot write the reports into {}", dir.display()))?;
    if !data.complete {
        meprintln!(
            "note: the run in {} did not finish; the reports hold its {} recorded steps",
            dir.display(),
            data.steps.len()
        );
    }
    for f in &written.files {
        mprintln!("{}", f.display());
    }
    for t in &written.traces {
        mprintln!("{}", t.display());
    }
    Ok(0)
}

/// `wayfarer diff A B`: B's failures against A's; 1 when B has new ones.
pub fn diff(a: &Path, b: &Path) -> Result<i32> {
    use wayfarer_report::baseline::{compare, diff_text, load};
    let a = load(a).context("A")?;
    let b = load(b).context("B")?;
    mprint!("{}", diff_text(&a, &b));
    let mut lines = b.failures.clone();
    Ok(i32::from(compare(&a, &b.target, &mut lines).new > 0))
}
