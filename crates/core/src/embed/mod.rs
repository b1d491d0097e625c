//! Page embeddings (WebRLED, DESIGN 7.4): the simplified HTML of a page as a fixed-length
//! vector, and the `embedding` abstraction that calls two pages of one URL the same state
//! when their vectors' cosine reaches a threshold.
//!
//! The vector is built by feature hashing (the "hashing trick"): every element of the
//! simplified page contributes its tag path, its tag and its attribute tokens, each hashed
//! to one of `dims` slots with a hashed sign; the sum is L2-normalised. No model, no
//! vocabulary, the same vector for the same page on every machine (FNV-1a, not the
//! standard hasher, whose output may change between Rust releases: saved networks depend
//! on it).

mod simplify;
pub mod text;

use std::collections::HashMap;
use std::sync::Arc;

pub use simplify::{mask_digits, render, simplify, Child, Node};

use crate::model::Observation;
use crate::state::{normalize_url, Abstraction, Analysis, StateId};

// The configuration owns the defaults (`[abstraction]`); named here too, where they act.
pub use crate::config::{DEFAULT_COSINE, DEFAULT_DIMS};

/// A page's embedding, L2-normalised (all zeros for an empty page). Kept in the state data
/// of every analysed page by the `embedding` abstraction.
#[derive(Clone, Debug, PartialEq)]
pub struct Embedding(pub Arc<Vec<f32>>);

impl Embedding {
    pub fn as_slice(&self) -> &[f32] {
        &self.0
    }
}

/// FNV-1a (64 bits) of `parts`, each followed by a zero byte: a hash that is the same in
/// every build and on every machine, for features and page keys.
pub fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.as_bytes().iter().chain(&[0u8]) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn add(v: &mut [f32], feature: &str, weight: f32) {
    let h = fnv1a(&[feature]);
    let slot = (h % v.len() as u64) as usize;
    let sign = if h >> 63 == 1 { -1.0 } else { 1.0 };
    v[slot] += sign * weight;
}

/// The embedding of a simplified page in `dims` slots.
pub fn embed_tree(root: &Node, dims: usize) -> Vec<f32> {
    let mut v = vec![0.0f32; dims.max(1)];
    let mut path = String::new();
    walk(root, &mut path, &mut v);
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
    v
}

fn walk(node: &Node, path: &mut String, v: &mut [f32]) {
    let len = path.len();
    for c in &node.children {
        match c {
            Child::Text => add(v, &format!("x:{path}"), 1.0),
            Child::Element(n) => {
                path.push('/');
                path.push_str(&n.tag);
                add(v, &format!("p:{path}"), 1.0);
                add(v, &format!("t:{}", n.tag), 0.5);
                for (k, val) in &n.attrs {
                    if val == "*" {
                        add(v, &format!("a:{}@{k}", n.tag), 0.5);
                    } else {
                        for tok in val.split_whitespace() {
                            add(v, &format!("a:{}@{k}={tok}", n.tag), 0.5);
                        }
                    }
                }
                if n.dropped > 0 {
                    // How many siblings were dropped, in powers of two: a list of 3 and
                    // one of 40 differ, 3 and 4 barely.
                    let bucket = usize::BITS - n.dropped.leading_zeros();
                    add(v, &format!("r:{path}#{bucket}"), 1.0);
                }
                walk(n, path, v);
                path.truncate(len);
            }
        }
    }
}

/// The embedding of an observed page.
pub fn embed(obs: &Observation, dims: usize) -> Vec<f32> {
    embed_tree(&simplify(&obs.html), dims)
}

/// Cosine of two vectors of equal length (0 when either is all zeros).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let mut dot = 0.0f64;
    let mut na = 0.0f64;
    let mut nb = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        dot += f64::from(*x) * f64::from(*y);
        na += f64::from(*x) * f64::from(*x);
        nb += f64::from(*y) * f64::from(*y);
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// A state and the embedding of the page that created it.
type Representative = (StateId, Arc<Vec<f32>>);

/// The `embedding` abstraction: same normalised URL and embeddings at least `threshold`
/// alike (cosine) make one state; a page is compared with its URL's states only, and the
/// nearest one above the threshold wins.
#[derive(Debug)]
pub struct EmbeddingAbstraction {
    dims: usize,
    threshold: f64,
    /// Per normalised URL: each state and the embedding of the page that created it.
    by_url: HashMap<String, Vec<Representative>>,
    states: usize,
}

