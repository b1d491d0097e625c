//! What the memory-based strategies remember of an application: the automaton of
//! observed transitions, and for each transition the concrete steps that performed it
//! (its typed value, and the fields typed in the state just before it), so a path found
//! in the automaton can be replayed from a reset, forms included.
//!
//! `Memory` is what the application taught, which workers share; `Typed` is what one
//! browser typed on the page it is on, which each worker keeps for itself.

use std::collections::{HashMap, HashSet};

use wayfarer_core::{Action, ActionKind, StateId, Transition};

use crate::dfa::{Dfa, Edge};
use crate::route::{Blame, Route, RouteStep};

/// The identity of an action within a state: what it does and to what, not the value
/// (but the key pressed, the drop target: `ActionKind::value_is_identity`).
pub fn key(a: &Action) -> Action {
    if a.kind.value_is_identity() {
        return a.clone();
    }
    Action {
        value: None,
        ..a.clone()
    }
}

/// Whether an action sets a value and normally leaves the page where it is.
fn sets_value(a: &Action) -> bool {
    matches!(
        a.kind,
        ActionKind::Type | ActionKind::Select | ActionKind::Check
    )
}

#[derive(Clone, Default)]
pub struct Memory {
    /// Transitions keyed by `key(action)`.
    pub dfa: Dfa<Action>,
    /// (from, key, to) -> the steps that last performed it: fields set, then the action.
    performed: HashMap<(StateId, Action, StateId), Vec<Action>>,
    /// Recorded transitions a replay found broken; replays avoid them until they are
    /// seen to work again. Per target: where an action's outcome depends on data the
    /// page does not show (a dashboard with or without expenses), seeing it lead
    /// elsewhere must not clear the blame, or replays retry the same broken path.
    stale: HashSet<Blame>,
    /// States replays expected and did not find, and how often since the page last
    /// arrived in them. After [`MISSES`], replays stop aiming through them: their look
    /// depends on data a reset does not bring back (the dashboard of an account that has
    /// expenses), and every path into them would break in turn.
    missed: HashMap<StateId, u32>,
}

/// Values set in the current state since the page arrived there: one browser's, so
/// per worker (another worker's typing is not on this page).
#[derive(Clone, Debug, Default)]
pub struct Typed(Vec<Action>);

impl Typed {
    /// The page was reset: values typed before no longer stand.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// Replays that may miss a state before replays avoid it.
const MISSES: u32 = 2;

impl Memory {
    /// Record a transition taken by the browser whose typing on its page is `typed`;
    /// returns its count after this visit, or None for a step that could not be
    /// performed (it is not a transition of the application).
    pub fn observe(&mut self, typed: &mut Typed, t: &Transition<'_>) -> Option<u32> {
        if t.failed {
            return None;
        }
        let k = key(t.action);
        let n = self.dfa.observe(t.state, &k, t.next_state);
        if t.next_state != t.state {
            self.missed.remove(&t.next_state);
        }
        for to in [Some(t.next_state), None] {
            self.stale.remove(&Blame {
                state: t.state,
                action: k.clone(),
                to,
            });
        }
        if t.next_state == t.state && sets_value(t.action) {
            // A field typed again keeps only its latest value.
            typed.0.retain(|a| a.target != t.action.target);
            typed.0.push(t.action.clone());
            self.performed
                .insert((t.state, k, t.next_state), vec![t.action.clone()]);
            return Some(n);
        }
        let mut steps = if t.next_state == t.state {
            Vec::new()
        } else {
            std::mem::take(&mut typed.0)
        };
        steps.push(t.action.clone());
        self.performed.insert((t.state, k, t.next_state), steps);
        Some(n)
    }

    /// Edges a replay may use: no `back` (its effect depends on the history), no loops
    /// (they never shorten a path), none found broken since last seen working.
    pub fn replayable(&self, e: &Edge<Action>) -> bool {
        let blamed = |to| {
            self.stale.contains(&Blame {
                state: e.from,
                action: e.action.clone(),
                to,
            })
        };
        e.action.kind != ActionKind::Back
            && e.from != e.to
            && !blamed(Some(e.to))
            && !blamed(None)
            && self.missed.get(&e.to).is_none_or(|&n| n < MISSES)
    }

