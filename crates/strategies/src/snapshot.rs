//! Display tables shared by the strategies' snapshots.

use wayfarer_core::{Action, SnapshotTable};

use crate::dfa::Dfa;

/// Rows a snapshot table keeps; the report says how many there were.
pub const ROWS: usize = 40;

pub fn capped(name: &str, columns: &[&str], rows: Vec<Vec<String>>) -> SnapshotTable {
    let total_rows = rows.len();
    SnapshotTable {
        name: name.into(),
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows: rows.into_iter().take(ROWS).collect(),
        total_rows,
    }
}

/// The automaton, least-visited transitions first (the next escape targets).
pub fn automaton_table(dfa: &Dfa<Action>) -> SnapshotTable {
    let mut edges: Vec<_> = dfa.edges().iter().enumerate().collect();
    edges.sort_by_key(|(i, e)| (e.count, *i));
    let rows = edges
        .iter()
        .map(|(_, e)| {
            vec![
                e.from.to_string(),
                e.action.describe(),
                e.to.to_string(),
                e.count.to_string(),
                format!("{:.3}", 1.0 / f64::from(e.count).sqrt()),
            ]
        })
        .collect();
    capped(
        "automaton (least visited first)",
        &["from", "action", "to", "N", "curiosity"],
        rows,
    )
}