impl EmbeddingAbstraction {
    pub fn new(dims: usize, threshold: f64) -> EmbeddingAbstraction {
        EmbeddingAbstraction {
            dims: dims.max(1),
            threshold,
            by_url: HashMap::new(),
            states: 0,
        }
    }
}

impl Default for EmbeddingAbstraction {
    fn default() -> Self {
        EmbeddingAbstraction::new(DEFAULT_DIMS, DEFAULT_COSINE)
    }
}

impl Abstraction for EmbeddingAbstraction {
    fn name(&self) -> &str {
        "embedding"
    }

    fn analyse(&mut self, obs: &Observation) -> Analysis {
        let url = normalize_url(&obs.url);
        let v = Arc::new(embed(obs, self.dims));
        let reps = self.by_url.entry(url.clone()).or_default();
        let best = reps
            .iter()
            .map(|(id, r)| (*id, cosine(r, &v)))
            .filter(|(_, c)| *c >= self.threshold)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let state = match best {
            Some((id, _)) => id,
            None => {
                let id = StateId(self.states as u64);
                self.states += 1;
                reps.push((id, v.clone()));
                id
            }
        };
        let mut analysis = Analysis::new(state, url);
        analysis.data_mut().insert(Embedding(v));
        analysis
    }

    fn states(&self) -> usize {
        self.states
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(url: &str, html: &str) -> Observation {
        Observation {
            url: url.into(),
            html: html.into(),
            ..Observation::default()
        }
    }

    fn list(n: usize, text: &str) -> String {
        let items: String = (0..n)
            .map(|i| format!("<li class=\"item\"><a href=\"/i/{i}\">{text} {i}</a></li>"))
            .collect();
        format!("<html><body><h1>{text}</h1><ul>{items}</ul><form><input type=\"text\" name=\"q\"></input><button type=\"submit\">Go</button></form></body></html>")
    }

    #[test]
    fn vectors_are_normalised_and_stable() {
        let a = embed(&obs("http://h/", &list(3, "Cats")), 64);
        assert_eq!(a.len(), 64);
        let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
        // Hashing is ours (FNV-1a): the same page gives the same vector in every build.
        assert_eq!(a, embed(&obs("http://h/", &list(3, "Cats")), 64));
        assert_eq!(embed(&obs("http://h/", ""), 8), vec![0.0; 8]);
    }

    #[test]
    fn text_and_list_length_barely_matter_but_structure_does() {
        let base = embed(&obs("http://h/", &list(3, "Cats")), DEFAULT_DIMS);
        let texts = embed(&obs("http://h/", &list(3, "Dogs")), DEFAULT_DIMS);
        let longer = embed(&obs("http://h/", &list(4, "Cats")), DEFAULT_DIMS);
        let much_longer = embed(&obs("http://h/", &list(40, "Cats")), DEFAULT_DIMS);
        let other = embed(
            &obs(
                "http://h/",
                "<html><body><table><tr><td>1</td></tr></table><div class=\"card\"><span>x</span></div></body></html>",
            ),
            DEFAULT_DIMS,
        );
        assert_eq!(cosine(&base, &texts), 1.0);
        let c_longer = cosine(&base, &longer);
        let c_much = cosine(&base, &much_longer);
        let c_other = cosine(&base, &other);
        assert!(c_longer > 0.99, "{c_longer}");
        assert!(c_much < c_longer && c_much > 0.8, "{c_much}");
        assert!(c_other < 0.5, "{c_other}");
    }

    #[test]
    fn the_abstraction_groups_by_url_and_cosine() {
        let mut a = EmbeddingAbstraction::default();
        let s1 = a.analyse(&obs("http://h/a?x=1", &list(3, "Cats")));
        let s2 = a.analyse(&obs("http://h/a?x=2", &list(4, "Dogs")));
        let s3 = a.analyse(&obs("http://h/b", &list(3, "Cats")));
        let s4 = a.analyse(&obs("http://h/a", "<html><body><p>empty</p></body></html>"));
        assert_eq!(s1.state, s2.state);
        assert_ne!(s1.state, s3.state);
        assert_ne!(s1.state, s4.state);
        assert_eq!(a.states(), 3);
        let e = s2
            .data()
            .get::<Embedding>()
            .expect("embedding kept as state data");
        assert_eq!(e.as_slice().len(), DEFAULT_DIMS);
    }
}
