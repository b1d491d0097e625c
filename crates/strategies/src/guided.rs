//! `guided` (ours, issue 40): exploration steered by what the page newly shows, as a
//! fuzzer keeps the inputs that found new edges. The loop hands every step's novelty (a
//! script loaded for the first time, an endpoint never called, a page never shown,
//! functions never run: `Novelty`) to `learn`; an action's value is the novelty it
//! caused per try.
//!
//! In each state, in this order (after a value typed alone into a form's field, first
//! the button that sends the form: a value the server checks is tested only once sent;
//! after a click that changed the page without leaving its state, such as a filter chip,
//! a button of the state never taken right after it, since "filter, then act" is where
//! such bugs are, and rules that take each action of a state once never pair them):
//! 1. with probability `frontier_share` (always once the state has nothing untried), a
//!    link on this page, not yet clicked here, to a kind of page the run has not shown
//!    (`page_pattern`: `/issues/7` is `/issues/<id>`, shown once `/issues/3` was): clicked,
//!    since in a single-page app a click is a route change where loading the URL boots the
//!    whole app again (3-5 s a time on Directus); links are taken only from the targets
//!    the loop offered, so deny rules hold;
//! 2. an action never tried anywhere in the run (a control no other page had), then one
//!    never tried in this state, chosen at random;
//! 3. with nothing untried here: a form the input generator still has values for (the
//!    mutate layer's boundary values, once the form took valid ones), filled and sent
//!    again (at most `FORM_TRIES` times); else a link seen on another page and never
//!    followed, oldest first, loaded directly (a `navigate`, scope enforced by the
//!    browser); else the newest state seen elsewhere that still has untried actions, by
//!    loading the URL it was seen at (given up after two loads that showed another state);
//!    else an action that last led to a state where a form had values left (the button
//!    that opens a composer);
//! 4. the best tried action here by UCB: novelty per try plus `ucb` * sqrt(ln N / n).
//!
//! Where the server's coverage is read, the server's new lines count in an action's
//! novelty (`server_lines_per_unit` of them as much as a new endpoint), and the server
//! steers three things: a form whose submission made the server run new code (a
//! validation branch, an error path) is filled again before anything else the next time
//! its state shows, while the input generator has values left for it (a variant: the
//! mutate layer then breaks the same field again); a form after whose last `SERVER_DRY`
//! submissions the server ran nothing new is no longer filled again for values left;
//! and returns to work left go first to the states such steps led to. Two more rules are
//! settings, off by default since measured (issue 74): with `server_dry_steps`, once the
//! run's last that many steps ran nothing new on the server, a link to a kind of page
//! never shown (step 1, clicked here, else one seen elsewhere, loaded) goes ahead of the
//! untried actions here (more states, the same server lines, fewer failures); with
//! `dry_link_clicks`, after that many clicks in a row on links to one kind of page
//! (`/issues/<id>`) that ran nothing new on the server, the untried links to that kind
//! wait until nothing else is untried here or elsewhere (it bought nothing).
//!
//! Episodes are `episode_steps` long (100: a failure's trace is at most one, and shorter
//! traces shrink); within one, a reset is asked for only when `stuck_steps` steps brought
//! nothing new and no work is left anywhere known (steps 1-3 have nothing).
//!
//! With several workers: one mind behind a lock (the values, what was tried, the states'
//! actions and URLs, the link frontier, the counters); a link taken by one worker leaves
//! the frontier for all. Each worker keeps its form plan, the return it is on, its input
//! generator (a fork), its stuck count and its rationale.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use url::Url;
use wayfarer_core::novelty::SERVER_LINES_PER_UNIT;

use crate::settings::{read, read_checked, Section, Settings};
use crate::StrategyError;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::novelty::{extension, page_pattern};
use wayfarer_core::{
    Action, ActionKind, Agent, EventKind, Observation, StateId, StrategySnapshot, Transition, View,
};

use crate::fill::{fill_noted, with_note};
use crate::form::{fields_before, form_fields, sender, take};
use crate::registry::{Kind, Model};
use crate::route::{Route, RouteNext};
use crate::snapshot::capped;

/// Loads of a state's URL that may show another state before returns to it stop.
const MISSES: u32 = 2;

/// Tries of one form's button in one state while the input generator has work left on
/// the form: a bound of our own, whatever the generator says.
const FORM_TRIES: u32 = 24;

/// Submissions of a form in a row after which the server ran nothing new before the form
/// is no longer filled again for values left: the mutate layer alternates valid and
/// broken values, so four is two broken ones that opened no branch.
const SERVER_DRY: u32 = 4;

/// Clicks in a row on links to one kind of page that made the server run nothing new
/// before its other links wait: off by default. On roundup such links took 29% of the
/// time for 0.3 server lines a step, but with them waiting the time went to other steps
/// as dry (issue 74's A/B: server gain -7%, +2%, -5% on roundup, pretix, Redmine).
const DRY_LINK_CLICKS: u32 = 0;

/// Steps in a row that made the server run nothing new before breadth goes first: off by
/// default. At 8 (issue 74's A/B on pretix, Redmine, Wagtail, Datasette) it reached 15-46%
/// more states for the same server lines, and raised 11 failures of 5 kinds to its
/// absence's 17 of 9: breadth took the steps that found them in depth.
const SERVER_DRY_STEPS: u32 = 0;

/// File types a link may point at that are downloads, not pages to explore.
const DOWNLOADS: &[&str] = &[
    "csv", "json", "xml", "txt", "tsv", "pdf", "zip", "gz", "tar", "tgz", "ics", "atom", "rss",
    "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "css", "js", "mjs", "map", "woff", "woff2",
    "mp4", "webm", "mp3",
];

/// The kind of page (`page_pattern`) a click on a same-origin link or a navigation
/// leads to; `None` for any other action.
fn link_kind(page: &Observation, a: &Action) -> Option<String> {
    let href = match a.kind {
        ActionKind::Navigate => a.value.as_deref()?,
        ActionKind::Click => {
            let e = page.element(a.target.as_deref()?)?;
            if e.tag != "a" || e.attrs.contains_key("download") {
                return None;
            }
            e.attr("href")?
        }
        _ => return None,
    };
    let base = Url::parse(&page.url).ok();
    let url = Url::options()
        .base_url(base.as_ref())
        .parse(href.trim())
        .ok()?;
    let same = base.is_none_or(|b| b.origin() == url.origin());
    (same && matches!(url.scheme(), "http" | "https")).then(|| page_pattern(&url))
}

