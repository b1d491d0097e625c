//! MiniLM-L6 (sentence-transformers/all-MiniLM-L6-v2) as a [`TextEmbedder`]: 384-dim
//! sentence vectors in which "sign in" is near "log in", which the hashed fallback cannot do.
//!
//! The files come from a folder that `scripts/ensure-minilm.sh` fills from PyPI; nothing is
//! downloaded here. What sentence-transformers does around the BERT encoder is redone by
//! hand: truncation to 256 tokens, masked mean pooling and L2 normalisation.

use std::fmt;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Tokenizer, TruncationParams};
use wayfarer_core::embed::text::{EmbedError, TextEmbedder};

use crate::error::{Context, MlError, Result};

/// The width of every MiniLM-L6 vector.
pub const MINILM_DIMS: usize = 384;
/// The model's training length (sentence_bert_config.json); longer texts are cut, not refused.
const MAX_TOKENS: usize = 256;
/// Texts per forward pass: bounds the attention tensors (texts x 12 x len x len floats).
const CHUNK: usize = 32;
const MODEL: &str = "model.safetensors";
const TOKENIZER: &str = "tokenizer.json";
const CONFIG: &str = "config.json";

/// The MiniLM-L6 sentence embedder, loaded once and run on the CPU.
pub struct MiniLm {
    model: BertModel,
    tokenizer: Tokenizer,
    dir: PathBuf,
}

impl fmt::Debug for MiniLm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MiniLm").field("dir", &self.dir).finish()
    }
}

impl MiniLm {
    /// Where `scripts/ensure-minilm.sh` puts the files: `$WAYFARER_MINILM_DIR`, else
    /// `$HOME/.cache/wayfarer/minilm`.
    pub fn default_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("WAYFARER_MINILM_DIR").filter(|d| !d.is_empty()) {
            return PathBuf::from(dir);
        }
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        home.join(".cache").join("wayfarer").join("minilm")
    }

    /// The model of [`MiniLm::default_dir`], or `None` when it was never fetched (no
    /// model.safetensors there), so callers fall back without treating that as an error.
    pub fn locate() -> Option<Result<MiniLm>> {
        let dir = Self::default_dir();
        dir.join(MODEL).is_file().then(|| MiniLm::from_dir(&dir))
    }

    /// Loads model.safetensors (F32, BERT keys with or without a `bert.` prefix),
    /// tokenizer.json and config.json from `dir`.
    pub fn from_dir(dir: &Path) -> Result<MiniLm> {
        // Name every missing file at once, so one run of the script is seen to be the fix.
        let missing: Vec<&str> = [MODEL, TOKENIZER, CONFIG]
            .into_iter()
            .filter(|f| !dir.join(f).is_file())
            .collect();
        if !missing.is_empty() {
            return Err(MlError::MissingFiles {
                dir: dir.to_path_buf(),
                files: missing.join(", "),
            });
        }

        let config_path = dir.join(CONFIG);
        let text = std::fs::read_to_string(&config_path).map_err(|source| MlError::Io {
            context: "reading",
            path: config_path.clone(),
            source,
        })?;
        let config: Config = serde_json::from_str(&text).map_err(|e| MlError::BadFile {
            path: config_path.clone(),
            reason: e.to_string(),
        })?;
        if config.hidden_size != MINILM_DIMS {
            return Err(MlError::BadFile {
                path: config_path,
                reason: format!(
                    "hidden_size is {}, MiniLM-L6 has {MINILM_DIMS}",
                    config.hidden_size
                ),
            });
        }

        let tokenizer_path = dir.join(TOKENIZER);
        let mut tokenizer =
            Tokenizer::from_file(&tokenizer_path).map_err(|e| MlError::BadFile {
                path: tokenizer_path.clone(),
                reason: e.to_string(),
            })?;
        // The file pads every text to 128 and cuts there; we pad ourselves, to the batch's
        // longest, and cut at the model's 256 (special tokens included).
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| MlError::BadFile {
                path: tokenizer_path,
                reason: e.to_string(),
            })?;

        let model_path = dir.join(MODEL);
        // Read, not mmapped: no `unsafe`, and the buffer is gone once the weights are copied.
        let bytes = std::fs::read(&model_path).map_err(|source| MlError::Io {
            context: "reading",
            path: model_path.clone(),
            source,
        })?;
        let loaded = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &Device::Cpu)
            .and_then(|vb| BertModel::load(vb, &config));
        let model = loaded.map_err(|e| MlError::BadFile {
            path: model_path,
            reason: e.to_string(),
        })?;

        Ok(MiniLm {
            model,
            tokenizer,
            dir: dir.to_path_buf(),
        })
    }

    /// The folder the files were loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// One unit vector per text, in order; blank texts get zeros without running the model.
    pub fn embed_texts(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = vec![vec![0.0f32; MINILM_DIMS]; texts.len()];
        let todo: Vec<usize> = (0..texts.len())
            .filter(|&i| !texts[i].trim().is_empty())
            .collect();
        for chunk in todo.chunks(CHUNK) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            for (&i, v) in chunk.iter().zip(self.forward(&batch)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// One forward pass over `texts` (none blank), padded to the longest.
    fn forward(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let encodings = self
            .tokenizer
            .encode_batch_fast(texts.to_vec(), true)
            .map_err(|e| MlError::Tokenize(e.to_string()))?;
        let len = encodings
            .iter()
            .map(|e| e.get_ids().len())
            .max()
            .unwrap_or(0);
        let rows = encodings.len();
        let mut ids = vec![0u32; rows * len];
        let mut mask = vec![0u32; rows * len];
        for (r, e) in encodings.iter().enumerate() {
            let n = e.get_ids().len();
            ids[r * len..r * len + n].copy_from_slice(e.get_ids());
            mask[r * len..r * len + n].iter_mut().for_each(|m| *m = 1);
        }
        let dev = Device::Cpu;
        let ids = Tensor::from_vec(ids, (rows, len), &dev).context("building token ids")?;
        let mask = Tensor::from_vec(mask, (rows, len), &dev).context("building the mask")?;
        let types = ids.zeros_like().context("building token types")?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .context("running MiniLM")?;
        pool(&hidden, &mask)
            .context("pooling MiniLM's output")?
            .to_vec2::<f32>()
            .context("reading MiniLM's vectors")
    }
}

/// Masked mean over the tokens, then L2 normalisation: the pooling and normalize modules
/// of all-MiniLM-L6-v2, so padding never moves a vector.
fn pool(hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let sum = hidden.broadcast_mul(&mask)?.sum(1)?;
    let count = mask.sum(1)?.clamp(1e-9, f32::MAX)?;
    let mean = sum.broadcast_div(&count)?;
    let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f32::MAX)?;
    mean.broadcast_div(&norm)
}

