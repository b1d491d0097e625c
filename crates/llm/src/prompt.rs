//! VETL's prompts (paper 000, Tables I and II) and AutoE2E's (paper 003), rendered from the
//! versioned templates in `templates/`: the input prompt asks for a field's value, the
//! element prompt for the button that should follow it; the feature prompt for the
//! features an action is part of, the judge's whether two labels name one feature. The
//! cache key holds the rendered prompt, so a changed template never answers from old
//! entries.

use std::sync::OnceLock;

use minijinja::{context, AutoEscape, Environment};
use wayfarer_core::model::{Element, Observation};

use crate::provider::FeatureAsk;

/// The template files, by name; the version is in the name.
pub const INPUT_TEMPLATE: (&str, &str) = (
    "vetl-input.v1.txt",
    include_str!("../templates/vetl-input.v1.txt"),
);
pub const ELEMENT_TEMPLATE: (&str, &str) = (
    "vetl-element.v1.txt",
    include_str!("../templates/vetl-element.v1.txt"),
);
pub const FEATURES_TEMPLATE: (&str, &str) = (
    "autoe2e-features.v1.txt",
    include_str!("../templates/autoe2e-features.v1.txt"),
);
pub const SAME_FEATURE_TEMPLATE: (&str, &str) = (
    "autoe2e-same.v1.txt",
    include_str!("../templates/autoe2e-same.v1.txt"),
);
pub const CONSTRAINTS: (&str, &str) = (
    "vetl-constraints.v1.txt",
    include_str!("../templates/vetl-constraints.v1.txt"),
);

/// Longest page text (title, nearby text, value) put in a prompt, in characters.
const MAX_CONTEXT: usize = 100;
/// Longest action or application description (an action names the fields it sent).
const MAX_DESCRIPTION: usize = 300;

/// One row of the constraint table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstraintRow {
    pub tag: String,
    /// `*` for any.
    pub input_type: String,
    /// `-` for a row that applies without an attribute.
    pub attribute: String,
    pub sentence: String,
}

/// Parse the constraint table: `tag type attribute sentence...`, `#` comments.
pub fn parse_constraints(text: &str) -> Result<Vec<ConstraintRow>, String> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut cols = line.split_whitespace();
        let (Some(tag), Some(ty), Some(attr)) = (cols.next(), cols.next(), cols.next()) else {
            return Err(format!(
                "line {}: want `tag type attribute sentence`",
                n + 1
            ));
        };
        let sentence = cols.collect::<Vec<_>>().join(" ");
        if sentence.is_empty() {
            return Err(format!("line {}: no sentence", n + 1));
        }
        rows.push(ConstraintRow {
            tag: tag.into(),
            input_type: ty.into(),
            attribute: attr.into(),
            sentence,
        });
    }
    Ok(rows)
}

/// The compiled templates and the constraint table.
pub struct Prompts {
    env: Environment<'static>,
    rows: Vec<ConstraintRow>,
}

