//! `wayfarer features DIR`: the features a finished run's exploration shows (AutoE2E,
//! DESIGN 7.6), `features.md` with each feature's score and steps, and a Playwright
//! project with one test per feature. Every test is first replayed in the browser: the
//! short way (the shortest known path, then the chain), else the way its episode really
//! went; a test neither replays is left out and said. For a bundled application the
//! replay also says which of its grammar's features each test covers (feature coverage
//! and precision, as E2EBench measures them).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use wayfarer_core::embed::text::{HashedText, TextEmbedder};
use wayfarer_core::grammar::FeatureGrammar;
use wayfarer_core::trace::{Expected, Trace, TRACE_VERSION};
use wayfarer_core::{ActionKind, AppProbe, Environment};
use wayfarer_export::{FeatureCheck, FeatureSpec, PlaywrightOptions};
use wayfarer_features::db::Query;
use wayfarer_features::heuristic::Heuristic;
use wayfarer_features::suite::{
    shorten, tests, FeatureTest, Learned, Skipped, SHORTEN_ABOVE, SHORTEN_REPLAYS,
};
use wayfarer_features::{CosineAtLeast, Exploration, FeatureId, FeatureModel, Ranking};
use wayfarer_store::{
    ActionFeatureRecord, FeatureOutcome, FeatureQuery, FeatureRecord, FeatureTestRecord,
    StoredFeatures,
};

use crate::args::RunArgs;

/// Two labels are one feature, offline, at this cosine of their embeddings.
const SAME_FEATURE_COSINE: f64 = 0.8;

/// The embedder: MiniLM when its files are installed (`scripts/ensure-minilm.sh`), else
/// the hashed fallback, said once.
fn embedder() -> Box<dyn TextEmbedder> {
    match wayfarer_ml::MiniLm::locate() {
        Some(Ok(m)) => Box::new(m),
        Some(Err(e)) => {
            meprintln!("warning: {e}; feature labels are matched by hashed words instead");
            Box::new(HashedText::default())
        }
        None => Box::new(HashedText::default()),
    }
}

/// What the command was asked.
struct FeaturesArgs<'a> {
    dir: &'a Path,
    out: Option<&'a Path>,
    check: bool,
    chrome: Option<&'a str>,
    /// Print nothing (the bench's progress says what matters).
    quiet: bool,
    /// The model that answers AutoE2E's questions (`--llm`); the heuristic without one.
    llm: Option<wayfarer_llm::SharedClient>,
}

/// `wayfarer features TARGET`: a run directory, or a URL crawled first.
pub fn command(target: &str, check: bool, run: &RunArgs) -> Result<i32> {
    let is_url = target.contains("://");
    if !is_url {
        let dir = Path::new(target);
        if !wayfarer_store::store_path(dir).exists() {
            anyhow::bail!(
                "{target} is neither a URL nor a run directory (no run.sqlite in it); give \
                 the application's URL, or a directory written by `wayfarer explore`"
            );
        }
        return features(FeaturesArgs {
            dir,
            out: run.out.as_deref(),
            check,
            chrome: run.chrome.as_deref(),
            quiet: false,
            llm: model_client(run, dir)?,
        })
        .map(|_| 0);
    }
    // A crawl as AutoE2E's: breadth-first unless told otherwise, every record one page.
    let mut crawl = run.clone();
    crawl.strategy = crawl.strategy.or(Some("bfs".into()));
    // A crawl for features, not for failures: its failures are not shrunk unless asked.
    crawl.shrink = crawl.shrink.or(Some(wayfarer_run::ShrinkBudget::Off));
    let dir = crate::explore::explore_url(Some(target), &crawl, None, |c| {
        c.abstraction.mask_ids = true;
    })?;
    // The crawl's own reports (and failures), as `explore` leaves them; its exit code is
    // not this command's.
    crate::report::emit(&dir, run)?;
    features(FeaturesArgs {
        dir: &dir,
        out: None,
        check,
        chrome: run.chrome.as_deref(),
        quiet: false,
        llm: model_client(run, &dir)?,
    })
    .map(|_| 0)
}

/// `wayfarer bench --feature-tests`: the feature tests of the run in `dir`, written into
/// `dir/features` and replayed; each kept test's action-id log.
pub fn suite_logs(dir: &Path, chrome: Option<&str>) -> Result<Vec<Vec<String>>> {
    features(FeaturesArgs {
        dir,
        out: None,
        check: true,
        chrome,
        quiet: true,
        llm: None,
    })
}

