//! `bfs` and `dfs` (DESIGN 7.2): model-based crawling, as Crawljax and AutoE2E's
//! explorer do. Every (state, action) pair is fired once; a state is reached again by
//! the shortest known path, from where the page is when that is shorter, else after a
//! reset; the empty fields of a form are filled before its button (the strategy's input
//! generator, asked for the whole form).
//! `bfs` finishes the earliest-found state first, `dfs` the latest.
//!
//! With several workers: the workers' agents crawl one graph behind one lock: the queues
//! of unexplored actions, the (state, action) pairs ever offered, the states in the order
//! found, the states out of reach and the retries at them, the automaton with what
//! replays know (concrete steps, broken transitions), and the snapshot's counters. It
//! merges by taking turns: an action is queued once whoever saw it first, fired once by
//! whoever takes it off its queue, and a transition any worker observes counts for all.
//! So that workers do not all chase the same unexplored action, a worker claims the
//! action it plans a route for (the first one of the target state no other worker
//! claimed); the others plan for other actions or states while the claim holds, and
//! never fire a claimed action. The claim is released when the worker arrives (it then
//! fires whatever is first here), when its route breaks or is given up, and at the end
//! of an episode that does not carry the route over its reset. Each worker keeps its own
//! route (a replay or a form being filled), the state its episodes start from, its
//! rationale, the values it typed on its page, and its input generator (a fork).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::settings::{read, read_checked, Section, Settings};
use crate::StrategyError;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Action, ActionKind, Agent, StateId, StrategySnapshot, Transition, View};

use crate::fill::{fill_noted, with_note};
use crate::form::fill_then;
use crate::memory::{Memory, Typed};
use crate::registry::{Kind, Model};
use crate::route::{Route, RouteNext};
use crate::snapshot::{automaton_table, capped};

/// How often per run the states out of reach are tried again.
const RETRIES: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Breadth,
    Depth,
}

/// What to do from the current state.
enum Plan {
    /// Fire the next unexplored action here.
    Here,
    /// A route was planned; `true` when it starts after a reset.
    Go(bool),
    /// Nothing left to crawl that can be reached.
    Done,
}

/// What the workers of a run crawl together; one per run (and per `fork`).
#[derive(Clone, Default)]
struct Graph {
    memory: Memory,
    /// Unexplored actions per state, in document order.
    todo: HashMap<StateId, VecDeque<Action>>,
    /// Every (state, action) ever offered, so an action is queued once.
    known: HashSet<(StateId, Action)>,
    /// States in the order first seen.
    discovered: Vec<StateId>,
    /// States no known path leads to (from the start or from here).
    unreachable: HashSet<StateId>,
    /// Unexplored actions a worker plans a route for, and which worker.
    claims: HashMap<(StateId, Action), usize>,
    /// Workers made so far: the next one's number.
    workers: usize,
    steps: u64,
    fired: u64,
    filled: u64,
    replayed: u64,
    broken: u64,
    complete_at: Option<u64>,
    /// Times the states out of reach were tried again.
    retries: u32,
}

/// The graph, whoever panicked while holding it (a failed step is only logged).
fn lock(g: &Mutex<Graph>) -> MutexGuard<'_, Graph> {
    g.lock().unwrap_or_else(|e| e.into_inner())
}

impl Graph {
    /// The first unexplored action of `s` that no worker but `me` claimed.
    fn available(&self, s: StateId, me: usize) -> Option<usize> {
        self.todo.get(&s)?.iter().position(|a| {
            self.claims
                .get(&(s, a.clone()))
                .is_none_or(|&owner| owner == me)
        })
    }

    fn has_todo(&self, s: StateId) -> bool {
        self.todo.get(&s).is_some_and(|q| !q.is_empty())
    }
}

/// `bfs` and `dfs` (DESIGN 7.2): model-based crawling of every (state, action) pair.
pub(crate) const BFS: Kind = Kind {
    name: "bfs",
    summary: "breadth-first crawl of every (state, action) pair (DESIGN 7.2)",
    inputs: "heuristic+mutate",
    model: Model::None,
    settings: Some(Section::of::<CrawlConfig>()),
    episode_steps: |c| read_checked::<CrawlConfig>(c).episode_steps,
    build: |b| {
        let cfg = read::<CrawlConfig>(&b.config.strategy).map_err(StrategyError::Settings)?;
        Ok(Box::new(CrawlAgent::new(Order::Breadth, cfg, b.inputs)))
    },
};
pub(crate) const DFS: Kind = Kind {
    name: "dfs",
    summary: "depth-first crawl of every (state, action) pair (DESIGN 7.2)",
    build: |b| {
        let cfg = read::<CrawlConfig>(&b.config.strategy).map_err(StrategyError::Settings)?;
        Ok(Box::new(CrawlAgent::new(Order::Depth, cfg, b.inputs)))
    },
    ..BFS
};

