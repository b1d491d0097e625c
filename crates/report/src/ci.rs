//! CI outputs of a run: GitHub Actions annotations (workflow commands on stdout) and a
//! Markdown job summary (for `$GITHUB_STEP_SUMMARY`), each failure with its verdict,
//! whether it is new, and its minimal steps to reproduce.

use std::collections::HashMap;
use std::fmt::Write as _;

use wayfarer_core::findings::{NewOrKnown, Verdict};
use wayfarer_core::summary::FailureLine;
use wayfarer_core::trace::TraceStep;
use wayfarer_store::RunData;

use crate::one_line;

/// Failures written out in full in the job summary; the rest are counted. GitHub cuts a
/// step summary at 1 MiB, and this many stays far below it with the caps below.
const MAX_FAILURES: usize = 50;
/// Steps listed per failure (a trace that was not shrunk can be hundreds long).
const MAX_STEPS: usize = 30;
/// Characters of a message shown (an error page's text can be megabytes).
const MAX_MESSAGE: usize = 2000;
/// GitHub shows an annotation's title on one line; longer ones are cut anyway.
const MAX_TITLE: usize = 120;

/// `%`, CR and LF escaped as GitHub's workflow commands read a command's data (the
/// message after `::`): the command then stays on one line whatever the text holds.
pub fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// As [`escape_data`], plus `:` and `,`, which end a property value (`title=...`).
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// A failure line of the summary with what the reports need beside it.
struct Item<'a> {
    line: &'a FailureLine,
    /// Its index in `data.failures` (for the trace file name), when the store has it.
    index: Option<usize>,
    trace: &'a [TraceStep],
}

impl Item<'_> {
    /// The steps to reproduce it: the kept ones when shrinking left a minimal trace of
    /// this very trace, else the whole trace.
    fn steps(&self) -> Vec<TraceStep> {
        self.line
            .shrunk
            .as_ref()
            .filter(|s| s.outside_state.is_none())
            .and_then(|s| s.steps(self.trace))
            .unwrap_or_else(|| self.trace.to_vec())
    }

    fn verdict(&self) -> Verdict {
        self.line.verdict()
    }

    /// "reproduced 3/3", ..., or "unconfirmed (never replayed)" when no confirming
    /// replay ran.
    fn verdict_text(&self) -> String {
        self.line.verdict_text()
    }

    /// An error: new (or no baseline to tell) and not known to be flaky.
    fn is_error(&self) -> bool {
        self.line.baseline != Some(NewOrKnown::Known)
            && matches!(self.verdict(), Verdict::Confirmed | Verdict::Unconfirmed)
    }

    fn trace_file(&self, data: &RunData) -> Option<String> {
        self.index.map(|i| {
            format!(
                "traces/{}",
                crate::traces::file_name(i, &data.failures[i].failure)
            )
        })
    }

    fn steps_heading(&self, shown: usize) -> String {
        let of = self.trace.len();
        format!("Steps to reproduce ({shown} of {of} action{}):", plural(of))
    }
}

fn items(data: &RunData) -> Vec<Item<'_>> {
    let mut by_signature: HashMap<&str, usize> = HashMap::new();
    for (i, f) in data.failures.iter().enumerate() {
        by_signature
            .entry(f.failure.signature.as_str())
            .or_insert(i);
    }
    data.summary
        .failures
        .iter()
        .map(|line| {
            let index = by_signature.get(line.signature.as_str()).copied();
            Item {
                line,
                index,
                trace: index.map_or(&[][..], |i| &data.failures[i].failure.trace),
            }
        })
        .collect()
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `text` cut to `max` characters, saying how much was left out.
fn capped(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}… ({} more characters)", n - max)
    }
}

/// `new since the baseline`, `known: the baseline had it too`, or nothing.
fn baseline_text(line: &FailureLine) -> Option<&'static str> {
    match line.baseline? {
        NewOrKnown::New => Some("new since the baseline"),
        NewOrKnown::Known => Some("known: the baseline had it too"),
    }
}

