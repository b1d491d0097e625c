//! WebRLED's grid Q-network (DESIGN 7.4): a state vector in, one value per grid cell out,
//! with a target network for the bootstrapped targets, Huber loss and Adam.

use std::path::Path;

use candle_core::{Device, Tensor};
use candle_nn::AdamW;

use crate::error::{Context, MlError, Result};
use crate::mlp::Mlp;
use crate::store::{self, Kind};

/// Where the Huber loss turns from quadratic to linear.
const HUBER_DELTA: f64 = 1.0;

/// The online Q-network, its target copy and the online network's optimiser.
#[derive(Debug)]
pub struct QNetwork {
    online: Mlp,
    target: Mlp,
    optimiser: AdamW,
}

/// One training example: a state and the target values of some of its cells. Only the
/// listed cells count in the loss; a cell listed twice keeps its last target.
#[derive(Debug, Clone, PartialEq)]
pub struct QSample {
    pub state: Vec<f32>,
    pub targets: Vec<(usize, f32)>,
}

impl QNetwork {
    /// `input` -> `hidden...` -> `cells` with ReLU between; the target starts equal to it.
    pub fn new(
        input: usize,
        hidden: &[usize],
        cells: usize,
        learning_rate: f64,
        seed: u64,
    ) -> Result<QNetwork> {
        let mut sizes = Vec::with_capacity(hidden.len() + 2);
        sizes.push(input);
        sizes.extend_from_slice(hidden);
        sizes.push(cells);
        QNetwork::around(Mlp::new(&sizes, seed)?, learning_rate)
    }

    fn around(online: Mlp, learning_rate: f64) -> Result<QNetwork> {
        Ok(QNetwork {
            target: online.duplicate()?,
            optimiser: crate::adam(online.vars(), learning_rate)?,
            online,
        })
    }

    /// `[input, hidden..., cells]`.
    pub fn sizes(&self) -> &[usize] {
        self.online.sizes()
    }

    fn input(&self) -> usize {
        self.sizes()[0]
    }

    fn cells(&self) -> usize {
        *self.sizes().last().expect("an MLP has an output size")
    }

    /// The online network's cell values for one state.
    pub fn values(&self, state: &[f32]) -> Result<Vec<f32>> {
        if state.len() != self.input() {
            return Err(MlError::Input(format!(
                "state has {} values, the Q-network takes {}",
                state.len(),
                self.input()
            )));
        }
        self.online.forward_rows(state, 1)
    }

    /// The target network's cell values for a batch of states.
    pub fn target_values(&self, states: &[&[f32]]) -> Result<Vec<Vec<f32>>> {
        if states.is_empty() {
            return Ok(Vec::new());
        }
        let x = crate::rows_tensor(states, self.input(), "state")?;
        self.target
            .forward(&x)
            .and_then(|y| y.to_vec2::<f32>())
            .context("running the target network")
    }

    /// One Adam step on the mean Huber loss (delta 1) over the listed cells of the batch;
    /// returns that loss. A batch that lists no cell changes nothing and returns 0.
    pub fn train(&mut self, batch: &[QSample]) -> Result<f32> {
        let (input, cells, rows) = (self.input(), self.cells(), batch.len());
        let mut states = Vec::with_capacity(rows * input);
        let mut targets = vec![0f32; rows * cells];
        let mut mask = vec![0f32; rows * cells];
        let mut listed = 0usize;
        for (r, sample) in batch.iter().enumerate() {
            if sample.state.len() != input {
                return Err(MlError::Input(format!(
                    "sample {r}: state has {} values, the Q-network takes {input}",
                    sample.state.len()
                )));
            }
            states.extend_from_slice(&sample.state);
            for &(cell, value) in &sample.targets {
                if cell >= cells || !value.is_finite() {
                    return Err(MlError::Input(format!(
                        "sample {r}: target ({cell}, {value}) is not a finite value for one of {cells} cells"
                    )));
                }
                let k = r * cells + cell;
                if mask[k] == 0.0 {
                    listed += 1;
                }
                mask[k] = 1.0;
                targets[k] = value;
            }
        }
        if listed == 0 {
            return Ok(0.0);
        }
        self.step_on(states, targets, mask, listed)
            .context("training the Q-network")
    }

