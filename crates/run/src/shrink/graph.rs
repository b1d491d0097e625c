//! The run's state graph as shrinking reads it: every step a move between states, each
//! failure with the shortest trace it was seen with.

use std::collections::HashMap;

use wayfarer_core::findings::Shrunk;
use wayfarer_core::shortcut::{self, Known, Move, Part};
use wayfarer_core::{Failure, Observer, StateId, StepRecord, TraceStep};

/// The run's state graph as shrinking needs it, collected while the run goes: every
/// performed step as a move between states, and the state before each.
#[derive(Debug, Default)]
pub struct Graph {
    moves: Vec<Move>,
    /// (step, episode, state before) of every performed step.
    steps: Vec<(u64, u64, StateId)>,
    /// The page each worker is on, for the next move's `url`.
    pages: HashMap<u32, String>,
    /// Each worker's steps in its current state since it came there.
    here: HashMap<u32, Vec<TraceStep>>,
    /// The page (URL without query) each state was seen on first.
    state_pages: HashMap<StateId, String>,
    /// The choices made in each state without leaving it (an option of a select), each
    /// once, the first few.
    fills: HashMap<StateId, Vec<TraceStep>>,
    /// The ways learned from shrinking's results, by their actions: each once.
    learned: std::collections::HashSet<String>,
    /// Each failure as first seen, its trace unmasked.
    pub failures: Vec<Failure>,
    /// Each worker's episode and the steps it took since its reset: the trace a failure
    /// seen again now comes with.
    traces: HashMap<u32, (u64, Vec<TraceStep>)>,
    /// A failure seen again with a shorter trace than it was first, as seen that time:
    /// shrinking starts from the shortest (a bug met 51 times is most often met early
    /// in an episode at least once).
    shorter: HashMap<String, Failure>,
}

impl Graph {
    /// The failure first seen with `signature`: the one the run reports.
    pub(super) fn first(&self, signature: &str) -> Option<&Failure> {
        self.failures.iter().find(|f| f.signature == signature)
    }

    /// The failure with `signature` as seen with its shortest trace.
    pub(super) fn failure(&self, signature: &str) -> Option<&Failure> {
        self.shorter
            .get(signature)
            .or_else(|| self.first(signature))
    }

    /// Record a step (as [`Observer::on_step`]); returns the failures it showed again
    /// with a trace shorter than any they were seen with before.
    pub(super) fn step(&mut self, r: &StepRecord) -> Vec<String> {
        let page = self.pages.get(&r.worker).cloned().unwrap_or_default();
        self.record(r);
        if r.error.is_some() {
            return Vec::new();
        }
        let (episode, trace) = self.traces.entry(r.worker).or_default();
        // A browser that restarted began an episode without a reset record.
        if *episode != r.episode {
            *episode = r.episode;
            trace.clear();
        }
        trace.push(TraceStep {
            action: r.action.clone(),
            element: r.element.clone(),
            url: page,
        });
        let trace = trace.clone();
        let mut found = Vec::new();
        for sig in &r.findings {
            let Some(seen) = self.failure(sig) else {
                continue;
            };
            if trace.len() >= seen.trace.len() {
                continue;
            }
            let again = Failure {
                step: r.step,
                episode: r.episode,
                page_url: r.url_after.clone(),
                trace: trace.clone(),
                ..seen.clone()
            };
            self.shorter.insert(sig.clone(), again);
            found.push(sig.clone());
        }
        found
    }

    /// The state before each step of `f`'s trace, as the run recorded them (`None` when
    /// its trace and the steps recorded for its episode do not line up).
    fn states_of(&self, f: &Failure) -> Option<Vec<StateId>> {
        let mut mine: Vec<&(u64, u64, StateId)> = self
            .steps
            .iter()
            .filter(|(step, episode, _)| *episode == f.episode && *step <= f.step)
            .collect();
        mine.sort_by_key(|s| s.0);
        let states: Vec<StateId> = mine.iter().map(|s| s.2).collect();
        (!states.is_empty() && states.len() == f.trace.len()).then_some(states)
    }

