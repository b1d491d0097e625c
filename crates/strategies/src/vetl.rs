//! `vetl` and its variants (paper 000; DESIGN 7.5). On a page with empty fields, a value
//! for each (from the input generator: VETL's prompt to a model, or the heuristic) and its
//! "interested element", the button that should follow it: asked of a vision model over the
//! annotated screenshot, or the nearest button in the DOM tree. A multi-armed bandit picks
//! the target: with probability epsilon uniformly among all candidates, otherwise among the
//! interested elements by softmax of Q, where Q is the running mean of the reward "elements
//! never seen before in the session" on the page the target led to.
//!
//! The paper types every value before the bandit picks; by default (`target_first`) the
//! bandit picks first and only the fields its target sends are typed before it: most of
//! the paper's typing was never sent (docs/src/inputs.md, "vetl-h against webexplor").
//!
//! Variants: `vetl` (vision model for values and elements), `vetl-v1` (vision for values,
//! nearest button), `vetl-lv` (text model for values, vision for elements), `vetl-l` (text
//! model, nearest button), `vetl-h` (the heuristic provider, nearest button: no model).
//!
//! With several workers: the workers' agents share the bandit behind one lock: Q and the
//! count of every arm (a target on a page path), the elements seen in the session (so a
//! page one worker already saw rewards no other), and the snapshot's counters. Rewards
//! merge into the running mean of their arm as each worker's transition arrives. Each
//! worker keeps the plan of the page it is on: the values planned and queued, the target
//! chosen before its fields, the interested elements (the answers for the fields this
//! worker typed here, asked again on every arrival on a page, as one worker does), the
//! fields typed, the refusals of its episode, the arm waiting for its reward, its
//! rationale and its input generator (a fork). The model client is one for the run.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::settings::{read, read_checked, Section, Settings};
use wayfarer_core::forms;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{
    Action, ActionKind, Agent, Element, Observation, Rect, StrategySnapshot, Transition, View,
};
use wayfarer_inputs::mutate::judge::route;
use wayfarer_llm::annotate::annotate;
use wayfarer_llm::prompt::Prompts;
use wayfarer_llm::{distance, nearest, Request, SharedClient, Task};

use crate::fill::{fill_noted, with_note};
use crate::registry::{Build, Kind, Model};
use crate::snapshot::capped;
use crate::StrategyError;

/// `vetl` (DESIGN 7.5) and its variants: every empty field filled from its context, a
/// bandit over the targets.
pub(crate) const VETL: Kind = Kind {
    name: "vetl",
    summary:
        "context-aware inputs and a bandit over targets; a vision model answers both (DESIGN 7.5)",
    inputs: "llm+mutate",
    model: Model::Asks { vision: true },
    settings: Some(Section::of::<VetlConfig>()),
    episode_steps: |c| read_checked::<VetlConfig>(c).episode_steps,
    build: |b| build_vetl(VetlVariant::Vetl, b),
};
pub(crate) const V1: Kind = Kind {
    name: "vetl-v1",
    summary: "vetl with vision for values, the nearest button after each",
    build: |b| build_vetl(VetlVariant::V1, b),
    ..VETL
};
pub(crate) const LV: Kind = Kind {
    name: "vetl-lv",
    summary: "vetl with a text model for values, vision for buttons",
    model: Model::Asks { vision: false },
    build: |b| build_vetl(VetlVariant::LV, b),
    ..VETL
};
pub(crate) const L: Kind = Kind {
    name: "vetl-l",
    summary: "vetl with a text model for values, the nearest button after each",
    model: Model::Asks { vision: false },
    build: |b| build_vetl(VetlVariant::L, b),
    ..VETL
};
pub(crate) const H: Kind = Kind {
    name: "vetl-h",
    summary: "vetl with heuristic values and the nearest button: no model",
    model: Model::HeuristicOnly,
    build: |b| build_vetl(VetlVariant::H, b),
    ..VETL
};