/// `bfs` and `dfs` (DESIGN 7.2): model-based crawling.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrawlConfig {
    /// Steps per episode before a reset, unless `budget.episode_steps` says otherwise.
    pub episode_steps: u32,
    /// Fill the empty fields of a form (values from the input generator) before clicking
    /// its buttons.
    pub fill_forms: bool,
    /// Also crawl `back` as an action of every state.
    pub back: bool,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            episode_steps: 100,
            fill_forms: true,
            back: false,
        }
    }
}

impl Settings for CrawlConfig {
    const SECTION: &'static str = "crawl";
    fn check(&self) -> Result<(), String> {
        let checks = [(
            self.episode_steps > 0,
            "strategy.crawl.episode_steps must be at least 1",
        )];
        crate::settings::first_wrong(&checks)
    }
}

/// Cloning shares the graph (as workers do); `fork` copies it.
#[derive(Clone)]
pub struct CrawlAgent {
    order: Order,
    cfg: CrawlConfig,
    inputs: Box<dyn InputGenerator + Send>,
    graph: Arc<Mutex<Graph>>,
    /// This worker's number, in the claims.
    id: usize,
    /// Values this worker typed on its page.
    typed: Typed,
    initial: Option<StateId>,
    /// A replay in progress, or a form being filled before its button.
    route: Option<Route>,
    route_after_reset: bool,
    /// The unexplored action this worker's route is for.
    claim: Option<(StateId, Action)>,
    rationale: Option<String>,
}

impl CrawlAgent {
    pub fn new(order: Order, cfg: CrawlConfig, inputs: Box<dyn InputGenerator + Send>) -> Self {
        let graph = Graph {
            workers: 1,
            ..Graph::default()
        };
        CrawlAgent::with_graph(order, cfg, inputs, Arc::new(Mutex::new(graph)), 0)
    }

    /// Worker `id`, crawling `graph`.
    fn with_graph(
        order: Order,
        cfg: CrawlConfig,
        inputs: Box<dyn InputGenerator + Send>,
        graph: Arc<Mutex<Graph>>,
        id: usize,
    ) -> Self {
        CrawlAgent {
            order,
            cfg,
            inputs,
            graph,
            id,
            typed: Typed::default(),
            initial: None,
            route: None,
            route_after_reset: false,
            claim: None,
            rationale: None,
        }
    }

    /// Let the others have the action this worker's route was for.
    fn release(&mut self, g: &mut Graph) {
        if let Some(c) = self.claim.take() {
            if g.claims.get(&c) == Some(&self.id) {
                g.claims.remove(&c);
            }
        }
    }

    /// Drop the route, and its claim.
    fn drop_route(&mut self) {
        self.route = None;
        let graph = self.graph.clone();
        self.release(&mut lock(&graph));
    }

    fn crawls(&self, a: &Action) -> bool {
        match a.kind {
            ActionKind::Click
            | ActionKind::DoubleClick
            | ActionKind::ContextMenu
            | ActionKind::Hover
            | ActionKind::Press
            | ActionKind::Upload
            | ActionKind::Scroll
            | ActionKind::Drag
            | ActionKind::Check
            | ActionKind::Select => true,
            ActionKind::Back => self.cfg.back,
            _ => false,
        }
    }

    /// Queue the actions of `view` not offered here before.
    fn register(&mut self, view: &View<'_>) {
        let s = view.state();
        if view.episode_step == 0 || self.initial.is_none() {
            // Where a reset leads now: an application that changed may start elsewhere.
            self.initial = Some(s);
        }
        let mut g = lock(&self.graph);
        if let std::collections::hash_map::Entry::Vacant(e) = g.todo.entry(s) {
            e.insert(VecDeque::new());
            g.discovered.push(s);
        }
        let new: Vec<Action> = view
            .actions
            .iter()
            .filter(|a| self.crawls(a) && !g.known.contains(&(s, (*a).clone())))
            .cloned()
            .collect();
        for a in new {
            g.known.insert((s, a.clone()));
            g.todo.get_mut(&s).expect("registered").push_back(a);
        }
    }

    /// Whether this worker has work in `s`: an action no other worker claimed.
    fn has_todo(&self, s: StateId) -> bool {
        lock(&self.graph).available(s, self.id).is_some()
    }