/// The identity of an action: what it does and to what; a navigation also where to.
fn key(a: &Action) -> Action {
    match a.kind {
        ActionKind::Navigate | ActionKind::Spec => a.clone(),
        k if k.value_is_identity() => a.clone(),
        _ => Action {
            value: None,
            ..a.clone()
        },
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Stat {
    tries: u32,
    /// The novelty the action caused, summed over its tries.
    gain: f64,
    /// The state its last try led to.
    led: Option<StateId>,
    /// Its last tries in a row after which the server, read, ran nothing new.
    server_dry: u32,
}

impl Stat {
    fn mean(&self) -> f64 {
        self.gain / f64::from(self.tries.max(1))
    }
}

/// What the workers of a run learn together.
#[derive(Clone, Default)]
struct Mind {
    stats: HashMap<(StateId, Action), Stat>,
    tried_anywhere: HashSet<Action>,
    /// The candidate actions of each state, as last offered.
    offered: HashMap<StateId, Vec<Action>>,
    /// The URL each state was last seen at.
    at: HashMap<StateId, String>,
    /// States in the order first seen.
    found: Vec<StateId>,
    /// Loads of a state's URL that showed another state.
    misses: HashMap<StateId, u32>,
    /// Actions that tried to leave the allowed origins: never taken again.
    external: HashSet<(StateId, Action)>,
    /// Kinds of page shown.
    visited: HashSet<String>,
    /// Links seen and not followed, to kinds of page not shown: (pattern, URL), oldest
    /// first; `queued` holds their patterns.
    frontier: VecDeque<(String, String)>,
    queued: HashSet<String>,
    steps: u64,
    followed: u64,
    returns: u64,
    /// States where, when last shown, a form had values left.
    refill_at: HashSet<StateId>,
    /// Forms filled again because the generator had values left for them, and actions
    /// taken to open such a form.
    refills: u64,
    openings: u64,
    productive: u64,
    /// Actions taken right after a click that changed the page in place.
    paired: u64,
    /// (state, action, action taken right after it in the same state): the pairs of
    /// in-place actions tried, so a click that changed the page is paired anew.
    pairs: HashSet<(StateId, Action, Action)>,
    /// Forms (state, button) whose last submission made the server run new code: filled
    /// again first when their state shows.
    due: HashSet<(StateId, Action)>,
    /// States a step that made the server run new code led to: returns go there first.
    server_led: HashSet<StateId>,
    /// Kinds of page links lead to (`page_pattern`), with the clicks of such links in a
    /// row after which the server, read, ran nothing new.
    link_dry: HashMap<String, u32>,
    /// States whose untried actions, when last shown, were all links of a kind the server
    /// went dry on: returns to work left skip them.
    dry_at: HashSet<StateId>,
    /// Choices among untried actions that passed over such links.
    dry_passed: u64,
    /// The run's last steps in a row after which the server, read, ran nothing new, and
    /// the links to kinds of page never shown taken because of them.
    dry_steps: u32,
    dry_breadth: u64,
    /// Steps after which the server ran new code, and forms filled again for one.
    server_steps: u64,
    variants: u64,
}

fn lock(m: &Mutex<Mind>) -> MutexGuard<'_, Mind> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Mind {
    fn untried<'a>(&self, s: StateId, acts: &'a [Action]) -> Vec<&'a Action> {
        acts.iter()
            .filter(|a| a.kind != ActionKind::Back)
            .filter(|a| {
                let k = key(a);
                !self.external.contains(&(s, k.clone())) && !self.stats.contains_key(&(s, k))
            })
            .collect()
    }

    /// Note the page's kind as shown, and queue the links it offers to kinds not shown;
    /// returns the locators of those links.
    fn harvest(&mut self, page: &Observation, actions: &[Action]) -> Vec<String> {
        let mut here = Vec::new();
        let Ok(base) = Url::parse(&page.url) else {
            return here;
        };
        self.visited.insert(page_pattern(&base));
        let offered: HashSet<&str> = actions
            .iter()
            .filter(|a| a.kind == ActionKind::Click)
            .filter_map(|a| a.target.as_deref())
            .collect();
        for e in &page.elements {
            if e.tag != "a"
                || e.attrs.contains_key("download")
                || !offered.contains(e.locator.as_str())
            {
                continue;
            }
            let Some(url) = e.attr("href").and_then(|h| base.join(h.trim()).ok()) else {
                continue;
            };
            if !matches!(url.scheme(), "http" | "https") || url.origin() != base.origin() {
                continue;
            }
            if extension(url.path()).is_some_and(|x| DOWNLOADS.contains(&x.as_str())) {
                continue;
            }
            let p = page_pattern(&url);
            if self.visited.contains(&p) {
                continue;
            }
            here.push(e.locator.clone());
            if self.queued.insert(p.clone()) {
                self.frontier.push_back((p, url.to_string()));
            }
        }
        here
    }

    /// Whether `a` is a link to a kind of page whose last `clicks` links (or more) made the
    /// server, read, run nothing new: the same controller on another record, most often.
    fn dry_link(&self, page: &Observation, a: &Action, clicks: u32) -> bool {
        clicks > 0
            && link_kind(page, a)
                .and_then(|k| self.link_dry.get(&k))
                .is_some_and(|&n| n >= clicks)
    }

    /// The oldest link still to a kind of page not shown.
    fn next_link(&mut self) -> Option<String> {
        while let Some((p, url)) = self.frontier.pop_front() {
            self.queued.remove(&p);
            if self.visited.insert(p) {
                return Some(url);
            }
        }
        None
    }

    /// The newest state other than `here` with untried actions, its URL and their count;
    /// one a step that made the server run new code led to first.
    fn work_elsewhere(&self, here: StateId) -> Option<(StateId, String, usize)> {
        let work = |&s: &StateId| {
            if s == here || self.misses.get(&s).copied().unwrap_or(0) >= MISSES {
                return None;
            }
            let url = self.at.get(&s)?;
            if !url.starts_with("http") {
                return None;
            }
            let n = self.untried(s, self.offered.get(&s)?).len();
            (n > 0).then(|| (s, url.clone(), n))
        };
        let newest = || self.found.iter().rev().filter(|s| !self.dry_at.contains(s));
        newest()
            .filter(|s| self.server_led.contains(s))
            .find_map(work)
            .or_else(|| newest().find_map(work))
    }
}

/// `guided` (ours, issue 40): actions valued by what they newly caused in the page and
/// on the server, untried ones first.
pub(crate) const KIND: Kind = Kind {
    name: "guided",
    summary: "actions valued by what they newly caused, untried ones first (the default)",
    inputs: "heuristic+mutate",
    model: Model::None,
    settings: Some(Section::of::<GuidedConfig>()),
    episode_steps: |c| read_checked::<GuidedConfig>(c).episode_steps,
    build: |b| {
        let cfg = read::<GuidedConfig>(&b.config.strategy).map_err(StrategyError::Settings)?;
        Ok(Box::new(GuidedAgent::new(cfg, b.inputs)))
    },
};

/// `guided` (ours, issue 40): actions valued by what they newly caused in the page, the
/// untried first, breadth through the links seen and never followed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GuidedConfig {
    /// Steps per episode before a reset, unless `budget.episode_steps` says otherwise. A
    /// failure's trace is at most an episode long: at 400 the demo's one failure kept its
    /// 247 recorded actions, too long to shrink in 24 s (docs/src/strategies.md, "Which
    /// strategy by default").
    pub episode_steps: u32,
    /// Probability of following a link seen and never visited (a kind of page the run has
    /// not shown) while the current state still has untried actions; with none left, a
    /// link is always preferred.
    pub frontier_share: f64,
    /// Exploration weight of the UCB choice among tried actions, once nothing is untried.
    pub ucb: f64,
    /// Steps without anything new (state, script, endpoint, page, functions) and no work
    /// left anywhere known before asking for a reset.
    pub stuck_steps: u32,
    /// Fill the empty fields of a form before clicking its buttons.
    pub fill_forms: bool,
    /// New lines of the server's own code (read where `[server] coverage` is on) worth as
    /// much as a new endpoint in an action's value (docs/src/strategies.md); 0: the
    /// server is no reward (the client's signals alone).
    pub server_lines_per_unit: f64,
    /// Clicks in a row on links to one kind of page (`/issues/<id>`) after which the
    /// server, read, ran nothing new, before the untried links to that kind yield to
    /// other work (untried actions here, then returns elsewhere); 0: never.
    pub dry_link_clicks: u32,
    /// Steps in a row, wherever taken, after which the server, read, ran nothing new
    /// before a link to a kind of page never shown is taken (clicked here, else loaded)
    /// ahead of the untried actions here; 0: never.
    pub server_dry_steps: u32,
}

impl Default for GuidedConfig {
    fn default() -> Self {
        GuidedConfig {
            episode_steps: 100,
            frontier_share: 0.3,
            ucb: 0.5,
            stuck_steps: 40,
            fill_forms: true,
            server_lines_per_unit: SERVER_LINES_PER_UNIT,
            dry_link_clicks: DRY_LINK_CLICKS,
            server_dry_steps: SERVER_DRY_STEPS,
        }
    }
}

impl Settings for GuidedConfig {
    const SECTION: &'static str = "guided";
    fn check(&self) -> Result<(), String> {
        let g = self;
        let checks = [
            (
                g.episode_steps > 0,
                "strategy.guided.episode_steps must be at least 1",
            ),
            (
                (0.0..=1.0).contains(&g.frontier_share),
                "strategy.guided.frontier_share must be in [0, 1]",
            ),
            (
                g.ucb >= 0.0 && g.ucb.is_finite(),
                "strategy.guided.ucb must be 0 or more",
            ),
            (
                g.stuck_steps > 0,
                "strategy.guided.stuck_steps must be at least 1",
            ),
            (
                g.server_lines_per_unit >= 0.0 && g.server_lines_per_unit.is_finite(),
                "strategy.guided.server_lines_per_unit must be 0 or more",
            ),
        ];
        crate::settings::first_wrong(&checks)
    }
}

