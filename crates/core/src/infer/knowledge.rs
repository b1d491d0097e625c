//! The knowledge base: abstract (state, action) -> at most n candidate next states, each
//! with the data computed for it, or the mark "non-deterministic" once an interaction led
//! to more than n distinct states (SIBILLA's SIBILLAGET / ADDSTATE / ADDDATA).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::keys::Key;

/// One candidate next state: its abstract key and the data the loop keeps for it.
#[derive(Clone, Debug)]
pub struct Candidate<D> {
    pub state: Key,
    pub data: D,
    /// How often a scan or a validation confirmed it.
    pub confirmed: u64,
}

#[derive(Clone, Debug)]
enum Entry<D> {
    Candidates(Vec<Candidate<D>>),
    NonDeterministic,
}

/// What the knowledge base knows about an interaction.
#[derive(Debug)]
pub enum Lookup<'a, D> {
    /// Never performed: scan, then record.
    Unknown,
    /// More distinct outcomes than the capacity: always scan.
    NonDeterministic,
    /// Try these in order; none fitting means scan and record.
    Candidates(&'a [Candidate<D>]),
}

/// What `record` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// The interaction's first candidate.
    New,
    /// One more candidate for a known interaction.
    Appended,
    /// A candidate with the same abstract state was there: its data was replaced.
    Refreshed,
    /// The new state overflowed the capacity: the interaction is non-deterministic now.
    Overflowed,
    /// Already non-deterministic; nothing kept.
    Ignored,
}

/// How many interactions have 1, 2 ... n candidates, and how many are non-deterministic.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cardinality {
    /// `by_candidates[k]` interactions have `k + 1` candidates.
    pub by_candidates: Vec<u64>,
    pub nondeterministic: u64,
}

impl Cardinality {
    pub fn interactions(&self) -> u64 {
        self.by_candidates.iter().sum::<u64>() + self.nondeterministic
    }
}

/// The knowledge base, generic over the state data `D` it carries.
#[derive(Clone, Debug)]
pub struct Knowledge<D> {
    capacity: usize,
    entries: HashMap<(Key, Key), Entry<D>>,
}