    /// A replay broke at this transition: keep replays off it.
    pub fn blame(&mut self, b: Blame) {
        if let Some(to) = b.to {
            *self.missed.entry(to).or_default() += 1;
        }
        self.stale.insert(b);
    }

    /// Let replays use every recorded transition again.
    pub fn forgive(&mut self) {
        self.stale.clear();
        self.missed.clear();
    }

    /// How many (state, action) pairs replays avoid now.
    pub fn stale(&self) -> usize {
        self.stale.len()
    }

    /// The concrete steps of an edge, each to be taken in the edge's source state.
    fn steps_of(&self, e: &Edge<Action>) -> impl Iterator<Item = RouteStep> + '_ {
        let from = e.from;
        self.performed
            .get(&(e.from, e.action.clone(), e.to))
            .cloned()
            .unwrap_or_else(|| vec![e.action.clone()])
            .into_iter()
            .map(move |action| RouteStep::at(from, action))
    }

    /// A replay from `from` to `to` over the shortest known path, followed by `then`
    /// (taken in `to`) when given; None when `to` cannot be reached.
    pub fn route(
        &self,
        from: StateId,
        to: StateId,
        then: Option<&Edge<Action>>,
        label: String,
    ) -> Option<Route> {
        let path = self
            .dfa
            .shortest_path_where(from, to, |e| self.replayable(e))?;
        let mut steps: Vec<RouteStep> = path.iter().flat_map(|e| self.steps_of(e)).collect();
        // Without a last action the route is for arriving in `to`; with one, the
        // action's own step checks that.
        let arrive = match then {
            Some(e) => {
                steps.extend(self.steps_of(e));
                None
            }
            None => Some(to),
        };
        Some(Route::replay(steps, label, arrive))
    }