    /// The tensor part of `train`: row-major states, dense targets and the 0/1 cell mask.
    fn step_on(
        &mut self,
        states: Vec<f32>,
        targets: Vec<f32>,
        mask: Vec<f32>,
        listed: usize,
    ) -> candle_core::Result<f32> {
        let (rows, cells) = (mask.len() / self.cells(), self.cells());
        let dev = &Device::Cpu;
        let x = Tensor::from_vec(states, (rows, self.input()), dev)?;
        let targets = Tensor::from_vec(targets, (rows, cells), dev)?;
        let mask = Tensor::from_vec(mask, (rows, cells), dev)?;
        let predicted = self.online.forward(&x)?;
        let loss = masked_huber(&predicted, &targets, &mask, listed)?;
        crate::step(&mut self.optimiser, &loss)
    }

    /// Copies the online weights into the target network.
    pub fn sync_target(&mut self) -> Result<()> {
        self.target.copy_from(&self.online)
    }

    /// Writes the online weights to `<dir>/<name>.safetensors` and the sizes to
    /// `<dir>/<name>.json`. The optimiser state is not kept.
    pub fn save(&self, dir: &Path, name: &str) -> Result<()> {
        store::save(dir, name, Kind::QNetwork, &self.online)
    }

    /// Reads what `save` wrote; the target network starts equal to the online one and
    /// Adam starts afresh with `learning_rate`.
    pub fn load(dir: &Path, name: &str, learning_rate: f64) -> Result<QNetwork> {
        QNetwork::around(store::load(dir, name, Kind::QNetwork)?, learning_rate)
    }
}

