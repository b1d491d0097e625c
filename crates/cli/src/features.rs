//! `wayfarer features DIR`: the features a finished run's exploration shows (AutoE2E,
//! DESIGN 7.6), written to `features.md` with each feature's score and action chain.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use wayfarer_core::embed::text::{HashedText, TextEmbedder};
use wayfarer_features::heuristic::Heuristic;
use wayfarer_features::{CosineAtLeast, Exploration, FeatureModel, Ranking};

/// Two labels are one feature, offline, at this cosine of their embeddings.
const SAME_FEATURE_COSINE: f64 = 0.8;

/// The embedder: MiniLM when its files are installed (`scripts/ensure-minilm.sh`), else
/// the hashed fallback, said once.
fn embedder() -> Box<dyn TextEmbedder> {
    match wayfarer_ml::MiniLm::locate() {
        Some(Ok(m)) => Box::new(m),
        Some(Err(e)) => {
            eprintln!("warning: {e}; feature labels are matched by hashed words instead");
            Box::new(HashedText::default())
        }
        None => Box::new(HashedText::default()),
    }
}

pub fn command(dir: &Path, out: Option<&Path>) -> Result<i32> {
    let data = wayfarer_store::load(dir)
        .with_context(|| format!("cannot read the run in {}", dir.display()))?;
    let states: Vec<_> = data
        .states
        .iter()
        .map(|s| (s.id, s.url.clone(), s.title.clone()))
        .collect();
    let steps: Vec<_> = data.steps.iter().map(|s| s.record.clone()).collect();
    let x = Exploration::from_steps(&states, &steps);
    let mut model = FeatureModel::new(
        Ranking::default(),
        embedder(),
        Box::new(CosineAtLeast(SAME_FEATURE_COSINE)),
    );
    let app = data.meta.target.clone();
    wayfarer_features::infer(&x, &app, &mut Heuristic, &mut model)?;
    let mut md = String::new();
    writeln!(md, "# Features of {app}\n")?;
    writeln!(
        md,
        "{} kept of {} inferred ({} questions, labels embedded by {}).\n",
        model.kept().len(),
        model.db.len(),
        model.questions(),
        model.embedder_name()
    )?;
    for id in model.kept() {
        let f = model.db.get(id);
        writeln!(md, "## {} (score {:.2})\n", f.label, f.score)?;
        for a in model.chain(id) {
            let text = x
                .state(a.state)
                .and_then(|s| s.actions.iter().find(|o| o.text.key == a.action))
                .map_or(a.action.clone(), |o| o.text.text.clone());
            writeln!(md, "1. on state {}: {text}", a.state)?;
        }
        writeln!(md)?;
    }
    let path = out.map_or_else(|| dir.join("features.md"), Path::to_path_buf);
    std::fs::write(&path, &md).with_context(|| format!("cannot write {}", path.display()))?;
    print!("{md}");
    Ok(0)
}