/// One GitHub Actions workflow command per unique failure: `::error` for a new one that
/// reproduced (or was never replayed: unconfirmed), `::warning` for a flaky, unreproduced
/// or known one.
/// Errors come first: GitHub shows only the first ten of each level per step.
pub fn github_annotations(data: &RunData) -> String {
    let items = items(data);
    let (errors, warnings): (Vec<&Item>, Vec<&Item>) = items.iter().partition(|i| i.is_error());
    let mut out = String::new();
    for (level, item) in errors
        .into_iter()
        .map(|i| ("error", i))
        .chain(warnings.into_iter().map(|i| ("warning", i)))
    {
        let line = item.line;
        let title = one_line(
            &format!("wayfarer: {}: {}", line.kind, line.message),
            MAX_TITLE,
        );
        let _ = writeln!(
            out,
            "::{level} title={}::{}",
            escape_property(&title),
            escape_data(&annotation_body(item, data))
        );
    }
    out
}

fn annotation_body(item: &Item, data: &RunData) -> String {
    let line = item.line;
    let mut body = capped(line.message.trim_end(), MAX_MESSAGE);
    if !line.page_url.is_empty() {
        let _ = write!(body, "\nPage: {}", line.page_url);
    }
    let mut verdict = item.verdict_text();
    if let Some(b) = baseline_text(line) {
        let _ = write!(verdict, " · {b}");
    }
    let _ = write!(body, "\n{verdict}");
    if let Some(why) = line.shrunk.as_ref().and_then(|s| s.outside_state.as_ref()) {
        let _ = write!(body, "\nDepends on state outside the browser: {why}");
    }
    let steps = item.steps();
    if item.trace.is_empty() {
        let _ = write!(body, "\nSteps to reproduce: none recorded");
    } else if steps.is_empty() {
        let _ = write!(
            body,
            "\nSteps to reproduce (0 of {} actions): loading the start URL raises it",
            item.trace.len()
        );
    } else {
        let _ = write!(body, "\n{}", item.steps_heading(steps.len()));
        for (n, s) in steps.iter().take(MAX_STEPS).enumerate() {
            let _ = write!(body, "\n{}. {}", n + 1, s.describe());
        }
        if steps.len() > MAX_STEPS {
            let _ = write!(body, "\n… {} more in the trace", steps.len() - MAX_STEPS);
        }
    }
    if let Some(file) = item.trace_file(data) {
        let _ = write!(body, "\nTrace: {file} in the run directory");
    }
    body
}

