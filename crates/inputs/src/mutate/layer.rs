//! The `mutate` layer and its policy: valid values until a form is accepted, then one
//! boundary value per submission, every other submission, untried pairs first.

use std::collections::{BTreeMap, BTreeSet};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::{InputGenerator, MUTATE_NOTE};
use wayfarer_core::model::{Action, ActionKind, Element, Event, Observation};
use wayfarer_core::secrets::Secrets;

use super::catalogue::{boundary_values, Family, Row};
use super::judge::{judge_submission, shows, FormKey, Submission};

/// Longest piece of a value a note quotes.
const NOTE_CHARS: usize = 30;

/// The stream of the run's seed that the layer's own draws come from ("mutate" in ASCII);
/// the run's shared stream is 0.
const STREAM: u64 = 0x6d75_7461_7465;

/// Attacks on a form that count as work left on it ([`InputGenerator::work_left`]): about
/// what a strategy that fills forms often gives a form in a 500-step run (webexplor
/// typed 16-22 times into the board's card title, half of them attacks).
const ATTACKS_AS_WORK: u32 = 8;

/// Attacks on a form added to its work for each attack that made the server run code it
/// had never run (a validation branch, an error path), up to [`ATTACKS_AS_SERVER_WORK`] in
/// all: where the server answers boundary values with new code, more of them are worth it.
const ATTACKS_PER_SERVER_BRANCH: u32 = 2;
const ATTACKS_AS_SERVER_WORK: u32 = 3 * ATTACKS_AS_WORK;

/// Boundary values on top of `inner` (see the module docs for the policy).
///
/// - Whole-form fills ([`InputGenerator::fill_form`]): once the form was accepted with
///   valid values, the next fill changes one field to a boundary value; after that
///   submission, the next fill is valid again, and so on (whether or not the valid one
///   is accepted again: state, such as an e-mail already registered, may refuse it).
/// - Single typing ([`InputGenerator::text_for`]) into a field of an accepted form: a
///   boundary value with probability 1/2.
/// - A (field, row) pair is drawn with the seeded rng among those not yet tried for the
///   form: a field uniformly, then its rows for what the field declares before the
///   generic ones, values HTML accepts before those it flags, then a [`Family`]
///   uniformly and one of its rows; when all were tried, a new round starts.
/// - A form that already holds a boundary value gets only valid values elsewhere.
/// - Where the server's coverage is read ([`InputGenerator::learn_server`]): an attack
///   after which the server ran code it never had (a validation branch, an error path)
///   makes the next attack on the form break the same field again (another row), and
///   adds to the attacks that count as work on the form; an attack that ran nothing new
///   lets the field be drawn again.
/// - The layer's own draws (the coin, the pair) come from a stream of its own of the
///   run's seed: the rng it is handed advances exactly as it would without the layer, so
///   turning the layer on, or changing its catalogue, changes what is typed and never
///   reshuffles where the strategy goes.
///
/// The whole state is cloned by `fork`, so state inference's trials see the same policy.
#[derive(Clone)]
pub struct Mutate {
    inner: Box<dyn InputGenerator + Send>,
    name: String,
    forms: BTreeMap<FormKey, FormMemory>,
    /// What this generator's values were typed into on the current page, while the page
    /// shows them.
    typed: Vec<Typed>,
    /// Boundary values handed out by the last call and not typed yet, by locator: the
    /// typing step tells a boundary value from a valid one by them.
    handed: BTreeMap<String, String>,
    note: Option<String>,
    /// The layer's own rng, derived from the first rng it is handed (see [`STREAM`]).
    own: Option<ChaCha8Rng>,
    /// The form the step just learned submitted, and the fields of it that held a
    /// boundary value: what [`InputGenerator::learn_server`] credits.
    judged: Option<(FormKey, Vec<String>)>,
    /// Values never cut or padded into a boundary value ([`InputGenerator::keep_whole`]).
    whole: Secrets,
}

