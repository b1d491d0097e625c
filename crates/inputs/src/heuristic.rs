//! `heuristic`: valid, meaningful values read off the field's type, names, label and
//! constraints (DESIGN 6). It is also the offline stand-in for the LLM, so it aims for what
//! a careful human would type, not for coverage of odd inputs.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use regex::{Regex, RegexBuilder};
use wayfarer_core::input::InputGenerator;
use wayfarer_core::model::{Element, Observation};

use crate::classify::{classify, from_hints, Field, Hints};
use crate::numeric::{self, Pref};
use crate::pattern::Pattern;
use crate::words::{self, capitalize, pick};
use crate::{temporal, Kind};

/// The `heuristic` generator. It remembers the last password it produced, so that a
/// "confirm password" field gets the same one.
#[derive(Debug, Clone, Default)]
pub struct HeuristicInput {
    last_password: Option<String>,
}

impl HeuristicInput {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn last_password(&self) -> Option<&str> {
        self.last_password.as_deref()
    }
}

impl InputGenerator for HeuristicInput {
    fn fork(&self) -> Box<dyn InputGenerator + Send> {
        Box::new(self.clone())
    }

    fn name(&self) -> &str {
        "heuristic"
    }

    fn text_for(&mut self, e: &Element, _page: &Observation, rng: &mut ChaCha8Rng) -> String {
        let kind = Kind::of(e);
        let hints = Hints::of(e);
        match kind {
            Kind::Number => numeric::on_grid(e, number_pref(from_hints(&hints)), None, rng),
            Kind::Date | Kind::Time | Kind::DateTimeLocal | Kind::Month | Kind::Week => {
                let birth = from_hints(&hints) == Field::BirthDate;
                temporal::value(
                    kind,
                    e.attr("min"),
                    e.attr("max"),
                    e.attr("step"),
                    birth,
                    rng,
                )
            }
            _ => self.text(kind, e, &hints, rng),
        }
    }

    /// A real option: placeholders such as "", "--" or "Select..." are skipped.
    fn option_for(
        &mut self,
        e: &Element,
        _page: &Observation,
        rng: &mut ChaCha8Rng,
    ) -> Option<String> {
        let real: Vec<&String> = e.options.iter().filter(|o| !is_placeholder(o)).collect();
        match real.choose(rng) {
            Some(o) => Some((*o).clone()),
            None => e.options.choose(rng).cloned(),
        }
    }
}

fn is_placeholder(option: &str) -> bool {
    let t = option.trim().to_lowercase();
    t.is_empty()
        || !t.chars().any(char::is_alphanumeric)
        || ["select", "choose", "please", "pick one", "-- "]
            .iter()
            .any(|p| t.starts_with(p))
}

impl HeuristicInput {
    fn text(&mut self, kind: Kind, e: &Element, h: &Hints, rng: &mut ChaCha8Rng) -> String {
        let field = classify(kind, h);
        let lim = Limits::of(e, kind);
        let pattern = e
            .attr("pattern")
            .filter(|p| kind.is_texty() && !p.is_empty());
        let re: Option<Regex> =
            pattern.and_then(|p| RegexBuilder::new(&format!("^(?:{p})$")).build().ok());
        let ok = |s: &str| lim.allows(s) && re.as_ref().is_none_or(|r| r.is_match(s));

        if field == Field::ConfirmPassword {
            if let Some(p) = self.last_password.as_ref().filter(|p| ok(p)) {
                return p.clone();
            }
        }
        let mut v = lim.fit(semantic(field, kind, e, lim, rng), rng);
        // The meaningful value first; the pattern generator only when it does not match.
        if !ok(&v) {
            if let Some(p) = pattern.and_then(|p| from_pattern(p, &ok, rng)) {
                v = p;
            }
        }
        if matches!(field, Field::Password | Field::ConfirmPassword) {
            self.last_password = Some(v.clone());
        }
        v
    }
}

fn from_pattern(p: &str, ok: &dyn Fn(&str) -> bool, rng: &mut ChaCha8Rng) -> Option<String> {
    let pat = Pattern::parse(p)?;
    (0..30).map(|_| pat.generate(rng)).find(|s| ok(s))
}

/// maxlength/minlength in chars; only the kinds HTML applies them to.
#[derive(Clone, Copy, Debug)]
struct Limits {
    min: usize,
    max: usize,
}

impl Limits {
    fn of(e: &Element, kind: Kind) -> Limits {
        if !(kind.is_texty() || kind == Kind::TextArea) {
            return Limits {
                min: 0,
                max: usize::MAX,
            };
        }
        let get = |k: &str| e.attr(k).and_then(|v| v.trim().parse::<usize>().ok());
        let max = get("maxlength").unwrap_or(usize::MAX);
        Limits {
            min: get("minlength").unwrap_or(0).min(max),
            max,
        }
    }

    fn allows(&self, s: &str) -> bool {
        (self.min..=self.max).contains(&s.chars().count())
    }

