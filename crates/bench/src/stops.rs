//! `stops.md`: where exploration stops. For each strategy run, read back from its store:
//! how the covered JavaScript grew over time, when the run last saw a new script, a new
//! endpoint and a new page ([`NoveltyTracker`]), how many steps went to its five most
//! repeated actions, and what its resets cost. Medians per application and strategy say
//! what limits each application before anyone changes the explorer.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use wayfarer_core::NoveltyTracker;
use wayfarer_store::RunData;

use crate::engine::BenchResult;
use crate::plan::Plan;
use crate::BenchError;

/// The times (s) at which the covered JavaScript is read: does it still grow at 2, 5, 10
/// minutes? A table shows the marks its runs lasted past.
pub const MARKS: [u32; 5] = [30, 60, 120, 300, 600];

/// Where one run stopped finding anything new. Times are seconds since the run began.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stops {
    pub steps: u64,
    pub episodes: u64,
    /// Bytes of app JavaScript covered beyond the first load at each of [`MARKS`], and at
    /// the end.
    pub gain_at: [u64; MARKS.len()],
    pub gain_end: u64,
    /// When the run's last step ended.
    pub duration_s: f64,
    /// When the covered bytes last grew.
    pub last_growth_s: f64,
    pub scripts: usize,
    pub last_script_s: f64,
    pub endpoints: usize,
    pub last_endpoint_s: f64,
    pub urls: usize,
    pub last_url_s: f64,
    /// Distinct actions taken, and the share of the steps that went to the five taken
    /// most often.
    pub distinct_actions: usize,
    pub top5_share: f64,
    /// The median time between an episode's last step and the next one's first, less
    /// that step's own time: what a reset (and the login it replays) costs.
    pub reset_ms: Option<u64>,
    /// Share of the run spent resetting.
    pub reset_share: f64,
}

/// Where the run stored in `run` stopped; `None` for a run without steps.
pub fn stops(run: &RunData) -> Option<Stops> {
    let first = run.steps.first()?;
    let origin = url::Url::parse(
        run.resets
            .first()
            .map_or(first.record.url_after.as_str(), |r| r.url.as_str()),
    )
    .ok()
    .map(|u| u.origin().ascii_serialization());
    let mut novelty = NoveltyTracker::new(origin.into_iter().collect());
    let mut r = Stops {
        steps: run.steps.len() as u64,
        episodes: run.resets.len() as u64,
        ..Stops::default()
    };
    for reset in &run.resets {
        // What the start page loads is seen at time 0: not a novelty of exploration.
        if reset.after_step == 0 {
            novelty.absorb(&reset.events, &reset.url, None);
        }
    }
    let mut actions: HashMap<String, u64> = HashMap::new();
    let mut covered_max = 0;
    let mut first_load = None;
    let mut gains = Vec::new();
    for s in &run.steps {
        let t = s.sample.elapsed_ms as f64 / 1000.0;
        *actions.entry(s.record.action.describe()).or_default() += 1;
        let functions = s.sample.coverage.map(|c| c.functions_covered);
        let n = novelty.absorb(&s.record.events, &s.record.url_after, functions);
        if n.scripts > 0 {
            r.last_script_s = t;
        }
        if n.endpoints > 0 {
            r.last_endpoint_s = t;
        }
        if n.urls > 0 {
            r.last_url_s = t;
        }
        if let Some(c) = s.sample.coverage {
            first_load.get_or_insert(c.first_load_covered_bytes);
            if c.covered_bytes > covered_max {
                if covered_max > 0 {
                    r.last_growth_s = t;
                }
                covered_max = c.covered_bytes;
            }
            gains.push((t, covered_max));
        }
    }
    let base = first_load.unwrap_or(0);
    let at = |secs: f64| {
        gains
            .iter()
            .take_while(|(t, _)| *t <= secs)
            .last()
            .map_or(0, |(_, c)| c.saturating_sub(base))
    };
    r.gain_at = MARKS.map(|m| at(f64::from(m)));
    r.gain_end = covered_max.saturating_sub(base);
    r.duration_s = run
        .steps
        .last()
        .map_or(0.0, |s| s.sample.elapsed_ms as f64 / 1000.0);
    (r.scripts, r.endpoints, r.urls) = novelty.seen();
    r.distinct_actions = actions.len();
    let mut counts: Vec<u64> = actions.into_values().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    r.top5_share = counts.iter().take(5).sum::<u64>() as f64 / r.steps.max(1) as f64;
    let mut resets: Vec<u64> = run
        .steps
        .windows(2)
        // The first step of an episode after the previous one's last (one worker).
        .filter(|w| {
            let (a, b) = (&w[0].record, &w[1].record);
            b.episode != a.episode && b.episode_step <= 1 && b.worker == a.worker
        })
        .map(|w| {
            let gap = w[1]
                .sample
                .elapsed_ms
                .saturating_sub(w[0].sample.elapsed_ms);
            gap.saturating_sub(w[1].record.timings.total.as_millis() as u64)
        })
        .collect();
    let end_ms = run.steps.last().map_or(0, |s| s.sample.elapsed_ms);
    r.reset_share = resets.iter().sum::<u64>() as f64 / end_ms.max(1) as f64;
    resets.sort_unstable();
    r.reset_ms = resets.get(resets.len() / 2).copied();
    Some(r)
}

