//! The feature tests of a finished run (AutoE2E, DESIGN 7.6): the features its
//! exploration shows, `features.md` with each feature's score and steps, and a Playwright
//! project with one test per feature. Every test is first replayed in the browser: the
//! short way (the shortest known path, then the chain), else the way its episode really
//! went; a test neither replays is left out and said. For a bundled application the
//! replay also says which of its grammar's features each test covers (feature coverage
//! and precision, as E2EBench measures them). `wayfarer features` and the bench's
//! `--feature-tests` call [`make`]; what they print of [`Made`] is theirs.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use wayfarer_core::embed::text::TextEmbedder;
use wayfarer_core::grammar::FeatureGrammar;
use wayfarer_core::trace::{Expected, ReplaySetup, Trace, TraceStep, TRACE_VERSION};
use wayfarer_core::{ActionKind, AppProbe, Environment};
use wayfarer_export::{FeatureCheck, FeatureSpec, PlaywrightOptions};
use wayfarer_features::db::Query;
use wayfarer_features::heuristic::Heuristic;
use wayfarer_features::suite::{
    shorten, tests, FeatureTest, Learned, SHORTEN_ABOVE, SHORTEN_REPLAYS,
};
use wayfarer_features::{CosineAtLeast, Exploration, FeatureId, FeatureModel, Ranking};
use wayfarer_store::{
    ActionFeatureRecord, FeatureOutcome, FeatureQuery, FeatureRecord, FeatureTestRecord,
    StoredFeatures,
};

pub use wayfarer_features::suite::Skipped;

use crate::{Notice, Notices, RunError, Why};

/// Two labels are one feature, offline, at this cosine of their embeddings.
pub const SAME_FEATURE_COSINE: f64 = 0.8;

/// What to make the feature tests of, and how.
pub struct Request<'a> {
    /// The finished run's directory (its `run.sqlite`).
    pub dir: &'a Path,
    /// Where the Playwright project goes; `dir/features` when `None`.
    pub out: Option<&'a Path>,
    /// Replay every test before writing it, and shorten the long ones.
    pub check: bool,
    pub chrome: Option<&'a str>,
    /// The model that answers AutoE2E's questions; the heuristic without one.
    pub llm: Option<wayfarer_llm::SharedClient>,
    /// What matches feature labels (MiniLM or the hashed fallback: the caller chooses).
    pub embedder: Box<dyn TextEmbedder>,
}

/// What [`make`] inferred, checked and wrote.
#[derive(Debug)]
pub struct Made {
    /// The application, as the run names it.
    pub app: String,
    /// Features kept (score at least ln 0.5) of those inferred.
    pub kept: usize,
    pub inferred: usize,
    /// Questions asked of the inferrer.
    pub questions: u64,
    /// What matched the labels.
    pub embedder: String,
    /// The tests written, best first.
    pub tests: Vec<MadeTest>,
    /// The kept features without a test, and why.
    pub skipped: Vec<Skipped>,
    /// The Playwright project.
    pub out: PathBuf,
    pub features_md: PathBuf,
    /// Feature coverage and precision against a bundled application's grammar, when the
    /// tests were replayed.
    pub score: Option<Score>,
}

/// One written test.
#[derive(Debug)]
pub struct MadeTest {
    pub label: String,
    pub steps: usize,
    /// Which way replayed ("short", or the alternative kept); "short" without the check.
    pub way: &'static str,
    /// Its spec file.
    pub file: PathBuf,
    /// The action ids the application logged in its replay (empty without the check).
    pub log: Vec<String>,
    /// The grammar features its replay covered (a bundled application, checked).
    pub covers: Option<Vec<String>>,
}

/// Feature coverage and precision of the kept tests, as E2EBench measures them.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// The grammar features some test covers.
    pub covered: Vec<String>,
    /// Features in the grammar.
    pub grammar: usize,
    /// Tests that cover at least one grammar feature.
    pub precise: usize,
    pub tests: usize,
}

impl Score {
    pub fn coverage_percent(&self) -> f64 {
        100.0 * self.covered.len() as f64 / self.grammar.max(1) as f64
    }

    pub fn precision(&self) -> f64 {
        self.precise as f64 / self.tests.max(1) as f64
    }
}

/// What checking the tests by replay cost: how many replays, of how many steps in all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Replays {
    pub runs: usize,
    pub steps: usize,
}

