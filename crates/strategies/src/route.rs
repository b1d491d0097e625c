//! A plan in progress: a replay of a known path, or the fields of a form and then its
//! button. Each step is checked before it is taken: the page must be in the state the
//! step expects (when it expects one) and offer the step's target. When the application
//! no longer behaves as recorded, the route says where it broke and the strategy goes on
//! from there.

use wayfarer_core::{Action, StateId, View};

use crate::memory::key;

#[derive(Clone, Debug, PartialEq)]
pub struct RouteStep {
    /// The state the page must be in before the action; None when any state will do
    /// (typing into a form may change the page's structure).
    pub expect: Option<StateId>,
    pub action: Action,
}

impl RouteStep {
    pub fn at(state: StateId, action: Action) -> RouteStep {
        RouteStep {
            expect: Some(state),
            action,
        }
    }

    pub fn anywhere(action: Action) -> RouteStep {
        RouteStep {
            expect: None,
            action,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Route {
    steps: Vec<RouteStep>,
    next: usize,
    /// What the route does, for the rationale ("replay to s7", "fill the form of ...").
    label: String,
    /// A replay of recorded transitions (its breaking is worth recording), rather than
    /// a form being filled.
    pub replay: bool,
    /// The state the last step must lead to, when the route is for getting there.
    arrive: Option<StateId>,
}

/// A recorded transition a replay found broken: in `state`, the action (its key) no
/// longer leads to `to`, or, with `to` None, is not offered at all.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Blame {
    pub state: StateId,
    pub action: Action,
    pub to: Option<StateId>,
}

/// What to do next on a route.
#[derive(Debug, PartialEq)]
pub enum RouteNext {
    /// Take this action; the string is the rationale.
    Act(Action, String),
    /// The route no longer matches the application: why, and the recorded transition
    /// to blame, when one is.
    Broken(String, Option<Blame>),
    Done,
}

impl Route {
    /// A replay of recorded steps that must end in `arrive`, when given.
    pub fn replay(steps: Vec<RouteStep>, label: String, arrive: Option<StateId>) -> Route {
        Route {
            steps,
            next: 0,
            label,
            replay: true,
            arrive,
        }
    }

    /// Steps planned on the page as it is (a form to fill), not recorded ones.
    pub fn plan(steps: Vec<RouteStep>, label: String) -> Route {
        Route {
            replay: false,
            ..Route::replay(steps, label, None)
        }
    }

    /// The step taken last, which led elsewhere than `to`, to keep replays off.
    fn blame_last(&self, to: StateId) -> Option<Blame> {
        let prev = &self.steps[self.next.checked_sub(1)?];
        prev.expect.map(|state| Blame {
            state,
            action: key(&prev.action),
            to: Some(to),
        })
    }

    #[cfg(test)]
    pub fn steps(&self) -> &[RouteStep] {
        &self.steps
    }

    pub fn remaining(&self) -> usize {
        self.steps.len() - self.next
    }

    /// The next step, checked against where the page is and what it offers; at the
    /// end, whether the route arrived where it was going.
    pub fn next(&mut self, view: &View<'_>) -> RouteNext {
        let Some(step) = self.steps.get(self.next) else {
            return match self.arrive.filter(|t| *t != view.state()) {
                Some(t) => RouteNext::Broken(
                    format!("it ended in {} instead of {t}", view.state()),
                    self.blame_last(t),
                ),
                None => RouteNext::Done,
            };
        };
        let (at, of) = (self.next + 1, self.steps.len());
        if let Some(expect) = step.expect.filter(|e| *e != view.state()) {
            // The step before led elsewhere than it did when it was recorded.
            let blame = self.blame_last(expect);
            return RouteNext::Broken(
                format!(
                    "step {at}/{of} expected {expect} but the page is in {}",
                    view.state()
                ),
                blame,
            );
        }
        let k = key(&step.action);
        if !view.actions.contains(&k) {
            let why = format!(
                "step {at}/{of}: {} is not offered in {}",
                k.describe(),
                view.state()
            );
            let blame = Blame {
                state: view.state(),
                action: k,
                to: None,
            };
            return RouteNext::Broken(why, Some(blame));
        }
        self.next += 1;
        RouteNext::Act(step.action.clone(), format!("{} ({at}/{of})", self.label))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::{ActionKind, Analysis, Observation};

    fn view<'a>(obs: &'a Observation, an: &'a Analysis, offered: &'a [Action]) -> View<'a> {
        View {
            observation: obs,
            analysis: an,
            actions: offered,
            episode_step: 0,
        }
    }

    #[test]
    fn a_route_checks_the_state_and_the_target_before_each_step() {
        let a = Action::on(ActionKind::Click, "#a");
        let b = Action::on(ActionKind::Type, "#b").with_value("x");
        let c = Action::on(ActionKind::Click, "#c");
        let mut r = Route::replay(
            vec![
                RouteStep::at(StateId(0), a.clone()),
                RouteStep::at(StateId(1), b.clone()),
                RouteStep::anywhere(c.clone()),
            ],
            "replay to s1".into(),
            Some(StateId(3)),
        );
        let obs = Observation::default();
        let offered = [a.clone(), key(&b)];
        let s0 = Analysis::new(StateId(0), "u".into());
        let s1 = Analysis::new(StateId(1), "u".into());
        let s2 = Analysis::new(StateId(2), "u".into());
        assert_eq!(
            r.next(&view(&obs, &s0, &offered)),
            RouteNext::Act(a, "replay to s1 (1/3)".into())
        );
        assert!(matches!(
            r.next(&view(&obs, &s2, &offered)),
            RouteNext::Broken(m, Some(Blame { state: StateId(0), to: Some(StateId(1)), .. }))
                if m.contains("expected s1")
        ));
        assert_eq!(
            r.next(&view(&obs, &s1, &offered)),
            RouteNext::Act(b, "replay to s1 (2/3)".into())
        );
        assert!(matches!(
            r.next(&view(&obs, &s2, &offered)),
            RouteNext::Broken(m, Some(Blame { state: StateId(2), to: None, .. }))
                if m.contains("not offered")
        ));
        let with_c = [c.clone()];
        assert_eq!(
            r.next(&view(&obs, &s2, &with_c)),
            RouteNext::Act(c, "replay to s1 (3/3)".into())
        );
        assert_eq!(r.remaining(), 0);
        // It was meant to arrive in s3: ending in s2 blames the last step.
        assert!(matches!(
            r.next(&view(&obs, &s2, &with_c)),
            RouteNext::Broken(m, None) if m.contains("ended in s2 instead of s3")
        ));
        let s3 = Analysis::new(StateId(3), "u".into());
        assert_eq!(r.next(&view(&obs, &s3, &with_c)), RouteNext::Done);
    }
}
