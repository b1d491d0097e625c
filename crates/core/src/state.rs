//! Abstract states and the per-state analysis slot.
//!
//! An abstraction maps an observation to a `StateId`. The loop times it as "analysis".
//! `Analysis` also carries typed per-strategy data about the state, so a later
//! state-inference layer can memoise everything computed for a state and skip it.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::Observation;

/// An abstract state id, stable within a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StateId(pub u64);

impl fmt::Display for StateId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s{}", self.0)
    }
}

/// The result of analysing one observation.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub state: StateId,
    /// The normalised URL the abstraction used.
    pub url: String,
    slots: StateData,
}

impl Analysis {
    pub fn new(state: StateId, url: String) -> Analysis {
        Analysis {
            state,
            url,
            slots: StateData::default(),
        }
    }

    pub fn data(&self) -> &StateData {
        &self.slots
    }

    pub fn data_mut(&mut self) -> &mut StateData {
        &mut self.slots
    }
}

/// Typed slots: one value per type, shared cheaply when an analysis is reused.
#[derive(Clone, Default)]
pub struct StateData {
    slots: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl StateData {
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.slots
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref::<T>())
    }

    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.slots.insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

impl fmt::Debug for StateData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateData({} slots)", self.slots.len())
    }
}

/// Maps observations to abstract states.
pub trait Abstraction {
    fn name(&self) -> &str;
    fn analyse(&mut self, obs: &Observation) -> Analysis;
    /// Distinct states seen so far.
    fn states(&self) -> usize;
}

/// The abstraction `config` names: `tagseq` (the default), `structure` or `embedding`.
/// The kind is checked by `Config::validate`; an unknown one falls back to `tagseq`.
pub fn abstraction_for(config: &crate::config::AbstractionConfig) -> Box<dyn Abstraction + Send> {
    match config.kind.as_str() {
        "structure" => Box::new(StructureAbstraction {
            mask_ids: config.mask_ids,
            ..StructureAbstraction::default()
        }),
        "embedding" => Box::new(crate::embed::EmbeddingAbstraction::new(
            config.dims,
            config.cosine,
        )),
        _ => Box::new(
            crate::tagseq::TagSeqAbstraction::new(config.threshold, config.max_tags)
                .masking_ids(config.mask_ids)
                .splitting_regions(config.regions),
        ),
    }
}

/// `normalize_url`, with path segments of digits (in the path or a route fragment) as
/// `{id}` when `mask` is set.
pub fn page_url(raw: &str, mask: bool) -> String {
    let url = normalize_url(raw);
    if !mask {
        return url;
    }
    // Past the origin: its port is no segment.
    let start = url.find("://").map_or(0, |i| {
        url[i + 3..].find('/').map_or(url.len(), |j| i + 3 + j)
    });
    let (origin, rest) = url.split_at(start);
    let mut out = origin.to_string();
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        if !token.is_empty() && token.chars().all(|c| c.is_ascii_digit()) {
            out.push_str("{id}");
        } else {
            out.push_str(token);
        }
        token.clear();
    };
    for c in rest.chars() {
        if matches!(c, '/' | '?' | '#' | '&') {
            flush(&mut token, &mut out);
            out.push(c);
        } else {
            token.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

/// URL normalisation shared by the abstractions: scheme, host, port, path and the
/// fragment route are kept; query values are dropped (keys kept, sorted).
pub fn normalize_url(raw: &str) -> String {
    let Ok(u) = url::Url::parse(raw) else {
        return raw.to_string();
    };
    let mut out = format!("{}{}", u.origin().ascii_serialization(), u.path());
    out.push_str(&query_keys(&u));
    if let Some(f) = u
        .fragment()
        .filter(|f| f.starts_with('/') || f.starts_with('!'))
    {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// `?a&b`: the sorted names of a URL's query parameters, without their values; empty
/// without any.
pub fn query_keys(u: &url::Url) -> String {
    let mut keys: Vec<String> = u.query_pairs().map(|(k, _)| k.into_owned()).collect();
    keys.sort();
    keys.dedup();
    match keys.is_empty() {
        true => String::new(),
        false => format!("?{}", keys.join("&")),
    }
}

/// The default abstraction until richer ones exist: the normalised URL plus the exact
/// tag sequence. Cheap, deterministic, and fine-grained (lists of different lengths are
/// different states).
#[derive(Debug, Default)]
pub struct StructureAbstraction {
    ids: HashMap<(String, u64), StateId>,
    /// Record ids in URL paths are one page (`[abstraction] mask_ids`).
    pub mask_ids: bool,
}

impl Abstraction for StructureAbstraction {
    fn name(&self) -> &str {
        "structure"
    }

    fn analyse(&mut self, obs: &Observation) -> Analysis {
        let url = page_url(&obs.url, self.mask_ids);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        obs.tags.hash(&mut h);
        let key = (url.clone(), h.finish());
        let next = StateId(self.ids.len() as u64);
        let state = *self.ids.entry(key).or_insert(next);
        Analysis::new(state, url)
    }

    fn states(&self) -> usize {
        self.ids.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn query_values_are_dropped_and_routes_kept() {
        assert_eq!(
            normalize_url("http://h:8/owners?lastName=Smith&b=2#/edit"),
            "http://h:8/owners?b&lastName#/edit"
        );
        assert_eq!(normalize_url("http://h/a#section"), "http://h/a");
    }

    #[test]
    fn same_structure_same_state() {
        let mut a = StructureAbstraction::default();
        let o = |url: &str, tags: &[&str]| Observation {
            url: url.into(),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            ..Observation::default()
        };
        let s1 = a
            .analyse(&o("http://h/x?id=1", &["html", "body", "div"]))
            .state;
        let s2 = a
            .analyse(&o("http://h/x?id=2", &["html", "body", "div"]))
            .state;
        let s3 = a
            .analyse(&o("http://h/x?id=2", &["html", "body", "p"]))
            .state;
        assert_eq!(s1, s2);
        assert_ne!(s1, s3);
        assert_eq!(a.states(), 2);
    }

    #[test]
    fn state_data_is_typed() {
        let mut an = Analysis::new(StateId(1), "u".into());
        an.data_mut().insert(42u32);
        an.data_mut().insert(String::from("x"));
        assert_eq!(an.data().get::<u32>(), Some(&42));
        assert_eq!(an.data().get::<String>().map(String::as_str), Some("x"));
        assert_eq!(an.data().get::<u64>(), None);
    }

    #[test]
    fn ids_in_paths_and_routes_are_masked_only_when_asked() {
        let u = "http://h:8080/owners/12/pets/3?lastName=x#/groups/2";
        assert_eq!(page_url(u, false), normalize_url(u));
        assert_eq!(
            page_url(u, true),
            "http://h:8080/owners/{id}/pets/{id}?lastName#/groups/{id}"
        );
        assert_eq!(page_url("http://h/v2/a1", true), "http://h/v2/a1");
        assert_eq!(page_url("http://h:8", true), "http://h:8/");
    }

    proptest! {
        // Normalisation is idempotent on URLs it produces.
        #[test]
        fn normalize_url_is_idempotent(path in "[a-z]{0,6}", k in "[a-z]{1,4}", v in "[a-z0-9]{0,4}") {
            let once = normalize_url(&format!("http://h/{path}?{k}={v}"));
            prop_assert_eq!(normalize_url(&once), once.clone());
        }
    }
}
