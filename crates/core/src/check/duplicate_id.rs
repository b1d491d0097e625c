//! `duplicate_id`: two interactive elements of one document or shadow root share an `id`
//! (a label, a `getElementById` or a test reaches the wrong one).

use std::collections::BTreeMap;

use super::{describe, Check, Page};
use crate::config::{OracleConfig, Severity};
use crate::model::Observation;
use crate::oracle::Finding;

pub struct DuplicateId;

impl Check for DuplicateId {
    fn id(&self) -> &'static str {
        "duplicate_id"
    }
    fn phrase(&self) -> &'static str {
        "duplicate id"
    }
    fn about(&self) -> &'static str {
        "two interactive elements of one page with the same id"
    }
    fn default_severity(&self) -> Severity {
        Severity::Warn
    }
    fn configured(&self, c: &OracleConfig) -> Option<Severity> {
        Some(c.duplicate_ids)
    }
    fn judge(&self, p: &Page<'_>) -> Vec<Finding> {
        duplicate_ids(p.obs)
            .into_iter()
            .map(|(id, els)| {
                let shown: Vec<String> = els.iter().take(3).map(|e| describe(e)).collect();
                let message = format!(
                    "id {id:?} is on {} interactive elements: {}",
                    els.len(),
                    shown.join(", ")
                );
                p.finding(self, message, &[&id, &p.page])
            })
            .collect()
    }
}

/// Ids shared by interactive elements of one document or shadow root (a locator's part
/// before its last `>>>`), in page order.
fn duplicate_ids(o: &Observation) -> Vec<(String, Vec<&crate::model::Element>)> {
    let mut by: BTreeMap<(String, String), Vec<&crate::model::Element>> = BTreeMap::new();
    let mut order = Vec::new();
    for e in o.elements.iter().filter(|e| !e.actionable.is_empty()) {
        let Some(id) = e.attrs.get("id").filter(|i| !i.trim().is_empty()) else {
            continue;
        };
        let root = e
            .locator
            .rsplit_once(">>>")
            .map_or("", |(r, _)| r)
            .to_string();
        let key = (root, id.clone());
        if !by.contains_key(&key) {
            order.push(key.clone());
        }
        by.entry(key).or_default().push(e);
    }
    order
        .into_iter()
        .filter_map(|k| {
            let els = by.remove(&k)?;
            (els.len() > 1).then_some((k.1, els))
        })
        .collect()
}
