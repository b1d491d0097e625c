//! `webexplor` (paper 001; DESIGN 7.3): curiosity-driven Q-learning over `tagseq`
//! states, guided by the automaton of every observed transition. The reward of a
//! transition is 1/sqrt(N(s, a, s')); actions are drawn by a Gumbel softmax over Q; when
//! no new state turns up for a while, the least-visited transition is reached again by
//! resetting and replaying the shortest known path to its source, and learning goes on
//! from there.
//!
//! With several workers: the workers' agents share one mind behind one lock: the
//! Q-table, the actions offered in each state, the actions that left the allowed origins,
//! the states found, the automaton with its counts N(s, a, s') and what replays know (the
//! concrete steps of each transition, the transitions and states replays found broken),
//! and the counters of the snapshot (steps learned, escapes, replayed steps, broken
//! replays). Updates merge as they arrive: each worker's Q update is applied to the shared
//! table at its `learn` (asynchronous Q-learning, bootstrapping from whatever the others
//! taught so far), counts add up, a blame by one worker keeps every worker's replays off
//! that transition. Each worker keeps its own route and whether it starts after a reset,
//! the state its episodes start from, its rationale, the values it typed on its page (a
//! replay of a transition it learned types them), its input generator (a fork), and its
//! stagnation: its own steps since it last found a state new to the run. A worker that
//! escapes claims its target (state and action) until it is off its route, and the
//! others escape elsewhere; with one worker the claim changes nothing.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use wayfarer_core::config::seconds;

use crate::settings::{read, read_checked, Section, Settings};
use crate::StrategyError;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{
    Action, ActionKind, Agent, EventKind, SnapshotTable, StateId, StrategySnapshot, Transition,
    View,
};

use crate::dfa::Edge;
use crate::fill::{fill_noted, with_note};
use crate::form::take;
use crate::memory::{key, Memory, Typed};
use crate::registry::{Kind, Model};
use crate::route::{Route, RouteNext};
use crate::snapshot::{automaton_table, capped};

/// Broken replays kept for the report.
const BROKEN_LOG: usize = 50;

/// Run steps after which an escape target's claim lapses (its worker was retired, or
/// its route is long lost): the target is free for the others again.
const CLAIM_STEPS: u64 = 200;

/// What the workers of a run learn together; one per run (and per `fork`).
#[derive(Clone)]
struct Mind {
    /// The value of an action never tried (see `WebExplorConfig::initial_q`).
    q0: f64,
    memory: Memory,
    q: HashMap<(StateId, Action), f64>,
    /// The candidate actions of each state, as last offered (for max Q of a next state).
    offered: HashMap<StateId, Vec<Action>>,
    /// Actions that tried to leave the allowed origins: never taken again.
    external: HashSet<(StateId, Action)>,
    /// States in the order first seen.
    found: Vec<StateId>,
    /// Steps learned by every worker.
    steps: u64,
    escapes: u64,
    replayed: u64,
    broken: Vec<String>,
    broken_total: u64,
    /// Escape targets a worker is on its way to: (source state, action) -> (the worker,
    /// the run step it claimed at). The others pick another target, or several stagnated
    /// workers would all replay to the same newest untried action.
    claims: HashMap<(StateId, Action), (u64, u64)>,
    /// Ids for the workers' agents, for their claims.
    agents: u64,
}

