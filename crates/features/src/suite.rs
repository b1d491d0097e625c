//! One test per kept feature: the way from the start page to the first page of the
//! feature's chain (the shortest the exploration knows), then the chain's actions, each
//! as a step the run really took (with the fills that step sent), and what the last page
//! showed, for the test to check.

use std::collections::{HashMap, HashSet, VecDeque};

use wayfarer_core::ddmin::{loops, sweep_with_loops, Verdict, SWEEPS};
use wayfarer_core::trace::TraceStep;
use wayfarer_core::{ActionKind, StateId, StepRecord};

use crate::db::{ActionRef, FeatureId};
use crate::explore::{action_key, clicked_one_of, is_fill, sends, Exploration};
use crate::model::FeatureModel;

/// A feature's test, as steps.
#[derive(Clone, Debug)]
pub struct FeatureTest {
    pub feature: FeatureId,
    pub label: String,
    pub score: f64,
    /// From the start page: the way to the chain's first page, then the chain.
    pub steps: Vec<TraceStep>,
    /// How many of `steps` only lead to the chain's first page.
    pub prefix: usize,
    /// Which later steps are clicks the run made on a page before the chain's action
    /// there (set-up that may or may not be needed), by index into `steps`.
    pub set_up: Vec<usize>,
    /// The page after the last step, as the run saw it.
    pub end_url: String,
    pub end_title: String,
    /// Other kept features whose test would be this one, step for step.
    pub also: Vec<String>,
    /// Other ways to the same feature, to try in order when `steps` cannot be replayed.
    pub alternatives: Vec<Way>,
}

/// One way to perform a feature.
#[derive(Clone, Debug, PartialEq)]
pub struct Way {
    /// What it is: "short", "short, with what was done on each page first", "as recorded".
    pub how: &'static str,
    pub steps: Vec<TraceStep>,
    pub prefix: usize,
    /// As [`FeatureTest::set_up`].
    pub set_up: Vec<usize>,
}

impl FeatureTest {
    /// Take the `k`-th alternative instead of the steps.
    pub fn take_alternative(&mut self, k: usize) {
        let way = self.alternatives.remove(k);
        self.steps = way.steps;
        self.prefix = way.prefix;
        self.set_up = way.set_up;
    }
}

/// A test longer than this is shortened before it is written.
pub const SHORTEN_ABOVE: usize = 8;

/// The most replays one test's shortening takes.
pub const SHORTEN_REPLAYS: usize = 40;

/// What stopped a shortening early.
enum Stop<E> {
    Budget,
    Failed(E),
}

/// What earlier shortenings kept of the steps they could drop. The tests of one episode
/// walk the same way before their chains, so what sufficed for one is the first thing to
/// try for the next (five tests of one wizard took 19-23 replays each without it).
#[derive(Clone, Debug, Default)]
pub struct Learned {
    ways: Vec<Vec<TraceStep>>,
}

/// Hints tried before the sweeps, newest first; each that does not run through
/// costs a replay for nothing.
const HINTS_TRIED: usize = 2;

