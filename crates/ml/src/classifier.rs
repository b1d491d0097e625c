//! WebRLED's action discriminator (DESIGN 7.4): element features in, the probability of
//! each action class (none / click / double click) out.

use std::path::Path;

use candle_core::{Device, Tensor};
use candle_nn::AdamW;

use crate::error::{Context, MlError, Result};
use crate::mlp::Mlp;
use crate::store::{self, Kind};

/// A 4-layer ReLU MLP (`in -> h -> h -> h -> classes`) trained on softmax cross-entropy.
#[derive(Debug)]
pub struct Classifier {
    net: Mlp,
    optimiser: AdamW,
}

impl Classifier {
    pub fn new(
        input: usize,
        hidden: usize,
        classes: usize,
        learning_rate: f64,
        seed: u64,
    ) -> Result<Classifier> {
        let net = Mlp::new(&[input, hidden, hidden, hidden, classes], seed)?;
        Classifier::around(net, learning_rate)
    }

    fn around(net: Mlp, learning_rate: f64) -> Result<Classifier> {
        Ok(Classifier {
            optimiser: crate::adam(net.vars(), learning_rate)?,
            net,
        })
    }

    /// `[input, hidden, hidden, hidden, classes]`.
    pub fn sizes(&self) -> &[usize] {
        self.net.sizes()
    }

    fn classes(&self) -> usize {
        self.sizes()[4]
    }

    /// Trains for `epochs` passes over `(xs, labels)` in minibatches of `batch` rows,
    /// shuffled from `seed`; returns the last epoch's mean cross-entropy.
    pub fn fit(
        &mut self,
        xs: &[Vec<f32>],
        labels: &[usize],
        epochs: usize,
        batch: usize,
        seed: u64,
    ) -> Result<f32> {
        if xs.len() != labels.len() {
            return Err(MlError::Input(format!(
                "{} rows but {} labels",
                xs.len(),
                labels.len()
            )));
        }
        if let Some(bad) = labels.iter().find(|&&l| l >= self.classes()) {
            return Err(MlError::Input(format!(
                "label {bad} for a classifier of {} classes",
                self.classes()
            )));
        }
        let width = self.sizes()[0];
        crate::fit_epochs(xs.len(), epochs, batch, seed, |rows| {
            let picked: Vec<&[f32]> = rows.iter().map(|&i| xs[i].as_slice()).collect();
            let x = crate::rows_tensor(&picked, width, "training")?;
            // candle's cross-entropy gathers the label column, which wants integer labels.
            let y: Vec<u32> = rows.iter().map(|&i| labels[i] as u32).collect();
            let y = Tensor::from_vec(y, rows.len(), &Device::Cpu)
                .context("building a training batch")?;
            self.step_on(&x, &y).context("training the classifier")
        })
    }

    fn step_on(&mut self, x: &Tensor, y: &Tensor) -> candle_core::Result<f32> {
        let loss = candle_nn::loss::cross_entropy(&self.net.forward(x)?, y)?;
        crate::step(&mut self.optimiser, &loss)
    }

    /// Class probabilities (softmax of the outputs) for each row.
    pub fn predict(&self, xs: &[&[f32]]) -> Result<Vec<Vec<f32>>> {
        if xs.is_empty() {
            return Ok(Vec::new());
        }
        let x = crate::rows_tensor(xs, self.sizes()[0], "input")?;
        self.net
            .forward(&x)
            .and_then(|logits| candle_nn::ops::softmax_last_dim(&logits)?.to_vec2::<f32>())
            .context("running the classifier")
    }

    /// Writes the weights to `<dir>/<name>.safetensors` and the sizes to `<dir>/<name>.json`.
    pub fn save(&self, dir: &Path, name: &str) -> Result<()> {
        store::save(dir, name, Kind::Classifier, &self.net)
    }

