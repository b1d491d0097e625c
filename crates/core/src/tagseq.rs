//! The `tagseq` abstraction (WebExplor; DESIGN section 5): two pages are the same state
//! when their normalised URLs are equal and the Ratcliff/Obershelp similarity of their
//! tag sequences reaches a threshold (0.8 by default). A page is compared only with the
//! states of its own URL, cheap upper bounds skip hopeless comparisons, and an exact
//! repeat of a page already seen is answered from a cache without any comparison.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::model::Observation;
use crate::similarity::{quick_ratio, real_quick_ratio, Matcher};
use crate::state::{page_url, Abstraction, Analysis, StateId};

/// The defaults of DESIGN section 5.
pub const DEFAULT_THRESHOLD: f64 = 0.8;
/// Tags compared per page at most: the comparison is quadratic in the worst case.
pub const DEFAULT_MAX_TAGS: usize = 1000;

/// One state: its id and the tag sequence of the page that created it.
#[derive(Debug)]
struct Representative {
    id: StateId,
    tags: Vec<u32>,
}

#[derive(Debug)]
pub struct TagSeqAbstraction {
    threshold: f64,
    max_tags: usize,
    by_url: HashMap<String, Vec<Representative>>,
    /// (url, hash of the capped tag sequence) -> the state it was assigned.
    seen: HashMap<(String, u64), StateId>,
    names: HashMap<String, u32>,
    matcher: Matcher,
    states: usize,
    /// Full comparisons made (for the bench and tests: what the cache and bounds saved).
    pub comparisons: u64,
    /// Record ids in URL paths are one page (`[abstraction] mask_ids`).
    mask_ids: bool,
    /// Pages with other open regions are other states (`[abstraction] regions`).
    regions: bool,
}

impl Default for TagSeqAbstraction {
    fn default() -> Self {
        TagSeqAbstraction::new(DEFAULT_THRESHOLD, DEFAULT_MAX_TAGS)
    }
}

impl TagSeqAbstraction {
    pub fn new(threshold: f64, max_tags: usize) -> TagSeqAbstraction {
        TagSeqAbstraction {
            threshold,
            max_tags: max_tags.max(1),
            by_url: HashMap::new(),
            seen: HashMap::new(),
            names: HashMap::new(),
            matcher: Matcher::default(),
            states: 0,
            comparisons: 0,
            mask_ids: false,
            regions: false,
        }
    }

    /// Pages whose open regions differ (a dialog, a tab panel) are other states.
    pub fn splitting_regions(mut self, on: bool) -> TagSeqAbstraction {
        self.regions = on;
        self
    }

    /// Record ids in URL paths count as one page.
    pub fn masking_ids(mut self, mask: bool) -> TagSeqAbstraction {
        self.mask_ids = mask;
        self
    }

    fn intern(&mut self, tags: &[String]) -> Vec<u32> {
        tags.iter()
            .take(self.max_tags)
            .map(|t| {
                let n = self.names.len() as u32;
                *self.names.entry(t.clone()).or_insert(n)
            })
            .collect()
    }

    /// The most similar state of `url` at or above the threshold (the earliest on ties).
    fn closest(&mut self, url: &str, tags: &[u32]) -> Option<StateId> {
        let reps = self.by_url.get(url)?;
        let mut best: Option<(f64, StateId)> = None;
        for r in reps {
            if real_quick_ratio(tags.len(), r.tags.len()) < self.threshold
                || quick_ratio(tags, &r.tags) < self.threshold
            {
                continue;
            }
            self.comparisons += 1;
            let s = self.matcher.ratio(tags, &r.tags);
            if s >= self.threshold && best.is_none_or(|(b, _)| s > b) {
                best = Some((s, r.id));
            }
        }
        best.map(|(_, id)| id)
    }
}

impl Abstraction for TagSeqAbstraction {
    fn name(&self) -> &str {
        "tagseq"
    }