    /// Shortcut candidates for `f`, shortest first (none when its trace and the steps
    /// recorded for its episode do not line up).
    pub(super) fn shortcuts(&self, f: &Failure, max: usize) -> Vec<Vec<Part>> {
        let Some(states) = self.states_of(f) else {
            return Vec::new();
        };
        let alike = self.alike();
        shortcut::candidates(self.known(&alike), states[0], &states, &f.trace, max)
    }

    fn known<'a>(&'a self, alike: &'a HashMap<StateId, Vec<StateId>>) -> Known<'a> {
        Known {
            moves: &self.moves,
            alike,
            fills: &self.fills,
        }
    }

    /// A result of shrinking `f` as ways the graph knows: each prefix of its steps, which a
    /// replay did, leads from the reset to the state the trace had before the next one
    /// (the demo login of one failure's result is the short way to another's).
    pub(super) fn learn(&mut self, f: &Failure, sh: &Shrunk) {
        let (Some(states), Some(steps)) = (self.states_of(f), sh.steps(&f.trace)) else {
            return;
        };
        let start = states[0];
        for (i, &k) in sh.kept.iter().enumerate().skip(1) {
            // A step from elsewhere (k past the trace) has no state on record.
            let Some(&to) = states.get(k) else {
                continue;
            };
            let key = serde_json::to_string(&(
                to.0,
                steps[..i].iter().map(|s| &s.action).collect::<Vec<_>>(),
            ))
            .unwrap_or_default();
            if to == start || !self.learned.insert(key) {
                continue;
            }
            self.moves.push(Move {
                from: start,
                to,
                step: steps[i - 1].clone(),
                before: steps[..i - 1].to_vec(),
            });
        }
    }

    /// Shortcut candidates for the steps `p` kept of `f` (their parts as steps of that
    /// shorter trace): each kept step of the trace in the state the run recorded before
    /// it, a step taken from elsewhere in a state of its own.
    pub(super) fn shortcuts_of(&self, f: &Failure, p: &Shrunk, max: usize) -> Vec<Vec<Part>> {
        let (Some(states), Some(trace)) = (self.states_of(f), p.steps(&f.trace)) else {
            return Vec::new();
        };
        let kept: Vec<StateId> = p
            .kept
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                states
                    .get(k)
                    .copied()
                    .unwrap_or(StateId(u64::MAX - i as u64))
            })
            .collect();
        let alike = self.alike();
        shortcut::candidates(self.known(&alike), states[0], &kept, &trace, max)
    }

    /// For each state, the other states seen on the same page: the same form or list
    /// reached another way (another user, other data), worth a replay as a shortcut.
    fn alike(&self) -> HashMap<StateId, Vec<StateId>> {
        let mut by_page: HashMap<&str, Vec<StateId>> = HashMap::new();
        for (s, page) in &self.state_pages {
            by_page.entry(page.as_str()).or_default().push(*s);
        }
        let mut out = HashMap::new();
        for states in by_page.values().filter(|v| v.len() > 1) {
            for s in states {
                let mut others: Vec<StateId> = states.iter().copied().filter(|o| o != s).collect();
                others.sort();
                out.insert(*s, others);
            }
        }
        out
    }
}

/// Choices kept per state: a select's options, not every value typed.
const FILLS_PER_STATE: usize = 12;

/// A URL as a page: without its query (a fragment route stays), a number between slashes
/// made `<n>`: the form of group 5 is the form of group 1, reached with other data.
fn page_of(url: &str) -> String {
    let page = match url.split_once('?') {
        Some((path, rest)) => match rest.split_once('#') {
            Some((_, fragment)) => format!("{path}#{fragment}"),
            None => path.to_string(),
        },
        None => url.to_string(),
    };
    page.split('/')
        .map(
            |seg| match !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
                true => "<n>",
                false => seg,
            },
        )
        .collect::<Vec<_>>()
        .join("/")
}

impl Observer for Graph {
    fn on_reset(&mut self, r: &wayfarer_core::ResetRecord, _: &wayfarer_core::Progress) {
        self.pages.insert(r.worker, r.url.clone());
        self.here.remove(&r.worker);
        self.traces.insert(r.worker, (r.episode, Vec::new()));
    }

    fn on_step(&mut self, r: &StepRecord, _: &wayfarer_core::Progress) {
        self.step(r);
    }

    fn on_failure(&mut self, f: &Failure, _: Option<&[u8]>) {
        self.failures.push(f.clone());
    }
}