    /// Truncates to maxlength, pads to minlength: digits stay digits, and an email is
    /// padded before its `@`.
    fn fit(&self, s: String, rng: &mut ChaCha8Rng) -> String {
        let mut chars: Vec<char> = s.chars().collect();
        if chars.len() > self.max {
            chars.truncate(self.max);
            while chars.last().is_some_and(|c| c.is_whitespace()) {
                chars.pop();
            }
        }
        if chars.len() < self.min {
            let digits = !chars.is_empty() && chars.iter().all(char::is_ascii_digit);
            let at = chars.iter().position(|&c| c == '@').unwrap_or(chars.len());
            let pad: Vec<char> = (0..self.min - chars.len())
                .map(|_| {
                    if digits {
                        char::from(rng.gen_range(b'0'..=b'9'))
                    } else {
                        char::from(rng.gen_range(b'a'..=b'z'))
                    }
                })
                .collect();
            chars.splice(at..at, pad);
        }
        chars.into_iter().collect()
    }
}

/// The range a number field's meaning prefers (min/max/step still rule).
fn number_pref(field: Field) -> Pref {
    let (lo, hi, cents) = match field {
        Field::Age => (18.0, 80.0, false),
        Field::Year => (1970.0, 2024.0, false),
        Field::Quantity => (1.0, 10.0, false),
        Field::Amount => (1.0, 500.0, true),
        Field::Zip => (10000.0, 99999.0, false),
        Field::Pin => (1000.0, 9999.0, false),
        Field::Otp => (100_000.0, 999_999.0, false),
        _ => (1.0, 100.0, false),
    };
    Pref { lo, hi, cents }
}

fn semantic(field: Field, kind: Kind, e: &Element, lim: Limits, rng: &mut ChaCha8Rng) -> String {
    let first = pick(rng, words::FIRST_NAMES);
    let last = pick(rng, words::LAST_NAMES);
    let multi_line = kind == Kind::TextArea;
    match field {
        // A well-known test number: never a real card.
        Field::Card => "4111111111111111".into(),
        Field::Cvv => words::digits(rng, 3),
        Field::Expiry => {
            let long_year = Hints::of(e).has("yyyy");
            let y = rng.gen_range(27..=32);
            let y = if long_year { 2000 + y } else { y };
            format!("{:02}/{y:02}", rng.gen_range(1..=12))
        }
        Field::Password | Field::ConfirmPassword => password(rng, lim),
        Field::Email if e.attr("multiple").is_some_and(|v| v != "false") => {
            multi_email(rng, lim.max)
        }
        Field::Email => email(rng, lim.max),
        Field::Username => format!("{}{}", first.to_lowercase(), rng.gen_range(1..100)),
        Field::FirstName => first.into(),
        Field::LastName => last.into(),
        Field::FullName => format!("{first} {last}"),
        Field::Company => pick(rng, words::COMPANIES).into(),
        Field::Phone => phone(e, lim, rng),
        Field::Zip => words::digits(rng, 5),
        Field::City => pick(rng, words::CITIES).into(),
        Field::State => pick(rng, words::STATES).into(),
        Field::Country => pick(rng, words::COUNTRIES).into(),
        Field::Street => {
            let street = format!(
                "{} {} {}",
                rng.gen_range(1..1000),
                pick(rng, words::STREETS),
                pick(rng, words::STREET_SUFFIXES)
            );
            if multi_line {
                format!("{street}\n{}", pick(rng, words::CITIES))
            } else {
                street
            }
        }
        Field::Url => format!("https://www.example.com/{}", pick(rng, words::WORDS)),
        Field::Search => {
            let n = rng.gen_range(1..=3);
            words::words(rng, n)
        }
        Field::BirthDate | Field::Date => text_date(e, field == Field::BirthDate, rng),
        Field::Time => format!(
            "{:02}:{:02}",
            rng.gen_range(8..18),
            rng.gen_range(0..4) * 15
        ),
        Field::Age | Field::Year | Field::Quantity | Field::Pin | Field::Otp => {
            numeric::on_grid(e, number_pref(field), None, rng)
        }
        // Money gets two decimals unless the field says otherwise.
        Field::Amount => numeric::on_grid(e, number_pref(field), Some("0.01"), rng),
        Field::Title => {
            let n = rng.gen_range(2..=5);
            capitalize(&words::words(rng, n))
        }
        Field::Description | Field::Generic
            if multi_line || kind == Kind::ContentEditable || field == Field::Description =>
        {
            let n = if multi_line { rng.gen_range(2..=3) } else { 1 };
            (0..n)
                .map(|_| words::sentence(rng))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Field::Description | Field::Generic => {
            let n = rng.gen_range(1..=2);
            capitalize(&words::words(rng, n))
        }
    }
}

/// At least 8 chars with upper and lower letters, digits and a symbol, within the limits
/// (shorter only when maxlength forces it).
fn password(rng: &mut ChaCha8Rng, lim: Limits) -> String {
    let want = rng.gen_range(10..=14).max(lim.min).min(lim.max);
    let n_sym = usize::from(want >= 3);
    let n_dig = if want >= 4 { 2 } else { usize::from(want >= 2) };
    let n_let = want - n_sym - n_dig;
    let mut letters = String::new();
    while letters.len() < n_let {
        letters.push_str(&capitalize(pick(rng, words::WORDS)));
    }
    letters.truncate(n_let);
    let mut digits = String::new();
    for _ in 0..n_dig {
        digits.push(char::from(rng.gen_range(b'0'..=b'9')));
    }
    let sym = if n_sym == 1 {
        ["!", "@", "#", "$", "%", "&", "*", "?"]
            .choose(rng)
            .copied()
            .unwrap_or("!")
    } else {
        ""
    };
    format!("{letters}{digits}{sym}")
}

fn email(rng: &mut ChaCha8Rng, max: usize) -> String {
    let first = pick(rng, words::FIRST_NAMES).to_lowercase();
    let last = pick(rng, words::LAST_NAMES).to_lowercase();
    let local = match rng.gen_range(0..3) {
        0 => format!("{first}.{last}"),
        1 => format!("{first}{}", rng.gen_range(1..100)),
        _ => format!("{}{last}", &first[..1]),
    };
    let domain = pick(rng, words::DOMAINS);
    // Shorter reserved domains when maxlength is tight; "a@x" is still a valid HTML email.
    for d in [domain, "x.test", "x"] {
        if max >= d.len() + 2 {
            let keep = (max - 1 - d.len()).min(local.len());
            let local = local[..keep].trim_end_matches('.');
            return format!("{local}@{d}");
        }
    }
    "a@x".chars().take(max).collect()
}

/// `multiple`: two or three comma-separated addresses, fewer when maxlength is tight.
fn multi_email(rng: &mut ChaCha8Rng, max: usize) -> String {
    let n = rng.gen_range(2..=3);
    let list: Vec<String> = (0..n).map(|_| email(rng, usize::MAX)).collect();
    (2..=n)
        .rev()
        .map(|k| list[..k].join(","))
        .find(|s| s.len() <= max)
        .unwrap_or_else(|| email(rng, max))
}

/// Digits only (10, first one not 0), or the placeholder's format with fresh digits when
/// it shows one, e.g. "(555) 555-0100".
fn phone(e: &Element, lim: Limits, rng: &mut ChaCha8Rng) -> String {
    let ph = e.attr("placeholder").unwrap_or("");
    let n_digits = ph.chars().filter(char::is_ascii_digit).count();
    let template = (7..=15).contains(&n_digits)
        && ph
            .chars()
            .all(|c| c.is_ascii_digit() || " +-().".contains(c));
    if template && lim.allows(ph) {
        let mut first = true;
        return ph
            .chars()
            .map(|c| {
                if !c.is_ascii_digit() {
                    return c;
                }
                let lo = if std::mem::take(&mut first) { 2 } else { 0 };
                char::from(b'0' + rng.gen_range(lo..=9u8))
            })
            .collect();
    }
    words::digits(rng, 10)
}

/// A date typed into a text field, in the format its placeholder or label shows.
fn text_date(e: &Element, birth: bool, rng: &mut ChaCha8Rng) -> String {
    let iso = temporal::value(Kind::Date, None, None, None, birth, rng);
    let (y, m, d) = (&iso[0..4], &iso[5..7], &iso[8..10]);
    match date_format(e) {
        Some(f) => f.render(y, m, d),
        None => iso,
    }
}

/// The order and separator of a date typed into a text field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DateFormat {
    /// `YYYY-MM-DD`, the W3C format: what a field that shows no format gets.
    Iso,
    MdySlash,
    DmySlash,
    DmyDot,
    MdyDash,
    DmyDash,
}