/// Infer the run's features, build one test each, check them by replay (with
/// `req.check`), write the Playwright project, `features.md` and the store's record.
/// Progress (the model's account, what the check cost) and warnings go to `say`.
pub fn make(req: Request, say: Notices) -> Result<Made, RunError> {
    let dir = req.dir;
    let data =
        wayfarer_store::load(dir).usage(|| format!("cannot read the run in {}", dir.display()))?;
    let states: Vec<_> = data
        .states
        .iter()
        .map(|s| (s.id, s.url.clone(), s.title.clone()))
        .collect();
    let mut steps: Vec<_> = data.steps.iter().map(|s| s.record.clone()).collect();
    wayfarer_features::explore::episode_order(&mut steps);
    let x = Exploration::from_steps(&states, &steps);
    let app = data.meta.target.clone();
    let embed_failed = || "the feature labels could not be embedded".to_string();
    let model = match req.llm.clone() {
        // The model answers; the heuristic and the threshold stand in where it cannot.
        Some(client) => {
            let usage = client.lock().map(|c| c.usage()).ok();
            let (mut inferrer, judge) = wayfarer_features::with_client(client, &app);
            let mut model = FeatureModel::new(
                Ranking::default(),
                req.embedder,
                Box::new(judge.with_threshold(SAME_FEATURE_COSINE)),
            );
            wayfarer_features::infer(&x, &app, &mut inferrer, &mut model)
                .environment(embed_failed)?;
            say(Notice::Info(inferrer.stats().to_string()));
            if let Some(u) = usage.as_ref().and_then(|u| u.lock().ok()) {
                say(Notice::Info(format!(
                    "llm: {} model calls, {} from the cache, {} failed, {} unreadable",
                    u.calls, u.cache_hits, u.failed, u.malformed
                )));
            }
            model
        }
        None => {
            let mut model = FeatureModel::new(
                Ranking::default(),
                req.embedder,
                Box::new(CosineAtLeast(SAME_FEATURE_COSINE)),
            );
            wayfarer_features::infer(&x, &app, &mut Heuristic, &mut model)
                .environment(embed_failed)?;
            model
        }
    };
    let setup = &data.meta.setup;
    let (mut suite, mut skipped) = tests(&model, &x, &steps);
    let mut verdicts = Vec::new();
    if req.check && !suite.is_empty() {
        let started = Instant::now();
        let (kept, v, replays) = replay_all(suite, setup, dir, req.chrome, say)?;
        say(Notice::Info(checked_line(replays, started.elapsed())));
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
    let out = req
        .out
        .map_or_else(|| dir.join("features"), Path::to_path_buf);
    let specs: Vec<FeatureSpec> = suite
        .iter()
        .map(|t| FeatureSpec {
            name: format!("feature-{}", t.label),
            trace: trace_of(t, setup, dir),
            check: check_of(t),
        })
        .collect();
    // As `export`: no Chromium found is not fatal, Playwright's own browsers can stand in.
    let chromium = match wayfarer_browser::find_chrome(req.chrome) {
        Ok(p) => Some(p.to_string_lossy().into_owned()),
        Err(e) => {
            say(Notice::Warning(format!(
                "warning: {e}; playwright.config.ts will use Playwright's own browser"
            )));
            None
        }
    };
    remove_old_specs(&out)?;
    let written =
        wayfarer_export::playwright_features(&specs, &PlaywrightOptions { chromium }, &out)
            .environment(|| format!("cannot write the feature tests into {}", out.display()))?;
    let files: Vec<PathBuf> = written
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".spec.ts"))
        .collect();
    let md = features_md(&app, &model, &suite, &skipped, &files, &out);
    let md_path = out.join("features.md");
    // No test leaves no project behind, but features.md says why.
    std::fs::create_dir_all(&out).environment(|| format!("cannot create {}", out.display()))?;
    std::fs::write(&md_path, &md).environment(|| format!("cannot write {}", md_path.display()))?;
    let grammar = grammar_of(setup);
    let logs: Vec<Vec<String>> = verdicts.iter().map(|v| v.log.clone()).collect();
    let covers = covers_of(grammar.as_ref(), &suite, &logs);
    let stored = stored_features(&model, &suite, &skipped, &files, &covers, req.check);
    wayfarer_store::write_features(dir, &stored)
        .environment(|| format!("cannot keep the features in the store of {}", dir.display()))?;
    let score = grammar
        .as_ref()
        .filter(|_| !verdicts.is_empty())
        .map(|g| score(g, &logs));
    // Without the check there are no verdicts and no logs: each test then has neither.
    let mut logs = logs.into_iter();
    let mut covers = covers.into_iter();
    let tests = suite
        .iter()
        .zip(files)
        .enumerate()
        .map(|(i, (t, file))| MadeTest {
            label: t.label.clone(),
            steps: t.steps.len(),
            way: verdicts.get(i).map_or("short", |v| v.way),
            file,
            log: logs.next().unwrap_or_default(),
            covers: covers.next().flatten(),
        })
        .collect();
    Ok(Made {
        app,
        kept: model.kept().len(),
        inferred: model.db.len(),
        questions: model.questions(),
        embedder: model.embedder_name(),
        tests,
        skipped,
        out,
        features_md: md_path,
        score,
    })
}