/// The model `--llm` (or the config's `[llm]`) names, its answers cached in the run's
/// store; `None` without one.
fn model_client(run: &RunArgs, dir: &Path) -> Result<Option<wayfarer_llm::SharedClient>> {
    let (config, secrets) = wayfarer_run::config::load(run.config.as_deref())?;
    let llm = wayfarer_llm::with_flags(&config.llm, run.llm.as_deref(), run.model.as_deref());
    Ok(wayfarer_run::llm::client(&llm, dir, secrets)?)
}

/// Infer, build, check and write the tests; the kept tests' action-id logs (empty
/// without the check).
fn features(a: FeaturesArgs) -> Result<Vec<Vec<String>>> {
    let data = wayfarer_store::load(a.dir)
        .with_context(|| format!("cannot read the run in {}", a.dir.display()))?;
    let states: Vec<_> = data
        .states
        .iter()
        .map(|s| (s.id, s.url.clone(), s.title.clone()))
        .collect();
    let mut steps: Vec<_> = data.steps.iter().map(|s| s.record.clone()).collect();
    wayfarer_features::explore::episode_order(&mut steps);
    let x = Exploration::from_steps(&states, &steps);
    let app = data.meta.target.clone();
    let model = match a.llm.clone() {
        // The model answers; the heuristic and the threshold stand in where it cannot.
        Some(client) => {
            let usage = client.lock().map(|c| c.usage()).ok();
            let (mut inferrer, judge) = wayfarer_features::with_client(client, &app);
            let mut model = FeatureModel::new(
                Ranking::default(),
                embedder(),
                Box::new(judge.with_threshold(SAME_FEATURE_COSINE)),
            );
            wayfarer_features::infer(&x, &app, &mut inferrer, &mut model)?;
            if !a.quiet {
                mprintln!("{}", inferrer.stats());
                if let Some(u) = usage.as_ref().and_then(|u| u.lock().ok()) {
                    mprintln!(
                        "llm: {} model calls, {} from the cache, {} failed, {} unreadable",
                        u.calls,
                        u.cache_hits,
                        u.failed,
                        u.malformed
                    );
                }
            }
            model
        }
        None => {
            let mut model = FeatureModel::new(
                Ranking::default(),
                embedder(),
                Box::new(CosineAtLeast(SAME_FEATURE_COSINE)),
            );
            wayfarer_features::infer(&x, &app, &mut Heuristic, &mut model)?;
            model
        }
    };
    let (mut suite, mut skipped) = tests(&model, &x, &steps);
    let mut verdicts = Vec::new();
    if a.check && !suite.is_empty() {
        let setup = &data.meta.setup;
        let started = std::time::Instant::now();
        let (kept, v, replays) = replay_all(suite, setup, a.dir, a.chrome)?;
        if !a.quiet {
            meprintln!(
                "checked by {} replay(s) of {} steps in {:.1}s",
                replays.runs,
                replays.steps,
                started.elapsed().as_secs_f64()
            );
        }
        suite = Vec::new();
        for (t, v) in kept.into_iter().zip(v) {
            match &v.problem {
                None => {
                    suite.push(t);
                    verdicts.push(v);
                }
                Some(p) => {
                    // The features whose test this was go with it, and are said too.
                    for also in &t.also {
                        skipped.push(Skipped {
                            label: also.clone(),
                            why: format!("its test is {:?}'s, which does not replay", t.label),
                        });
                    }
                    skipped.push(Skipped {
                        label: t.label,
                        why: format!("its steps do not replay: {p}"),
                    });
                }
            }
        }
    }
    let out = a
        .out
        .map_or_else(|| a.dir.join("features"), Path::to_path_buf);
    let specs: Vec<FeatureSpec> = suite
        .iter()
        .map(|t| FeatureSpec {
            name: format!("feature-{}", t.label),
            trace: trace_of(t, &data.meta.setup, a.dir),
            check: check_of(t),
        })
        .collect();
    // As `export`: no Chromium found is not fatal, Playwright's own browsers can stand in.
    let chromium = match wayfarer_browser::find_chrome(a.chrome) {
        Ok(p) => Some(p.to_string_lossy().into_owned()),
        Err(e) => {
            meprintln!("warning: {e}; playwright.config.ts will use Playwright's own browser");
            None
        }
    };
    remove_old_specs(&out)?;
    let written =
        wayfarer_export::playwright_features(&specs, &PlaywrightOptions { chromium }, &out)?;
    let files: Vec<PathBuf> = written
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".spec.ts"))
        .collect();
    let md = features_md(&app, &model, &suite, &skipped, &files, &out);
    let md_path = out.join("features.md");
    // No test leaves no project behind, but features.md says why.
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    std::fs::write(&md_path, &md).with_context(|| format!("cannot write {}", md_path.display()))?;
    let logs: Vec<Vec<String>> = verdicts.iter().map(|v| v.log.clone()).collect();
    let covers = covers_of(grammar_of(&data.meta.setup).as_ref(), &suite, &logs);
    let stored = stored_features(&model, &suite, &skipped, &files, &covers, a.check);
    wayfarer_store::write_features(a.dir, &stored).with_context(|| {
        format!(
            "cannot keep the features in the store of {}",
            a.dir.display()
        )
    })?;
    // report.html is made from the store alone: rebuilt, it shows the Features section.
    crate::report::rebuild(a.dir)?;
    if a.quiet {
        return Ok(logs);
    }
    mprintln!(
        "{} features kept of {} inferred ({} questions, labels matched by {}); {} tests in {}",
        model.kept().len(),
        model.db.len(),
        model.questions(),
        model.embedder_name(),
        suite.len(),
        out.display()
    );
    for s in &skipped {
        mprintln!("  no test for {:?}: {}", s.label, s.why);
    }
    mprintln!("features: {}", md_path.display());
    mprintln!(
        "run them: cd {} && npm install && npx playwright test",
        out.display()
    );
    if let Some(g) = grammar_of(&data.meta.setup) {
        score(&g, &suite, &verdicts);
    }
    Ok(logs)
}