/// Cloning shares the mind (as workers do); `fork` copies it.
#[derive(Clone)]
pub struct GuidedAgent {
    cfg: GuidedConfig,
    inputs: Box<dyn InputGenerator + Send>,
    mind: Arc<Mutex<Mind>>,
    /// A form being filled before its button.
    plan: Option<Route>,
    /// The state a load of its URL is meant to show.
    returning: Option<StateId>,
    /// This worker's steps, and the last one that brought something new.
    steps: u64,
    last_progress: u64,
    rationale: Option<String>,
    /// The last action, when it left the page in the state it was taken in (a filter
    /// chip, a toggle): the next action in that state makes a pair with it.
    in_place: Option<(StateId, Action)>,
    /// The button that sends the form a value was just typed into alone: pressed next,
    /// since a value the server checks is only tested once the form is sent.
    send: Option<Action>,
    /// A click that changed the page in place, in the state it kept: the next action is
    /// one of the state's never taken right after it (`pairing` while it is taken).
    pair_next: Option<(StateId, Action)>,
    pairing: bool,
}

impl GuidedAgent {
    pub fn new(cfg: GuidedConfig, inputs: Box<dyn InputGenerator + Send>) -> GuidedAgent {
        GuidedAgent {
            cfg,
            inputs,
            mind: Arc::new(Mutex::new(Mind::default())),
            plan: None,
            returning: None,
            steps: 0,
            last_progress: 0,
            rationale: None,
            in_place: None,
            send: None,
            pair_next: None,
            pairing: false,
        }
    }

    fn navigate(&mut self, url: String, why: String) -> Action {
        self.rationale = Some(why);
        Action {
            kind: ActionKind::Navigate,
            target: None,
            value: Some(url),
        }
    }

    /// Take `choice`, filling its form first when it has empty fields.
    fn take(
        &mut self,
        choice: &Action,
        why: String,
        view: &View<'_>,
        rng: &mut ChaCha8Rng,
    ) -> Action {
        let fill = self.cfg.fill_forms;
        let (a, plan, why) = take(choice, why, fill, view, self.inputs.as_mut(), rng);
        if fill && plan.is_none() && matches!(a.kind, ActionKind::Type | ActionKind::Upload) {
            self.send = a
                .target
                .as_deref()
                .and_then(|t| sender(view.observation, t, view.actions))
                .cloned();
        }
        self.plan = plan;
        self.rationale = Some(why);
        a
    }
}

/// What one of guided's rules chose.
enum Pick {
    /// An action of the page (its form filled first, where it has empty fields).
    Take(Action, String),
    /// A URL to load.
    Load(String, String),
    /// Nothing to do here.
    Back,
}

/// The state's untried actions, and how the run's server signals shape the choice
/// among them.
struct Untried<'a> {
    all: Vec<&'a Action>,
    /// Those that are not links to a kind of page the server went dry on.
    live: Vec<&'a Action>,
    /// The server ran nothing new in the run's last `server_dry_steps` steps.
    dry_run: bool,
    /// A link to a kind of page never shown goes first.
    follow: bool,
}

/// guided's rules, in the order `pick` tries them; each returns its choice, or `None`
/// when it does not apply. Draws from `rng` happen in this order, so a seed's run is
/// the same run.
impl GuidedAgent {
    /// Note the state's actions and URL; returns the locators of its links to kinds of
    /// page not shown.
    fn note_state(&mut self, view: &View<'_>) -> Vec<String> {
        let s = view.state();
        let mut mind = lock(&self.mind);
        if mind.offered.insert(s, view.actions.to_vec()).is_none() {
            mind.found.push(s);
        }
        mind.at.insert(s, view.observation.url.clone());
        mind.harvest(view.observation, view.actions)
    }

