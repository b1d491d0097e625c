//! The summary section's numbers: the headline tiles, the detail rows and the seeded
//! bugs table, already formatted (the template only lays them out).

use serde::Serialize;
use wayfarer_store::RunData;

use super::text::{duration, ms, thousands};
use crate::SeededLine;

/// A headline number.
#[derive(Debug, Serialize)]
pub struct Tile {
    pub label: &'static str,
    pub value: String,
    pub sub: String,
    /// Styled as bad news (failures found).
    pub alert: bool,
}

#[derive(Debug, Serialize)]
pub struct Row {
    pub label: &'static str,
    pub value: String,
}

#[derive(Debug, Serialize)]
pub struct SeededRow {
    pub id: String,
    pub description: String,
    pub min_actions: u32,
    pub found_at: Option<u64>,
    pub reported_actions: Option<usize>,
    pub reproduced: Option<String>,
}

fn tile(label: &'static str, value: String, sub: String) -> Tile {
    Tile {
        label,
        value,
        sub,
        alert: false,
    }
}

pub fn tiles(data: &RunData) -> Vec<Tile> {
    let s = &data.summary;
    let mut out = vec![
        tile(
            "Steps",
            thousands(s.steps),
            format!(
                "budget {}",
                if s.budget.is_empty() {
                    &data.meta.budget
                } else {
                    &s.budget
                }
            ),
        ),
        tile("Episodes", thousands(s.episodes), String::new()),
        tile("Distinct states", thousands(s.states as u64), String::new()),
        tile("URLs", thousands(s.urls as u64), String::new()),
        tile(
            "Actions discovered",
            thousands(s.actions_discovered as u64),
            String::new(),
        ),
        Tile {
            alert: !s.failures.is_empty() || !data.failures.is_empty(),
            ..tile(
                "Unique failures",
                thousands(s.failures.len().max(data.failures.len()) as u64),
                match data.failures.iter().map(|f| f.failure.count).sum::<u64>() {
                    0 => String::new(),
                    1 => "seen once".to_string(),
                    n => format!("seen {n} times"),
                },
            )
        },
    ];
    if let Some(c) = &s.js_coverage {
        out.push(tile(
            "JS coverage",
            format!("{:.1}%", c.ratio * 100.0),
            format!(
                "+{:.1} pts over first load",
                (c.ratio - c.first_load_ratio) * 100.0
            ),
        ));
    }
    if let Some(c) = &s.server_coverage {
        let c = &c.totals;
        out.push(tile(
            "Server coverage",
            format!("{:.1}%", c.ratio() * 100.0),
            format!(
                "{} of {} lines ({}), +{} over first load",
                thousands(c.lines_covered),
                thousands(c.lines_total),
                c.stack,
                thousands(c.gain())
            ),
        ));
    }
    let f = &s.form_acceptance;
    if let Some(share) = f.share() {
        out.push(tile(
            "Forms accepted",
            format!("{:.0}%", share * 100.0),
            format!(
                "of {} submissions with valid values",
                thousands(f.submissions)
            ),
        ));
    }
    out.push(tile(
        "Duration",
        duration(s.duration_s),
        format!(
            "{:.2} steps/s, median step {} ms",
            s.steps_per_second,
            ms(s.timings_ms.step)
        ),
    ));
    out
}

