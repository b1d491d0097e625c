//! WebRLED's simplified HTML (DESIGN 7.4): the scan's HTML without the elements a user
//! never sees, text masked, and repeated siblings collapsed to the first with a count, so
//! two pages that differ only in their data or the length of a list look alike.
//!
//! The input is the scan's own serialisation (`Observation::html`): every element opened
//! as `<tag name="value" ...>` and closed as `</tag>`, text and values escaped, possibly cut
//! short at the scan's size cap (open elements are then closed at the end).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Elements dropped with everything inside: page furniture and scripts.
const DROPPED: &[&str] = &[
    "head", "script", "style", "noscript", "template", "meta", "link", "title", "base",
];

/// Attributes whose value says something about structure; other values are text-like
/// (links, labels, placeholders) and are masked to `*`.
const KEEP_VALUE: &[&str] = &[
    "class",
    "type",
    "role",
    "name",
    "id",
    "method",
    "data-testid",
];

/// One child of an element after simplification.
#[derive(Clone, Debug, PartialEq)]
pub enum Child {
    Element(Node),
    /// Masked text (consecutive text runs are one).
    Text,
}

/// An element of the simplified page.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub tag: String,
    /// Attribute names with their values; masked values are `*`, digit runs are `0`.
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Child>,
    /// Identical siblings dropped after this one (the paper's count attribute).
    pub dropped: usize,
}

impl Node {
    fn new(tag: &str) -> Node {
        Node {
            tag: tag.to_string(),
            attrs: Vec::new(),
            children: Vec::new(),
            dropped: 0,
        }
    }

    /// A hash of the structure: tags, attributes and children, but not the drop counts
    /// (two list items that each hold lists of different lengths are alike).
    fn shape(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.tag.hash(&mut h);
        self.attrs.hash(&mut h);
        for c in &self.children {
            match c {
                Child::Element(n) => n.shape().hash(&mut h),
                Child::Text => 0u8.hash(&mut h),
            }
        }
        h.finish()
    }

    /// The element children.
    pub fn elements(&self) -> impl Iterator<Item = &Node> {
        self.children.iter().filter_map(|c| match c {
            Child::Element(n) => Some(n),
            Child::Text => None,
        })
    }
}

/// Simplify the scan's HTML: a synthetic `#document` root holding the top-level elements.
pub fn simplify(html: &str) -> Node {
    let mut root = parse(html);
    collapse(&mut root);
    root
}

/// Replace every digit run by a single `0`: ids such as `card-17` and `card-3` are alike.
pub fn mask_digits(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut in_digits = false;
    for ch in v.chars() {
        if ch.is_ascii_digit() {
            if !in_digits {
                out.push('0');
            }
            in_digits = true;
        } else {
            out.push(ch);
            in_digits = false;
        }
    }
    out
}

fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Parse the scan's serialisation into a tree, dropping invisible furniture and masking
/// text and text-like values on the way.
fn parse(html: &str) -> Node {
    let mut stack: Vec<Node> = vec![Node::new("#document")];
    // Depth of a dropped element we are inside (its content is skipped).
    let mut skipping: Option<usize> = None;
    let bytes = html.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            let end = html[i..].find('<').map_or(bytes.len(), |k| i + k);
            if skipping.is_none() && !html[i..end].trim().is_empty() {
                let top = stack.last_mut().expect("root stays");
                if top.children.last() != Some(&Child::Text) {
                    top.children.push(Child::Text);
                }
            }
            i = end;
            continue;
        }
        let Some(close) = html[i..].find('>').map(|k| i + k) else {
            break; // cut short inside a tag
        };
        let inner = &html[i + 1..close];
        i = close + 1;
        if let Some(name) = inner.strip_prefix('/') {
            let name = name.trim();
            match skipping {
                Some(depth) => {
                    if stack.len() == depth && DROPPED.contains(&name) {
                        skipping = None;
                    }
                }
                None => {
                    if stack.len() > 1 && stack.last().is_some_and(|n| n.tag == name) {
                        let done = stack.pop().expect("checked");
                        let parent = stack.last_mut().expect("root stays");
                        parent.children.push(Child::Element(done));
                    }
                }
            }
            continue;
        }
        let (tag, rest) = inner.split_once(' ').unwrap_or((inner, ""));
        if skipping.is_some() {
            continue;
        }
        if DROPPED.contains(&tag) {
            skipping = Some(stack.len());
            continue;
        }
        let mut node = Node::new(tag);
        node.attrs = parse_attrs(rest);
        stack.push(node);
    }
    // A cut-short page: close what is still open.
    while stack.len() > 1 {
        let done = stack.pop().expect("checked");
        stack
            .last_mut()
            .expect("root stays")
            .children
            .push(Child::Element(done));
    }
    stack.pop().expect("root")
}

