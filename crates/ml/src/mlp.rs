//! A plain multi-layer perceptron: linear layers with ReLU between them, none after the last.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{DType, Device, Tensor, Var};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::{Context, MlError, Result};

/// A ReLU MLP whose weights come from a seed, so the same seed gives the same network.
#[derive(Debug)]
pub struct Mlp {
    sizes: Vec<usize>,
    layers: Vec<Layer>,
}

/// One linear layer, laid out as candle's and torch's `Linear`: weight is `out x in`.
#[derive(Debug)]
struct Layer {
    weight: Var,
    bias: Var,
}

impl Mlp {
    /// `sizes` = `[in, h1, ..., out]`; weights Kaiming-uniform from `seed`, biases zero.
    pub fn new(sizes: &[usize], seed: u64) -> Result<Mlp> {
        check_sizes(sizes)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let last = sizes.len() - 2;
        let mut layers = Vec::with_capacity(sizes.len() - 1);
        for (i, pair) in sizes.windows(2).enumerate() {
            let (fan_in, fan_out) = (pair[0], pair[1]);
            // He-uniform keeps the variance of ReLU activations steady through the hidden
            // layers; the output layer gets the smaller 1/sqrt(fan_in) bound so outputs start small.
            let gain = if i < last { 6.0 } else { 1.0 };
            let bound = (gain / fan_in as f64).sqrt() as f32;
            let weights: Vec<f32> = (0..fan_in * fan_out)
                .map(|_| rng.gen_range(-bound..bound))
                .collect();
            layers.push(Layer {
                weight: Var::from_vec(weights, (fan_out, fan_in), &Device::Cpu)
                    .context("initialising weights")?,
                bias: Var::zeros(fan_out, DType::F32, &Device::Cpu)
                    .context("initialising biases")?,
            });
        }
        Ok(Mlp {
            sizes: sizes.to_vec(),
            layers,
        })
    }

    /// `[in, h1, ..., out]`.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Runs `rows` row-major inputs (`rows x in` values) and returns `rows x out` values.
    pub fn forward_rows(&self, x: &[f32], rows: usize) -> Result<Vec<f32>> {
        let width = self.sizes[0];
        if x.len() != rows * width {
            return Err(MlError::Input(format!(
                "{} values for {rows} rows of {width}",
                x.len()
            )));
        }
        if rows == 0 {
            return Ok(Vec::new());
        }
        self.run(x, rows, width).context("running the network")
    }

    fn run(&self, x: &[f32], rows: usize, width: usize) -> candle_core::Result<Vec<f32>> {
        let x = Tensor::from_slice(x, (rows, width), &Device::Cpu)?;
        self.forward(&x)?.flatten_all()?.to_vec1::<f32>()
    }

    /// The forward pass on a `rows x in` tensor; tracked for backprop through the weights.
    pub(crate) fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let mut h = x.clone();
        for (i, layer) in self.layers.iter().enumerate() {
            h = h
                .matmul(&layer.weight.t()?)?
                .broadcast_add(layer.bias.as_tensor())?;
            if i + 1 < self.layers.len() {
                h = h.relu()?;
            }
        }
        Ok(h)
    }

    /// The trainable tensors, for the optimiser.
    pub(crate) fn vars(&self) -> Vec<Var> {
        self.layers
            .iter()
            .flat_map(|l| [l.weight.clone(), l.bias.clone()])
            .collect()
    }

    /// An independent copy (own storage), e.g. for a target network.
    pub(crate) fn duplicate(&self) -> Result<Mlp> {
        // A detached tensor is not a variable, so `Var::from_tensor` copies it instead of sharing.
        let copy = |v: &Var| Var::from_tensor(&v.as_detached_tensor());
        let layers = self
            .layers
            .iter()
            .map(|l| {
                Ok(Layer {
                    weight: copy(&l.weight)?,
                    bias: copy(&l.bias)?,
                })
            })
            .collect::<candle_core::Result<Vec<_>>>()
            .context("copying a network")?;
        Ok(Mlp {
            sizes: self.sizes.clone(),
            layers,
        })
    }

    /// Overwrites this network's weights with `other`'s (same sizes), in place.
    pub(crate) fn copy_from(&self, other: &Mlp) -> Result<()> {
        if self.sizes != other.sizes {
            return Err(MlError::Config(format!(
                "cannot copy a {:?} network into a {:?} one",
                other.sizes, self.sizes
            )));
        }
        self.layers
            .iter()
            .zip(&other.layers)
            .try_for_each(|(dst, src)| {
                dst.weight.set(src.weight.as_tensor())?;
                dst.bias.set(src.bias.as_tensor())
            })
            .context("copying weights")
    }

    /// The weights by name, as saved: `layers.<i>.weight` and `layers.<i>.bias`.
    pub(crate) fn named_tensors(&self) -> HashMap<String, Tensor> {
        let mut out = HashMap::new();
        for (i, l) in self.layers.iter().enumerate() {
            out.insert(format!("layers.{i}.weight"), l.weight.as_detached_tensor());
            out.insert(format!("layers.{i}.bias"), l.bias.as_detached_tensor());
        }
        out
    }

    /// Rebuilds a network of `sizes` from saved tensors, refusing any missing, extra or
    /// misshapen one (`path` only names the file in the error).
    pub(crate) fn from_named(
        sizes: &[usize],
        mut tensors: HashMap<String, Tensor>,
        path: &Path,
    ) -> Result<Mlp> {
        let mismatch = |reason: String| MlError::Mismatch {
            path: path.to_path_buf(),
            reason,
        };
        check_sizes(sizes).map_err(|e| mismatch(e.to_string()))?;
        let mut take = |name: String, shape: &[usize]| -> Result<Var> {
            let t = tensors
                .remove(&name)
                .ok_or_else(|| mismatch(format!("tensor {name} is missing")))?;
            if t.dims() != shape || t.dtype() != DType::F32 {
                return Err(mismatch(format!(
                    "tensor {name} is {:?} {:?}, the stored sizes {sizes:?} need F32 {shape:?}",
                    t.dtype(),
                    t.dims()
                )));
            }
            Var::from_tensor(&t).context("loading weights")
        };
        let mut layers = Vec::with_capacity(sizes.len() - 1);
        for (i, pair) in sizes.windows(2).enumerate() {
            layers.push(Layer {
                weight: take(format!("layers.{i}.weight"), &[pair[1], pair[0]])?,
                bias: take(format!("layers.{i}.bias"), &[pair[1]])?,
            });
        }
        if let Some(extra) = tensors.keys().min() {
            return Err(mismatch(format!(
                "unexpected tensor {extra} for sizes {sizes:?}"
            )));
        }
        Ok(Mlp {
            sizes: sizes.to_vec(),
            layers,
        })
    }
}

