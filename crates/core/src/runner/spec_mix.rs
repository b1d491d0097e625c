//! The specification's own action generators beside the strategy. Bombadil weighs every
//! exported generator alike, its default explorer among them: here the strategy is that
//! default, so each generator that offers something weighs as much as the strategy, and
//! within a generator its `weighted` weights decide.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::model::Action;

/// One of the generators' actions to take instead of the strategy's choice, or `None` to
/// let the strategy choose. `offered` holds `[weight, action]` as the driver weighs them
/// (a generator's actions add up to 1); `strategy_offers` is false when the page offers
/// the strategy nothing.
pub(super) fn pick(
    offered: &[(f64, Action)],
    strategy_offers: bool,
    rng: &mut ChaCha8Rng,
) -> Option<Action> {
    let total: f64 = offered.iter().map(|(w, _)| *w).sum();
    if offered.is_empty() || total <= 0.0 || !total.is_finite() {
        return None;
    }
    let strategy = if strategy_offers { 1.0 } else { 0.0 };
    let mut r = rng.gen::<f64>() * (total + strategy);
    if r >= total {
        return None;
    }
    for (w, a) in offered {
        if r < *w {
            return Some(a.clone());
        }
        r -= w;
    }
    offered.last().map(|(_, a)| a.clone())
}

/// The seed the generators draw with at a step: the run's seed, the worker and the step,
/// so a run repeats and the worker's own generator is left as it was.
pub(super) fn seed(run_seed: u64, worker: u32, step: u64) -> u32 {
    let mut x = run_seed ^ (u64::from(worker) << 48) ^ step.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    // splitmix64's finaliser: nearby steps get unrelated seeds.
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (x ^ (x >> 31)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ActionKind;
    use rand::SeedableRng;

    fn spec(v: &str) -> Action {
        Action {
            kind: ActionKind::Spec,
            target: None,
            value: Some(v.to_string()),
        }
    }

    fn shares(offered: &[(f64, Action)], strategy: bool) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 20_000;
        let mut counts = vec![0usize; offered.len() + 1];
        for _ in 0..n {
            match pick(offered, strategy, &mut rng) {
                Some(a) => counts[offered.iter().position(|(_, o)| *o == a).unwrap()] += 1,
                None => counts[offered.len()] += 1,
            }
        }
        counts.iter().map(|c| *c as f64 / n as f64).collect()
    }

    #[test]
    fn one_generator_weighs_as_much_as_the_strategy_and_its_weights_hold() {
        // `weighted([[10, back], [1, forward], [1, reload]])`: one generator.
        let offered = vec![
            (10.0 / 12.0, spec("\"Back\"")),
            (1.0 / 12.0, spec("\"Forward\"")),
            (1.0 / 12.0, spec("\"Reload\"")),
        ];
        let s = shares(&offered, true);
        let want = [10.0 / 24.0, 1.0 / 24.0, 1.0 / 24.0, 0.5];
        for (got, want) in s.iter().zip(want) {
            assert!((got - want).abs() < 0.015, "shares {s:?}, want {want}");
        }
    }

    #[test]
    fn two_generators_take_two_thirds_and_an_empty_page_leaves_them_all() {
        let offered = vec![(1.0, spec("\"Wait\"")), (1.0, spec("\"Reload\""))];
        let s = shares(&offered, true);
        assert!((s[2] - 1.0 / 3.0).abs() < 0.015, "{s:?}");
        let s = shares(&offered, false);
        assert_eq!(s[2], 0.0, "{s:?}");
        assert!((s[0] - 0.5).abs() < 0.015, "{s:?}");
    }

    #[test]
    fn nothing_offered_leaves_the_strategy_to_choose_without_drawing() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let before = rng.clone();
        assert_eq!(pick(&[], true, &mut rng), None);
        assert_eq!(pick(&[(0.0, spec("\"Wait\""))], true, &mut rng), None);
        // The strategy's random stream is the same as without a specification.
        assert_eq!(rng, before);
    }

    #[test]
    fn seeds_differ_by_step_and_worker_and_repeat() {
        assert_eq!(seed(1, 0, 5), seed(1, 0, 5));
        assert_ne!(seed(1, 0, 5), seed(1, 0, 6));
        assert_ne!(seed(1, 0, 5), seed(1, 1, 5));
        assert_ne!(seed(1, 0, 5), seed(2, 0, 5));
    }
}