    fn analyse(&mut self, obs: &Observation) -> Analysis {
        let url = page_url(&obs.url, self.mask_ids);
        // Pages are compared within their URL, and, when regions split states, within
        // the set of regions they show open.
        let group = if self.regions && !obs.regions.is_empty() {
            let mut open = obs.regions.clone();
            open.sort();
            open.dedup();
            format!("{url}\u{1f}{}", open.join("\u{1f}"))
        } else {
            url.clone()
        };
        let tags = self.intern(&obs.tags);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        tags.hash(&mut h);
        let key = (group.clone(), h.finish());
        if let Some(&id) = self.seen.get(&key) {
            return Analysis::new(id, url);
        }
        let id = match self.closest(&group, &tags) {
            Some(id) => id,
            None => {
                let id = StateId(self.states as u64);
                self.states += 1;
                self.by_url
                    .entry(group)
                    .or_default()
                    .push(Representative { id, tags });
                id
            }
        };
        self.seen.insert(key, id);
        Analysis::new(id, url)
    }

    fn states(&self) -> usize {
        self.states
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, tags: &[&str]) -> Observation {
        Observation {
            url: url.into(),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            ..Observation::default()
        }
    }

    fn list(n: usize) -> Vec<&'static str> {
        let mut t = vec!["html", "body", "h1", "ul"];
        t.extend(std::iter::repeat_n("li", n));
        t
    }

    #[test]
    fn similar_pages_of_one_url_are_one_state() {
        let mut a = TagSeqAbstraction::default();
        let s10 = a.analyse(&page("http://h/items?page=1", &list(10))).state;
        // 11 items (query values dropped): ratio 2*14/(14+15) = 0.966 >= 0.8.
        let s11 = a.analyse(&page("http://h/items?page=2", &list(11))).state;
        assert_eq!(s10, s11);
        // 30 items: 2*14/(14+34) = 0.58 < 0.8: a new state.
        let s30 = a.analyse(&page("http://h/items?page=3", &list(30))).state;
        assert_ne!(s10, s30);
        // The same tags at another URL are another state.
        let other = a.analyse(&page("http://h/other", &list(10))).state;
        assert_ne!(other, s10);
        assert_eq!(a.states(), 3);
    }

    #[test]
    fn an_open_dialog_is_another_state_only_when_regions_split_states() {
        let with = |regions: &[&str]| Observation {
            regions: regions.iter().map(|s| s.to_string()).collect(),
            ..page("http://h/app", &list(200))
        };
        let mut plain = TagSeqAbstraction::default();
        let s = plain.analyse(&with(&[])).state;
        assert_eq!(plain.analyse(&with(&["dialog:Edit item"])).state, s);
        let mut split = TagSeqAbstraction::default().splitting_regions(true);
        let closed = split.analyse(&with(&[])).state;
        let dialog = split.analyse(&with(&["dialog:Edit item"])).state;
        let tab = split.analyse(&with(&["tabpanel:Settings"])).state;
        assert_ne!(closed, dialog);
        assert_ne!(dialog, tab);
        // The same regions in another order are the same state.
        let both = split
            .analyse(&with(&["dialog:Edit item", "tabpanel:Settings"]))
            .state;
        assert_eq!(
            split
                .analyse(&with(&["tabpanel:Settings", "dialog:Edit item"]))
                .state,
            both
        );
        // The URL the analysis reports stays the page's.
        assert_eq!(
            split.analyse(&with(&["dialog:Edit item"])).url,
            plain.analyse(&with(&[])).url
        );
    }

    #[test]
    fn repeats_are_answered_from_the_cache_and_bounds_skip_comparisons() {
        let mut a = TagSeqAbstraction::default();
        a.analyse(&page("http://h/", &list(3)));
        a.analyse(&page("http://h/", &list(40)));
        let before = a.comparisons;
        for _ in 0..5 {
            a.analyse(&page("http://h/", &list(3)));
        }
        assert_eq!(a.comparisons, before, "exact repeats need no comparison");
        // Lengths 7 vs 44: real_quick_ratio 0.27 rules the long one out unscored.
        a.analyse(&page("http://h/", &list(4)));
        assert_eq!(a.comparisons, before + 1);
    }

    #[test]
    fn the_threshold_is_inclusive() {
        // 2*4/(4+6) = 0.8 exactly.
        let mut a = TagSeqAbstraction::new(0.8, 100);
        let x = a.analyse(&page("http://h/", &["a", "b", "c", "d"])).state;
        let y = a
            .analyse(&page("http://h/", &["a", "b", "c", "d", "e", "f"]))
            .state;
        assert_eq!(x, y);
    }
}
