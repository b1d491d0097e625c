//! The state graph as inline SVG, laid out by hand so the report needs no graphviz:
//! columns are BFS depths from the first state, rows within a column are ordered by the
//! mean row of their predecessors (fewer crossings), and tall columns wrap.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt::Write as _;

use wayfarer_core::StateId;
use wayfarer_store::RunData;

use super::text::{escape, short_url, truncate};

/// States drawn at most; past this the graph stops being readable anyway.
pub const MAX_NODES: usize = 150;
/// Rows per column before a BFS layer wraps into another column.
const PER_COLUMN: usize = 16;
const NODE_W: f64 = 180.0;
const NODE_H: f64 = 38.0;
const COL_GAP: f64 = 72.0;
const ROW_GAP: f64 = 14.0;
const PAD: f64 = 14.0;

/// The graph's SVG and what it left out.
pub struct Graph {
    pub svg: String,
    pub drawn: usize,
    pub hidden: usize,
    pub edges: usize,
}

/// Transitions between one ordered pair of states, summed over actions.
struct Edge {
    count: u64,
    actions: Vec<(String, u64)>,
}

pub fn draw(data: &RunData, failing: &HashSet<StateId>) -> Graph {
    let n = data.states.len();
    let index: HashMap<StateId, usize> = data
        .states
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id, i))
        .collect();
    let mut edges: BTreeMap<(usize, usize), Edge> = BTreeMap::new();
    let mut loops = vec![0u64; n];
    for t in &data.transitions {
        let (Some(&a), Some(&b)) = (index.get(&t.from), index.get(&t.to)) else {
            continue;
        };
        if a == b {
            loops[a] += t.count;
            continue;
        }
        let e = edges.entry((a, b)).or_insert(Edge {
            count: 0,
            actions: Vec::new(),
        });
        e.count += t.count;
        e.actions.push((t.action.clone(), t.count));
    }
    let depth = depths(n, &edges);
    let fails: Vec<bool> = data
        .states
        .iter()
        .map(|s| failing.contains(&s.id))
        .collect();
    // Failing states are always drawn; the rest by depth, then order of discovery.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (!fails[i], depth[i], i));
    order.truncate(MAX_NODES);
    order.sort_by_key(|&i| (depth[i], i));
    let pos = place(&order, &depth, &edges);
    let width = pos.values().map(|p| p.0).fold(0.0, f64::max) + NODE_W + 2.0 * PAD;
    let height = pos.values().map(|p| p.1).fold(0.0, f64::max) + NODE_H + 2.0 * PAD;
    let mut s = format!(
        r##"<svg class="graph" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="state graph"><defs><marker id="wf-arrow" viewBox="0 0 8 8" refX="7.5" refY="4" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#94a3b8"/></marker></defs>"##
    );
    let max = edges.values().map(|e| e.count).max().unwrap_or(1).max(2) as f64;
    let label = |i: usize| format!("{} {}", data.states[i].id, short_url(&data.states[i].url));
    let mut drawn_edges = 0;
    for (&(a, b), e) in &edges {
        let (Some(&(ax, ay)), Some(&(bx, by))) = (pos.get(&a), pos.get(&b)) else {
            continue;
        };
        drawn_edges += 1;
        let w = 1.0 + 3.0 * (e.count as f64).ln() / max.ln();
        let (ay, by) = (ay + NODE_H / 2.0, by + NODE_H / 2.0);
        let (class, d) = if bx > ax {
            let (x1, x2) = (ax + NODE_W, bx);
            let c = (x2 - x1) / 2.0;
            (
                "fwd",
                format!(
                    "M{x1:.1},{ay:.1} C{:.1},{ay:.1} {:.1},{by:.1} {x2:.1},{by:.1}",
                    x1 + c,
                    x2 - c
                ),
            )
        } else if bx < ax {
            let (x1, x2) = (ax, bx + NODE_W);
            let c = (x1 - x2) / 2.0;
            (
                "back",
                format!(
                    "M{x1:.1},{ay:.1} C{:.1},{:.1} {:.1},{:.1} {x2:.1},{by:.1}",
                    x1 - c,
                    ay + 24.0,
                    x2 + c,
                    by + 24.0
                ),
            )
        } else {
            let x = ax + NODE_W;
            (
                "back",
                format!(
                    "M{x:.1},{ay:.1} C{:.1},{ay:.1} {:.1},{by:.1} {x:.1},{by:.1}",
                    x + 36.0,
                    x + 36.0
                ),
            )
        };
        let acts: Vec<String> = e
            .actions
            .iter()
            .take(6)
            .map(|(a, c)| format!("{} (×{c})", truncate(a, 80)))
            .collect();
        let more = if e.actions.len() > 6 {
            format!("; {} more", e.actions.len() - 6)
        } else {
            String::new()
        };
        let _ = write!(
            s,
            r#"<path class="edge {class}" d="{d}" stroke-width="{w:.2}" marker-end="url(#wf-arrow)"><title>{} → {} ×{}: {}{more}</title></path>"#,
            escape(&label(a)),
            escape(&label(b)),
            e.count,
            escape(&acts.join("; "))
        );
    }
    for (&i, &(x, y)) in &pos {
        let st = &data.states[i];
        let mut class = String::from("node");
        if i == 0 {
            class.push_str(" start");
        }
        if fails[i] {
            class.push_str(" fail");
        }
        let path = short_url(&st.url);
        let tip = format!(
            "{}\n{}\n{}\nfirst reached at step {}{}",
            st.id,
            st.url,
            st.title,
            st.first_step,
            if loops[i] > 0 {
                format!("\n{} actions stayed in this state", loops[i])
            } else {
                String::new()
            }
        );
        let _ = write!(
            s,
            r#"<g class="{class}"><title>{}</title><rect x="{x:.1}" y="{y:.1}" width="{NODE_W}" height="{NODE_H}" rx="5"/><text class="n1" x="{:.1}" y="{:.1}">{}</text><text class="n2" x="{:.1}" y="{:.1}">{}</text></g>"#,
            escape(&tip),
            x + 8.0,
            y + 15.0,
            escape(&truncate(&format!("{} {path}", st.id), 25)),
            x + 8.0,
            y + 30.0,
            escape(&truncate(
                if st.title.trim().is_empty() {
                    "(no title)"
                } else {
                    st.title.trim()
                },
                28
            )),
        );
    }
    s.push_str("</svg>");
    Graph {
        svg: s,
        drawn: pos.len(),
        hidden: n - pos.len(),
        edges: drawn_edges,
    }
}

