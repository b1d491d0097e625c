//! A random walk over the sample application that records what a real run would: steps
//! with their events and counters, resets, and three failures found on the way.

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use wayfarer_core::trace::TraceStep;
use wayfarer_core::{
    ActionKind, Coverage, Event, EventKind, Failure, FailureKind, ResetRecord, StateId, StepRecord,
    StepTimings,
};
use wayfarer_store::{Sample, StoredStep};

use super::app::{action_to, Page, Rng, IMG, XSS};

pub const BASE: &str = "http://127.0.0.1:8080";
pub const EPISODE: u64 = 30;

#[derive(Default)]
pub struct Walk {
    pub steps: Vec<StoredStep>,
    pub resets: Vec<ResetRecord>,
    pub failures: Vec<Failure>,
    /// State index -> the step it was first reached at.
    pub first_step: BTreeMap<usize, u64>,
    /// (from, to, action) -> count.
    pub transitions: BTreeMap<(u64, u64, String), u64>,
    urls: HashSet<String>,
    trace: Vec<TraceStep>,
}

impl Walk {
    fn fail(
        &mut self,
        kind: FailureKind,
        message: String,
        at: Option<&Event>,
        step: u64,
        page: &str,
    ) -> String {
        let signature = format!(
            "{}|{}|{}",
            kind.as_str(),
            message.chars().take(60).collect::<String>(),
            at.and_then(|e| e.url.as_deref()).unwrap_or("")
        );
        self.failures.push(Failure {
            kind,
            signature: signature.clone(),
            message,
            source: at.and_then(|e| e.url.clone()),
            line: at.and_then(|e| e.line),
            column: at.and_then(|e| e.column),
            step,
            episode: 1 + step.saturating_sub(1) / EPISODE,
            count: 1 + step % 5,
            page_url: format!("{BASE}{page}"),
            trace: self.trace.clone(),
            server_output: Default::default(),
        });
        signature
    }

    fn has(&self, kind: FailureKind) -> bool {
        self.failures.iter().any(|f| f.kind == kind)
    }

    fn reset(&mut self, pages: &[Page], after_step: u64) {
        self.trace.clear();
        let mut events = vec![Event::http(200, format!("{BASE}/"), true)];
        let mut findings = Vec::new();
        if after_step == 90 {
            let msg = format!("Warning: unknown prop `title` with value {IMG} on <div>");
            let src = format!("{BASE}/static/vendor.js");
            let ev = Event::new(EventKind::ConsoleError, &msg).at(src, Some(3), Some(9041));
            findings.push(self.fail(FailureKind::ConsoleError, msg, Some(&ev), after_step, "/"));
            events.push(ev);
        }
        self.resets.push(ResetRecord {
            episode: 1 + after_step / EPISODE,
            worker: 0,
            after_step,
            state: StateId(0),
            url: format!("{BASE}/"),
            title: pages[0].title.clone(),
            events,
            findings,
            app_state: None,
        });
    }
}

pub fn walk(pages: &[Page], steps: u64) -> Walk {
    let mut w = Walk {
        first_step: BTreeMap::from([(0, 0)]),
        ..Walk::default()
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut cur, mut prev) = (0usize, 0usize);
    for n in 1..=steps {
        if (n - 1) % EPISODE == 0 {
            w.reset(pages, n - 1);
            (cur, prev) = (0, 0);
        }
        let links = &pages[cur].links;
        let to = match rng.below(10) {
            0..=2 => None,
            3 if cur != prev => Some(prev),
            _ => Some(links[rng.below(links.len() as u64) as usize]),
        };
        let (action, element) = if to == Some(prev) && cur != prev && rng.below(2) == 0 {
            (wayfarer_core::Action::back(), None)
        } else {
            let (a, h) = action_to(pages, to, &mut rng);
            (a, Some(h))
        };
        let next = to.unwrap_or(cur);
        w.trace.push(TraceStep {
            action: action.clone(),
            element: element.clone(),
            url: format!("{BASE}{}", pages[cur].path),
        });
        let mut events = vec![Event::http(200, format!("{BASE}/api/session"), false)];
        let mut findings = Vec::new();
        if next == 22 && !w.has(FailureKind::Exception) {
            let msg = "TypeError: Cannot read properties of undefined (reading 'name')\n    at renderErrors (app.js:214:17)";
            let src = format!("{BASE}/static/app.js");
            let ev = Event::new(EventKind::Exception, msg).at(src, Some(214), Some(17));
            findings.push(w.fail(
                FailureKind::Exception,
                msg.into(),
                Some(&ev),
                n,
                &pages[next].path,
            ));
            events.push(ev);
        }
        if next == 12 && !w.has(FailureKind::Http5xx) {
            let url = format!("{BASE}/api/search?q={XSS}");
            events.push(Event::http(500, &url, false));
            events.push(
                Event::new(EventKind::ConsoleError, "Failed to load resource: the server responded with a status of 500 (Internal Server Error)")
                    .at(&url, None, None),
            );
            findings.push(w.fail(
                FailureKind::Http5xx,
                format!("HTTP 500 on GET {url}"),
                None,
                n,
                &pages[next].path,
            ));
        }
        let new_state = !w.first_step.contains_key(&next);
        w.first_step.entry(next).or_insert(n);
        w.urls.insert(pages[next].path.clone());
        *w.transitions
            .entry((cur as u64, next as u64, action.describe()))
            .or_default() += 1;
        let mut ms =
            |lo: u64, spread: u64| Duration::from_micros(lo * 1000 + rng.below(spread * 1000));
        let timings = StepTimings {
            scan: ms(30, 20),
            analysis: ms(3, 3),
            decide: ms(1, 1),
            act: ms(50, 30),
            wait: ms(180, 90),
            validate: Duration::ZERO,
            coverage: Duration::ZERO,
            judge: Duration::ZERO,
            learn: Duration::ZERO,
            name: Duration::ZERO,
            spec: Duration::ZERO,
            train: Duration::ZERO,
            llm: Duration::ZERO,
            server: Duration::ZERO,
            total: ms(300, 120),
        };
        let covered = 21_000 + w.first_step.len() as u64 * 2_900 + n * 11;
        let sample = Sample {
            states: w.first_step.len(),
            urls: w.urls.len(),
            actions: (12.0 * (n as f64).sqrt()) as usize,
            failures: w.failures.len(),
            episodes: 1 + (n - 1) / EPISODE,
            elapsed_ms: n * 344,
            coverage: Some(Coverage {
                covered_bytes: covered,
                total_bytes: 184_000,
                functions_covered: covered / 160,
                functions_total: 1_150,
                first_load_covered_bytes: 21_000,
            }),
            server_lines: None,
        };
        let record = StepRecord {
            step: n,
            episode: 1 + (n - 1) / EPISODE,
            worker: 0,
            episode_step: ((n - 1) % EPISODE + 1) as u32,
            target: element
                .as_ref()
                .map(|e| format!("{} \"{}\"", e.tag, e.name)),
            state_before: StateId(cur as u64),
            state_after: StateId(next as u64),
            url_after: format!("{BASE}{}", pages[next].path),
            title_after: pages[next].title.clone(),
            new_state,
            events,
            timings,
            error: (n % 97 == 0 && action.kind == ActionKind::Click)
                .then(|| format!("element {XSS} is gone")),
            findings,
            action,
            element,
            app_actions: vec![],
            app_state: None,
            decision: None,
            form: None,
            inference: None,
            novelty: Default::default(),
        };
        w.steps.push(StoredStep { record, sample });
        (prev, cur) = (cur, next);
    }
    w
}