/// What the layer knows about one form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct FormMemory {
    /// Submissions with valid values that were accepted.
    accepted: u32,
    /// The next whole-form fill gets one boundary value.
    attack_next: bool,
    /// (field locator, row id) pairs tried in this round.
    tried: BTreeSet<(String, &'static str)>,
    /// The buttons (locators) whose submissions with valid values were accepted: pressing
    /// another element of a div-made form (Cancel) sends nothing.
    sent_by: BTreeSet<String>,
    /// Boundary values typed into its fields (in a fill or alone).
    typed_attacks: u32,
    /// Submissions that carried a boundary value, and how many of them failed.
    attacks: u32,
    failures: u32,
    /// Attacks after which the server ran code it had never run.
    server_branches: u32,
    /// The next of `files::boundaries` a file input of the form gets.
    file_next: usize,
    /// The field whose boundary value last made the server run new code: the next attack
    /// on the form breaks it again (another row), while that keeps opening branches.
    hot: Option<String>,
}

impl FormMemory {
    /// Attacks that count as work on the form: more where the server answered them with
    /// new code.
    fn attack_budget(&self) -> u32 {
        (ATTACKS_AS_WORK + ATTACKS_PER_SERVER_BRANCH * self.server_branches)
            .min(ATTACKS_AS_SERVER_WORK)
    }
}

/// A value typed into a field of the current page.
#[derive(Clone, Debug)]
struct Typed {
    locator: String,
    form: FormKey,
    value: String,
    boundary: bool,
}

/// One way to break one field.
struct Candidate {
    /// Index of the field in the fill.
    index: usize,
    row: &'static Row,
    value: String,
}

impl Mutate {
    pub fn new(inner: Box<dyn InputGenerator + Send>) -> Mutate {
        Mutate {
            name: format!("{}+mutate", inner.name()),
            inner,
            forms: BTreeMap::new(),
            typed: Vec::new(),
            handed: BTreeMap::new(),
            note: None,
            own: None,
            judged: None,
            whole: Secrets::default(),
        }
    }

