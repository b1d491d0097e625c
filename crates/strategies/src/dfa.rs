//! The automaton of observed transitions (WebExplor's DFA; DESIGN 7.3): every
//! (state, action, next state) seen, how often, and shortest paths over it. Dijkstra
//! with unit weights is a breadth-first search; ties go to the transition seen first,
//! so paths are deterministic for a seed.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

use wayfarer_core::StateId;

/// One observed transition and how often it was taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge<A> {
    pub from: StateId,
    pub action: A,
    pub to: StateId,
    pub count: u32,
}

#[derive(Clone, Debug)]
pub struct Dfa<A> {
    /// In the order first seen.
    edges: Vec<Edge<A>>,
    index: HashMap<(StateId, A, StateId), usize>,
    /// Outgoing edge indexes per state, in the order first seen.
    out: HashMap<StateId, Vec<usize>>,
}

impl<A> Default for Dfa<A> {
    fn default() -> Self {
        Dfa {
            edges: Vec::new(),
            index: HashMap::new(),
            out: HashMap::new(),
        }
    }
}

impl<A: Clone + Eq + Hash> Dfa<A> {
    /// Record a transition; returns its count after this visit (1 the first time).
    pub fn observe(&mut self, from: StateId, action: &A, to: StateId) -> u32 {
        let key = (from, action.clone(), to);
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.edges.push(Edge {
                    from,
                    action: action.clone(),
                    to,
                    count: 0,
                });
                let i = self.edges.len() - 1;
                self.index.insert(key, i);
                self.out.entry(from).or_default().push(i);
                i
            }
        };
        self.edges[i].count += 1;
        self.edges[i].count
    }

    /// How often (from, action, to) was observed.
    pub fn count(&self, from: StateId, action: &A, to: StateId) -> u32 {
        self.index
            .get(&(from, action.clone(), to))
            .map_or(0, |&i| self.edges[i].count)
    }

    pub fn edges(&self) -> &[Edge<A>] {
        &self.edges
    }

    /// The fewest transitions from `from` to `to` (empty when they are the same state),
    /// or None when `to` cannot be reached.
    pub fn shortest_path(&self, from: StateId, to: StateId) -> Option<Vec<&Edge<A>>> {
        self.shortest_path_where(from, to, |_| true)
    }

    /// `shortest_path` over the edges `usable` accepts (replays skip `back`, whose
    /// effect depends on the history rather than on the state).
    pub fn shortest_path_where(
        &self,
        from: StateId,
        to: StateId,
        usable: impl Fn(&Edge<A>) -> bool,
    ) -> Option<Vec<&Edge<A>>> {
        if from == to {
            return Some(Vec::new());
        }
        let mut via: HashMap<StateId, usize> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        while let Some(s) = queue.pop_front() {
            for &e in self.out.get(&s).map_or(&[][..], Vec::as_slice) {
                let next = self.edges[e].to;
                if next == from || via.contains_key(&next) || !usable(&self.edges[e]) {
                    continue;
                }
                via.insert(next, e);
                if next == to {
                    let mut path = vec![&self.edges[e]];
                    let mut at = self.edges[e].from;
                    while at != from {
                        let back = &self.edges[via[&at]];
                        path.push(back);
                        at = back.from;
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(next);
            }
        }
        None
    }

    /// Every state reachable from `from` over the edges `usable` accepts, `from` included.
    pub fn reachable_from(
        &self,
        from: StateId,
        usable: impl Fn(&Edge<A>) -> bool,
    ) -> std::collections::HashSet<StateId> {
        let mut seen = std::collections::HashSet::from([from]);
        let mut queue = VecDeque::from([from]);
        while let Some(s) = queue.pop_front() {
            for &e in self.out.get(&s).map_or(&[][..], Vec::as_slice) {
                let edge = &self.edges[e];
                if usable(edge) && seen.insert(edge.to) {
                    queue.push_back(edge.to);
                }
            }
        }
        seen
    }

    /// The least-visited transition `eligible` accepts (the highest curiosity,
    /// 1/sqrt(N)); the latest seen among equals, as it borders the newest states.
    pub fn most_curious(&self, eligible: impl Fn(&Edge<A>) -> bool) -> Option<&Edge<A>> {
        let mut best: Option<&Edge<A>> = None;
        for e in self.edges.iter().rev() {
            if best.is_none_or(|b| e.count < b.count) && eligible(e) {
                best = Some(e);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(n: u64) -> StateId {
        StateId(n)
    }

    #[test]
    fn counts_paths_and_curiosity() {
        let mut d: Dfa<&str> = Dfa::default();
        assert_eq!(d.observe(s(0), &"a", s(1)), 1);
        assert_eq!(d.observe(s(0), &"a", s(1)), 2);
        d.observe(s(1), &"b", s(2));
        d.observe(s(0), &"c", s(2));
        d.observe(s(2), &"d", s(3));
        assert_eq!(d.count(s(0), &"a", s(1)), 2);
        assert_eq!(d.count(s(0), &"x", s(1)), 0);
        let p = d.shortest_path(s(0), s(3)).unwrap();
        let acts: Vec<&str> = p.iter().map(|e| e.action).collect();
        assert_eq!(acts, vec!["c", "d"]);
        assert!(d.shortest_path(s(3), s(0)).is_none());
        assert_eq!(d.shortest_path(s(2), s(2)).unwrap().len(), 0);
        assert_eq!(d.most_curious(|_| true).unwrap().action, "d");
        assert_eq!(d.most_curious(|e| e.from == s(0)).unwrap().action, "c");
    }

    /// The fewest edges from `a` to `b` by trying every path of at most n edges.
    fn brute(edges: &[(u64, u64)], a: u64, b: u64, n: usize) -> Option<usize> {
        if a == b {
            return Some(0);
        }
        let mut frontier = vec![a];
        for len in 1..=n {
            let mut next = Vec::new();
            for &x in &frontier {
                for &(f, t) in edges {
                    if f == x {
                        if t == b {
                            return Some(len);
                        }
                        next.push(t);
                    }
                }
            }
            frontier = next;
        }
        None
    }

    proptest! {
        // On small random graphs (parallel edges and loops included), the path is made
        // of observed transitions chained from `from` to `to`, and no path is shorter.
        #[test]
        fn shortest_paths_are_shortest(
            edges in proptest::collection::vec((0u64..6, 0u64..6), 0..16),
            from in 0u64..6,
            to in 0u64..6,
        ) {
            let mut d: Dfa<usize> = Dfa::default();
            for (i, &(f, t)) in edges.iter().enumerate() {
                d.observe(s(f), &(i % 3), s(t));
            }
            let got = d.shortest_path(s(from), s(to));
            let want = brute(&edges, from, to, 6);
            prop_assert_eq!(got.as_ref().map(Vec::len), want);
            if let Some(path) = got {
                let mut at = s(from);
                for e in path {
                    prop_assert_eq!(e.from, at);
                    prop_assert!(d.count(e.from, &e.action, e.to) > 0);
                    at = e.to;
                }
                prop_assert_eq!(at, s(to));
            }
        }
    }
}