/// Write `stops.md` into the bench's output, from the stores of its strategy runs.
pub(crate) fn write(plan: &Plan, result: &BenchResult) -> Result<PathBuf, BenchError> {
    let path = plan.out.join("stops.md");
    let mut rows: Vec<(String, String, Stops)> = Vec::new();
    let mut unread = Vec::new();
    for (t, o) in &result.runs {
        let Some(dir) = o.dir.as_deref().filter(|_| o.row.kind == "strategy") else {
            continue;
        };
        match load(dir) {
            Ok(Some(r)) => rows.push((t.name().to_string(), o.row.who(), r)),
            Ok(None) => {}
            Err(e) => unread.push(format!("{}: {e}", dir.display())),
        }
    }
    crate::write_masked(&path, &markdown(&rows, &unread))?;
    Ok(path)
}

fn load(dir: &Path) -> Result<Option<Stops>, wayfarer_store::StoreError> {
    Ok(stops(&wayfarer_store::load(dir)?))
}

fn median(v: Vec<f64>) -> f64 {
    crate::table::median(v).unwrap_or(0.0)
}

/// One line per application and strategy (medians over its runs), in the order met.
pub fn markdown(rows: &[(String, String, Stops)], unread: &[String]) -> String {
    // The marks some run lasted well past: 30 s and 60 s for two-minute runs, and 2 and
    // 5 minutes too for ten-minute ones.
    let longest = rows
        .iter()
        .map(|(_, _, r)| r.duration_s)
        .fold(0.0, f64::max);
    let marks: Vec<usize> = (0..MARKS.len())
        .filter(|&i| longest > f64::from(MARKS[i]) * 1.25 || i < 2)
        .collect();
    let label = |m: u32| {
        if m < 120 {
            format!("{m} s")
        } else {
            format!("{} min", m / 60)
        }
    };
    let names: Vec<String> = marks.iter().map(|&i| label(MARKS[i])).collect();
    let mut s = format!(
        "# Where exploration stops\n\nPer application and strategy, medians over the seeds. \
         *gain*: KB of application JavaScript covered beyond the first load, after {} \
         and at the end; *last growth*: when it last grew. *scripts*, *endpoints* \
         (a request's path with ids masked and its parameter names), *pages*: how many the \
         run saw, and when it saw the last new one (s). *top 5*: share of the steps spent \
         on the five actions taken most. *reset*: median price of one reset (with its \
         login), and the share of the run spent resetting.\n\n\
         | app | strategy | runs | steps | gain {} / end (KB) | last growth | \
         scripts (last) | endpoints (last) | pages (last) | top 5 | reset |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
        names.join(", "),
        names.join(" / "),
    );
    let mut groups: Vec<((&str, &str), Vec<&Stops>)> = Vec::new();
    for (app, who, r) in rows {
        match groups
            .iter_mut()
            .find(|(k, _)| *k == (app.as_str(), who.as_str()))
        {
            Some((_, v)) => v.push(r),
            None => groups.push(((app.as_str(), who.as_str()), vec![r])),
        }
    }
    for ((app, who), runs) in &groups {
        let m = |f: &dyn Fn(&Stops) -> f64| median(runs.iter().map(|r| f(r)).collect());
        let kb = |f: &dyn Fn(&Stops) -> u64| format!("{:.0}", m(&|r: &Stops| f(r) as f64) / 1000.0);
        let reset = {
            let known: Vec<f64> = runs
                .iter()
                .filter_map(|r| r.reset_ms)
                .map(|v| v as f64)
                .collect();
            if known.is_empty() {
                "–".to_string()
            } else {
                format!(
                    "{:.1} s ({:.0}%)",
                    median(known) / 1000.0,
                    m(&|r: &Stops| r.reset_share) * 100.0
                )
            }
        };
        let _ = writeln!(
            s,
            "| {app} | {who} | {} | {:.0} | {} / {} | {:.0} s | {:.0} ({:.0} s) | {:.0} ({:.0} s) | {:.0} ({:.0} s) | {:.0}% | {reset} |",
            runs.len(),
            m(&|r: &Stops| r.steps as f64),
            marks
                .iter()
                .map(|&i| kb(&|r: &Stops| r.gain_at[i]))
                .collect::<Vec<_>>()
                .join(" / "),
            kb(&|r: &Stops| r.gain_end),
            m(&|r: &Stops| r.last_growth_s),
            m(&|r: &Stops| r.scripts as f64),
            m(&|r: &Stops| r.last_script_s),
            m(&|r: &Stops| r.endpoints as f64),
            m(&|r: &Stops| r.last_endpoint_s),
            m(&|r: &Stops| r.urls as f64),
            m(&|r: &Stops| r.last_url_s),
            m(&|r: &Stops| r.top5_share) * 100.0,
        );
    }
    if !unread.is_empty() {
        s.push_str("\nRuns whose store could not be read:\n\n");
        for u in unread {
            let _ = writeln!(s, "- {u}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(steps: u64, gain_end: u64, reset_ms: Option<u64>) -> Stops {
        Stops {
            steps,
            episodes: 2,
            gain_at: [gain_end / 2, gain_end, gain_end, gain_end, gain_end],
            gain_end,
            duration_s: 120.0,
            last_growth_s: 50.0,
            scripts: 3,
            last_script_s: 10.0,
            endpoints: 4,
            last_endpoint_s: 20.0,
            urls: 5,
            last_url_s: 30.0,
            distinct_actions: 9,
            top5_share: 0.25,
            reset_ms,
            reset_share: 0.05,
        }
    }

    #[test]
    fn one_line_per_app_and_strategy_with_the_medians_of_its_runs() {
        let rows = vec![
            (
                "wiki".to_string(),
                "random".to_string(),
                run(100, 10_000, Some(2000)),
            ),
            (
                "wiki".to_string(),
                "random".to_string(),
                run(300, 30_000, None),
            ),
            (
                "wiki".to_string(),
                "random".to_string(),
                run(200, 20_000, Some(4000)),
            ),
            (
                "wiki".to_string(),
                "webexplor".to_string(),
                run(50, 0, None),
            ),
        ];
        let md = markdown(&rows, &["runs/x: no store".to_string()]);
        assert!(
            md.contains(
                "| wiki | random | 3 | 200 | 10 / 20 / 20 | 50 s | 3 (10 s) | 4 (20 s) | 5 (30 s) | 25% | 3.0 s (5%) |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| wiki | webexplor | 1 | 50 | 0 / 0 / 0 |"),
            "{md}"
        );
        assert!(md.contains("| – |\n"), "no reset measured: {md}");
        assert!(md.contains("- runs/x: no store"), "{md}");
        assert!(md.contains("after 30 s, 60 s and at the end"), "{md}");
    }

    #[test]
    fn ten_minute_runs_also_say_what_they_had_at_two_and_five_minutes() {
        let long = Stops {
            gain_at: [1000, 2000, 3000, 4000, 5000],
            gain_end: 5000,
            duration_s: 600.0,
            ..run(3000, 5000, None)
        };
        let md = markdown(&[("wiki".to_string(), "guided".to_string(), long)], &[]);
        assert!(
            md.contains("| gain 30 s / 60 s / 2 min / 5 min / end (KB) |"),
            "{md}"
        );
        assert!(
            md.contains("| wiki | guided | 1 | 3000 | 1 / 2 / 3 / 4 / 5 |"),
            "{md}"
        );
    }
}