    /// Path length (in transitions) from `from` to `to`, when known.
    pub fn distance(&self, from: StateId, to: StateId) -> Option<usize> {
        self.dfa
            .shortest_path_where(from, to, |e| self.replayable(e))
            .map(|p| p.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::Observation;

    fn t<'a>(s: u64, a: &'a Action, n: u64, obs: &'a Observation, failed: bool) -> Transition<'a> {
        Transition {
            state: StateId(s),
            observation: obs,
            action: a,
            next_state: StateId(n),
            next_observation: obs,
            events: &[],
            new_state: false,
            failed,
            novelty: Default::default(),
        }
    }

    #[test]
    fn a_blamed_transition_stays_blamed_until_it_leads_where_it_was_recorded_to() {
        let obs = Observation::default();
        let mut m = Memory::default();
        let mut here = Typed::default();
        let act = |s: &str| Action::on(ActionKind::Click, s);
        let (a, b, c, d) = (act("#a"), act("#b"), act("#c"), act("#d"));
        m.observe(&mut here, &t(0, &a, 1, &obs, false));
        m.observe(&mut here, &t(1, &b, 2, &obs, false));
        m.observe(&mut here, &t(0, &c, 3, &obs, false));
        m.observe(&mut here, &t(3, &d, 1, &obs, false));
        let path = |m: &Memory| -> Vec<Action> {
            let r = m.route(StateId(0), StateId(2), None, "s2".into()).unwrap();
            r.steps().iter().map(|s| s.action.clone()).collect()
        };
        assert_eq!(path(&m), vec![a.clone(), b.clone()]);
        // A replay found `a` leading to s4 instead of s1 (the data behind the page
        // changed); taking `a` again and landing in s4 does not make the recorded
        // transition work again.
        m.blame(Blame {
            state: StateId(0),
            action: a.clone(),
            to: Some(StateId(1)),
        });
        m.observe(&mut here, &t(0, &a, 4, &obs, false));
        assert_eq!(path(&m), vec![c.clone(), d.clone(), b.clone()]);
        assert_eq!(m.stale(), 1);
        m.observe(&mut here, &t(0, &a, 1, &obs, false));
        assert_eq!(path(&m), vec![a.clone(), b.clone()]);
        // An action no longer offered is blamed whatever it led to, until taken again.
        m.blame(Blame {
            state: StateId(1),
            action: b.clone(),
            to: None,
        });
        assert!(m.route(StateId(0), StateId(2), None, "s2".into()).is_none());
        m.observe(&mut here, &t(1, &b, 2, &obs, false));
        assert_eq!(m.stale(), 0);
        // A state replays keep missing, whichever way they come: after two misses no
        // route aims through it, until the page arrives there again.
        let e = act("#e");
        m.observe(&mut here, &t(0, &e, 2, &obs, false));
        m.blame(Blame {
            state: StateId(1),
            action: b.clone(),
            to: Some(StateId(2)),
        });
        assert_eq!(path(&m), vec![e.clone()]);
        m.blame(Blame {
            state: StateId(0),
            action: e.clone(),
            to: Some(StateId(2)),
        });
        assert!(m.route(StateId(0), StateId(2), None, "s2".into()).is_none());
        // Arriving there again lifts the misses; `e` itself stays blamed until it
        // leads there again.
        m.observe(&mut here, &t(1, &b, 2, &obs, false));
        assert_eq!(path(&m), vec![a.clone(), b.clone()]);
        m.observe(&mut here, &t(0, &e, 2, &obs, false));
        assert_eq!(path(&m), vec![e.clone()]);
        assert_eq!(m.stale(), 0);
    }

    #[test]
    fn a_route_replays_the_fields_typed_before_a_submit() {
        let obs = Observation::default();
        let mut m = Memory::default();
        let mut here = Typed::default();
        let go = Action::on(ActionKind::Click, "#go");
        let name = Action::on(ActionKind::Type, "#name").with_value("Ada");
        let name2 = Action::on(ActionKind::Type, "#name").with_value("Grace");
        let mail = Action::on(ActionKind::Type, "#mail").with_value("a@b.co");
        let submit = Action::on(ActionKind::Click, "#submit");
        let gone = Action::on(ActionKind::Click, "#gone");
        m.observe(&mut here, &t(0, &go, 1, &obs, false));
        m.observe(&mut here, &t(1, &name, 1, &obs, false));
        m.observe(&mut here, &t(1, &mail, 1, &obs, false));
        m.observe(&mut here, &t(1, &name2, 1, &obs, false));
        assert_eq!(m.observe(&mut here, &t(1, &gone, 1, &obs, true)), None);
        m.observe(&mut here, &t(1, &submit, 2, &obs, false));
        let r = m.route(StateId(0), StateId(2), None, "s2".into()).unwrap();
        let acts: Vec<Action> = r.steps().iter().map(|s| s.action.clone()).collect();
        assert_eq!(acts, vec![go, mail, name2, submit]);
        assert_eq!(r.steps()[1].expect, Some(StateId(1)));
        assert!(r.remaining() == 4);
        here.clear();
        assert!(m.route(StateId(2), StateId(0), None, "s0".into()).is_none());
        assert_eq!(m.distance(StateId(0), StateId(2)), Some(2));
    }

    #[test]
    fn each_browser_replays_its_own_typing() {
        let obs = Observation::default();
        let mut m = Memory::default();
        let (mut one, mut two) = (Typed::default(), Typed::default());
        let name = Action::on(ActionKind::Type, "#name").with_value("Ada");
        let submit = Action::on(ActionKind::Click, "#submit");
        // One worker typed a name on its page; the other submitted the form empty.
        m.observe(&mut one, &t(1, &name, 1, &obs, false));
        m.observe(&mut two, &t(1, &submit, 2, &obs, false));
        let acts = |m: &Memory| -> Vec<Action> {
            let r = m.route(StateId(1), StateId(2), None, "s2".into()).unwrap();
            r.steps().iter().map(|s| s.action.clone()).collect()
        };
        assert_eq!(acts(&m), vec![submit.clone()]);
        // The first worker's submission carries its own value.
        m.observe(&mut one, &t(1, &submit, 2, &obs, false));
        assert_eq!(acts(&m), vec![name, submit]);
    }
}