/// `vetl` and its variants (DESIGN 7.5): every empty field filled with a value from its
/// context, an interested element asked per value, a bandit over the targets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VetlConfig {
    /// Probability of a uniformly random target among all candidates.
    pub epsilon: f64,
    /// Steps per episode before a reset, unless `budget.episode_steps` says otherwise.
    pub episode_steps: u32,
    /// Size of the screenshot sent to a vision model, CSS pixels.
    pub picture_width: f64,
    pub picture_height: f64,
    /// Clickables numbered on a screenshot (or listed to a text model) at most.
    pub max_buttons: usize,
    /// Ours, not the paper's: the bandit picks the target first and only the fields that
    /// target sends (its interested fields and the rest of its form) are typed before it.
    /// Off, every empty field of the page is typed before any target (the paper), and
    /// most of that typing is never sent (see docs/src/inputs.md).
    pub target_first: bool,
}

impl Default for VetlConfig {
    fn default() -> Self {
        VetlConfig {
            epsilon: 0.3,
            episode_steps: 100,
            picture_width: 1280.0,
            picture_height: 800.0,
            max_buttons: 30,
            target_first: true,
        }
    }
}

impl Settings for VetlConfig {
    const SECTION: &'static str = "vetl";
    fn check(&self) -> Result<(), String> {
        let checks = [
            (
                self.episode_steps > 0,
                "strategy.vetl.episode_steps must be at least 1",
            ),
            (
                (0.0..=1.0).contains(&self.epsilon),
                "strategy.vetl.epsilon must be in [0, 1]",
            ),
            (
                self.picture_width >= 1.0
                    && self.picture_height >= 1.0
                    && self.picture_width.is_finite()
                    && self.picture_height.is_finite(),
                "strategy.vetl.picture_width and picture_height must be at least 1 (CSS pixels)",
            ),
        ];
        crate::settings::first_wrong(&checks)
    }
}

fn build_vetl(variant: VetlVariant, b: Build<'_>) -> Result<Box<dyn Agent + Send>, StrategyError> {
    let client = match b.llm {
        Some(c) if !variant.heuristic_only() => c,
        _ => wayfarer_llm::LlmClient::heuristic().shared(),
    };
    let cfg = read::<VetlConfig>(&b.config.strategy).map_err(StrategyError::Settings)?;
    Ok(Box::new(VetlAgent::new(variant, cfg, b.inputs, client)))
}

/// Which model answers what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VetlVariant {
    Vetl,
    V1,
    LV,
    L,
    H,
}

