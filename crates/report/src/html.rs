//! `report.html`: one self-contained page (inline CSS and SVG, screenshots as `data:`
//! URIs, no scripts, nothing fetched) with the run's summary, its failures and how to
//! reproduce them, the state graph, the features `wayfarer features` inferred and their
//! tests, and its counters over steps.
//!
//! Escaping: the template is rendered by minijinja with HTML auto-escaping (its name
//! ends in `.html`), so every string passed as data is escaped; the SVG built in Rust
//! escapes page data with `text::escape` and is the only markup passed as safe.

mod failures;
mod features;
mod graph;
pub mod plots;
mod repro;
mod steps;
mod summary;
#[cfg(test)]
mod tests;
pub mod text;

use std::collections::HashSet;

use minijinja::{context, Environment, Value};
use plots::Unit;
use wayfarer_store::{RunData, Sample};

use crate::SeededLine;

const TEMPLATE: &str = include_str!("../templates/report.html");
const CSS: &str = include_str!("../templates/report.css");
/// Interactions of the knowledge base shown (the most confirmed first).
const KNOWLEDGE_ROWS: usize = 200;

/// One self-contained page for people: summary, failures, state graph, features, plots.
pub struct Html;

impl crate::format::Format for Html {
    fn name(&self) -> &'static str {
        "html"
    }
    fn about(&self) -> &'static str {
        "One self-contained page for people: summary, failures, state graph, features, plots."
    }
    fn file(&self) -> &'static str {
        "report.html"
    }
    fn render(&self, input: &crate::format::Input<'_>) -> String {
        render(input.data, input.seeded)
    }
}

/// Render the whole report as one self-contained HTML document. Never fails: should the
/// template fail, the page says so instead.
pub fn render(data: &RunData, seeded: Option<&[SeededLine]>) -> String {
    let mut env = Environment::new();
    let added = env
        .add_template("report.html", TEMPLATE)
        .and_then(|()| env.add_template("report.css", CSS));
    let out = added
        .and_then(|()| env.get_template("report.html"))
        .and_then(|t| t.render(view(data, seeded)));
    match out {
        Ok(html) => html,
        Err(e) => format!(
            "<!DOCTYPE html><meta charset=\"utf-8\"><title>wayfarer report</title><p>The report could not be rendered: {}</p>",
            text::escape(&format!("{e:#}"))
        ),
    }
}

/// Everything the template shows.
fn view(data: &RunData, seeded: Option<&[SeededLine]>) -> Value {
    let m = &data.meta;
    let failing: HashSet<_> = data
        .failures
        .iter()
        .filter_map(|f| failures::failure_state(data, &f.failure))
        .collect();
    let graph = graph::draw(data, &failing);
    let series = |f: fn(&Sample) -> Option<f64>| -> Vec<(f64, f64)> {
        data.steps
            .iter()
            .filter_map(|s| f(&s.sample).map(|v| (s.record.step as f64, v)))
            .collect()
    };
    let chart = |title: &str, pts: Vec<(f64, f64)>, color: &str, unit: Unit| {
        let svg = (!pts.is_empty())
            .then(|| Value::from_safe_string(plots::line_chart(title, &pts, color, unit)));
        let note = if data.steps.is_empty() {
            "No steps were recorded.".to_string()
        } else {
            format!("{title}: not collected in this run.")
        };
        context! { svg, note }
    };
    let charts = vec![
        chart(
            "Distinct states",
            series(|s| Some(s.states as f64)),
            "#2563eb",
            Unit::Count,
        ),
        chart(
            "JS coverage (% of bytes)",
            series(|s| s.coverage.map(|c| c.ratio() * 100.0)),
            "#059669",
            Unit::Percent,
        ),
        chart(
            "Server lines run",
            series(|s| s.server_lines.map(|n| n as f64)),
            "#0d9488",
            Unit::Count,
        ),
        chart(
            "Unique failures",
            series(|s| Some(s.failures as f64)),
            "#dc2626",
            Unit::Count,
        ),
        chart(
            "Distinct URLs",
            series(|s| Some(s.urls as f64)),
            "#7c3aed",
            Unit::Count,
        ),
        chart(
            "Actions discovered",
            series(|s| (s.actions > 0).then_some(s.actions as f64)),
            "#d97706",
            Unit::Count,
        ),
        chart(
            "Elapsed time (s)",
            series(|s| Some(s.elapsed_ms as f64 / 1000.0)),
            "#475569",
            Unit::Seconds,
        ),
    ];
    let config = match &m.config {
        serde_json::Value::Null => String::new(),
        v => serde_json::to_string_pretty(v).unwrap_or_default(),
    };
    context! {
        target => &m.target,
        strategy => &m.strategy,
        seed => m.seed,
        budget => &m.budget,
        version => &m.wayfarer,
        started => text::utc(m.started_at),
        command => &m.command,
        config => config,
        complete => data.complete,
        recorded => data.steps.len(),
        tiles => summary::tiles(data),
        rows => summary::rows(data),
        time_bar => Value::from_safe_string(plots::time_bar(&data.summary.time_split)),
        time_rows => plots::time_rows(&data.summary.time_split),
        time_step => text::ms(data.summary.time_split.step),
        time_observers => data.summary.time_split.observers > 0.0,
        time_resets => text::duration(data.summary.resets_s),
        seeded => seeded.map(summary::seeded),
        seeded_found => seeded.map(|s| s.iter().filter(|l| l.found_at_step.is_some()).count()),
        failures => failures::cards(data),
        graph_svg => Value::from_safe_string(graph.svg),
        graph_drawn => graph.drawn,
        graph_hidden => graph.hidden,
        graph_edges => graph.edges,
        charts => charts,
        steps => steps::rows(data),
        steps_total => data.steps.len(),
        learned => data.strategy.as_ref(),
        inference => data.summary.inference.as_ref(),
        scans_avoided => format!("{:.0}%", data.summary.scans_avoided * 100.0),
        deviation => data.summary.deviation.map(|d| format!("{:.1}%", d * 100.0)),
        knowledge => &data.knowledge[..data.knowledge.len().min(KNOWLEDGE_ROWS)],
        knowledge_total => data.knowledge.len(),
        features => data.features.as_ref().map(features::section),
        scripts => summary::scripts(data),
        scripts_total => data.summary.js_coverage.as_ref().map_or(0, |c| c.scripts.len()),
        server_files => summary::server_files(data),
        server_files_total => data.summary.server_coverage.as_ref().map_or(0, |c| c.by_file.len()),
        server_stack => data.summary.server_coverage.as_ref().map(|c| c.totals.stack.clone()),
    }
}
