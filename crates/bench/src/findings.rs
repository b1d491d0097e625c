//! `findings.md`: every unique failure of the benchmark, per application, with the tools
//! and runs that found it: where triage starts (is it a real defect, the application's
//! stock noise, or a false positive of the tool?). Strategy runs keep a store to build a
//! replayable trace from (`wayfarer report DIR`); each run directory also holds the
//! server's log when the bench started the application.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use wayfarer_core::text::truncate;

use crate::engine::BenchResult;
use crate::plan::Plan;
use crate::BenchError;

/// One failure signature on one application, and who found it.
#[derive(Default)]
struct Finding {
    kind: String,
    message: String,
    page: String,
    /// Tool -> runs that found it.
    by: BTreeMap<String, Vec<u64>>,
    /// Where it was first found: (found by a peer, step) and the run directory.
    first: Option<((bool, u64), String)>,
}

/// `s` with every loopback origin's port written as `PORT`: each run of a bench gets a
/// server on a port of its own, so one fault's signature (its source URL) differs by port
/// from run to run.
fn portless(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = ["http://127.0.0.1:", "http://localhost:"]
        .iter()
        .filter_map(|p| rest.find(p).map(|i| (i, p.len())))
        .min()
    {
        let (i, len) = at;
        out.push_str(&rest[..i + len]);
        rest = &rest[i + len..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push_str("PORT");
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

fn md(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// Write `findings.md` into the bench's output; returns its path.
pub(crate) fn write(plan: &Plan, result: &BenchResult) -> Result<PathBuf, BenchError> {
    let path = plan.out.join("findings.md");
    crate::write_masked(&path, &markdown(plan, result))?;
    Ok(path)
}

fn markdown(plan: &Plan, result: &BenchResult) -> String {
    let mut s = String::from(
        "# Failures found, per application\n\nEvery unique failure (by signature) of the \
         benchmark, with the tools that found it and in how many of their runs. A strategy \
         run's directory holds its store: `wayfarer report DIR` writes its traces, which \
         `wayfarer replay` and `wayfarer minimize` take. A run's `server.log` is the \
         application's output during it.\n",
    );
    for target in &plan.targets {
        let name = target.name();
        let mut runs_of: BTreeMap<String, usize> = BTreeMap::new();
        let mut found: BTreeMap<String, Finding> = BTreeMap::new();
        for (t, o) in &result.runs {
            if t.name() != name {
                continue;
            }
            let who = o.row.who();
            *runs_of.entry(who.clone()).or_default() += 1;
            for f in &o.failures {
                let e = found.entry(portless(&f.signature)).or_default();
                if e.kind.is_empty() {
                    e.kind = f.kind.clone();
                    e.message = portless(&f.message);
                    e.page = portless(&f.page_url);
                }
                e.by.entry(who.clone()).or_default().push(o.row.seed);
                let dir = o
                    .dir
                    .as_ref()
                    .and_then(|d| {
                        d.strip_prefix(&plan.out)
                            .ok()
                            .map(|p| p.display().to_string())
                    })
                    .unwrap_or_default();
                // A strategy run's (it has a store to replay from) before a peer's, then
                // the earliest.
                let key = (o.row.kind != "strategy", f.step);
                if e.first.as_ref().is_none_or(|(k, _)| key < *k) {
                    e.first = Some((key, dir));
                }
            }
        }
        let _ = writeln!(s, "\n## {}\n", md(&name));
        if found.is_empty() {
            s.push_str("No failure.\n");
            continue;
        }
        s.push_str("| # | kind | message | page | found by (runs) | first at | run |\n");
        s.push_str("|---|---|---|---|---|---|---|\n");
        for (i, f) in found.values().enumerate() {
            let by: Vec<String> =
                f.by.iter()
                    .map(|(who, seeds)| {
                        format!(
                            "{who} {}/{}",
                            seeds.len(),
                            runs_of.get(who).copied().unwrap_or(0)
                        )
                    })
                    .collect();
            // A page-made URL can run to kilobytes (TiddlyWiki's drop of HTML into its
            // story river made one of 40 kB): a table row shows its start.
            let message = truncate(&f.message, 200);
            let page = truncate(&f.page, 200);
            let ((_, step), dir) = f.first.clone().unwrap_or_default();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | step {} | `{}` |",
                i + 1,
                md(&f.kind),
                md(&message),
                md(&page),
                by.join(", "),
                step,
                md(&dir)
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_ports_are_masked_and_nothing_else() {
        assert_eq!(
            portless("exception|x|http://127.0.0.1:39693/eval/user1:4:7 and http://localhost:8/a"),
            "exception|x|http://127.0.0.1:PORT/eval/user1:4:7 and http://localhost:PORT/a"
        );
        assert_eq!(portless("http://127.0.0.1:/x é"), "http://127.0.0.1:/x é");
        assert_eq!(
            portless("https://example.test:443/"),
            "https://example.test:443/"
        );
    }

    /// A drop of HTML into TiddlyWiki's story river made a 40 kB page URL, which the
    /// table printed whole on one row.
    #[test]
    fn a_long_page_or_message_shows_its_start() {
        use crate::plan::Target;
        use wayfarer_core::summary::FailureLine;

        let target = Target::Url("http://127.0.0.1:9/".parse().unwrap());
        let mut plan = Plan::for_tests("guided", vec![1]);
        plan.targets = vec![target.clone()];
        let page = format!("http://127.0.0.1:9/#{}", "tc-tiddler%20".repeat(3000));
        let failure = FailureLine {
            kind: "console_error".into(),
            signature: "console_error|TypeError".into(),
            message: format!("Uncaught TypeError: {}", "x".repeat(500)),
            page_url: page.clone(),
            step: 42,
            ..FailureLine::default()
        };
        let row = crate::metrics::RunRow {
            app: "tiddlywiki".into(),
            strategy: "guided".into(),
            kind: "strategy".into(),
            seed: 1,
            ..Default::default()
        };
        let result = BenchResult {
            runs: vec![(
                target,
                crate::execute::RunOutcome {
                    row,
                    series: vec![],
                    actions: vec![],
                    failures: vec![failure],
                    dir: None,
                    scripts: vec![],
                },
            )],
            ..Default::default()
        };
        let text = markdown(&plan, &result);
        let row = text.lines().find(|l| l.starts_with("| 1 |")).unwrap();
        assert!(row.len() < 1000, "{} characters: {row}", row.len());
        assert!(
            row.contains("| http://127.0.0.1:PORT/#tc-tiddler%20"),
            "{row}"
        );
        assert!(row.contains("…"), "{row}");
        assert!(row.contains("step 42"), "{row}");
    }
}