/// BFS depth of every state from the first one; states it cannot reach start their own
/// BFS, in order of discovery, at depth 0.
fn depths(n: usize, edges: &BTreeMap<(usize, usize), Edge>) -> Vec<usize> {
    let mut out_adj = vec![Vec::new(); n];
    for &(a, b) in edges.keys() {
        out_adj[a].push(b);
    }
    let mut depth = vec![usize::MAX; n];
    for root in 0..n {
        if depth[root] != usize::MAX {
            continue;
        }
        depth[root] = 0;
        let mut q = VecDeque::from([root]);
        while let Some(a) = q.pop_front() {
            for &b in &out_adj[a] {
                if depth[b] == usize::MAX {
                    depth[b] = depth[a] + 1;
                    q.push_back(b);
                }
            }
        }
    }
    depth
}

/// Top-left corner of every drawn state. `order` is sorted by (depth, discovery).
fn place(
    order: &[usize],
    depth: &[usize],
    edges: &BTreeMap<(usize, usize), Edge>,
) -> BTreeMap<usize, (f64, f64)> {
    let mut layers: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &i in order {
        layers.entry(depth[i]).or_default().push(i);
    }
    let mut preds: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(a, b) in edges.keys() {
        preds.entry(b).or_default().push(a);
    }
    // Row of each placed state, for the barycentre of the next layers.
    let mut row: HashMap<usize, f64> = HashMap::new();
    let mut columns: Vec<Vec<usize>> = Vec::new();
    for layer in layers.into_values() {
        let key = |i: usize| {
            let rows: Vec<f64> = preds
                .get(&i)
                .into_iter()
                .flatten()
                .filter_map(|p| row.get(p).copied())
                .collect();
            if rows.is_empty() {
                f64::MAX
            } else {
                rows.iter().sum::<f64>() / rows.len() as f64
            }
        };
        let mut keyed: Vec<(f64, usize)> = layer.iter().map(|&i| (key(i), i)).collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for chunk in keyed.chunks(PER_COLUMN) {
            // Rows relative to the column's middle, as columns are drawn centred.
            let mid = (chunk.len() as f64 - 1.0) / 2.0;
            for (r, &(_, i)) in chunk.iter().enumerate() {
                row.insert(i, r as f64 - mid);
            }
            columns.push(chunk.iter().map(|c| c.1).collect());
        }
    }
    let tallest = columns.iter().map(Vec::len).max().unwrap_or(0);
    let mut pos = BTreeMap::new();
    for (c, col) in columns.iter().enumerate() {
        // Centre short columns against the tallest one.
        let offset = (tallest - col.len()) as f64 * (NODE_H + ROW_GAP) / 2.0;
        for (r, &i) in col.iter().enumerate() {
            let x = PAD + c as f64 * (NODE_W + COL_GAP);
            let y = PAD + offset + r as f64 * (NODE_H + ROW_GAP);
            pos.insert(i, (x, y));
        }
    }
    pos
}