/// Shorten `t` by sweeps (`sweep_with_loops`: most of a way is needed, and bisection
/// spent its replays on halves that all failed) while `runs_through` accepts it, at most
/// `budget` replays: the way to its chain (its first `prefix` steps, fills included) and the
/// set-up clicks before the chain's actions may go; the chain's actions and the fills
/// typed for them stay. What an earlier test kept (`learned`), found among these steps,
/// is tried first, and the search goes on from it when it runs through; then detours
/// that came back to the page they left. `t` itself runs through. The shortest
/// accepted test replaces `t`, with what `runs_through` said of it; `None` when nothing
/// shorter runs through. What it kept joins `learned`.
pub fn shorten<V, E>(
    t: &mut FeatureTest,
    budget: usize,
    learned: &mut Learned,
    mut runs_through: impl FnMut(&FeatureTest) -> Result<Option<V>, E>,
) -> Result<Option<V>, E> {
    let all: Vec<usize> = (0..t.prefix.min(t.steps.len()))
        .chain(t.set_up.iter().copied().filter(|&k| k < t.steps.len()))
        .collect();
    if all.len() <= 1 {
        return Ok(None);
    }
    let mut replays = 0;
    let mut best: Option<(FeatureTest, V, Vec<usize>)> = None;
    // The steps the sweeps may drop: all of them, or what a hint kept.
    let mut spare = all.clone();
    for way in learned.ways.iter().rev().take(HINTS_TRIED) {
        let Some(sub) = embedded(way, &all, &t.steps).filter(|s| s.len() < all.len()) else {
            continue;
        };
        if replays >= budget {
            break;
        }
        replays += 1;
        let c = without(t, &all, &sub);
        if let Some(v) = runs_through(&c)? {
            best = Some((c, v, sub.clone()));
            spare = sub;
            break;
        }
    }
    if spare.len() > 1 {
        // Where each spare step was taken, then where the chain ends: detours come back.
        let pages: Vec<&str> = spare
            .iter()
            .map(|&k| t.steps[k].url.as_str())
            .chain(t.steps.last().map(|s| s.url.as_str()))
            .collect();
        let loops = loops(&pages);
        let outcome = sweep_with_loops(&spare, &loops, &SWEEPS, |kept: &[usize]| {
            if replays >= budget {
                return Err(Stop::Budget);
            }
            replays += 1;
            let c = without(t, &all, kept);
            match runs_through(&c).map_err(Stop::Failed)? {
                Some(v) => {
                    if best
                        .as_ref()
                        .is_none_or(|(b, _, _)| c.steps.len() < b.steps.len())
                    {
                        best = Some((c, v, kept.to_vec()));
                    }
                    Ok(Verdict::FailAt(kept.len() - 1))
                }
                None => Ok(Verdict::Pass),
            }
        });
        if let Err(Stop::Failed(e)) = outcome {
            return Err(e);
        }
    }
    let kept = best.as_ref().map_or(&all, |(_, _, k)| k);
    learned
        .ways
        .push(kept.iter().map(|&k| t.steps[k].clone()).collect());
    Ok(best.map(|(c, v, _)| {
        *t = c;
        v
    }))
}

/// The indices, among `spare`, of `way`'s steps in their order (each the next equal one):
/// `None` when one is not there.
fn embedded(way: &[TraceStep], spare: &[usize], steps: &[TraceStep]) -> Option<Vec<usize>> {
    let mut at = spare.iter();
    way.iter()
        .map(|w| at.by_ref().find(|&&k| steps[k] == *w).copied())
        .collect()
}

/// `t` without the `spare` steps that are not `kept`.
fn without(t: &FeatureTest, spare: &[usize], kept: &[usize]) -> FeatureTest {
    let gone: HashSet<usize> = spare
        .iter()
        .filter(|k| !kept.contains(k))
        .copied()
        .collect();
    let mut c = t.clone();
    c.steps = Vec::new();
    c.set_up = Vec::new();
    c.prefix = 0;
    for (k, s) in t.steps.iter().enumerate() {
        if gone.contains(&k) {
            continue;
        }
        if k < t.prefix {
            c.prefix += 1;
        }
        if t.set_up.contains(&k) {
            c.set_up.push(c.steps.len());
        }
        c.steps.push(s.clone());
    }
    c
}

/// Why a kept feature has no test.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    pub label: String,
    pub why: String,
}

/// The tests of `model`'s kept features, best first, over the run `x` was built from
/// (`steps`, in `explore::episode_order`). A feature whose chain cannot be reached or performed from
/// the start page is skipped, with the reason.
pub fn tests(
    model: &FeatureModel,
    x: &Exploration,
    steps: &[StepRecord],
) -> (Vec<FeatureTest>, Vec<Skipped>) {
    let Some(start) = x.states.first().map(|s| s.id) else {
        return (Vec::new(), Vec::new());
    };
    let index: HashMap<u64, usize> = steps.iter().enumerate().map(|(i, r)| (r.step, i)).collect();
    let graph = Graph::new(x, steps, &index);
    let mut out: Vec<FeatureTest> = Vec::new();
    let mut skipped = Vec::new();
    for id in model.kept() {
        let f = model.db.get(id);
        let chain = model.chain(id);
        match build(&graph, x, steps, start, &chain) {
            Ok(b) => {
                let test = FeatureTest {
                    feature: id,
                    label: f.label.clone(),
                    score: f.score,
                    steps: b.ways[0].steps.clone(),
                    prefix: b.ways[0].prefix,
                    set_up: b.ways[0].set_up.clone(),
                    end_url: b.last.url_after.clone(),
                    end_title: b.last.title_after.clone(),
                    also: Vec::new(),
                    alternatives: b.ways[1..].to_vec(),
                };
                match out.iter_mut().find(|t| same_steps(t, &test)) {
                    Some(t) => t.also.push(test.label),
                    None => out.push(test),
                }
            }
            Err(why) => skipped.push(Skipped {
                label: f.label.clone(),
                why,
            }),
        }
    }
    (out, skipped)
}

