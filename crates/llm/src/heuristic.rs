//! `heuristic`: the offline provider, and the default. It answers the same questions as a
//! model, in the format the prompts ask for, from the structured context they were built
//! from: a value from wayfarer's heuristic generator (type, names, label, constraints),
//! and the clickable nearest to the field in the DOM tree. It never fails at these, so it
//! is also what answers them when a model does not. AutoE2E's questions (features, same
//! feature) it does not answer: their callers have heuristics of their own.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::model::Element;
use wayfarer_inputs::HeuristicInput;

use crate::answer::{BUTTON_PREFIX, INPUT_PREFIX};
use crate::prompt::{steps, tree_distance};
use crate::provider::{LlmError, Provider, Reply, Request, Task};

#[derive(Clone, Debug, Default)]
pub struct HeuristicProvider {
    inputs: HeuristicInput,
}

impl HeuristicProvider {
    pub fn new() -> HeuristicProvider {
        HeuristicProvider::default()
    }

    /// The value for `request` (an input question) or the button's number (an element
    /// question), without the format around it; `None` for the AutoE2E questions, which
    /// it cannot answer. `seed` varies the value between questions about the same field
    /// (a second registration needs another user name).
    pub fn answer(&mut self, task: &Task<'_>, seed: u64) -> Option<String> {
        Some(match *task {
            Task::InputText { field, page } => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                if field.tag == "select" {
                    self.inputs
                        .option_for(field, page, &mut rng)
                        .unwrap_or_default()
                } else {
                    self.inputs.text_for(field, page, &mut rng)
                }
            }
            Task::InterestedElement { field, buttons, .. } => nearest(field, buttons)
                .map(|i| (i + 1).to_string())
                .unwrap_or_default(),
            Task::Features(_) | Task::SameFeature { .. } => return None,
        })
    }
}

/// How far `e` is from `field`: edges between them in the DOM tree (by XPath; unknown
/// paths are farthest), then the distance between their centres on screen.
pub fn distance(field: &Element, e: &Element) -> (usize, f64) {
    let (here, there) = (steps(&field.xpath), steps(&e.xpath));
    let tree = if here.is_empty() || there.is_empty() {
        usize::MAX
    } else {
        tree_distance(&here, &there)
    };
    let ((fx, fy), (x, y)) = (field.rect.center(), e.rect.center());
    (tree, (x - fx).hypot(y - fy))
}

/// The index of the button nearest to `field` (`distance`, ties by order). VETL-V1's
/// interested element.
pub fn nearest(field: &Element, buttons: &[&Element]) -> Option<usize> {
    buttons
        .iter()
        .map(|b| distance(field, b))
        .enumerate()
        .min_by(|(i, a), (j, b)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(i.cmp(j)))
        .map(|(i, _)| i)
}

impl Provider for HeuristicProvider {
    fn name(&self) -> &str {
        "heuristic"
    }

    fn model(&self) -> &str {
        "heuristic"
    }

    fn cacheable(&self) -> bool {
        false
    }

    fn complete(&mut self, request: &Request<'_>) -> Result<Reply, LlmError> {
        let prefix = match request.task {
            Task::InputText { .. } => INPUT_PREFIX,
            Task::InterestedElement { .. } => BUTTON_PREFIX,
            Task::Features(_) | Task::SameFeature { .. } => {
                return Err(LlmError::NoHeuristic(request.task.kind()))
            }
        };
        let answer = self.answer(&request.task, request.seed).unwrap_or_default();
        Ok(Reply {
            text: format!("{prefix} {answer}"),
            ..Reply::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::model::{Observation, Rect};

    fn el(tag: &str, xpath: &str, x: f64) -> Element {
        Element {
            locator: xpath.into(),
            xpath: xpath.into(),
            tag: tag.into(),
            rect: Rect {
                x,
                y: 0.0,
                width: 10.0,
                height: 10.0,
            },
            ..Element::default()
        }
    }

    #[test]
    fn the_nearest_button_is_the_closest_in_the_tree_then_on_screen() {
        let field = el("input", "/html[1]/body[1]/form[1]/div[1]/input[1]", 0.0);
        let far = el("button", "/html[1]/body[1]/nav[1]/button[1]", 5.0);
        let mine = el("button", "/html[1]/body[1]/form[1]/button[1]", 500.0);
        let twin = el("button", "/html[1]/body[1]/form[1]/button[2]", 100.0);
        assert_eq!(nearest(&field, &[&far, &mine, &twin]), Some(2));
        assert_eq!(nearest(&field, &[&far]), Some(0));
        assert_eq!(nearest(&field, &[]), None);
    }

    #[test]
    fn answers_come_in_the_asked_for_format_and_vary_with_the_seed() {
        let mut email = el("input", "/html[1]/body[1]/input[1]", 0.0);
        email.input_type = Some("email".into());
        let page = Observation::default();
        let mut p = HeuristicProvider::new();
        let ask = |p: &mut HeuristicProvider, seed| {
            p.complete(&Request {
                task: Task::InputText {
                    field: &email,
                    page: &page,
                },
                prompt: String::new(),
                image: None,
                seed,
            })
            .unwrap()
            .text
        };
        let a = ask(&mut p, 1);
        assert!(a.starts_with("Generated Input Text: "), "{a}");
        assert!(a.contains('@'), "{a}");
        assert_eq!(ask(&mut p, 1), a);
        assert!((2..20).any(|s| ask(&mut p, s) != a));
        let b = el("button", "/html[1]/body[1]/button[1]", 0.0);
        let r = p
            .complete(&Request {
                task: Task::InterestedElement {
                    field: &email,
                    value: "x@y.z",
                    buttons: &[&b],
                    page: &page,
                },
                prompt: String::new(),
                image: None,
                seed: 0,
            })
            .unwrap();
        assert_eq!(r.text, "Selected Button Number: 1");
    }
}
