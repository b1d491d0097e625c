//! `wayfarer minimize TRACE`: delta debugging over the trace's actions, replaying each
//! candidate from a reset (and the `[reset]` hook, when configured) and keeping it while
//! the same failure signature appears; the engine is `wayfarer_core::minimize`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use wayfarer_core::ddmin::Verdict;
use wayfarer_core::minimize::{minimize, Limits};
use wayfarer_core::trace::Trace;

use crate::args::TraceArgs;
use crate::explore::printer;

/// `NAME.min.json` next to `NAME.json`.
pub fn default_out(trace: &Path) -> PathBuf {
    let stem = trace
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trace".into());
    let stem = stem.strip_suffix(".min").unwrap_or(&stem).to_string();
    trace.with_file_name(format!("{stem}.min.json"))
}

/// Returns the exit code: 0 with a minimal trace written.
pub fn command(path: &Path, args: &TraceArgs, out: Option<&Path>) -> Result<i32> {
    let started = Instant::now();
    let mut say = printer(!args.quiet);
    let mut t = wayfarer_run::trace::open(path, &crate::replay::place(args), &mut say)?;
    let n = t.steps.len();
    if !args.quiet {
        meprintln!(
            "wayfarer: minimising {} ({n} actions) against {}; keeping {}",
            path.display(),
            t.start_url,
            t.expected
        );
    }
    let quiet = args.quiet;
    let mut progress = |test: u32, len: usize, v: Verdict| {
        if !quiet {
            meprintln!("  test {test}: {len} actions → {}", verdict_text(v));
        }
    };
    let result = minimize(
        &mut t.env,
        &t.steps,
        &t.oracles,
        &t.expected,
        (Limits::default(), &mut Default::default()),
        &mut progress,
    );
    let hooked = t.env.refreshes();
    let m = match result {
        Ok(Some(m)) => m,
        Ok(None) => {
            let what = format!("{}: {}", t.trace.expected.kind, t.trace.expected.message);
            t.close();
            bail!(
                "{} does not reproduce its failure ({what}); there is nothing to minimise \
                 (try `wayfarer replay --repeat 5` to see whether it is flaky)",
                path.display()
            );
        }
        Err(e) => {
            t.close();
            bail!("minimising stopped: {e}");
        }
    };
    let outside_state = m.outside_state.clone().or(t.trace.outside_state.clone());
    let minimal = Trace {
        origin: format!(
            "minimised from {} ({n} → {} actions, {} replays{})",
            path.display(),
            m.kept.len(),
            m.tests,
            if hooked {
                ", a fresh application before each"
            } else {
                ""
            }
        ),
        outside_state: outside_state.clone(),
        steps: m.kept.iter().map(|&i| t.trace.steps[i].clone()).collect(),
        ..t.trace.clone()
    };
    t.close();
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| default_out(path));
    std::fs::write(&out, minimal.to_json())
        .with_context(|| format!("cannot write {}", out.display()))?;
    if !m.confirmed() {
        meprintln!(
            "warning: the minimal trace did not reproduce on its confirming replay; the \
             failure may be flaky (check with `wayfarer replay --repeat 5 {}`)",
            out.display()
        );
    }
    if let Some(why) = &m.outside_state {
        meprintln!("warning: the failure {why}; the trace was not shrunk");
    }
    mprintln!(
        "minimal trace: {} of {n} actions ({} replays, {:.1}s) → {}",
        m.kept.len(),
        m.tests,
        started.elapsed().as_secs_f64(),
        out.display()
    );
    for (k, st) in minimal.steps.iter().enumerate() {
        mprintln!("  {}. {}", k + 1, st.describe());
    }
    refresh_report(&out);
    Ok(0)
}

/// A minimal trace written into a run's `traces/` shows in that run's report.html, with
/// its warning; a report that cannot be rebuilt costs a warning, not the trace.
fn refresh_report(out: &Path) {
    let Some(run) = out
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "traces"))
        .and_then(Path::parent)
        .filter(|run| run.join("run.sqlite").is_file())
    else {
        return;
    };
    match crate::report::rebuild(run) {
        Ok((_, _, written)) => mprintln!("report updated: {}", written.html.display()),
        Err(e) => meprintln!("warning: the run's report was not updated: {e:#}"),
    }
}

fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::FailAt(k) => format!("fails after {}", k + 1),
        Verdict::Pass => "passes".into(),
    }
}