    /// What boundary values are made from: `valid`, or a stand-in when it holds a
    /// secret (a boundary of the same field, without a piece of the secret in it).
    fn base<'a>(&self, valid: &'a str) -> &'a str {
        if self.whole.occurs_in(valid) {
            "x"
        } else {
            valid
        }
    }

    /// The layer's own rng: the seed of the `shared` one, on another stream. Reading the
    /// seed draws nothing from `shared`.
    fn own_rng(&mut self, shared: &ChaCha8Rng) -> ChaCha8Rng {
        self.own.take().unwrap_or_else(|| {
            // Offset by the worker's stream: workers of one seed attack in orders of their
            // own (worker 0, like a run without workers, draws from STREAM itself).
            let mut own = ChaCha8Rng::from_seed(shared.get_seed());
            own.set_stream(STREAM.wrapping_add(shared.get_stream()));
            own
        })
    }

    /// Single typing into a field of the accepted form `key`: a boundary value instead of
    /// `valid` with probability 1/2.
    fn attack_one(
        &mut self,
        e: &Element,
        key: &FormKey,
        valid: String,
        rng: &mut ChaCha8Rng,
    ) -> String {
        if !rng.gen_bool(0.5) {
            return valid;
        }
        let cands = boundary_values(e, self.base(&valid))
            .into_iter()
            .map(|(row, value)| Candidate {
                index: 0,
                row,
                value,
            })
            .collect();
        match self.draw(key, &[e], cands, false, rng) {
            Some(c) => {
                self.hand_out(e, &c);
                c.value
            }
            None => valid,
        }
    }

    /// Whether `key` was accepted with valid values at least once.
    pub fn accepted(&self, key: &FormKey) -> bool {
        self.forms.get(key).is_some_and(|f| f.accepted > 0)
    }

    /// Submissions of `key` that carried a boundary value, and how many failed.
    pub fn attacks(&self, key: &FormKey) -> (u32, u32) {
        self.forms
            .get(key)
            .map_or((0, 0), |f| (f.attacks, f.failures))
    }

    /// The form a click on `action`'s target (a submitting element) or a `Submit` sends.
    fn form_of(page: &Observation, action: &Action) -> Option<FormKey> {
        let t = page.element(action.target.as_deref()?)?;
        let form = match action.kind {
            ActionKind::Submit if t.tag == "form" => Some(t.locator.clone()),
            ActionKind::Submit => t.form.clone(),
            ActionKind::Click | ActionKind::DoubleClick if t.submits() => t.form.clone(),
            _ => return None,
        };
        Some(FormKey::of(&page.url, form.as_deref()))
    }

    /// The page shows a boundary value we typed in a field of `key` other than `except`.
    fn holds_boundary(&self, page: &Observation, key: &FormKey, except: Option<&str>) -> bool {
        self.typed.iter().any(|t| {
            t.boundary
                && t.form == *key
                && Some(t.locator.as_str()) != except
                && shows(page, &t.locator, &t.value)
        })
    }

    /// Draw among `cands`, the pairs not tried in this round of `key` first; with
    /// `new_round`, a form whose pairs were all tried starts over.
    fn draw(
        &mut self,
        key: &FormKey,
        fields: &[&Element],
        mut cands: Vec<Candidate>,
        new_round: bool,
        rng: &mut ChaCha8Rng,
    ) -> Option<Candidate> {
        let memory = self.forms.entry(key.clone()).or_default();
        let pair = |c: &Candidate| (fields[c.index].locator.clone(), c.row.id);
        let untried: Vec<usize> = (0..cands.len())
            .filter(|&i| !memory.tried.contains(&pair(&cands[i])))
            .collect();
        let pool: Vec<usize> = if !untried.is_empty() {
            untried
        } else {
            if new_round {
                memory.tried.clear();
            }
            (0..cands.len()).collect()
        };
        // A field first, so one with many rows does not crowd out the others; then its
        // rows for what it declares (type, constraints, format) before the generic ones,
        // and among those, values HTML accepts (which reach the server whatever the
        // browser checks) before values the browser's own validation may stop.
        let mut fields_left: Vec<usize> = pool.iter().map(|&i| cands[i].index).collect();
        fields_left.sort_unstable();
        fields_left.dedup();
        if fields_left.is_empty() {
            return None;
        }
        // The field whose last boundary value opened a server branch, while it has rows
        // left; the draw from `rng` happens all the same, so the stream stays in step.
        let drawn = fields_left[rng.gen_range(0..fields_left.len())];
        let field = memory
            .hot
            .as_ref()
            .and_then(|hot| {
                fields_left
                    .iter()
                    .copied()
                    .find(|&i| fields[i].locator == *hot)
            })
            .unwrap_or(drawn);
        let of_field: Vec<usize> = pool
            .into_iter()
            .filter(|&i| cands[i].index == field)
            .collect();
        let tier = |i: usize| {
            let row = cands[i].row;
            2 * u8::from(!row.applies.specific()) + u8::from(!row.passes_html())
        };
        let first = of_field.iter().map(|&i| tier(i)).min().unwrap_or(0);
        let pool: Vec<usize> = of_field.into_iter().filter(|&i| tier(i) == first).collect();
        // Then a family of boundary, so the table's many quotes do not crowd out its
        // two lengths; then one of the family's rows.
        let mut families: Vec<Family> = pool.iter().map(|&i| cands[i].row.family).collect();
        families.sort_unstable();
        families.dedup();
        let family = families[rng.gen_range(0..families.len())];
        let pool: Vec<usize> = pool
            .into_iter()
            .filter(|&i| cands[i].row.family == family)
            .collect();
        let c = cands.swap_remove(pool[rng.gen_range(0..pool.len())]);
        memory.tried.insert(pair(&c));
        Some(c)
    }

    /// Hand out `c`'s value for `field`: remembered until it is typed, and noted.
    fn hand_out(&mut self, field: &Element, c: &Candidate) {
        self.handed.insert(field.locator.clone(), c.value.clone());
        self.note = Some(note(field, c.row, &c.value));
    }

    fn typed_into(&mut self, before: &Observation, action: &Action) {
        let (Some(loc), Some(value)) = (action.target.as_deref(), action.value.as_deref()) else {
            return;
        };
        let Some(e) = before.element(loc) else {
            return;
        };
        let boundary = self.handed.get(loc).is_some_and(|h| h == value);
        let form = FormKey::of_element(before, e);
        if boundary {
            self.handed.remove(loc);
            self.forms.entry(form.clone()).or_default().typed_attacks += 1;
        }
        self.typed.retain(|t| t.locator != loc);
        self.typed.push(Typed {
            locator: loc.to_string(),
            form,
            value: value.to_string(),
            boundary,
        });
    }

    /// A click on a submitting element, or a `Submit`: judge the form's submission when
    /// it held values we typed.
    fn submitted(
        &mut self,
        before: &Observation,
        action: &Action,
        after: &Observation,
        events: &[Event],
    ) {
        let Some(key) = Mutate::form_of(before, action) else {
            return;
        };
        let ours: Vec<&Typed> = self.typed.iter().filter(|t| t.form == key).collect();
        if ours.is_empty() {
            return;
        }
        let filled: Vec<(&str, &str)> = ours
            .iter()
            .map(|t| (t.locator.as_str(), t.value.as_str()))
            .collect();
        let mutated = ours.iter().any(|t| t.boundary);
        let broken = ours
            .iter()
            .filter(|t| t.boundary)
            .map(|t| t.locator.clone())
            .collect();
        self.judged = Some((key.clone(), broken));
        let verdict = judge_submission(before, after, events, &filled);
        let memory = self.forms.entry(key.clone()).or_default();
        if mutated {
            memory.attack_next = false;
            memory.attacks += 1;
            memory.failures += u32::from(verdict == Submission::Failed);
        } else {
            memory.accepted += u32::from(verdict == Submission::Accepted);
            if verdict == Submission::Accepted {
                memory.sent_by.extend(action.target.clone());
            }
            // Once the form took valid values, each valid submission is followed by an
            // attack: a later one may be refused for the state it meets (an e-mail
            // already registered), not for its values, and must not stop the attacks.
            memory.attack_next = memory.accepted > 0;
        }
        if verdict == Submission::Accepted {
            self.typed.retain(|t| t.form != key);
        }
    }
}

