//! The failure cards: each unique failure with its steps to reproduce, its screenshot
//! (embedded as a `data:` URI) and the console and network events around it.

use base64::Engine as _;
use minijinja::Value;
use serde::Serialize;
use wayfarer_core::findings::{NewOrKnown, Verdict};
use wayfarer_core::{Event, EventKind, Failure, ResetRecord, StateId};
use wayfarer_store::{RunData, StoredFailure};

use super::repro::{self, ReproStep};
use super::text::truncate;

/// The events shown per card at most; a step rarely has more that matter.
const MAX_EVENTS: usize = 60;

#[derive(Debug, Serialize)]
pub struct Card {
    pub n: usize,
    pub kind: &'static str,
    pub message: String,
    pub count: u64,
    pub step: u64,
    pub episode: u64,
    /// "a reset" when a reset, not a step, raised it.
    pub origin: &'static str,
    pub page_url: String,
    pub location: Option<String>,
    pub signature: String,
    pub repro: Vec<ReproStep>,
    /// Actions in the recorded trace.
    pub repro_actions: usize,
    /// The minimal trace shrinking (after the run, or `wayfarer minimize`) left of it.
    pub minimal: Option<Minimal>,
    /// "reproduced 3/3", "flaky 1/3", "not reproduced 0/3", or "unconfirmed (never
    /// replayed)": every card has one.
    pub verdict: String,
    /// The pill's look for the verdict: bad, warn, plain ("") or unconfirmed.
    pub verdict_class: &'static str,
    /// What the pill means, on hover.
    pub verdict_title: &'static str,
    /// "new" or "known", against a baseline run.
    pub baseline: Option<&'static str>,
    /// Why shrinking did not finish or did not run on it, when it says.
    pub shrink_note: Option<String>,
    /// "depends on state outside the browser: ..." when shrinking saw it on the recorded
    /// trace (a minimal trace carries its own).
    pub outside_state: Option<String>,
    /// A `data:` URI, passed unescaped: its mime type is ours and base64 holds no
    /// markup characters (escaping would turn each `/` into six bytes).
    pub screenshot: Option<Value>,
    /// Why there is no screenshot, when there is none.
    pub screenshot_note: Option<String>,
    pub events: Vec<EventRow>,
    /// Successful HTTP responses left out (context, not evidence).
    pub events_routine: usize,
    /// Events left out past `MAX_EVENTS`.
    pub events_more: usize,
    /// What the application's server wrote during that step (its last lines), when
    /// wayfarer started the server.
    pub server_output: Vec<String>,
    /// Earlier lines of it left out.
    pub server_omitted: usize,
}

/// A minimised trace found next to the failure's trace (`traces/NAME.min.json`).
#[derive(Debug, Serialize)]
pub struct Minimal {
    pub file: String,
    pub kept: usize,
    pub of: usize,
    pub repro: Vec<ReproStep>,
    /// "depends on state outside the browser: ..." when minimize saw it.
    pub outside_state: Option<String>,
    /// Why the file could not be read, instead of the steps.
    pub unreadable: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct EventRow {
    pub kind: String,
    pub status: Option<u16>,
    pub url: String,
    pub message: String,
    pub at: String,
    /// An error (styled red) rather than context.
    pub bad: bool,
}

pub fn cards(data: &RunData) -> Vec<Card> {
    data.failures
        .iter()
        .enumerate()
        .map(|(i, sf)| card(data, i + 1, sf))
        .collect()
}

fn card(data: &RunData, n: usize, sf: &StoredFailure) -> Card {
    let f = &sf.failure;
    let reset = raising_reset(data, f);
    let events: &[Event] = match (reset, data.step(f.step)) {
        (Some(r), _) => &r.events,
        (None, Some(s)) => &s.record.events,
        (None, None) => &[],
    };
    let (screenshot, screenshot_note) = screenshot(data, sf);
    let line = data.summary.line(&f.signature);
    let shrunk = line.and_then(|l| l.shrunk.as_ref());
    // A failure the summary does not list (a killed run's store) was never replayed.
    let verdict = Verdict::of(shrunk);
    let shown: Vec<&Event> = events.iter().filter(|e| !routine(e)).collect();
    let location = f.source.as_ref().map(|s| {
        let mut loc = truncate(s, 200);
        for part in [f.line, f.column].into_iter().flatten() {
            loc.push_str(&format!(":{part}"));
        }
        loc
    });
    Card {
        n,
        kind: f.kind.as_str(),
        message: truncate(&f.message, 2000),
        count: f.count,
        step: f.step,
        episode: f.episode,
        origin: if reset.is_some() { "a reset" } else { "step" },
        page_url: truncate(&f.page_url, 300),
        location,
        signature: truncate(&f.signature, 400),
        repro: repro::steps(&f.trace),
        repro_actions: f.trace.len(),
        minimal: minimal(data, n - 1, f),
        verdict: verdict.text(shrunk),
        verdict_class: match verdict {
            Verdict::Confirmed => "bad",
            Verdict::Flaky => "warn",
            Verdict::NotReproduced => "",
            Verdict::Unconfirmed => "unconfirmed",
        },
        verdict_title: match verdict {
            Verdict::Unconfirmed => {
                "its trace was never replayed to confirm it (shrinking off, out of time, or the run stopped)"
            }
            _ => "replays of its minimal trace that raised it again",
        },
        baseline: line.and_then(|l| l.baseline).map(|b| match b {
            NewOrKnown::New => "new",
            NewOrKnown::Known => "known",
        }),
        shrink_note: shrunk.and_then(|s| {
            s.note.clone().or_else(|| {
                (!s.finished && s.replays > 0).then(|| {
                    format!(
                        "Shrinking ran out of time after {} replays: this is the shortest trace it saw fail, perhaps not the shortest there is.",
                        s.replays
                    )
                })
            })
        }),
        outside_state: shrunk.and_then(|s| s.outside_state.clone()),
        screenshot,
        screenshot_note,
        events_routine: events.len() - shown.len(),
        events_more: shown.len().saturating_sub(MAX_EVENTS),
        events: shown.into_iter().take(MAX_EVENTS).map(row).collect(),
        server_output: f.server_output.lines.clone(),
        server_omitted: f.server_output.omitted,
    }
}

/// The minimised trace of the `index`-th failure, when `wayfarer minimize` wrote one
/// next to the run's trace.
fn minimal(data: &RunData, index: usize, f: &Failure) -> Option<Minimal> {
    let file = crate::traces::minimised_name(&crate::traces::file_name(index, f));
    let text = std::fs::read_to_string(data.dir.join("traces").join(&file)).ok()?;
    let of = f.trace.len();
    Some(match wayfarer_core::trace::Trace::parse(&text) {
        Ok(t) => Minimal {
            file,
            kept: t.steps.len(),
            of,
            repro: repro::steps(&t.steps),
            outside_state: t.outside_state,
            unreadable: None,
        },
        Err(e) => Minimal {
            file,
            kept: 0,
            of,
            repro: Vec::new(),
            outside_state: None,
            unreadable: Some(truncate(&e.to_string(), 300)),
        },
    })
}

/// The reset that raised `f`, when a reset did: the one after its step whose findings
/// hold its signature, or any reset after its step when that step has no record.
pub fn raising_reset<'a>(data: &'a RunData, f: &Failure) -> Option<&'a ResetRecord> {
    let mut at = data.resets.iter().filter(|r| r.after_step == f.step);
    let mut fallback = at.clone();
    at.find(|r| r.findings.contains(&f.signature)).or_else(|| {
        data.step(f.step)
            .is_none()
            .then(|| fallback.next())
            .flatten()
    })
}