fn check_sizes(sizes: &[usize]) -> Result<()> {
    if sizes.len() < 2 || sizes.contains(&0) {
        return Err(MlError::Config(format!(
            "an MLP needs at least an input and an output size, none zero; got {sizes:?}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(seed: u64) -> Vec<f32> {
        let mlp = Mlp::new(&[6, 16, 16, 3], seed).unwrap();
        let x: Vec<f32> = (0..12).map(|i| (i as f32 * 0.37).sin()).collect();
        mlp.forward_rows(&x, 2).unwrap()
    }

    #[test]
    fn same_seed_same_outputs_other_seed_other_outputs() {
        let a = outputs(7);
        assert_eq!(a.len(), 6);
        assert_eq!(a, outputs(7));
        assert_ne!(a, outputs(8));
    }

    #[test]
    fn rows_are_independent_and_relu_is_not_after_the_last_layer() {
        let mlp = Mlp::new(&[2, 8, 4], 3).unwrap();
        let both = mlp.forward_rows(&[0.5, -1.0, 2.0, 0.25], 2).unwrap();
        let first = mlp.forward_rows(&[0.5, -1.0], 1).unwrap();
        let second = mlp.forward_rows(&[2.0, 0.25], 1).unwrap();
        for (a, b) in both.iter().zip(first.iter().chain(&second)) {
            assert!((a - b).abs() < 1e-6, "{both:?} vs {first:?} {second:?}");
        }
        // Over many inputs an un-rectified output layer gives some negative values.
        let x: Vec<f32> = (0..200)
            .map(|i| ((i * 7919) % 101) as f32 / 25.0 - 2.0)
            .collect();
        assert!(mlp.forward_rows(&x, 100).unwrap().iter().any(|v| *v < 0.0));
    }

    #[test]
    fn bad_sizes_and_inputs_are_refused() {
        assert!(matches!(Mlp::new(&[4], 0), Err(MlError::Config(_))));
        assert!(matches!(Mlp::new(&[4, 0, 2], 0), Err(MlError::Config(_))));
        let mlp = Mlp::new(&[3, 2], 0).unwrap();
        assert!(matches!(
            mlp.forward_rows(&[1.0; 5], 2),
            Err(MlError::Input(_))
        ));
        assert!(mlp.forward_rows(&[], 0).unwrap().is_empty());
    }

    #[test]
    fn duplicate_is_independent_and_copy_from_overwrites() {
        let a = Mlp::new(&[3, 5, 2], 1).unwrap();
        let b = a.duplicate().unwrap();
        let c = Mlp::new(&[3, 5, 2], 2).unwrap();
        let x = [0.1, 0.2, 0.3];
        a.copy_from(&c).unwrap();
        assert_eq!(
            a.forward_rows(&x, 1).unwrap(),
            c.forward_rows(&x, 1).unwrap()
        );
        assert_ne!(
            b.forward_rows(&x, 1).unwrap(),
            a.forward_rows(&x, 1).unwrap()
        );
        assert!(a.copy_from(&Mlp::new(&[3, 4, 2], 0).unwrap()).is_err());
    }
}