/// The mind, whoever panicked while holding it (a failed step is only logged).
fn lock(m: &Mutex<Mind>) -> MutexGuard<'_, Mind> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Mind {
    fn q(&self, s: StateId, a: &Action) -> f64 {
        self.q.get(&(s, a.clone())).copied().unwrap_or(self.q0)
    }

    /// The best value of `s` over the actions it offered; unseen states are optimistic.
    fn best(&self, s: StateId) -> f64 {
        match self.offered.get(&s) {
            None => self.q0,
            Some(acts) => acts
                .iter()
                .filter(|a| !self.external.contains(&(s, (*a).clone())))
                .map(|a| self.q(s, a))
                .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
                .unwrap_or(0.0),
        }
    }

    /// Whether another worker is on its way to try `a` in `s`.
    fn claimed(&self, s: StateId, a: &Action, me: u64) -> bool {
        self.claims
            .get(&(s, a.clone()))
            .is_some_and(|&(who, at)| who != me && self.steps.saturating_sub(at) < CLAIM_STEPS)
    }

    fn release(&mut self, me: u64) {
        self.claims.retain(|_, (who, _)| *who != me);
    }

    fn record_broken(&mut self, why: String) {
        self.broken_total += 1;
        if self.broken.len() < BROKEN_LOG {
            self.broken
                .push(format!("after step {}: {why}", self.steps));
        }
    }

    /// Draw an action with probability proportional to exp((Q + g) / tau), g ~ Gumbel(0, 1).
    fn sample<'a>(
        &self,
        s: StateId,
        acts: &[&'a Action],
        tau: f64,
        rng: &mut ChaCha8Rng,
    ) -> &'a Action {
        let scores: Vec<f64> = acts
            .iter()
            .map(|a| {
                let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
                (self.q(s, a) - (-u.ln()).ln()) / tau
            })
            .collect();
        let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = scores.iter().map(|v| (v - top).exp()).collect();
        let mut pick = rng.gen_range(0.0..weights.iter().sum::<f64>());
        for (a, w) in acts.iter().zip(&weights) {
            if pick < *w {
                return a;
            }
            pick -= w;
        }
        acts[acts.len() - 1]
    }
}

/// `webexplor` (DESIGN 7.3): curiosity-driven Q-learning guided by an automaton.
pub(crate) const KIND: Kind = Kind {
    name: "webexplor",
    summary: "curiosity-driven Q-learning guided by an automaton (DESIGN 7.3)",
    inputs: "heuristic+mutate",
    model: Model::None,
    settings: Some(Section::of::<WebExplorConfig>()),
    episode_steps: |c| read_checked::<WebExplorConfig>(c).episode_steps,
    build: |b| {
        let cfg = read::<WebExplorConfig>(&b.config.strategy).map_err(StrategyError::Settings)?;
        Ok(Box::new(WebExplorAgent::new(cfg, b.inputs)))
    },
};

/// `webexplor` (DESIGN 7.3): curiosity-driven Q-learning guided by an automaton.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebExplorConfig {
    /// Learning rate; 1 reproduces the paper's plain assignment.
    pub alpha: f64,
    /// Discount of the next state's best value.
    pub gamma: f64,
    /// Value of an action never tried. Unset: 1 / (1 - gamma), the most a discounted
    /// sum of curiosity rewards (each at most 1) can reach, so no tried action outranks
    /// an untried one; at 1, loops and short cycles soon do (see `initial_value`).
    pub initial_q: Option<f64>,
    /// Gumbel-softmax temperature: lower is greedier.
    pub tau: f64,
    /// Steps per episode before a reset, unless `budget.episode_steps` says otherwise.
    pub episode_steps: u32,
    /// Steps without a new state that count as stagnation.
    pub stagnation_steps: u32,
    /// Seconds without a new state that count as stagnation.
    pub stagnation_secs: f64,
    /// Fill the empty fields of a form (with the input generator) before clicking its
    /// buttons; typing stays an action the policy learns either way.
    pub fill_forms: bool,
    /// Weight of what an action newly caused in the page (new scripts, endpoints, pages,
    /// functions: `Novelty::score`, in [0, 1)) added to the curiosity reward 1/sqrt(N).
    /// 0 is the paper's reward.
    pub novelty_weight: f64,
}

impl Default for WebExplorConfig {
    fn default() -> Self {
        WebExplorConfig {
            alpha: 1.0,
            gamma: 0.95,
            initial_q: None,
            tau: 1.0,
            episode_steps: 100,
            stagnation_steps: 30,
            stagnation_secs: 60.0,
            fill_forms: true,
            novelty_weight: 0.0,
        }
    }
}

impl WebExplorConfig {
    /// The value of an action never tried: `initial_q`, else 1 / (1 - gamma).
    pub fn initial_value(&self) -> f64 {
        self.initial_q.unwrap_or(1.0 / (1.0 - self.gamma))
    }
}