    /// The next action of a form being filled before its button.
    fn planned(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Option<Action> {
        let plan = self.plan.as_mut()?;
        match plan.next(view) {
            RouteNext::Act(a, why) => {
                if plan.remaining() == 0 {
                    self.plan = None;
                }
                let (a, note) = fill_noted(a, view.observation, self.inputs.as_mut(), rng);
                self.rationale = Some(with_note(why, note));
                Some(a)
            }
            RouteNext::Broken(..) | RouteNext::Done => {
                self.plan = None;
                None
            }
        }
    }

    /// The first rule that applies, with the run's shared mind held throughout.
    fn pick(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng, links_here: &[String]) -> Pick {
        let shared = Arc::clone(&self.mind);
        let mut guard = lock(&shared);
        let mind = &mut *guard;
        if let Some(p) = self.form_due(mind, view) {
            return p;
        }
        if let Some(p) = self.pair_partner(mind, view, rng) {
            return p;
        }
        let untried = self.untried(mind, view, rng);
        if let Some(p) = self.new_kind_of_page(mind, view, rng, &untried, links_here) {
            return p;
        }
        if untried.live.is_empty() {
            if let Some(p) = self.form_left(mind, view, rng) {
                return p;
            }
            if let Some(url) = mind.next_link() {
                mind.followed += 1;
                return Pick::Load(url.clone(), format!("link never followed: {url}"));
            }
        } else {
            return Self::untried_here(mind, rng, &untried);
        }
        if let Some((target, url, n)) = mind.work_elsewhere(view.state()) {
            mind.returns += 1;
            self.returning = Some(target);
            return Pick::Load(url, format!("back to {target}: {n} untried action(s)"));
        }
        if let Some(choice) = untried.all.choose(rng) {
            let why = "untried here, a link to a kind of page the server ran nothing new for";
            return Pick::Take((*choice).clone(), why.into());
        }
        if let Some(p) = Self::opener(mind, view, rng) {
            return p;
        }
        self.best_known(mind, view, rng)
    }

    /// A form whose last submission made the server run new code, again with the next
    /// values.
    fn form_due(&self, mind: &mut Mind, view: &View<'_>) -> Option<Pick> {
        let s = view.state();
        let form = view
            .actions
            .iter()
            .find(|a| {
                let k = (s, key(a));
                mind.due.contains(&k)
                    && mind.stats.get(&k).is_some_and(|st| st.tries < FORM_TRIES)
                    && self.inputs.work_left(view.observation, a)
            })?
            .clone();
        mind.due.remove(&(s, key(&form)));
        mind.variants += 1;
        let why = "the server ran new code for this form: again, with the next values";
        Some(Pick::Take(form, why.into()))
    }

    /// After a click that changed the page in place, a button of the page never taken
    /// right after it: "filter, then act".
    fn pair_partner(
        &mut self,
        mind: &mut Mind,
        view: &View<'_>,
        rng: &mut ChaCha8Rng,
    ) -> Option<Pick> {
        let s = view.state();
        let (_, prev) = self.pair_next.take().filter(|(at, _)| *at == s)?;
        // Buttons of the page, not links away from it.
        let partners: Vec<&Action> = view
            .actions
            .iter()
            .filter(|a| a.kind == ActionKind::Click && key(a) != prev)
            .filter(|a| {
                let link = a
                    .target
                    .as_deref()
                    .and_then(|t| view.observation.element(t))
                    .is_some_and(|e| e.tag == "a" && e.attr("href").is_some());
                !link && !mind.external.contains(&(s, key(a)))
            })
            .filter(|a| !mind.pairs.contains(&(s, prev.clone(), key(a))))
            .collect();
        let choice = (*partners.choose(rng)?).clone();
        mind.paired += 1;
        self.pairing = true;
        let why = format!(
            "{} changed the page in place: never taken right after it",
            prev.describe()
        );
        Some(Pick::Take(choice, why))
    }

    /// The state's untried actions; untried links to a kind of page the server went dry
    /// on wait for other work.
    fn untried<'a>(&self, mind: &mut Mind, view: &View<'a>, rng: &mut ChaCha8Rng) -> Untried<'a> {
        let s = view.state();
        let all = mind.untried(s, view.actions);
        let clicks = self.cfg.dry_link_clicks;
        let live: Vec<&Action> = all
            .iter()
            .copied()
            .filter(|a| !mind.dry_link(view.observation, a, clicks))
            .collect();
        if live.is_empty() && !all.is_empty() {
            mind.dry_at.insert(s);
        } else {
            mind.dry_at.remove(&s);
        }
        let dry_run = self.cfg.server_dry_steps > 0 && mind.dry_steps >= self.cfg.server_dry_steps;
        let follow =
            live.is_empty() || dry_run || rng.gen_bool(self.cfg.frontier_share.clamp(0.0, 1.0));
        Untried {
            all,
            live,
            dry_run,
            follow,
        }
    }

    /// A link to a kind of page never shown: clicked on this page (in a single-page app
    /// that is a route change, where loading its URL boots the whole app again, 3-5 s a
    /// time on Directus); once the server went dry, loaded when none is here.
    fn new_kind_of_page(
        &self,
        mind: &mut Mind,
        view: &View<'_>,
        rng: &mut ChaCha8Rng,
        untried: &Untried<'_>,
        links_here: &[String],
    ) -> Option<Pick> {
        let s = view.state();
        let clickable: Vec<&Action> = view
            .actions
            .iter()
            .filter(|a| a.kind == ActionKind::Click)
            .filter(|a| a.target.as_ref().is_some_and(|t| links_here.contains(t)))
            .filter(|a| !mind.stats.contains_key(&(s, key(a))))
            .collect();
        let dry_steps = mind.dry_steps;
        let dry_why = |what: &str| {
            format!("{what} (the server ran nothing new in the last {dry_steps} steps)")
        };
        if untried.follow && !clickable.is_empty() {
            let choice = (*clickable.choose(rng).expect("a non-empty list")).clone();
            let mut why = "link to a kind of page never shown".to_string();
            if untried.dry_run {
                why = dry_why(&why);
            }
            mind.followed += 1;
            mind.dry_breadth += u64::from(untried.dry_run);
            return Some(Pick::Take(choice, why));
        }
        if untried.dry_run && !untried.live.is_empty() {
            let url = mind.next_link()?;
            mind.followed += 1;
            mind.dry_breadth += 1;
            return Some(Pick::Load(
                url.clone(),
                dry_why(&format!("link never followed: {url}")),
            ));
        }
        None
    }

    /// With nothing live untried here: a form the input generator still has values for
    /// (boundary values for a form that took valid ones). The bugs behind a form want
    /// several fills of it, and nothing else here is new.
    fn form_left(&self, mind: &mut Mind, view: &View<'_>, rng: &mut ChaCha8Rng) -> Option<Pick> {
        let s = view.state();
        let forms: Vec<&Action> = view
            .actions
            .iter()
            .filter(|a| {
                mind.stats
                    .get(&(s, key(a)))
                    .is_some_and(|st| st.tries < FORM_TRIES)
            })
            .filter(|a| {
                // A field's form is as dry as the button that sends it.
                let button = match a.kind {
                    ActionKind::Type | ActionKind::Upload => a
                        .target
                        .as_deref()
                        .and_then(|t| sender(view.observation, t, view.actions)),
                    _ => Some(*a),
                };
                button
                    .and_then(|b| mind.stats.get(&(s, key(b))))
                    .is_none_or(|st| st.server_dry < SERVER_DRY)
            })
            .filter(|a| self.inputs.work_left(view.observation, a))
            .filter(|a| {
                matches!(a.kind, ActionKind::Type | ActionKind::Upload)
                    || !fields_before(view.observation, a).is_empty()
            })
            .collect();
        if forms.is_empty() {
            mind.refill_at.remove(&s);
        } else {
            mind.refill_at.insert(s);
        }
        let choice = (*forms.choose(rng)?).clone();
        mind.refills += 1;
        Some(Pick::Take(choice, "form with values left to try".into()))
    }

    /// An untried action here: one never tried in any state first.
    fn untried_here(mind: &mut Mind, rng: &mut ChaCha8Rng, untried: &Untried<'_>) -> Pick {
        let fresh: Vec<&Action> = untried
            .live
            .iter()
            .copied()
            .filter(|a| !mind.tried_anywhere.contains(&key(a)))
            .collect();
        let (pool, why) = if fresh.is_empty() {
            (&untried.live, "untried here")
        } else {
            (&fresh, "untried anywhere")
        };
        if untried.live.len() < untried.all.len() {
            mind.dry_passed += 1;
        }
        let choice = (*pool.choose(rng).expect("a non-empty pool")).clone();
        Pick::Take(choice, why.to_string())
    }

    /// An action that last led to a state where a form had values left (a button that
    /// opens a composer): the form is often not there until something opens it.
    fn opener(mind: &mut Mind, view: &View<'_>, rng: &mut ChaCha8Rng) -> Option<Pick> {
        let s = view.state();
        let openers: Vec<(&Action, StateId)> = view
            .actions
            .iter()
            .filter_map(|a| {
                let st = mind.stats.get(&(s, key(a)))?;
                let to = st.led?;
                (to != s && st.tries < FORM_TRIES && mind.refill_at.contains(&to))
                    .then_some((a, to))
            })
            .collect();
        let &(choice, to) = openers.choose(rng)?;
        mind.openings += 1;
        let why = format!("opens {to}, a form with values left to try");
        Some(Pick::Take(choice.clone(), why))
    }

    /// Among tried actions, the best by UCB: novelty per try plus an exploration bonus.
    fn best_known(&self, mind: &Mind, view: &View<'_>, rng: &mut ChaCha8Rng) -> Pick {
        let s = view.state();
        let acts: Vec<&Action> = view
            .actions
            .iter()
            .filter(|a| a.kind != ActionKind::Back && !mind.external.contains(&(s, key(a))))
            .collect();
        let total: u32 = acts
            .iter()
            .filter_map(|a| mind.stats.get(&(s, key(a))))
            .map(|st| st.tries)
            .sum();
        let ln = f64::from(total.max(1)).ln();
        let best = acts
            .iter()
            .map(|a| {
                let st = mind.stats.get(&(s, key(a))).copied().unwrap_or_default();
                let n = f64::from(st.tries.max(1));
                // A vanishing jitter breaks ties at random, seeded.
                let score = st.mean() + self.cfg.ucb * (ln / n).sqrt() + rng.gen_range(0.0..1e-9);
                (score, st, *a)
            })
            .max_by(|x, y| x.0.total_cmp(&y.0));
        let Some((_, st, choice)) = best else {
            return Pick::Back;
        };
        let why = format!(
            "best known (novelty {:.2} per try, {} tries)",
            st.mean(),
            st.tries
        );
        Pick::Take(choice.clone(), why)
    }
}

