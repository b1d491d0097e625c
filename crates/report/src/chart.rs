//! The one SVG line chart of counters over steps: the report page's (one counter, styled
//! by the page's CSS) and the bench's (a line per strategy with a legend, a standalone
//! file) are two looks of it. Plain SVG needs no fonts or system libraries.

use std::fmt::Write as _;

use crate::html::text::escape;

/// Points drawn per line at most: more than a chart's width in pixels adds nothing.
pub const MAX_POINTS: usize = 500;

/// What a chart's values are, for its tick labels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    /// Whole numbers: no tick between two integers.
    Count,
    Percent,
    Seconds,
}

/// At most `max` points of `pts`, keeping the first and the last of each bucket's
/// values (the counters only grow, so the last of a bucket is its highest).
pub fn downsample(pts: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if pts.len() <= max || max < 2 {
        return pts.to_vec();
    }
    let stride = pts.len().div_ceil(max - 1);
    let mut out = vec![pts[0]];
    out.extend(pts.chunks(stride).filter_map(|c| c.last().copied()));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// Round tick values from `lo` to at least `hi`: steps of 1, 2 or 5 times a power of
/// ten, about `n` of them, and no finer than `min_step`.
pub fn ticks(lo: f64, hi: f64, n: usize, min_step: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = (span / n.max(1) as f64).max(min_step);
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).floor() * step;
    let mut out = Vec::new();
    let mut v = first;
    while v < hi + step * 0.999 && out.len() < 50 {
        out.push(v);
        v += step;
    }
    out
}

/// A tick label for `v`.
pub fn label(v: f64, unit: Unit) -> String {
    if unit == Unit::Percent {
        format!("{v:.0}%")
    } else if v.abs() >= 10_000.0 {
        format!("{:.0}k", v / 1000.0)
    } else if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// One line of a chart: (step, value) points.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub color: String,
    /// Drawn dashed (the bench's peers), so a line on top of another does not hide it.
    pub dashed: bool,
}

/// How a chart looks: its size, its margins and how its parts are drawn.
pub struct Look {
    pub width: f64,
    pub height: f64,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
    /// The opening of the `<svg>` element up to its title's text (the page's styles or
    /// its own); `{W}`, `{H}`, `{X}` and `{T}` are its width, height, left margin and title.
    pub head: &'static str,
    /// Ticks on each axis, about.
    pub x_ticks: usize,
    pub y_ticks: usize,
    /// The lowest top of the value axis for percentages, and the headroom above the
    /// highest value (1.08: 8 %), so a line at the top is not hidden by the frame.
    pub percent_floor: f64,
    pub headroom: f64,
    /// The classes of grid lines, axis lines and tick labels.
    pub grid: &'static str,
    pub axis: &'static str,
    pub tick: &'static str,
    /// Tick labels' distance from the value axis; the step ticks' length and their
    /// labels' distance below the plot.
    pub y_label_gap: f64,
    pub x_tick_len: f64,
    pub x_label_gap: f64,
    /// A line along the value axis too.
    pub left_axis: bool,
    /// Where "step" is written: centred under the plot, or at its right end.
    pub step_centred: bool,
    pub step_baseline: f64,
    pub stroke: f64,
    pub dot: f64,
    /// The area under a single line filled in its colour.
    pub fill: bool,
    /// A legend on the right: each line's name and last value.
    pub legend: bool,
    /// Points per line at most.
    pub points: usize,
}

impl Look {
    /// The report page's: small, styled by the page's CSS.
    pub const PAGE: Look = Look {
        width: 420.0,
        height: 210.0,
        left: 50.0,
        right: 14.0,
        top: 30.0,
        bottom: 34.0,
        head: r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{T}"><text class="ctitle" x="{X}" y="17">{T}</text>"#,
        x_ticks: 5,
        y_ticks: 4,
        percent_floor: 1.0,
        headroom: 1.0,
        grid: "grid",
        axis: "axis",
        tick: "tick",
        y_label_gap: 6.0,
        x_tick_len: 4.0,
        x_label_gap: 17.0,
        left_axis: false,
        step_centred: false,
        step_baseline: 3.0,
        stroke: 1.8,
        dot: 2.8,
        fill: true,
        legend: false,
        points: MAX_POINTS,
    };

