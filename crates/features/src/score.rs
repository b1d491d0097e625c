//! Rank scores (paper 003, equations 6-8): an inferred feature's rank in a model's ordered
//! answer read as a geometric distribution, p(ranked r) = (1-p)^(r-1) p, in logs.

/// The parameters of the rank scores: `p` of the geometric distribution and `r`, the
/// length of each ranked answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ranking {
    pub p: f64,
    pub r: usize,
}

impl Default for Ranking {
    /// The paper's p = 0.5; R = 5 is ours (the paper does not give it).
    fn default() -> Self {
        Ranking { p: 0.5, r: 5 }
    }
}

impl Ranking {
    /// rank_score(r) = (r-1) ln(1-p) + ln(p) for a feature ranked r <= R (1-based), and
    /// R ln(1-p) + ln(p) for one the answer did not list (`None`, or a rank past R).
    pub fn score(&self, rank: Option<usize>) -> f64 {
        let (p, miss) = (self.p, (1.0 - self.p).ln());
        match rank {
            Some(k) if (1..=self.r).contains(&k) => (k - 1) as f64 * miss + p.ln(),
            _ => self.r as f64 * miss + p.ln(),
        }
    }

    /// A feature seen at action A_i after A_{i-1}: rank_score(F | A_i, A_{i-1}) -
    /// rank_score(F | A_{i-1}), the second from the answer for A_{i-1} alone (the
    /// constant when that answer did not list F). An action with no previous one (the
    /// first of a chain) contributes rank_score(F | A_1).
    pub fn update(&self, with_previous: Option<usize>, previous_alone: Option<usize>) -> f64 {
        self.score(with_previous) - self.score(previous_alone)
    }

    /// Features scoring at least ln(p) are kept: a single-action feature ranked first
    /// scores exactly that.
    pub fn cutoff(&self) -> f64 {
        self.p.ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LN2: f64 = std::f64::consts::LN_2;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn rank_scores_at_p_one_half() {
        let r = Ranking::default();
        // ln 0.5, 2 ln 0.5, 3 ln 0.5; unlisted: R ln 0.5 + ln 0.5 = 6 ln 0.5 for R = 5.
        assert!(close(r.score(Some(1)), -LN2));
        assert!(close(r.score(Some(2)), -2.0 * LN2));
        assert!(close(r.score(Some(3)), -3.0 * LN2));
        assert!(close(r.score(Some(5)), -5.0 * LN2));
        assert!(close(r.score(None), -6.0 * LN2));
        assert!(close(r.score(Some(6)), r.score(None)));
        assert!(close(r.score(Some(0)), r.score(None)));
        assert!(close(r.cutoff(), -LN2));
    }

    #[test]
    fn updates_reward_evidence_the_action_added() {
        let r = Ranking::default();
        // Ranked first after A_{i-1}, absent from A_{i-1}'s own answer: -ln2 + 6 ln2.
        assert!(close(r.update(Some(1), None), 5.0 * LN2));
        // Ranked first both ways: the action added nothing.
        assert!(close(r.update(Some(1), Some(1)), 0.0));
        // Listed third after A_{i-1} but first for A_{i-1} alone: evidence fell.
        assert!(close(r.update(Some(3), Some(1)), -2.0 * LN2));
        // A single-action feature ranked first is exactly at the cutoff.
        assert!(close(0.0 + r.score(Some(1)), r.cutoff()));
    }

    #[test]
    fn another_p_weighs_ranks_differently() {
        let r = Ranking { p: 0.8, r: 3 };
        assert!(close(r.score(Some(1)), 0.8f64.ln()));
        assert!(close(r.score(Some(2)), 0.2f64.ln() + 0.8f64.ln()));
        assert!(close(r.score(None), 3.0 * 0.2f64.ln() + 0.8f64.ln()));
    }
}