impl VetlVariant {
    pub const NAMES: [&'static str; 5] = ["vetl", "vetl-v1", "vetl-lv", "vetl-l", "vetl-h"];

    pub fn from_name(name: &str) -> Option<VetlVariant> {
        Some(match name {
            "vetl" => VetlVariant::Vetl,
            "vetl-v1" => VetlVariant::V1,
            "vetl-lv" => VetlVariant::LV,
            "vetl-l" => VetlVariant::L,
            "vetl-h" => VetlVariant::H,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            VetlVariant::Vetl => "vetl",
            VetlVariant::V1 => "vetl-v1",
            VetlVariant::LV => "vetl-lv",
            VetlVariant::L => "vetl-l",
            VetlVariant::H => "vetl-h",
        }
    }

    /// Values are asked with the screenshot (a vision model).
    pub fn sees_for_values(self) -> bool {
        matches!(self, VetlVariant::Vetl | VetlVariant::V1)
    }

    /// The interested element is asked of the model over the screenshot; the others take
    /// the nearest button.
    pub fn asks_for_elements(self) -> bool {
        matches!(self, VetlVariant::Vetl | VetlVariant::LV)
    }

    /// No model at all, whatever is configured.
    pub fn heuristic_only(self) -> bool {
        self == VetlVariant::H
    }
}

/// Refusals of a submit button in one episode after which it is no longer an interested
/// element (ours, not the paper's: a login form with no account behind it otherwise
/// takes 70% of the decisions on its page, and the softmax over one element cannot
/// learn to leave it; see docs/src/inputs.md).
const REFUSALS: u32 = 2;

/// A value planned for a field, not typed yet (`target_first`).
#[derive(Clone, Debug)]
struct Plan {
    fill: Action,
    /// What was done to find its interested element, for the rationale.
    how: String,
    /// The button its value should be followed by.
    target: Option<String>,
    form: Option<String>,
}

/// A running mean of rewards.
#[derive(Clone, Copy, Debug, Default)]
struct Arm {
    q: f64,
    n: u64,
}

/// What the workers of a run learn together; one per run (and per `fork`).
#[derive(Clone, Default)]
struct Bandit {
    arms: HashMap<String, Arm>,
    /// Elements seen in the session (page path and locator).
    seen: HashSet<String>,
    counts: Counts,
}

/// The bandit, whoever panicked while holding it (a failed step is only logged).
fn lock(b: &Mutex<Bandit>) -> MutexGuard<'_, Bandit> {
    b.lock().unwrap_or_else(|e| e.into_inner())
}

/// Cloning shares the bandit (as workers do); `fork` copies it.
#[derive(Clone)]
pub struct VetlAgent {
    variant: VetlVariant,
    cfg: VetlConfig,
    inputs: Box<dyn InputGenerator + Send>,
    client: SharedClient,
    bandit: Arc<Mutex<Bandit>>,
    /// Fills planned on the current page, taken one per step.
    queue: VecDeque<(Action, String)>,
    /// `target_first`: values planned on the current page, typed only before a target
    /// they belong to.
    planned: Vec<Plan>,
    /// `target_first`: the target chosen before its fields were typed, and why.
    chosen: Option<(Action, String)>,
    /// The URL the fills and interested elements belong to.
    page: String,
    /// Interested elements of the current page: (button locator, the field it follows).
    interested: Vec<(String, String)>,
    /// Fields typed into since the last target: not filled again before one is taken
    /// (a field that will not keep a value must not be typed into forever).
    typed: HashSet<String>,
    /// Why the last fill of each form was unusual (a value broken on purpose), for the
    /// rationale of its submission.
    notes: HashMap<Option<String>, String>,
    /// The arm of the target just taken, updated when its transition comes.
    pending: Option<String>,
    /// Submissions of this episode that were refused (the page did not move on, or
    /// said why), per arm: a button refused `REFUSALS` times is no longer an interested
    /// element in this episode.
    refused: HashMap<String, u32>,
    rationale: Option<String>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    fills: u64,
    asked: u64,
    answered: u64,
    nearest: u64,
    explore: u64,
    exploit: u64,
    no_interested: u64,
}

impl VetlAgent {
    pub fn new(
        variant: VetlVariant,
        cfg: VetlConfig,
        inputs: Box<dyn InputGenerator + Send>,
        client: SharedClient,
    ) -> VetlAgent {
        VetlAgent {
            variant,
            cfg,
            inputs,
            client,
            bandit: Arc::new(Mutex::new(Bandit::default())),
            queue: VecDeque::new(),
            planned: Vec::new(),
            chosen: None,
            page: String::new(),
            interested: Vec::new(),
            typed: HashSet::new(),
            notes: HashMap::new(),
            pending: None,
            refused: HashMap::new(),
            rationale: None,
        }
    }

