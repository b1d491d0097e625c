//! `bfs` and `dfs` (DESIGN 7.2): model-based crawling, as Crawljax and AutoE2E's
//! explorer do. Every (state, action) pair is fired once; a state is reached again by
//! the shortest known path, from where the page is when that is shorter, else after a
//! reset; the empty fields of a form are filled before its button (the strategy's input
//! generator, asked for the whole form).
//! `bfs` finishes the earliest-found state first, `dfs` the latest.

use std::collections::{HashMap, HashSet, VecDeque};

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::config::CrawlConfig;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Action, ActionKind, Agent, StateId, StrategySnapshot, Transition, View};

use crate::fill::{fill_noted, with_note};
use crate::form::fill_then;
use crate::memory::{Memory, Typed};
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

#[derive(Clone)]
pub struct CrawlAgent {
    order: Order,
    cfg: CrawlConfig,
    inputs: Box<dyn InputGenerator + Send>,
    memory: Memory,
    /// Values typed on the current page.
    typed: Typed,
    /// Unexplored actions per state, in document order.
    todo: HashMap<StateId, VecDeque<Action>>,
    /// Every (state, action) ever offered, so an action is queued once.
    known: HashSet<(StateId, Action)>,
    /// States in the order first seen.
    discovered: Vec<StateId>,
    /// States no known path leads to (from the start or from here).
    unreachable: HashSet<StateId>,
    initial: Option<StateId>,
    /// A replay in progress, or a form being filled before its button.
    route: Option<Route>,
    route_after_reset: bool,
    rationale: Option<String>,
    steps: u64,
    fired: u64,
    filled: u64,
    replayed: u64,
    broken: u64,
    complete_at: Option<u64>,
    /// Times the states out of reach were tried again.
    retries: u32,
}

impl CrawlAgent {
    pub fn new(order: Order, cfg: CrawlConfig, inputs: Box<dyn InputGenerator + Send>) -> Self {
        CrawlAgent {
            order,
            cfg,
            inputs,
            memory: Memory::default(),
            typed: Typed::default(),
            todo: HashMap::new(),
            known: HashSet::new(),
            discovered: Vec::new(),
            unreachable: HashSet::new(),
            initial: None,
            route: None,
            route_after_reset: false,
            rationale: None,
            steps: 0,
            fired: 0,
            filled: 0,
            replayed: 0,
            broken: 0,
            complete_at: None,
            retries: 0,
        }
    }