impl Agent for GuidedAgent {
    fn name(&self) -> &str {
        "guided"
    }

    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        let mut copy = self.clone();
        copy.mind = Arc::new(Mutex::new(lock(&self.mind).clone()));
        Some(Box::new(copy))
    }

    fn worker(&self) -> Option<Box<dyn Agent + Send>> {
        let agent = GuidedAgent::new(self.cfg.clone(), self.inputs.fork());
        Some(Box::new(agent.sharing(self.mind.clone())))
    }

    fn wants_reset(&mut self, view: &View<'_>) -> bool {
        if self.plan.is_some() || self.steps - self.last_progress < u64::from(self.cfg.stuck_steps)
        {
            return false;
        }
        let s = view.state();
        let mind = lock(&self.mind);
        let stuck = mind.untried(s, view.actions).is_empty()
            && mind.frontier.iter().all(|(p, _)| mind.visited.contains(p))
            && mind.work_elsewhere(s).is_none();
        drop(mind);
        if stuck {
            self.last_progress = self.steps;
            self.rationale = Some(format!(
                "reset: {} steps without anything new and no work left",
                self.cfg.stuck_steps
            ));
        }
        stuck
    }

    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let links_here = self.note_state(view);
        if let Some(a) = self.planned(view, rng) {
            return a;
        }
        if let Some(button) = self.send.take().filter(|b| view.actions.contains(b)) {
            return self.take(&button, "send the value typed".into(), view, rng);
        }
        match self.pick(view, rng, &links_here) {
            Pick::Take(a, why) => self.take(&a, why, view, rng),
            Pick::Load(url, why) => self.navigate(url, why),
            Pick::Back => {
                self.rationale = Some("nothing to do here: back".into());
                Action::back()
            }
        }
    }

    fn learn(&mut self, t: &Transition<'_>) {
        self.steps += 1;
        crate::fill::teach(self.inputs.as_mut(), t);
        let per_unit = self.cfg.server_lines_per_unit;
        let gain = t.novelty.score_with_server(per_unit) + if t.new_state { 0.5 } else { 0.0 };
        // What the server ran for the step, where it was read and counts.
        let server = t.novelty.server_lines.filter(|_| per_unit > 0.0);
        if gain > 0.0 {
            self.last_progress = self.steps;
        }
        let k = key(t.action);
        let mut mind = lock(&self.mind);
        mind.steps += 1;
        if let Some(target) = self.returning.take() {
            if t.next_state != target {
                *mind.misses.entry(target).or_insert(0) += 1;
            }
        }
        if t.events
            .iter()
            .any(|e| e.kind == EventKind::ExternalNavigation)
        {
            mind.external.insert((t.state, k.clone()));
        }
        if gain > 0.0 {
            mind.productive += 1;
        }
        if let Some((at, prev)) = self.in_place.take() {
            if at == t.state {
                mind.pairs.insert((at, prev, k.clone()));
            }
        }
        let st = mind.stats.entry((t.state, k.clone())).or_default();
        st.tries += 1;
        st.gain += gain;
        st.led = Some(t.next_state);
        if let Some(lines) = server {
            st.server_dry = if lines > 0 { 0 } else { st.server_dry + 1 };
            mind.dry_steps = if lines > 0 { 0 } else { mind.dry_steps + 1 };
            if let Some(kind) = link_kind(t.observation, t.action) {
                let dry = mind.link_dry.entry(kind).or_insert(0);
                *dry = if lines > 0 { 0 } else { *dry + 1 };
            }
        }
        if server.is_some_and(|lines| lines > 0) {
            mind.server_steps += 1;
            mind.server_led.insert(t.next_state);
            // A submission the server answered with new code: the form again, next time.
            if !t.failed && !form_fields(t.observation, t.action).is_empty() {
                mind.due.insert((t.state, k.clone()));
            }
        }
        mind.tried_anywhere.insert(k.clone());
        let stays = t.next_state == t.state && !t.failed && t.action.kind != ActionKind::Navigate;
        // A click that changed the page without leaving its state (a filter chip, a
        // toggle) is followed by an action of the state never taken right after it; a
        // pair step does not call for another, so at most every other step is one.
        self.pair_next = (stays
            && !std::mem::take(&mut self.pairing)
            && t.action.kind == ActionKind::Click
            && t.observation.html != t.next_observation.html)
            .then(|| (t.state, k.clone()));
        if stays {
            self.in_place = Some((t.state, k));
        }
    }

    fn on_episode_end(&mut self) {
        self.plan = None;
        self.returning = None;
        self.in_place = None;
        self.send = None;
        self.pair_next = None;
        self.pairing = false;
    }

    fn rationale(&self) -> Option<String> {
        self.rationale.clone()
    }

    fn snapshot(&self) -> Option<StrategySnapshot> {
        let mind = lock(&self.mind);
        let mut rows: Vec<(&(StateId, Action), &Stat)> =
            mind.stats.iter().filter(|(_, st)| st.gain > 0.0).collect();
        rows.sort_by(|a, b| b.1.gain.total_cmp(&a.1.gain).then_with(|| a.0.cmp(b.0)));
        let rows = rows
            .into_iter()
            .map(|((s, a), st)| {
                vec![
                    s.to_string(),
                    a.describe(),
                    st.tries.to_string(),
                    format!("{:.2}", st.gain),
                ]
            })
            .collect();
        let left: Vec<Vec<String>> = mind
            .frontier
            .iter()
            .filter(|(p, _)| !mind.visited.contains(p))
            .map(|(_, url)| vec![url.clone()])
            .collect();
        Some(StrategySnapshot {
            strategy: "guided".into(),
            counters: vec![
                ("steps learned".into(), mind.steps),
                ("steps that brought something new".into(), mind.productive),
                ("actions tried".into(), mind.stats.len() as u64),
                ("kinds of page shown".into(), mind.visited.len() as u64),
                ("links followed".into(), mind.followed),
                ("links left".into(), left.len() as u64),
                ("returns to work left".into(), mind.returns),
                ("forms filled again for values left".into(), mind.refills),
                ("forms opened again for values left".into(), mind.openings),
                ("actions right after an in-place change".into(), mind.paired),
                (
                    "steps that made the server run new code".into(),
                    mind.server_steps,
                ),
                (
                    "forms filled again after a new server branch".into(),
                    mind.variants,
                ),
                (
                    "untried choices that passed over links the server went dry on".into(),
                    mind.dry_passed,
                ),
                (
                    "links to new kinds of page taken as the server went dry".into(),
                    mind.dry_breadth,
                ),
                ("external actions".into(), mind.external.len() as u64),
            ],
            tables: vec![
                capped(
                    "actions that opened something (most first)",
                    &["state", "action", "tries", "novelty"],
                    rows,
                ),
                capped("links not followed yet", &["URL"], left),
            ],
        })
    }
}

