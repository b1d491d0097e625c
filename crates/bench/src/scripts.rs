//! `scripts.md`: what of each application's JavaScript any run ran, script by script, and
//! each tool's median against it. The most one run of any tool ran of each script, summed
//! over the scripts, is what the bench shows the application gives up in its budget (a
//! lower bound of the union of the runs): a tool's gain cannot be told apart from the best
//! one's when both sit near it, and no tool can gain more than that ceiling allows. The
//! scripts with the most code no run ran say where the rest lives.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use wayfarer_core::ScriptReach;

use crate::engine::BenchResult;
use crate::plan::Plan;
use crate::BenchError;

/// Scripts listed per application, most code never run by any run first.
const LISTED: usize = 10;

/// One run's coverage script by script.
pub struct RunScripts<'a> {
    pub app: &'a str,
    /// The strategy (with its inference and workers) or peer, as the tables name it.
    pub who: String,
    /// A strategy run (its first load is the baseline of the gains), not a peer's.
    pub strategy: bool,
    pub scripts: &'a [ScriptReach],
}

/// Write `scripts.md` into the bench's output.
pub(crate) fn write(plan: &Plan, result: &BenchResult) -> Result<PathBuf, BenchError> {
    let path = plan.out.join("scripts.md");
    let names: Vec<String> = result.runs.iter().map(|(t, _)| t.name()).collect();
    let runs: Vec<RunScripts<'_>> = result
        .runs
        .iter()
        .zip(&names)
        .map(|((_, o), app)| RunScripts {
            app,
            who: o.row.who(),
            strategy: o.row.kind == "strategy",
            scripts: &o.scripts,
        })
        .collect();
    crate::write_masked(&path, &markdown(&runs))?;
    Ok(path)
}

/// The most of one script any run saw and ran.
#[derive(Default)]
struct Best {
    bytes: u64,
    covered: u64,
    /// Runs that loaded it.
    loaded: usize,
}

fn kb(b: f64) -> String {
    format!("{:.1}", b / 1000.0)
}

fn median(v: Vec<f64>) -> Option<f64> {
    crate::table::median(v)
}