impl DateFormat {
    /// Each format as a placeholder or label spells it, lower case.
    const SPELLED: [(&'static str, DateFormat); 5] = [
        ("mm/dd/yyyy", DateFormat::MdySlash),
        ("dd/mm/yyyy", DateFormat::DmySlash),
        ("dd.mm.yyyy", DateFormat::DmyDot),
        ("mm-dd-yyyy", DateFormat::MdyDash),
        ("dd-mm-yyyy", DateFormat::DmyDash),
    ];

    /// The date with these parts, as written (not checked: the parts may be out of
    /// range on purpose).
    pub(crate) fn render(self, y: &str, m: &str, d: &str) -> String {
        match self {
            DateFormat::Iso => format!("{y}-{m}-{d}"),
            DateFormat::MdySlash => format!("{m}/{d}/{y}"),
            DateFormat::DmySlash => format!("{d}/{m}/{y}"),
            DateFormat::DmyDot => format!("{d}.{m}.{y}"),
            DateFormat::MdyDash => format!("{m}-{d}-{y}"),
            DateFormat::DmyDash => format!("{d}-{m}-{y}"),
        }
    }
}

/// The date format a text field's placeholder or label shows (`DD.MM.YYYY`), if any.
pub(crate) fn date_format(e: &Element) -> Option<DateFormat> {
    let hint = format!("{} {}", e.attr("placeholder").unwrap_or(""), e.label).to_lowercase();
    DateFormat::SPELLED
        .iter()
        .find(|(spelled, _)| hint.contains(spelled))
        .map(|&(_, f)| f)
}

#[cfg(test)]
mod tests;
