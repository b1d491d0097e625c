//! The bench's plots: per application, states, JS coverage and unique failures over
//! steps, one line per strategy or peer (the median over its seeds at each step).
//! Standalone SVG files with their own styles, readable in a browser or a Markdown view.

use std::path::PathBuf;

use wayfarer_report::chart::{self, Look, Unit};

use crate::engine::BenchResult;
use crate::plan::{Plan, Target};
use crate::series::SeriesPoint;
use crate::BenchError;

/// Colour-blind-safe palette (Okabe–Ito), one colour per line.
const COLORS: &[&str] = &[
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
];
/// One line of a chart.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (the peers), so a line on top of another does not hide it.
    pub dashed: bool,
}

/// Which counter a chart shows.
#[derive(Clone, Copy)]
enum Metric {
    States,
    Coverage,
    Failures,
}

impl Metric {
    fn of(self, p: &SeriesPoint) -> f64 {
        match self {
            Metric::States => p.states as f64,
            Metric::Coverage => p.js_coverage * 100.0,
            Metric::Failures => p.failures as f64,
        }
    }
    fn file(self) -> &'static str {
        match self {
            Metric::States => "states",
            Metric::Coverage => "js-coverage",
            Metric::Failures => "failures",
        }
    }
    fn title(self) -> &'static str {
        match self {
            Metric::States => "Distinct abstract states",
            Metric::Coverage => "JS coverage",
            Metric::Failures => "Unique failures",
        }
    }
    fn unit(self) -> Unit {
        match self {
            Metric::Coverage => Unit::Percent,
            _ => Unit::Count,
        }
    }
}

/// The value of a cumulative series at `step`: its last point at or before it.
fn at(series: &[SeriesPoint], step: u64, m: Metric) -> Option<f64> {
    let i = series.partition_point(|p| p.step <= step);
    (i > 0).then(|| m.of(&series[i - 1]))
}

/// The median over `runs` of each step's value, at up to `POINTS` steps.
fn median_line(runs: &[&[SeriesPoint]], m: Metric) -> Vec<(f64, f64)> {
    let last = runs
        .iter()
        .filter_map(|s| s.last().map(|p| p.step))
        .max()
        .unwrap_or(0);
    let stride = (last as usize).div_ceil(Look::STANDALONE.points).max(1) as u64;
    let mut out = Vec::new();
    let mut step = 0;
    loop {
        let mut v: Vec<f64> = runs.iter().filter_map(|s| at(s, step, m)).collect();
        if !v.is_empty() {
            v.sort_by(|a, b| a.total_cmp(b));
            out.push((step as f64, v[v.len() / 2]));
        }
        if step >= last {
            break;
        }
        step = (step + stride).min(last);
    }
    out
}

pub(crate) fn write(plan: &Plan, result: &BenchResult) -> Result<Vec<PathBuf>, BenchError> {
    let dir = plan.out.join("plots");
    std::fs::create_dir_all(&dir).map_err(|e| BenchError::Write(dir.clone(), e))?;
    let mut written = Vec::new();
    for target in &plan.targets {
        for m in [Metric::States, Metric::Coverage, Metric::Failures] {
            let lines = lines_of(plan, target, result, m);
            if lines.iter().all(|l| l.points.is_empty()) {
                continue;
            }
            let title = format!("{} · {}", target.name(), m.title());
            let svg = chart(&title, &lines, m.unit());
            let path = dir.join(format!("{}-{}.svg", target.slug(), m.file()));
            crate::write_masked(&path, &svg)?;
            written.push(path);
        }
    }
    Ok(written)
}

fn lines_of(plan: &Plan, target: &Target, result: &BenchResult, m: Metric) -> Vec<Line> {
    let name = target.name();
    let labels = plan.strategy_labels();
    labels
        .iter()
        .chain(&plan.peers)
        .filter_map(|who| {
            let runs: Vec<&[SeriesPoint]> = result
                .runs_of(&name, who)
                .map(|o| o.series.as_slice())
                .collect();
            (!runs.is_empty()).then(|| Line {
                dashed: plan.peers.contains(who),
                name: who.clone(),
                points: median_line(&runs, m),
            })
        })
        .collect()
}

/// A line chart with a legend on the right, one colour per line.
pub fn chart(title: &str, lines: &[Line], unit: Unit) -> String {
    let lines: Vec<chart::Line> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| chart::Line {
            name: l.name.clone(),
            points: l.points.clone(),
            color: COLORS[i % COLORS.len()].to_string(),
            dashed: l.dashed,
        })
        .collect();
    chart::line_chart(title, &lines, unit, &Look::STANDALONE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(step: u64, states: usize) -> SeriesPoint {
        SeriesPoint {
            step,
            states,
            ..SeriesPoint::default()
        }
    }

    #[test]
    fn the_median_line_holds_each_run_at_its_last_value() {
        let a = [pt(0, 1), pt(5, 3), pt(10, 4)];
        let b = [pt(0, 1), pt(4, 2), pt(10, 8)];
        let c = [pt(0, 2), pt(10, 2)];
        assert_eq!(
            median_line(&[&[pt(0, 1)]], Metric::States),
            vec![(0.0, 1.0)],
            "a run without steps is a point"
        );
        let line = median_line(&[&a, &b, &c], Metric::States);
        assert_eq!(line.first(), Some(&(0.0, 1.0)));
        assert_eq!(line.last(), Some(&(10.0, 4.0)));
        let mid = line.iter().find(|p| p.0 == 5.0).unwrap();
        assert_eq!(mid.1, 2.0);
    }

    #[test]
    fn page_text_is_escaped() {
        let svg = chart(
            "<b>t</b>",
            &[Line {
                name: "<script>".into(),
                points: vec![(0.0, 1.0), (3.0, 2.0)],
                dashed: true,
            }],
            Unit::Count,
        );
        assert!(!svg.contains("<script>") && svg.contains("&lt;script&gt;"));
        assert!(svg.starts_with("<svg xmlns="));
    }
}