/// ` name="value" name2="value2"` -> masked pairs.
fn parse_attrs(mut s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    loop {
        s = s.trim_start();
        let Some(eq) = s.find("=\"") else { break };
        let name = s[..eq].trim().to_string();
        let rest = &s[eq + 2..];
        let Some(end) = rest.find('"') else { break };
        let value = unescape(&rest[..end]);
        s = &rest[end + 1..];
        let value = if KEEP_VALUE.contains(&name.as_str()) {
            mask_digits(
                value
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .as_str(),
            )
        } else {
            "*".to_string()
        };
        out.push((name, value));
    }
    out
}

/// Bottom-up: where all element children of a node have the same shape, keep the first
/// and count the rest.
fn collapse(node: &mut Node) {
    for c in node.children.iter_mut() {
        if let Child::Element(n) = c {
            collapse(n);
        }
    }
    let shapes: Vec<u64> = node.elements().map(Node::shape).collect();
    if shapes.len() < 2 || shapes.iter().any(|s| *s != shapes[0]) {
        return;
    }
    let mut seen = false;
    let dropped = shapes.len() - 1;
    node.children.retain(|c| match c {
        Child::Element(_) if seen => false,
        Child::Element(_) => {
            seen = true;
            true
        }
        Child::Text => true,
    });
    // Text runs that ended up next to each other are one run.
    node.children
        .dedup_by(|a, b| *a == Child::Text && *b == Child::Text);
    if let Some(Child::Element(first)) = node
        .children
        .iter_mut()
        .find(|c| matches!(c, Child::Element(_)))
    {
        first.dropped = dropped;
    }
}

/// The simplified page as indented text, one element per line (for snapshots and logs).
pub fn render(root: &Node) -> String {
    let mut out = String::new();
    for c in &root.children {
        render_child(c, 0, &mut out);
    }
    out
}

fn render_child(c: &Child, depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    match c {
        Child::Text => out.push_str("#text\n"),
        Child::Element(n) => {
            out.push('<');
            out.push_str(&n.tag);
            for (k, v) in &n.attrs {
                out.push_str(&format!(" {k}=\"{v}\""));
            }
            if n.dropped > 0 {
                out.push_str(&format!(" wf-dropped=\"{}\"", n.dropped));
            }
            out.push_str(">\n");
            for c in &n.children {
                render_child(c, depth + 1, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_masked_per_run() {
        assert_eq!(mask_digits("card-17 x2y"), "card-0 x0y");
    }

    #[test]
    fn a_cut_short_page_is_closed() {
        let root = simplify("<html><body><div class=\"a\"><p>hi</p><sp");
        assert_eq!(
            render(&root),
            "<html>\n  <body>\n    <div class=\"a\">\n      <p>\n        #text\n"
        );
    }

    #[test]
    fn dropped_elements_take_their_content_with_them() {
        let root = simplify(
            "<html><head><title>x</title><style></style></head><body><script></script><noscript><p>js</p></noscript><main>t</main></body></html>",
        );
        assert_eq!(render(&root), "<html>\n  <body>\n    <main>\n      #text\n");
    }

    #[test]
    fn lists_of_different_lengths_and_texts_simplify_alike() {
        let li = |t: &str| {
            format!(
                "<li class=\"row\" id=\"r{}\"><a href=\"/x/{t}\">{t}</a></li>",
                t.len()
            )
        };
        let page = |items: &[&str]| {
            format!(
                "<html><body><ul>{}</ul></body></html>",
                items.iter().map(|t| li(t)).collect::<String>()
            )
        };
        let a = simplify(&page(&["alpha", "beta", "gamma"]));
        let b = simplify(&page(&["x", "yy", "zzz", "w", "v"]));
        // Only the count differs.
        let ra = render(&a);
        let rb = render(&b);
        assert!(ra.contains("wf-dropped=\"2\""), "{ra}");
        assert!(rb.contains("wf-dropped=\"4\""), "{rb}");
        assert_eq!(ra.replace("\"2\"", "\"4\""), rb);
        // Children that differ are all kept.
        let mixed = simplify("<ul><li>a</li><li><b>b</b></li></ul>");
        assert_eq!(mixed.elements().next().unwrap().elements().count(), 2);
    }
}