impl Prompts {
    /// The built-in templates (checked by the tests, so this never fails in a release).
    pub fn get() -> &'static Prompts {
        static P: OnceLock<Prompts> = OnceLock::new();
        P.get_or_init(|| Prompts::new().expect("the built-in prompt templates are valid"))
    }

    pub fn new() -> Result<Prompts, String> {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::None);
        for (name, text) in [
            INPUT_TEMPLATE,
            ELEMENT_TEMPLATE,
            FEATURES_TEMPLATE,
            SAME_FEATURE_TEMPLATE,
        ] {
            env.add_template(name, text)
                .map_err(|e| format!("{name}: {e}"))?;
        }
        let rows =
            parse_constraints(CONSTRAINTS.1).map_err(|e| format!("{}: {e}", CONSTRAINTS.0))?;
        Ok(Prompts { env, rows })
    }

    pub fn constraint_rows(&self) -> &[ConstraintRow] {
        &self.rows
    }

    /// One sentence per constraint attribute `field` carries (Table II), in table order.
    pub fn constraints(&self, field: &Element) -> Vec<String> {
        let ty = field_type(field);
        self.rows
            .iter()
            .filter(|r| {
                r.tag == field.tag && (r.input_type == "*" || Some(r.input_type.as_str()) == ty)
            })
            .filter(|r| r.attribute == "-" || field.attr(&r.attribute).is_some())
            .map(|r| fill_in(&r.sentence, field))
            .collect()
    }

    /// VETL's input prompt for `field` on `page`; `vision` adds the sentence about the
    /// screenshot with the red frame.
    pub fn input(&self, field: &Element, page: &Observation, vision: bool) -> String {
        let value = field.attr("value").filter(|v| !v.is_empty()).map(clip);
        self.render(
            INPUT_TEMPLATE.0,
            context! {
                vision,
                title => title_of(page),
                near => local_context(field, page),
                input_type => field_type(field),
                about => about(field),
                value,
                constraints => self.constraints(field),
            },
        )
    }

    /// VETL's element prompt: which of `buttons` (numbered from 1) should follow typing
    /// `value` into `field`.
    pub fn element(
        &self,
        field: &Element,
        value: &str,
        buttons: &[&Element],
        page: &Observation,
        vision: bool,
    ) -> String {
        let names: Vec<String> = buttons.iter().map(|b| clip(&b.describe())).collect();
        self.render(
            ELEMENT_TEMPLATE.0,
            context! {
                vision,
                numbers => numbers(buttons.len()),
                title => title_of(page),
                near => local_context(field, page),
                value => clip(value),
                buttons => names,
            },
        )
    }

    /// AutoE2E's feature prompt: at most `ask.r` features the action (after the previous
    /// one, when given) is part of, most likely first, one per line.
    pub fn features(&self, ask: &FeatureAsk<'_>) -> String {
        let (previous, previous_context) = match ask.previous {
            Some((action, context)) => (Some(clip_to(action, MAX_DESCRIPTION)), clip(context)),
            None => (None, String::new()),
        };
        self.render(
            FEATURES_TEMPLATE.0,
            context! {
                app => clip_to(ask.app, MAX_DESCRIPTION),
                context => clip(ask.context),
                action => clip_to(ask.action, MAX_DESCRIPTION),
                previous,
                previous_context,
                r => ask.r,
            },
        )
    }

    /// AutoE2E's judge prompt: whether `new` and `known` are one feature of `app`.
    pub fn same_feature(&self, app: &str, new: &str, known: &str) -> String {
        self.render(
            SAME_FEATURE_TEMPLATE.0,
            context! {
                app => clip_to(app, MAX_DESCRIPTION),
                new => clip(new),
                known => clip(known),
            },
        )
    }

    fn render(&self, name: &str, ctx: minijinja::Value) -> String {
        let text = self
            .env
            .get_template(name)
            .and_then(|t| t.render(ctx))
            .expect("the built-in prompt templates render");
        // One sentence per line in the file, one paragraph in the prompt.
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// The type the prompt names: an input's `type`, none for a textarea or an editable div.
fn field_type(field: &Element) -> Option<&str> {
    (field.tag == "input").then(|| field.input_type.as_deref().unwrap_or("text"))
}

/// `{name}` replaced by the field's attribute (`{min}` defaults to 0: the step base).
fn fill_in(sentence: &str, field: &Element) -> String {
    let mut out = String::new();
    let mut rest = sentence;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + close];
        let value = field.attr(name).map(str::to_string).unwrap_or_else(|| {
            if name == "min" {
                "0".into()
            } else {
                String::new()
            }
        });
        out.push_str(&clip(&value));
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// "1,2,3" for a few buttons, "1 to 12" for many.
fn numbers(n: usize) -> String {
    if n <= 5 {
        (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    } else {
        format!("1 to {n}")
    }
}

/// Page text made fit for a prompt: whitespace collapsed, cut at `MAX_CONTEXT` chars.
fn clip(s: &str) -> String {
    clip_to(s, MAX_CONTEXT)
}

/// Whitespace collapsed, cut at `max` chars.
fn clip_to(s: &str, max: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > max {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}…")
    } else {
        s
    }
}

/// The global context: the page's title, or its URL when it has none.
pub fn title_of(page: &Observation) -> String {
    let t = clip(&page.title);
    if t.is_empty() {
        clip(&page.url)
    } else {
        t
    }
}

/// What the field is about: its placeholder, else its name, else its id, made readable
/// ("firstName" and "first_name" read "first name"). None when all are empty.
pub fn about(field: &Element) -> Option<String> {
    ["placeholder", "name", "id"]
        .iter()
        .filter_map(|a| field.attr(a))
        .map(humanize)
        .find(|s| !s.is_empty())
        .map(|s| clip(&s))
}

/// `firstName`, `first_name`, `first-name` -> `first name`; `Amount` -> `amount`.
pub fn humanize(s: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in s.trim().chars() {
        if c == '_' || c == '-' || c == '.' || c.is_whitespace() {
            out.push(' ');
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.extend(c.to_lowercase());
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The local context: the text nearest to the field. The scan's label (a `<label>`, an
/// `aria-labelledby`, or the nearest text before the field) when there is one; otherwise
/// the text element nearest in the DOM tree (fewest edges between the two, by XPath).
/// Trailing colons go: the template adds its own full stop.
pub fn local_context(field: &Element, page: &Observation) -> Option<String> {
    let label = clip(&field.label);
    let near = if !label.is_empty() {
        label
    } else {
        let here = steps(&field.xpath);
        page.elements
            .iter()
            .filter(|e| e.locator != field.locator && !e.text.trim().is_empty())
            .filter(|e| !e.xpath.is_empty() && !here.is_empty())
            .min_by_key(|e| tree_distance(&here, &steps(&e.xpath)))
            .map(|e| clip(&e.text))?
    };
    let near = near.trim_end_matches([':', '.', ' ', '*']).to_string();
    (!near.is_empty()).then_some(near)
}

/// The steps of an absolute XPath (`/html[1]/body[1]/...`).
pub(crate) fn steps(xpath: &str) -> Vec<&str> {
    xpath.split('/').filter(|s| !s.is_empty()).collect()
}

/// Edges between two nodes of the DOM tree given their absolute paths.
pub fn tree_distance(a: &[&str], b: &[&str]) -> usize {
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    (a.len() - common) + (b.len() - common)
}

#[cfg(test)]
mod tests;