impl<D> Knowledge<D> {
    /// `capacity` is the tolerance n (at least 1).
    pub fn new(capacity: usize) -> Knowledge<D> {
        Knowledge {
            capacity: capacity.max(1),
            entries: HashMap::new(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn lookup(&self, state: Key, action: Key) -> Lookup<'_, D> {
        match self.entries.get(&(state, action)) {
            None => Lookup::Unknown,
            Some(Entry::NonDeterministic) => Lookup::NonDeterministic,
            Some(Entry::Candidates(c)) => Lookup::Candidates(c),
        }
    }

    /// A scan found `next` after the interaction (`state`, `action`): keep it as a
    /// candidate, or mark the interaction non-deterministic when it is one too many.
    pub fn record(&mut self, state: Key, action: Key, next: Key, data: D) -> Recorded {
        let capacity = self.capacity;
        let entry = self
            .entries
            .entry((state, action))
            .or_insert_with(|| Entry::Candidates(Vec::new()));
        let Entry::Candidates(list) = entry else {
            return Recorded::Ignored;
        };
        if let Some(c) = list.iter_mut().find(|c| c.state == next) {
            c.data = data;
            c.confirmed += 1;
            return Recorded::Refreshed;
        }
        if list.len() >= capacity {
            *entry = Entry::NonDeterministic;
            return Recorded::Overflowed;
        }
        list.push(Candidate {
            state: next,
            data,
            confirmed: 1,
        });
        if list.len() == 1 {
            Recorded::New
        } else {
            Recorded::Appended
        }
    }

    /// A validation accepted candidate `next` of the interaction.
    pub fn confirm(&mut self, state: Key, action: Key, next: Key) {
        self.refine(state, action, next, |_| {});
    }

    /// Update the data of one candidate in place (data refined monotonically, such as
    /// similarity results against states seen since); false when there is no such candidate.
    pub fn refine(&mut self, state: Key, action: Key, next: Key, f: impl FnOnce(&mut D)) -> bool {
        let Some(Entry::Candidates(list)) = self.entries.get_mut(&(state, action)) else {
            return false;
        };
        match list.iter_mut().find(|c| c.state == next) {
            Some(c) => {
                c.confirmed += 1;
                f(&mut c.data);
                true
            }
            None => false,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn cardinality(&self) -> Cardinality {
        let mut c = Cardinality {
            by_candidates: vec![0; self.capacity],
            nondeterministic: 0,
        };
        for e in self.entries.values() {
            match e {
                Entry::NonDeterministic => c.nondeterministic += 1,
                Entry::Candidates(list) if !list.is_empty() => {
                    c.by_candidates[list.len().min(self.capacity) - 1] += 1
                }
                Entry::Candidates(_) => {}
            }
        }
        c
    }

    /// Every interaction with its candidates (`None` when non-deterministic), in no order.
    pub fn entries(&self) -> impl Iterator<Item = ((Key, Key), Option<&[Candidate<D>]>)> {
        self.entries.iter().map(|(k, e)| match e {
            Entry::Candidates(c) => (*k, Some(c.as_slice())),
            Entry::NonDeterministic => (*k, None),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_accumulate_up_to_the_capacity_then_overflow() {
        let mut kb: Knowledge<&str> = Knowledge::new(2);
        assert!(matches!(kb.lookup(1, 9), Lookup::Unknown));
        assert_eq!(kb.record(1, 9, 100, "a"), Recorded::New);
        assert_eq!(kb.record(1, 9, 100, "a2"), Recorded::Refreshed);
        assert_eq!(kb.record(1, 9, 200, "b"), Recorded::Appended);
        match kb.lookup(1, 9) {
            Lookup::Candidates(c) => {
                assert_eq!(c.iter().map(|c| c.data).collect::<Vec<_>>(), ["a2", "b"]);
                assert_eq!(c[0].confirmed, 2);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(kb.record(1, 9, 300, "c"), Recorded::Overflowed);
        assert!(matches!(kb.lookup(1, 9), Lookup::NonDeterministic));
        assert_eq!(kb.record(1, 9, 100, "a"), Recorded::Ignored);
        assert_eq!(
            kb.cardinality(),
            Cardinality {
                by_candidates: vec![0, 0],
                nondeterministic: 1
            }
        );
    }

    #[test]
    fn refine_updates_one_candidate_in_place() {
        let mut kb: Knowledge<Vec<u32>> = Knowledge::new(5);
        kb.record(1, 2, 3, vec![1]);
        kb.record(1, 2, 4, vec![]);
        assert!(kb.refine(1, 2, 3, |d| d.push(2)));
        assert!(!kb.refine(1, 2, 5, |d| d.push(9)));
        assert!(!kb.refine(7, 2, 3, |d| d.push(9)));
        let Lookup::Candidates(c) = kb.lookup(1, 2) else {
            panic!()
        };
        assert_eq!(c[0].data, vec![1, 2]);
        assert_eq!(kb.cardinality().by_candidates, vec![0, 1, 0, 0, 0]);
        assert_eq!(kb.cardinality().interactions(), 1);
    }

    proptest::proptest! {
        // Whatever the order of outcomes: no interaction holds more than n candidates,
        // candidates are distinct, and "non-deterministic" is forever.
        #[test]
        fn capacity_and_nondeterminism_hold(
            capacity in 1usize..4,
            events in proptest::collection::vec((0u64..3, 0u64..3, 0u64..6), 0..60),
        ) {
            let mut kb: Knowledge<u64> = Knowledge::new(capacity);
            let mut nd = std::collections::HashSet::new();
            let mut seen = std::collections::HashSet::new();
            for (step, (s, a, next)) in events.into_iter().enumerate() {
                let r = kb.record(s, a, next, step as u64);
                seen.insert((s, a));
                if nd.contains(&(s, a)) {
                    proptest::prop_assert_eq!(r, Recorded::Ignored);
                }
                if r == Recorded::Overflowed {
                    nd.insert((s, a));
                }
                match kb.lookup(s, a) {
                    Lookup::Candidates(c) => {
                        proptest::prop_assert!(c.len() <= capacity);
                        let distinct: std::collections::HashSet<_> =
                            c.iter().map(|c| c.state).collect();
                        proptest::prop_assert_eq!(distinct.len(), c.len());
                        proptest::prop_assert!(c.iter().any(|c| c.state == next));
                    }
                    Lookup::NonDeterministic => proptest::prop_assert!(nd.contains(&(s, a))),
                    Lookup::Unknown => proptest::prop_assert!(false, "recorded yet unknown"),
                }
            }
            let card = kb.cardinality();
            proptest::prop_assert_eq!(card.interactions() as usize, seen.len());
            proptest::prop_assert_eq!(card.nondeterministic as usize, nd.len());
        }
    }
}