fn same_steps(a: &FeatureTest, b: &FeatureTest) -> bool {
    a.steps.len() == b.steps.len()
        && a.steps
            .iter()
            .zip(&b.steps)
            .all(|(x, y)| x.action == y.action)
}

/// The exploration's edges: from a state, by an action key, to a state, with the steps
/// that took it.
struct Graph {
    /// Per state: action key, the state it led to, the step, how many fills it sent (of
    /// the steps that took the same edge, the one that sent the most: the fullest example
    /// of the action, a search with its term rather than an empty one).
    out: HashMap<StateId, Vec<Edge>>,
    /// Steps that went back in history: where they land depends on the way there, so no
    /// shortest way takes one.
    history: HashSet<usize>,
}

struct Edge {
    key: String,
    to: StateId,
    step: usize,
    fills: usize,
}

impl Graph {
    fn new(x: &Exploration, steps: &[StepRecord], index: &HashMap<u64, usize>) -> Graph {
        let mut out: HashMap<StateId, Vec<Edge>> = HashMap::new();
        let mut history = HashSet::new();
        for s in &x.states {
            for a in &s.actions {
                for n in &a.steps {
                    let Some(&i) = index.get(n) else { continue };
                    let to = steps[i].state_after;
                    if steps[i].action.kind == ActionKind::Back {
                        history.insert(i);
                    }
                    // Only what a submission sent counts: fills before another click
                    // are the crawl's, not the action's.
                    let fills = if sends(&steps[i]) {
                        set_up_before(steps, i, false).len()
                    } else {
                        0
                    };
                    let edges = out.entry(s.id).or_default();
                    match edges.iter_mut().find(|e| e.key == a.text.key && e.to == to) {
                        Some(e) if fills > e.fills => {
                            e.step = i;
                            e.fills = fills;
                        }
                        Some(_) => {}
                        None => edges.push(Edge {
                            key: a.text.key.clone(),
                            to,
                            step: i,
                            fills,
                        }),
                    }
                }
            }
        }
        Graph { out, history }
    }