impl InputGenerator for Mutate {
    fn name(&self) -> &str {
        &self.name
    }

    fn fork(&self) -> Box<dyn InputGenerator + Send> {
        Box::new(self.clone())
    }

    fn work_left(&self, page: &Observation, action: &Action) -> bool {
        // Asked for every action of a page: before any form took valid values (most steps
        // of a run), and once their attacks are spent, no element lookup at all.
        let open = |f: &FormMemory| {
            f.accepted > 0 && (f.attacks < f.attack_budget() || f.typed_attacks < ATTACKS_AS_WORK)
        };
        if !self.forms.values().any(open) {
            return false;
        }
        // Typing alone into a field of an accepted form may attack it (half the time): a
        // field that breaks on input (a length meter) breaks with no submission at all.
        if matches!(action.kind, ActionKind::Type | ActionKind::Upload) {
            let Some(e) = action.target.as_deref().and_then(|t| page.element(t)) else {
                return false;
            };
            return self
                .forms
                .get(&FormKey::of_element(page, e))
                .is_some_and(|f| f.accepted > 0 && f.typed_attacks < ATTACKS_AS_WORK);
        }
        // Only the button that sent an accepted submission; a valid submission between two
        // attacks is part of the work: it re-arms the next.
        let sent = |f: &FormMemory| {
            action
                .target
                .as_ref()
                .is_some_and(|t| f.sent_by.contains(t))
        };
        Mutate::form_of(page, action)
            .and_then(|key| self.forms.get(&key))
            .is_some_and(|f| sent(f) && f.attacks < f.attack_budget())
    }

    fn learn_server(&mut self, before: &Observation, action: &Action, new_lines: u64) {
        self.inner.learn_server(before, action, new_lines);
        let Some((key, broken)) = self.judged.take() else {
            return;
        };
        let Some(memory) = self.forms.get_mut(&key) else {
            return;
        };
        if broken.is_empty() {
            return;
        }
        if new_lines > 0 {
            memory.server_branches += 1;
            memory.hot = broken.into_iter().next();
        } else {
            memory.hot = None;
        }
    }

    fn keep_whole(&mut self, secrets: &Secrets) {
        self.whole = secrets.clone();
        self.inner.keep_whole(secrets);
    }

    fn text_for(&mut self, e: &Element, page: &Observation, rng: &mut ChaCha8Rng) -> String {
        self.note = None;
        self.handed.clear();
        let valid = self.inner.text_for(e, page, rng);
        let key = FormKey::of_element(page, e);
        if !self.accepted(&key) || self.holds_boundary(page, &key, Some(e.locator.as_str())) {
            return valid;
        }
        let mut own = self.own_rng(rng);
        let value = self.attack_one(e, &key, valid, &mut own);
        self.own = Some(own);
        value
    }

