//! Source files as lines: which lines hold code (not blank), and where each starts, in the
//! units a coverage tool counts offsets in (V8: UTF-16 code units).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One source file's lines.
#[derive(Debug, Default)]
pub struct Source {
    /// Offset of each line's first and one past its last non-blank unit; `None` for a
    /// line without code (blank, or only a comment).
    spans: Vec<Option<(usize, usize)>>,
    /// Offset where each line starts.
    starts: Vec<usize>,
}

impl Source {
    /// `text` with offsets in UTF-16 code units; `comments`: the prefixes of a line that is
    /// only a comment ([`JS_COMMENTS`], [`PY_COMMENTS`]).
    pub fn utf16(text: &str, comments: &[&str]) -> Source {
        let mut s = Source::default();
        let mut at = 0usize;
        for line in text.split_inclusive('\n') {
            s.starts.push(at);
            let mut first = None;
            let mut last = 0;
            let mut pos = at;
            for c in line.chars() {
                let n = c.len_utf16();
                if !c.is_whitespace() {
                    first.get_or_insert(pos);
                    last = pos + n;
                }
                pos += n;
            }
            let trimmed = line.trim();
            let code = !comments.iter().any(|c| trimmed.starts_with(c));
            s.spans.push(first.filter(|_| code).map(|f| (f, last)));
            at = pos;
        }
        s
    }

    /// Lines that hold code (1-based).
    pub fn code_lines(&self) -> impl Iterator<Item = u32> + '_ {
        self.spans
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .map(|(i, _)| i as u32 + 1)
    }

    pub fn code_line_count(&self) -> u64 {
        self.spans.iter().filter(|s| s.is_some()).count() as u64
    }

    /// The 0-based line holding `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The code lines a range of offsets touches, and which of them it holds whole.
    fn lines_in(&self, start: usize, end: usize) -> impl Iterator<Item = (usize, bool)> + '_ {
        let first = self.line_of(start);
        let last = self.line_of(end.saturating_sub(1).max(start));
        (first..=last.min(self.spans.len().saturating_sub(1))).filter_map(move |l| {
            let (a, b) = self.spans.get(l).copied().flatten()?;
            let touches = a < end && b > start;
            touches.then_some((l, start <= a && end >= b))
        })
    }

    /// The lines run according to block ranges `(start, end, count)`, given outer ranges
    /// before the ranges nested in them: a range run marks every code line it touches, a
    /// range not run unmarks the lines it holds whole (a line partly run stays run).
    pub fn run_lines(&self, ranges: &[(usize, usize, u64)]) -> BTreeSet<u32> {
        let mut paint: BTreeMap<usize, bool> = BTreeMap::new();
        for &(start, end, count) in ranges {
            for (line, whole) in self.lines_in(start, end) {
                if count > 0 {
                    paint.insert(line, true);
                } else if whole {
                    paint.insert(line, false);
                }
            }
        }
        paint
            .into_iter()
            .filter(|(_, run)| *run)
            .map(|(l, _)| l as u32 + 1)
            .collect()
    }
}

/// A JavaScript line that starts so is a comment (a block comment's lines included).
pub const JS_COMMENTS: &[&str] = &["//", "/*", "*"];
/// A Python line that starts so is a comment.
pub const PY_COMMENTS: &[&str] = &["#"];

/// Read `path` as a source, or `None` when it cannot be read (gone, not UTF-8).
pub fn read(path: &Path, comments: &[&str]) -> Option<Source> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(Source::utf16(&text, comments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_lines_and_what_ranges_run() {
        let text =
            "function a() {\n  return 1;\n}\n// b\nfunction b() {\n  if (x) {\n    y();\n  }\n}\n";
        let s = Source::utf16(text, JS_COMMENTS);
        assert_eq!(
            s.code_lines().collect::<Vec<_>>(),
            vec![1, 2, 3, 5, 6, 7, 8, 9]
        );
        let at = |needle: &str| text.find(needle).unwrap();
        // The whole script ran (its top level), a() was never called, b() ran but not
        // the body of its `if`.
        let ranges = [
            (0, text.len(), 1),
            (at("function a"), at("\n// b") + 1, 0),
            (at("function b"), text.len(), 1),
            (at("{\n    y()"), at("  }\n}") + 3, 0),
        ];
        let run = s.run_lines(&ranges);
        assert_eq!(run.into_iter().collect::<Vec<_>>(), vec![5, 6, 9]);
    }

    #[test]
    fn offsets_count_utf16_units() {
        // "é" is one unit, "😀" two: the second line starts at 4 + 1 + 1 = offset 6.
        let s = Source::utf16("é😀\nx\n", JS_COMMENTS);
        assert_eq!(s.line_of(4), 1);
        assert_eq!(s.line_of(3), 0);
    }
}