/// "checked by N replay(s) of M steps in Xs".
fn checked_line(r: Replays, took: Duration) -> String {
    format!(
        "checked by {} replay(s) of {} steps in {:.1}s",
        r.runs,
        r.steps,
        took.as_secs_f64()
    )
}

/// The feature grammar of the bundled application a run explored.
fn grammar_of(setup: &ReplaySetup) -> Option<FeatureGrammar> {
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

/// Feature coverage and precision of the kept tests' replays (`logs`, one per test).
fn score(g: &FeatureGrammar, logs: &[Vec<String>]) -> Score {
    Score {
        covered: g
            .covered_by_any(logs)
            .into_iter()
            .map(str::to_string)
            .collect(),
        grammar: g.len(),
        precise: logs.iter().filter(|l| !g.covered(l).is_empty()).count(),
        tests: logs.len(),
    }
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
fn remove_old_specs(out: &Path) -> Result<(), RunError> {
    let Ok(entries) = std::fs::read_dir(out.join("tests")) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("feature-") && name.ends_with(".spec.ts") {
            std::fs::remove_file(e.path())
                .environment(|| format!("cannot remove the old {}", e.path().display()))?;
        }
    }
    Ok(())
}

/// A feature's test as a trace: the run's setup, no failure expected.
fn trace_of(t: &FeatureTest, setup: &ReplaySetup, dir: &Path) -> Trace {
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
    setup: &ReplaySetup,
    dir: &Path,
    chrome: Option<&str>,
    say: Notices,
) -> Result<(Vec<FeatureTest>, Vec<Verdict>, Replays), RunError> {
    let place = crate::trace::Place {
        // A bundled application is served again without its bugs.
        fixed: setup.app.is_some(),
        chrome: chrome.map(str::to_string),
        server_log: Some(dir.join("features-server.log")),
        ..Default::default()
    };
    let mut target = crate::trace::open_trace(trace_of(&suite[0], setup, dir), &place, say)?;
    let start = url::Url::parse(&target.start_url)
        .environment(|| format!("the replay's start URL {:?}", target.start_url))?;
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
        let mut run = |t: &FeatureTest| -> Result<Verdict, RunError> {
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

/// The browser failed under a replay: not a verdict on the test.
fn browser_failed(e: wayfarer_core::EnvError) -> RunError {
    RunError::Environment(format!("the replay's browser failed: {e}"))
}

/// Replay one test's steps from a reset: its action-id log, and why it does not run
/// through (a step that cannot be taken, a locator that would not find its element the
/// way the exported test finds it, a failure an oracle sees, another end page).
fn replay_one(
    target: &mut crate::trace::Target,
    trace: &Trace,
    check: &FeatureCheck,
    start: &url::Url,
) -> Result<Verdict, RunError> {
    let mut obs = target.env.reset().map_err(browser_failed)?.observation;
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
                Err(e) if e.is_fatal() => return Err(browser_failed(e)),
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
            Err(e) if e.is_fatal() => return Err(browser_failed(e)),
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
    s: &TraceStep,
    now: Option<wayfarer_core::TargetName>,
    resolved: bool,
) -> Result<(), String> {
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
        ActionKind::Click
            | ActionKind::DoubleClick
            | ActionKind::ContextMenu
            | ActionKind::Check
            | ActionKind::Hover
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

    #[test]
    fn the_score_counts_what_any_test_covers_and_which_tests_cover_one() {
        let g = FeatureGrammar::parse("A: a \nB: b \nC: c \n").unwrap();
        let logs = vec![
            vec!["a".to_string(), "b".to_string()],
            vec!["x".to_string()],
            vec!["b".to_string()],
        ];
        let s = score(&g, &logs);
        assert_eq!(s.covered, vec!["A", "B"]);
        assert_eq!((s.grammar, s.precise, s.tests), (3, 2, 3));
        assert!((s.coverage_percent() - 200.0 / 3.0).abs() < 1e-9);
        assert!((s.precision() - 2.0 / 3.0).abs() < 1e-9);
    }
}
