//! One test per kept feature: the way from the start page to the first page of the
//! feature's chain (the shortest the exploration knows), then the chain's actions, each
//! as a step the run really took (with the fills that step sent), and what the last page
//! showed, for the test to check.

use std::collections::{HashMap, HashSet, VecDeque};

use wayfarer_core::trace::TraceStep;
use wayfarer_core::{ActionKind, StateId, StepRecord};

use crate::db::{ActionRef, FeatureId};
use crate::explore::{action_key, Exploration};
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
    /// The page after the last step, as the run saw it.
    pub end_url: String,
    pub end_title: String,
    /// Other kept features whose test would be this one, step for step.
    pub also: Vec<String>,
}

/// Why a kept feature has no test.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    pub label: String,
    pub why: String,
}

/// The tests of `model`'s kept features, best first, over the run `x` was built from
/// (`steps`, in step order). A feature whose chain cannot be reached or performed from
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
            Ok((steps, prefix, last)) => {
                let test = FeatureTest {
                    feature: id,
                    label: f.label.clone(),
                    score: f.score,
                    steps,
                    prefix,
                    end_url: last.url_after.clone(),
                    end_title: last.title_after.clone(),
                    also: Vec::new(),
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
    out: HashMap<StateId, Vec<(String, StateId, usize)>>,
}

impl Graph {
    fn new(x: &Exploration, steps: &[StepRecord], index: &HashMap<u64, usize>) -> Graph {
        let mut out: HashMap<StateId, Vec<(String, StateId, usize)>> = HashMap::new();
        for s in &x.states {
            for a in &s.actions {
                for n in &a.steps {
                    let Some(&i) = index.get(n) else { continue };
                    let to = steps[i].state_after;
                    let edges = out.entry(s.id).or_default();
                    if !edges.iter().any(|(k, t, _)| *k == a.text.key && *t == to) {
                        edges.push((a.text.key.clone(), to, i));
                    }
                }
            }
        }
        Graph { out }
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
            for (_, t, i) in self.out.get(&s).into_iter().flatten() {
                if seen.insert(*t) {
                    prev.insert(*t, (s, *i));
                    queue.push_back(*t);
                }
            }
        }
        None
    }

    /// A step that took `key` in `from`, landing in `to` when it is given and one did.
    fn step(&self, from: StateId, key: &str, to: Option<StateId>) -> Option<usize> {
        let edges = self.out.get(&from)?;
        let mut matching = edges.iter().filter(|(k, _, _)| k == key);
        match to {
            Some(to) => edges
                .iter()
                .find(|(k, t, _)| k == key && *t == to)
                .or_else(|| matching.next()),
            None => matching.next(),
        }
        .map(|(_, _, i)| *i)
    }
}

/// The steps of one test, how many lead to the chain, and the last step's record.
fn build<'a>(
    graph: &Graph,
    x: &Exploration,
    steps: &'a [StepRecord],
    start: StateId,
    chain: &[ActionRef],
) -> Result<(Vec<TraceStep>, usize, &'a StepRecord), String> {
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
    let mut out = Vec::new();
    let mut prefix = 0;
    for (k, &i) in taken.iter().enumerate() {
        let r = &steps[i];
        let page = x.state(r.state_before).map_or("", |s| s.url.as_str());
        for f in fills_before(steps, i) {
            out.push(trace_step(&steps[f], page));
        }
        out.push(trace_step(r, page));
        if k + 1 == prefix_steps {
            prefix = out.len();
        }
    }
    let last = &steps[*taken.last().ok_or("no step")?];
    Ok((out, prefix, last))
}

/// The fills sent by the step at `i`: the type and select steps right before it on the
/// same page in the same episode, when it submitted them.
fn fills_before(steps: &[StepRecord], i: usize) -> Vec<usize> {
    let r = &steps[i];
    if r.form.is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut j = i;
    while j > 0 {
        j -= 1;
        let f = &steps[j];
        let fill = matches!(f.action.kind, ActionKind::Type | ActionKind::Select);
        if !fill || f.episode != r.episode || f.state_before != r.state_before || f.error.is_some()
        {
            break;
        }
        out.push(j);
    }
    out.reverse();
    // One value per field: the last typed.
    let mut last: HashMap<String, usize> = HashMap::new();
    for &j in &out {
        last.insert(action_key(&steps[j]), j);
    }
    out.retain(|j| last.get(&action_key(&steps[*j])) == Some(j));
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
        let did: Vec<String> = add.steps.iter().map(|s| s.action.describe()).collect();
        assert_eq!(
            did,
            vec![
                "click #find",
                "click #add",
                "type #city \"Rome\"",
                "type #first \"Bo\"",
                "click #save"
            ]
        );
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
}
