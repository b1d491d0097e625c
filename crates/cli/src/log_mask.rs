//! Logs never show a secret: the log writer on stderr masks the values of the `${NAME}`
//! references this process has read (from the configuration or a trace) with the same
//! `${NAME}` the store writes, whatever crate logged them (a typed value at -vv, a CDP
//! message of chromiumoxide).

use std::io::Write;
use std::sync::{Mutex, PoisonError};

use wayfarer_core::trace::Secrets;

/// The (name, value) pairs read so far, and the mask built from them.
type Known = (Vec<(String, String)>, Secrets);

/// One lock for both, so the mask is always the pairs'.
static MASK: Mutex<Option<Known>> = Mutex::new(None);

/// Mask these (name, value) pairs in every log line from now on.
pub fn add(pairs: impl IntoIterator<Item = (String, String)>) {
    let mut mask = MASK.lock().unwrap_or_else(PoisonError::into_inner);
    let mut known = mask.take().map(|(k, _)| k).unwrap_or_default();
    known.extend(pairs);
    let secrets = Secrets::new(known.iter().cloned());
    *mask = Some((known, secrets));
}

/// `text` with every known secret value (plain or escaped as in JSON and `{:?}`) masked.
pub fn mask(text: &str) -> String {
    match &*MASK.lock().unwrap_or_else(PoisonError::into_inner) {
        Some((_, s)) if !s.is_empty() => s.mask_json(&s.mask(text)),
        _ => text.to_string(),
    }
}

/// stderr for the log: each formatted event arrives in one write and leaves masked.
pub struct MaskedStderr;

impl Write for MaskedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr().write_all(mask(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_are_masked_plain_and_escaped() {
        add([
            ("LM_PW".to_string(), "s3cr\"et".to_string()),
            ("LM_NOTE".to_string(), "n0te-x1".to_string()),
        ]);
        assert_eq!(
            mask(r#"type #pw "s3cr\"et" then n0te-x1 and s3cr"et"#),
            r#"type #pw "${LM_PW}" then ${LM_NOTE} and ${LM_PW}"#
        );
        assert_eq!(mask("nothing here"), "nothing here");
    }
}
