//! `bench`: parse the matrix, hand it to wayfarer-bench, print where the results are.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use wayfarer_bench::{run_bench_with, Plan, Target};
use wayfarer_browser::find_chrome;
use wayfarer_core::Budget;
use wayfarer_testapps::App;

use crate::args::BenchArgs;
use wayfarer_run::app::{check_reachable, parse_url};

/// Seeds from "N" (1..=N), "A..B" or "A,B,C".
pub fn parse_seeds(raw: &str) -> Result<Vec<u64>> {
    let bad =
        || anyhow!("invalid --seeds {raw:?}: give a count (3), a range (4..6) or a list (1,5,9)");
    let raw = raw.trim();
    let seeds: Vec<u64> = if let Some((a, b)) = raw.split_once("..") {
        let (a, b): (u64, u64) = (
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        );
        if a > b {
            return Err(bad());
        }
        (a..=b).collect()
    } else if raw.contains(',') {
        raw.split(',')
            .map(|s| s.trim().parse::<u64>().map_err(|_| bad()))
            .collect::<Result<_>>()?
    } else {
        let n: u64 = raw.parse().map_err(|_| bad())?;
        (1..=n).collect()
    };
    if seeds.is_empty() || seeds.len() > 1000 {
        return Err(bad());
    }
    Ok(seeds)
}

/// Bundled applications from "all" or a comma list.
pub fn parse_apps(raw: &str) -> Result<Vec<App>> {
    if raw.trim() == "all" {
        return Ok(App::all_apps().to_vec());
    }
    // The delegated board is a variant of board: benchmarked only when named.
    let mut names: Vec<&str> = App::all_apps().iter().map(|a| a.name()).collect();
    names.push(App::BoardDelegated.name());
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            App::from_name(s)
                .filter(|a| App::all_apps().contains(a) || *a == App::BoardDelegated)
                .ok_or_else(|| {
                    anyhow!(
                        "unknown app {s:?} in --apps; available: all, {}",
                        names.join(", ")
                    )
                })
        })
        .collect()
}