    /// The steps (indices) of a shortest way from `from` to `to`.
    fn path(&self, from: StateId, to: StateId) -> Option<Vec<usize>> {
        let mut prev: HashMap<StateId, (StateId, usize)> = HashMap::new();
        let mut seen = HashSet::from([from]);
        let mut queue = VecDeque::from([from]);
        while let Some(s) = queue.pop_front() {
            if s == to {
                let mut path = Vec::new();
                let mut cur = to;
                while cur != from {
                    let (p, i) = prev[&cur];
                    path.push(i);
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            for e in self.out.get(&s).into_iter().flatten() {
                if !self.history.contains(&e.step) && seen.insert(e.to) {
                    prev.insert(e.to, (s, e.step));
                    queue.push_back(e.to);
                }
            }
        }
        None
    }

    /// A step that took `key` in `from`, landing in `to` when it is given and one did;
    /// else the one taken after the most fills (the first of those).
    fn step(&self, from: StateId, key: &str, to: Option<StateId>) -> Option<usize> {
        let edges = self.out.get(&from)?;
        let fullest = || {
            edges
                .iter()
                .filter(|e| e.key == key)
                .rev()
                .max_by_key(|e| e.fills)
        };
        match to {
            Some(to) => edges
                .iter()
                .find(|e| e.key == key && e.to == to)
                .or_else(fullest),
            None => fullest(),
        }
        .map(|e| e.step)
    }
}

/// The ways to one feature, the preferred first, and the last step's record.
struct Built<'a> {
    ways: Vec<Way>,
    last: &'a StepRecord,
}

fn build<'a>(
    graph: &Graph,
    x: &Exploration,
    steps: &'a [StepRecord],
    start: StateId,
    chain: &[ActionRef],
) -> Result<Built<'a>, String> {
    let first = chain.first().ok_or("no action was inferred for it")?;
    let way = graph
        .path(start, first.state)
        .ok_or_else(|| format!("no known way from the start page to {}", first.state))?;
    let mut taken: Vec<usize> = way;
    let prefix_steps = taken.len();
    for (k, a) in chain.iter().enumerate() {
        let next = chain.get(k + 1).map(|n| n.state);
        let i = graph
            .step(a.state, &a.action, next)
            .ok_or_else(|| format!("{} was never taken in {}", a.action, a.state))?;
        taken.push(i);
    }
    let page = |r: &StepRecord| {
        x.state(r.state_before)
            .map_or("", |s| s.url.as_str())
            .to_string()
    };
    let end = *taken.last().ok_or("no step")?;
    let completes = completion(steps, end);
    let completed: Vec<TraceStep> = completes
        .iter()
        .copied()
        .map(|j| trace_step(&steps[j], &page(&steps[j])))
        .collect();
    // A step and what was done on its page first; the set-up clicks' places noted.
    let with_set_up = |out: &mut Vec<TraceStep>, set_up: &mut Vec<usize>, i: usize, clicks| {
        for f in set_up_before(steps, i, clicks) {
            if !is_fill(&steps[f]) {
                set_up.push(out.len());
            }
            out.push(trace_step(&steps[f], &page(&steps[i])));
        }
        out.push(trace_step(&steps[i], &page(&steps[i])));
    };
    let mut ways: Vec<Way> = Vec::new();
    for (how, clicks) in [
        ("short", false),
        ("short, with what was done on each page first", true),
    ] {
        let mut out = Vec::new();
        let mut set_up = Vec::new();
        let mut prefix = 0;
        for (k, &i) in taken.iter().enumerate() {
            with_set_up(&mut out, &mut set_up, i, clicks);
            if k + 1 == prefix_steps {
                prefix = out.len();
            }
        }
        out.extend(completed.iter().cloned());
        // Only the chain's set-up: the way to it may go entirely.
        set_up.retain(|&k| k >= prefix);
        ways.push(Way {
            how,
            steps: out,
            prefix,
            set_up,
        });
    }
    // The episode of the chain's first step, as it went up to that step: what that step
    // was taken after, data the episode made included.
    let chain_first = taken[prefix_steps];
    let episode = steps[chain_first].episode;
    let mut recorded: Vec<TraceStep> = steps[..chain_first]
        .iter()
        .filter(|r| r.episode == episode && r.error.is_none())
        .map(|r| trace_step(r, &page(r)))
        .collect();
    let prefix = recorded.len();
    recorded.push(trace_step(&steps[chain_first], &page(&steps[chain_first])));
    let mut set_up = Vec::new();
    for &i in &taken[prefix_steps + 1..] {
        with_set_up(&mut recorded, &mut set_up, i, true);
    }
    recorded.extend(completed.iter().cloned());
    ways.push(Way {
        how: "as recorded",
        steps: recorded,
        prefix,
        set_up,
    });
    // Two ways that are the same steps are one.
    let mut unique: Vec<Way> = Vec::new();
    for w in ways {
        if !unique.iter().any(|u| u.steps == w.steps) {
            unique.push(w);
        }
    }
    let last = &steps[completes.last().copied().unwrap_or(end)];
    Ok(Built { ways: unique, last })
}

/// Answers that go on with what was asked.
const CONFIRMS: &[&str] = &["yes", "ok", "confirm", "continue"];

/// A chain that ends inside a form (a click that stayed on its page and sent nothing:
/// "Add member", a participant's box) ends with the form sent, as the run went on: the
/// fills typed next on that page (the last value of each field) and the submit that
/// sent them; one that asked a question ends with its answer ("Yes"). Nothing when the
/// run did something else first.
fn completion(steps: &[StepRecord], end: usize) -> Vec<usize> {
    let r = &steps[end];
    if r.state_after != r.state_before || sends(r) || r.action.kind == ActionKind::Back {
        return Vec::new();
    }
    let mut fills: Vec<usize> = Vec::new();
    for (j, f) in steps.iter().enumerate().skip(end + 1).take(SET_UP_MAX) {
        if f.episode != r.episode || f.error.is_some() || f.state_before != r.state_after {
            break;
        }
        if is_fill(f) && f.state_after == f.state_before {
            fills.retain(|&k| action_key(&steps[k]) != action_key(f));
            fills.push(j);
            continue;
        }
        // A confirmation asked right after ("Clear Done", then "Yes") needs no fills.
        if (sends(f) && !fills.is_empty()) || (fills.is_empty() && clicked_one_of(f, CONFIRMS)) {
            fills.push(j);
            return fills;
        }
        break;
    }
    Vec::new()
}