/// The state the page was in when `f` was first seen (marked red in the graph).
pub fn failure_state(data: &RunData, f: &Failure) -> Option<StateId> {
    match raising_reset(data, f) {
        Some(r) => Some(r.state),
        None => data.step(f.step).map(|s| s.record.state_after),
    }
}

/// Successful HTTP responses: context that would drown the errors.
fn routine(e: &Event) -> bool {
    e.kind == EventKind::HttpResponse && e.status.is_some_and(|s| s < 400)
}

fn row(e: &Event) -> EventRow {
    let kind = serde_json::to_value(e.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{:?}", e.kind));
    let at = match (e.line, e.column) {
        (Some(l), Some(c)) => format!("{l}:{c}"),
        (Some(l), None) => l.to_string(),
        _ => String::new(),
    };
    let bad = match e.kind {
        EventKind::HttpResponse => e.status.is_some_and(|s| s >= 400),
        EventKind::Dialog | EventKind::Popup | EventKind::Download => false,
        EventKind::ExternalNavigation | EventKind::LoggedOut => false,
        _ => true,
    };
    EventRow {
        kind,
        status: e.status,
        url: truncate(e.url.as_deref().unwrap_or(""), 160),
        message: truncate(&e.message, 600),
        at,
        bad,
    }
}

/// The screenshot as a `data:` URI, or why there is none. Never fails: a report with a
/// missing image is still a report.
fn screenshot(data: &RunData, sf: &StoredFailure) -> (Option<Value>, Option<String>) {
    let Some(rel) = &sf.screenshot else {
        return (
            None,
            Some("No screenshot was taken for this failure.".into()),
        );
    };
    let path = data.dir.join(rel);
    let mime = match rel
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
    {
        Some(e) if e == "jpg" || e == "jpeg" => "image/jpeg",
        Some(e) if e == "webp" => "image/webp",
        _ => "image/png",
    };
    match std::fs::read(&path) {
        Ok(bytes) if !bytes.is_empty() => {
            let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
            let uri = format!("data:{mime};base64,{b64}");
            (Some(Value::from_safe_string(uri)), None)
        }
        Ok(_) => (
            None,
            Some(format!("The screenshot {} is empty.", rel.display())),
        ),
        Err(e) => (
            None,
            Some(format!(
                "The screenshot {} could not be read: {e}.",
                rel.display()
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::ci::tests::sample_run;

    #[test]
    fn each_card_says_its_verdict_and_a_never_replayed_one_is_unconfirmed() {
        let mut data = sample_run();
        data.summary.failures[1].shrunk = None;
        let html = crate::html::render(&data, None);
        let confirmed = r#"<span class="pill bad" title="replays of its minimal trace that raised it again">reproduced 3&#x2f;3</span>"#;
        assert_eq!(html.matches(confirmed).count(), 2, "{html}");
        let unconfirmed = r#"<span class="pill unconfirmed" title="its trace was never replayed to confirm it (shrinking off, out of time, or the run stopped)">unconfirmed (never replayed)</span>"#;
        assert_eq!(html.matches(unconfirmed).count(), 1, "{html}");
        assert!(html.contains(".pill.unconfirmed {"), "its own style");
        let all = crate::html::render(&crate::ci::tests::never_replayed_run(), None);
        assert_eq!(all.matches(unconfirmed).count(), 3);
    }
}