    /// The fields to fill on `view`: empty text-like inputs (and selects with no option
    /// chosen, our addition: a required select left empty refuses the whole form) that a
    /// candidate action can set, not typed into since the last target.
    fn empty_fields<'a>(&self, view: &View<'a>) -> Vec<&'a Element> {
        let page = view.observation;
        let settable: HashSet<&str> = view
            .actions
            .iter()
            .filter(|a| matches!(a.kind, ActionKind::Type | ActionKind::Select))
            .filter_map(|a| a.target.as_deref())
            .collect();
        page.elements
            .iter()
            .filter(|e| settable.contains(e.locator.as_str()) && !self.typed.contains(&e.locator))
            .filter(|e| e.attr("value").is_none_or(|v| v.is_empty()))
            .filter(|e| e.is_text_input() || (e.tag == "select" && !e.options.is_empty()))
            .collect()
    }

    /// The clickables a value may be followed by: the candidate clicks on elements other
    /// than fields, in page order, at most `max_buttons` (the nearest to `field` first
    /// when there are more), limited to `region` when the buttons are to be pictured.
    fn buttons<'a>(
        &self,
        view: &View<'a>,
        field: &Element,
        region: Option<&Rect>,
    ) -> Vec<&'a Element> {
        let page = view.observation;
        let clicks: HashSet<&str> = view
            .actions
            .iter()
            .filter(|a| a.kind == ActionKind::Click)
            .filter_map(|a| a.target.as_deref())
            .collect();
        let mut b: Vec<&Element> = page
            .elements
            .iter()
            .filter(|e| clicks.contains(e.locator.as_str()) && !e.is_text_input())
            .filter(|e| region.is_none_or(|r| e.rect.centered_in(r)))
            .collect();
        if b.len() > self.cfg.max_buttons {
            // The nearest ones, kept in page order.
            let mut by_distance: Vec<usize> = (0..b.len()).collect();
            by_distance.sort_by(|&i, &j| {
                let (a, c) = (distance(field, b[i]), distance(field, b[j]));
                a.0.cmp(&c.0).then(a.1.total_cmp(&c.1))
            });
            by_distance.truncate(self.cfg.max_buttons);
            by_distance.sort_unstable();
            b = by_distance.into_iter().map(|i| b[i]).collect();
        }
        b
    }

    /// Plan the fills of `view`'s empty fields and find each value's interested element:
    /// queued all (the paper), or kept in `planned` until a target they belong to is
    /// chosen (`target_first`; the forms planned already are kept).
    fn plan_fills(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) {
        let page = view.observation;
        let fields = self.empty_fields(view);
        // Forms are filled as wholes: the generator may break one field on purpose and
        // keep the others valid.
        let mut groups: Vec<(Option<String>, Vec<&Element>)> = Vec::new();
        for f in fields {
            match groups.iter_mut().find(|(form, _)| *form == f.form) {
                Some((_, g)) => g.push(f),
                None => groups.push((f.form.clone(), vec![f])),
            }
        }
        for (form, group) in groups {
            if self.cfg.target_first {
                let planned = |f: &&Element| {
                    self.planned
                        .iter()
                        .any(|p| p.fill.target.as_deref() == Some(f.locator.as_str()))
                };
                if group.iter().all(planned) {
                    continue;
                }
                self.planned.retain(|p| p.form != form);
            }
            let values = self.inputs.fill_form(page, &group, rng);
            match self.inputs.note() {
                Some(n) => self.notes.insert(form.clone(), n),
                None => self.notes.remove(&form),
            };
            for (field, value) in group.into_iter().zip(values) {
                let Some(value) = value else { continue };
                let kind = if field.tag == "select" {
                    ActionKind::Select
                } else {
                    ActionKind::Type
                };
                let (how, target) = if field.tag != "select" {
                    self.find_interested(view, field, &value, rng)
                } else if self.cfg.target_first {
                    // An option belongs to the button nearest to it (never asked: VETL
                    // asks for typed values only).
                    let buttons = self.buttons(view, field, None);
                    let t = nearest_button(field, &buttons).map(|i| buttons[i].locator.clone());
                    ("option".to_string(), t)
                } else {
                    ("option".to_string(), None)
                };
                let fill = Action::on(kind, field.locator.clone()).with_value(value);
                if self.cfg.target_first {
                    self.planned.push(Plan {
                        fill,
                        how,
                        target,
                        form: form.clone(),
                    });
                } else {
                    self.queue.push_back((fill, how));
                }
            }
        }
    }

    /// `target_first`: the planned fills `target` sends, in page order, taken out of the
    /// plan: the values whose interested element it is, and the other planned fields of
    /// their forms and of its own form.
    fn fills_for(&mut self, page: &Observation, target: &Action) -> VecDeque<(Action, String)> {
        let Some(t) = target.target.as_deref() else {
            return VecDeque::new();
        };
        if target.kind != ActionKind::Click {
            return VecDeque::new();
        }
        let mut forms: HashSet<String> = page
            .element(t)
            .and_then(|b| b.form.clone())
            .into_iter()
            .collect();
        for p in &self.planned {
            if p.target.as_deref() == Some(t) {
                forms.extend(p.form.clone());
            }
        }
        let (sent, kept): (Vec<Plan>, Vec<Plan>) = std::mem::take(&mut self.planned)
            .into_iter()
            .partition(|p| {
                p.target.as_deref() == Some(t) || p.form.as_ref().is_some_and(|f| forms.contains(f))
            });
        self.planned = kept;
        sent.into_iter()
            .map(|p| {
                let how = format!("{}, for {t}", p.how);
                (p.fill, how)
            })
            .collect()
    }

    /// The next queued fill whose field is still there (the page may have re-rendered).
    fn next_fill(&mut self, view: &View<'_>) -> Option<Action> {
        while let Some((action, how)) = self.queue.pop_front() {
            let target = action.target.as_deref().unwrap_or("");
            if !view
                .actions
                .iter()
                .any(|a| a.target.as_deref() == Some(target))
            {
                continue;
            }
            self.typed.insert(target.to_string());
            lock(&self.bandit).counts.fills += 1;
            let left = self.queue.len();
            self.rationale = Some(format!("fill {target} ({how}; {left} more)"));
            return Some(action);
        }
        None
    }

    /// Take the bandit's target: its arm waits for the transition.
    fn take(
        &mut self,
        view: &View<'_>,
        action: Action,
        why: String,
        rng: &mut ChaCha8Rng,
    ) -> Action {
        let page = view.observation;
        self.typed.clear();
        self.pending = Some(Self::arm_key(page, &action));
        let (action, note) = fill_noted(action, page, self.inputs.as_mut(), rng);
        // A submission of a form filled with a value broken on purpose says so.
        let form_note = action
            .target
            .as_deref()
            .and_then(|t| page.element(t))
            .and_then(|b| self.notes.get(&b.form))
            .cloned();
        self.rationale = Some(with_note(with_note(why, note), form_note));
        action
    }

    /// The interested element of `value` typed into `field`, recorded; what was done, for
    /// the rationale, and the element.
    fn find_interested(
        &mut self,
        view: &View<'_>,
        field: &Element,
        value: &str,
        rng: &mut ChaCha8Rng,
    ) -> (String, Option<String>) {
        let page = view.observation;
        let picture = page
            .picture
            .as_ref()
            .filter(|_| self.variant.asks_for_elements());
        let buttons = self.buttons(view, field, picture.map(|p| &p.region));
        if buttons.is_empty() {
            return ("no button to follow".into(), None);
        }
        let chosen = if self.variant.asks_for_elements() {
            lock(&self.bandit).counts.asked += 1;
            let image = picture.and_then(|p| {
                let rects: Vec<Rect> = buttons.iter().map(|b| b.rect).collect();
                annotate(p, Some(&field.rect), &rects)
                    .map_err(|e| tracing::debug!("no visual element prompt: {e}"))
                    .ok()
            });
            let prompt = Prompts::get().element(field, value, &buttons, page, image.is_some());
            let request = Request {
                task: Task::InterestedElement {
                    field,
                    value,
                    buttons: &buttons,
                    page,
                },
                prompt,
                image: image.as_deref(),
                seed: rng.gen(),
            };
            let mut client = self.client.lock().unwrap_or_else(|p| p.into_inner());
            let (i, _) = client.interested(&request);
            if i.is_some() {
                lock(&self.bandit).counts.answered += 1;
            }
            i
        } else {
            lock(&self.bandit).counts.nearest += 1;
            nearest_button(field, &buttons)
        };
        match chosen {
            Some(i) => {
                let target = buttons[i].locator.clone();
                self.interested.retain(|(_, f)| *f != field.locator);
                self.interested
                    .push((target.clone(), field.locator.clone()));
                (format!("then {target}"), Some(target))
            }
            None => ("no interested element".into(), None),
        }
    }

    /// The arm of a target: its page's path and the action without value.
    fn arm_key(page: &Observation, a: &Action) -> String {
        format!(
            "{} {} {}",
            route(&page.url),
            a.kind.as_str(),
            a.target.as_deref().unwrap_or("")
        )
    }

    /// Algorithm 1: epsilon uniform over all candidates, else softmax of Q over the
    /// interested elements the page offers.
    fn bandit(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> (Action, String) {
        let page = view.observation;
        // E_I is a set: a button several fields point to is one arm.
        let mut offered: Vec<(&Action, &str)> = Vec::new();
        for (target, field) in &self.interested {
            let Some(a) = view.actions.iter().find(|a| {
                a.kind == ActionKind::Click && a.target.as_deref() == Some(target.as_str())
            }) else {
                continue;
            };
            let refused = self
                .refused
                .get(&Self::arm_key(page, a))
                .copied()
                .unwrap_or(0);
            if refused < REFUSALS && !offered.iter().any(|(o, _)| o.target == a.target) {
                offered.push((a, field.as_str()));
            }
        }
        let explore = offered.is_empty() || rng.gen::<f64>() < self.cfg.epsilon;
        if explore {
            if offered.is_empty() {
                lock(&self.bandit).counts.no_interested += 1;
            }
            lock(&self.bandit).counts.explore += 1;
            // Targets are clicked (Algorithm 1): typing is the fills' job, which only empty
            // fields get. A page that offers nothing else is typed into.
            let clicks: Vec<&Action> = view
                .actions
                .iter()
                .filter(|a| !matches!(a.kind, ActionKind::Type | ActionKind::Select))
                .collect();
            let a = if clicks.is_empty() {
                view.actions.choose(rng).cloned()
            } else {
                clicks.choose(rng).map(|a| (*a).clone())
            }
            .unwrap_or_else(Action::back);
            let why = if offered.is_empty() {
                "explore (no interested element)"
            } else {
                "explore"
            };
            return (a, why.to_string());
        }
        lock(&self.bandit).counts.exploit += 1;
        let bandit = lock(&self.bandit);
        let qs: Vec<f64> = offered
            .iter()
            .map(|(a, _)| {
                bandit
                    .arms
                    .get(&Self::arm_key(page, a))
                    .map_or(0.0, |arm| arm.q)
            })
            .collect();
        drop(bandit);
        let i = softmax_pick(&qs, rng);
        let (a, field) = offered[i];
        let why = format!("interested after {field} (Q {:.2})", qs[i]);
        (a.clone(), why)
    }
}

