//! The catalogue of boundary values: one row per way of breaking a field on purpose.
//!
//! The rows follow HTML's constraint model (valueMissing, tooLong, tooShort,
//! patternMismatch, typeMismatch, rangeUnderflow, rangeOverflow, stepMismatch, badInput)
//! and the classic boundaries of software testing (lengths, Unicode, markup and quotes,
//! edge dates and numbers). None is taken from a particular application's bugs.
//!
//! Each row says which family of boundary it belongs to ([`Family`]: lengths, Unicode,
//! markup and quotes, e-mails ...), which fields it applies to ([`Applies`]), how its
//! value is made ([`Make`]: a literal, or a rule over the field's attributes and its
//! valid value), which constraint it breaks and why it is worth a try. Values are made
//! without randomness: which row is tried is the layer's (seeded) choice, not the value.

use regex::RegexBuilder;
use wayfarer_core::model::Element;

use crate::classify::{classify, Field, Hints};
use crate::heuristic::{date_format, DateFormat};
use crate::{numeric, temporal, Kind};

/// One boundary value: which fields, how it is made, what it breaks, why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Stable name of the row (`email-no-dot`), for notes and tests.
    pub id: &'static str,
    pub family: Family,
    pub applies: Applies,
    pub make: Make,
    /// The HTML validity state the value violates (`tooLong`, `typeMismatch`, ...), or
    /// `classic` for a boundary HTML does not check.
    pub breaks: &'static str,
    /// Why it is worth a try, in a few words (it ends up in the step's rationale).
    pub why: &'static str,
}

/// The kind of boundary a row tries: the layer draws a family before a row, so a family
/// the table lists many variants of (six ways to quote) does not crowd out one it lists
/// few of (two lengths).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Nothing, or only blanks.
    Missing,
    /// Lengths: one past maxlength, one short of minlength, the lengths columns break at.
    Length,
    /// One character off the field's pattern.
    Pattern,
    /// Characters that are more than one unit or one direction.
    Unicode,
    /// Markup, quotes and escapes.
    Markup,
    Email,
    Url,
    Phone,
    Number,
    Date,
    Time,
}

/// Which fields a row applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applies {
    /// Every field one types into, native date and number inputs included.
    Every,
    /// Fields that take any text: text, search, password, email, tel, url, textarea and
    /// contenteditable (an email or url input lets any text in; only submitting checks it).
    FreeText,
    /// Free-text fields with a `maxlength`.
    MaxLength,
    /// Free-text fields with a `minlength` of 1 or more.
    MinLength,
    /// Single-line text fields with a `pattern`.
    Pattern,
    /// `type=email`, or a text field whose words say e-mail.
    Email,
    /// `type=url`, or a text field whose words say URL or website.
    Url,
    /// `type=tel`, or a text field whose words say phone.
    Phone,
    /// `type=number`, or a text field whose words say it holds a number (age, year,
    /// quantity, amount).
    Number,
    /// A text field that holds a number: unlike `type=number`, it lets letters in.
    TextNumber,
    /// `type=date`: the browser takes only valid ISO dates there.
    NativeDate,
    /// A text field that holds a date, in the format its placeholder or label shows
    /// (`DD.MM.YYYY`), ISO when it shows none.
    TextDate,
    /// `type=time`, or a text field whose words say time.
    Time,
    /// A text field whose words say time: it lets an out-of-range time in.
    TextTime,
}

impl Applies {
    /// The row tests what the field itself declares (its type, a constraint attribute,
    /// the format its words show) rather than what any text field takes: those are
    /// tried first, since a server's own check of the same rule is where it most often
    /// differs from the browser's.
    pub fn specific(self) -> bool {
        !matches!(self, Applies::Every | Applies::FreeText)
    }
}

impl Row {
    /// The value breaks no HTML constraint (`classic`): a browser submits it whatever the
    /// form's own validation, so only the application can refuse it.
    pub fn passes_html(&self) -> bool {
        self.breaks == "classic"
    }
}

