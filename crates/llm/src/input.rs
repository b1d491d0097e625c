//! `llm`: an input generator that asks the client (a model, or the heuristic provider) for
//! each field's value with VETL's input prompt. With `vision` on and a picture of the page
//! at hand, the prompt goes with the screenshot, the field framed in red.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use wayfarer_core::input::InputGenerator;
use wayfarer_core::model::{Element, Observation};
use wayfarer_inputs::HeuristicInput;

use crate::annotate::annotate;
use crate::client::{SharedClient, Source};
use crate::prompt::Prompts;
use crate::provider::{Request, Task};

#[derive(Clone)]
pub struct LlmInput {
    client: SharedClient,
    vision: bool,
    /// Options of a `<select>` (VETL asks for text inputs only).
    options: HeuristicInput,
    /// Who answered the last question, for the step's rationale.
    last: Option<Source>,
}

impl LlmInput {
    /// `vision`: send the annotated screenshot with the prompt when the page has one.
    pub fn new(client: SharedClient, vision: bool) -> LlmInput {
        LlmInput {
            client,
            vision,
            options: HeuristicInput::new(),
            last: None,
        }
    }
}

impl InputGenerator for LlmInput {
    fn name(&self) -> &str {
        "llm"
    }

    fn fork(&self) -> Box<dyn InputGenerator + Send> {
        Box::new(self.clone())
    }

    fn text_for(&mut self, field: &Element, page: &Observation, rng: &mut ChaCha8Rng) -> String {
        let seed = rng.gen::<u64>();
        // A field outside the picture gets a text prompt: its red frame would not show.
        let image = match (&page.picture, self.vision) {
            (Some(pic), true) if field.rect.centered_in(&pic.region) => {
                match annotate(pic, Some(&field.rect), &[]) {
                    Ok(png) => Some(png),
                    Err(e) => {
                        tracing::debug!("no visual prompt for {}: {e}", field.locator);
                        None
                    }
                }
            }
            _ => None,
        };
        let prompt = Prompts::get().input(field, page, image.is_some());
        let request = Request {
            task: Task::InputText { field, page },
            prompt,
            image: image.as_deref(),
            seed,
        };
        let mut client = self.client.lock().unwrap_or_else(|p| p.into_inner());
        let (text, source) = client.input_text(&request);
        self.last = Some(source);
        text
    }

    fn option_for(
        &mut self,
        field: &Element,
        page: &Observation,
        rng: &mut ChaCha8Rng,
    ) -> Option<String> {
        self.options.option_for(field, page, rng)
    }

    fn note(&self) -> Option<String> {
        // Only a value that did not come from where it was asked is worth a note.
        match self.last {
            Some(Source::Heuristic) if self.client.lock().is_ok_and(|c| c.has_model()) => {
                Some("llm: heuristic value (the model gave none)".into())
            }
            _ => None,
        }
    }
}
