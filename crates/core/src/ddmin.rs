//! Delta debugging (Zeller's ddmin) over a sequence: the smallest subsequence, kept in
//! order, that still makes a test fail, 1-minimal (removing any one item loses it).

use std::collections::HashMap;

/// What one test of a candidate subsequence found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The failure did not appear (or the sequence could not be performed).
    Pass,
    /// The failure appeared after the item at this index of the candidate: the items
    /// after it were not needed.
    FailAt(usize),
}

/// Shrink `items` while `test` keeps failing. `items` itself must fail (`test` is asked
/// first; `Ok(None)` when it does not). Candidates are tested at most once each.
pub fn ddmin<T: Clone, E>(
    items: &[T],
    mut test: impl FnMut(&[T]) -> Result<Verdict, E>,
) -> Result<Option<Vec<T>>, E> {
    let mut cache: HashMap<Vec<usize>, Verdict> = HashMap::new();
    let mut run = |idx: &[usize]| -> Result<Verdict, E> {
        if let Some(v) = cache.get(idx) {
            return Ok(*v);
        }
        let seq: Vec<T> = idx.iter().map(|&i| items[i].clone()).collect();
        let v = test(&seq)?;
        cache.insert(idx.to_vec(), v);
        Ok(v)
    };
    let all: Vec<usize> = (0..items.len()).collect();
    let mut cur = match run(&all)? {
        Verdict::Pass => return Ok(None),
        Verdict::FailAt(k) => all[..=k.min(all.len().saturating_sub(1))].to_vec(),
    };
    let mut n = 2usize;
    while cur.len() >= 2 {
        let chunks = split(&cur, n);
        let mut reduced = None;
        // Try each chunk alone, then each complement.
        for c in &chunks {
            if let Verdict::FailAt(k) = run(c)? {
                reduced = Some((c[..=k.min(c.len() - 1)].to_vec(), 2));
                break;
            }
        }
        if reduced.is_none() && chunks.len() > 2 {
            for i in 0..chunks.len() {
                let comp: Vec<usize> = chunks
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, c)| c.iter().copied())
                    .collect();
                if let Verdict::FailAt(k) = run(&comp)? {
                    reduced = Some((comp[..=k.min(comp.len() - 1)].to_vec(), (n - 1).max(2)));
                    break;
                }
            }
        }
        match reduced {
            Some((next, next_n)) => {
                cur = next;
                n = next_n.min(cur.len().max(2));
            }
            None if n < cur.len() => n = (2 * n).min(cur.len()),
            None => break,
        }
    }
    Ok(Some(cur.into_iter().map(|i| items[i].clone()).collect()))
}

/// `v` cut into `n` contiguous, nearly equal, non-empty chunks.
fn split(v: &[usize], n: usize) -> Vec<Vec<usize>> {
    let n = n.min(v.len()).max(1);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let end = start + (v.len() - start) / (n - i);
        out.push(v[start..end].to_vec());
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Fails when `needed` appears in order as a subsequence; reports where it completed.
    fn contains_in_order(seq: &[u32], needed: &[u32]) -> Verdict {
        let mut k = 0;
        for (i, x) in seq.iter().enumerate() {
            if k < needed.len() && *x == needed[k] {
                k += 1;
                if k == needed.len() {
                    return Verdict::FailAt(i);
                }
            }
        }
        if needed.is_empty() {
            Verdict::FailAt(0)
        } else {
            Verdict::Pass
        }
    }

    #[test]
    fn finds_the_two_needed_items_of_twenty() {
        let items: Vec<u32> = (0..20).collect();
        let mut tests = 0;
        let min = ddmin(&items, |s| {
            tests += 1;
            Ok::<_, ()>(contains_in_order(s, &[3, 17]))
        })
        .unwrap()
        .unwrap();
        assert_eq!(min, vec![3, 17]);
        assert!(tests < 60, "{tests} tests");
    }

    #[test]
    fn a_passing_sequence_has_nothing_to_minimise() {
        let r = ddmin(&[1, 2, 3], |_| Ok::<_, ()>(Verdict::Pass)).unwrap();
        assert_eq!(r, None);
    }

    #[test]
    fn test_errors_stop_the_search() {
        let r = ddmin(&[1, 2, 3], |_| Err::<Verdict, _>("browser died"));
        assert_eq!(r, Err("browser died"));
    }

    proptest! {
        /// The result still fails, keeps the original order, and is 1-minimal: dropping
        /// any single item makes the test pass.
        #[test]
        fn result_fails_keeps_order_and_is_one_minimal(
            items in proptest::collection::vec(0u32..6, 1..24),
            pick in proptest::collection::vec(any::<proptest::sample::Index>(), 1..4),
        ) {
            let mut idx: Vec<usize> = pick.iter().map(|p| p.index(items.len())).collect();
            idx.sort();
            idx.dedup();
            let needed: Vec<u32> = idx.iter().map(|&i| items[i]).collect();
            let min = ddmin(&items, |s| Ok::<_, ()>(contains_in_order(s, &needed)))
                .unwrap()
                .expect("the whole sequence fails");
            prop_assert!(matches!(contains_in_order(&min, &needed), Verdict::FailAt(_)));
            prop_assert_eq!(min.len(), needed.len());
            // Order kept: min is a subsequence of items.
            prop_assert!(matches!(contains_in_order(&items, &min), Verdict::FailAt(_)));
            for i in 0..min.len() {
                let mut less = min.clone();
                less.remove(i);
                prop_assert_eq!(contains_in_order(&less, &needed), Verdict::Pass);
            }
        }
    }
}
