//! Hand-written SVG charts: a line chart of a counter over steps, and the stacked bar
//! of where a step's time goes. Plain SVG needs no fonts or system libraries, and the
//! page's own CSS styles the text.

use std::fmt::Write as _;

use serde::Serialize;
use wayfarer_core::summary::TimeSplit;

use super::text::{escape, ms};

/// Points drawn per line at most: more than a chart's width in pixels adds nothing.
pub const MAX_POINTS: usize = 500;

const W: f64 = 420.0;
const H: f64 = 210.0;
const LEFT: f64 = 50.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 34.0;

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

/// What a chart's values are, for its tick labels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    /// Whole numbers: no tick between two integers.
    Count,
    Percent,
    Seconds,
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

/// A line chart of `pts` (step, value).
pub fn line_chart(title: &str, pts: &[(f64, f64)], color: &str, unit: Unit) -> String {
    let pts = downsample(pts, MAX_POINTS);
    let x_hi = pts.iter().map(|p| p.0).fold(1.0, f64::max);
    let y_hi = pts.iter().map(|p| p.1).fold(1.0, f64::max);
    let xt = ticks(0.0, x_hi, 5, 1.0);
    let yt = ticks(0.0, y_hi, 4, if unit == Unit::Count { 1.0 } else { 0.0 });
    let x_max = *xt.last().unwrap_or(&x_hi);
    let y_max = *yt.last().unwrap_or(&y_hi);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |v: f64| LEFT + v / x_max * pw;
    let y = |v: f64| TOP + ph - v / y_max * ph;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{t}"><text class="ctitle" x="{LEFT}" y="17">{t}</text>"#,
        t = escape(title)
    );
    for v in &yt {
        let _ = write!(
            s,
            r#"<line class="grid" x1="{LEFT}" x2="{:.1}" y1="{yy:.1}" y2="{yy:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            W - RIGHT,
            LEFT - 6.0,
            y(*v) + 4.0,
            label(*v, unit),
            yy = y(*v)
        );
    }
    for v in &xt {
        let _ = write!(
            s,
            r#"<line class="axis" x1="{xx:.1}" x2="{xx:.1}" y1="{:.1}" y2="{:.1}"/><text class="tick" x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            TOP + ph,
            TOP + ph + 4.0,
            TOP + ph + 17.0,
            label(*v, Unit::Count),
            xx = x(*v)
        );
    }
    let _ = write!(
        s,
        r#"<line class="axis" x1="{LEFT}" x2="{:.1}" y1="{b:.1}" y2="{b:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">step</text>"#,
        W - RIGHT,
        W - RIGHT,
        H - 3.0,
        b = TOP + ph
    );
    if let (Some(first), Some(last)) = (pts.first(), pts.last()) {
        let mut line = String::new();
        for (i, p) in pts.iter().enumerate() {
            let _ = write!(
                line,
                "{}{:.1},{:.1}",
                if i == 0 { "M" } else { " L" },
                x(p.0),
                y(p.1)
            );
        }
        let _ = write!(
            s,
            r#"<path d="{line} L{:.1},{b:.1} L{:.1},{b:.1} Z" fill="{color}" fill-opacity="0.10" stroke="none"/><path d="{line}" fill="none" stroke="{color}" stroke-width="1.8" stroke-linejoin="round"/><circle cx="{:.1}" cy="{:.1}" r="2.8" fill="{color}"/>"#,
            x(last.0),
            x(first.0),
            x(last.0),
            y(last.1),
            b = TOP + ph
        );
    }
    s.push_str("</svg>");
    s
}

/// One part of a step in the time split.
#[derive(Debug, Serialize)]
pub struct TimePart {
    pub name: &'static str,
    pub ms: String,
    pub share: String,
    pub color: &'static str,
}

/// The parts of the mean step, which add up to it: scan, analysis, decide, act, wait,
/// validate, coverage, judge, learn, then what none accounts for ("other"), then the
/// recording done after the step (observers: run store, progress line).
pub fn time_parts(t: &TimeSplit) -> Vec<(&'static str, f64, &'static str)> {
    const COLORS: [(&str, &str, &str); 9] = [
        ("scan", "scan", "#4e79a7"),
        ("analysis", "analysis", "#f28e2b"),
        ("decide", "decide", "#59a14f"),
        ("act", "act", "#b07aa1"),
        ("wait", "wait", "#edc948"),
        ("validate", "validate guesses", "#76b7b2"),
        ("coverage", "coverage", "#ff9da7"),
        ("judge", "judge (oracles)", "#e15759"),
        ("learn", "learn", "#9d7660"),
    ];
    let mut v = Vec::new();
    for (key, label, color) in COLORS {
        let ms = t
            .parts
            .iter()
            .find(|(name, _)| name == key)
            .map_or(0.0, |p| p.1);
        // Parts a run did not have (no inference, no coverage) are left out, not shown as 0.
        if ms > 0.0 || matches!(key, "scan" | "analysis" | "decide" | "act" | "wait") {
            v.push((label, ms, color));
        }
    }
    v.push(("other", t.other, "#bab0ac"));
    if t.observers > 0.0 {
        v.push(("recording", t.observers, "#79706e"));
    }
    v
}

/// The legend rows of the time split.
pub fn time_rows(t: &TimeSplit) -> Vec<TimePart> {
    let parts = time_parts(t);
    let total: f64 = parts.iter().map(|p| p.1).sum::<f64>().max(1e-9);
    parts
        .into_iter()
        .map(|(name, v, color)| TimePart {
            name,
            ms: ms(v),
            share: format!("{:.0}%", v / total * 100.0),
            color,
        })
        .collect()
}

/// A horizontal stacked bar of the mean step's parts.
pub fn time_bar(t: &TimeSplit) -> String {
    let parts = time_parts(t);
    let total: f64 = parts.iter().map(|p| p.1).sum();
    let (w, h) = (600.0, 22.0);
    let mut s = format!(
        r#"<svg class="bar" viewBox="0 0 {w} {h}" preserveAspectRatio="none" role="img" aria-label="time split of the mean step">"#
    );
    if total <= 0.0 {
        let _ = write!(s, r##"<rect width="{w}" height="{h}" fill="#e5e7eb"/>"##);
    }
    let mut x0 = 0.0;
    for (name, v, color) in parts.into_iter().filter(|p| p.1 > 0.0 && total > 0.0) {
        let pw = v / total * w;
        let _ = write!(
            s,
            r#"<rect x="{x0:.2}" width="{pw:.2}" height="{h}" fill="{color}"><title>{name}: {} ms</title></rect>"#,
            ms(v)
        );
        x0 += pw;
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