/// Text for Markdown prose, on one line: no markup, no HTML.
fn md_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in one_line(text, usize::MAX).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// The longest run of backticks in `text`.
fn longest_backticks(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `text` as an inline code span, on one line: fenced by more backticks than it holds,
/// padded where it starts or ends with one (CommonMark strips that one space again).
/// Not for table cells, where a pipe ends the cell even inside a code span.
fn code_span(text: &str) -> String {
    let text = one_line(text, usize::MAX);
    if text.is_empty() {
        return "(empty)".into();
    }
    let fence = "`".repeat(longest_backticks(&text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `text` as a fenced code block whose fence no line of it can close.
fn code_block(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let fence = "`".repeat(3.max(longest_backticks(&text) + 1));
    format!("{fence}text\n{}\n{fence}\n", text.trim_end())
}

/// A table cell: prose, with pipes escaped (md_text does) and no line breaks.
fn cell(text: &str) -> String {
    md_text(text)
}

/// A message as a code span when it is one short line, else as a code block.
fn md_message(message: &str) -> String {
    let message = capped(message.trim(), MAX_MESSAGE);
    if message.contains(['\n', '\r']) || message.chars().count() > 200 {
        code_block(&message)
    } else {
        format!("{}\n", code_span(&message))
    }
}

/// The Markdown job summary of a run, for `$GITHUB_STEP_SUMMARY`: the verdict, a table
/// of the run, each new failure (each failure without a baseline) with its minimal
/// steps, the known and gone ones by name, and where the report is. `report` is where
/// the user put `report.html` (a URL or a path), when they said.
pub fn summary_markdown(data: &RunData, report: Option<&str>) -> String {
    let s = &data.summary;
    let items = items(data);
    let baseline = s.baseline.as_ref();
    let new = items
        .iter()
        .filter(|i| i.line.baseline != Some(NewOrKnown::Known))
        .count();
    let known = items.len() - new;
    let mut out = String::new();

    let verdict = match (items.len(), baseline) {
        (0, Some(b)) if !b.gone.is_empty() => {
            format!("no failures ({} gone since the baseline)", b.gone.len())
        }
        (0, _) => "no failures".to_string(),
        (_, Some(_)) if new == 0 => format!("no new failures ({known} known)"),
        (_, Some(_)) if known > 0 => {
            format!("{new} new failure{} ({known} known)", plural(new))
        }
        (_, Some(_)) => format!("{new} new failure{}", plural(new)),
        (n, None) => format!("{n} failure{}", plural(n)),
    };
    let _ = writeln!(
        out,
        "## wayfarer found {verdict} on {}\n",
        code_span(&s.target)
    );
    let _ = writeln!(
        out,
        "Strategy {}, seed {}, budget {}.\n",
        code_span(&s.strategy),
        s.seed,
        code_span(&s.budget)
    );
    if !data.complete || s.stopped_early.is_some() {
        let why = s
            .stopped_early
            .as_deref()
            .unwrap_or("the run ended without writing its summary");
        let _ = writeln!(out, "> **Ended early:** {}\n", md_text(why));
    }
    if let Some(e) = s.shrink.as_ref().and_then(|k| k.error.as_deref()) {
        let _ = writeln!(out, "> **Shrinking did not run:** {}\n", md_text(e));
    }

    run_table(&mut out, data, &items, new, known);

    let listed: Vec<&Item> = if baseline.is_some() {
        items
            .iter()
            .filter(|i| i.line.baseline != Some(NewOrKnown::Known))
            .collect()
    } else {
        items.iter().collect()
    };
    if !listed.is_empty() {
        let heading = if baseline.is_some() {
            "New failures"
        } else {
            "Failures"
        };
        let _ = writeln!(out, "### {heading} ({})\n", listed.len());
        for (n, item) in listed.iter().take(MAX_FAILURES).enumerate() {
            failure_section(&mut out, data, n + 1, item);
        }
        more(
            &mut out,
            listed.len(),
            "failure",
            "report.html lists them all",
        );
    }
    if baseline.is_some() && known > 0 {
        let _ = writeln!(
            out,
            "### Known failures ({known}): the baseline had them too\n"
        );
        let known: Vec<&Item> = items
            .iter()
            .filter(|i| i.line.baseline == Some(NewOrKnown::Known))
            .collect();
        for item in known.iter().take(MAX_FAILURES) {
            let _ = writeln!(
                out,
                "- {}: {} ({})",
                md_text(&item.line.kind),
                code_span(&one_line(&item.line.message, 200)),
                md_text(&item.verdict_text())
            );
        }
        out.push('\n');
        more(
            &mut out,
            known.len(),
            "known failure",
            "report.html lists them all",
        );
    }
    if let Some(b) = baseline.filter(|b| !b.gone.is_empty()) {
        let _ = writeln!(
            out,
            "### Gone since the baseline ({}): not raised by this run\n",
            b.gone.len()
        );
        for g in b.gone.iter().take(MAX_FAILURES) {
            let _ = writeln!(
                out,
                "- {}: {}",
                md_text(&g.kind),
                code_span(&one_line(&g.message, 200))
            );
        }
        out.push('\n');
        more(
            &mut out,
            b.gone.len(),
            "gone failure",
            "the baseline lists them all",
        );
    }

    let where_ = match report {
        Some(r) if is_link(r) => format!("<{r}>"),
        Some(r) => code_span(r),
        None => format!(
            "report.html in the run directory ({})",
            code_span(&data.dir.display().to_string())
        ),
    };
    let _ = writeln!(
        out,
        "The full report (every failure with its screenshot, console and network log, the state graph): {where_}"
    );
    out
}

/// Whether `r` can be written as an autolink `<r>`: a web URL without spaces or
/// angle brackets, which would end or break it.
fn is_link(r: &str) -> bool {
    (r.starts_with("https://") || r.starts_with("http://"))
        && !r.contains(|c: char| c.is_whitespace() || c == '<' || c == '>')
}

fn more(out: &mut String, total: usize, what: &str, where_: &str) {
    if total > MAX_FAILURES {
        let n = total - MAX_FAILURES;
        let _ = writeln!(out, "… and {n} more {what}{}: {where_}.\n", plural(n));
    }
}

fn run_table(out: &mut String, data: &RunData, items: &[Item], new: usize, known: usize) {
    let s = &data.summary;
    let mut cols: Vec<(&str, String)> = vec![
        ("steps", s.steps.to_string()),
        ("states", s.states.to_string()),
        ("URLs", s.urls.to_string()),
    ];
    if let Some(c) = &s.js_coverage {
        cols.push(("JS coverage", format!("{:.1}%", c.ratio * 100.0)));
    }
    let count = |v: Verdict| items.iter().filter(|i| i.verdict() == v).count();
    // Confirmed and flaky are counted when shrinking ran, even at 0; the others when any.
    let verdicts: Vec<String> = [
        (Verdict::Confirmed, "confirmed"),
        (Verdict::Flaky, "flaky"),
        (Verdict::NotReproduced, "not reproduced"),
        (Verdict::Unconfirmed, "unconfirmed"),
    ]
    .into_iter()
    .map(|(v, name)| (count(v), v, name))
    .filter(|(n, v, _)| {
        *n > 0 || (matches!(v, Verdict::Confirmed | Verdict::Flaky) && s.shrink.is_some())
    })
    .map(|(n, _, name)| format!("{n} {name}"))
    .collect();
    let failures = if verdicts.is_empty() || items.is_empty() {
        items.len().to_string()
    } else {
        format!("{} ({})", items.len(), verdicts.join(", "))
    };
    cols.push(("failures", failures));
    if let Some(b) = &s.baseline {
        cols.push((
            "new / known / gone",
            format!("{new} / {known} / {}", b.gone.len()),
        ));
    }
    cols.push(("exploring", format!("{:.1} s", s.duration_s)));
    if let Some(k) = &s.shrink {
        cols.push(("shrinking", format!("{:.1} s", k.seconds)));
    }
    let row = |cells: Vec<String>| format!("| {} |", cells.join(" | "));
    let _ = writeln!(out, "{}", row(cols.iter().map(|(h, _)| cell(h)).collect()));
    let _ = writeln!(out, "{}", row(cols.iter().map(|_| "---:".into()).collect()));
    let _ = writeln!(
        out,
        "{}\n",
        row(cols.iter().map(|(_, v)| cell(v)).collect())
    );
}

fn failure_section(out: &mut String, data: &RunData, n: usize, item: &Item) {
    let line = item.line;
    let mut head = vec![md_text(&line.kind), md_text(&item.verdict_text())];
    if let Some(NewOrKnown::New) = line.baseline {
        head.push("new".into());
    }
    let _ = writeln!(out, "#### {n}. {}\n", head.join(" · "));
    let _ = writeln!(out, "{}", md_message(&line.message));
    let mut facts = Vec::new();
    if !line.page_url.is_empty() {
        facts.push(format!("on {}", code_span(&line.page_url)));
    }
    facts.push(format!("first at step {}", line.step));
    facts.push(format!(
        "seen {} time{}",
        line.count,
        plural(line.count as usize)
    ));
    let _ = writeln!(out, "{}\n", facts.join(" · "));
    if let Some(why) = line.shrunk.as_ref().and_then(|s| s.outside_state.as_ref()) {
        let _ = writeln!(
            out,
            "> **Depends on state outside the browser:** {}\n",
            md_text(why)
        );
    }
    let steps = item.steps();
    if item.trace.is_empty() {
        let _ = writeln!(out, "Steps to reproduce: none recorded.\n");
    } else if steps.is_empty() {
        let _ = writeln!(
            out,
            "Steps to reproduce: none; loading the start URL raises it (0 of {} actions).\n",
            item.trace.len()
        );
    } else {
        let _ = writeln!(out, "{}\n", item.steps_heading(steps.len()));
        for (i, s) in steps.iter().take(MAX_STEPS).enumerate() {
            let _ = writeln!(out, "{}. {}", i + 1, md_text(&s.describe()));
        }
        if steps.len() > MAX_STEPS {
            let _ = writeln!(out, "\n… {} more in the trace.", steps.len() - MAX_STEPS);
        }
        out.push('\n');
    }
    if let Some(file) = item.trace_file(data) {
        let _ = writeln!(out, "Trace: {}\n", code_span(&file));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::PathBuf;

    use wayfarer_core::findings::{BaselineSummary, ShrinkSummary, Shrunk};
    use wayfarer_core::signature::signature;
    use wayfarer_core::summary::CoverageSummary;
    use wayfarer_core::trace::ElementHint;
    use wayfarer_core::{Action, ActionKind, Failure, FailureKind, RunSummary};
    use wayfarer_store::{RunMeta, StoredFailure};

    use super::*;

    const ORIGIN: &str = "http://127.0.0.1:41427";

    fn on(kind: ActionKind, role: &str, name: &str, value: Option<&str>) -> TraceStep {
        let mut action = Action::on(kind, format!("#{}", name.to_lowercase()));
        if let Some(v) = value {
            action = action.with_value(v);
        }
        TraceStep {
            action,
            element: Some(ElementHint {
                tag: "input".into(),
                role: Some(role.into()),
                name: name.into(),
                ..ElementHint::default()
            }),
            url: format!("{ORIGIN}/expenses/new"),
        }
    }

    fn failure(
        kind: FailureKind,
        message: &str,
        source: &str,
        step: u64,
        trace: Vec<TraceStep>,
    ) -> Failure {
        Failure {
            kind,
            message: message.into(),
            signature: signature(kind.as_str(), message, Some(source), Some(12), Some(7)),
            source: Some(source.into()),
            line: Some(12),
            column: Some(7),
            step,
            episode: 1,
            count: 2,
            page_url: format!("{ORIGIN}/expenses/new?draft=1"),
            trace,
            server_output: Default::default(),
        }
    }

    /// A run on a port like the bundled apps get, with a confirmed new failure whose
    /// five steps shrank to two, a flaky one, a known one, and one gone since the
    /// baseline; the messages hold what GitHub's commands and Markdown read as syntax.
    pub(crate) fn sample_run() -> RunData {
        let five = vec![
            on(ActionKind::Click, "link", "Expenses", None),
            on(ActionKind::Type, "textbox", "Amount", Some("100%")),
            on(ActionKind::Type, "textbox", "Note", Some("a, b: c")),
            on(ActionKind::Check, "checkbox", "Recurring", None),
            on(ActionKind::Click, "button", "Save | `draft`", None),
        ];
        let confirmed = failure(
            FailureKind::Exception,
            "TypeError: Cannot read properties of undefined (reading 'total'): 100% of a, b | `sum` <script>alert(1)</script>",
            &format!("{ORIGIN}/app.js?v=3"),
            14,
            five,
        );
        let flaky = failure(
            FailureKind::UnhandledRejection,
            "Error: sync failed\n::error title=pwned::injected\n  at ``push`` (sync.js:3:1)\r\n  at flush",
            &format!("{ORIGIN}/sync.js"),
            20,
            vec![
                on(ActionKind::Click, "link", "Sync", None),
                on(ActionKind::Click, "button", "Push", None),
                on(ActionKind::Click, "button", "Push", None),
            ],
        );
        let known = failure(
            FailureKind::Http5xx,
            &format!("HTTP 500 from {ORIGIN}/register?email=a,b"),
            &format!("{ORIGIN}/register"),
            31,
            vec![
                on(ActionKind::Type, "textbox", "E-mail", Some("a@b")),
                on(ActionKind::Click, "button", "Register", None),
            ],
        );
        let failures: Vec<StoredFailure> = [confirmed, flaky, known]
            .into_iter()
            .map(|failure| StoredFailure {
                failure,
                screenshot: None,
            })
            .collect();
        let mut lines: Vec<FailureLine> = failures
            .iter()
            .map(|f| FailureLine::from(&f.failure))
            .collect();
        let shrunk = |kept: Vec<usize>, of, hits| Shrunk {
            kept,
            of,
            replays: 6,
            finished: true,
            hits,
            runs: 3,
            seconds: 4.5,
            ..Shrunk::default()
        };
        lines[0].shrunk = Some(shrunk(vec![1, 4], 5, 3));
        lines[0].baseline = Some(NewOrKnown::New);
        lines[1].shrunk = Some(shrunk(vec![0, 1, 2], 3, 1));
        lines[1].baseline = Some(NewOrKnown::New);
        lines[2].shrunk = Some(shrunk(vec![1], 2, 3));
        lines[2].baseline = Some(NewOrKnown::Known);
        let gone = FailureLine {
            kind: "console_error".into(),
            signature: "console_error|Warning: each child | needs a `key`".into(),
            message: "Warning: each child | needs a `key` <li>".into(),
            step: 9,
            count: 1,
            ..FailureLine::default()
        };
        RunData {
            dir: PathBuf::from("wayfarer-out"),
            meta: RunMeta {
                target: format!("{ORIGIN}/"),
                strategy: "webexplor".into(),
                seed: 1,
                budget: "2m".into(),
                ..RunMeta::default()
            },
            summary: RunSummary {
                target: format!("{ORIGIN}/"),
                strategy: "webexplor".into(),
                seed: 1,
                budget: "2m".into(),
                steps: 742,
                episodes: 21,
                states: 12,
                urls: 10,
                failures: lines,
                js_coverage: Some(CoverageSummary {
                    ratio: 0.901,
                    ..CoverageSummary::default()
                }),
                duration_s: 120.04,
                shrink: Some(ShrinkSummary {
                    budget_s: 60.0,
                    seconds: 14.2,
                    confirm_runs: 3,
                    skipped: 0,
                    error: None,
                    ..ShrinkSummary::default()
                }),
                baseline: Some(BaselineSummary {
                    from: "wayfarer-baseline/report.json".into(),
                    new: 2,
                    known: 1,
                    gone: vec![gone],
                }),
                ..RunSummary::default()
            },
            complete: true,
            steps: vec![],
            resets: vec![],
            states: vec![],
            transitions: vec![],
            failures,
            strategy: None,
            knowledge: vec![],
            features: None,
        }
    }

    fn clean_run() -> RunData {
        let mut data = sample_run();
        data.failures.clear();
        data.summary.failures.clear();
        data.summary.baseline = None;
        data.summary.shrink = None;
        data.summary.js_coverage = None;
        data
    }

    #[test]
    fn data_escapes_percent_and_line_breaks() {
        assert_eq!(escape_data("100% done"), "100%25 done");
        assert_eq!(escape_data("a\r\nb\nc"), "a%0D%0Ab%0Ac");
        // Already escaped text is escaped again, so it reads back as written.
        assert_eq!(escape_data("%0A"), "%250A");
        assert_eq!(escape_data("a: b, c"), "a: b, c");
    }

    #[test]
    fn properties_also_escape_colon_and_comma() {
        assert_eq!(
            escape_property("wayfarer: x, y\n%"),
            "wayfarer%3A x%2C y%0A%25"
        );
        assert!(!escape_property("a::b").contains("::"));
    }

    #[test]
    fn a_message_cannot_start_a_command_of_its_own() {
        // The runner reads a command only at the start of a line. With CR and LF escaped
        // the message stays on its command's line, so a "::error" in it is just text; a
        // "::" in the title is escaped to "%3A%3A" and cannot end the properties early.
        let out = github_annotations(&sample_run());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert!(lines
            .iter()
            .all(|l| l.starts_with("::error title=wayfarer%3A ")
                || l.starts_with("::warning title=wayfarer%3A ")));
        // The injected one is there, inside the flaky failure's line.
        assert_eq!(lines.iter().filter(|l| l.starts_with("::error")).count(), 1);
        assert_eq!(out.matches("::error title=").count(), 2);
        assert!(out.contains("%0A::error title=pwned::injected"), "{out}");
        assert!(!out.contains('\r'));
        for l in &lines {
            let title = l.split_once(" title=").unwrap().1;
            let (title, _) = title.split_once("::").unwrap();
            assert!(!title.contains([':', ',', '\n']), "{title}");
        }
    }

    #[test]
    fn levels_follow_verdict_and_baseline() {
        let out = github_annotations(&sample_run());
        let levels: Vec<&str> = out.lines().map(|l| l.split_once(' ').unwrap().0).collect();
        // The confirmed new one is the only error; flaky and known ones warn.
        assert_eq!(levels, ["::error", "::warning", "::warning"]);
        let mut data = sample_run();
        for l in &mut data.summary.failures {
            l.baseline = None;
            l.shrunk = None;
        }
        assert!(github_annotations(&data)
            .lines()
            .all(|l| l.starts_with("::error ")));
        assert_eq!(github_annotations(&clean_run()), "");
    }

    /// The sample run with shrinking off: no failure was replayed.
    pub(crate) fn never_replayed_run() -> RunData {
        let mut data = sample_run();
        for l in &mut data.summary.failures {
            l.shrunk = None;
        }
        data.summary.shrink = None;
        data
    }

    #[test]
    fn a_never_replayed_failure_says_unconfirmed() {
        let data = never_replayed_run();
        let notes = github_annotations(&data);
        assert_eq!(
            notes
                .matches("%0Aunconfirmed (never replayed) · new since the baseline%0A")
                .count(),
            2,
            "{notes}"
        );
        assert!(
            notes.contains("%0Aunconfirmed (never replayed) · known: the baseline had it too%0A"),
            "{notes}"
        );
        // Unconfirmed and new: an error, as a confirmed new one.
        let levels: Vec<&str> = notes
            .lines()
            .map(|l| l.split_once(' ').unwrap().0)
            .collect();
        assert_eq!(levels, ["::error", "::error", "::warning"]);

        let md = summary_markdown(&data, None);
        assert!(
            md.contains("#### 1. exception · unconfirmed (never replayed) · new\n"),
            "{md}"
        );
        assert!(
            md.contains("#### 2. unhandled\\_rejection · unconfirmed (never replayed) · new\n"),
            "{md}"
        );
        assert!(
            md.contains("register?email=a,b` (unconfirmed (never replayed))\n"),
            "{md}"
        );
        assert!(md.contains("| 3 (3 unconfirmed) |"), "{md}");

        // Shrinking ran, but one failure's confirming replays did not (out of time).
        let mut data = sample_run();
        let flaky = data.summary.failures[1].shrunk.as_mut().unwrap();
        (flaky.hits, flaky.runs) = (0, 0);
        let md = summary_markdown(&data, None);
        assert!(
            md.contains("| 3 (2 confirmed, 0 flaky, 1 unconfirmed) |"),
            "{md}"
        );
        assert!(
            md.contains("#### 2. unhandled\\_rejection · unconfirmed (never replayed) · new\n"),
            "{md}"
        );
    }

    #[test]
    fn annotations() {
        insta::assert_snapshot!(github_annotations(&sample_run()));
    }

    #[test]
    fn markdown_summary() {
        insta::assert_snapshot!(summary_markdown(
            &sample_run(),
            Some("https://ci.example.com/artifacts/wayfarer-out/report.html")
        ));
    }

    #[test]
    fn markdown_summary_without_failures() {
        insta::assert_snapshot!(summary_markdown(&clean_run(), None));
    }

    #[test]
    fn markdown_escapes_and_fences() {
        assert_eq!(
            md_text("a | b <script>`x`</script> *y* [z](u) \\"),
            "a \\| b &lt;script&gt;\\`x\\`&lt;/script&gt; \\*y\\* \\[z\\](u) \\\\"
        );
        assert_eq!(code_span("a `b` c"), "``a `b` c``");
        assert_eq!(code_span("`x``"), "``` `x`` ```");
        assert_eq!(code_span("<b>|</b>"), "`<b>|</b>`");
        let block = code_block("x\n````\ny");
        assert!(block.starts_with("`````text\n"), "{block}");
        assert!(block.ends_with("\n`````\n"), "{block}");
    }

    #[test]
    fn the_summary_stays_small_with_many_huge_failures() {
        let mut data = sample_run();
        let big = "x".repeat(200_000);
        let template = data.failures[0].clone();
        let line = data.summary.failures[0].clone();
        data.failures.clear();
        data.summary.failures.clear();
        for i in 0..400 {
            let mut f = template.clone();
            f.failure.message = format!("{i} {big}");
            f.failure.signature = format!("sig{i}");
            f.failure.trace = (0..200).flat_map(|_| f.failure.trace.clone()).collect();
            data.failures.push(f);
            data.summary.failures.push(FailureLine {
                signature: format!("sig{i}"),
                message: format!("{i} {big}"),
                shrunk: None,
                ..line.clone()
            });
        }
        let md = summary_markdown(&data, None);
        assert!(md.len() < 512 * 1024, "{} bytes", md.len());
        assert!(
            md.contains("… and 350 more failures"),
            "cut off with a count"
        );
        assert!(md.contains("… 970 more in the trace"));
        let notes = github_annotations(&data);
        assert!(notes.lines().all(|l| l.len() < 8 * 1024));
    }

    #[test]
    fn minimal_steps_come_from_the_kept_indices() {
        let data = sample_run();
        let items = items(&data);
        let described: Vec<String> = items[0].steps().iter().map(|s| s.describe()).collect();
        assert_eq!(
            described,
            [
                "type \"100%\" into textbox \"Amount\"",
                "click button \"Save | `draft`\""
            ]
        );
        // Kept indices of another trace than the stored one: the whole trace.
        let mut data = sample_run();
        data.summary.failures[0].shrunk.as_mut().unwrap().of = 9;
        assert_eq!(super::items(&data)[0].steps().len(), 5);
    }
}