/// How a row's value is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Make {
    /// This text, as is.
    Literal(&'static str),
    /// The field's valid value cut or padded to this many characters (padded before an
    /// `@`, so an e-mail stays one; digits with digits).
    Length(usize),
    /// The valid value padded to `maxlength` + 1 characters.
    MaxLengthPlusOne,
    /// The valid value cut to `minlength` - 1 characters.
    MinLengthMinusOne,
    /// The valid value one character off the field's `pattern` (a `!` added or put first).
    PatternBroken,
    /// An e-mail at example.com whose local part has this many characters.
    LocalPart(usize),
    /// An https URL at example.com of this many characters.
    LongUrl(usize),
    /// A number one `step` (default 1) below `min`; needs `min`.
    BelowMin,
    /// A number one `step` (default 1) above `max`; needs `max`.
    AboveMax,
    /// Half a `step` (default 1) above the step base (`min`, else 0): off the grid, inside
    /// the range; not for `step=any`.
    OffStep,
    /// The ISO day before `min`; needs `min`.
    DayBeforeMin,
    /// The ISO day after `max`; needs `max`.
    DayAfterMax,
    /// A date with these parts, written in the field's own format; the parts may be out
    /// of range on purpose.
    Date {
        y: &'static str,
        m: &'static str,
        d: &'static str,
    },
}

/// Shorthand for the table: a row with a literal value.
const fn lit(
    id: &'static str,
    family: Family,
    applies: Applies,
    value: &'static str,
    breaks: &'static str,
    why: &'static str,
) -> Row {
    Row {
        id,
        family,
        applies,
        make: Make::Literal(value),
        breaks,
        why,
    }
}

/// Shorthand for the table: a row whose value follows a rule.
const fn rule(
    id: &'static str,
    family: Family,
    applies: Applies,
    make: Make,
    breaks: &'static str,
    why: &'static str,
) -> Row {
    Row {
        id,
        family,
        applies,
        make,
        breaks,
        why,
    }
}

/// Shorthand for the table: a text date with these parts. HTML checks no date typed as
/// text: these test the application's own parser, hence `classic`.
const fn date(
    id: &'static str,
    y: &'static str,
    m: &'static str,
    d: &'static str,
    why: &'static str,
) -> Row {
    Row {
        id,
        family: Family::Date,
        applies: Applies::TextDate,
        make: Make::Date { y, m, d },
        breaks: "classic",
        why,
    }
}

use Applies as A;
use Family as F;
use Make as M;