/// `--apps` with an apps file: each name is one of the file's applications or a bundled
/// one, in the order given.
fn pick_apps(raw: &str, file: Vec<wayfarer_bench::AppSpec>) -> Result<Vec<Target>> {
    let mut file: Vec<Option<wayfarer_bench::AppSpec>> = file.into_iter().map(Some).collect();
    let mut out = Vec::new();
    for name in list(raw) {
        if let Some(slot) = file
            .iter_mut()
            .find(|a| a.as_ref().is_some_and(|a| a.name == name))
        {
            let app = slot.take().expect("found above");
            out.push(Target::Served(std::sync::Arc::new(app)));
            continue;
        }
        let known: Vec<String> = file.iter().flatten().map(|a| a.name.clone()).collect();
        let bundled = parse_apps(&name).map_err(|_| {
            anyhow!(
                "unknown app {name:?} in --apps; the apps file lists: {}; bundled: {}",
                known.join(", "),
                App::all_apps()
                    .iter()
                    .map(|a| a.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        out.extend(bundled.into_iter().map(Target::Bundled));
    }
    Ok(out)
}

fn list(raw: &str) -> Vec<String> {
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "none")
        .map(str::to_string)
        .collect()
}

fn default_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("wayfarer").join("peers")
}

pub fn command(args: &BenchArgs) -> Result<i32> {
    let budget: Budget = args.budget.parse()?;
    let seeds = parse_seeds(&args.seeds)?;
    let file_apps = match &args.apps_file {
        Some(f) => wayfarer_bench::apps::load(f)?,
        None => Vec::new(),
    };
    let mut targets: Vec<Target> = match (&args.apps, args.url.is_empty(), file_apps.is_empty()) {
        (Some(a), _, false) => pick_apps(a, file_apps)?,
        (Some(a), _, true) => parse_apps(a)?.into_iter().map(Target::Bundled).collect(),
        (None, _, false) => file_apps
            .into_iter()
            .map(|a| Target::Served(std::sync::Arc::new(a)))
            .collect(),
        (None, true, true) => App::all_apps()
            .iter()
            .copied()
            .map(Target::Bundled)
            .collect(),
        (None, false, true) => Vec::new(),
    };
    for raw in &args.url {
        let url = parse_url(raw)?;
        check_reachable(&url)?;
        targets.push(Target::Url(url));
    }
    if targets.is_empty() {
        bail!("nothing to benchmark: give --apps or --url");
    }
    let strategies = list(&args.strategies);
    for s in &strategies {
        if wayfarer_strategies::registry::kind(s).is_none() {
            bail!(
                "unknown strategy {s:?} in --strategies; available: {}",
                wayfarer_strategies::registry::names().join(", ")
            );
        }
    }
    let peers = list(&args.peer);
    for p in &peers {
        if !wayfarer_bench::peer::NAMES.contains(&p.as_str()) {
            bail!(
                "unknown peer {p:?} in --peer; available: none, {}",
                wayfarer_bench::peer::NAMES.join(", ")
            );
        }
    }
    let mut inferences = Vec::new();
    for name in list(&args.inference) {
        let i = wayfarer_core::infer::parse_inference(&name)
            .map_err(|e| anyhow::anyhow!("in --inference: {e}"))?;
        if !inferences.contains(&i) {
            inferences.push(i);
        }
    }
    if inferences.is_empty() {
        inferences.push(None);
    }
    let mut workers = Vec::new();
    for w in list(&args.workers) {
        let n: u32 = match w.parse::<wayfarer_run::Workers>() {
            Ok(wayfarer_run::Workers::Auto) => wayfarer_bench::plan::AUTO,
            Ok(wayfarer_run::Workers::Count(n)) => n,
            Err(e) => bail!("in --workers: {e}"),
        };
        if !workers.contains(&n) {
            workers.push(n);
        }
    }
    if workers.is_empty() {
        workers.push(1);
    }
    if strategies.is_empty() && peers.is_empty() {
        bail!("nothing to run: give --strategies and/or --peer");
    }
    let (config, _secrets) = wayfarer_run::config::load(args.config.as_deref())?;
    let explicit = args.chrome.clone().or(config.browser.chrome.clone());
    let chrome = Some(find_chrome(explicit.as_deref())?);
    let plan = Plan {
        targets,
        strategies,
        inferences,
        workers,
        peers,
        seeds,
        budget,
        out: args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("wayfarer-bench")),
        config,
        chrome,
        peer_cache: args.peer_cache.clone().unwrap_or_else(default_cache),
        episode_steps: args.episode_steps,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        resume: args.resume,
        app_latency: std::time::Duration::from_millis(args.app_latency_ms),
        shrink: args.shrink.unwrap_or_default(),
    };
    let quiet = args.quiet;
    if !quiet {
        meprintln!(
            "wayfarer bench: {} runs ({} target(s) x {} seed(s) x {} strategy/peer), budget {} each, shrink {}",
            plan.runs(),
            plan.targets.len(),
            plan.seeds.len(),
            plan.strategy_labels().len() + plan.peers.len(),
            plan.budget,
            plan.shrink
        );
    }
    let started = std::time::Instant::now();
    let chrome = plan
        .chrome
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned());
    let mut suite = |dir: &std::path::Path| {
        crate::features::suite_logs(dir, chrome.as_deref()).map_err(|e| format!("{e:#}"))
    };
    let suite: Option<&mut wayfarer_bench::SuiteFn> = if args.feature_tests {
        Some(&mut suite)
    } else {
        None
    };
    let result = run_bench_with(
        &plan,
        &mut |line| {
            if !quiet {
                meprintln!("{line}");
            }
        },
        suite,
    )
    .context("the benchmark stopped")?;
    if !quiet {
        meprintln!(
            "wayfarer bench: {} runs in {:.1} min; wrote:",
            result.runs.len(),
            started.elapsed().as_secs_f64() / 60.0
        );
        for f in &result.written {
            meprintln!("  {}", f.display());
        }
        if !result.skipped.is_empty() {
            meprintln!(
                "{} run(s) skipped (listed in bench.md)",
                result.skipped.len()
            );
        }
    }
    Ok(if result.runs.is_empty() { 2 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `--shrink` takes explore's values; without it a bench shrinks as explore does.
    #[test]
    fn shrink_takes_explores_values() {
        let shrink = |extra: &[&str]| {
            let mut argv = vec!["wayfarer", "bench", "--apps", "clinic"];
            argv.extend_from_slice(extra);
            match crate::args::Cli::try_parse_from(argv).map(|c| c.command) {
                Ok(crate::args::Command::Bench(b)) => Ok(b.shrink.unwrap_or_default()),
                Ok(other) => panic!("{other:?}"),
                Err(e) => Err(e.to_string()),
            }
        };
        use wayfarer_run::ShrinkBudget;
        assert_eq!(shrink(&[]), Ok(ShrinkBudget::default()));
        assert_eq!(shrink(&["--shrink", "off"]), Ok(ShrinkBudget::Off));
        assert_eq!(shrink(&["--shrink", "50%"]), Ok(ShrinkBudget::Share(0.5)));
        assert_eq!(
            shrink(&["--shrink", "90s"]),
            Ok(ShrinkBudget::Fixed(std::time::Duration::from_secs(90)))
        );
        let e = shrink(&["--shrink", "300"]).unwrap_err();
        assert!(e.contains("--shrink"), "{e}");
    }

    #[test]
    fn seeds_and_apps() {
        assert_eq!(parse_seeds("3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("4..6").unwrap(), vec![4, 5, 6]);
        assert_eq!(parse_seeds("2, 9").unwrap(), vec![2, 9]);
        assert!(
            parse_seeds("0").is_err() && parse_seeds("x").is_err() && parse_seeds("5..1").is_err()
        );
        assert_eq!(parse_apps("all").unwrap().len(), App::all_apps().len());
        assert_eq!(
            parse_apps("clinic, board").unwrap(),
            vec![App::Clinic, App::Board]
        );
        assert_eq!(
            parse_apps("board-delegated").unwrap(),
            vec![App::BoardDelegated]
        );
        let e = parse_apps("clinic,hazards").unwrap_err().to_string();
        assert!(e.contains("hazards") && e.contains("available"), "{e}");
    }
}