impl Settings for WebExplorConfig {
    const SECTION: &'static str = "webexplor";
    fn check(&self) -> Result<(), String> {
        let w = self;
        let checks = [
            (
                w.alpha > 0.0 && w.alpha <= 1.0,
                "strategy.webexplor.alpha must be in (0, 1]",
            ),
            (
                w.gamma >= 0.0 && w.gamma < 1.0,
                "strategy.webexplor.gamma must be in [0, 1)",
            ),
            (
                w.tau > 0.0 && w.tau.is_finite(),
                "strategy.webexplor.tau must be above 0",
            ),
            (
                w.initial_q.is_none_or(f64::is_finite),
                "strategy.webexplor.initial_q must be a number",
            ),
            (
                w.episode_steps > 0,
                "strategy.webexplor.episode_steps must be at least 1",
            ),
            (
                w.stagnation_steps > 0,
                "strategy.webexplor.stagnation_steps must be at least 1",
            ),
            (
                w.stagnation_secs > 0.0 && seconds(w.stagnation_secs),
                "strategy.webexplor.stagnation_secs must be above 0",
            ),
            (
                w.novelty_weight >= 0.0 && w.novelty_weight.is_finite(),
                "strategy.webexplor.novelty_weight must be 0 or more",
            ),
        ];
        crate::settings::first_wrong(&checks)
    }
}

/// Cloning shares the mind (as workers do); `fork` copies it.
#[derive(Clone)]
pub struct WebExplorAgent {
    cfg: WebExplorConfig,
    inputs: Box<dyn InputGenerator + Send>,
    mind: Arc<Mutex<Mind>>,
    /// Values this worker typed on its page.
    typed: Typed,
    /// The state the latest episode started from.
    initial: Option<StateId>,
    route: Option<Route>,
    /// The route was planned to start after the reset the agent asked for.
    route_after_reset: bool,
    /// Steps this worker learned, for its stagnation.
    steps: u64,
    /// This worker's id in the mind, for its escape claim.
    id: u64,
    last_new: (u64, Instant),
    stagnation: Duration,
    rationale: Option<String>,
}

impl WebExplorAgent {
    pub fn new(cfg: WebExplorConfig, inputs: Box<dyn InputGenerator + Send>) -> WebExplorAgent {
        let mind = Mind {
            q0: cfg.initial_value(),
            memory: Memory::default(),
            q: HashMap::new(),
            offered: HashMap::new(),
            external: HashSet::new(),
            found: Vec::new(),
            steps: 0,
            escapes: 0,
            replayed: 0,
            broken: Vec::new(),
            broken_total: 0,
            claims: HashMap::new(),
            agents: 0,
        };
        WebExplorAgent::with_mind(cfg, inputs, Arc::new(Mutex::new(mind)))
    }

    /// An agent with its own episode that learns into `mind`.
    fn with_mind(
        cfg: WebExplorConfig,
        inputs: Box<dyn InputGenerator + Send>,
        mind: Arc<Mutex<Mind>>,
    ) -> WebExplorAgent {
        let stagnation = Duration::from_secs_f64(cfg.stagnation_secs.max(0.001));
        let id = {
            let mut m = lock(&mind);
            m.agents += 1;
            m.agents
        };
        WebExplorAgent {
            cfg,
            inputs,
            mind,
            typed: Typed::default(),
            initial: None,
            route: None,
            route_after_reset: false,
            steps: 0,
            id,
            last_new: (0, Instant::now()),
            stagnation,
            rationale: None,
        }
    }

    #[cfg(test)]
    fn q(&self, s: StateId, a: &Action) -> f64 {
        lock(&self.mind).q(s, a)
    }

    /// This worker went `stagnation_steps` of its own steps (or the time) without a
    /// state new to the run.
    fn stagnated(&self) -> bool {
        self.steps - self.last_new.0 >= u64::from(self.cfg.stagnation_steps)
            || self.last_new.1.elapsed() >= self.stagnation
    }