/// Every boundary value the `mutate` layer knows, grouped by what it breaks.
#[rustfmt::skip]
pub const CATALOGUE: &[Row] = &[
    // valueMissing
    lit("empty", F::Missing, A::Every, "", "valueMissing", "empty: a required field left blank"),
    lit("blank", F::Missing, A::FreeText, "   ", "valueMissing", "only spaces: blank to a person, not to `required`"),
    // tooLong, tooShort, and the lengths columns and buffers break at
    rule("maxlength+1", F::Length, A::MaxLength, M::MaxLengthPlusOne, "tooLong", "one character past maxlength"),
    rule("minlength-1", F::Length, A::MinLength, M::MinLengthMinusOne, "tooShort", "one character short of minlength"),
    rule("long-256", F::Length, A::FreeText, M::Length(256), "classic", "256 characters: one past the common 255-character column"),
    rule("long-10000", F::Length, A::FreeText, M::Length(10_000), "classic", "10,000 characters: past any buffer or column meant for a field"),
    // patternMismatch
    rule("pattern-off", F::Pattern, A::Pattern, M::PatternBroken, "patternMismatch", "one character off the field's pattern"),
    // Unicode
    lit("combining", F::Unicode, A::FreeText, "Zoe\u{308} Cafe\u{301}", "classic", "combining marks: more code points than letters"),
    lit("astral", F::Unicode, A::FreeText, "\u{1d518}\u{1d52b}\u{1d526} \u{2070e}", "classic", "characters outside the BMP: two UTF-16 units each"),
    lit("emoji", F::Unicode, A::FreeText, "\u{1f44d}\u{1f3fd} \u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}", "classic", "emoji with a skin tone and a ZWJ family: one glyph, many code points"),
    lit("rtl", F::Unicode, A::FreeText, "\u{645}\u{631}\u{62d}\u{628}\u{627} \u{628}\u{627}\u{644}\u{639}\u{627}\u{644}\u{645}", "classic", "right-to-left script"),
    lit("bidi-override", F::Unicode, A::FreeText, "\u{202e}fdp.exe", "classic", "a right-to-left override: shown reversed"),
    // Markup and quotes
    lit("markup", F::Markup, A::FreeText, "<b>bold</b>", "classic", "markup: shows bold where it is not escaped"),
    lit("script", F::Markup, A::FreeText, "<script>alert(1)</script>", "classic", "a script tag: runs where it is not escaped"),
    lit("double-quote", F::Markup, A::FreeText, "Say \"hi\"", "classic", "a double quote: ends an attribute or a JSON string"),
    lit("single-quote", F::Markup, A::FreeText, "O'Brien", "classic", "an apostrophe: ends a SQL or JavaScript string"),
    lit("ampersand", F::Markup, A::FreeText, "Tom & Jerry", "classic", "an ampersand: starts an entity or a query parameter"),
    lit("backslash", F::Markup, A::FreeText, "C:\\new\\table", "classic", "backslashes: read as escapes (\\n, \\t) when unescaped"),
    // E-mails HTML's own grammar accepts, though no mail reaches them
    lit("email-no-dot", F::Email, A::Email, "a@b", "classic", "no dot in the domain: valid HTML, no real address"),
    lit("email-dotless-domain", F::Email, A::Email, "user@localhost", "classic", "a dotless domain: valid HTML, undeliverable"),
    rule("email-long-local", F::Email, A::Email, M::LocalPart(65), "classic", "a 65-character local part: valid HTML, past RFC 5321's 64"),
    // E-mails malformed but plausible (typeMismatch)
    lit("email-no-domain", F::Email, A::Email, "user@", "typeMismatch", "nothing after the @"),
    lit("email-no-local", F::Email, A::Email, "@example.com", "typeMismatch", "nothing before the @"),
    lit("email-double-at", F::Email, A::Email, "user@@example.com", "typeMismatch", "two @ signs"),
    lit("email-double-dot", F::Email, A::Email, "user@example..com", "typeMismatch", "an empty domain label"),
    lit("email-space", F::Email, A::Email, "us er@example.com", "typeMismatch", "a space inside"),
    // URLs
    lit("url-no-scheme", F::Url, A::Url, "www.example.com", "typeMismatch", "no scheme"),
    lit("url-scheme-only", F::Url, A::Url, "http://", "typeMismatch", "a scheme and nothing else"),
    lit("url-javascript", F::Url, A::Url, "javascript:alert(1)", "classic", "a javascript: URL: valid, runs when used as a link"),
    rule("url-long", F::Url, A::Url, M::LongUrl(2100), "classic", "2,100 characters: past the classic 2,083-character URL limit"),
    // Phone numbers
    lit("phone-short", F::Phone, A::Phone, "12", "classic", "two digits: too short for any number"),
    lit("phone-long", F::Phone, A::Phone, "+1234567890123456", "classic", "16 digits: past E.164's 15"),
    lit("phone-letters", F::Phone, A::Phone, "555-ABCD", "classic", "letters in a phone number"),
    lit("phone-plus", F::Phone, A::Phone, "+", "classic", "a lone plus sign"),
    // Numbers
    lit("number-negative", F::Number, A::Number, "-1", "rangeUnderflow", "a negative number"),
    lit("number-zero", F::Number, A::Number, "0", "classic", "zero: divides, empties, and is falsy"),
    rule("number-below-min", F::Number, A::Number, M::BelowMin, "rangeUnderflow", "one step below min"),
    rule("number-above-max", F::Number, A::Number, M::AboveMax, "rangeOverflow", "one step above max"),
    lit("number-huge", F::Number, A::Number, "99999999999999999999", "classic", "20 digits: past any 64-bit integer"),
    rule("number-off-step", F::Number, A::Number, M::OffStep, "stepMismatch", "half a step off the grid: a fraction where whole steps are expected"),
    lit("number-exponent", F::Number, A::Number, "1e3", "classic", "exponent form: a valid number few parsers expect"),
    lit("number-letters", F::Number, A::TextNumber, "12abc", "classic", "digits, then letters: what badInput catches in a number input"),
    // Native date inputs: only valid ISO dates can be entered there
    rule("date-before-min", F::Date, A::NativeDate, M::DayBeforeMin, "rangeUnderflow", "the day before min"),
    rule("date-after-max", F::Date, A::NativeDate, M::DayAfterMax, "rangeOverflow", "the day after max"),
    lit("date-first", F::Date, A::NativeDate, "0001-01-01", "classic", "the first valid date"),
    lit("date-last", F::Date, A::NativeDate, "9999-12-31", "classic", "the last four-digit date"),
    lit("date-leap", F::Date, A::NativeDate, "2024-02-29", "classic", "a leap day"),
    // Text date fields, in the format the field shows
    date("text-date-leap", "2024", "02", "29", "the leap day of a leap year"),
    date("text-date-feb29", "2023", "02", "29", "29 February of a non-leap year"),
    date("text-date-month-13", "2024", "13", "01", "month 13"),
    date("text-date-day-32", "2024", "01", "32", "day 32"),
    date("text-date-day-00", "2024", "01", "00", "day 00"),
    date("text-date-year-0", "0000", "01", "01", "year 0000"),
    date("text-date-far-future", "9999", "12", "31", "31 December 9999"),
    date("text-date-far-past", "1900", "01", "01", "1 January 1900: the floor of many date types"),
    // Times
    lit("time-24", F::Time, A::TextTime, "24:00", "classic", "24:00: the end of a day, not a time of one"),
    lit("time-last-second", F::Time, A::Time, "23:59:59", "stepMismatch", "the last second of a day: off the default one-minute step"),
    lit("time-midnight", F::Time, A::Time, "00:00", "classic", "midnight: zero"),
];