/// The tables of `scripts.md`, applications and tools in the order met.
pub fn markdown(runs: &[RunScripts<'_>]) -> String {
    let mut s = String::from(
        "# Code never run\n\nPer application, script by script (one row per URL, a page's \
         inline scripts together): *any run* is the most of each script one run of any tool \
         ran, summed over the scripts, a lower bound of what the runs reached together. Its \
         *gain* is over the strategies' median first load; each tool's median gain is given \
         as a share of it: a tool near 100% leaves the others little to find in this \
         budget. KB of application JavaScript.\n\n",
    );
    let mut apps: Vec<&str> = Vec::new();
    for r in runs {
        if !r.scripts.is_empty() && !apps.contains(&r.app) {
            apps.push(r.app);
        }
    }
    if apps.is_empty() {
        s.push_str("No run measured JavaScript coverage.\n");
        return s;
    }
    s.push_str(
        "| app | runs | loaded | ran by any run | gain of any run | each tool's median gain (share of any run's) |\n\
         |---|---|---|---|---|---|\n",
    );
    let mut details = String::new();
    for app in apps {
        let of_app: Vec<&RunScripts<'_>> = runs
            .iter()
            .filter(|r| r.app == app && !r.scripts.is_empty())
            .collect();
        let mut best: HashMap<&str, Best> = HashMap::new();
        let mut order: Vec<&str> = Vec::new();
        for r in &of_app {
            for sc in r.scripts {
                let b = best.entry(sc.url.as_str()).or_insert_with(|| {
                    order.push(sc.url.as_str());
                    Best::default()
                });
                b.bytes = b.bytes.max(sc.bytes);
                b.covered = b.covered.max(sc.covered_bytes);
                b.loaded += 1;
            }
        }
        let loaded: u64 = best.values().map(|b| b.bytes).sum();
        let any: u64 = best.values().map(|b| b.covered).sum();
        let first = |r: &RunScripts<'_>| {
            r.scripts
                .iter()
                .map(|x| x.first_load_covered_bytes)
                .sum::<u64>() as f64
        };
        let covered = |r: &RunScripts<'_>| r.scripts.iter().map(|x| x.covered_bytes).sum::<u64>();
        let base = median(
            of_app
                .iter()
                .filter(|r| r.strategy)
                .map(|r| first(r))
                .collect(),
        )
        .or_else(|| median(of_app.iter().map(|r| first(r)).collect()))
        .unwrap_or(0.0);
        let any_gain = (any as f64 - base).max(0.0);
        let mut tools: Vec<&str> = Vec::new();
        for r in &of_app {
            if !tools.contains(&r.who.as_str()) {
                tools.push(&r.who);
            }
        }
        let shares: Vec<String> = tools
            .iter()
            .map(|t| {
                let gains: Vec<f64> = of_app
                    .iter()
                    .filter(|r| r.who == *t)
                    .map(|r| (covered(r) as f64 - first(r)).max(0.0))
                    .collect();
                let g = median(gains).unwrap_or(0.0);
                let share = if any_gain > 0.0 {
                    format!("{:.0}%", g * 100.0 / any_gain)
                } else {
                    "–".into()
                };
                format!("{t} {} ({share})", kb(g))
            })
            .collect();
        let _ = writeln!(
            s,
            "| {app} | {} | {} | {} | {} | {} |",
            of_app.len(),
            kb(loaded as f64),
            kb(any as f64),
            kb(any_gain),
            shares.join(", ")
        );
        let mut left: Vec<(&str, &Best)> = order.iter().map(|u| (*u, &best[u])).collect();
        left.sort_by(|a, b| {
            (b.1.bytes - b.1.covered)
                .cmp(&(a.1.bytes - a.1.covered))
                .then_with(|| a.0.cmp(b.0))
        });
        let _ = write!(
            details,
            "\n## {app}\n\n{} scripts; those with the most code no run ran:\n\n\
             | script | KB | ran by the best run | never run by any run (KB) | loaded in (runs) |\n\
             |---|---|---|---|---|\n",
            order.len()
        );
        for (url, b) in left.iter().take(LISTED) {
            let ran = if b.bytes > 0 {
                b.covered as f64 * 100.0 / b.bytes as f64
            } else {
                0.0
            };
            let _ = writeln!(
                details,
                "| `{}` | {} | {ran:.0}% | {} | {} of {} |",
                url.replace('|', "%7C").replace('`', "%60"),
                kb(b.bytes as f64),
                kb((b.bytes - b.covered) as f64),
                b.loaded,
                of_app.len()
            );
        }
    }
    s.push_str(&details);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sc(url: &str, bytes: u64, covered: u64, first: u64) -> ScriptReach {
        ScriptReach {
            url: url.into(),
            bytes,
            covered_bytes: covered,
            first_load_covered_bytes: first,
        }
    }

    #[test]
    fn any_run_takes_the_most_of_each_script_and_tools_are_shares_of_its_gain() {
        // random ran more of app.js, guided opened the editor's chunk: together they
        // reached more than either.
        let random = [
            vec![sc("http://a/app.js", 1000, 700, 400)],
            vec![sc("http://a/app.js", 1000, 600, 400)],
        ];
        let guided = [vec![
            sc("http://a/app.js", 1000, 500, 400),
            sc("http://a/editor.js", 2000, 300, 0),
        ]];
        let peer = [vec![sc("http://a/app.js", 1000, 450, 450)]];
        let mut runs = Vec::new();
        for r in &random {
            runs.push(RunScripts {
                app: "wiki",
                who: "random".into(),
                strategy: true,
                scripts: r,
            });
        }
        for r in &guided {
            runs.push(RunScripts {
                app: "wiki",
                who: "guided".into(),
                strategy: true,
                scripts: r,
            });
        }
        for r in &peer {
            runs.push(RunScripts {
                app: "wiki",
                who: "bombadil".into(),
                strategy: false,
                scripts: r,
            });
        }
        let md = markdown(&runs);
        // Loaded 3.0 KB; any run ran 700 + 300 = 1.0 KB; the strategies' first load is
        // 0.4 KB, so any run gained 0.6 KB: random's median 0.25 is 42% of it, guided's
        // 0.4 is 67%, Bombadil's 0 is 0%.
        assert!(
            md.contains("| wiki | 4 | 3.0 | 1.0 | 0.6 | random 0.2 (42%), guided 0.4 (67%), bombadil 0.0 (0%) |"),
            "{md}"
        );
        // The editor's chunk has the most never run, loaded by one run of four.
        let editor = md
            .find("| `http://a/editor.js` | 2.0 | 15% | 1.7 | 1 of 4 |")
            .expect(&md);
        assert!(
            editor
                < md.find("| `http://a/app.js` | 1.0 | 70% | 0.3 | 4 of 4 |")
                    .expect(&md)
        );
    }

    #[test]
    fn runs_without_coverage_say_so() {
        let md = markdown(&[RunScripts {
            app: "x",
            who: "random".into(),
            strategy: true,
            scripts: &[],
        }]);
        assert!(md.contains("No run measured JavaScript coverage."));
    }
}
