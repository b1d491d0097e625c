//! `wayfarer features TARGET`: the flags, the embedder and what is printed; the feature
//! tests themselves (inference, the check by replay, the Playwright project) are
//! `wayfarer_run::features`'.

use std::path::Path;

use anyhow::Result;
use wayfarer_core::embed::text::{HashedText, TextEmbedder};
use wayfarer_run::features::{Made, Request};

use crate::args::RunArgs;

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

/// `wayfarer features TARGET`: a run directory, or a URL crawled first.
pub fn command(target: &str, check: bool, run: &RunArgs) -> Result<i32> {
    let is_url = target.contains("://");
    let dir = if is_url {
        // A crawl as AutoE2E's: breadth-first unless told otherwise, every record one page.
        let mut crawl = run.clone();
        crawl.strategy = crawl.strategy.or(Some("bfs".into()));
        // A crawl for features, not for failures: its failures are not shrunk unless asked.
        crawl.shrink = crawl.shrink.or(Some(wayfarer_run::ShrinkBudget::Off));
        let dir = crate::explore::explore_url(Some(target), &crawl, None, |c| {
            c.abstraction.mask_ids = true;
        })?;
        // The crawl's own reports (and failures), as `explore` leaves them; its exit code
        // is not this command's.
        crate::report::emit(&dir, run)?;
        dir
    } else {
        let dir = Path::new(target);
        if !wayfarer_store::store_path(dir).exists() {
            anyhow::bail!(
                "{target} is neither a URL nor a run directory (no run.sqlite in it); give \
                 the application's URL, or a directory written by `wayfarer explore`"
            );
        }
        dir.to_path_buf()
    };
    let made = make(
        Request {
            dir: &dir,
            // A crawl's project goes into its own directory.
            out: if is_url { None } else { run.out.as_deref() },
            check,
            chrome: run.chrome.as_deref(),
            llm: model_client(run, &dir)?,
            embedder: embedder(),
        },
        !run.quiet,
    )?;
    print(&made);
    Ok(0)
}

/// `wayfarer bench --feature-tests`: the feature tests of the run in `dir`, written into
/// `dir/features` and replayed; each kept test's action-id log.
pub fn suite_logs(dir: &Path, chrome: Option<&str>) -> Result<Vec<Vec<String>>> {
    let made = make(
        Request {
            dir,
            out: None,
            check: true,
            chrome,
            llm: None,
            embedder: embedder(),
        },
        false,
    )?;
    Ok(made.tests.into_iter().map(|t| t.log).collect())
}

/// Make the tests (progress shown with `show`, warnings always), then rebuild the run's
/// report.html from its store, which now holds the Features section.
fn make(req: Request, show: bool) -> Result<Made> {
    let dir = req.dir.to_path_buf();
    let made = wayfarer_run::features::make(req, &mut crate::explore::printer(show))?;
    crate::report::rebuild(&dir)?;
    Ok(made)
}

/// The model `--llm` (or the config's `[llm]`) names, its answers cached in the run's
/// store; `None` without one.
fn model_client(run: &RunArgs, dir: &Path) -> Result<Option<wayfarer_llm::SharedClient>> {
    let (config, secrets) = wayfarer_run::config::load(run.config.as_deref())?;
    let llm = wayfarer_llm::with_flags(&config.llm, run.llm.as_deref(), run.model.as_deref());
    Ok(wayfarer_run::llm::client(&llm, dir, secrets)?)
}

/// What was made: the summary, the features without a test, where things are, and for a
/// bundled application each test's grammar features with coverage and precision.
fn print(m: &Made) {
    mprintln!(
        "{} features kept of {} inferred ({} questions, labels matched by {}); {} tests in {}",
        m.kept,
        m.inferred,
        m.questions,
        m.embedder,
        m.tests.len(),
        m.out.display()
    );
    for s in &m.skipped {
        mprintln!("  no test for {:?}: {}", s.label, s.why);
    }
    mprintln!("features: {}", m.features_md.display());
    mprintln!(
        "run them: cd {} && npm install && npx playwright test",
        m.out.display()
    );
    let Some(score) = &m.score else {
        return;
    };
    for t in &m.tests {
        let covers = t.covers.as_deref().unwrap_or_default();
        mprintln!(
            "  {:<40} {} steps{}; covers {}",
            t.label,
            t.steps,
            if t.way == "short" {
                String::new()
            } else {
                format!(" ({})", t.way)
            },
            if covers.is_empty() {
                "no grammar feature".to_string()
            } else {
                covers.join(", ")
            }
        );
    }
    mprintln!(
        "feature coverage {:.1}% ({} of {} grammar features: {}); precision {:.2} ({} of {} tests cover one)",
        score.coverage_percent(),
        score.covered.len(),
        score.grammar,
        score.covered.join(", "),
        score.precision(),
        score.precise,
        score.tests
    );
}