impl VetlAgent {
    /// `Agent::worker`: a fresh plan, the same bandit.
    fn worker_agent(&self) -> VetlAgent {
        let mut worker = VetlAgent::new(
            self.variant,
            self.cfg.clone(),
            self.inputs.fork(),
            self.client.clone(),
        );
        worker.bandit = self.bandit.clone();
        worker
    }
}

/// An index drawn with probability exp(q_i) / sum exp(q_j) (shifted by the max for
/// stability).
fn softmax_pick(qs: &[f64], rng: &mut ChaCha8Rng) -> usize {
    let max = qs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = qs.iter().map(|q| (q - max).exp()).collect();
    let total: f64 = w.iter().sum();
    let mut x = rng.gen::<f64>() * total;
    for (i, wi) in w.iter().enumerate() {
        if x < *wi {
            return i;
        }
        x -= wi;
    }
    qs.len() - 1
}

/// VETL-V1's "button closest to the input box": among buttons when there are any (a link
/// just above a field is not what submits it), among all clickables otherwise.
fn nearest_button(field: &Element, clickables: &[&Element]) -> Option<usize> {
    let real: Vec<usize> = (0..clickables.len())
        .filter(|&i| is_button(clickables[i]))
        .collect();
    if real.is_empty() {
        return nearest(field, clickables);
    }
    let only: Vec<&Element> = real.iter().map(|&i| clickables[i]).collect();
    nearest(field, &only).map(|k| real[k])
}