/// Steps on one page that set it up before the step leaving it (or complete a form).
const SET_UP_MAX: usize = 12;

/// What the step at `i` needed done on its page first: the steps taken there since the
/// page was reached in that episode (fills, and with `clicks` the clicks that changed
/// nothing a state tells, such as "Fill demo credentials"), the last value of each
/// field only.
fn set_up_before(steps: &[StepRecord], i: usize, clicks: bool) -> Vec<usize> {
    let r = &steps[i];
    let mut out = Vec::new();
    let mut j = i;
    while j > 0 && out.len() < SET_UP_MAX {
        j -= 1;
        let f = &steps[j];
        let here = f.state_before == r.state_before && f.state_after == r.state_before;
        if !here || f.episode != r.episode || f.error.is_some() {
            break;
        }
        if f.action.kind == ActionKind::Back || (!clicks && !is_fill(f)) {
            break;
        }
        out.push(j);
    }
    out.reverse();
    // One value per field: the last typed (clicks are kept as they were taken).
    let mut last: HashMap<String, usize> = HashMap::new();
    for &j in &out {
        if is_fill(&steps[j]) {
            last.insert(action_key(&steps[j]), j);
        }
    }
    out.retain(|j| !is_fill(&steps[*j]) || last.get(&action_key(&steps[*j])) == Some(j));
    out
}