/// What the catalogue needs to know about a field, read once.
struct Target<'a> {
    e: &'a Element,
    kind: Kind,
    field: Field,
    /// The format of a text date field; `None` when the field holds no date as text.
    date: Option<DateFormat>,
}

impl<'a> Target<'a> {
    fn of(e: &'a Element) -> Target<'a> {
        let kind = Kind::of(e);
        let field = classify(kind, &Hints::of(e));
        let date = match (kind, date_format(e)) {
            (Kind::Text, Some(f)) => Some(f),
            (Kind::Text, None) if matches!(field, Field::Date | Field::BirthDate) => {
                Some(DateFormat::Iso)
            }
            _ => None,
        };
        Target {
            e,
            kind,
            field,
            date,
        }
    }

    fn free_text(&self) -> bool {
        self.kind.is_texty() || matches!(self.kind, Kind::TextArea | Kind::ContentEditable)
    }

    fn text_number(&self) -> bool {
        self.kind == Kind::Text
            && self.date.is_none()
            && matches!(
                self.field,
                Field::Age | Field::Year | Field::Quantity | Field::Amount
            )
    }

    fn length_attr(&self, name: &str) -> Option<usize> {
        self.e.attr(name)?.trim().parse().ok()
    }

    fn applies(&self, a: Applies) -> bool {
        let text = self.kind == Kind::Text;
        match a {
            Applies::Every => true,
            Applies::FreeText => self.free_text(),
            Applies::MaxLength => self.free_text() && self.length_attr("maxlength").is_some(),
            Applies::MinLength => {
                self.free_text() && self.length_attr("minlength").is_some_and(|n| n > 0)
            }
            Applies::Pattern => {
                self.kind.is_texty() && self.e.attr("pattern").is_some_and(|p| !p.is_empty())
            }
            Applies::Email => self.kind == Kind::Email || (text && self.field == Field::Email),
            Applies::Url => self.kind == Kind::Url || (text && self.field == Field::Url),
            Applies::Phone => {
                matches!(self.kind, Kind::Tel | Kind::Text) && self.field == Field::Phone
            }
            Applies::Number => self.kind == Kind::Number || self.text_number(),
            Applies::TextNumber => self.text_number(),
            Applies::NativeDate => self.kind == Kind::Date,
            Applies::TextDate => self.date.is_some(),
            Applies::Time => self.kind == Kind::Time || (text && self.field == Field::Time),
            Applies::TextTime => text && self.field == Field::Time,
        }
    }

    /// The row's value for this field, `None` when the rule needs an attribute the
    /// field lacks.
    fn make(&self, m: Make, valid: &str) -> Option<String> {
        match m {
            Make::Literal(s) => Some(s.to_string()),
            Make::Length(n) => Some(resize(valid, n)),
            Make::MaxLengthPlusOne => Some(resize(valid, self.length_attr("maxlength")? + 1)),
            Make::MinLengthMinusOne => Some(resize(
                valid,
                self.length_attr("minlength")?.checked_sub(1)?,
            )),
            Make::PatternBroken => self.pattern_broken(valid),
            Make::LocalPart(n) => Some(format!("{}@example.com", "a".repeat(n))),
            Make::LongUrl(n) => {
                let head = "https://example.com/";
                Some(format!(
                    "{head}{}",
                    "a".repeat(n.saturating_sub(head.len()))
                ))
            }
            Make::BelowMin | Make::AboveMax | Make::OffStep => self.number(m),
            Make::DayBeforeMin => self.day_next_to("min", -1),
            Make::DayAfterMax => self.day_next_to("max", 1),
            Make::Date { y, m, d } => Some(self.date.unwrap_or(DateFormat::Iso).render(y, m, d)),
        }
    }

    fn pattern_broken(&self, valid: &str) -> Option<String> {
        let p = self.e.attr("pattern")?;
        let re = RegexBuilder::new(&format!("^(?:{p})$")).build().ok()?;
        [format!("{valid}!"), format!("!{valid}"), "!".to_string()]
            .into_iter()
            .find(|v| !re.is_match(v))
    }

    /// One step past min or max, or half a step off the grid, written with as many
    /// decimals as the attributes use (plus one for the half step).
    fn number(&self, m: Make) -> Option<String> {
        let attr = |k: &str| self.e.attr(k).map(str::trim);
        let min = numeric::parse(attr("min"));
        let max = numeric::parse(attr("max"));
        let any = attr("step").is_some_and(|s| s.eq_ignore_ascii_case("any"));
        let step_str = attr("step").filter(|s| numeric::parse(Some(s)).is_some_and(|v| v > 0.0));
        let step = numeric::parse(step_str).unwrap_or(1.0);
        let prec = [step_str, attr("min"), attr("max")]
            .into_iter()
            .flatten()
            .map(numeric::decimals)
            .max()
            .unwrap_or(0);
        match m {
            Make::BelowMin => Some(numeric::format_num(min? - step, prec)),
            Make::AboveMax => Some(numeric::format_num(max? + step, prec)),
            _ if any => None,
            _ => {
                let v = min.unwrap_or(0.0) + step / 2.0;
                max.is_none_or(|m| v <= m)
                    .then(|| numeric::format_num(v, prec + 1))
            }
        }
    }

    /// The ISO day `delta` days from the date attribute `name`, within the four-digit
    /// years a date input takes.
    fn day_next_to(&self, name: &str, delta: i64) -> Option<String> {
        let day = temporal::parse_date(self.e.attr(name)?.trim())? + delta;
        let (y, _, _) = temporal::civil_from_days(day);
        (1..=9999).contains(&y).then(|| temporal::format_date(day))
    }
}

/// `valid` cut or padded to `n` characters: padded before its `@` when it has one, with
/// `9` when it is all digits, else with `x` (an empty value becomes `x` repeated).
fn resize(valid: &str, n: usize) -> String {
    let mut chars: Vec<char> = valid.chars().collect();
    if chars.len() >= n {
        chars.truncate(n);
        return chars.into_iter().collect();
    }
    let digits = !chars.is_empty() && chars.iter().all(char::is_ascii_digit);
    let pad = if digits { '9' } else { 'x' };
    let at = chars.iter().position(|&c| c == '@').unwrap_or(chars.len());
    let missing = n - chars.len();
    chars.splice(at..at, std::iter::repeat_n(pad, missing));
    chars.into_iter().collect()
}

/// The rows that apply to `e` with the value each makes, given the field's valid value;
/// rows whose value is the valid one (nothing would be broken) are left out.
pub fn boundary_values(e: &Element, valid: &str) -> Vec<(&'static Row, String)> {
    let t = Target::of(e);
    CATALOGUE
        .iter()
        .filter(|r| t.applies(r.applies))
        .filter_map(|r| t.make(r.make, valid).map(|v| (r, v)))
        .filter(|(_, v)| v != valid)
        .collect()
}

/// The row called `id`.
pub fn row(id: &str) -> Option<&'static Row> {
    CATALOGUE.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::input;