    /// Plan the escape from stagnation: the least-visited transition reachable from the
    /// initial state. Returns whether a reset is needed to follow it.
    fn plan_escape(&mut self, current: StateId) -> bool {
        self.last_new = (self.steps, Instant::now());
        let Some(init) = self.initial else {
            return false;
        };
        let me = self.id;
        let mut mind = lock(&self.mind);
        mind.release(me);
        let m = &*mind;
        let dfa = &m.memory.dfa;
        let reachable = dfa.reachable_from(init, |e| m.memory.replayable(e));
        let external = &m.external;
        // An action never taken has N = 0: its curiosity beats every observed
        // transition. The newest state with one goes first.
        let untried = m
            .found
            .iter()
            .rev()
            .filter(|s| reachable.contains(s))
            .find_map(|&s| {
                let a = m.offered.get(&s)?.iter().find(|a| {
                    a.kind != ActionKind::Back
                        && !external.contains(&(s, (*a).clone()))
                        && !m.q.contains_key(&(s, (*a).clone()))
                        && !m.claimed(s, a, me)
                })?;
                Some((s, a.clone()))
            });
        let edge = match untried {
            Some((s, a)) => Edge {
                from: s,
                action: a,
                to: s,
                count: 0,
            },
            None => match dfa.most_curious(|e| {
                reachable.contains(&e.from)
                    && e.action.kind != ActionKind::Back
                    && !external.contains(&(e.from, e.action.clone()))
                    && !m.claimed(e.from, &e.action, me)
            }) {
                Some(e) => e.clone(),
                None => return false,
            },
        };
        let label = format!(
            "escape: replay to {} for {}",
            edge.from,
            edge.action.describe()
        );
        let from = if current == edge.from { current } else { init };
        self.route = m.memory.route(from, edge.from, Some(&edge), label);
        if self.route.is_none() {
            return false;
        }
        mind.escapes += 1;
        let at = mind.steps;
        mind.claims.insert((edge.from, edge.action), (me, at));
        self.route_after_reset = from != current;
        self.route_after_reset
    }
}

