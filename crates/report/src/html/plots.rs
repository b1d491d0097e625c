//! The page's charts: a counter over steps (`crate::chart` in the page's look), and the
//! stacked bar of where a step's time goes, styled by the page's own CSS.

use std::fmt::Write as _;

use serde::Serialize;
use wayfarer_core::summary::TimeSplit;

use super::text::ms;

pub use crate::chart::Unit;
use crate::chart::{Line, Look};

/// A line chart of `pts` (step, value) for the page.
pub fn line_chart(title: &str, pts: &[(f64, f64)], color: &str, unit: Unit) -> String {
    let line = Line {
        name: title.to_string(),
        points: pts.to_vec(),
        color: color.to_string(),
        dashed: false,
    };
    crate::chart::line_chart(title, &[line], unit, &Look::PAGE)
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