    fn values(e: &Element, valid: &str) -> Vec<(&'static str, String)> {
        boundary_values(e, valid)
            .into_iter()
            .map(|(r, v)| (r.id, v))
            .collect()
    }

    fn value(e: &Element, valid: &str, id: &str) -> Option<String> {
        values(e, valid)
            .into_iter()
            .find(|(i, _)| *i == id)
            .map(|(_, v)| v)
    }

    fn ids(e: &Element) -> Vec<&'static str> {
        values(e, "valid").into_iter().map(|(i, _)| i).collect()
    }

    #[test]
    fn ids_are_unique_and_every_row_says_why() {
        let mut seen = std::collections::HashSet::new();
        for r in CATALOGUE {
            assert!(seen.insert(r.id), "{} twice", r.id);
            assert!(!r.why.is_empty() && !r.breaks.is_empty(), "{}", r.id);
        }
        assert_eq!(row("email-no-dot").unwrap().make, Make::Literal("a@b"));
    }

    #[test]
    fn one_past_maxlength_is_maxlength_plus_one_long() {
        let e = input("text", &[("name", "city"), ("maxlength", "20")]);
        let v = value(&e, "Paris", "maxlength+1").unwrap();
        assert_eq!(v.chars().count(), 21);
        assert!(v.starts_with("Paris"), "{v}");
        // An e-mail is padded before its @, so it still reads as one.
        let e = input("email", &[("maxlength", "12")]);
        assert_eq!(value(&e, "a@b.co", "maxlength+1").unwrap(), "axxxxxxx@b.co");
        // Without the attribute there is no such row.
        assert_eq!(value(&input("text", &[]), "Paris", "maxlength+1"), None);
    }

    #[test]
    fn one_below_minlength_and_the_long_rows() {
        let e = input("password", &[("minlength", "8")]);
        assert_eq!(value(&e, "Secret12!", "minlength-1").unwrap(), "Secret1");
        let long = value(&e, "Secret12!", "long-256").unwrap();
        assert_eq!(long.chars().count(), 256);
        let digits = input("text", &[("name", "code")]);
        let v = value(&digits, "1234", "long-10000").unwrap();
        assert_eq!(v.len(), 10_000);
        assert!(v.chars().all(|c| c.is_ascii_digit()));
    }

    #[test]
    fn rows_follow_the_field_type() {
        let email = ids(&input("email", &[]));
        assert!(email.contains(&"email-no-dot") && email.contains(&"email-space"));
        assert!(!email.contains(&"number-negative") && !email.contains(&"phone-plus"));
        let text_email = ids(&input("text", &[("name", "email")]));
        assert!(text_email.contains(&"email-double-at"));
        let url = ids(&input("url", &[]));
        assert!(url.contains(&"url-javascript") && !url.contains(&"email-no-dot"));
        let tel = ids(&input("tel", &[("name", "phone")]));
        assert!(tel.contains(&"phone-plus") && tel.contains(&"phone-letters"));
        // A native number input lets no letters in: no badInput row there.
        let number = ids(&input("number", &[]));
        assert!(number.contains(&"number-huge") && number.contains(&"number-exponent"));
        assert!(!number.contains(&"number-letters") && !number.contains(&"markup"));
        assert!(!number.contains(&"number-below-min"), "no min, no row");
        let age = ids(&input("text", &[("name", "age")]));
        assert!(age.contains(&"number-letters") && age.contains(&"markup"));
        let every: Vec<&str> = CATALOGUE.iter().map(|r| r.id).collect();
        let textarea = Element {
            tag: "textarea".into(),
            ..Element::default()
        };
        assert!(ids(&textarea).contains(&"long-10000"));
        assert!(every.len() >= 50);
    }

    #[test]
    fn numbers_step_past_min_and_max_and_off_the_grid() {
        let e = input("number", &[("min", "1"), ("max", "99")]);
        assert_eq!(value(&e, "5", "number-below-min").unwrap(), "0");
        assert_eq!(value(&e, "5", "number-above-max").unwrap(), "100");
        assert_eq!(value(&e, "5", "number-off-step").unwrap(), "1.5");
        let e = input("number", &[("min", "0"), ("max", "10"), ("step", "0.25")]);
        assert_eq!(value(&e, "5", "number-below-min").unwrap(), "-0.25");
        assert_eq!(value(&e, "5", "number-above-max").unwrap(), "10.25");
        assert_eq!(value(&e, "5", "number-off-step").unwrap(), "0.125");
        let any = input("number", &[("step", "any")]);
        assert_eq!(value(&any, "5", "number-off-step"), None);
        // A valid value equal to a row's is no boundary: left out.
        let e = input("number", &[]);
        assert_eq!(value(&e, "0", "number-zero"), None);
    }

    #[test]
    fn a_text_date_gets_values_in_its_own_format() {
        let e = input("text", &[("name", "start"), ("placeholder", "DD.MM.YYYY")]);
        let v = |id| value(&e, "14.03.2025", id).unwrap();
        assert_eq!(v("text-date-feb29"), "29.02.2023");
        assert_eq!(v("text-date-leap"), "29.02.2024");
        assert_eq!(v("text-date-month-13"), "01.13.2024");
        assert_eq!(v("text-date-day-32"), "32.01.2024");
        assert_eq!(v("text-date-day-00"), "00.01.2024");
        assert_eq!(v("text-date-year-0"), "01.01.0000");
        assert_eq!(v("text-date-far-future"), "31.12.9999");
        // A placeholder of digits and dots is a date here, not a number to spell badly.
        assert!(!ids(&e).contains(&"number-letters"));
        let mut us = input("text", &[("name", "dob")]);
        us.label = "Birth date (MM/DD/YYYY)".into();
        assert_eq!(
            value(&us, "03/14/1980", "text-date-feb29").unwrap(),
            "02/29/2023"
        );
        // A date field that shows no format gets ISO text.
        let plain = input("text", &[("name", "date")]);
        assert_eq!(
            value(&plain, "2025-03-14", "text-date-day-32").unwrap(),
            "2024-01-32"
        );
    }

    #[test]
    fn a_native_date_field_never_gets_an_invalid_iso_date() {
        for attrs in [
            vec![("min", "2024-01-01"), ("max", "2024-12-31")],
            vec![("min", "0001-01-01"), ("max", "9999-12-31")],
            vec![],
        ] {
            let e = input("date", &attrs);
            let all = values(&e, "2024-06-01");
            assert!(all.iter().any(|(id, _)| *id == "date-leap"));
            for (id, v) in &all {
                assert!(
                    v.is_empty() || temporal::parse_date(v).is_some(),
                    "{id}: {v:?} is no valid ISO date"
                );
                assert!(!id.starts_with("text-date"), "{id}");
            }
        }
        let e = input("date", &[("min", "2024-03-01"), ("max", "2024-12-31")]);
        assert_eq!(
            value(&e, "2024-06-01", "date-before-min").unwrap(),
            "2024-02-29"
        );
        assert_eq!(
            value(&e, "2024-06-01", "date-after-max").unwrap(),
            "2025-01-01"
        );
    }

    #[test]
    fn times_and_patterns() {
        let native = ids(&input("time", &[]));
        assert!(native.contains(&"time-last-second") && !native.contains(&"time-24"));
        assert!(ids(&input("text", &[("name", "time")])).contains(&"time-24"));
        let zip = input("text", &[("name", "zip"), ("pattern", "[0-9]{5}")]);
        let off = value(&zip, "75001", "pattern-off").unwrap();
        assert_eq!(off, "75001!");
        // A pattern that takes anything cannot be broken.
        let open = input("text", &[("pattern", ".*")]);
        assert_eq!(value(&open, "x", "pattern-off"), None);
    }
}
