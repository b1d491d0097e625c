//! Shorter ways to a failure. An exploration wanders: the trace that raised a failure is
//! every action since the last reset, detours included. The run's state graph often
//! knows a shorter path to a state the trace passed through; that path followed by the
//! rest of the trace is a candidate worth one replay before delta debugging the whole
//! trace, each of whose tests replays far more actions.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use crate::state::StateId;
use crate::trace::TraceStep;

/// One step the run took, as an edge of its state graph.
#[derive(Clone, Debug)]
pub struct Move {
    pub from: StateId,
    pub to: StateId,
    pub step: TraceStep,
    /// The steps taken in `from` since the run came into it, before this one (typing
    /// into the login form before "Log in"): a path through this move needs them too.
    pub before: Vec<TraceStep>,
}

impl Move {
    /// Actions a path through this move replays.
    fn cost(&self) -> usize {
        self.before.len() + 1
    }
}

/// A step of a candidate: one of the failing trace's own (by index) or one the run took
/// elsewhere.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Trace(usize),
    Via(Box<TraceStep>),
}

/// What the run's state graph knows, as shortcuts read it.
#[derive(Clone, Copy, Debug)]
pub struct Known<'a> {
    /// Every step that changed the state.
    pub moves: &'a [Move],
    /// For a state, the others seen on the same page.
    pub alike: &'a HashMap<StateId, Vec<StateId>>,
    /// For a state, the choices the run made in it without leaving it (a month chosen
    /// in a select): what the state shows depends on them.
    pub fills: &'a HashMap<StateId, Vec<TraceStep>>,
}

/// Candidates shorter than `trace`, the shortest for each place first, then the others
/// shortest first: for each place `j` where the trace
/// entered a state (`states[j]`, the state before its action `j`), the shortest path the
/// run knows from `start` to `states[j]`, then `trace[j..]` (at most `max` of these); then
/// all others (the caller says how many it replays): the same through the states `alike`
/// names for `states[j]` (the same page reached another way: logged in as the demo user
/// rather than as a user just registered), through each other way the run came into one
/// of those states (its last move with what was done before it: the only transaction
/// deleted before "Settle up"), and the shortest path followed by one choice the run made
/// in that state (the empty month chosen before "By category"): what a state holds, to
/// which the shortest path is blind. The trace's last action is in every candidate: it is
/// the one that raised the failure.
pub fn candidates(
    known: Known,
    start: StateId,
    states: &[StateId],
    trace: &[TraceStep],
    max: usize,
) -> Vec<Vec<Part>> {
    let Known {
        moves,
        alike,
        fills,
    } = known;
    let n = trace.len();
    if n == 0 || states.len() != n {
        return Vec::new();
    }
    let paths = shortest_paths(moves, start);
    // Each way into a state once: a link clicked fifty times is one way.
    let mut into: HashMap<StateId, Vec<usize>> = HashMap::new();
    let mut ways_seen = HashSet::new();
    for (i, m) in moves.iter().enumerate() {
        let actions: Vec<&crate::model::Action> = m
            .before
            .iter()
            .chain([&m.step])
            .map(|s| &s.action)
            .collect();
        let key = (
            m.from,
            m.to,
            serde_json::to_string(&actions).unwrap_or_default(),
        );
        if m.from != m.to && ways_seen.insert(key) {
            into.entry(m.to).or_default().push(i);
        }
    }
    let (mut exact, mut other): (Vec<Vec<Part>>, Vec<Vec<Part>>) = (Vec::new(), Vec::new());
    let mut seen = HashSet::new();
    for (j, state) in states.iter().enumerate() {
        // Only where the trace entered a state: what it did there before `j` (typing
        // into a form: the state stays) is part of the way to the failure.
        if j > 0 && states[j - 1] == *state {
            continue;
        }
        let others = alike.get(state).map(Vec::as_slice).unwrap_or(&[]);
        for (k, target) in std::iter::once(state).chain(others).enumerate() {
            let Some(path) = paths.get(target) else {
                continue;
            };
            // The shortest path first, then each other last move into the target.
            let last_moves = into.get(target).map(Vec::as_slice).unwrap_or(&[]);
            let ways = std::iter::once((path.clone(), None)).chain(
                last_moves
                    .iter()
                    // A link leads to its page from anywhere: what a state holds comes
                    // from what was done (a deletion, a login), not from which link.
                    .filter(|&&m| path.last() != Some(&m) && !is_link(&moves[m].step))
                    .filter_map(|&m| {
                        let mut p = paths.get(&moves[m].from)?.clone();
                        p.push(m);
                        Some((p, None))
                    }),
            );
            // The shortest path, then a choice made there.
            let chosen = fills
                .get(target)
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .map(|fill| (path.clone(), Some(fill)));
            for (i, (path, fill)) in ways.chain(chosen).enumerate() {
                let via = |lean: bool| -> Vec<&TraceStep> {
                    path.iter()
                        .flat_map(|&m| kept_before(&moves[m].before, lean).chain([&moves[m].step]))
                        .chain(fill)
                        .collect()
                };
                let full = via(false);
                let lean = via(true);
                // The same way without typing a click after it may have replaced (a login
                // form filled by hand, then with "Fill demo credentials").
                let lean = (lean.len() < full.len()).then_some(lean);
                for (l, via) in std::iter::once(full).chain(lean).enumerate() {
                    if via.len() + (n - j) >= n {
                        continue;
                    }
                    let mut cand: Vec<Part> = via
                        .into_iter()
                        .map(|st| Part::Via(Box::new(st.clone())))
                        .collect();
                    cand.extend((j..n).map(Part::Trace));
                    // Two places can give the same actions (a path through the trace's own
                    // states).
                    let key: Vec<String> = cand
                        .iter()
                        .map(|p| {
                            let st = match p {
                                Part::Trace(i) => &trace[*i],
                                Part::Via(s) => s,
                            };
                            serde_json::to_string(&st.action).unwrap_or_default()
                        })
                        .collect();
                    if seen.insert(key) {
                        match k == 0 && i == 0 && l == 0 {
                            true => exact.push(cand),
                            false => other.push(cand),
                        }
                    }
                }
            }
        }
    }
    exact.sort_by_key(Vec::len);
    exact.truncate(max);
    exact.extend(other);
    exact.sort_by_key(Vec::len);
    // The shortest way for each place first, then the rest: short ways to the last state
    // (a path, then the failing click) are many and seldom hold what the failure needs, so
    // they must not crowd out a way to an earlier state that keeps the trace's own steps.
    let mut places = HashSet::new();
    let (firsts, rest): (Vec<_>, Vec<_>) = exact
        .into_iter()
        .partition(|c| places.insert(c.iter().filter(|p| matches!(p, Part::Trace(_))).count()));
    firsts.into_iter().chain(rest).collect()
}

