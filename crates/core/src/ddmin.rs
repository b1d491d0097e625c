//! Delta debugging (Zeller's ddmin) over a sequence: a small subsequence, kept in order,
//! that still makes a test fail, 1-minimal (removing any one item loses it). A variant
//! that tests single chunks only at the first split, since every test replays in a browser.

use std::collections::HashMap;

/// The widest run of neighbouring items the final pass tries to drop at once.
const POLISH_WINDOW: usize = 3;

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
    test: impl FnMut(&[T]) -> Result<Verdict, E>,
) -> Result<Option<Vec<T>>, E> {
    ddmin_with_loops(items, None, &[], test)
}

/// For each place `i` in `pages` (where each item was taken), the farthest later `j`
/// with the same page, when `[i, j)` went to another page and came back where it
/// started: a likely detour for `ddmin_with_loops`. Items that never left their page (a
/// form filled in) are no detour: cutting them whole was a replay wasted per item.
pub fn loops<P: PartialEq>(pages: &[P]) -> Vec<(usize, usize)> {
    (0..pages.len())
        .filter_map(|i| {
            let j = (i + 1..pages.len()).rev().find(|&j| pages[j] == pages[i])?;
            pages[i + 1..j]
                .iter()
                .any(|p| *p != pages[i])
                .then_some((i, j))
        })
        .collect()
}