/// The feature grammar of the bundled application a run explored.
fn grammar_of(setup: &wayfarer_core::trace::ReplaySetup) -> Option<FeatureGrammar> {
    let app = wayfarer_testapps::App::from_name(setup.app.as_deref()?)?;
    FeatureGrammar::parse(wayfarer_testapps::feature_grammar(app)).ok()
}

/// What replaying one test showed.
struct Verdict {
    /// Why it does not run through; `None` when it does.
    problem: Option<String>,
    /// The action ids the application logged.
    log: Vec<String>,
    /// Which way ran through.
    way: &'static str,
}

/// Feature coverage and precision of the kept tests, per test and in all.
fn score(g: &FeatureGrammar, suite: &[FeatureTest], verdicts: &[Verdict]) {
    if verdicts.is_empty() {
        return;
    }
    let mut precise = 0;
    for (t, v) in suite.iter().zip(verdicts) {
        let covered = g.covered(&v.log);
        if !covered.is_empty() {
            precise += 1;
        }
        mprintln!(
            "  {:<40} {} steps{}; covers {}",
            t.label,
            t.steps.len(),
            if v.way == "short" {
                String::new()
            } else {
                format!(" ({})", v.way)
            },
            if covered.is_empty() {
                "no grammar feature".to_string()
            } else {
                covered.join(", ")
            }
        );
    }
    let logs: Vec<Vec<String>> = verdicts.iter().map(|v| v.log.clone()).collect();
    let covered = g.covered_by_any(&logs);
    mprintln!(
        "feature coverage {:.1}% ({} of {} grammar features: {}); precision {:.2} ({precise} of {} tests cover one)",
        100.0 * covered.len() as f64 / g.len().max(1) as f64,
        covered.len(),
        g.len(),
        covered.join(", "),
        precise as f64 / verdicts.len() as f64,
        verdicts.len()
    );
}

/// The grammar features each kept test's replay covered; `None` without a grammar or
/// replays.
fn covers_of(
    grammar: Option<&FeatureGrammar>,
    suite: &[FeatureTest],
    logs: &[Vec<String>],
) -> Vec<Option<Vec<String>>> {
    (0..suite.len())
        .map(|i| {
            let (g, log) = (grammar?, logs.get(i)?);
            Some(g.covered(log).into_iter().map(str::to_string).collect())
        })
        .collect()
}