/// The steps of a move's `before`; `lean`: without the typing and choosing that a click
/// after it in the same state may have replaced.
fn kept_before(before: &[TraceStep], lean: bool) -> impl Iterator<Item = &TraceStep> {
    use crate::model::ActionKind::{Click, Select, Type};
    let last_click = before.iter().rposition(|s| s.action.kind == Click);
    before.iter().enumerate().filter_map(move |(i, s)| {
        let replaced =
            lean && matches!(s.action.kind, Type | Select) && last_click.is_some_and(|c| i < c);
        (!replaced).then_some(s)
    })
}

/// For every state reachable from `start`, the moves of a shortest path to it, a move
/// counting its actions (Dijkstra; among equal paths the one whose moves came first in
/// the run).
fn shortest_paths(moves: &[Move], start: StateId) -> HashMap<StateId, Vec<usize>> {
    let mut from: HashMap<StateId, Vec<usize>> = HashMap::new();
    for (i, m) in moves.iter().enumerate() {
        if m.from != m.to {
            from.entry(m.from).or_default().push(i);
        }
    }
    let mut best: HashMap<StateId, (usize, Vec<usize>)> = HashMap::new();
    best.insert(start, (0, Vec::new()));
    // (cost, the path's moves) in a min-heap: the path breaks ties, earliest moves first.
    let mut heap = BinaryHeap::from([Reverse((0usize, Vec::<usize>::new(), start))]);
    let mut done: HashSet<StateId> = HashSet::new();
    while let Some(Reverse((cost, path, s))) = heap.pop() {
        if !done.insert(s) {
            continue;
        }
        for &i in from.get(&s).map(Vec::as_slice).unwrap_or(&[]) {
            let to = moves[i].to;
            let c = cost + moves[i].cost();
            let mut p = path.clone();
            p.push(i);
            let better = match best.get(&to) {
                None => true,
                Some((bc, bp)) => (c, &p) < (*bc, bp),
            };
            if better && !done.contains(&to) {
                best.insert(to, (c, p.clone()));
                heap.push(Reverse((c, p, to)));
            }
        }
    }
    best.into_iter().map(|(s, (_, p))| (s, p)).collect()
}