    /// The bench's: a standalone file with its own styles and a legend.
    pub const STANDALONE: Look = Look {
        width: 720.0,
        height: 360.0,
        left: 64.0,
        right: 200.0,
        top: 44.0,
        bottom: 48.0,
        head: r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="{T}"><style>text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;fill:#222}.t{font-size:16px;font-weight:600}.k{font-size:12px;fill:#555}.g{stroke:#e4e4e4}.a{stroke:#888}.l{font-size:13px}</style><rect width="{W}" height="{H}" fill="#fff"/><text class="t" x="{X}" y="26">{T}</text>"##,
        x_ticks: 6,
        y_ticks: 5,
        percent_floor: 10.0,
        headroom: 1.08,
        grid: "g",
        axis: "a",
        tick: "k",
        y_label_gap: 8.0,
        x_tick_len: 5.0,
        x_label_gap: 20.0,
        left_axis: true,
        step_centred: true,
        step_baseline: 8.0,
        stroke: 2.2,
        dot: 3.2,
        fill: false,
        legend: true,
        // Plenty for 456 pixels of plot width.
        points: 200,
    };
}

/// A line chart of `lines` over steps, drawn as `look` says.
pub fn line_chart(title: &str, lines: &[Line], unit: Unit, look: &Look) -> String {
    let Look {
        width: w,
        height: h,
        left,
        right,
        top,
        bottom,
        ..
    } = *look;
    let values = || lines.iter().flat_map(|l| l.points.iter());
    let x_hi = values().map(|p| p.0).fold(1.0, f64::max);
    let floor = if unit == Unit::Percent {
        look.percent_floor
    } else {
        1.0
    };
    let y_hi = values().map(|p| p.1).fold(floor, f64::max);
    let y_top = match unit {
        Unit::Percent => (y_hi * look.headroom).min(100.0f64.max(y_hi)),
        _ => y_hi * look.headroom,
    };
    let xt = ticks(0.0, x_hi, look.x_ticks, 1.0);
    let yt = ticks(
        0.0,
        y_top,
        look.y_ticks,
        if unit == Unit::Count { 1.0 } else { 0.0 },
    );
    let x_max = *xt.last().unwrap_or(&x_hi);
    let y_max = *yt.last().unwrap_or(&y_hi);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let base = top + ph;
    let x = |v: f64| left + v / x_max * pw;
    let y = |v: f64| top + ph - v / y_max * ph;
    let t = escape(title);
    let mut s = look
        .head
        .replace("{W}", &w.to_string())
        .replace("{H}", &h.to_string())
        .replace("{X}", &left.to_string())
        .replace("{T}", &t);
    let (grid, axis, tick) = (look.grid, look.axis, look.tick);
    for v in &yt {
        let _ = write!(
            s,
            r#"<line class="{grid}" x1="{left}" x2="{:.1}" y1="{yy:.1}" y2="{yy:.1}"/><text class="{tick}" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left + pw,
            left - look.y_label_gap,
            y(*v) + 4.0,
            label(*v, unit),
            yy = y(*v)
        );
    }
    for v in &xt {
        let _ = write!(
            s,
            r#"<line class="{axis}" x1="{xx:.1}" x2="{xx:.1}" y1="{base:.1}" y2="{:.1}"/><text class="{tick}" x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            base + look.x_tick_len,
            base + look.x_label_gap,
            label(*v, Unit::Count),
            xx = x(*v)
        );
    }
    let _ = write!(
        s,
        r#"<line class="{axis}" x1="{left}" x2="{:.1}" y1="{base:.1}" y2="{base:.1}"/>"#,
        left + pw
    );
    if look.left_axis {
        let _ = write!(
            s,
            r#"<line class="{axis}" x1="{left}" x2="{left}" y1="{top}" y2="{base:.1}"/>"#
        );
    }
    let (sx, anchor) = match look.step_centred {
        true => (left + pw / 2.0, "middle"),
        false => (left + pw, "end"),
    };
    let _ = write!(
        s,
        r#"<text class="{tick}" x="{sx:.1}" y="{:.1}" text-anchor="{anchor}">step</text>"#,
        h - look.step_baseline
    );
    for (i, l) in lines.iter().enumerate() {
        let color = &l.color;
        let dash = match l.dashed {
            true => r#" stroke-dasharray="7 5""#,
            false => "",
        };
        let pts = downsample(&l.points, look.points);
        match pts.as_slice() {
            [] => {}
            [only] if look.legend => {
                // A run that never acted (nothing clickable by its rules): one dot at step 0.
                let _ = write!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{color}"/>"#,
                    x(only.0),
                    y(only.1)
                );
            }
            _ => {
                let (first, last) = (pts[0], pts[pts.len() - 1]);
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
                if look.fill {
                    let _ = write!(
                        s,
                        r#"<path d="{d} L{:.1},{base:.1} L{:.1},{base:.1} Z" fill="{color}" fill-opacity="0.10" stroke="none"/>"#,
                        x(last.0),
                        x(first.0),
                    );
                }
                let _ = write!(
                    s,
                    r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="{}" stroke-linejoin="round"{dash}/><circle cx="{:.1}" cy="{:.1}" r="{}" fill="{color}"/>"#,
                    look.stroke,
                    x(last.0),
                    y(last.1),
                    look.dot,
                );
            }
        }
        if look.legend {
            let ly = top + 10.0 + i as f64 * 22.0;
            let lx = left + pw + 18.0;
            let end = l
                .points
                .last()
                .map(|p| match unit {
                    Unit::Percent => format!("({:.1}%)", p.1),
                    _ => format!("({})", label(p.1.round(), Unit::Count)),
                })
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
    }
    s.push_str("</svg>");
    if look.legend {
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(points: Vec<(f64, f64)>) -> Line {
        Line {
            name: "<script>".into(),
            points,
            color: "#0072B2".into(),
            dashed: true,
        }
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 300.0, 5, 1.0), vec![0.0, 100.0, 200.0, 300.0]);
        assert_eq!(ticks(0.0, 23.0, 4, 1.0), vec![0.0, 10.0, 20.0, 30.0]);
        assert_eq!(ticks(0.0, 2.0, 4, 1.0), vec![0.0, 1.0, 2.0]);
        let t = ticks(0.0, 1.0, 4, 0.0);
        assert!(t.last().unwrap() >= &1.0 && t.len() <= 6);
    }

    #[test]
    fn downsampling_keeps_ends_and_bounds_the_count() {
        let pts: Vec<_> = (0..10_000).map(|i| (i as f64, i as f64)).collect();
        let d = downsample(&pts, MAX_POINTS);
        assert!(d.len() <= MAX_POINTS + 1, "{}", d.len());
        assert_eq!(d.first(), pts.first());
        assert_eq!(d.last(), pts.last());
    }

    #[test]
    fn labels_say_thousands_and_percentages() {
        assert_eq!(label(12_000.0, Unit::Count), "12k");
        assert_eq!(label(2.5, Unit::Seconds), "2.5");
        assert_eq!(label(40.0, Unit::Percent), "40%");
    }

    #[test]
    fn text_is_escaped_in_both_looks() {
        for look in [&Look::PAGE, &Look::STANDALONE] {
            let svg = line_chart(
                "<b>t</b>",
                &[line(vec![(0.0, 1.0), (3.0, 2.0)])],
                Unit::Count,
                look,
            );
            assert!(!svg.contains("<b>") && svg.contains("&lt;b&gt;"), "{svg}");
            assert!(!svg.contains("<script>"), "{svg}");
            assert!(svg.trim_end().ends_with("</svg>"));
        }
        let svg = line_chart(
            "t",
            &[line(vec![(0.0, 1.0)])],
            Unit::Count,
            &Look::STANDALONE,
        );
        assert!(
            svg.contains("&lt;script&gt;") && svg.contains(r#"r="4""#),
            "{svg}"
        );
    }
}