/// The inference as the run store keeps it; `files[i]` is `suite[i]`'s spec file.
fn stored_features(
    model: &FeatureModel,
    suite: &[FeatureTest],
    skipped: &[Skipped],
    files: &[PathBuf],
    covers: &[Option<Vec<String>>],
    checked: bool,
) -> StoredFeatures {
    let mut outcome: HashMap<&str, FeatureOutcome> = HashMap::new();
    for (i, (t, file)) in suite.iter().zip(files).enumerate() {
        outcome.insert(
            &t.label,
            FeatureOutcome::Tested(FeatureTestRecord {
                file: file.display().to_string(),
                steps: t.steps.len() as u32,
                covers: covers.get(i).cloned().flatten(),
            }),
        );
        for also in &t.also {
            outcome.insert(also, FeatureOutcome::SameTestAs(t.label.clone()));
        }
    }
    for s in skipped {
        outcome.insert(&s.label, FeatureOutcome::NoTest(s.why.clone()));
    }
    let kept: HashSet<FeatureId> = model.kept().into_iter().collect();
    let features = model
        .db
        .iter()
        .map(|(id, f)| FeatureRecord {
            id: id.0 as u64,
            label: f.label.clone(),
            score: f.score,
            aliases: f.aliases.clone(),
            outcome: if kept.contains(&id) {
                outcome
                    .get(f.label.as_str())
                    .cloned()
                    .unwrap_or_else(|| FeatureOutcome::NoTest("no test was built".into()))
            } else {
                FeatureOutcome::NotKept
            },
        })
        .collect();
    let actions = model
        .afd
        .rows()
        .iter()
        .map(|r| ActionFeatureRecord {
            state: r.at.state,
            action: r.at.action.clone(),
            feature: r.feature.0 as u64,
            rank: r.rank as u32,
            rank_score: r.rank_score,
            query: match &r.query {
                Query::Alone => FeatureQuery::Alone,
                Query::AfterPrevious(p) => FeatureQuery::AfterPrevious {
                    state: p.state,
                    action: p.action.clone(),
                },
            },
        })
        .collect();
    StoredFeatures {
        questions: model.questions(),
        embedder: model.embedder_name(),
        checked,
        features,
        actions,
    }
}

/// The feature specs an earlier `features` wrote into `out`: a feature no longer kept
/// must not leave its old test behind. Other files are the user's and stay.
fn remove_old_specs(out: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(out.join("tests")) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("feature-") && name.ends_with(".spec.ts") {
            std::fs::remove_file(e.path())
                .with_context(|| format!("cannot remove the old {}", e.path().display()))?;
        }
    }
    Ok(())
}

/// A feature's test as a trace: the run's setup, no failure expected.
fn trace_of(t: &FeatureTest, setup: &wayfarer_core::trace::ReplaySetup, dir: &Path) -> Trace {
    Trace {
        version: TRACE_VERSION,
        wayfarer: env!("CARGO_PKG_VERSION").to_string(),
        setup: setup.clone(),
        expected: Expected {
            kind: "feature".into(),
            signature: String::new(),
            message: t.label.clone(),
        },
        origin: format!("features of {}", dir.display()),
        outside_state: None,
        steps: t.steps.clone(),
    }
}

fn features_md(
    app: &str,
    model: &FeatureModel,
    suite: &[FeatureTest],
    skipped: &[Skipped],
    files: &[PathBuf],
    out: &Path,
) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Features of {app}\n");
    let _ = writeln!(
        md,
        "{} features kept (score at least ln 0.5) of {} inferred from {} questions; labels matched by {}. One test each: {} tests.\n",
        model.kept().len(),
        model.db.len(),
        model.questions(),
        model.embedder_name(),
        suite.len()
    );
    for (t, file) in suite.iter().zip(files) {
        let rel = file.strip_prefix(out).unwrap_or(file);
        let _ = writeln!(md, "## {} (score {:.2})\n", t.label, t.score);
        if !t.also.is_empty() {
            let _ = writeln!(md, "Also: {}.\n", t.also.join(", "));
        }
        let _ = writeln!(md, "Test: `{}`\n", rel.display());
        for (i, s) in t.steps.iter().enumerate() {
            let way = if i < t.prefix { " (on the way)" } else { "" };
            let _ = writeln!(md, "{}. {}{way}", i + 1, s.describe());
        }
        let _ = writeln!(md, "\nEnds on: {} ({})\n", t.end_title, t.end_url);
    }
    if !skipped.is_empty() {
        let _ = writeln!(md, "## Without a test\n");
        for s in skipped {
            let _ = writeln!(md, "- {}: {}", s.label, s.why);
        }
    }
    md
}

