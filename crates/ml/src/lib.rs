//! wayfarer-ml: the small neural networks that WebRLED needs (DESIGN 7.4), trained and run
//! on the CPU with candle, and nothing else: a grid Q-network with a target network
//! ([`QNetwork`]), a novelty autoencoder ([`Autoencoder`]) and an action discriminator
//! ([`Classifier`]), all plain ReLU MLPs ([`Mlp`]) in f32, saved as safetensors.
//!
//! Everything is deterministic for a seed: weights come from our own ChaCha8 stream and
//! minibatches are shuffled from the seed given to `fit`, so the same seed and data give
//! the same network.
//!
//! It also runs one pretrained network, the MiniLM-L6 sentence embedder ([`MiniLm`], in
//! [`minilm`]), from files that `scripts/ensure-minilm.sh` fetches: candle is here already.
//!
//! Binaries that train with this crate should install `mimalloc` as their global
//! allocator (TECH-NOTES, "Neural networks"): glibc serves candle's many fresh large
//! tensors through mmap, which made a Q-network step ~9x slower. The crate itself leaves
//! the allocator to the binary. candle's CPU kernels use as many threads as
//! `RAYON_NUM_THREADS` (default: all cores).

mod autoencoder;
mod classifier;
mod error;
pub mod minilm;
mod mlp;
mod qnet;
mod store;

pub use autoencoder::Autoencoder;
pub use classifier::Classifier;
pub use error::{MlError, Result};
pub use minilm::MiniLm;
pub use mlp::Mlp;
pub use qnet::{QNetwork, QSample};

use candle_core::{Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use error::Context;

/// Adam as the design asks: candle's AdamW with the decay switched off (its default is 0.01).
pub(crate) fn adam(vars: Vec<Var>, learning_rate: f64) -> Result<AdamW> {
    if !(learning_rate.is_finite() && learning_rate > 0.0) {
        return Err(MlError::Config(format!(
            "learning rate must be a positive number, got {learning_rate}"
        )));
    }
    let params = ParamsAdamW {
        lr: learning_rate,
        weight_decay: 0.0,
        ..ParamsAdamW::default()
    };
    AdamW::new(vars, params).context("creating the Adam optimiser")
}

/// Copies rows of equal width into one `rows x width` tensor, refusing rows of another width.
pub(crate) fn rows_tensor(rows: &[&[f32]], width: usize, what: &str) -> Result<Tensor> {
    let mut flat = Vec::with_capacity(rows.len() * width);
    for (i, row) in rows.iter().enumerate() {
        if row.len() != width {
            return Err(MlError::Input(format!(
                "{what} row {i} has {} values, the network takes {width}",
                row.len()
            )));
        }
        flat.extend_from_slice(row);
    }
    Tensor::from_vec(flat, (rows.len(), width), &Device::Cpu).context("building an input batch")
}

/// The minibatch loop the `fit` methods share: `epochs` passes over `rows` rows, each
/// shuffled (from `seed`) and cut into minibatches of at most `batch`; `train` takes one
/// minibatch's row indices and returns its mean loss. The result is the last epoch's mean
/// loss per row.
pub(crate) fn fit_epochs(
    rows: usize,
    epochs: usize,
    batch: usize,
    seed: u64,
    mut train: impl FnMut(&[usize]) -> Result<f32>,
) -> Result<f32> {
    if rows == 0 {
        return Err(MlError::Input("no training rows".into()));
    }
    if epochs == 0 || batch == 0 {
        return Err(MlError::Config(format!(
            "epochs and batch size must be at least 1, got {epochs} and {batch}"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut epoch_loss = 0.0;
    for _ in 0..epochs {
        let mut order: Vec<usize> = (0..rows).collect();
        order.shuffle(&mut rng);
        let mut total = 0.0;
        for chunk in order.chunks(batch) {
            total += f64::from(train(chunk)?) * chunk.len() as f64;
        }
        epoch_loss = (total / rows as f64) as f32;
    }
    Ok(epoch_loss)
}

/// Runs one optimiser step on `loss` and returns its value.
pub(crate) fn step(optimiser: &mut AdamW, loss: &Tensor) -> candle_core::Result<f32> {
    optimiser.backward_step(loss)?;
    loss.to_scalar::<f32>()
}