/// Mean Huber loss over the cells where `mask` is 1. Masking the difference first gives the
/// other cells zero loss and zero gradient, whatever their (dummy) targets.
fn masked_huber(
    predicted: &Tensor,
    targets: &Tensor,
    mask: &Tensor,
    listed: usize,
) -> candle_core::Result<Tensor> {
    let diff = ((predicted - targets)? * mask)?;
    let abs = diff.abs()?;
    // With q = min(|d|, delta), 0.5 q^2 + delta (|d| - q) is Huber in both regimes, and
    // needs no `where_cond`.
    let quadratic = abs.minimum(HUBER_DELTA)?;
    let linear = ((&abs - &quadratic)? * HUBER_DELTA)?;
    let per_cell = ((quadratic.sqr()? * 0.5)? + linear)?;
    per_cell.sum_all()? / listed as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(i: usize) -> Vec<f32> {
        (0..8).map(|j| ((i * 8 + j) as f32 * 0.61).sin()).collect()
    }

    fn net() -> QNetwork {
        QNetwork::new(8, &[32, 32], 25, 1e-3, 11).unwrap()
    }

    #[test]
    fn loss_counts_only_the_listed_cells() {
        let mut q = net();
        let s = state(0);
        let v = q.values(&s).unwrap();
        assert_eq!(v.len(), 25);
        // Targets equal to the current values: nothing to learn, whatever the other cells hold.
        let exact = QSample {
            state: s.clone(),
            targets: vec![(0, v[0]), (7, v[7]), (24, v[24])],
        };
        assert!(q.train(&[exact]).unwrap() < 1e-10);
        // One cell off by 0.5 (quadratic part): 0.5 * 0.5^2, the 24 unlisted cells add nothing.
        let v = q.values(&s).unwrap();
        let near = QSample {
            state: s.clone(),
            targets: vec![(3, v[3] + 0.5)],
        };
        let loss = q.train(&[near]).unwrap();
        assert!((loss - 0.125).abs() < 1e-4, "loss {loss}");
        // Two cells off by 3 (linear part, delta 1): mean of 3 - 0.5 and a 0 cell.
        let v = q.values(&s).unwrap();
        let far = QSample {
            state: s,
            targets: vec![(5, v[5] - 3.0), (6, v[6])],
        };
        let loss = q.train(&[far]).unwrap();
        assert!((loss - 1.25).abs() < 1e-4, "loss {loss}");
    }

    #[test]
    fn training_moves_listed_cells_towards_their_targets() {
        let mut q = net();
        let samples: Vec<QSample> = (0..4)
            .map(|i| QSample {
                state: state(i),
                targets: vec![(i, 2.0), (10 + i, -1.0)],
            })
            .collect();
        let before: Vec<Vec<f32>> = (0..4).map(|i| q.values(&state(i)).unwrap()).collect();
        let first = q.train(&samples).unwrap();
        let mut last = first;
        for _ in 0..200 {
            last = q.train(&samples).unwrap();
        }
        assert!(last < first / 10.0, "loss {first} -> {last}");
        for (i, old) in before.iter().enumerate() {
            let new = q.values(&state(i)).unwrap();
            assert!((new[i] - 2.0).abs() < (old[i] - 2.0).abs() / 2.0);
            assert!((new[10 + i] + 1.0).abs() < (old[10 + i] + 1.0).abs() / 2.0);
        }
    }

    #[test]
    fn target_network_follows_only_on_sync() {
        let mut q = net();
        let states: Vec<Vec<f32>> = (0..3).map(state).collect();
        let refs: Vec<&[f32]> = states.iter().map(Vec::as_slice).collect();
        let online = |q: &QNetwork| -> Vec<Vec<f32>> {
            states.iter().map(|s| q.values(s).unwrap()).collect()
        };
        assert_eq!(q.target_values(&refs).unwrap(), online(&q));
        let sample = QSample {
            state: states[0].clone(),
            targets: vec![(1, 5.0)],
        };
        for _ in 0..5 {
            q.train(std::slice::from_ref(&sample)).unwrap();
        }
        let stale = q.target_values(&refs).unwrap();
        assert_ne!(stale, online(&q));
        q.sync_target().unwrap();
        assert_eq!(q.target_values(&refs).unwrap(), online(&q));
    }

    #[test]
    fn same_seed_same_training() {
        let run = || {
            let mut q = net();
            let sample = QSample {
                state: state(2),
                targets: vec![(4, 1.0)],
            };
            for _ in 0..10 {
                q.train(std::slice::from_ref(&sample)).unwrap();
            }
            q.values(&state(3)).unwrap()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn bad_samples_are_refused_and_empty_ones_ignored() {
        let mut q = net();
        let bad_cell = QSample {
            state: state(0),
            targets: vec![(25, 1.0)],
        };
        assert!(matches!(q.train(&[bad_cell]), Err(MlError::Input(_))));
        let nan = QSample {
            state: state(0),
            targets: vec![(1, f32::NAN)],
        };
        assert!(matches!(q.train(&[nan]), Err(MlError::Input(_))));
        let short = QSample {
            state: vec![0.0; 3],
            targets: vec![(1, 1.0)],
        };
        assert!(matches!(q.train(&[short]), Err(MlError::Input(_))));
        assert!(matches!(q.values(&[0.0; 9]), Err(MlError::Input(_))));
        let before = q.values(&state(0)).unwrap();
        let none = QSample {
            state: state(0),
            targets: vec![],
        };
        assert_eq!(q.train(&[none]).unwrap(), 0.0);
        assert_eq!(q.values(&state(0)).unwrap(), before);
        assert!(QNetwork::new(8, &[4], 25, 0.0, 1).is_err());
    }

    #[test]
    fn save_and_load_give_the_same_values() {
        let dir = tempfile::tempdir().unwrap();
        let mut q = net();
        let sample = QSample {
            state: state(1),
            targets: vec![(2, 1.0)],
        };
        q.train(&[sample]).unwrap();
        q.save(dir.path(), "grid").unwrap();
        let back = QNetwork::load(dir.path(), "grid", 1e-3).unwrap();
        assert_eq!(back.sizes(), [8, 32, 32, 25]);
        for i in 0..3 {
            assert_eq!(
                back.values(&state(i)).unwrap(),
                q.values(&state(i)).unwrap()
            );
        }
        // The loaded target network starts equal to the loaded online one.
        let s = state(0);
        assert_eq!(
            back.target_values(&[&s]).unwrap()[0],
            back.values(&s).unwrap()
        );
    }

    #[test]
    fn loading_a_missing_or_misshapen_network_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = QNetwork::load(dir.path(), "grid", 1e-3).unwrap_err();
        assert!(matches!(err, MlError::NotFound { .. }), "{err}");
        assert!(err.to_string().contains("no saved network"), "{err}");
        // Weights of a narrower network under a description of the wider one.
        net().save(dir.path(), "grid").unwrap();
        QNetwork::new(8, &[16], 25, 1e-3, 0)
            .unwrap()
            .save(dir.path(), "narrow")
            .unwrap();
        std::fs::copy(
            dir.path().join("narrow.safetensors"),
            dir.path().join("grid.safetensors"),
        )
        .unwrap();
        let err = QNetwork::load(dir.path(), "grid", 1e-3).unwrap_err();
        assert!(matches!(err, MlError::Mismatch { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("grid.safetensors") && text.contains("[32, 8]"),
            "{text}"
        );
        std::fs::remove_file(dir.path().join("grid.safetensors")).unwrap();
        let err = QNetwork::load(dir.path(), "grid", 1e-3).unwrap_err();
        assert!(matches!(err, MlError::NotFound { .. }), "{err}");
    }

    #[test]
    fn networks_can_move_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<QNetwork>();
        send_sync::<crate::Autoencoder>();
        send_sync::<crate::Classifier>();
    }
}
