//! WebRLED's global novelty (DESIGN 7.4): an autoencoder trained on all states seen so far;
//! a state it reconstructs badly is one unlike them.

use std::path::Path;

use candle_core::Tensor;
use candle_nn::AdamW;

use crate::error::{Context, MlError, Result};
use crate::mlp::Mlp;
use crate::store::{self, Kind};

/// `in -> hidden -> code -> hidden -> in`, ReLU between layers, trained on mean squared error.
#[derive(Debug)]
pub struct Autoencoder {
    net: Mlp,
    optimiser: AdamW,
}

impl Autoencoder {
    pub fn new(
        input: usize,
        hidden: usize,
        code: usize,
        learning_rate: f64,
        seed: u64,
    ) -> Result<Autoencoder> {
        let net = Mlp::new(&[input, hidden, code, hidden, input], seed)?;
        Autoencoder::around(net, learning_rate)
    }

    fn around(net: Mlp, learning_rate: f64) -> Result<Autoencoder> {
        Ok(Autoencoder {
            optimiser: crate::adam(net.vars(), learning_rate)?,
            net,
        })
    }

    /// `[input, hidden, code, hidden, input]`.
    pub fn sizes(&self) -> &[usize] {
        self.net.sizes()
    }

    /// Trains for `epochs` passes over `data` in minibatches of `batch` rows, shuffled from
    /// `seed`; returns the last epoch's mean loss (per row, as the errors are).
    pub fn fit(
        &mut self,
        data: &[Vec<f32>],
        epochs: usize,
        batch: usize,
        seed: u64,
    ) -> Result<f32> {
        let width = self.sizes()[0];
        crate::fit_epochs(data.len(), epochs, batch, seed, |rows| {
            let picked: Vec<&[f32]> = rows.iter().map(|&i| data[i].as_slice()).collect();
            let x = crate::rows_tensor(&picked, width, "training")?;
            self.step_on(&x).context("training the autoencoder")
        })
    }

    fn step_on(&mut self, x: &Tensor) -> candle_core::Result<f32> {
        let loss = candle_nn::loss::mse(&self.net.forward(x)?, x)?;
        crate::step(&mut self.optimiser, &loss)
    }

    /// Each row's mean squared reconstruction error.
    pub fn errors(&self, xs: &[&[f32]]) -> Result<Vec<f32>> {
        if xs.is_empty() {
            return Ok(Vec::new());
        }
        let x = crate::rows_tensor(xs, self.sizes()[0], "input")?;
        self.errors_of(&x)
            .context("measuring reconstruction errors")
    }

    fn errors_of(&self, x: &Tensor) -> candle_core::Result<Vec<f32>> {
        let diff = (self.net.forward(x)? - x)?;
        diff.sqr()?.mean(1)?.to_vec1::<f32>()
    }

    /// Writes the weights to `<dir>/<name>.safetensors` and the sizes to `<dir>/<name>.json`.
    pub fn save(&self, dir: &Path, name: &str) -> Result<()> {
        store::save(dir, name, Kind::Autoencoder, &self.net)
    }