    /// Reads what `save` wrote; Adam starts afresh with `learning_rate`.
    pub fn load(dir: &Path, name: &str, learning_rate: f64) -> Result<Classifier> {
        let net = store::load(dir, name, Kind::Classifier)?;
        let s = net.sizes();
        if s.len() != 5 || s[1] != s[2] || s[2] != s[3] {
            return Err(MlError::Mismatch {
                path: dir.join(format!("{name}.json")),
                reason: format!("sizes {s:?} are not in -> h -> h -> h -> classes"),
            });
        }
        Classifier::around(net, learning_rate)
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// 8 features in [0, 1); class 1 if feature 0 > 0.5, else 2 if feature 1 > 0.5, else 0.
    fn rule_data(rows: usize, rng: &mut ChaCha8Rng) -> (Vec<Vec<f32>>, Vec<usize>) {
        let xs: Vec<Vec<f32>> = (0..rows)
            .map(|_| (0..8).map(|_| rng.gen_range(0.0..1.0)).collect())
            .collect();
        let labels = xs
            .iter()
            .map(|x| match (x[0] > 0.5, x[1] > 0.5) {
                (true, _) => 1,
                (false, true) => 2,
                (false, false) => 0,
            })
            .collect();
        (xs, labels)
    }

    fn argmax(p: &[f32]) -> usize {
        (0..p.len()).fold(0, |best, i| if p[i] > p[best] { i } else { best })
    }

    fn accuracy(c: &Classifier, xs: &[Vec<f32>], labels: &[usize]) -> f64 {
        let rows: Vec<&[f32]> = xs.iter().map(Vec::as_slice).collect();
        let p = c.predict(&rows).unwrap();
        let right = p
            .iter()
            .zip(labels)
            .filter(|(p, &l)| argmax(p) == l)
            .count();
        right as f64 / labels.len() as f64
    }

    #[test]
    fn learns_a_rule_and_generalises() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (xs, labels) = rule_data(1500, &mut rng);
        let (test_xs, test_labels) = rule_data(400, &mut rng);
        let mut c = Classifier::new(8, 32, 3, 3e-3, 7).unwrap();
        let before = accuracy(&c, &test_xs, &test_labels);
        let loss = c.fit(&xs, &labels, 60, 32, 1).unwrap();
        let after = accuracy(&c, &test_xs, &test_labels);
        assert!(
            after >= 0.95,
            "held-out accuracy {before} -> {after}, loss {loss}"
        );
        assert!(loss < 0.2, "loss {loss}");
    }

    #[test]
    fn probabilities_sum_to_one() {
        let c = Classifier::new(4, 8, 3, 1e-3, 0).unwrap();
        let p = c
            .predict(&[&[0.1, 0.2, 0.3, 0.4], &[1.0, 0.0, -1.0, 2.0]])
            .unwrap();
        assert_eq!(p.len(), 2);
        for row in p {
            assert_eq!(row.len(), 3);
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(row.iter().all(|v| *v > 0.0));
        }
    }

    #[test]
    fn bad_labels_are_refused() {
        let mut c = Classifier::new(2, 4, 3, 1e-3, 0).unwrap();
        let xs = vec![vec![0.0, 1.0]; 2];
        assert!(matches!(
            c.fit(&xs, &[0, 3], 1, 2, 0),
            Err(MlError::Input(_))
        ));
        assert!(matches!(c.fit(&xs, &[0], 1, 2, 0), Err(MlError::Input(_))));
    }

    #[test]
    fn save_and_load_give_the_same_predictions() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let (xs, labels) = rule_data(64, &mut rng);
        let mut c = Classifier::new(8, 16, 3, 1e-2, 2).unwrap();
        c.fit(&xs, &labels, 2, 16, 0).unwrap();
        c.save(dir.path(), "discriminator").unwrap();
        let back = Classifier::load(dir.path(), "discriminator", 1e-2).unwrap();
        assert_eq!(back.sizes(), [8, 16, 16, 16, 3]);
        let rows: Vec<&[f32]> = xs.iter().map(Vec::as_slice).collect();
        assert_eq!(back.predict(&rows).unwrap(), c.predict(&rows).unwrap());
        // Another kind saved under the name is refused, naming both kinds.
        let ae = crate::Autoencoder::new(8, 4, 2, 1e-3, 0).unwrap();
        ae.save(dir.path(), "discriminator").unwrap();
        let err = Classifier::load(dir.path(), "discriminator", 1e-2).unwrap_err();
        assert!(matches!(err, MlError::Mismatch { .. }), "{err}");
        assert!(err.to_string().contains("Autoencoder"), "{err}");
    }
}