/// The steps of `steps` worth keeping without a replay to ask: a value typed (or chosen)
/// into a field and replaced on the same page before anything but more typing ran is
/// dropped, and so is the typing a link click then leaves behind. Shrinking tries the
/// pruned sequence once before delta debugging, whose tests would find the same one by
/// one. `None` when nothing is dropped. The last step, the one that raised the failure,
/// is always kept.
pub fn pruned(steps: &[TraceStep]) -> Option<Vec<usize>> {
    use crate::model::ActionKind::{Select, Type};
    let filling = |s: &TraceStep| matches!(s.action.kind, Type | Select);
    let n = steps.len();
    let mut drop = vec![false; n];
    // The last step (index n - 1) is never looked at: it raised the failure.
    for i in 0..n.saturating_sub(1) {
        if !filling(&steps[i]) {
            continue;
        }
        let same_page = |s: &TraceStep| s.url == steps[i].url;
        // Overwritten: the same field gets another value on the same page, only filling between.
        let later = steps[i + 1..]
            .iter()
            .take_while(|s| filling(s) && same_page(s))
            .any(|s| {
                s.action.kind == steps[i].action.kind && s.action.target == steps[i].action.target
            });
        // Left behind: filling up to a click on a link to another page.
        let lost = steps[i + 1..]
            .iter()
            .find(|s| !(filling(s) && same_page(s)))
            .is_some_and(|s| same_page(s) && leaves(s));
        drop[i] = later || lost;
    }
    let kept: Vec<usize> = (0..n).filter(|&i| !drop[i]).collect();
    (kept.len() < n).then_some(kept)
}

/// Bolder than [`pruned`], for one replay before it: a form sent again and again on its
/// page (rejected, re-shown with an error) keeps only its last sending. On a run of steps
/// that stay on one page, a value typed into a field that gets another later in the run is
/// dropped even across a sending, and so is a click on a control clicked again later (the
/// earlier sendings). What the earlier sendings did on the server is what the replay tests.
/// `None` when it drops nothing more than `pruned` does.
pub fn resubmitted(steps: &[TraceStep]) -> Option<Vec<usize>> {
    use crate::model::ActionKind::{Click, Select, Type};
    let n = steps.len();
    let mut drop = vec![false; n];
    for i in 0..n.saturating_sub(1) {
        let kind = steps[i].action.kind;
        if !matches!(kind, Type | Select | Click) || leaves(&steps[i]) {
            continue;
        }
        let page = &steps[i].url;
        // The same control again later, with only steps on this page (no link away) between.
        drop[i] = steps[i + 1..]
            .iter()
            .take_while(|s| s.url == *page && !leaves(s))
            .any(|s| s.action.kind == kind && s.action.target == steps[i].action.target);
    }
    let kept: Vec<usize> = (0..n).filter(|&i| !drop[i]).collect();
    let plain = pruned(steps).map_or(n, |k| k.len());
    (kept.len() < plain).then_some(kept)
}

/// A click on a link (an `a` with an href, a `#/route` of a single-page app too).
fn is_link(s: &TraceStep) -> bool {
    s.action.kind == crate::model::ActionKind::Click
        && s.element.as_ref().is_some_and(|e| {
            e.tag == "a" && e.attrs.get("href").is_some_and(|h| !h.trim().is_empty())
        })
}

