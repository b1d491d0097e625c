//! The secrets this process has read (the values of the configuration's and a trace's
//! `${NAME}` references), for whatever writes text to mask them with the same `${NAME}`
//! the store writes: the CLI's log writer, a server log quoted in an error.

use std::sync::{Mutex, PoisonError};

use wayfarer_core::trace::Secrets;

/// The (name, value) pairs read so far, and the mask built from them.
#[derive(Default)]
struct Known {
    pairs: Vec<(String, String)>,
    secrets: Secrets,
}

impl Known {
    fn add(&mut self, pairs: impl IntoIterator<Item = (String, String)>) {
        self.pairs.extend(pairs);
        self.secrets = Secrets::new(self.pairs.iter().cloned());
    }

    fn mask(&self, text: &str) -> String {
        if self.secrets.is_empty() {
            return text.to_string();
        }
        self.secrets.mask_json(&self.secrets.mask(text))
    }
}

/// One lock for both, so the mask is always the pairs'.
static MASK: Mutex<Option<Known>> = Mutex::new(None);

/// Mask these (name, value) pairs from now on.
pub fn add(pairs: impl IntoIterator<Item = (String, String)>) {
    let mut mask = MASK.lock().unwrap_or_else(PoisonError::into_inner);
    mask.get_or_insert_with(Known::default).add(pairs);
}

/// `text` with every known secret value (plain or escaped as in JSON and `{:?}`) masked.
pub fn mask(text: &str) -> String {
    match &*MASK.lock().unwrap_or_else(PoisonError::into_inner) {
        Some(k) => k.mask(text),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The process-wide mask holds what every test of this crate read: a mask of its own.
    #[test]
    fn known_values_are_masked_plain_and_escaped() {
        let mut k = Known::default();
        assert_eq!(k.mask("nothing here"), "nothing here");
        k.add([
            ("LM_PW".to_string(), "s3cr\"et".to_string()),
            ("LM_NOTE".to_string(), "n0te-x1".to_string()),
        ]);
        assert_eq!(
            k.mask(r#"type #pw "s3cr\"et" then n0te-x1 and s3cr"et"#),
            r#"type #pw "${LM_PW}" then ${LM_NOTE} and ${LM_PW}"#
        );
        assert_eq!(k.mask("nothing here"), "nothing here");
    }
}