/// A button by tag, type or role.
fn is_button(e: &Element) -> bool {
    match e.tag.as_str() {
        "button" => true,
        "input" => matches!(e.input_type.as_deref(), Some("submit" | "button" | "image")),
        _ => e.role.as_deref() == Some("button"),
    }
}

impl Agent for VetlAgent {
    fn name(&self) -> &str {
        self.variant.name()
    }

    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        // A trial must not teach the run: it learns into a copy of the bandit.
        let mut copy = self.clone();
        copy.bandit = Arc::new(Mutex::new(lock(&self.bandit).clone()));
        Some(Box::new(copy))
    }

    fn worker(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(self.worker_agent()))
    }

    fn wants_picture(&mut self, view: &View<'_>) -> Option<Rect> {
        let vision = self.variant.sees_for_values() || self.variant.asks_for_elements();
        // Fills still queued for this page need no new picture (`choose` drops the queue
        // of another page).
        if !vision || (!self.queue.is_empty() && view.observation.url == self.page) {
            return None;
        }
        if !self.client.lock().is_ok_and(|c| c.sees_images()) {
            return None;
        }
        let first = self
            .empty_fields(view)
            .into_iter()
            .find(|f| f.is_text_input())?;
        let page = view.observation;
        let width = if page.page.width > 0.0 {
            self.cfg.picture_width.min(page.page.width)
        } else {
            self.cfg.picture_width
        };
        let height = if page.page.height > 0.0 {
            self.cfg.picture_height.min(page.page.height)
        } else {
            self.cfg.picture_height
        };
        // The field a third of the way down, the picture kept inside the page.
        let bottom = if page.page.height > 0.0 {
            page.page.height - height
        } else {
            f64::MAX
        };
        let y = (first.rect.y - height / 3.0).min(bottom).max(0.0);
        Some(Rect {
            x: 0.0,
            y,
            width,
            height,
        })
    }

    fn choose(&mut self, view: &View<'_>, rng: &mut ChaCha8Rng) -> Action {
        let page = view.observation;
        if page.url != self.page {
            self.page = page.url.clone();
            self.queue.clear();
            self.planned.clear();
            self.chosen = None;
            self.interested.clear();
            self.typed.clear();
        }
        if let Some(fill) = self.next_fill(view) {
            return fill;
        }
        if !self.cfg.target_first {
            self.plan_fills(view, rng);
            if let Some(fill) = self.next_fill(view) {
                return fill;
            }
            let (action, why) = self.bandit(view, rng);
            return self.take(view, action, why, rng);
        }
        // Target first: the chosen target once its fields are typed (unless it went away),
        // else a new target and the fields it sends.
        if let Some((action, why)) = self.chosen.take() {
            if view
                .actions
                .iter()
                .any(|a| a.kind == action.kind && a.target == action.target)
            {
                return self.take(view, action, why, rng);
            }
        }
        self.plan_fills(view, rng);
        let (action, why) = self.bandit(view, rng);
        self.queue = self.fills_for(page, &action);
        if !self.queue.is_empty() {
            self.chosen = Some((action.clone(), why.clone()));
            if let Some(fill) = self.next_fill(view) {
                return fill;
            }
            self.chosen = None;
        }
        self.take(view, action, why, rng)
    }

    fn learn(&mut self, t: &Transition<'_>) {
        crate::fill::teach(self.inputs.as_mut(), t);
        let path = route(&t.next_observation.url);
        let mut reward = 0u64;
        let mut bandit = lock(&self.bandit);
        for e in &t.next_observation.elements {
            if bandit.seen.insert(format!("{path} {}", e.locator)) {
                reward += 1;
            }
        }
        if let Some(key) = self.pending.take() {
            // A submission that did not go through. One broken on purpose counts too: the
            // server has seen its value, sending it again teaches nothing.
            if let Some(button) = forms::submission(t.observation, t.action) {
                if !t.failed && !forms::accepted(t.observation, button, t.next_observation) {
                    *self.refused.entry(key.clone()).or_default() += 1;
                }
            }
            let arm = bandit.arms.entry(key).or_default();
            // Q <- (Q * count + r) / (count + 1)
            arm.q = (arm.q * arm.n as f64 + reward as f64) / (arm.n + 1) as f64;
            arm.n += 1;
        }
    }

    fn on_episode_end(&mut self) {
        self.refused.clear();
        self.queue.clear();
        self.planned.clear();
        self.chosen = None;
        self.interested.clear();
        self.typed.clear();
        self.pending = None;
        self.page.clear();
    }

    fn rationale(&self) -> Option<String> {
        self.rationale.clone()
    }

    fn snapshot(&self) -> Option<StrategySnapshot> {
        let bandit = lock(&self.bandit);
        let c = bandit.counts;
        let mut arms: Vec<(&String, &Arm)> = bandit.arms.iter().collect();
        arms.sort_by(|a, b| b.1.q.total_cmp(&a.1.q).then(a.0.cmp(b.0)));
        let rows = arms
            .iter()
            .map(|(k, a)| vec![(*k).clone(), format!("{:.2}", a.q), a.n.to_string()])
            .collect();
        Some(StrategySnapshot {
            strategy: self.variant.name().into(),
            counters: vec![
                ("fields filled".into(), c.fills),
                ("interested elements asked".into(), c.asked),
                ("interested elements answered".into(), c.answered),
                ("nearest buttons taken".into(), c.nearest),
                ("explore".into(), c.explore),
                ("exploit".into(), c.exploit),
                ("no interested element".into(), c.no_interested),
                ("elements seen".into(), bandit.seen.len() as u64),
            ],
            tables: vec![capped(
                "targets (best first)",
                &["target", "Q", "count"],
                rows,
            )],
        })
    }
}

#[cfg(test)]
mod tests;