impl Graph {
    /// A step as a move of the graph, and the state before it.
    fn record(&mut self, r: &StepRecord) {
        let page = self
            .pages
            .insert(r.worker, r.url_after.clone())
            .unwrap_or_default();
        if r.error.is_some() {
            return;
        }
        for (state, url) in [(r.state_before, &page), (r.state_after, &r.url_after)] {
            if !url.is_empty() {
                self.state_pages
                    .entry(state)
                    .or_insert_with(|| page_of(url));
            }
        }
        self.steps.push((r.step, r.episode, r.state_before));
        let here = self.here.entry(r.worker).or_default();
        // Where "back" leads depends on the history, which a replay from a reset lacks.
        if r.action.uses_history() {
            here.clear();
            return;
        }
        let step = TraceStep {
            action: r.action.clone(),
            element: r.element.clone(),
            url: page,
        };
        if r.state_before == r.state_after {
            if step.action.kind == wayfarer_core::ActionKind::Select {
                let fills = self.fills.entry(r.state_before).or_default();
                if fills.len() < FILLS_PER_STATE && !fills.iter().any(|f| f.action == step.action) {
                    fills.push(step.clone());
                }
            }
            here.push(step);
            return;
        }
        let mut before = std::mem::take(here);
        // A link leads where its href says, whatever was typed before it.
        if shortcut::leaves(&step) {
            before.clear();
        }
        self.moves.push(Move {
            from: r.state_before,
            to: r.state_after,
            step,
            before,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::Action;

    fn record(step: u64, episode: u64, from: u64, to: u64, target: &str) -> StepRecord {
        StepRecord {
            step,
            episode,
            worker: 0,
            episode_step: 0,
            action: Action::on(wayfarer_core::ActionKind::Click, target.to_string()),
            target: None,
            state_before: StateId(from),
            state_after: StateId(to),
            url_after: format!("http://app.test/s{to}"),
            title_after: String::new(),
            element: None,
            new_state: false,
            events: vec![],
            timings: Default::default(),
            error: None,
            findings: vec![],
            app_actions: vec![],
            app_state: None,
            decision: None,
            form: None,
            inference: None,
            novelty: Default::default(),
        }
    }

    #[test]
    fn the_graph_lines_a_failure_up_with_its_episode_and_offers_the_shorter_way() {
        let mut g = Graph::default();
        let p = wayfarer_core::Progress::default();
        // Episode 1 filled the login form and went straight to the reports; episode 2
        // wandered, then failed there.
        for r in [
            record(0, 1, 0, 0, "#fill"),
            record(1, 1, 0, 1, "#login"),
            record(2, 1, 1, 3, "#reports"),
            record(3, 2, 0, 1, "#login"),
            record(4, 2, 1, 2, "#help"),
            record(5, 2, 2, 1, "#back"),
            record(7, 2, 1, 3, "#reports"),
            record(8, 2, 3, 4, "#boom"),
        ] {
            g.on_step(&r, &p);
        }
        // A step that could not be done is in neither the trace nor the states.
        let mut failed = record(6, 2, 1, 1, "#gone");
        failed.error = Some("element not found".into());
        g.on_step(&failed, &p);
        let trace: Vec<TraceStep> = ["#login", "#help", "#back", "#reports", "#boom"]
            .iter()
            .map(|t| TraceStep {
                action: Action::on(wayfarer_core::ActionKind::Click, t.to_string()),
                element: None,
                url: String::new(),
            })
            .collect();
        let f = Failure {
            kind: wayfarer_core::FailureKind::Exception,
            message: "boom".into(),
            signature: "exception|boom".into(),
            source: None,
            line: None,
            column: None,
            step: 8,
            episode: 2,
            count: 1,
            page_url: String::new(),
            trace,
            server_output: Default::default(),
        };
        let c = g.shortcuts(&f, 5);
        let first: Vec<String> = c[0]
            .iter()
            .map(|p| match p {
                Part::Trace(j) => format!("t{j}"),
                Part::Via(s) => format!("via {} on {}", s.action.target.clone().unwrap(), s.url),
            })
            .collect();
        // Typing before a link is not part of the way through it.
        let mut typed = record(10, 3, 0, 0, "#q");
        typed.action.kind = wayfarer_core::ActionKind::Type;
        g.on_step(&typed, &p);
        let mut link = record(11, 3, 0, 5, "#help-link");
        link.element = Some(wayfarer_core::trace::ElementHint {
            tag: "a".into(),
            attrs: [("href".to_string(), "/help".to_string())].into(),
            ..Default::default()
        });
        g.on_step(&link, &p);
        assert!(g.moves.last().unwrap().before.is_empty());
        // Episode 1's login is a move that needed the filling before it.
        let login = &g.moves[0];
        assert_eq!(login.step.action.target.as_deref(), Some("#login"));
        let before: Vec<_> = login
            .before
            .iter()
            .map(|s| s.action.target.clone())
            .collect();
        assert_eq!(before, [Some("#fill".to_string())]);
        // The detour (help, back) is gone; episode 2's own login needed no filling, so
        // the cheaper path takes it; the path through episode 1's "#reports" does the
        // same actions, so it is not tried twice; episode 1's login, with its filling,
        // is another way into the state and comes next.
        assert_eq!(
            first,
            ["via #login on http://app.test/s3", "t3", "t4"],
            "{c:?}"
        );
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[1].len(), 4, "{c:?}");
        // Another episode's failure, or one whose steps were not seen: nothing guessed.
        let other = Failure {
            episode: 9,
            ..f.clone()
        };
        assert!(g.shortcuts(&other, 5).is_empty());
    }

    #[test]
    fn a_shrunk_result_teaches_the_graph_its_short_ways_and_selects_are_choices() {
        let mut g = Graph::default();
        let p = wayfarer_core::Progress::default();
        let mut junk = record(0, 1, 0, 0, "#email");
        junk.action.kind = wayfarer_core::ActionKind::Type;
        let mut month = record(5, 1, 2, 2, "#month");
        month.action.kind = wayfarer_core::ActionKind::Select;
        for r in [
            junk.clone(),
            record(1, 1, 0, 0, "#fill"),
            record(2, 1, 0, 1, "#login"),
            record(3, 1, 1, 2, "#add"),
            month.clone(),
            month,
            record(6, 1, 2, 3, "#boom"),
        ] {
            g.on_step(&r, &p);
        }
        // The select is a choice made in state 2, once.
        assert_eq!(g.fills[&StateId(2)].len(), 1);
        // The run's login came with the junk typed before it.
        assert_eq!(g.moves[0].before.len(), 2);
        let trace: Vec<TraceStep> = [
            "#email", "#fill", "#login", "#add", "#month", "#month", "#boom",
        ]
        .iter()
        .map(|t| TraceStep {
            action: Action::on(wayfarer_core::ActionKind::Click, t.to_string()),
            element: None,
            url: String::new(),
        })
        .collect();
        let f = Failure {
            kind: wayfarer_core::FailureKind::Exception,
            message: "boom".into(),
            signature: "exception|boom".into(),
            source: None,
            line: None,
            column: None,
            step: 6,
            episode: 1,
            count: 1,
            page_url: String::new(),
            trace,
            server_output: Default::default(),
        };
        let sh = Shrunk {
            kept: vec![1, 2, 3, 6],
            of: 7,
            ..Shrunk::default()
        };
        let before = g.moves.len();
        g.learn(&f, &sh);
        // Fill + Log in reach state 1; with Add, state 2 (the state before "#boom").
        let learned: Vec<(u64, u64, usize)> = g.moves[before..]
            .iter()
            .map(|m| (m.from.0, m.to.0, m.before.len() + 1))
            .collect();
        assert_eq!(learned, [(0, 1, 2), (0, 2, 3)]);
        g.learn(&f, &sh);
        assert_eq!(g.moves.len(), before + 2, "each way once");
    }

    #[test]
    fn a_page_is_its_url_without_query_and_numbers_between_slashes() {
        assert_eq!(
            page_of("http://127.0.0.1:8/#/groups/5/transactions/new"),
            "http://127.0.0.1:8/#/groups/<n>/transactions/new"
        );
        assert_eq!(
            page_of("http://h/expenses/12/edit?tab=2#top"),
            "http://h/expenses/<n>/edit#top"
        );
        assert_eq!(page_of("http://h/v2/a1/"), "http://h/v2/a1/");
    }
}
