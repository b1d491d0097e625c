//! Filling a form before pressing its button, as a crawler does (DESIGN 7.2): the empty
//! fields of the same form (or, for a button outside any form, the empty fields outside
//! any form, as div-made forms have) get a value first.

use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::{Action, ActionKind, Element, Observation, View};

use crate::fill::{fill_noted, with_note};
use crate::route::{Route, RouteNext, RouteStep};

/// A field that holds no value yet.
fn empty(e: &Element) -> bool {
    e.attr("value").is_none_or(|v| v.is_empty())
}

/// The fields to fill before `action`, in document order.
pub fn fields_before<'a>(page: &'a Observation, action: &Action) -> Vec<&'a Element> {
    let mut fields = form_fields(page, action);
    fields.retain(|f| empty(f));
    fields
}

/// The fields of the form `action` sends (a click on a submitting element), filled or
/// not, in document order; none for any other action.
pub fn form_fields<'a>(page: &'a Observation, action: &Action) -> Vec<&'a Element> {
    if action.kind != ActionKind::Click {
        return Vec::new();
    }
    let Some(button) = action.target.as_deref().and_then(|t| page.element(t)) else {
        return Vec::new();
    };
    if !button.submits() {
        return Vec::new();
    }
    page.elements
        .iter()
        .filter(|f| f.is_actionable() && f.form == button.form)
        .filter(|f| f.is_text_input() || (f.tag == "select" && !f.options.is_empty()))
        .collect()
}

/// The action that sends the form `field` (a locator of `page`) belongs to: a click on
/// one of its submit buttons among `actions`. None for a field outside any form (a form
/// made of divs has no button a page marks as its submitter).
pub fn sender<'a>(page: &Observation, field: &str, actions: &'a [Action]) -> Option<&'a Action> {
    let form = page.element(field)?.form.as_deref()?;
    actions.iter().find(|a| {
        a.kind == ActionKind::Click
            && a.target
                .as_deref()
                .and_then(|t| page.element(t))
                .is_some_and(|b| {
                    b.form.as_deref() == Some(form)
                        && matches!(
                            (b.tag.as_str(), b.input_type.as_deref()),
                            ("button", None | Some("submit")) | ("input", Some("submit" | "image"))
                        )
                })
    })
}

/// The actions that fill the fields before `action`, with values from `inputs`, asked
/// for the whole form at once (a generator may break one field and keep the others valid).
pub fn fill_before(
    page: &Observation,
    action: &Action,
    inputs: &mut dyn InputGenerator,
    rng: &mut ChaCha8Rng,
) -> Vec<Action> {
    let fields = fields_before(page, action);
    if fields.is_empty() {
        return Vec::new();
    }
    let values = inputs.fill_form(page, &fields, rng);
    fields
        .into_iter()
        .zip(values)
        .filter_map(|(f, value)| {
            let kind = if f.tag == "select" {
                ActionKind::Select
            } else {
                ActionKind::Type
            };
            Some(Action::on(kind, f.locator.clone()).with_value(value?))
        })
        .collect()
}

/// A plan that fills the empty fields of `action`'s form and then takes it; None when
/// there is nothing to fill (the action is then taken as it is).
pub fn fill_then(
    page: &Observation,
    action: &Action,
    inputs: &mut dyn InputGenerator,
    rng: &mut ChaCha8Rng,
) -> Option<Route> {
    let fills = fill_before(page, action, inputs, rng);
    if fills.is_empty() {
        return None;
    }
    let mut label = format!("fill {} field(s), then {}", fills.len(), action.describe());
    // Every step of the plan says why a weird value is typed.
    if let Some(note) = inputs.note() {
        label = format!("{label}; {note}");
    }
    let steps = fills
        .into_iter()
        .chain([action.clone()])
        .map(RouteStep::anywhere)
        .collect();
    Some(Route::plan(steps, label))
}