/// `ddmin` with two shortcuts for replayed traces: the verdict of the whole sequence when
/// it is already known (`whole`), and `loops`, index ranges `[start, end)` after which the
/// sequence came back where it was (the same page): each is tried for removal in one
/// test, largest first, before the systematic search. Detours cost one replay each
/// instead of many.
pub fn ddmin_with_loops<T: Clone, E>(
    items: &[T],
    whole: Option<Verdict>,
    loops: &[(usize, usize)],
    mut test: impl FnMut(&[T]) -> Result<Verdict, E>,
) -> Result<Option<Vec<T>>, E> {
    let mut asked = Cached::new(items, &mut test);
    let all: Vec<usize> = (0..items.len()).collect();
    if let Some(v) = whole {
        asked.cache.insert(all.clone(), v);
    }
    let mut run = |idx: &[usize]| asked.run(idx);
    let mut cur = match run(&all)? {
        Verdict::Pass => return Ok(None),
        Verdict::FailAt(k) => all[..=k.min(all.len().saturating_sub(1))].to_vec(),
    };
    cut_loops(&mut cur, loops, &mut run)?;
    let mut n = 2usize;
    while cur.len() >= 2 {
        let chunks = split(&cur, n);
        let mut reduced = None;
        // Halves first; past that, only complements: a failure that needs actions spread
        // over the trace (a login, a form, a submit) almost never lives in one small
        // chunk, and each test is a replay in a browser. Complements at n = len still
        // make the result 1-minimal.
        if chunks.len() == 2 {
            for c in &chunks {
                if let Verdict::FailAt(k) = run(c)? {
                    reduced = Some((c[..=k.min(c.len() - 1)].to_vec(), 2));
                    break;
                }
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
    // Polish: drop contiguous windows of up to three items. In a UI trace one action
    // often needs a neighbour (open a form, then save it): removing either alone breaks
    // the path, removing both keeps the failure, and 1-minimality cannot see that.
    let mut w = 1;
    while w <= POLISH_WINDOW && w < cur.len() {
        let mut shrunk = false;
        for start in 0..=cur.len() - w {
            let cand: Vec<usize> = cur[..start]
                .iter()
                .chain(&cur[start + w..])
                .copied()
                .collect();
            if let Verdict::FailAt(k) = run(&cand)? {
                cur = cand[..=k.min(cand.len() - 1)].to_vec();
                shrunk = true;
                break;
            }
        }
        w = if shrunk { 1 } else { w + 1 };
    }
    Ok(Some(cur.into_iter().map(|i| items[i].clone()).collect()))
}

/// `test` asked of the items at some indices, each candidate at most once (every test
/// is a replay in a browser).
struct Cached<'a, T, F> {
    items: &'a [T],
    cache: HashMap<Vec<usize>, Verdict>,
    test: F,
}

impl<'a, T: Clone, F> Cached<'a, T, F> {
    fn new(items: &'a [T], test: F) -> Self {
        Cached {
            items,
            cache: HashMap::new(),
            test,
        }
    }

    fn run<E>(&mut self, idx: &[usize]) -> Result<Verdict, E>
    where
        F: FnMut(&[T]) -> Result<Verdict, E>,
    {
        if let Some(v) = self.cache.get(idx) {
            return Ok(*v);
        }
        let seq: Vec<T> = idx.iter().map(|&i| self.items[i].clone()).collect();
        let v = (self.test)(&seq)?;
        self.cache.insert(idx.to_vec(), v);
        Ok(v)
    }
}

/// Try each of `loops` for removal from `cur` (indices), largest first, one test each;
/// a cut that keeps the failure is kept (and what came after the failure with it).
fn cut_loops<E>(
    cur: &mut Vec<usize>,
    loops: &[(usize, usize)],
    run: &mut impl FnMut(&[usize]) -> Result<Verdict, E>,
) -> Result<(), E> {
    let mut loops: Vec<(usize, usize)> = loops.iter().copied().filter(|(s, e)| s < e).collect();
    loops.sort_by_key(|&(s, e)| (std::cmp::Reverse(e - s), s));
    for (s, e) in loops {
        if !(s..e).all(|i| cur.contains(&i)) {
            continue;
        }
        let cand: Vec<usize> = cur
            .iter()
            .copied()
            .filter(|i| !(s..e).contains(i))
            .collect();
        if cand.is_empty() {
            continue;
        }
        if let Verdict::FailAt(k) = run(&cand)? {
            *cur = cand[..=k.min(cand.len() - 1)].to_vec();
        }
    }
    Ok(())
}

/// The sweeps of [`sweep_with_loops`]: one item at a time, then neighbouring pairs (an
/// action that needs its neighbour: open a form, then close it), then single items again.
pub const SWEEPS: [usize; 3] = [1, 2, 1];

/// Shrink `items`, which fail as a whole, by sweeps instead of bisection: the detours of
/// `loops` first (as in [`ddmin_with_loops`]), then, for each width of `windows`, one
/// sweep from the end to the start trying to drop each run of that many neighbouring
/// items. Where most items are needed (the way to a feature's page), bisection spends its
/// tests on halves and quarters that all fail: 10 items of which 9 are needed cost
/// `ddmin_with_loops` 37 tests and [`SWEEPS`] 21, with the same result. Candidates are
/// tested at most once each; the result still fails.
pub fn sweep_with_loops<T: Clone, E>(
    items: &[T],
    loops: &[(usize, usize)],
    windows: &[usize],
    mut test: impl FnMut(&[T]) -> Result<Verdict, E>,
) -> Result<Vec<T>, E> {
    let mut asked = Cached::new(items, &mut test);
    let mut run = |idx: &[usize]| asked.run(idx);
    let mut cur: Vec<usize> = (0..items.len()).collect();
    cut_loops(&mut cur, loops, &mut run)?;
    for &w in windows.iter().filter(|&&w| w > 0) {
        // From the end: the run to drop starts at `start`; it moves left one item a test.
        let mut start = cur.len().checked_sub(w);
        while let Some(s) = start {
            if s + w <= cur.len() && cur.len() > w {
                let cand: Vec<usize> = cur[..s].iter().chain(&cur[s + w..]).copied().collect();
                if let Verdict::FailAt(k) = run(&cand)? {
                    cur = cand[..=k.min(cand.len() - 1)].to_vec();
                }
            }
            start = s.checked_sub(1).map(|p| p.min(cur.len().saturating_sub(w)));
        }
    }
    Ok(cur.into_iter().map(|i| items[i].clone()).collect())
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

    /// Actions move between pages; one taken on the wrong page is blocked (the test
    /// passes). Like a real trace: log in, open row 2, save, open row 1, type too much: 3 are needed.
    #[test]
    fn pairs_of_actions_that_only_go_together_are_dropped_together() {
        // (page it needs, page it leads to); page 9 is the bug.
        let walk = [
            (0, 1), // log in: list
            (1, 2), // edit row 2: form
            (2, 1), // save: list
            (1, 2), // edit row 1: form
            (2, 9), // type a long description: bug
        ];
        let items: Vec<usize> = (0..walk.len()).collect();
        let min = ddmin(&items, |s| {
            let mut page = 0;
            for (k, &i) in s.iter().enumerate() {
                let (from, to) = walk[i];
                if from != page {
                    return Ok::<_, ()>(Verdict::Pass);
                }
                page = to;
                if page == 9 {
                    return Ok(Verdict::FailAt(k));
                }
            }
            Ok(Verdict::Pass)
        })
        .unwrap()
        .unwrap();
        assert_eq!(min.len(), 3, "{min:?}");
    }

    #[test]
    fn loops_run_from_each_page_to_its_last_return() {
        assert_eq!(
            loops(&["a", "b", "a", "c", "b", "a"]),
            vec![(0, 5), (1, 4), (2, 5)]
        );
        assert!(loops::<&str>(&[]).is_empty());
    }

    /// The demo's sign-up form, pruned to six actions on one page: each of them "came
    /// back" to the page it was on, and cutting them as loops cost five replays before
    /// delta debugging began.
    #[test]
    fn a_stretch_that_never_left_its_page_is_no_detour() {
        let form = ["/register"; 6];
        assert!(loops(&form).is_empty());
        assert_eq!(loops(&["/", "/", "/edit", "/", "/"]), vec![(0, 4), (1, 4)]);
    }

    #[test]
    fn loops_are_cut_in_one_test_each() {
        // Items 2..8 are a detour; only 0, 1 and 9 matter.
        let items: Vec<u32> = (0..10).collect();
        let mut tests = 0;
        let min = ddmin_with_loops(&items, Some(Verdict::FailAt(9)), &[(2, 9), (3, 5)], |s| {
            tests += 1;
            Ok::<_, ()>(contains_in_order(s, &[0, 1, 9]))
        })
        .unwrap()
        .unwrap();
        assert_eq!(min, vec![0, 1, 9]);
        let mut plain = 0;
        ddmin(&items, |s| {
            plain += 1;
            Ok::<_, ()>(contains_in_order(s, &[0, 1, 9]))
        })
        .unwrap();
        assert!(tests < plain, "{tests} tests with loops, {plain} without");
    }

    /// Nine of ten items needed, as on the way to a feature's page: the sweeps find the
    /// same result as delta debugging in fewer tests.
    #[test]
    fn sweeps_take_fewer_tests_where_most_items_are_needed() {
        let items: Vec<u32> = (0..10).collect();
        let needed: Vec<u32> = (0..10).filter(|&i| i != 6).collect();
        let (mut swept, mut bisected) = (0, 0);
        let a = sweep_with_loops(&items, &[], &SWEEPS, |s| {
            swept += 1;
            Ok::<_, ()>(contains_in_order(s, &needed))
        })
        .unwrap();
        let b = ddmin_with_loops(&items, Some(Verdict::FailAt(9)), &[], |s| {
            bisected += 1;
            Ok::<_, ()>(contains_in_order(s, &needed))
        })
        .unwrap()
        .unwrap();
        assert_eq!(a, needed);
        assert_eq!(b, needed);
        assert_eq!((swept, bisected), (21, 37));
    }

    /// Two neighbours that only go together (a dialog opened, then closed) go in the
    /// sweep of pairs; detours go first, one test each.
    #[test]
    fn sweeps_drop_pairs_and_detours() {
        let items: Vec<u32> = (0..8).collect();
        let mut tests = 0;
        let min = sweep_with_loops(&items, &[(4, 7)], &SWEEPS, |s| {
            tests += 1;
            // 2 and 3 both or neither; 0, 1 and 7 needed; 4..7 a detour.
            let has = |x| s.contains(&x);
            let ok = has(0) && has(1) && has(7) && has(2) == has(3);
            Ok::<_, ()>(if ok {
                Verdict::FailAt(s.len() - 1)
            } else {
                Verdict::Pass
            })
        })
        .unwrap();
        assert_eq!(min, vec![0, 1, 7]);
        // One for the detour, then sweeps of the five items left: 5 singles, 4 pairs
        // (the second drops 2 and 3), 3 singles of the three left.
        assert_eq!(tests, 13);
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

    /// The items at the picked places, in order, each place once.
    fn picked(items: &[u32], pick: &[proptest::sample::Index]) -> Vec<u32> {
        let mut idx: Vec<usize> = pick.iter().map(|p| p.index(items.len())).collect();
        idx.sort();
        idx.dedup();
        idx.iter().map(|&i| items[i]).collect()
    }

    proptest! {
        /// The result still fails, keeps the original order, and is 1-minimal: dropping
        /// any single item makes the test pass.
        #[test]
        fn result_fails_keeps_order_and_is_one_minimal(
            items in proptest::collection::vec(0u32..6, 1..24),
            pick in proptest::collection::vec(any::<proptest::sample::Index>(), 1..4),
        ) {
            let needed = picked(&items, &pick);
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

        /// The same for the sweeps: what they keep still fails, in order, and is what the
        /// test needs, no more.
        #[test]
        fn sweeps_keep_what_fails_in_order_and_no_more(
            items in proptest::collection::vec(0u32..6, 1..24),
            pick in proptest::collection::vec(any::<proptest::sample::Index>(), 1..4),
        ) {
            let needed = picked(&items, &pick);
            let min = sweep_with_loops(&items, &[], &SWEEPS, |s| {
                Ok::<_, ()>(contains_in_order(s, &needed))
            })
            .unwrap();
            prop_assert!(matches!(contains_in_order(&min, &needed), Verdict::FailAt(_)));
            prop_assert_eq!(min.len(), needed.len());
            prop_assert!(matches!(contains_in_order(&items, &min), Verdict::FailAt(_)));
        }
    }
}
