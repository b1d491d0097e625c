//! Sentence embeddings of short texts (feature labels, AutoE2E's feature database): the
//! [`TextEmbedder`] seam, and [`HashedText`], the deterministic fallback used when no
//! sentence model is installed.
//!
//! The fallback hashes each lower-cased word and its character trigrams (so "owner" and
//! "owners" share most of their slots) into `dims` signed slots and L2-normalises the sum.
//! It knows no synonyms ("sign in" and "log in" are far apart): the MiniLM model in
//! `wayfarer-ml` does, and is taken whenever its files are present.

use super::add;

/// Why texts could not be embedded.
#[derive(Debug, thiserror::Error)]
#[error("{model}: {reason}")]
pub struct EmbedError {
    pub model: String,
    pub reason: String,
}

/// Texts to L2-normalised vectors of one length.
pub trait TextEmbedder: Send {
    /// What embeds, for reports and logs ("minilm-l6", "hashed-384").
    fn name(&self) -> String;
    /// The length of every vector.
    fn dims(&self) -> usize;
    /// One vector per text, in order; an empty text gets all zeros.
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Slots of the hashed fallback: MiniLM's width, so stored vectors look alike.
pub const HASHED_DIMS: usize = 384;

/// The deterministic fallback: hashed words and character trigrams.
#[derive(Clone, Debug)]
pub struct HashedText {
    dims: usize,
}

impl HashedText {
    pub fn new(dims: usize) -> HashedText {
        HashedText { dims: dims.max(1) }
    }

    /// One text's vector.
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dims];
        for word in words(text) {
            // The whole word weighs as much as all its trigrams together.
            add(&mut v, &format!("w:{word}"), 1.0);
            let padded: Vec<char> = format!("<{word}>").chars().collect();
            let grams = padded.len().saturating_sub(2);
            for g in padded.windows(3) {
                let g: String = g.iter().collect();
                add(&mut v, &format!("g:{g}"), 1.0 / grams as f32);
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

impl Default for HashedText {
    fn default() -> Self {
        HashedText::new(HASHED_DIMS)
    }
}

impl TextEmbedder for HashedText {
    fn name(&self) -> String {
        format!("hashed-{}", self.dims)
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
}

/// Lower-cased alphanumeric words without a plural `s` ("owners" is "owner"), and without
/// the few words every feature label has.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    const STOP: [&str; 8] = ["a", "an", "the", "of", "to", "and", "or", "for"];
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !STOP.contains(&w.as_str()))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.chars().count() >= 3 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::cosine;

    #[test]
    fn hashed_vectors_are_unit_length_and_stable() {
        let mut h = HashedText::default();
        let v = h.embed(&["Add a new owner", ""]).unwrap();
        assert_eq!(v[0].len(), HASHED_DIMS);
        let n: f32 = v[0].iter().map(|x| x * x).sum();
        assert!((n - 1.0).abs() < 1e-5, "{n}");
        assert!(v[1].iter().all(|x| *x == 0.0));
        assert_eq!(h.vector("Add a new owner"), v[0]);
    }

    #[test]
    fn related_labels_are_closer_than_unrelated_ones() {
        let h = HashedText::default();
        let c = |a: &str, b: &str| cosine(&h.vector(a), &h.vector(b));
        let near = c("Add an owner", "Add new owners");
        let other = c("Add an owner", "Add a pet");
        let far = c("Add an owner", "Export the monthly report");
        assert!(near > 0.7, "{near}");
        assert!(other < near - 0.2, "{other} against {near}");
        assert!(far < 0.2, "{far}");
        // A plural is its singular; "address" keeps its s.
        assert!((c("owners", "owner") - 1.0).abs() < 1e-9);
        assert!(c("address", "addres") < 0.99);
        assert!((c("Log in", "log IN") - 1.0).abs() < 1e-9);
    }
}