impl GuidedAgent {
    /// This agent, learning into `mind` (another worker's).
    fn sharing(mut self, mind: Arc<Mutex<Mind>>) -> GuidedAgent {
        self.mind = mind;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use wayfarer_core::{Analysis, Element, Event, Novelty};

    use crate::testing::Fixed;

    fn agent() -> GuidedAgent {
        GuidedAgent::new(
            GuidedConfig {
                frontier_share: 0.0,
                ..GuidedConfig::default()
            },
            Box::new(Fixed),
        )
    }

    fn click(t: &str) -> Action {
        Action::on(ActionKind::Click, t)
    }

    fn link(loc: &str, href: &str) -> Element {
        let mut e = Element {
            locator: loc.into(),
            tag: "a".into(),
            actionable: vec!["tag:a".into()],
            visible: true,
            enabled: true,
            ..Element::default()
        };
        e.attrs.insert("href".into(), href.into());
        e
    }

    fn page(url: &str, elements: Vec<Element>) -> Observation {
        Observation {
            url: url.into(),
            elements,
            ..Observation::default()
        }
    }

    fn choose(
        ag: &mut GuidedAgent,
        s: u64,
        obs: &Observation,
        acts: &[Action],
        rng: &mut ChaCha8Rng,
    ) -> Action {
        let an = Analysis::new(StateId(s), obs.url.clone());
        let view = View {
            observation: obs,
            analysis: &an,
            actions: acts,
            episode_step: 1,
        };
        ag.choose(&view, rng)
    }

    fn learn(ag: &mut GuidedAgent, s: u64, a: &Action, n: u64, novelty: Novelty, events: &[Event]) {
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
            novelty,
        });
    }

    #[test]
    fn every_action_is_tried_once_before_any_twice() {
        let mut ag = agent();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let obs = page("http://h/", vec![]);
        let acts: Vec<Action> = (0..6).map(|i| click(&format!("#b{i}"))).collect();
        let mut seen = HashSet::new();
        for _ in 0..6 {
            let a = choose(&mut ag, 1, &obs, &acts, &mut rng);
            assert!(seen.insert(a.clone()), "{a:?} twice");
            learn(&mut ag, 1, &a, 1, Novelty::default(), &[]);
        }
        assert_eq!(seen.len(), 6);
    }

    #[test]
    fn once_all_are_tried_the_one_that_opened_something_is_preferred() {
        let mut ag = agent();
        ag.cfg.ucb = 0.1;
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let obs = page("http://h/", vec![]);
        let acts = vec![click("#a"), click("#b"), click("#c")];
        for a in &acts {
            let n = if a == &acts[1] {
                Novelty {
                    scripts: 2,
                    ..Novelty::default()
                }
            } else {
                Novelty::default()
            };
            learn(&mut ag, 1, a, 1, n, &[]);
        }
        let picks: Vec<Action> = (0..5)
            .map(|_| {
                let a = choose(&mut ag, 1, &obs, &acts, &mut rng);
                learn(&mut ag, 1, &a, 1, Novelty::default(), &[]);
                a
            })
            .collect();
        assert_eq!(
            picks.iter().filter(|a| **a == acts[1]).count(),
            5,
            "{picks:?}"
        );
        assert!(ag.rationale().unwrap().starts_with("best known"));
    }

    #[test]
    fn links_to_pages_never_shown_are_followed_once_per_kind_of_page() {
        let mut ag = agent();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let obs = page(
            "http://h/home",
            vec![
                link("#i1", "/issues/1"),
                link("#i2", "/issues/2"),
                link("#ext", "http://elsewhere/x"),
                link("#csv", "/export.csv"),
                link("#home", "#top"),
                link("#denied", "/admin/logout"),
            ],
        );
        // The loop did not offer #denied (a deny rule): its link is not followed.
        let acts = vec![
            click("#i1"),
            click("#i2"),
            click("#ext"),
            click("#csv"),
            click("#home"),
        ];
        for a in &acts {
            learn(&mut ag, 1, a, 1, Novelty::default(), &[]);
        }
        let first = choose(&mut ag, 1, &obs, &acts, &mut rng);
        assert_eq!(first.kind, ActionKind::Navigate);
        assert_eq!(first.value.as_deref(), Some("http://h/issues/1"));
        learn(&mut ag, 1, &first, 2, Novelty::default(), &[]);
        // /issues/2 is the same kind of page: nothing else is left to follow or to try.
        let next = choose(&mut ag, 1, &obs, &acts, &mut rng);
        assert_ne!(next.kind, ActionKind::Navigate, "{next:?}");
        assert!(ag.rationale().unwrap().starts_with("best known"));
    }

    #[test]
    fn a_link_on_the_page_is_clicked_rather_than_loaded() {
        let mut ag = agent();
        ag.cfg.frontier_share = 1.0;
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let obs = page(
            "http://h/admin/content",
            vec![
                link("#users", "/admin/users"),
                link("#self", "/admin/content"),
            ],
        );
        let acts = vec![click("#users"), click("#self"), click("#button")];
        let a = choose(&mut ag, 1, &obs, &acts, &mut rng);
        assert_eq!(a, click("#users"), "{:?}", ag.rationale());
        assert!(ag.rationale().unwrap().contains("never shown"));
        learn(&mut ag, 1, &a, 1, Novelty::default(), &[]);
        // Clicked once here (a route that did not change the page): not again.
        let b = choose(&mut ag, 1, &obs, &acts, &mut rng);
        assert_ne!(b, click("#users"));
        assert_ne!(
            b.kind,
            ActionKind::Navigate,
            "untried actions are left here"
        );
    }

    #[test]
    fn with_nothing_left_here_it_loads_a_state_that_has_work() {
        let mut ag = agent();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let list = page("http://h/list", vec![]);
        let list_acts = vec![click("#x"), click("#y")];
        let first = choose(&mut ag, 1, &list, &list_acts, &mut rng);
        learn(&mut ag, 1, &first, 2, Novelty::default(), &[]);
        let detail = page("http://h/detail", vec![]);
        let detail_acts = vec![click("#z")];
        let a = choose(&mut ag, 2, &detail, &detail_acts, &mut rng);
        learn(&mut ag, 2, &a, 2, Novelty::default(), &[]);
        let back = choose(&mut ag, 2, &detail, &detail_acts, &mut rng);
        assert_eq!(back.kind, ActionKind::Navigate);
        assert_eq!(back.value.as_deref(), Some("http://h/list"));
        // The load showed another state twice: returns to state 1 stop.
        learn(&mut ag, 2, &back, 3, Novelty::default(), &[]);
        let again = choose(&mut ag, 2, &detail, &detail_acts, &mut rng);
        assert_eq!(again.kind, ActionKind::Navigate);
        learn(&mut ag, 2, &again, 3, Novelty::default(), &[]);
        let last = choose(&mut ag, 2, &detail, &detail_acts, &mut rng);
        assert_eq!(last, click("#z"), "{:?}", ag.rationale());
    }

    #[test]
    fn an_action_that_left_the_allowed_origins_is_not_taken_again() {
        let mut ag = agent();
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let obs = page("http://h/", vec![]);
        let acts = vec![click("#out"), click("#in")];
        let ext = [Event::new(EventKind::ExternalNavigation, "blocked")];
        learn(&mut ag, 1, &acts[0], 1, Novelty::default(), &ext);
        learn(&mut ag, 1, &acts[1], 1, Novelty::default(), &[]);
        for _ in 0..10 {
            assert_eq!(choose(&mut ag, 1, &obs, &acts, &mut rng), acts[1]);
        }
    }

    #[test]
    fn a_reset_is_asked_only_when_stuck_with_no_work_left() {
        let mut ag = agent();
        ag.cfg.stuck_steps = 3;
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let obs = page("http://h/", vec![]);
        let acts = vec![click("#a"), click("#b")];
        let an = Analysis::new(StateId(1), obs.url.clone());
        let view = View {
            observation: &obs,
            analysis: &an,
            actions: &acts,
            episode_step: 1,
        };
        for _ in 0..3 {
            let a = ag.choose(&view, &mut rng);
            learn(&mut ag, 1, &a, 1, Novelty::default(), &[]);
        }
        assert!(ag.wants_reset(&view));
        // Counting starts again after the reset.
        assert!(!ag.wants_reset(&view));
        // Something new keeps the episode going.
        let mut fresh = agent();
        fresh.cfg.stuck_steps = 3;
        for _ in 0..3 {
            let a = fresh.choose(&view, &mut rng);
            learn(
                &mut fresh,
                1,
                &a,
                1,
                Novelty {
                    functions: 5,
                    ..Novelty::default()
                },
                &[],
            );
        }
        assert!(!fresh.wants_reset(&view));
    }

    /// Says it has values left for every form, as the mutate layer does for a form that
    /// took valid values.
    struct Pending;

    impl InputGenerator for Pending {
        fn fork(&self) -> Box<dyn InputGenerator + Send> {
            Box::new(Pending)
        }
        fn name(&self) -> &str {
            "pending"
        }
        fn text_for(&mut self, _: &Element, _: &Observation, _: &mut ChaCha8Rng) -> String {
            "y".into()
        }
        fn work_left(&self, _: &Observation, _: &Action) -> bool {
            true
        }
    }

    /// A page with a one-field form (`#title`, `#save`) and a plain button.
    fn composer() -> (Observation, Vec<Action>) {
        let field = |loc: &str, tag: &str, ty: &str| Element {
            locator: loc.into(),
            tag: tag.into(),
            input_type: Some(ty.into()),
            form: Some("#f".into()),
            actionable: vec![format!("tag:{tag}")],
            visible: true,
            enabled: true,
            ..Element::default()
        };
        let obs = page(
            "http://h/board",
            vec![
                field("#title", "input", "text"),
                field("#save", "button", "submit"),
            ],
        );
        let acts = vec![
            Action::on(ActionKind::Type, "#title"),
            click("#save"),
            click("#other"),
        ];
        (obs, acts)
    }

    #[test]
    fn a_click_that_changed_the_page_in_place_is_followed_by_a_button_of_the_state() {
        let btn = |loc: &str| Element {
            locator: loc.into(),
            tag: "button".into(),
            actionable: vec!["tag:button".into()],
            visible: true,
            enabled: true,
            ..Element::default()
        };
        let before = Observation {
            html: "<div class=\"chip\">cardiology</div>".into(),
            ..page(
                "http://h/vets",
                vec![btn("#chip"), btn("#contact"), link("#home", "/")],
            )
        };
        let after = Observation {
            html: "<div class=\"chip selected\">cardiology</div>".into(),
            ..before.clone()
        };
        let acts = vec![click("#chip"), click("#contact"), click("#home")];
        let step = |ag: &mut GuidedAgent, a: &Action, next: &Observation| {
            ag.learn(&Transition {
                state: StateId(1),
                observation: &before,
                action: a,
                next_state: StateId(1),
                next_observation: next,
                events: &[],
                new_state: false,
                failed: false,
                novelty: Novelty::default(),
            });
        };
        for seed in 0..10 {
            let mut ag = agent();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            // Tried once each, the chip never right before the contact button.
            for a in [&acts[1], &acts[0], &acts[2]] {
                step(&mut ag, a, &before);
            }
            // The chip changed the page: the contact button comes next, never the link.
            step(&mut ag, &acts[0], &after);
            assert_eq!(choose(&mut ag, 1, &before, &acts, &mut rng), acts[1]);
            assert!(ag
                .rationale()
                .unwrap()
                .contains("changed the page in place"));
            // That pair is taken; a click that changed nothing calls for no pair.
            step(&mut ag, &acts[1], &after);
            step(&mut ag, &acts[0], &before);
            choose(&mut ag, 1, &before, &acts, &mut rng);
            assert!(!ag
                .rationale()
                .unwrap()
                .contains("changed the page in place"));
        }
    }

    #[test]
    fn a_value_typed_alone_is_sent_by_its_forms_button_next() {
        let (obs, acts) = composer();
        let mut sent = 0;
        for seed in 0..20 {
            let mut ag = agent();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let first = choose(&mut ag, 1, &obs, &acts, &mut rng);
            let alone = first.kind == ActionKind::Type && ag.plan.is_none();
            learn(&mut ag, 1, &first, 1, Novelty::default(), &[]);
            // The page shows what was typed.
            let mut typed = obs.clone();
            typed.elements[0].attrs.insert("value".into(), "x".into());
            let next = choose(&mut ag, 1, &typed, &acts, &mut rng);
            if alone {
                sent += 1;
                assert_eq!(next, acts[1], "seed {seed}");
                assert_eq!(ag.rationale().as_deref(), Some("send the value typed"));
            } else {
                assert_ne!(ag.rationale().as_deref(), Some("send the value typed"));
            }
        }
        assert!(sent > 0, "no seed typed alone first");
    }

    #[test]
    fn a_form_the_generator_has_values_left_for_is_filled_again() {
        let (obs, acts) = composer();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut ag = GuidedAgent::new(
            GuidedConfig {
                frontier_share: 0.0,
                ..GuidedConfig::default()
            },
            Box::new(Pending),
        );
        for a in &acts {
            learn(&mut ag, 1, a, 1, Novelty::default(), &[]);
        }
        // Nothing untried here: the form is filled, then its button pressed.
        let fill = choose(&mut ag, 1, &obs, &acts, &mut rng);
        assert_eq!(fill, Action::on(ActionKind::Type, "#title").with_value("y"));
        assert!(ag.rationale().unwrap().contains("values left"));
        let press = choose(&mut ag, 1, &obs, &acts, &mut rng);
        assert_eq!(press, click("#save"));
        // The generator saying so is not enough: a bound of our own ends it.
        for _ in 0..FORM_TRIES {
            learn(&mut ag, 1, &click("#save"), 1, Novelty::default(), &[]);
            learn(&mut ag, 1, &acts[0], 1, Novelty::default(), &[]);
        }
        let after = choose(&mut ag, 1, &obs, &acts, &mut rng);
        assert!(
            !ag.rationale().unwrap().contains("values left"),
            "{after:?}"
        );
        // A generator with nothing left (the default) leaves the form to UCB.
        let mut plain = agent();
        for a in &acts {
            learn(&mut plain, 1, a, 1, Novelty::default(), &[]);
        }
        choose(&mut plain, 1, &obs, &acts, &mut rng);
        assert!(plain.rationale().unwrap().starts_with("best known"));
    }

    /// `learn`, on the page `obs` (forms' fields are read off it), with what the server
    /// ran for the step.
    fn learn_on(
        ag: &mut GuidedAgent,
        s: u64,
        obs: &Observation,
        a: &Action,
        n: u64,
        server: Option<u64>,
    ) {
        ag.learn(&Transition {
            state: StateId(s),
            observation: obs,
            action: a,
            next_state: StateId(n),
            next_observation: obs,
            events: &[],
            new_state: false,
            failed: false,
            novelty: Novelty {
                server_lines: server,
                ..Novelty::default()
            },
        });
    }

    fn pending(cfg: GuidedConfig) -> GuidedAgent {
        GuidedAgent::new(
            GuidedConfig {
                frontier_share: 0.0,
                ..cfg
            },
            Box::new(Pending),
        )
    }

    #[test]
    fn server_lines_count_in_an_actions_value_unless_turned_off() {
        let obs = page("http://h/", vec![]);
        let gain = |per_unit: f64, server: Option<u64>| {
            let mut ag = pending(GuidedConfig {
                server_lines_per_unit: per_unit,
                ..GuidedConfig::default()
            });
            learn_on(&mut ag, 1, &obs, &click("#a"), 1, server);
            let mind = lock(&ag.mind);
            mind.stats[&(StateId(1), click("#a"))].gain
        };
        assert!(
            (gain(60.0, Some(60))
                - Novelty {
                    endpoints: 1,
                    ..Novelty::default()
                }
                .score())
            .abs()
                < 1e-12
        );
        assert_eq!(gain(60.0, Some(0)), 0.0);
        assert_eq!(gain(60.0, None), 0.0);
        assert_eq!(gain(0.0, Some(60)), 0.0);
    }

    #[test]
    fn a_form_the_server_answered_with_new_code_is_filled_again_first() {
        let (obs, acts) = composer();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut ag = pending(GuidedConfig::default());
        learn_on(&mut ag, 1, &obs, &acts[0], 1, Some(0));
        learn_on(&mut ag, 1, &obs, &acts[1], 2, Some(30));
        // `#other` is untried, and the form comes first: filled, then sent.
        let fill = choose(&mut ag, 1, &obs, &acts, &mut rng);
        assert_eq!(fill, Action::on(ActionKind::Type, "#title").with_value("y"));
        assert!(ag
            .rationale()
            .unwrap()
            .starts_with("the server ran new code"));
        assert_eq!(choose(&mut ag, 1, &obs, &acts, &mut rng), click("#save"));
        // The same path again: nothing new on the server, the untried button.
        learn_on(&mut ag, 1, &obs, &acts[1], 1, Some(0));
        assert_eq!(choose(&mut ag, 1, &obs, &acts, &mut rng), click("#other"));
        // Where the server is not read (or is no reward), no variant.
        for (per_unit, server) in [(60.0, None), (0.0, Some(30))] {
            let mut ag = pending(GuidedConfig {
                server_lines_per_unit: per_unit,
                ..GuidedConfig::default()
            });
            learn_on(&mut ag, 1, &obs, &acts[0], 1, server);
            learn_on(&mut ag, 1, &obs, &acts[1], 2, server);
            assert_eq!(choose(&mut ag, 1, &obs, &acts, &mut rng), click("#other"));
        }
    }

    #[test]
    fn a_form_the_server_ran_nothing_new_for_is_not_filled_again() {
        let (obs, acts) = composer();
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let mut ag = pending(GuidedConfig::default());
        learn_on(&mut ag, 1, &obs, &acts[0], 1, Some(0));
        learn_on(&mut ag, 1, &obs, &acts[2], 1, Some(0));
        for i in 0..SERVER_DRY {
            learn_on(&mut ag, 1, &obs, &acts[1], 1, Some(0));
            if i + 1 < SERVER_DRY {
                choose(&mut ag, 1, &obs, &acts, &mut rng);
                let why = ag.rationale().unwrap();
                assert!(why.contains("values left"), "{why}");
                (ag.plan, ag.send) = (None, None);
            }
        }
        choose(&mut ag, 1, &obs, &acts, &mut rng);
        assert!(
            !ag.rationale().unwrap().contains("values left"),
            "{:?}",
            ag.rationale()
        );
    }

    #[test]
    fn returns_go_first_to_a_state_a_new_server_branch_led_to() {
        let back_to = |per_unit: f64| {
            let mut rng = ChaCha8Rng::seed_from_u64(13);
            let mut ag = pending(GuidedConfig {
                server_lines_per_unit: per_unit,
                ..GuidedConfig::default()
            });
            let list = page("http://h/list", vec![]);
            let detail = page("http://h/detail", vec![]);
            let end = page("http://h/end", vec![]);
            // A step elsewhere that made the server run new code showed the list.
            learn_on(&mut ag, 9, &end, &click("#go"), 1, Some(50));
            choose(&mut ag, 1, &list, &[click("#x"), click("#y")], &mut rng);
            choose(&mut ag, 2, &detail, &[click("#z"), click("#w")], &mut rng);
            learn_on(&mut ag, 3, &end, &click("#q"), 3, Some(0));
            let a = choose(&mut ag, 3, &end, &[click("#q")], &mut rng);
            assert_eq!(a.kind, ActionKind::Navigate, "{:?}", ag.rationale());
            a.value.unwrap()
        };
        assert_eq!(back_to(60.0), "http://h/list");
        // Without the server, the newest state with work left.
        assert_eq!(back_to(0.0), "http://h/detail");
    }

    /// A list of five issues and a button, where clicks on two issue links in a row made
    /// the server run `lines` new lines each: the next two choices (the first learned),
    /// and why the second.
    fn after_two_issue_links(
        cfg: &GuidedConfig,
        lines: Option<u64>,
        seed: u64,
    ) -> (Vec<Action>, String) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut ag = pending(cfg.clone());
        let mut els: Vec<Element> = (1..=5)
            .map(|i| link(&format!("#i{i}"), &format!("/issues/{i}")))
            .collect();
        els.push(Element {
            locator: "#b".into(),
            tag: "button".into(),
            ..Element::default()
        });
        let list = page("http://h/issues", els);
        let acts: Vec<Action> = ["#i1", "#i2", "#i3", "#i4", "#i5", "#b"]
            .iter()
            .map(|t| click(t))
            .collect();
        choose(&mut ag, 1, &list, &acts, &mut rng);
        for (i, n) in [(0, 2), (1, 3)] {
            learn_on(&mut ag, 1, &list, &acts[i], n, lines);
            let issue = page(&format!("http://h/issues/{}", i + 1), vec![]);
            choose(&mut ag, n, &issue, &[], &mut rng);
        }
        let first = choose(&mut ag, 1, &list, &acts, &mut rng);
        learn_on(&mut ag, 1, &list, &first, 1, lines);
        let second = choose(&mut ag, 1, &list, &acts, &mut rng);
        (vec![first, second], ag.rationale().unwrap_or_default())
    }

    #[test]
    fn untried_links_to_a_kind_of_page_the_server_went_dry_on_wait() {
        let base = GuidedConfig {
            dry_link_clicks: 2,
            ..GuidedConfig::default()
        };
        // Two issues opened, nothing new on the server: the button first, and only with
        // nothing else left here or elsewhere, another issue.
        for seed in 0..8 {
            let (chosen, why) = after_two_issue_links(&base, Some(0), seed);
            assert_eq!(chosen[0], click("#b"), "seed {seed}");
            assert!(chosen[1].target.as_deref().unwrap().starts_with("#i"));
            assert!(why.contains("ran nothing new"), "{why}");
        }
        // One that ran new code keeps the kind live; so does a server not read, a server
        // that is no reward, and the setting at 0: the issues are then as likely as the
        // button to come first.
        let an_issue_first = |cfg: &GuidedConfig, lines| {
            (0..8).any(|seed| after_two_issue_links(cfg, lines, seed).0[0] != click("#b"))
        };
        assert!(an_issue_first(&base, Some(40)));
        assert!(an_issue_first(&base, None));
        let no_reward = GuidedConfig {
            server_lines_per_unit: 0.0,
            ..base.clone()
        };
        assert!(an_issue_first(&no_reward, Some(0)));
        let never = GuidedConfig {
            dry_link_clicks: 0,
            ..base
        };
        assert!(an_issue_first(&never, Some(0)));
    }

    /// A home page with a link to a kind of page never shown, then `steps` steps
    /// elsewhere after which the server ran `lines` new lines each: the next choice on a
    /// page with three untried buttons.
    fn after_steps_elsewhere(cfg: &GuidedConfig, steps: u32, lines: Option<u64>) -> Action {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut ag = pending(cfg.clone());
        let home = page("http://h/", vec![link("#far", "/reports")]);
        choose(&mut ag, 1, &home, &[click("#far")], &mut rng);
        let end = page("http://h/end", vec![]);
        for i in 0..steps {
            learn_on(&mut ag, 9, &end, &click(&format!("#e{i}")), 9, lines);
        }
        let list = page("http://h/list", vec![]);
        let acts = [click("#b1"), click("#b2"), click("#b3")];
        choose(&mut ag, 2, &list, &acts, &mut rng)
    }

    #[test]
    fn after_steps_that_ran_nothing_new_on_the_server_breadth_goes_first() {
        const DRY: u32 = 8;
        let base = GuidedConfig {
            server_dry_steps: DRY,
            ..GuidedConfig::default()
        };
        let far = after_steps_elsewhere(&base, DRY, Some(0));
        assert_eq!(far.kind, ActionKind::Navigate);
        assert_eq!(far.value.as_deref(), Some("http://h/reports"));
        // One step fewer, a server that ran new code, one not read, or the rule off: the
        // untried buttons here come first.
        let never = GuidedConfig {
            server_dry_steps: 0,
            ..base.clone()
        };
        for (cfg, steps, lines) in [
            (&base, DRY - 1, Some(0)),
            (&base, DRY, Some(12)),
            (&base, DRY, None),
            (&never, DRY, Some(0)),
        ] {
            let a = after_steps_elsewhere(cfg, steps, lines);
            assert!(a.target.as_deref().unwrap().starts_with("#b"), "{a:?}");
        }
    }

    #[test]
    fn the_action_that_opened_such_a_form_is_taken_again() {
        let (composer, composer_acts) = composer();
        let board = page("http://h/board", vec![]);
        let board_acts = vec![click("#open"), click("#x")];
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let mut ag = GuidedAgent::new(GuidedConfig::default(), Box::new(Pending));
        ag.cfg.frontier_share = 0.0;
        learn(&mut ag, 1, &board_acts[0], 2, Novelty::default(), &[]);
        learn(&mut ag, 1, &board_acts[1], 1, Novelty::default(), &[]);
        // Nothing known to hold values left yet: the board's best known action.
        choose(&mut ag, 1, &board, &board_acts, &mut rng);
        assert!(ag.rationale().unwrap().starts_with("best known"));
        for a in &composer_acts {
            learn(&mut ag, 2, a, 2, Novelty::default(), &[]);
        }
        choose(&mut ag, 2, &composer, &composer_acts, &mut rng);
        assert!(ag.rationale().unwrap().contains("values left"));
        ag.plan = None;
        // Back on the board, the composer is closed: what opened it is taken again.
        let open = choose(&mut ag, 1, &board, &board_acts, &mut rng);
        assert_eq!(open, board_acts[0], "{:?}", ag.rationale());
        assert!(ag.rationale().unwrap().starts_with("opens s2"));
    }

    #[test]
    fn workers_share_the_frontier() {
        let mut one = agent();
        let mut two = one.worker().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let obs = page("http://h/", vec![link("#a", "/a"), link("#b", "/b")]);
        let acts = vec![click("#a"), click("#b")];
        for a in &acts {
            learn(&mut one, 1, a, 1, Novelty::default(), &[]);
        }
        let x = choose(&mut one, 1, &obs, &acts, &mut rng);
        let an = Analysis::new(StateId(1), obs.url.clone());
        let view = View {
            observation: &obs,
            analysis: &an,
            actions: &acts,
            episode_step: 1,
        };
        let y = two.choose(&view, &mut rng);
        assert_eq!(x.kind, ActionKind::Navigate);
        assert_eq!(y.kind, ActionKind::Navigate);
        assert_ne!(x.value, y.value);
        assert_eq!(two.name(), "guided");
    }
}