impl TextEmbedder for MiniLm {
    fn name(&self) -> String {
        "minilm-l6".to_string()
    }

    fn dims(&self) -> usize {
        MINILM_DIMS
    }

    fn embed(&mut self, texts: &[&str]) -> std::result::Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_texts(texts).map_err(|e| EmbedError {
            model: self.name(),
            reason: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_folder_names_the_missing_files_and_the_script() {
        let dir = tempfile::tempdir().unwrap();
        let err = MiniLm::from_dir(dir.path()).unwrap_err().to_string();
        for f in [MODEL, TOKENIZER, CONFIG] {
            assert!(err.contains(f), "{err}");
        }
        assert!(err.contains("bash scripts/ensure-minilm.sh"), "{err}");
        assert!(err.contains(&dir.path().display().to_string()), "{err}");
    }

    #[test]
    fn only_the_files_still_missing_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG), "{}").unwrap();
        std::fs::write(dir.path().join(TOKENIZER), "{}").unwrap();
        let err = MiniLm::from_dir(dir.path()).unwrap_err().to_string();
        assert!(err.contains(MODEL), "{err}");
        assert!(!err.contains(CONFIG) && !err.contains(TOKENIZER), "{err}");
    }

    #[test]
    fn locate_is_none_where_the_model_was_never_fetched() {
        // The only test of this binary that reads WAYFARER_MINILM_DIR.
        let dir = tempfile::tempdir().unwrap();
        std::env::set_var("WAYFARER_MINILM_DIR", dir.path());
        assert_eq!(MiniLm::default_dir(), dir.path());
        assert!(MiniLm::locate().is_none());
        std::env::remove_var("WAYFARER_MINILM_DIR");
        assert!(MiniLm::default_dir().ends_with(".cache/wayfarer/minilm"));
    }

    #[test]
    fn a_broken_config_is_named() {
        let dir = tempfile::tempdir().unwrap();
        for f in [MODEL, TOKENIZER, CONFIG] {
            std::fs::write(dir.path().join(f), "not json").unwrap();
        }
        let err = MiniLm::from_dir(dir.path()).unwrap_err();
        assert!(matches!(err, MlError::BadFile { .. }), "{err}");
        assert!(err.to_string().contains(CONFIG), "{err}");
    }
}