/// Replay every test in one browser (a bundled application served again, without its
/// seeded bugs): its steps, else each alternative way in turn (the test then keeps the
/// first that runs through). A way runs through when each step's locator, as the test
/// writes it, finds exactly the element acted on, no oracle sees a failure, and it ends
/// where the test checks: what Playwright will ask of it.
fn replay_all(
    mut suite: Vec<FeatureTest>,
    setup: &wayfarer_core::trace::ReplaySetup,
    dir: &Path,
    chrome: Option<&str>,
) -> Result<(Vec<FeatureTest>, Vec<Verdict>, Replays)> {
    let place = wayfarer_run::trace::Place {
        // A bundled application is served again without its bugs.
        fixed: setup.app.is_some(),
        chrome: chrome.map(str::to_string),
        server_log: Some(dir.join("features-server.log")),
        ..Default::default()
    };
    let mut say = crate::explore::printer(false);
    let mut target =
        wayfarer_run::trace::open_trace(trace_of(&suite[0], setup, dir), &place, &mut say)?;
    let start = url::Url::parse(&target.start_url)?;
    // The recorded end pages are on the recorded origin; the replay's may be another.
    let old_origin = url::Url::parse(&setup.start_url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default();
    let new_origin = start.origin().ascii_serialization();
    let mut verdicts = Vec::new();
    let mut replays = Replays::default();
    let mut learned = Learned::default();
    for t in &mut suite {
        let mut check = check_of(t);
        if !old_origin.is_empty() {
            check.end_url = check.end_url.replace(&old_origin, &new_origin);
        }
        let mut run = |t: &FeatureTest| -> Result<Verdict> {
            let trace = trace_of(t, setup, dir).rebased(&start);
            replays.runs += 1;
            replays.steps += trace.steps.len();
            replay_one(&mut target, &trace, &check, &start)
        };
        let mut v = run(t)?;
        // Why each way failed, for the test that none runs through.
        let mut why = vec![format!("short: {}", v.problem.clone().unwrap_or_default())];
        let mut k = 0;
        while v.problem.is_some() && k < t.alternatives.len() {
            let mut alt = t.clone();
            alt.take_alternative(k);
            let w = run(&alt)?;
            match &w.problem {
                None => {
                    v = Verdict {
                        way: t.alternatives[k].how,
                        ..w
                    };
                    *t = alt;
                }
                Some(p) => why.push(format!("{}: {p}", t.alternatives[k].how)),
            }
            k += 1;
        }
        if v.problem.is_some() {
            v.problem = Some(why.join("; "));
        } else if t.steps.len() > SHORTEN_ABOVE {
            // A long test (an episode as it went, a page's set-up clicks) is cut to what
            // the chain needs: each candidate must replay as strictly and end the same.
            let way = v.way;
            let (before, mut used) = (t.steps.len(), 0);
            let shorter = shorten(t, SHORTEN_REPLAYS, &mut learned, |c: &FeatureTest| {
                used += 1;
                run(c).map(|w| w.problem.is_none().then_some(w))
            })?;
            tracing::debug!(label = %t.label, before, after = t.steps.len(), used, "shortened");
            if let Some(w) = shorter {
                v = Verdict { way, ..w };
            }
        }
        verdicts.push(v);
    }
    target.close();
    Ok((suite, verdicts, replays))
}

/// What checking the tests by replay cost: how many replays, of how many steps in all.
#[derive(Clone, Copy, Debug, Default)]
struct Replays {
    runs: usize,
    steps: usize,
}

/// What a feature's test checks at its end.
fn check_of(t: &FeatureTest) -> FeatureCheck {
    FeatureCheck {
        label: t.label.clone(),
        score: t.score,
        end_url: t.end_url.clone(),
        end_title: t.end_title.clone(),
        also: t.also.clone(),
    }
}

/// Replay one test's steps from a reset: its action-id log, and why it does not run
/// through (a step that cannot be taken, a locator that would not find its element the
/// way the exported test finds it, a failure an oracle sees, another end page).
fn replay_one(
    target: &mut wayfarer_run::trace::Target,
    trace: &Trace,
    check: &FeatureCheck,
    start: &url::Url,
) -> Result<Verdict> {
    let mut obs = target.env.reset()?.observation;
    let mut log: Vec<String> = Vec::new();
    let mut problem = None;
    for (i, s) in trace.steps.iter().enumerate() {
        // Act on what the exported test's locator finds, as Playwright will: a list whose
        // order changed is no reason to click another row.
        let mut action = s.action.clone();
        let mut resolved = false;
        // Strict, unlike shrinking's replays: a locator that finds none or several fails
        // the feature test, as it would fail the exported one.
        if let Some(c) = wayfarer_core::replay::Replayable::chosen(s) {
            match target.env.resolve(&c) {
                Ok(found) => {
                    action.target = Some(found);
                    resolved = true;
                }
                Err(e) if e.is_fatal() => return Err(e.into()),
                Err(e) => {
                    problem = Some(format!("step {} ({}): {e}", i + 1, s.describe()));
                    break;
                }
            }
        }
        match target.env.step(&action) {
            Ok(o) => {
                log.extend(AppProbe::logged_since(&obs, &o.observation));
                if let Err(why) = finds_now(s, target.env.target_name(), resolved) {
                    problem = Some(format!("step {} ({}): {why}", i + 1, s.describe()));
                    break;
                }
                let failures: Vec<String> = target
                    .oracles
                    .judge(&o.events, Some(&o.observation))
                    .into_iter()
                    .map(|f| f.signature)
                    .collect();
                if !failures.is_empty() {
                    problem = Some(format!("step {} fails: {}", i + 1, failures.join("; ")));
                    break;
                }
                obs = o.observation;
            }
            Err(e) if e.is_fatal() => return Err(e.into()),
            Err(e) => {
                problem = Some(format!("step {} cannot be taken: {e}", i + 1));
                break;
            }
        }
    }
    if problem.is_none() {
        problem = check.holds(&obs.url, &obs.title, start).err();
    }
    Ok(Verdict {
        problem,
        log,
        way: "short",
    })
}

/// Whether the step's locator, as the exported test writes it, finds exactly the element
/// the replay acted on (`now`: how the page named it just before acting; `resolved`: the
/// replay found it by that locator), and nothing covers it.
fn finds_now(
    s: &wayfarer_core::trace::TraceStep,
    now: Option<wayfarer_core::TargetName>,
    resolved: bool,
) -> std::result::Result<(), String> {
    let (Some(target), Some(now)) = (s.action.target.as_deref(), now) else {
        return Ok(());
    };
    // A step recorded without a hint is found by its CSS path, which is counted too.
    let mut fresh = s.element.clone().unwrap_or_default();
    fresh.name_from_target(&now, target);
    // A resolved locator found exactly its element: only what covers it is left to ask.
    if !resolved {
        let c = wayfarer_core::trace::chosen(target, s.element.as_ref());
        wayfarer_core::trace::finds_now(&c, &fresh)?;
    }
    // wayfarer clicks at the element's centre whatever is there; Playwright waits for
    // the element to be the one hit.
    let pointer = matches!(
        s.action.kind,
        ActionKind::Click | ActionKind::DoubleClick | ActionKind::Check | ActionKind::Hover
    );
    match fresh.page.as_ref().map(|p| p.covered_by.as_str()) {
        Some(by) if pointer && !by.is_empty() => {
            Err(format!("{by} covers the element and would take the click"))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_feature_specs_go_and_other_files_stay() {
        let dir = tempfile::tempdir().unwrap();
        let tests = dir.path().join("tests");
        std::fs::create_dir_all(&tests).unwrap();
        for f in [
            "feature-Old.spec.ts",
            "mine.spec.ts",
            "wayfarer.ts",
            "feature-notes.md",
        ] {
            std::fs::write(tests.join(f), "x").unwrap();
        }
        remove_old_specs(dir.path()).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&tests)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            vec!["feature-notes.md", "mine.spec.ts", "wayfarer.ts"]
        );
        // No project yet: nothing to do.
        remove_old_specs(&dir.path().join("none")).unwrap();
    }
}