impl Agent for WebExplorAgent {
    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        // A trial must not teach the run: it learns into a copy of the mind.
        let mut copy = self.clone();
        copy.mind = Arc::new(Mutex::new(lock(&self.mind).clone()));
        Some(Box::new(copy))
    }

    fn worker(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(WebExplorAgent::with_mind(
            self.cfg.clone(),
            self.inputs.fork(),
            self.mind.clone(),
        )))
    }

    fn name(&self) -> &str {
        "webexplor"
    }

    fn wants_reset(&mut self, view: &View<'_>) -> bool {
        self.route.is_none() && self.stagnated() && self.plan_escape(view.state())
    }

    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let s = view.state();
        if view.episode_step == 0 || self.initial.is_none() {
            // Where a reset leads now: an application that changed may start elsewhere.
            self.initial = Some(s);
        }
        let mut mind = lock(&self.mind);
        if mind.offered.insert(s, view.actions.to_vec()).is_none() {
            mind.found.push(s);
        }
        if let Some(route) = self.route.as_mut() {
            let replay = route.replay;
            match route.next(view) {
                RouteNext::Act(a, rationale) => {
                    if route.remaining() == 0 {
                        self.route = None;
                    }
                    if replay {
                        mind.replayed += 1;
                    }
                    drop(mind);
                    let (a, note) = fill_noted(a, view.observation, self.inputs.as_mut(), rng);
                    self.rationale = Some(with_note(rationale, note));
                    return a;
                }
                RouteNext::Broken(msg, blame) => {
                    self.route = None;
                    if let Some(b) = blame {
                        mind.memory.blame(b);
                    }
                    if replay {
                        mind.record_broken(msg);
                    }
                }
                RouteNext::Done => self.route = None,
            }
        }
        // Off its route (taken, broken, cut short): its target is free again.
        mind.release(self.id);
        // The paper's valid actions are the page's elements: no `back`, whose effect
        // depends on the history and would tie states together in false cycles.
        let acts: Vec<&Action> = view
            .actions
            .iter()
            .filter(|a| a.kind != ActionKind::Back && !mind.external.contains(&(s, (*a).clone())))
            .collect();
        let Some(choice) = (!acts.is_empty()).then(|| mind.sample(s, &acts, self.cfg.tau, rng))
        else {
            self.rationale = Some("only external links here: back".into());
            return Action::back();
        };
        let q = mind.q(s, choice);
        // Typing may ask a model: the other workers need not wait for it.
        drop(mind);
        let why = format!("explore (Q {q:.2})");
        let (a, plan, why) = take(
            choice,
            why,
            self.cfg.fill_forms,
            view,
            self.inputs.as_mut(),
            rng,
        );
        if plan.is_some() {
            self.route = plan;
        }
        self.rationale = Some(why);
        a
    }

    fn learn(&mut self, t: &Transition<'_>) {
        self.steps += 1;
        crate::fill::teach(self.inputs.as_mut(), t);
        if t.new_state {
            self.last_new = (self.steps, Instant::now());
        }
        let k = key(t.action);
        let mut mind = lock(&self.mind);
        mind.steps += 1;
        if t.events
            .iter()
            .any(|e| e.kind == EventKind::ExternalNavigation)
        {
            mind.external.insert((t.state, k.clone()));
        }
        let Some(n) = mind.memory.observe(&mut self.typed, t) else {
            return;
        };
        // Asynchronous Q-learning: the update lands on the shared table now, from the
        // values every worker left there.
        // The paper's curiosity, plus (when weighted) what the page newly showed.
        let reward = 1.0 / f64::from(n).sqrt() + self.cfg.novelty_weight * t.novelty.score();
        let target = reward + self.cfg.gamma * mind.best(t.next_state);
        let q0 = mind.q0;
        let q = mind.q.entry((t.state, k)).or_insert(q0);
        *q += self.cfg.alpha * (target - *q);
    }

    fn on_episode_end(&mut self) {
        self.typed.clear();
        // A route planned for this reset survives it; one cut short by the episode does not.
        if !std::mem::take(&mut self.route_after_reset) {
            self.route = None;
        }
    }

    fn rationale(&self) -> Option<String> {
        self.rationale.clone()
    }

    fn snapshot(&self) -> Option<StrategySnapshot> {
        let mind = lock(&self.mind);
        let mut q: Vec<(&(StateId, Action), &f64)> = mind.q.iter().collect();
        q.sort_by(|a, b| b.1.total_cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let q_rows = q
            .iter()
            .map(|((s, a), v)| vec![s.to_string(), a.describe(), format!("{v:.3}")])
            .collect();
        let mut tables = vec![
            capped("Q-table (highest first)", &["state", "action", "Q"], q_rows),
            automaton_table(&mind.memory.dfa),
        ];
        if !mind.broken.is_empty() {
            tables.push(SnapshotTable {
                name: "broken replays".into(),
                columns: vec!["where it broke".into()],
                rows: mind.broken.iter().map(|b| vec![b.clone()]).collect(),
                total_rows: mind.broken_total as usize,
            });
        }
        Some(StrategySnapshot {
            strategy: "webexplor".into(),
            counters: vec![
                ("steps learned".into(), mind.steps),
                ("transitions".into(), mind.memory.dfa.edges().len() as u64),
                ("Q entries".into(), mind.q.len() as u64),
                ("escapes from stagnation".into(), mind.escapes),
                ("replayed steps".into(), mind.replayed),
                ("broken replays".into(), mind.broken_total),
                (
                    "transitions avoided by replays".into(),
                    mind.memory.stale() as u64,
                ),
                ("external actions".into(), mind.external.len() as u64),
            ],
            tables,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use wayfarer_core::{Analysis, Event, Observation};

    use crate::testing::Fixed;

    fn agent(cfg: WebExplorConfig) -> WebExplorAgent {
        WebExplorAgent::new(cfg, Box::new(Fixed))
    }

    fn click(t: &str) -> Action {
        Action::on(ActionKind::Click, t)
    }

    fn choose(ag: &mut WebExplorAgent, s: u64, acts: &[Action], rng: &mut ChaCha8Rng) -> Action {
        let obs = Observation::default();
        let an = Analysis::new(StateId(s), "u".into());
        let view = View {
            observation: &obs,
            analysis: &an,
            actions: acts,
            episode_step: 1,
        };
        ag.choose(&view, rng)
    }

    fn learn(ag: &mut WebExplorAgent, s: u64, a: &Action, n: u64, events: &[Event]) {
        let obs = Observation::default();
        ag.learn(&Transition {
            state: StateId(s),
            observation: &obs,
            action: a,
            next_state: StateId(n),
            next_observation: &obs,
            events,
            new_state: false,
            failed: false,
            novelty: Default::default(),
        });
    }

    #[test]
    fn q_follows_the_curiosity_update() {
        let a = click("#a");
        // By default an untried action is worth 1/(1 - gamma): nothing tried beats it.
        assert!((lock(&agent(WebExplorConfig::default()).mind).q0 - 20.0).abs() < 1e-9);
        let mut ag = agent(WebExplorConfig {
            initial_q: Some(1.0),
            ..WebExplorConfig::default()
        });
        learn(&mut ag, 0, &a, 1, &[]);
        // r = 1/sqrt(1), s1 never seen: its best is the initial value 1.
        assert!((ag.q(StateId(0), &a) - 1.95).abs() < 1e-9);
        learn(&mut ag, 0, &a, 1, &[]);
        assert!((ag.q(StateId(0), &a) - (1.0 / 2f64.sqrt() + 0.95)).abs() < 1e-9);
        // s1 offers one action whose value is known: the bootstrap uses it.
        let b = click("#b");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        choose(&mut ag, 1, std::slice::from_ref(&b), &mut rng);
        learn(&mut ag, 1, &b, 2, &[]);
        learn(&mut ag, 0, &a, 1, &[]);
        let want = 1.0 / 3f64.sqrt() + 0.95 * ag.q(StateId(1), &b);
        assert!((ag.q(StateId(0), &a) - want).abs() < 1e-9);

        let mut half = agent(WebExplorConfig {
            alpha: 0.5,
            initial_q: Some(1.0),
            ..WebExplorConfig::default()
        });
        learn(&mut half, 0, &a, 1, &[]);
        assert!((half.q(StateId(0), &a) - 1.475).abs() < 1e-9);
    }

    #[test]
    fn an_action_that_left_the_allowed_origins_is_never_taken_again() {
        let out = click("#out");
        let stay = click("#stay");
        let mut ag = agent(WebExplorConfig::default());
        let blocked = [Event::new(
            EventKind::ExternalNavigation,
            "https://else.where/",
        )];
        learn(&mut ag, 0, &out, 0, &blocked);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..200 {
            let a = choose(&mut ag, 0, &[out.clone(), stay.clone()], &mut rng);
            assert_eq!(a, stay);
        }
        assert_eq!(
            choose(&mut ag, 0, std::slice::from_ref(&out), &mut rng),
            Action::back()
        );
    }

    #[test]
    fn stagnation_escapes_by_reset_and_replay_and_a_broken_replay_is_recorded() {
        let cfg = WebExplorConfig {
            stagnation_steps: 3,
            ..WebExplorConfig::default()
        };
        let mut ag = agent(cfg);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (a, b) = (click("#a"), click("#b"));
        choose(&mut ag, 0, std::slice::from_ref(&a), &mut rng);
        learn(&mut ag, 0, &a, 1, &[]);
        learn(&mut ag, 0, &a, 1, &[]);
        choose(&mut ag, 1, std::slice::from_ref(&b), &mut rng);
        learn(&mut ag, 1, &b, 1, &[]);
        let obs = Observation::default();
        let at = |s: u64| Analysis::new(StateId(s), "u".into());
        let s3 = at(3);
        let offered = [b.clone()];
        let view = View {
            observation: &obs,
            analysis: &s3,
            actions: &offered,
            episode_step: 3,
        };
        // Three steps without a new state: from s3, reset, then replay s0 -a-> s1 and
        // take the least visited transition, (s1, b).
        assert!(ag.wants_reset(&view));
        ag.on_episode_end();
        assert_eq!(choose(&mut ag, 0, std::slice::from_ref(&a), &mut rng), a);
        assert_eq!(
            ag.rationale().unwrap(),
            "escape: replay to s1 for click #b (1/2)"
        );
        // The application changed: a leads to s2 now. The replay breaks and learning
        // goes on from there.
        let c = click("#c");
        assert_eq!(choose(&mut ag, 2, std::slice::from_ref(&c), &mut rng), c);
        assert!(ag.rationale().unwrap().starts_with("explore"));
        let snap = ag.snapshot().unwrap();
        let count = |name: &str| snap.counters.iter().find(|c| c.0 == name).unwrap().1;
        assert_eq!(count("broken replays"), 1);
        assert_eq!(count("escapes from stagnation"), 1);
        assert!(snap.tables.iter().any(|t| t.name == "broken replays"));
    }

    fn counter(ag: &dyn Agent, name: &str) -> u64 {
        let snap = ag.snapshot().unwrap();
        snap.counters.iter().find(|c| c.0 == name).unwrap().1
    }

    #[test]
    fn workers_learn_into_one_mind_and_keep_their_own_routes() {
        let cfg = WebExplorConfig {
            stagnation_steps: 3,
            ..WebExplorConfig::default()
        };
        let mut a = agent(cfg);
        let mut b = a.worker().expect("webexplor runs with workers");
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let (x, y, z) = (click("#x"), click("#y"), click("#z"));
        let obs = Observation::default();
        let at = |s: u64| Analysis::new(StateId(s), "u".into());
        let step = |ag: &mut dyn Agent, s: u64, acts: &[Action], rng: &mut ChaCha8Rng| {
            let an = at(s);
            let view = View {
                observation: &obs,
                analysis: &an,
                actions: acts,
                episode_step: 1,
            };
            ag.choose(&view, rng)
        };
        let learn_on = |ag: &mut dyn Agent, s: u64, a: &Action, n: u64, failed: bool| {
            ag.learn(&Transition {
                state: StateId(s),
                observation: &obs,
                action: a,
                next_state: StateId(n),
                next_observation: &obs,
                events: &[],
                new_state: false,
                failed,
                novelty: Default::default(),
            })
        };
        // The second worker maps s0 -x-> s1 -y-> s1.
        step(b.as_mut(), 0, std::slice::from_ref(&x), &mut rng);
        learn_on(b.as_mut(), 0, &x, 1, false);
        learn_on(b.as_mut(), 0, &x, 1, false);
        step(b.as_mut(), 1, std::slice::from_ref(&y), &mut rng);
        learn_on(b.as_mut(), 1, &y, 1, false);
        // The first one learns nothing in three steps: it stagnates, and escapes to the
        // least visited transition the other one found, over the path it found.
        step(&mut a, 0, std::slice::from_ref(&x), &mut rng);
        for _ in 0..3 {
            learn_on(&mut a, 0, &z, 0, true);
        }
        let s5 = at(5);
        let offered = [z.clone()];
        let view = View {
            observation: &obs,
            analysis: &s5,
            actions: &offered,
            episode_step: 3,
        };
        assert!(a.wants_reset(&view));
        a.on_episode_end();
        assert_eq!(step(&mut a, 0, std::slice::from_ref(&x), &mut rng), x);
        assert_eq!(
            a.rationale().unwrap(),
            "escape: replay to s1 for click #y (1/2)"
        );
        // The route is the first worker's: the second explores where it is.
        assert_eq!(step(b.as_mut(), 0, std::slice::from_ref(&x), &mut rng), x);
        assert!(
            b.rationale().unwrap().starts_with("explore"),
            "{:?}",
            b.rationale()
        );
        assert_eq!(step(&mut a, 1, std::slice::from_ref(&y), &mut rng), y);
        assert_eq!(
            a.rationale().unwrap(),
            "escape: replay to s1 for click #y (2/2)"
        );
        // One snapshot counts both: the steps of each, the other's escape.
        for ag in [&a as &dyn Agent, b.as_ref()] {
            assert_eq!(counter(ag, "steps learned"), 6);
            assert_eq!(counter(ag, "transitions"), 2);
            assert_eq!(counter(ag, "Q entries"), 2);
            assert_eq!(counter(ag, "escapes from stagnation"), 1);
        }
        // An action one worker saw leave the allowed origins, the other never takes.
        let out = click("#out");
        let blocked = [Event::new(
            EventKind::ExternalNavigation,
            "https://else.where/",
        )];
        b.learn(&Transition {
            state: StateId(0),
            observation: &obs,
            action: &out,
            next_state: StateId(0),
            next_observation: &obs,
            events: &blocked,
            new_state: false,
            failed: false,
            novelty: Default::default(),
        });
        for _ in 0..100 {
            assert_eq!(step(&mut a, 0, &[out.clone(), x.clone()], &mut rng), x);
        }
    }

    #[test]
    fn stagnated_workers_escape_to_different_targets() {
        let cfg = WebExplorConfig {
            stagnation_steps: 3,
            ..WebExplorConfig::default()
        };
        let mut a = agent(cfg.clone());
        let mut b = WebExplorAgent::with_mind(cfg, Box::new(Fixed), a.mind.clone());
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (x, y, z, w) = (click("#x"), click("#y"), click("#z"), click("#w"));
        // s0 -x-> s1, where y and z were offered and never taken.
        choose(&mut a, 0, std::slice::from_ref(&x), &mut rng);
        learn(&mut a, 0, &x, 1, &[]);
        learn(&mut a, 0, &x, 1, &[]);
        choose(&mut a, 1, &[y.clone(), z.clone()], &mut rng);
        learn(&mut a, 1, &w, 1, &[]);
        choose(&mut b, 0, std::slice::from_ref(&x), &mut rng);
        for _ in 0..3 {
            learn(&mut b, 0, &x, 1, &[]);
        }
        let obs = Observation::default();
        let s5 = Analysis::new(StateId(5), "u".into());
        let view = View {
            observation: &obs,
            analysis: &s5,
            actions: std::slice::from_ref(&w),
            episode_step: 3,
        };
        let mut targets = Vec::new();
        for ag in [&mut a, &mut b] {
            assert!(ag.wants_reset(&view));
            ag.on_episode_end();
            assert_eq!(choose(ag, 0, std::slice::from_ref(&x), &mut rng), x);
            targets.push(ag.rationale().unwrap());
        }
        // The newest untried action goes to the first; the second takes the next one.
        assert_eq!(
            targets,
            [
                "escape: replay to s1 for click #y (1/2)",
                "escape: replay to s1 for click #z (1/2)"
            ]
        );
        // Off its route, a worker's claim is released: the target is free again.
        assert_eq!(choose(&mut a, 1, &[y.clone(), z.clone()], &mut rng), y);
        choose(&mut a, 1, std::slice::from_ref(&w), &mut rng);
        assert!(!lock(&a.mind).claimed(StateId(1), &y, b.id));
        assert!(lock(&a.mind).claimed(StateId(1), &z, a.id));
    }

    #[test]
    fn a_fork_learns_into_a_copy_of_the_mind() {
        let mut a = agent(WebExplorConfig::default());
        let (x, y) = (click("#x"), click("#y"));
        learn(&mut a, 0, &x, 1, &[]);
        let worker = a.worker().unwrap();
        let mut trial = a.fork().unwrap();
        let obs = Observation::default();
        trial.learn(&Transition {
            state: StateId(1),
            observation: &obs,
            action: &y,
            next_state: StateId(2),
            next_observation: &obs,
            events: &[],
            new_state: false,
            failed: false,
            novelty: Default::default(),
        });
        assert_eq!(counter(trial.as_ref(), "Q entries"), 2);
        assert_eq!(counter(&a, "Q entries"), 1);
        assert_eq!(counter(worker.as_ref(), "Q entries"), 1);
        learn(&mut a, 1, &y, 2, &[]);
        assert_eq!(counter(worker.as_ref(), "Q entries"), 2);
        assert_eq!(counter(trial.as_ref(), "steps learned"), 2);
    }
}
