//! `wayfarer minimize TRACE`: delta debugging over the trace's actions, replaying each
//! candidate from a reset and keeping it while the same failure signature appears.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use wayfarer_core::ddmin::{ddmin_with_loops, Verdict};
use wayfarer_core::replay::replay;
use wayfarer_core::trace::Trace;

use crate::args::TraceArgs;
use crate::trace_env;

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
    let mut t = trace_env::open(path, args)?;
    let n = t.actions.len();
    if !args.quiet {
        eprintln!(
            "wayfarer: minimising {} ({n} actions) against {}; keeping {}",
            path.display(),
            t.start_url,
            t.expected
        );
    }
    let indices: Vec<usize> = (0..n).collect();
    // The whole trace first: it must reproduce, and the pages it passes through show
    // the detours worth cutting in one replay each.
    let whole = replay(&mut t.env, &t.actions, &t.oracles, &t.expected, true);
    let whole = match whole {
        Ok(r) => r,
        Err(e) => {
            t.close();
            bail!("the browser failed while replaying the trace: {e}");
        }
    };
    if !args.quiet {
        eprintln!("  test 1: {n} actions → {}", verdict_text(whole.verdict()));
    }
    let mut tests = 1u32;
    let result = ddmin_with_loops(&indices, Some(whole.verdict()), &whole.loops(), |cand| {
        tests += 1;
        let actions: Vec<_> = cand.iter().map(|&i| t.actions[i].clone()).collect();
        let r = replay(&mut t.env, &actions, &t.oracles, &t.expected, true)?;
        if !args.quiet {
            eprintln!(
                "  test {tests}: {} actions → {}",
                cand.len(),
                verdict_text(r.verdict())
            );
        }
        Ok::<_, wayfarer_core::EnvError>(r.verdict())
    });
    let kept = match result {
        Ok(Some(kept)) => kept,
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
            bail!("the browser failed while minimising: {e}");
        }
    };
    // One more replay of the result, so a flaky failure cannot pass off a wrong answer.
    let actions: Vec<_> = kept.iter().map(|&i| t.actions[i].clone()).collect();
    let confirmed = replay(&mut t.env, &actions, &t.oracles, &t.expected, true)
        .map(|r| r.reproduced())
        .unwrap_or(false);
    let minimal = Trace {
        origin: format!(
            "minimised from {} ({n} → {} actions, {tests} replays)",
            path.display(),
            kept.len()
        ),
        steps: kept.iter().map(|&i| t.trace.steps[i].clone()).collect(),
        ..t.trace.clone()
    };
    t.close();
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| default_out(path));
    std::fs::write(&out, minimal.to_json())
        .with_context(|| format!("cannot write {}", out.display()))?;
    if !confirmed {
        eprintln!(
            "warning: the minimal trace did not reproduce on its confirming replay; the \
             failure may be flaky (check with `wayfarer replay --repeat 5 {}`)",
            out.display()
        );
    }
    println!(
        "minimal trace: {} of {n} actions ({tests} replays, {:.1}s) → {}",
        kept.len(),
        started.elapsed().as_secs_f64(),
        out.display()
    );
    for (k, st) in minimal.steps.iter().enumerate() {
        println!("  {}. {}", k + 1, st.describe());
    }
    Ok(0)
}

fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::FailAt(k) => format!("fails after {}", k + 1),
        Verdict::Pass => "passes".into(),
    }
}