fn trace_step(r: &StepRecord, page: &str) -> TraceStep {
    TraceStep {
        action: r.action.clone(),
        element: r.element.clone(),
        url: page.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use wayfarer_core::embed::text::HashedText;
    use wayfarer_core::Action;

    use super::*;
    use crate::heuristic::Heuristic;
    use crate::testing::{step, submitted};
    use crate::{CosineAtLeast, Ranking};

    /// What the steps do, as `describe` says it.
    fn described(steps: &[TraceStep]) -> Vec<String> {
        steps.iter().map(|s| s.action.describe()).collect()
    }

    /// The "Add Owner" test of `run()`.
    const ADD_OWNER: [&str; 5] = [
        "click #find",
        "click #add",
        "type #city \"Rome\"",
        "type #first \"Bo\"",
        "click #save",
    ];

    fn click(t: &str) -> Action {
        Action::on(ActionKind::Click, t)
    }

    fn typed(t: &str, v: &str) -> Action {
        Action::on(ActionKind::Type, t).with_value(v)
    }

    /// Home -> Find owners -> Add Owner -> the owner form, filled twice (the second
    /// value of a field wins) and sent -> the new owner's page, then home again.
    fn run() -> (Vec<(StateId, String, String)>, Vec<StepRecord>) {
        let states = (0..4)
            .map(|i| (StateId(i), format!("http://h/{i}"), format!("Page {i}")))
            .collect();
        let steps = vec![
            step(1, 0, 1, click("#find"), "link", "Find owners"),
            step(2, 1, 2, click("#add"), "link", "Add Owner"),
            step(3, 2, 2, typed("#first", "Ann"), "textbox", "First Name"),
            step(4, 2, 2, typed("#city", "Rome"), "textbox", "City"),
            step(5, 2, 2, typed("#first", "Bo"), "textbox", "First Name"),
            submitted(step(6, 2, 3, click("#save"), "button", "Add Owner")),
            step(7, 3, 0, click("#home"), "link", "Home"),
        ];
        (states, steps)
    }

    fn inferred(
        states: &[(StateId, String, String)],
        steps: &[StepRecord],
    ) -> (FeatureModel, Exploration) {
        let x = Exploration::from_steps(states, steps);
        let mut m = FeatureModel::new(
            Ranking::default(),
            Box::new(HashedText::default()),
            Box::new(CosineAtLeast(0.8)),
        );
        crate::infer(&x, "clinic", &mut Heuristic, &mut m).unwrap();
        (m, x)
    }

    #[test]
    fn a_test_takes_the_way_to_its_chain_then_the_chain_with_its_fills() {
        let (states, steps) = run();
        let (m, x) = inferred(&states, &steps);
        let (tests, skipped) = tests(&m, &x, &steps);
        assert!(skipped.is_empty(), "{skipped:?}");
        let add = tests.iter().find(|t| t.label == "Add Owner").unwrap();
        let did = described(&add.steps);
        assert_eq!(did, ADD_OWNER);
        assert_eq!(add.prefix, 1);
        assert_eq!(add.end_url, "http://h/3");
        assert_eq!(add.end_title, "Page 3");
        // The first step was taken on the start page.
        assert_eq!(add.steps[0].url, "http://h/0");
        // Find owners: one click from the start.
        let find = tests.iter().find(|t| t.label == "Find owners").unwrap();
        assert_eq!(find.steps.len(), 1);
        assert_eq!(find.prefix, 0);
    }

    #[test]
    fn a_chain_out_of_reach_is_skipped_with_the_reason() {
        let (states, mut steps) = run();
        // The only way to page 1 failed: nothing past it can be reached.
        steps[0].error = Some("element gone".into());
        let (m, x) = inferred(&states, &steps);
        let (tests, skipped) = tests(&m, &x, &steps);
        assert!(tests.iter().all(|t| t.label != "Add Owner"));
        let why = skipped
            .iter()
            .find(|s| s.label == "Add Owner")
            .map(|s| s.why.as_str());
        assert_eq!(why, Some("no known way from the start page to s1"));
    }

    #[test]
    fn a_click_that_set_up_the_page_comes_along() {
        let states: Vec<(StateId, String, String)> = (0..3)
            .map(|i| (StateId(i), format!("http://h/{i}"), format!("Page {i}")))
            .collect();
        let steps = vec![
            // An earlier episode typed into the page, then left it: not part of it.
            step(1, 0, 0, typed("#email", "old"), "textbox", "E-mail"),
            StepRecord {
                episode: 2,
                ..step(2, 0, 0, click("#demo"), "button", "Fill demo credentials")
            },
            StepRecord {
                episode: 2,
                ..step(3, 0, 1, click("#login"), "button", "Log in")
            },
            StepRecord {
                episode: 2,
                ..step(4, 1, 2, click("#export"), "button", "Export")
            },
        ];
        let (m, x) = inferred(&states, &steps);
        let (tests, _) = tests(&m, &x, &steps);
        let export = tests.iter().find(|t| t.label == "Export").unwrap();
        // The short way first: the clicks that set the page up are left out...
        let did = described(&export.steps);
        assert_eq!(did, vec!["click #login", "click #export"]);
        assert_eq!(export.prefix, 1);
        // ...then the same with the set-up click; as recorded (episode 2 up to the chain,
        // without the first episode's typing) is that again, so not another way.
        let hows: Vec<&str> = export.alternatives.iter().map(|w| w.how).collect();
        assert_eq!(hows, vec!["short, with what was done on each page first"]);
        let mut export = export.clone();
        export.take_alternative(0);
        let did = described(&export.steps);
        assert_eq!(did, vec!["click #demo", "click #login", "click #export"]);
        assert_eq!(export.prefix, 2);
        assert!(export.alternatives.is_empty());
    }

    #[test]
    fn a_feature_is_performed_the_fullest_way_it_was_taken() {
        let states: Vec<(StateId, String, String)> = (0..4)
            .map(|i| (StateId(i), format!("http://h/{i}"), format!("Page {i}")))
            .collect();
        let steps = vec![
            step(1, 0, 1, click("#search"), "link", "Search"),
            // First an empty search (every owner), then one with a term (the result).
            submitted(step(2, 1, 2, click("#find"), "button", "Find Owner")),
            step(3, 2, 0, click("#home"), "link", "Home"),
            step(4, 0, 1, click("#search"), "link", "Search"),
            step(5, 1, 1, typed("#q", "Davis"), "textbox", "Last name"),
            submitted(step(6, 1, 3, click("#find"), "button", "Find Owner")),
        ];
        let (m, x) = inferred(&states, &steps);
        let (tests, _) = tests(&m, &x, &steps);
        let find = tests.iter().find(|t| t.label == "Find Owner").unwrap();
        let did = described(&find.steps);
        assert_eq!(
            did,
            vec!["click #search", "type #q \"Davis\"", "click #find"]
        );
        assert_eq!(find.end_url, "http://h/3");
    }

    /// The "Add Owner" test of the clinic-like run.
    fn add_owner() -> FeatureTest {
        let (states, steps) = run();
        let (m, x) = inferred(&states, &steps);
        let (tests, _) = tests(&m, &x, &steps);
        tests.into_iter().find(|t| t.label == "Add Owner").unwrap()
    }

    /// A step taken on `url`, with no element hint.
    fn at(a: Action, url: &str) -> TraceStep {
        TraceStep {
            action: a,
            element: None,
            url: url.into(),
        }
    }

    #[test]
    fn a_long_way_is_shortened_to_what_the_chain_needs() {
        let mut t = add_owner();
        // A way with detours: home, find, home again, find again, then the form.
        let chain = t.steps[t.prefix..].to_vec();
        t.steps = vec![
            at(click("#find"), "http://h/0"),
            at(click("#home"), "http://h/1"),
            at(click("#vets"), "http://h/0"),
            at(click("#home"), "http://h/5"),
            at(click("#find"), "http://h/0"),
            at(click("#add"), "http://h/1"),
        ];
        t.prefix = t.steps.len();
        t.steps.extend(chain.clone());
        // It runs through when #find is clicked before #add (the chain's first step).
        let mut replays = 0;
        let runs = |c: &FeatureTest| -> Result<Option<usize>, ()> {
            replays += 1;
            let did = described(&c.steps);
            let find = did.iter().position(|d| d == "click #find");
            let add = did.iter().position(|d| d == "click #add");
            assert!(c.steps.ends_with(&chain), "the chain stays");
            Ok(matches!((find, add), (Some(f), Some(a)) if f < a).then_some(c.steps.len()))
        };
        let v = shorten(&mut t, SHORTEN_REPLAYS, &mut Learned::default(), runs).unwrap();
        let did = described(&t.steps[..t.prefix]);
        assert_eq!(did, vec!["click #find"]);
        assert_eq!(t.prefix, 1);
        assert_eq!(v, Some(t.steps.len()));
        assert!(replays <= SHORTEN_REPLAYS);
        // A set-up click before the chain's last action may go too; fills stay.
        let save = t.steps.len() - 1;
        t.steps.insert(save, at(click("#help"), "http://h/2"));
        t.set_up = vec![save];
        let runs = |c: &FeatureTest| -> Result<Option<()>, ()> {
            let did = described(&c.steps);
            Ok(did.iter().any(|d| d == "click #find").then_some(()))
        };
        shorten(&mut t, SHORTEN_REPLAYS, &mut Learned::default(), runs).unwrap();
        let did = described(&t.steps);
        assert_eq!(did, ADD_OWNER);
        assert_eq!((t.prefix, t.set_up.len()), (1, 0));
        // Out of replays: the best found so far, or nothing.
        let mut u = add_owner();
        let before = u.steps.clone();
        let none = shorten(&mut u, 0, &mut Learned::default(), |_| Ok::<_, ()>(Some(0))).unwrap();
        assert_eq!(none, None);
        assert_eq!(u.steps, before);
    }

    #[test]
    fn what_one_test_kept_is_tried_first_for_the_next() {
        let base = add_owner();
        let chain = base.steps[base.prefix..].to_vec();
        // Two tests of one episode: the second walked the first's way and then some.
        let way = vec![
            at(click("#vets"), "http://h/0"),
            at(click("#home"), "http://h/5"),
            at(click("#find"), "http://h/0"),
            at(click("#help"), "http://h/1"),
            at(click("#vets"), "http://h/1"),
            at(click("#home"), "http://h/5"),
        ];
        let with_way = |way: &[TraceStep]| {
            let mut t = base.clone();
            t.steps = way.to_vec();
            t.prefix = way.len();
            t.set_up = Vec::new();
            t.steps.extend(chain.clone());
            t
        };
        let mut longer = way.clone();
        longer.extend([
            at(click("#owners"), "http://h/5"),
            at(click("#home"), "http://h/2"),
        ]);
        // Either runs through when #find was clicked.
        let shortened = |t: &mut FeatureTest, learned: &mut Learned| {
            let mut replays = 0;
            let v = shorten(t, SHORTEN_REPLAYS, learned, |c: &FeatureTest| {
                replays += 1;
                let did = described(&c.steps[..c.prefix]);
                Ok::<_, ()>(did.iter().any(|d| d == "click #find").then_some(()))
            })
            .unwrap();
            assert!(v.is_some());
            assert_eq!(described(&t.steps[..t.prefix]), vec!["click #find"]);
            replays
        };
        let mut learned = Learned::default();
        let first = shortened(&mut with_way(&way), &mut learned);
        let alone = shortened(&mut with_way(&longer), &mut Learned::default());
        let hinted = shortened(&mut with_way(&longer), &mut learned);
        assert!(first > 2 && alone > 2, "{first} {alone}");
        // One replay: the first's way runs through, and one step is all there is to keep.
        assert_eq!(hinted, 1);
        // A hint not among the steps costs nothing; one that does not run through, one.
        let mut elsewhere = Learned::default();
        elsewhere
            .ways
            .push(vec![at(click("#nowhere"), "http://h/9")]);
        assert_eq!(shortened(&mut with_way(&longer), &mut elsewhere), alone);
        let mut wrong = Learned::default();
        wrong.ways.push(vec![way[0].clone()]);
        assert_eq!(shortened(&mut with_way(&longer), &mut wrong), alone + 1);
    }

    #[test]
    fn a_chain_ending_inside_a_form_ends_with_the_form_sent() {
        let states: Vec<(StateId, String, String)> = (0..3)
            .map(|i| (StateId(i), format!("http://h/{i}"), format!("Page {i}")))
            .collect();
        let steps = vec![
            step(1, 0, 1, click("#new"), "link", "New group"),
            // A button that adds a field: the page stays, nothing is sent.
            step(2, 1, 1, click("#more"), "button", "Add member"),
            step(3, 1, 1, typed("#m2", "Bo"), "textbox", "Member name"),
            step(4, 1, 1, typed("#m2", "Cy"), "textbox", "Member name"),
            submitted(step(5, 1, 2, click("#create"), "button", "Create group")),
            step(6, 2, 0, click("#home"), "link", "Home"),
        ];
        let (m, x) = inferred(&states, &steps);
        let (tests, _) = tests(&m, &x, &steps);
        let add = tests.iter().find(|t| t.label == "Add member").unwrap();
        let did = described(&add.steps);
        assert_eq!(
            did,
            vec![
                "click #new",
                "click #more",
                "type #m2 \"Cy\"",
                "click #create"
            ]
        );
        assert_eq!(add.end_url, "http://h/2");
        // A question answered right after is part of it too.
        let asked = vec![
            step(1, 0, 1, click("#board"), "link", "Launch"),
            step(2, 1, 1, click("#clear"), "button", "Clear Done"),
            step(3, 1, 1, click("#yes"), "button", "Yes"),
        ];
        let (m, x) = inferred(&states, &asked);
        let (answered, _) = super::tests(&m, &x, &asked);
        let clear = answered.iter().find(|t| t.label == "Clear Done").unwrap();
        let did = described(&clear.steps);
        assert_eq!(did, vec!["click #board", "click #clear", "click #yes"]);
        // A click that was followed by something else ends where it ended.
        let mut other = steps.clone();
        other[2] = step(3, 1, 1, click("#help"), "link", "Help");
        let (m, x) = inferred(&states, &other);
        let (again, _) = super::tests(&m, &x, &other);
        let add = again.iter().find(|t| t.label == "Add member").unwrap();
        assert_eq!(add.steps.len(), 2);
        assert_eq!(add.end_url, "http://h/1");
    }

    #[test]
    fn no_way_goes_back_in_history() {
        let states: Vec<(StateId, String, String)> = (0..3)
            .map(|i| (StateId(i), format!("http://h/{i}"), format!("Page {i}")))
            .collect();
        let ep2 = |r: StepRecord| StepRecord { episode: 2, ..r };
        let steps = vec![
            step(1, 0, 1, click("#groups"), "link", "Groups"),
            step(2, 1, 2, click("#ski"), "link", "Ski trip"),
            step(3, 2, 0, click("#home"), "link", "Home"),
            // Back from the start page once landed on the group: it depends on the way
            // there, and a test starts with no history.
            step(4, 0, 2, Action::back(), "", ""),
            ep2(step(5, 2, 2, click("#rename"), "button", "Rename group")),
        ];
        let (m, x) = inferred(&states, &steps);
        let (tests, _) = tests(&m, &x, &steps);
        let rename = tests.iter().find(|t| t.label == "Rename group").unwrap();
        let did = described(&rename.steps);
        assert_eq!(did, vec!["click #groups", "click #ski", "click #rename"]);
    }
}