pub fn rows(data: &RunData) -> Vec<Row> {
    let s = &data.summary;
    let row = |label, value| Row { label, value };
    let mut out = vec![
        row(
            "Budget",
            if s.budget.is_empty() {
                data.meta.budget.clone()
            } else {
                s.budget.clone()
            },
        ),
        row("Steps per episode", data.meta.episode_steps.to_string()),
        row(
            "Stopped early",
            s.stopped_early.clone().unwrap_or_else(|| "no".into()),
        ),
        row("Browser restarts", thousands(s.restarts)),
        row("Step errors", thousands(s.step_errors)),
    ];
    if !s.workers.is_empty() {
        let each: Vec<String> = s
            .workers
            .iter()
            .map(|w| {
                let mut line = format!(
                    "worker {} ({}): {} steps, {} episodes, {} restarts",
                    w.worker,
                    if w.browser.is_empty() {
                        "?"
                    } else {
                        &w.browser
                    },
                    thousands(w.steps),
                    thousands(w.episodes),
                    thousands(w.restarts)
                );
                if let Some(why) = &w.retired {
                    line.push_str(&format!(", stopped early: {why}"));
                }
                line
            })
            .collect();
        let auto = s
            .auto_workers
            .as_ref()
            .map(|a| format!(" · --workers auto chose {a}"))
            .unwrap_or_default();
        out.push(row(
            "Workers",
            format!(
                "{} browsers at once, one store and one strategy's learning between them{auto} · {}",
                s.workers.len(),
                each.join(" · ")
            ),
        ));
    }
    if s.logged_out > 0 {
        out.push(row(
            "Logged out mid-run",
            format!(
                "{} time(s): the login form came back, the run reset and logged in again",
                thousands(s.logged_out)
            ),
        ));
    }
    if s.form_acceptance.deliberate > 0 {
        out.push(row(
            "Forms broken on purpose",
            format!(
                "{} submissions with a boundary value (+mutate), not in the acceptance share",
                thousands(s.form_acceptance.deliberate)
            ),
        ));
    }
    if let Some(u) = &s.llm {
        let who = match &u.endpoint {
            Some(e) => format!("{} at {e}", u.model),
            None => "the heuristic provider (no model)".to_string(),
        };
        out.push(row("Language model", who));
        out.push(row(
            "Questions",
            format!(
                "{}: {} model calls, {} cache hits, {} heuristic answers",
                thousands(u.questions),
                thousands(u.calls),
                thousands(u.cache_hits),
                thousands(u.heuristic)
            ),
        ));
        if u.calls + u.cache_hits > 0 {
            out.push(row(
                "Model answers",
                format!(
                    "median {} ms, p90 {} ms; {:.0}% malformed; {} prompt + {} completion tokens{}",
                    ms(u.latency_ms_median),
                    ms(u.latency_ms_p90),
                    u.malformed_share() * 100.0,
                    thousands(u.prompt_tokens),
                    thousands(u.completion_tokens),
                    if u.cost > 0.0 {
                        format!("; cost {:.4}", u.cost)
                    } else {
                        String::new()
                    }
                ),
            ));
        }
        if u.failed + u.skipped > 0 {
            out.push(row(
                "Model failures",
                format!(
                    "{} calls failed, {} questions not sent while it was down (the heuristic \
                     answered); last: {}",
                    thousands(u.failed),
                    thousands(u.skipped),
                    u.last_error.as_deref().unwrap_or("?")
                ),
            ));
        }
    }
    for p in &s.properties {
        out.push(row(
            "Property",
            format!(
                "{}: {} (episodes: {} violated, {} pending, {} held, {} not evaluable) {}",
                p.name,
                p.verdict(),
                p.violated,
                p.pending,
                p.held,
                p.errors,
                p.formula
            ),
        ));
    }
    for w in &s.warnings {
        out.push(row(
            "Warning",
            format!(
                "{}: {} (on {}, seen {}x)",
                w.kind.as_str(),
                w.message,
                w.page_url,
                w.count
            ),
        ));
    }
    if let Some(c) = &s.js_coverage {
        out.push(row(
            "JS functions covered",
            format!(
                "{} of {}",
                thousands(c.functions_covered),
                thousands(c.functions_total)
            ),
        ));
        out.push(row(
            "JS bytes covered",
            format!(
                "{} of {} (first load {:.1}%)",
                thousands(c.covered_bytes),
                thousands(c.total_bytes),
                c.first_load_ratio * 100.0
            ),
        ));
    }
    out
}

pub fn seeded(lines: &[SeededLine]) -> Vec<SeededRow> {
    lines
        .iter()
        .map(|l| SeededRow {
            id: l.id.clone(),
            description: l.description.clone(),
            min_actions: l.min_actions,
            found_at: l.found_at_step,
            reported_actions: l.reported_actions,
            reproduced: l.reproduced.clone(),
        })
        .collect()
}

/// Scripts listed in the report's "Code never run" table: the most code never run first.
pub const SCRIPT_ROWS: usize = 20;

/// One script's row of the "Code never run" table, formatted.
#[derive(Debug, Serialize)]
pub struct ScriptRow {
    pub url: String,
    pub size: String,
    pub ran: String,
    pub first_load: String,
    pub never: String,
}

/// The scripts with the most bytes never run, as `report.json` orders them.
pub fn scripts(data: &RunData) -> Vec<ScriptRow> {
    let Some(c) = &data.summary.js_coverage else {
        return Vec::new();
    };
    let share = |part: u64, whole: u64| {
        if whole == 0 {
            "–".to_string()
        } else {
            format!("{:.0}%", part as f64 * 100.0 / whole as f64)
        }
    };
    c.scripts
        .iter()
        .take(SCRIPT_ROWS)
        .map(|r| ScriptRow {
            url: r.url.clone(),
            size: thousands(r.bytes),
            ran: share(r.covered_bytes, r.bytes),
            first_load: share(r.first_load_covered_bytes, r.bytes),
            never: thousands(r.bytes.saturating_sub(r.covered_bytes)),
        })
        .collect()
}

/// Server files listed in the report's "Server code never run" table.
pub const SERVER_FILE_ROWS: usize = 20;

/// One server file's row of the "Server code never run" table, formatted.
#[derive(Debug, Serialize)]
pub struct ServerFileRow {
    pub path: String,
    pub lines: String,
    pub ran: String,
    pub first_load: String,
    pub never: String,
}

/// The server files with the most lines never run, as `report.json` orders them.
pub fn server_files(data: &RunData) -> Vec<ServerFileRow> {
    let Some(c) = &data.summary.server_coverage else {
        return Vec::new();
    };
    let share = |part: u64, whole: u64| {
        if whole == 0 {
            "–".to_string()
        } else {
            format!("{:.0}%", part as f64 * 100.0 / whole as f64)
        }
    };
    c.by_file
        .iter()
        .take(SERVER_FILE_ROWS)
        .map(|f| ServerFileRow {
            path: f.path.clone(),
            lines: thousands(f.lines),
            ran: share(f.covered, f.lines),
            first_load: share(f.first_covered, f.lines),
            never: thousands(f.lines.saturating_sub(f.covered)),
        })
        .collect()
}