    /// The state to crawl next: the earliest (bfs) or latest (dfs) found with work left
    /// that no other worker claimed.
    fn target(&self, g: &Graph) -> Option<StateId> {
        let open =
            |s: &&StateId| g.available(**s, self.id).is_some() && !g.unreachable.contains(*s);
        match self.order {
            Order::Breadth => g.discovered.iter().find(open).copied(),
            Order::Depth => g.discovered.iter().rev().find(open).copied(),
        }
    }

    fn plan(&mut self, here: StateId) -> Plan {
        let graph = self.graph.clone();
        let mut g = lock(&graph);
        self.plan_in(&mut g, here)
    }

    fn plan_in(&mut self, g: &mut Graph, here: StateId) -> Plan {
        if self.order == Order::Depth && g.available(here, self.id).is_some() {
            return Plan::Here;
        }
        while let Some(t) = self.target(g) {
            if t == here {
                return Plan::Here;
            }
            let init = self.initial.unwrap_or(here);
            let from_here = g.memory.distance(here, t);
            let from_start = g.memory.distance(init, t);
            let from = match (from_here, from_start) {
                (Some(h), Some(st)) if h <= st => here,
                (_, Some(_)) => init,
                (Some(_), None) => here,
                (None, None) => {
                    g.unreachable.insert(t);
                    continue;
                }
            };
            self.route = g.memory.route(from, t, None, t.to_string());
            self.route_after_reset = from != here;
            // The others leave the action this route is for to this worker.
            self.release(g);
            if let Some(i) = g.available(t, self.id) {
                let claim = (t, g.todo[&t][i].clone());
                g.claims.insert(claim.clone(), self.id);
                self.claim = Some(claim);
            }
            return Plan::Go(self.route_after_reset);
        }
        if g.available(here, self.id).is_some() {
            // The queue's states are out of reach; work left here is still work.
            return Plan::Here;
        }
        if !g.unreachable.is_empty() && g.retries < RETRIES {
            // Work is left where no path leads any more: forget which replays broke
            // and try again, a few times per run (the application may have settled).
            g.retries += 1;
            g.unreachable.clear();
            g.memory.forgive();
            return self.plan_in(g, here);
        }
        if g.complete_at.is_none() {
            g.complete_at = Some(g.steps);
        }
        Plan::Done
    }

    /// Follow the route when there is one; None when there is none (any more).
    fn follow(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Option<Action> {
        let route = self.route.as_mut()?;
        let replay = route.replay;
        match route.next(view) {
            RouteNext::Act(a, why) => {
                if replay {
                    lock(&self.graph).replayed += 1;
                }
                let (a, note) = fill_noted(a, view.observation, self.inputs.as_mut(), rng);
                self.rationale = Some(with_note(why, note));
                Some(a)
            }
            RouteNext::Broken(msg, blame) => {
                self.drop_route();
                let mut g = lock(&self.graph);
                if let Some(b) = blame {
                    g.memory.blame(b);
                }
                if replay {
                    g.broken += 1;
                    self.rationale = Some(format!("replay broke ({msg})"));
                }
                None
            }
            // Arrived: what is first here is this worker's to fire, claimed or not.
            RouteNext::Done => {
                self.drop_route();
                None
            }
        }
    }

    /// Fire the first action of this state no other worker claimed; None when another
    /// worker took the last one since this one looked.
    fn fire(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Option<Action> {
        let s = view.state();
        let a = {
            let graph = self.graph.clone();
            let mut g = lock(&graph);
            let i = g.available(s, self.id)?;
            let a = g.todo.get_mut(&s).and_then(|q| q.remove(i))?;
            g.fired += 1;
            self.release(&mut g);
            a
        };
        if self.cfg.fill_forms {
            if let Some(plan) = fill_then(view.observation, &a, self.inputs.as_mut(), rng) {
                lock(&self.graph).filled += plan.remaining() as u64 - 1;
                self.route = Some(plan);
                self.route_after_reset = false;
                if let Some(first) = self.follow(view, rng) {
                    return Some(first);
                }
            }
        }
        let (a, note) = fill_noted(a, view.observation, self.inputs.as_mut(), rng);
        self.rationale = Some(with_note(format!("crawl {s}"), note));
        Some(a)
    }
}

impl Agent for CrawlAgent {
    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        // A trial must not crawl for the run: it works on a copy of the graph.
        let mut copy = self.clone();
        copy.graph = Arc::new(Mutex::new(lock(&self.graph).clone()));
        Some(Box::new(copy))
    }

    fn worker(&self) -> Option<Box<dyn Agent + Send>> {
        let id = {
            let mut g = lock(&self.graph);
            g.workers += 1;
            g.workers - 1
        };
        Some(Box::new(CrawlAgent::with_graph(
            self.order,
            self.cfg.clone(),
            self.inputs.fork(),
            self.graph.clone(),
            id,
        )))
    }

    fn name(&self) -> &str {
        match self.order {
            Order::Breadth => "bfs",
            Order::Depth => "dfs",
        }
    }

    fn wants_reset(&mut self, view: &View<'_>) -> bool {
        self.register(view);
        self.route.is_none() && matches!(self.plan(view.state()), Plan::Go(true))
    }

    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        self.register(view);
        if let Some(a) = self.follow(view, rng) {
            return a;
        }
        // A route from here that breaks at once is planned again (its broken step is
        // avoided now), a few times; then the page's own work, or a random step.
        for _ in 0..4 {
            match self.plan(view.state()) {
                Plan::Here => match self.fire(view, rng) {
                    Some(a) => return a,
                    None => break,
                },
                Plan::Go(false) => {
                    if let Some(a) = self.follow(view, rng) {
                        return a;
                    }
                }
                Plan::Go(true) => {
                    // Mid-episode (after a broken replay) a route from the start must
                    // wait for a reset: the next step asks for one.
                    self.drop_route();
                    self.route_after_reset = false;
                    break;
                }
                Plan::Done => break,
            }
        }
        if self.has_todo(view.state()) {
            if let Some(a) = self.fire(view, rng) {
                return a;
            }
        }
        let complete = lock(&self.graph).complete_at.is_some();
        let why = if complete {
            "crawl complete: random"
        } else {
            "nothing to crawl here: random"
        };
        let a = view
            .actions
            .choose(rng)
            .cloned()
            .unwrap_or_else(Action::back);
        let (a, note) = fill_noted(a, view.observation, self.inputs.as_mut(), rng);
        self.rationale = Some(with_note(why.into(), note));
        a
    }

