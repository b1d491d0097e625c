//! WebRLED's reward (DESIGN 7.4): episodic novelty x global novelty, as in NGU.
//!
//! Episodic: r_epi = 1 / sqrt(n), where n counts the states of this episode's memory like
//! the current one: 1 (the visit itself) plus, over its k nearest neighbours, the kernel
//! eps / (d^2 / d_m^2 + eps), d_m^2 the running mean of neighbour distances. A page seen
//! j times in the episode gives n ~ j + 1; pages merely alike count next to nothing.
//!
//! Global: alpha = 1 + (e - mean) / std of the autoencoder's reconstruction error e,
//! normalised over the states it was trained on; r = r_epi * min(max(alpha, 1), L).

use std::sync::Arc;

/// The kernel's epsilon (NGU's value).
const KERNEL_EPS: f64 = 1e-3;

/// The episode's memory of visited states.
#[derive(Clone, Debug)]
pub struct Episodic {
    k: usize,
    memory: Vec<Arc<Vec<f32>>>,
    /// Running mean of squared neighbour distances, over the run.
    dm2_sum: f64,
    dm2_n: u64,
}

fn squared_distance(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(x - y).powi(2)).sum()
}

impl Episodic {
    pub fn new(k: usize) -> Episodic {
        Episodic {
            k: k.max(1),
            memory: Vec::new(),
            dm2_sum: 0.0,
            dm2_n: 0,
        }
    }

    /// The pseudo-count n of `f` against the memory, before `f` is added.
    pub fn count(&mut self, f: &[f32]) -> f64 {
        let mut d2: Vec<f64> = self.memory.iter().map(|m| squared_distance(m, f)).collect();
        d2.sort_by(f64::total_cmp);
        d2.truncate(self.k);
        for d in &d2 {
            self.dm2_sum += d;
            self.dm2_n += 1;
        }
        let dm2 = if self.dm2_n > 0 {
            self.dm2_sum / self.dm2_n as f64
        } else {
            0.0
        };
        1.0 + d2
            .iter()
            .map(|d| {
                if dm2 > 0.0 {
                    KERNEL_EPS / (d / dm2 + KERNEL_EPS)
                } else if *d == 0.0 {
                    1.0
                } else {
                    0.0
                }
            })
            .sum::<f64>()
    }

    /// r_epi of a visit to `f`, which then joins the memory.
    pub fn visit(&mut self, f: Arc<Vec<f32>>) -> f64 {
        let n = self.count(&f);
        self.memory.push(f);
        1.0 / n.sqrt()
    }

    /// A new episode: the memory empties (the distance scale is kept).
    pub fn reset(&mut self) {
        self.memory.clear();
    }
}

/// Mean and standard deviation of the autoencoder's errors on what it was trained on.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ErrorScale {
    pub mean: f64,
    pub std: f64,
}

impl ErrorScale {
    pub fn of(errors: &[f32]) -> Option<ErrorScale> {
        if errors.is_empty() {
            return None;
        }
        let n = errors.len() as f64;
        let mean = errors.iter().map(|e| f64::from(*e)).sum::<f64>() / n;
        let var = errors
            .iter()
            .map(|e| (f64::from(*e) - mean).powi(2))
            .sum::<f64>()
            / n;
        Some(ErrorScale {
            mean,
            std: var.sqrt(),
        })
    }

    /// alpha of a state whose reconstruction error is `e`.
    pub fn alpha(&self, e: f32) -> f64 {
        1.0 + (f64::from(e) - self.mean) / self.std.max(1e-6)
    }
}

/// r = r_epi * min(max(alpha, 1), L).
pub fn combine(r_epi: f64, alpha: f64, cap: f64) -> f64 {
    r_epi * alpha.max(1.0).min(cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[f32]) -> Arc<Vec<f32>> {
        Arc::new(x.to_vec())
    }

    #[test]
    fn repeats_in_an_episode_lose_novelty_and_a_new_episode_restores_it() {
        let mut e = Episodic::new(10);
        let a = v(&[1.0, 0.0, 0.0]);
        let b = v(&[0.0, 1.0, 0.0]);
        let c = v(&[0.0, 0.0, 1.0]);
        assert_eq!(e.visit(a.clone()), 1.0);
        // b is far from a (d^2 = 2 = d_m^2): kernel ~ 0.001.
        let rb = e.visit(b.clone());
        assert!(rb > 0.999 && rb < 1.0, "{rb}");
        let ra2 = e.visit(a.clone());
        assert!((ra2 - 1.0 / 2f64.sqrt()).abs() < 1e-3, "{ra2}");
        let ra3 = e.visit(a.clone());
        assert!((ra3 - 1.0 / 3f64.sqrt()).abs() < 1e-3, "{ra3}");
        assert!(e.visit(c) > 0.99);
        e.reset();
        assert!(e.visit(a) > 0.99);
    }

    #[test]
    fn only_the_k_nearest_count() {
        let mut e = Episodic::new(2);
        let a = v(&[1.0, 0.0]);
        for _ in 0..5 {
            e.visit(a.clone());
        }
        // Five identical visits, but only two neighbours are counted.
        let r = e.visit(a);
        assert!((r - 1.0 / 3f64.sqrt()).abs() < 1e-9, "{r}");
    }

    #[test]
    fn global_novelty_scales_and_is_capped() {
        let s = ErrorScale::of(&[1.0, 2.0, 3.0]).unwrap();
        assert!((s.mean - 2.0).abs() < 1e-9);
        assert!((s.alpha(2.0) - 1.0).abs() < 1e-9);
        let far = s.alpha(10.0);
        assert!(far > 5.0);
        assert_eq!(combine(0.5, far, 5.0), 2.5);
        // A familiar state (alpha < 1) leaves the episodic reward as it is.
        assert_eq!(combine(0.5, s.alpha(0.5), 5.0), 0.5);
        assert_eq!(ErrorScale::of(&[]), None);
    }
}
