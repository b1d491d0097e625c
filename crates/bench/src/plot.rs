//! The bench's plots: per application, states, JS coverage and unique failures over
//! steps, one line per strategy or peer (the median over its seeds at each step).
//! Standalone SVG files with their own styles, readable in a browser or a Markdown view.

use std::fmt::Write as _;
use std::path::PathBuf;

use wayfarer_report::html::plots::{downsample, label, ticks, Unit};
use wayfarer_report::html::text::escape;

use crate::engine::BenchResult;
use crate::plan::{Plan, Target};
use crate::series::SeriesPoint;
use crate::BenchError;

const W: f64 = 720.0;
const H: f64 = 360.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 48.0;
/// Colour-blind-safe palette (Okabe–Ito), one colour per line.
const COLORS: &[&str] = &[
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
];
/// Points per line: plenty for 456 pixels of plot width.
const POINTS: usize = 200;

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
    let stride = (last as usize).div_ceil(POINTS).max(1) as u64;
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

/// A line chart with a legend on the right.
pub fn chart(title: &str, lines: &[Line], unit: Unit) -> String {
    let x_hi = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let y_hi = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(if unit == Unit::Percent { 10.0 } else { 1.0 }, f64::max);
    let xt = ticks(0.0, x_hi, 6, 1.0);
    // Headroom above the highest value, so a line at its top is not hidden by the frame.
    let top = if unit == Unit::Percent {
        (y_hi * 1.08).min(100.0)
    } else {
        y_hi * 1.08
    };
    let yt = ticks(0.0, top, 5, if unit == Unit::Count { 1.0 } else { 0.0 });
    let x_max = *xt.last().unwrap_or(&x_hi);
    let y_max = *yt.last().unwrap_or(&y_hi);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |v: f64| LEFT + v / x_max * pw;
    let y = |v: f64| TOP + ph - v / y_max * ph;
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="{t}"><style>text{{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;fill:#222}}.t{{font-size:16px;font-weight:600}}.k{{font-size:12px;fill:#555}}.g{{stroke:#e4e4e4}}.a{{stroke:#888}}.l{{font-size:13px}}</style><rect width="{W}" height="{H}" fill="#fff"/><text class="t" x="{LEFT}" y="26">{t}</text>"##,
        t = escape(title)
    );
    for v in &yt {
        let _ = write!(
            s,
            r#"<line class="g" x1="{LEFT}" x2="{:.1}" y1="{yy:.1}" y2="{yy:.1}"/><text class="k" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT + pw,
            LEFT - 8.0,
            y(*v) + 4.0,
            label(*v, unit),
            yy = y(*v)
        );
    }
    for v in &xt {
        let _ = write!(
            s,
            r#"<line class="a" x1="{xx:.1}" x2="{xx:.1}" y1="{:.1}" y2="{:.1}"/><text class="k" x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            TOP + ph,
            TOP + ph + 5.0,
            TOP + ph + 20.0,
            label(*v, Unit::Count),
            xx = x(*v)
        );
    }
    let _ = write!(
        s,
        r#"<line class="a" x1="{LEFT}" x2="{:.1}" y1="{b:.1}" y2="{b:.1}"/><line class="a" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{b:.1}"/><text class="k" x="{:.1}" y="{:.1}" text-anchor="middle">step</text>"#,
        LEFT + pw,
        LEFT + pw / 2.0,
        H - 8.0,
        b = TOP + ph
    );
    for (i, l) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let dash = if l.dashed {
            r#" stroke-dasharray="7 5""#
        } else {
            ""
        };
        let pts = downsample(&l.points, POINTS);
        if pts.len() == 1 {
            // A run that never acted (nothing clickable by its rules): one dot at step 0.
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{color}"/>"#,
                x(pts[0].0),
                y(pts[0].1)
            );
        } else if !pts.is_empty() {
            let mut d = String::new();
            for (j, p) in pts.iter().enumerate() {
                let _ = write!(
                    d,
                    "{}{:.1},{:.1}",
                    if j == 0 { "M" } else { " L" },
                    x(p.0),
                    y(p.1)
                );
            }
            let last = pts[pts.len() - 1];
            let _ = write!(
                s,
                r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="2.2" stroke-linejoin="round"{dash}/><circle cx="{:.1}" cy="{:.1}" r="3.2" fill="{color}"/>"#,
                x(last.0),
                y(last.1)
            );
        }
        let ly = TOP + 10.0 + i as f64 * 22.0;
        let lx = LEFT + pw + 18.0;
        let end = l
            .points
            .last()
            .map(|p| label_value(p.1, unit))
            .unwrap_or_default();
        let _ = write!(
            s,
            r#"<line x1="{lx:.1}" x2="{:.1}" y1="{ly:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="3"{dash}/><text class="l" x="{:.1}" y="{:.1}">{} {}</text>"#,
            lx + 20.0,
            lx + 26.0,
            ly + 4.5,
            escape(&l.name),
            escape(&end)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn label_value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Percent => format!("({v:.1}%)"),
        _ => format!("({})", label(v.round(), Unit::Count)),
    }
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