    fn learn(&mut self, t: &Transition<'_>) {
        crate::fill::teach(self.inputs.as_mut(), t);
        let mut g = lock(&self.graph);
        g.steps += 1;
        if g.memory.observe(&mut self.typed, t) == Some(1) {
            // A new transition may open a path to a state given up on.
            g.unreachable.clear();
        }
    }

    fn on_episode_end(&mut self) {
        self.typed.clear();
        if !std::mem::take(&mut self.route_after_reset) {
            self.drop_route();
        }
    }

    fn rationale(&self) -> Option<String> {
        self.rationale.clone()
    }

    fn snapshot(&self) -> Option<StrategySnapshot> {
        let g = lock(&self.graph);
        let left: usize = g.todo.values().map(VecDeque::len).sum();
        let frontier = g
            .discovered
            .iter()
            .filter(|s| g.has_todo(**s))
            .map(|s| {
                vec![
                    s.to_string(),
                    g.todo[s].len().to_string(),
                    if g.unreachable.contains(s) {
                        "no known path".into()
                    } else {
                        String::new()
                    },
                ]
            })
            .collect();
        Some(StrategySnapshot {
            strategy: self.name().into(),
            counters: vec![
                ("states".into(), g.discovered.len() as u64),
                ("actions fired".into(), g.fired),
                ("actions left".into(), left as u64),
                ("fields filled".into(), g.filled),
                ("replayed steps".into(), g.replayed),
                ("broken replays".into(), g.broken),
                (
                    "transitions avoided by replays".into(),
                    g.memory.stale() as u64,
                ),
                ("crawl complete at step".into(), g.complete_at.unwrap_or(0)),
            ],
            tables: vec![
                capped(
                    "frontier (states with actions left)",
                    &["state", "left", "note"],
                    frontier,
                ),
                automaton_table(&g.memory.dfa),
            ],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use wayfarer_core::{Analysis, Observation};

    use crate::testing::Fixed;

    fn click(t: &str) -> Action {
        Action::on(ActionKind::Click, t)
    }

    /// A page in state `s` offering `acts`, `episode_step` steps into the episode.
    struct Page {
        obs: Observation,
        an: Analysis,
        acts: Vec<Action>,
        episode_step: u32,
    }

    impl Page {
        fn new(s: u64, acts: &[&str], episode_step: u32) -> Page {
            Page {
                obs: Observation::default(),
                an: Analysis::new(StateId(s), "u".into()),
                acts: acts.iter().map(|a| click(a)).collect(),
                episode_step,
            }
        }

        fn view(&self) -> View<'_> {
            View {
                observation: &self.obs,
                analysis: &self.an,
                actions: &self.acts,
                episode_step: self.episode_step,
            }
        }
    }

    fn learn(ag: &mut dyn Agent, s: u64, a: &str, n: u64) {
        let obs = Observation::default();
        ag.learn(&Transition {
            state: StateId(s),
            observation: &obs,
            action: &click(a),
            next_state: StateId(n),
            next_observation: &obs,
            events: &[],
            new_state: false,
            failed: false,
            novelty: Default::default(),
        });
    }

    fn counter(ag: &dyn Agent, name: &str) -> u64 {
        let snap = ag.snapshot().unwrap();
        snap.counters.iter().find(|c| c.0 == name).unwrap().1
    }

    #[test]
    fn workers_crawl_one_graph_and_never_chase_the_same_action() {
        let mut a = CrawlAgent::new(Order::Breadth, CrawlConfig::default(), Box::new(Fixed));
        let mut b = a.worker().expect("bfs runs with workers");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        // The first worker crawls s0 -#a-> s1 -#b-> s2; s1 still offers #c.
        assert_eq!(
            a.choose(&Page::new(0, &["#a"], 0).view(), &mut rng),
            click("#a")
        );
        learn(&mut a, 0, "#a", 1);
        let s1 = Page::new(1, &["#b", "#c"], 1);
        assert_eq!(a.choose(&s1.view(), &mut rng), click("#b"));
        learn(&mut a, 1, "#b", 2);
        // The second, at the start, goes for #c over the path the first one found, and
        // claims it.
        let start = Page::new(0, &["#a"], 0);
        assert_eq!(b.choose(&start.view(), &mut rng), click("#a"));
        assert_eq!(b.rationale().unwrap(), "s1 (1/1)");
        // So the first does not reset to chase it too: it crawls where it is.
        let s2 = Page::new(2, &["#d"], 2);
        assert!(!a.wants_reset(&s2.view()));
        assert_eq!(a.choose(&s2.view(), &mut rng), click("#d"));
        assert_eq!(a.rationale().unwrap(), "crawl s2");
        // The second arrives and fires what it came for.
        learn(b.as_mut(), 0, "#a", 1);
        let s1 = Page::new(1, &["#b", "#c"], 1);
        assert_eq!(b.choose(&s1.view(), &mut rng), click("#c"));
        for ag in [&a as &dyn Agent, b.as_ref()] {
            assert_eq!(counter(ag, "actions fired"), 4);
            assert_eq!(counter(ag, "states"), 3);
            assert_eq!(counter(ag, "actions left"), 0);
        }
    }

    #[test]
    fn a_claim_ends_with_the_episode_that_gives_up_its_route() {
        let mut a = CrawlAgent::new(Order::Breadth, CrawlConfig::default(), Box::new(Fixed));
        let mut b = a.worker().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        a.choose(&Page::new(0, &["#a"], 0).view(), &mut rng);
        learn(&mut a, 0, "#a", 1);
        a.choose(&Page::new(1, &["#b", "#c"], 1).view(), &mut rng);
        learn(&mut a, 1, "#b", 2);
        b.choose(&Page::new(0, &["#a"], 0).view(), &mut rng);
        let s2 = Page::new(2, &[], 2);
        // While the second holds #c, the first has nothing to reset for.
        assert!(!a.wants_reset(&s2.view()));
        // The second's episode ends before it arrives: #c is free again, and the first
        // resets to go for it.
        b.on_episode_end();
        assert!(a.wants_reset(&s2.view()));
        a.on_episode_end();
        assert_eq!(
            a.choose(&Page::new(0, &["#a"], 0).view(), &mut rng),
            click("#a")
        );
        assert_eq!(a.rationale().unwrap(), "s1 (1/1)");
    }

    #[test]
    fn a_fork_crawls_a_copy_of_the_graph() {
        let mut a = CrawlAgent::new(Order::Depth, CrawlConfig::default(), Box::new(Fixed));
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut trial = a.fork().unwrap();
        trial.choose(&Page::new(0, &["#a", "#b"], 0).view(), &mut rng);
        assert_eq!(counter(trial.as_ref(), "actions fired"), 1);
        assert_eq!(counter(&a, "actions fired"), 0);
        assert_eq!(counter(&a, "states"), 0);
        a.choose(&Page::new(0, &["#a", "#b"], 0).view(), &mut rng);
        assert_eq!(a.rationale().unwrap(), "crawl s0");
    }
}