/// How a strategy takes the action it chose for `why`: with `fill_forms`, the first step
/// of the plan that fills the empty fields of its form (the plan comes back, to be
/// followed), else the action itself with its value; and the rationale, which says why
/// and how.
pub fn take(
    choice: &Action,
    why: String,
    fill_forms: bool,
    view: &View<'_>,
    inputs: &mut dyn InputGenerator,
    rng: &mut ChaCha8Rng,
) -> (Action, Option<Route>, String) {
    if fill_forms {
        if let Some(mut plan) = fill_then(view.observation, choice, inputs, rng) {
            if let RouteNext::Act(a, how) = plan.next(view) {
                return (a, Some(plan), format!("{why}: {how}"));
            }
        }
    }
    let (a, note) = fill_noted(choice.clone(), view.observation, inputs, rng);
    (a, None, with_note(why, note))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(tag: &str, loc: &str, ty: Option<&str>, form: Option<&str>, value: &str) -> Element {
        let mut e = Element {
            locator: loc.into(),
            tag: tag.into(),
            input_type: ty.map(String::from),
            actionable: vec![format!("tag:{tag}")],
            visible: true,
            enabled: true,
            form: form.map(String::from),
            ..Element::default()
        };
        if tag == "input" {
            e.attrs.insert("value".into(), value.into());
        }
        e
    }

    #[test]
    fn only_the_empty_fields_of_the_buttons_own_form_are_filled() {
        let page = Observation {
            elements: vec![
                el("input", "#a", Some("text"), Some("#f1"), ""),
                el("input", "#b", Some("email"), Some("#f1"), "kept@x.io"),
                el("input", "#c", Some("text"), Some("#f2"), ""),
                el("input", "#d", Some("text"), None, ""),
                el("button", "#save", Some("submit"), Some("#f1"), ""),
                el("button", "#loose", Some("button"), None, ""),
                el("a", "#link", None, Some("#f1"), ""),
            ],
            ..Observation::default()
        };
        let locs = |a: &str| -> Vec<String> {
            fields_before(&page, &Action::on(ActionKind::Click, a))
                .iter()
                .map(|e| e.locator.clone())
                .collect()
        };
        assert_eq!(locs("#save"), vec!["#a"]);
        assert_eq!(locs("#loose"), vec!["#d"]);
        assert!(locs("#link").is_empty());
        assert!(fields_before(&page, &Action::on(ActionKind::Type, "#save")).is_empty());
    }

    #[test]
    fn a_field_is_sent_by_a_submit_button_of_its_own_form() {
        let mut reset = el("button", "#reset", Some("reset"), Some("#f1"), "");
        reset.input_type = Some("reset".into());
        let page = Observation {
            elements: vec![
                el("input", "#a", Some("text"), Some("#f1"), ""),
                el("input", "#d", Some("text"), None, ""),
                reset,
                el("button", "#other", None, Some("#f2"), ""),
                el("button", "#save", None, Some("#f1"), ""),
            ],
            ..Observation::default()
        };
        let acts: Vec<Action> = ["#reset", "#other", "#save"]
            .map(|t| Action::on(ActionKind::Click, t))
            .to_vec();
        assert_eq!(sender(&page, "#a", &acts), Some(&acts[2]));
        assert_eq!(sender(&page, "#a", &acts[..2]), None);
        assert_eq!(sender(&page, "#d", &acts), None);
    }

    /// Decides per form: counts the forms asked for, and notes what it did.
    #[derive(Clone, Default)]
    struct PerForm(u32);

    impl InputGenerator for PerForm {
        fn fork(&self) -> Box<dyn InputGenerator + Send> {
            Box::new(self.clone())
        }
        fn name(&self) -> &str {
            "per-form"
        }
        fn text_for(&mut self, _: &Element, _: &Observation, _: &mut ChaCha8Rng) -> String {
            unreachable!("the form is asked for as a whole")
        }
        fn fill_form(
            &mut self,
            _: &Observation,
            fields: &[&Element],
            _: &mut ChaCha8Rng,
        ) -> Vec<Option<String>> {
            self.0 += 1;
            fields
                .iter()
                .map(|f| (f.locator != "#b").then(|| format!("v{}", f.locator)))
                .collect()
        }
        fn note(&self) -> Option<String> {
            Some("mutate a: \"\" (empty)".into())
        }
    }

    #[test]
    fn a_form_is_filled_as_a_whole_and_the_plan_says_why() {
        use rand::SeedableRng;
        use wayfarer_core::{Analysis, StateId, View};
        let page = Observation {
            elements: vec![
                el("input", "#a", Some("text"), Some("#f"), ""),
                el("input", "#b", Some("text"), Some("#f"), ""),
                el("button", "#save", Some("submit"), Some("#f"), ""),
            ],
            ..Observation::default()
        };
        let mut g = PerForm::default();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let save = Action::on(ActionKind::Click, "#save");
        let mut plan = fill_then(&page, &save, &mut g, &mut rng).unwrap();
        assert_eq!(g.0, 1);
        // A field the generator leaves alone gets no action.
        let acts: Vec<Action> = plan.steps().iter().map(|s| s.action.clone()).collect();
        assert_eq!(
            acts,
            vec![
                Action::on(ActionKind::Type, "#a").with_value("v#a"),
                save.clone()
            ]
        );
        let analysis = Analysis::new(StateId(0), "u".into());
        let view = View {
            observation: &page,
            analysis: &analysis,
            actions: &[Action::on(ActionKind::Type, "#a"), save.clone()],
            episode_step: 0,
        };
        match plan.next(&view) {
            crate::route::RouteNext::Act(_, why) => {
                assert!(why.contains("mutate a: \"\" (empty)"), "{why}")
            }
            other => panic!("{other:?}"),
        }
    }
}