    fn option_for(
        &mut self,
        e: &Element,
        page: &Observation,
        rng: &mut ChaCha8Rng,
    ) -> Option<String> {
        self.note = None;
        self.inner.option_for(e, page, rng)
    }

    /// A file input of an accepted form gets, half the time, the next of the upload's
    /// boundary files (empty, large, another type, an odd name), in turn.
    fn file_for(&mut self, e: &Element, page: &Observation, rng: &mut ChaCha8Rng) -> String {
        self.note = None;
        self.handed.clear();
        let valid = self.inner.file_for(e, page, rng);
        let key = FormKey::of_element(page, e);
        if !self.accepted(&key) || self.holds_boundary(page, &key, Some(e.locator.as_str())) {
            return valid;
        }
        let mut own = self.own_rng(rng);
        let attack = own.gen_bool(0.5);
        self.own = Some(own);
        if !attack {
            return valid;
        }
        let files = wayfarer_core::files::boundaries(e.attr("accept"));
        let memory = self.forms.entry(key).or_default();
        let (file, why) = &files[memory.file_next % files.len()];
        memory.file_next += 1;
        let value = file.value();
        self.handed.insert(e.locator.clone(), value.clone());
        self.note = Some(format!("{MUTATE_NOTE}file: {value:?} ({why})"));
        value
    }

    fn fill_form(
        &mut self,
        page: &Observation,
        fields: &[&Element],
        rng: &mut ChaCha8Rng,
    ) -> Vec<Option<String>> {
        self.note = None;
        self.handed.clear();
        let mut values = self.inner.fill_form(page, fields, rng);
        let Some(first) = fields.first() else {
            return values;
        };
        let key = FormKey::of_element(page, first);
        let attack = self.forms.get(&key).is_some_and(|f| f.attack_next)
            && !self.holds_boundary(page, &key, None);
        if !attack {
            return values;
        }
        // Selects keep a real option: a value they do not offer cannot be chosen.
        let cands: Vec<Candidate> = fields
            .iter()
            .zip(&values)
            .enumerate()
            .filter(|(_, (f, _))| f.tag != "select")
            .filter_map(|(i, (f, v))| Some((i, *f, v.as_deref()?)))
            .flat_map(|(index, f, valid)| {
                boundary_values(f, self.base(valid))
                    .into_iter()
                    .map(move |(row, value)| Candidate { index, row, value })
            })
            .collect();
        let mut own = self.own_rng(rng);
        if let Some(c) = self.draw(&key, fields, cands, true, &mut own) {
            self.hand_out(fields[c.index], &c);
            values[c.index] = Some(c.value);
        }
        self.own = Some(own);
        values
    }

    fn learn(
        &mut self,
        before: &Observation,
        action: &Action,
        after: &Observation,
        events: &[Event],
    ) {
        self.inner.learn(before, action, after, events);
        self.judged = None;
        // What the page no longer shows is gone: a reset, a reload or a re-render took it
        // (a field that drops a value it cannot take, as an e-mail input drops blanks,
        // leaves a submission judged on the other fields).
        self.typed.retain(|t| shows(before, &t.locator, &t.value));
        match action.kind {
            ActionKind::Type | ActionKind::Upload => self.typed_into(before, action),
            ActionKind::Click | ActionKind::DoubleClick | ActionKind::Submit => {
                self.submitted(before, action, after, events)
            }
            _ => {}
        }
        if after.url != before.url {
            self.typed.clear();
        }
    }

    fn note(&self) -> Option<String> {
        self.note.clone()
    }
}

/// `mutate email: "a@b" (no dot in the domain: ...)`: the field, the value (long ones
/// cut, with their length), and the row's reason.
fn note(field: &Element, row: &Row, value: &str) -> String {
    let name = [field.attr("name").unwrap_or(""), field.label.as_str()]
        .into_iter()
        .find(|s| !s.trim().is_empty())
        .unwrap_or(field.locator.as_str());
    let n = value.chars().count();
    let shown = if n > NOTE_CHARS {
        let head: String = value.chars().take(NOTE_CHARS).collect();
        format!("{head:?}… ({n} chars)")
    } else {
        format!("{value:?}")
    };
    format!("{MUTATE_NOTE}{name}: {shown} ({})", row.why)
}

#[cfg(test)]
mod tests;
