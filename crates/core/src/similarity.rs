//! Ratcliff/Obershelp similarity of two sequences, 2M/T: exactly what Python's
//! `difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()` computes, including its
//! choice among equally long matches (which decides M), so numbers match the papers'
//! implementations. `tests/difflib_ratio.rs` checks it against difflib's own output.

use std::collections::HashMap;
use std::hash::Hash;

/// Reusable buffers: one comparison allocates nothing once they have grown.
#[derive(Debug, Default)]
pub struct Matcher {
    b2j: HashMap<u32, Vec<usize>>,
    row: Vec<usize>,
    next: Vec<usize>,
    touched: Vec<usize>,
    next_touched: Vec<usize>,
}

impl Matcher {
    /// M: the number of elements in difflib's matching blocks of `a` and `b`.
    pub fn matched(&mut self, a: &[u32], b: &[u32]) -> usize {
        self.b2j.clear();
        for (j, x) in b.iter().enumerate() {
            self.b2j.entry(*x).or_default().push(j);
        }
        self.row.clear();
        self.row.resize(b.len() + 1, 0);
        self.next.clear();
        self.next.resize(b.len() + 1, 0);
        let mut total = 0;
        // difflib keeps a LIFO queue of sub-ranges; the sum does not depend on the order.
        let mut queue = vec![(0, a.len(), 0, b.len())];
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.longest(a, alo, ahi, blo, bhi);
            if k > 0 {
                total += k;
                if alo < i && blo < j {
                    queue.push((alo, i, blo, j));
                }
                if i + k < ahi && j + k < bhi {
                    queue.push((i + k, ahi, j + k, bhi));
                }
            }
        }
        total
    }

    /// difflib's find_longest_match without junk: the longest common run, the one ending
    /// first in `a` among equals, then the first in `b`. `row[j + 1]` holds the length
    /// of the run ending at (i - 1, j); only touched cells are cleared.
    fn longest(
        &mut self,
        a: &[u32],
        alo: usize,
        ahi: usize,
        blo: usize,
        bhi: usize,
    ) -> (usize, usize, usize) {
        let (mut bi, mut bj, mut bk) = (alo, blo, 0);
        for (i, x) in a.iter().enumerate().take(ahi).skip(alo) {
            if let Some(js) = self.b2j.get(x) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = self.row[j] + 1;
                    self.next[j + 1] = k;
                    self.next_touched.push(j + 1);
                    if k > bk {
                        (bi, bj, bk) = (i + 1 - k, j + 1 - k, k);
                    }
                }
            }
            for &t in &self.touched {
                self.row[t] = 0;
            }
            std::mem::swap(&mut self.row, &mut self.next);
            std::mem::swap(&mut self.touched, &mut self.next_touched);
            self.next_touched.clear();
        }
        for &t in &self.touched {
            self.row[t] = 0;
        }
        self.touched.clear();
        (bi, bj, bk)
    }

    /// 2M / (len(a) + len(b)); 1 for two empty sequences.
    pub fn ratio(&mut self, a: &[u32], b: &[u32]) -> f64 {
        let t = a.len() + b.len();
        if t == 0 {
            return 1.0;
        }
        2.0 * self.matched(a, b) as f64 / t as f64
    }
}

/// An upper bound of `ratio` from the lengths alone (difflib's real_quick_ratio).
pub fn real_quick_ratio(la: usize, lb: usize) -> f64 {
    let t = la + lb;
    if t == 0 {
        1.0
    } else {
        2.0 * la.min(lb) as f64 / t as f64
    }
}

/// An upper bound of `ratio` from the multisets of elements (difflib's quick_ratio).
pub fn quick_ratio<T: Eq + Hash>(a: &[T], b: &[T]) -> f64 {
    let t = a.len() + b.len();
    if t == 0 {
        return 1.0;
    }
    let mut counts: HashMap<&T, isize> = HashMap::new();
    for x in b {
        *counts.entry(x).or_default() += 1;
    }
    let mut m = 0;
    for x in a {
        if let Some(c) = counts.get_mut(x) {
            if *c > 0 {
                m += 1;
            }
            *c -= 1;
        }
    }
    2.0 * m as f64 / t as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_cases() {
        let mut m = Matcher::default();
        assert_eq!(m.ratio(&[], &[]), 1.0);
        assert_eq!(m.ratio(&[1], &[]), 0.0);
        assert_eq!(m.ratio(&[1, 2, 3], &[1, 2, 3]), 1.0);
        // difflib: SequenceMatcher(None, "abcd", "bcde").ratio() == 0.75
        assert_eq!(m.ratio(&[1, 2, 3, 4], &[2, 3, 4, 5]), 0.75);
    }

    proptest! {
        // The bounds hold, the ratio is symmetric in its total and within [0, 1], and a
        // reused matcher gives what a fresh one gives.
        #[test]
        fn bounds_and_reuse(a in proptest::collection::vec(0u32..4, 0..40),
                            b in proptest::collection::vec(0u32..4, 0..40)) {
            let mut reused = Matcher::default();
            let _ = reused.ratio(&b, &a);
            let r = reused.ratio(&a, &b);
            prop_assert_eq!(r, Matcher::default().ratio(&a, &b));
            prop_assert!((0.0..=1.0).contains(&r));
            prop_assert!(r <= quick_ratio(&a, &b) + 1e-12);
            prop_assert!(quick_ratio(&a, &b) <= real_quick_ratio(a.len(), b.len()) + 1e-12);
        }
    }
}