    /// Reads what `save` wrote; Adam starts afresh with `learning_rate`.
    pub fn load(dir: &Path, name: &str, learning_rate: f64) -> Result<Autoencoder> {
        let net = store::load(dir, name, Kind::Autoencoder)?;
        let s = net.sizes();
        if s.len() != 5 || s[0] != s[4] || s[1] != s[3] {
            return Err(MlError::Mismatch {
                path: dir.join(format!("{name}.json")),
                reason: format!("sizes {s:?} are not in -> hidden -> code -> hidden -> in"),
            });
        }
        Autoencoder::around(net, learning_rate)
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Rows on a 2-dimensional pattern inside 16 dimensions: x = 0.5 + A z.
    fn pattern(rows: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<f32>> {
        let a: Vec<[f32; 2]> = (0..16)
            .map(|j| {
                [
                    ((j as f32) * 0.9).sin() * 0.4,
                    ((j as f32) * 0.4).cos() * 0.4,
                ]
            })
            .collect();
        (0..rows)
            .map(|_| {
                let z: [f32; 2] = [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)];
                a.iter().map(|r| 0.5 + r[0] * z[0] + r[1] * z[1]).collect()
            })
            .collect()
    }

    fn refs(rows: &[Vec<f32>]) -> Vec<&[f32]> {
        rows.iter().map(Vec::as_slice).collect()
    }

    fn mean(v: &[f32]) -> f32 {
        v.iter().sum::<f32>() / v.len() as f32
    }

    #[test]
    fn rows_off_the_pattern_reconstruct_worse() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let train = pattern(400, &mut rng);
        let held_out = pattern(100, &mut rng);
        // Same range of values per coordinate, but no structure.
        let novel: Vec<Vec<f32>> = (0..100)
            .map(|_| (0..16).map(|_| rng.gen_range(0.0..1.0)).collect())
            .collect();
        let mut ae = Autoencoder::new(16, 32, 4, 3e-3, 1).unwrap();
        let first = ae.fit(&train, 1, 32, 9).unwrap();
        let last = ae.fit(&train, 120, 32, 9).unwrap();
        assert!(last < first / 5.0, "loss {first} -> {last}");
        let seen = mean(&ae.errors(&refs(&held_out)).unwrap());
        let unseen = mean(&ae.errors(&refs(&novel)).unwrap());
        assert!(
            seen * 4.0 < unseen,
            "in-pattern {seen} vs off-pattern {unseen}"
        );
    }

    #[test]
    fn errors_are_per_row_mean_squared() {
        let ae = Autoencoder::new(3, 4, 2, 1e-3, 2).unwrap();
        let x = [0.2f32, -0.4, 0.9];
        let out = ae.net.forward_rows(&x, 1).unwrap();
        let expected = x
            .iter()
            .zip(&out)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f32>()
            / 3.0;
        let got = ae.errors(&[&x, &[0.0; 3]]).unwrap();
        assert_eq!(got.len(), 2);
        assert!((got[0] - expected).abs() < 1e-6);
    }

    #[test]
    fn same_seeds_same_fit_and_bad_arguments_refused() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let data = pattern(40, &mut rng);
        let run = |fit_seed| {
            let mut ae = Autoencoder::new(16, 8, 2, 1e-2, 3).unwrap();
            ae.fit(&data, 3, 8, fit_seed).unwrap();
            ae.errors(&[&data[0]]).unwrap()
        };
        assert_eq!(run(4), run(4));
        assert_ne!(run(4), run(5));
        let mut ae = Autoencoder::new(16, 8, 2, 1e-2, 3).unwrap();
        assert!(matches!(ae.fit(&[], 1, 8, 0), Err(MlError::Input(_))));
        assert!(matches!(ae.fit(&data, 0, 8, 0), Err(MlError::Config(_))));
        assert!(matches!(
            ae.fit(&[vec![0.0; 15]], 1, 8, 0),
            Err(MlError::Input(_))
        ));
    }

    #[test]
    fn save_and_load_give_the_same_errors() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let data = pattern(64, &mut rng);
        let mut ae = Autoencoder::new(16, 8, 3, 1e-2, 4).unwrap();
        ae.fit(&data, 2, 16, 0).unwrap();
        ae.save(dir.path(), "novelty").unwrap();
        let back = Autoencoder::load(dir.path(), "novelty", 1e-2).unwrap();
        assert_eq!(back.sizes(), [16, 8, 3, 8, 16]);
        let rows: Vec<&[f32]> = data.iter().map(Vec::as_slice).collect();
        assert_eq!(back.errors(&rows).unwrap(), ae.errors(&rows).unwrap());
        let missing = Autoencoder::load(dir.path(), "other", 1e-2).unwrap_err();
        assert!(matches!(missing, MlError::NotFound { .. }), "{missing}");
        assert!(missing.to_string().contains("other.json"), "{missing}");
    }
}