    fn crawls(&self, a: &Action) -> bool {
        match a.kind {
            ActionKind::Click
            | ActionKind::DoubleClick
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
        if let std::collections::hash_map::Entry::Vacant(e) = self.todo.entry(s) {
            e.insert(VecDeque::new());
            self.discovered.push(s);
        }
        let new: Vec<Action> = view
            .actions
            .iter()
            .filter(|a| self.crawls(a) && !self.known.contains(&(s, (*a).clone())))
            .cloned()
            .collect();
        for a in new {
            self.known.insert((s, a.clone()));
            self.todo.get_mut(&s).expect("registered").push_back(a);
        }
    }

    fn has_todo(&self, s: StateId) -> bool {
        self.todo.get(&s).is_some_and(|q| !q.is_empty())
    }

    /// The state to crawl next: the earliest (bfs) or latest (dfs) found with work left.
    fn target(&self) -> Option<StateId> {
        let open = |s: &&StateId| self.has_todo(**s) && !self.unreachable.contains(*s);
        match self.order {
            Order::Breadth => self.discovered.iter().find(open).copied(),
            Order::Depth => self.discovered.iter().rev().find(open).copied(),
        }
    }

    fn plan(&mut self, here: StateId) -> Plan {
        if self.order == Order::Depth && self.has_todo(here) {
            return Plan::Here;
        }
        while let Some(t) = self.target() {
            if t == here {
                return Plan::Here;
            }
            let init = self.initial.unwrap_or(here);
            let from_here = self.memory.distance(here, t);
            let from_start = self.memory.distance(init, t);
            let from = match (from_here, from_start) {
                (Some(h), Some(st)) if h <= st => here,
                (_, Some(_)) => init,
                (Some(_), None) => here,
                (None, None) => {
                    self.unreachable.insert(t);
                    continue;
                }
            };
            self.route = self.memory.route(from, t, None, t.to_string());
            self.route_after_reset = from != here;
            return Plan::Go(self.route_after_reset);
        }
        if self.has_todo(here) {
            // The queue's states are out of reach; work left here is still work.
            return Plan::Here;
        }
        if !self.unreachable.is_empty() && self.retries < RETRIES {
            // Work is left where no path leads any more: forget which replays broke
            // and try again, a few times per run (the application may have settled).
            self.retries += 1;
            self.unreachable.clear();
            self.memory.forgive();
            return self.plan(here);
        }
        if self.complete_at.is_none() {
            self.complete_at = Some(self.steps);
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
                    self.replayed += 1;
                }
                let (a, note) = fill_noted(a, view.observation, self.inputs.as_mut(), rng);
                self.rationale = Some(with_note(why, note));
                Some(a)
            }
            RouteNext::Broken(msg, blame) => {
                self.route = None;
                if let Some(b) = blame {
                    self.memory.blame(b);
                }
                if replay {
                    self.broken += 1;
                    self.rationale = Some(format!("replay broke ({msg})"));
                }
                None
            }
            RouteNext::Done => {
                self.route = None;
                None
            }
        }
    }

    fn fire(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let s = view.state();
        let a = self
            .todo
            .get_mut(&s)
            .and_then(VecDeque::pop_front)
            .expect("fire is called with work left here");
        self.fired += 1;
        if self.cfg.fill_forms {
            if let Some(plan) = fill_then(view.observation, &a, self.inputs.as_mut(), rng) {
                self.filled += plan.remaining() as u64 - 1;
                self.route = Some(plan);
                self.route_after_reset = false;
                if let Some(first) = self.follow(view, rng) {
                    return first;
                }
            }
        }
        let (a, note) = fill_noted(a, view.observation, self.inputs.as_mut(), rng);
        self.rationale = Some(with_note(format!("crawl {s}"), note));
        a
    }
}

impl Agent for CrawlAgent {
    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(self.clone()))
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
                Plan::Here => return self.fire(view, rng),
                Plan::Go(false) => {
                    if let Some(a) = self.follow(view, rng) {
                        return a;
                    }
                }
                Plan::Go(true) => {
                    // Mid-episode (after a broken replay) a route from the start must
                    // wait for a reset: the next step asks for one.
                    self.route = None;
                    self.route_after_reset = false;
                    break;
                }
                Plan::Done => break,
            }
        }
        if self.has_todo(view.state()) {
            return self.fire(view, rng);
        }
        let why = if self.complete_at.is_some() {
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
        self.steps += 1;
        // A step that could not be performed says nothing about the page.
        if !t.failed {
            self.inputs
                .learn(t.observation, t.action, t.next_observation, t.events);
        }
        if self.memory.observe(&mut self.typed, t) == Some(1) {
            // A new transition may open a path to a state given up on.
            self.unreachable.clear();
        }
    }

    fn on_episode_end(&mut self) {
        self.typed.clear();
        if !std::mem::take(&mut self.route_after_reset) {
            self.route = None;
        }
    }

    fn rationale(&self) -> Option<String> {
        self.rationale.clone()
    }

    fn snapshot(&self) -> Option<StrategySnapshot> {
        let left: usize = self.todo.values().map(VecDeque::len).sum();
        let frontier = self
            .discovered
            .iter()
            .filter(|s| self.has_todo(**s))
            .map(|s| {
                vec![
                    s.to_string(),
                    self.todo[s].len().to_string(),
                    if self.unreachable.contains(s) {
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
                ("states".into(), self.discovered.len() as u64),
                ("actions fired".into(), self.fired),
                ("actions left".into(), left as u64),
                ("fields filled".into(), self.filled),
                ("replayed steps".into(), self.replayed),
                ("broken replays".into(), self.broken),
                (
                    "transitions avoided by replays".into(),
                    self.memory.stale() as u64,
                ),
                (
                    "crawl complete at step".into(),
                    self.complete_at.unwrap_or(0),
                ),
            ],
            tables: vec![
                capped(
                    "frontier (states with actions left)",
                    &["state", "left", "note"],
                    frontier,
                ),
                automaton_table(&self.memory.dfa),
            ],
        })
    }
}
