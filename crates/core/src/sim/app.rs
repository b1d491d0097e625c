//! The shape of a simulated application and its generators.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a field accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldRule {
    /// Anything but empty.
    NonEmpty,
    /// Contains '@' followed by a dot.
    Email,
    /// An integer within the range.
    Number { min: i64, max: i64 },
    /// Anything but empty, stored in a column of this many characters that validation
    /// does not check: a longer value passes it, then fails on the server (the seeded
    /// bug of a form; see `SimEnv`).
    Column(usize),
}

impl FieldRule {
    pub fn accepts(&self, v: &str) -> bool {
        match self {
            FieldRule::NonEmpty | FieldRule::Column(_) => !v.trim().is_empty(),
            FieldRule::Email => v
                .split_once('@')
                .is_some_and(|(a, b)| !a.is_empty() && b.contains('.') && !b.ends_with('.')),
            FieldRule::Number { min, max } => v
                .trim()
                .parse::<i64>()
                .is_ok_and(|n| (*min..=*max).contains(&n)),
        }
    }

    pub fn input_type(&self) -> &'static str {
        match self {
            FieldRule::NonEmpty | FieldRule::Column(_) => "text",
            FieldRule::Email => "email",
            FieldRule::Number { .. } => "number",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub rule: FieldRule,
}

/// A form: when every field is valid, submitting leads to `target`; otherwise the page
/// stays and shows an error. A valid value too long for its `Column` throws instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    pub fields: Vec<Field>,
    pub target: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Page {
    pub name: String,
    pub links: Vec<usize>,
    pub forms: Vec<Form>,
    /// Buttons that do nothing visible (noise a strategy must learn to ignore).
    pub dead_buttons: usize,
}

/// A whole simulated application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimApp {
    pub pages: Vec<Page>,
    /// The page where clicking the `bug` button throws; `None` for a bug-free app.
    pub bug_page: Option<usize>,
}

impl SimApp {
    /// A random application: `pages` pages, each with a few links to earlier or next
    /// pages and, now and then, a form guarding the way to a new page. The bug sits on
    /// the deepest page.
    pub fn generate(seed: u64, pages: usize) -> SimApp {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let pages = pages.max(2);
        let mut out: Vec<Page> = (0..pages)
            .map(|i| Page {
                name: format!("p{i}"),
                dead_buttons: rng.gen_range(0..3),
                ..Page::default()
            })
            .collect();
        for i in 1..pages {
            // Each page is reached from an earlier one, by a link or through a form.
            let from = rng.gen_range(0..i);
            if rng.gen_bool(0.4) {
                let fields = (0..rng.gen_range(1..=3))
                    .map(|k| Field {
                        name: format!("f{k}"),
                        rule: [
                            FieldRule::NonEmpty,
                            FieldRule::Email,
                            FieldRule::Number { min: 1, max: 99 },
                        ][rng.gen_range(0..3)],
                    })
                    .collect();
                out[from].forms.push(Form { fields, target: i });
            } else {
                out[from].links.push(i);
            }
            // Some links back, so the graph has cycles.
            if rng.gen_bool(0.3) {
                let back = rng.gen_range(0..i);
                out[i].links.push(back);
            }
        }
        SimApp {
            pages: out,
            bug_page: Some(pages - 1),
        }
    }

    /// A chain of `n` pages, each reached from the previous one only through a form of
    /// `fields` fields (plus distracting links back to the start). The bug is at the end.
    pub fn form_chain(n: usize, fields: usize) -> SimApp {
        let rules = [
            FieldRule::NonEmpty,
            FieldRule::Email,
            FieldRule::Number { min: 1, max: 99 },
        ];
        let pages = (0..n)
            .map(|i| Page {
                name: format!("p{i}"),
                links: if i > 0 { vec![0] } else { vec![] },
                forms: if i + 1 < n {
                    vec![Form {
                        fields: (0..fields)
                            .map(|k| Field {
                                name: format!("f{k}"),
                                rule: rules[(i + k) % rules.len()],
                            })
                            .collect(),
                        target: i + 1,
                    }]
                } else {
                    vec![]
                },
                dead_buttons: 1,
            })
            .collect();
        SimApp {
            pages,
            bug_page: Some(n - 1),
        }
    }

    /// Fewest actions from the start page to each page (typing each field counts as one
    /// action, submitting as one); `None` when unreachable.
    pub fn depths(&self) -> Vec<Option<usize>> {
        let mut depth = vec![None; self.pages.len()];
        depth[0] = Some(0);
        // Dijkstra with small integer weights; the graphs are tiny.
        let mut done = vec![false; self.pages.len()];
        loop {
            let next = (0..self.pages.len())
                .filter(|&i| !done[i] && depth[i].is_some())
                .min_by_key(|&i| depth[i].unwrap());
            let Some(u) = next else { break };
            done[u] = true;
            let d = depth[u].unwrap();
            let page = &self.pages[u];
            let edges = page
                .links
                .iter()
                .map(|&t| (t, 1))
                .chain(page.forms.iter().map(|f| (f.target, f.fields.len() + 1)));
            for (t, w) in edges {
                if depth[t].is_none_or(|old| d + w < old) {
                    depth[t] = Some(d + w);
                }
            }
        }
        depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_accept_what_they_say() {
        assert!(FieldRule::Email.accepts("a@b.co"));
        assert!(!FieldRule::Email.accepts("a@b"));
        assert!(FieldRule::Number { min: 1, max: 9 }.accepts(" 5 "));
        assert!(!FieldRule::Number { min: 1, max: 9 }.accepts("10"));
        assert!(!FieldRule::NonEmpty.accepts("  "));
        // Validation does not know the column's size: the server finds out.
        assert!(FieldRule::Column(3).accepts("abcdef"));
        assert!(!FieldRule::Column(3).accepts(""));
    }

    #[test]
    fn generated_apps_are_connected_and_reproducible() {
        let a = SimApp::generate(7, 30);
        assert_eq!(a, SimApp::generate(7, 30));
        assert!(a.depths().iter().all(Option::is_some));
    }

    #[test]
    fn chain_depth_counts_typing_and_submitting() {
        let c = SimApp::form_chain(12, 2);
        assert_eq!(c.depths()[11], Some(11 * 3));
    }
}