/// A click on a link to another document (not an in-page `#fragment`): what was typed
/// before it is left behind.
pub fn leaves(s: &TraceStep) -> bool {
    s.action.kind == crate::model::ActionKind::Click
        && s.element.as_ref().is_some_and(|e| {
            e.tag == "a"
                && e.attrs
                    .get("href")
                    .is_some_and(|h| !h.trim().is_empty() && !h.trim_start().starts_with('#'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Action, ActionKind};

    fn step(target: &str) -> TraceStep {
        TraceStep {
            action: Action::on(ActionKind::Click, target.to_string()),
            element: None,
            url: String::new(),
        }
    }

    fn mv(from: u64, to: u64, target: &str) -> Move {
        Move {
            from: StateId(from),
            to: StateId(to),
            step: step(target),
            before: Vec::new(),
        }
    }

    static NO_FILLS: std::sync::LazyLock<HashMap<StateId, Vec<TraceStep>>> =
        std::sync::LazyLock::new(HashMap::new);

    fn known<'a>(moves: &'a [Move], alike: &'a HashMap<StateId, Vec<StateId>>) -> Known<'a> {
        Known {
            moves,
            alike,
            fills: &NO_FILLS,
        }
    }

    fn targets(c: &[Part], trace: &[TraceStep]) -> Vec<String> {
        c.iter()
            .map(|p| match p {
                Part::Trace(i) => format!("t{i}:{}", trace[*i].action.target.clone().unwrap()),
                Part::Via(s) => format!("via:{}", s.action.target.clone().unwrap()),
            })
            .collect()
    }

    #[test]
    fn the_same_page_reached_another_way_is_a_candidate_too() {
        // The trace registered a user (0 → 1 → 2, its dashboard) and added an expense
        // there; the run also logged in as the demo user (0 → 3, another dashboard state
        // on the same page), and never added an expense from there.
        let trace: Vec<TraceStep> = ["#register", "#create", "#add", "#type"]
            .iter()
            .map(|t| step(t))
            .collect();
        let states = [0, 1, 2, 4].map(StateId);
        let moves = vec![
            mv(0, 1, "#register"),
            mv(1, 2, "#create"),
            mv(2, 4, "#add"),
            mv(0, 3, "#demo-login"),
        ];
        assert!(candidates(
            known(&moves, &HashMap::new()),
            StateId(0),
            &states,
            &trace,
            4
        )
        .is_empty());
        let alike = HashMap::from([
            (StateId(2), vec![StateId(3)]),
            (StateId(3), vec![StateId(2)]),
        ]);
        let c = candidates(known(&moves, &alike), StateId(0), &states, &trace, 4);
        assert_eq!(
            targets(&c[0], &trace),
            ["via:#demo-login", "t2:#add", "t3:#type"],
            "{c:?}"
        );
    }

    #[test]
    fn each_other_way_into_a_state_alike_is_a_candidate_too() {
        // The trace made a new group (0 → 4 → 5) and settled its empty list there; the
        // run also opened the seeded group (0 → 1, the same page) and once deleted its
        // only transaction (1 → 2 → 1): back in state 1, which the shortest path reaches
        // by one click, not by that deletion.
        let trace: Vec<TraceStep> = ["#new", "#name", "#ann", "#bob", "#create", "#settle"]
            .iter()
            .map(|t| step(t))
            .collect();
        let states = [0, 4, 4, 4, 4, 5].map(StateId);
        let mut delete = mv(2, 1, "#delete");
        delete.before = vec![step("#confirm")];
        let moves = vec![
            mv(0, 4, "#new"),
            mv(4, 5, "#create"),
            mv(0, 1, "#flat-share"),
            mv(1, 2, "#internet"),
            delete.clone(),
            mv(0, 1, "#flat-share"),
            delete,
        ];
        // A link into the group from the help page leads where the first click does.
        let mut back = mv(6, 1, "#back-to-group");
        back.step = link("#back-to-group", "#/groups/1", "");
        let moves = [moves, vec![mv(0, 6, "#help"), back]].concat();
        let alike = HashMap::from([(StateId(5), vec![StateId(1)])]);
        let c = candidates(known(&moves, &alike), StateId(0), &states, &trace, 4);
        let all: Vec<Vec<String>> = c.iter().map(|c| targets(c, &trace)).collect();
        assert_eq!(all[0], ["via:#flat-share", "t5:#settle"], "{all:?}");
        assert!(!all.iter().flatten().any(|t| t == "via:#help"), "{all:?}");
        let via_delete = [
            "via:#flat-share",
            "via:#internet",
            "via:#confirm",
            "via:#delete",
            "t5:#settle",
        ];
        // Once, though the run came that way twice.
        assert_eq!(
            all.iter().filter(|c| **c == via_delete).count(),
            1,
            "{all:?}"
        );
        assert!(c.windows(2).all(|w| w[0].len() <= w[1].len()));
    }

    #[test]
    fn a_choice_the_run_made_in_a_state_is_a_candidate_after_the_path_there() {
        // A user just registered (0 → 1 → 2) exported the reports (3) of a month without
        // expenses; the demo user (0 → 2) has expenses this month, and the run once chose
        // January on the reports page without leaving its state.
        let trace: Vec<TraceStep> = [
            "#register",
            "#email",
            "#create",
            "#reports",
            "#by-category",
            "#export",
        ]
        .iter()
        .map(|t| step(t))
        .collect();
        let states = [0, 1, 1, 2, 3, 3].map(StateId);
        let moves = vec![
            mv(0, 1, "#register"),
            mv(1, 2, "#create"),
            mv(2, 3, "#reports"),
            mv(0, 2, "#demo-login"),
        ];
        let fills = HashMap::from([(StateId(3), vec![step("#january")])]);
        let alike = HashMap::new();
        let with_fills = Known {
            moves: &moves,
            alike: &alike,
            fills: &fills,
        };
        let c = candidates(with_fills, StateId(0), &states, &trace, 4);
        let all: Vec<Vec<String>> = c.iter().map(|c| targets(c, &trace)).collect();
        assert_eq!(
            all[0],
            [
                "via:#demo-login",
                "t3:#reports",
                "t4:#by-category",
                "t5:#export"
            ],
            "{all:?}"
        );
        assert!(
            all.contains(&vec![
                "via:#demo-login".to_string(),
                "via:#reports".into(),
                "via:#january".into(),
                "t4:#by-category".into(),
                "t5:#export".into(),
            ]),
            "{all:?}"
        );
        // Without the choice, no such candidate.
        let c = candidates(known(&moves, &alike), StateId(0), &states, &trace, 4);
        let chose = |c: &Vec<Part>| targets(c, &trace).iter().any(|t| t == "via:#january");
        assert!(!c.iter().any(chose), "{c:?}");
    }

    #[test]
    fn each_place_gets_its_shortest_way_tried_before_any_place_a_second() {
        // Three short ways to states alike the last one (4, 5, 6) and one longer way to a
        // state alike the one the trace entered at step 2 (7), which keeps the trace's steps.
        let trace: Vec<TraceStep> = (0..10).map(|i| step(&format!("#t{i}"))).collect();
        let states = [0, 1, 2, 2, 2, 2, 2, 2, 2, 3].map(StateId);
        let moves = vec![
            mv(0, 4, "#x"),
            mv(0, 5, "#y"),
            mv(0, 6, "#z"),
            mv(0, 7, "#w"),
        ];
        let alike = HashMap::from([
            (StateId(3), vec![StateId(4), StateId(5), StateId(6)]),
            (StateId(2), vec![StateId(7)]),
        ]);
        let c = candidates(known(&moves, &alike), StateId(0), &states, &trace, 4);
        let firsts: Vec<String> = c.iter().map(|c| targets(c, &trace)[0].clone()).collect();
        assert_eq!(firsts, ["via:#x", "via:#w", "via:#y", "via:#z"], "{c:?}");
    }

    #[test]
    fn a_detour_is_replaced_by_the_shortest_known_path() {
        // The trace wandered 0 → 1 → 2 → 1 → 3 → 4 and failed on 4's "#boom"; an earlier
        // episode went 0 → 3 directly with "#reports".
        let trace: Vec<TraceStep> = ["#login", "#help", "#back", "#reports", "#boom"]
            .iter()
            .map(|t| step(t))
            .collect();
        let states = [0, 1, 2, 1, 3].map(StateId);
        let moves = vec![
            mv(0, 1, "#login"),
            mv(1, 2, "#help"),
            mv(2, 1, "#back"),
            mv(1, 3, "#reports"),
            mv(3, 4, "#boom"),
            mv(0, 3, "#reports-direct"),
            mv(3, 3, "#select-month"),
        ];
        let c = candidates(
            known(&moves, &HashMap::new()),
            StateId(0),
            &states,
            &trace,
            4,
        );
        assert_eq!(
            targets(&c[0], &trace),
            ["via:#reports-direct", "t4:#boom"],
            "{c:?}"
        );
        assert_eq!(
            targets(&c[1], &trace),
            ["via:#login", "t3:#reports", "t4:#boom"]
        );
        assert!(c.iter().all(|c| c.len() < trace.len()));
        assert!(c.windows(2).all(|w| w[0].len() <= w[1].len()));
    }

    #[test]
    fn a_state_is_entered_where_the_trace_came_in_not_after_typing_there() {
        // In state 1 the trace typed, then submitted: a shortcut must keep the typing.
        let trace: Vec<TraceStep> = ["#help", "#back", "#register", "#email", "#submit"]
            .iter()
            .map(|t| step(t))
            .collect();
        let states = [0, 2, 0, 1, 1].map(StateId);
        let moves = vec![
            mv(0, 2, "#help"),
            mv(2, 0, "#back"),
            mv(0, 1, "#register"),
            mv(1, 1, "#email"),
            mv(1, 3, "#submit"),
        ];
        let c = candidates(
            known(&moves, &HashMap::new()),
            StateId(0),
            &states,
            &trace,
            4,
        );
        assert_eq!(
            targets(&c[0], &trace),
            ["t2:#register", "t3:#email", "t4:#submit"],
            "{c:?}"
        );
        assert!(c.iter().all(|c| c.len() >= 3), "{c:?}");
    }

    #[test]
    fn a_path_keeps_the_typing_its_moves_needed_and_counts_it() {
        // Logging in (0 → 1) needed the two fields filled; a wander 0 → 2 → 1 needs
        // nothing typed but takes two clicks: the cheaper path is the one taken.
        let trace: Vec<TraceStep> = ["#help", "#more", "#fill", "#login", "#add", "#boom"]
            .iter()
            .map(|t| step(t))
            .collect();
        let states = [0, 2, 4, 4, 1, 3].map(StateId);
        let mut login = mv(0, 1, "#login-elsewhere");
        login.before = vec![step("#email"), step("#password")];
        let moves = vec![login, mv(0, 2, "#a"), mv(2, 1, "#b"), mv(1, 3, "#add")];
        let c = candidates(
            known(&moves, &HashMap::new()),
            StateId(0),
            &states,
            &trace,
            4,
        );
        assert_eq!(
            targets(&c[0], &trace),
            ["via:#a", "via:#b", "t4:#add", "t5:#boom"],
            "{c:?}"
        );
        // With the wander gone, the login path comes with its typing.
        let moves = vec![moves[0].clone(), moves[3].clone()];
        let c = candidates(
            known(&moves, &HashMap::new()),
            StateId(0),
            &states,
            &trace,
            4,
        );
        assert_eq!(
            targets(&c[0], &trace),
            [
                "via:#email",
                "via:#password",
                "via:#login-elsewhere",
                "t4:#add",
                "t5:#boom"
            ],
            "{c:?}"
        );
    }

    #[test]
    fn typing_a_click_after_it_may_have_replaced_is_left_out_of_a_second_candidate() {
        use ActionKind::Type;
        // The run logged in (0 → 1) after typing junk and then filling the demo user in;
        // the trace registered a new user (0 → 2 → 1) and failed on "#boom" from there.
        let trace: Vec<TraceStep> = [
            "#register",
            "#name",
            "#pw",
            "#confirm",
            "#create",
            "#add",
            "#boom",
        ]
        .iter()
        .map(|t| step(t))
        .collect();
        let states = [0, 2, 2, 2, 2, 1, 3].map(StateId);
        let mut login = mv(0, 1, "#login");
        login.before = vec![
            on(Type, "#email", "/"),
            on(Type, "#password", "/"),
            step("#demo-fill"),
        ];
        let mut create = mv(2, 1, "#create");
        create.before = ["#name", "#pw", "#confirm"]
            .iter()
            .map(|t| on(Type, t, "/register"))
            .collect();
        let moves = vec![mv(0, 2, "#register"), create, login];
        let c = candidates(
            known(&moves, &HashMap::new()),
            StateId(0),
            &states,
            &trace,
            4,
        );
        let all: Vec<Vec<String>> = c.iter().map(|c| targets(c, &trace)).collect();
        assert_eq!(
            all[0],
            ["via:#demo-fill", "via:#login", "t5:#add", "t6:#boom"],
            "{all:?}"
        );
        // The way with its typing is not dropped: the typing may have been needed; the
        // register form's typing, with no click after it, is kept in every way.
        assert!(all.iter().any(|c| c.len() == 6), "{all:?}");
    }

    #[test]
    fn nothing_shorter_means_no_candidate() {
        let trace: Vec<TraceStep> = ["#a", "#b"].iter().map(|t| step(t)).collect();
        let moves = vec![mv(0, 1, "#a"), mv(1, 2, "#b")];
        let states = [0, 1].map(StateId);
        assert!(candidates(
            known(&moves, &HashMap::new()),
            StateId(0),
            &states,
            &trace,
            4
        )
        .is_empty());
        // Misaligned states: nothing is guessed.
        assert!(candidates(
            known(&moves, &HashMap::new()),
            StateId(0),
            &states[..1],
            &trace,
            4
        )
        .is_empty());
    }

    fn on(kind: ActionKind, target: &str, url: &str) -> TraceStep {
        TraceStep {
            action: Action::on(kind, target.to_string()).with_value("v"),
            element: None,
            url: url.to_string(),
        }
    }

    fn link(target: &str, href: &str, url: &str) -> TraceStep {
        let mut s = on(ActionKind::Click, target, url);
        s.action.value = None;
        s.element = Some(crate::trace::ElementHint {
            tag: "a".into(),
            attrs: [("href".to_string(), href.to_string())].into(),
            ..Default::default()
        });
        s
    }

    #[test]
    fn a_form_sent_again_on_its_page_keeps_only_its_last_sending() {
        use ActionKind::{Click, Type};
        // The demo's sign-up: two rejected sendings, then the one that raised the 500.
        let steps = vec![
            link("#signup", "/register", "/"), // 0
            on(Type, "#pw", "/register"),      // 1: typed again at 6
            on(Type, "#name", "/register"),    // 2: only once: kept
            on(Type, "#mail", "/register"),    // 3: typed again at 5
            on(Click, "#create", "/register"), // 4: clicked again at 7
            on(Type, "#mail", "/register"),    // 5
            on(Type, "#pw", "/register"),      // 6
            on(Click, "#create", "/register"), // 7: the last step
        ];
        assert_eq!(resubmitted(&steps), Some(vec![0, 2, 5, 6, 7]));
        // pruned keeps the typing a sending read.
        assert_eq!(pruned(&steps), None);
        // A link away in between: the earlier typing is another visit's.
        let away = vec![
            on(Type, "#mail", "/register"),
            link("#home", "/", "/register"),
            on(Type, "#mail", "/register"),
            on(Click, "#create", "/register"),
        ];
        assert_eq!(resubmitted(&away), None);
        // Nothing beyond what pruned drops: None.
        let replaced = vec![
            on(Type, "#q", "/a"),
            on(Type, "#q", "/a"),
            on(Click, "#go", "/a"),
        ];
        assert_eq!(pruned(&replaced), Some(vec![1, 2]));
        assert_eq!(resubmitted(&replaced), None);
        assert_eq!(resubmitted(&[]), None);
    }

    #[test]
    fn typing_replaced_or_left_behind_by_a_link_is_pruned() {
        use ActionKind::{Click, Select, Type};
        let steps = vec![
            on(Type, "#email", "/"),             // 0: left behind by the link (with 1)
            on(Type, "#pw", "/"),                // 1
            link("#register", "/register", "/"), // 2
            on(Type, "#desc", "/new"),           // 3: replaced by 5, only a choice between
            on(Select, "#cat", "/new"),          // 4
            on(Type, "#desc", "/new"),           // 5: a click (6) ran before 7 replaced it
            link("#frag", "#top", "/new"),       // 6: an in-page link leaves nothing behind
            on(Type, "#desc", "/new"),           // 7: the submit (8) read it
            on(Click, "#save", "/new"),          // 8
            on(Type, "#desc", "/new"),           // 9: replaced by the last step
            on(Type, "#desc", "/new"),           // 10: the last step is always kept
        ];
        assert_eq!(pruned(&steps), Some(vec![2, 4, 5, 6, 7, 8, 10]));
        // Typing on another page than the next one is another field.
        let two_pages = vec![
            on(Type, "#q", "/a"),
            on(Type, "#q", "/b"),
            on(Click, "#go", "/b"),
        ];
        assert_eq!(pruned(&two_pages), None);
        assert_eq!(pruned(&[]), None);
    }
}
