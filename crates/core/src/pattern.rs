//! A tiny generator for the simple regexes of HTML `pattern` attributes and of a spec's
//! `{ Regexp: ... }` strings: literals, `.`, `\d \w \s` (and negations), `[...]` classes
//! with ranges, groups with `|`, and the quantifiers `? * + {n} {n,} {n,m}`. Anything else
//! (backreferences, lookaround, `\b`, unicode properties) makes `parse` return `None`, and
//! callers fall back to a plain value.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// How many extra repetitions `*`, `+` and `{n,}` may add: valid, and short to type.
const OPEN_EXTRA: u32 = 3;
/// Cap on a `{n,m}` span, so `{1,1000}` stays typeable while staying in range.
const MAX_SPAN: u32 = 16;
const MAX_DEPTH: usize = 16;

#[derive(Debug, Clone)]
enum Atom {
    Lit(char),
    /// Inclusive char ranges; negated classes are resolved to a positive set at parse time.
    Set(Vec<(char, char)>),
    Group(Vec<Vec<Piece>>),
}

#[derive(Debug, Clone)]
struct Piece {
    atom: Atom,
    min: u32,
    /// `None` for open-ended quantifiers.
    max: Option<u32>,
}

/// A parsed pattern that can produce matching strings.
#[derive(Debug, Clone)]
pub struct Pattern {
    alts: Vec<Vec<Piece>>,
}

impl Pattern {
    /// Parses `src` as an HTML pattern (implicitly anchored); `None` when it uses
    /// something this generator does not support.
    pub fn parse(src: &str) -> Option<Pattern> {
        let mut p = Parser {
            chars: src.chars().collect(),
            pos: 0,
        };
        let alts = p.alternatives(0)?;
        (p.pos == p.chars.len()).then_some(Pattern { alts })
    }

    /// A string the pattern matches.
    pub fn generate(&self, rng: &mut ChaCha8Rng) -> String {
        let mut out = String::new();
        gen_alts(&self.alts, rng, &mut out);
        out
    }
}

fn gen_alts(alts: &[Vec<Piece>], rng: &mut ChaCha8Rng, out: &mut String) {
    let seq = &alts[rng.gen_range(0..alts.len())];
    for piece in seq {
        let hi = match piece.max {
            None => piece.min + OPEN_EXTRA,
            Some(m) => m.min(piece.min + MAX_SPAN),
        };
        let n = rng.gen_range(piece.min..=hi.max(piece.min));
        for _ in 0..n {
            match &piece.atom {
                Atom::Lit(c) => out.push(*c),
                Atom::Set(ranges) => out.push(pick_in(ranges, rng)),
                Atom::Group(alts) => gen_alts(alts, rng, out),
            }
        }
    }
}

fn pick_in(ranges: &[(char, char)], rng: &mut ChaCha8Rng) -> char {
    let size = |&(a, b): &(char, char)| b as u32 - a as u32 + 1;
    let total: u32 = ranges.iter().map(size).sum();
    let mut i = rng.gen_range(0..total);
    for r in ranges {
        if i < size(r) {
            // A range spanning the surrogate gap has holes; its start is always valid.
            return char::from_u32(r.0 as u32 + i).unwrap_or(r.0);
        }
        i -= size(r);
    }
    ranges[0].0
}

const DIGIT: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
const SPACE: &[(char, char)] = &[(' ', ' ')];
/// `.` stands for any char; letters and digits are the least surprising choice.
const ANY: &[(char, char)] = &[('a', 'z'), ('A', 'Z'), ('0', '9')];

/// The printable ASCII chars outside `ranges`: what a negated class generates from.
fn complement(ranges: &[(char, char)]) -> Option<Vec<(char, char)>> {
    let out: Vec<(char, char)> = (' '..='~')
        .filter(|c| !ranges.iter().any(|&(a, b)| (a..=b).contains(c)))
        .map(|c| (c, c))
        .collect();
    (!out.is_empty()).then_some(out)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn alternatives(&mut self, depth: usize) -> Option<Vec<Vec<Piece>>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut alts = vec![Vec::new()];
        loop {
            match self.peek() {
                None | Some(')') => return Some(alts),
                Some('|') => {
                    self.pos += 1;
                    alts.push(Vec::new());
                }
                // Anchors are implied by HTML; accept them only where they are no-ops.
                Some('^') if alts.last().is_some_and(Vec::is_empty) => self.pos += 1,
                Some('$') if matches!(self.chars.get(self.pos + 1), None | Some(')' | '|')) => {
                    self.pos += 1
                }
                Some(_) => {
                    let atom = self.atom(depth)?;
                    let (min, max) = self.quantifier()?;
                    alts.last_mut()?.push(Piece { atom, min, max });
                }
            }
        }
    }

    fn atom(&mut self, depth: usize) -> Option<Atom> {
        match self.next()? {
            '(' => {
                if self.eat('?') && !self.eat(':') {
                    return None; // lookaround or named group
                }
                let alts = self.alternatives(depth + 1)?;
                self.eat(')').then_some(Atom::Group(alts))
            }
            '[' => self.class(),
            '.' => Some(Atom::Set(ANY.to_vec())),
            '\\' => match self.escape()? {
                Esc::Char(c) => Some(Atom::Lit(c)),
                Esc::Set(s) => Some(Atom::Set(s)),
            },
            '*' | '+' | '?' | '{' | '}' | '^' | '$' => None,
            c => Some(Atom::Lit(c)),
        }
    }

    fn escape(&mut self) -> Option<Esc> {
        let c = self.next()?;
        Some(match c {
            'd' => Esc::Set(DIGIT.to_vec()),
            'w' => Esc::Set(WORD.to_vec()),
            's' => Esc::Set(SPACE.to_vec()),
            'D' => Esc::Set(complement(DIGIT)?),
            'W' => Esc::Set(complement(WORD)?),
            'S' => Esc::Set(complement(&[(' ', ' ')])?),
            'n' => Esc::Char('\n'),
            't' => Esc::Char('\t'),
            'r' => Esc::Char('\r'),
            'x' => Esc::Char(self.hex(2)?),
            'u' => Esc::Char(self.hex(4)?),
            c if c.is_ascii_alphanumeric() => return None, // \b, \1, \p, \k ...
            c => Esc::Char(c),
        })
    }

    fn hex(&mut self, n: usize) -> Option<char> {
        let s: String = self.chars.get(self.pos..self.pos + n)?.iter().collect();
        self.pos += n;
        char::from_u32(u32::from_str_radix(&s, 16).ok()?)
    }

    fn class(&mut self) -> Option<Atom> {
        let negated = self.eat('^');
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let c = self.next()?;
            let lo = match c {
                ']' if !first => break,
                '[' => return None, // v-flag set operations
                '\\' => match self.escape()? {
                    Esc::Char(c) => c,
                    Esc::Set(s) => {
                        ranges.extend(s);
                        first = false;
                        continue;
                    }
                },
                c => c,
            };
            first = false;
            let is_range =
                self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|&c| c != ']');
            if is_range {
                self.pos += 1;
                let hi = match self.next()? {
                    '\\' => match self.escape()? {
                        Esc::Char(c) => c,
                        Esc::Set(_) => return None,
                    },
                    c => c,
                };
                if hi < lo {
                    return None;
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        if negated {
            complement(&ranges).map(Atom::Set)
        } else {
            Some(Atom::Set(ranges))
        }
    }

    /// `(min, max)`, `(1, Some(1))` when no quantifier follows.
    fn quantifier(&mut self) -> Option<(u32, Option<u32>)> {
        let q = match self.peek() {
            Some('?') => (0, Some(1)),
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('{') => {
                self.pos += 1;
                let min = self.number()?;
                let max = if self.eat(',') {
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(self.number()?)
                    }
                } else {
                    Some(min)
                };
                if self.peek() != Some('}') || max.is_some_and(|m| m < min) {
                    return None;
                }
                (min, max)
            }
            _ => return Some((1, Some(1))),
        };
        self.pos += 1;
        self.eat('?'); // lazy: same language
        Some(q)
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let s: String = self.chars[start..self.pos].iter().collect();
        s.parse().ok().filter(|&n| n <= 1000)
    }
}

enum Esc {
    Char(char),
    Set(Vec<(char, char)>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use regex::Regex;

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    const PATTERNS: &[&str] = &[
        r"\d{10}",
        r"[0-9]{3}-[0-9]{3}-[0-9]{4}",
        r"[A-Za-z]{2,8}",
        r"\d{5}(-\d{4})?",
        r"[A-Z]{2}\d{2} ?\d{4}",
        r"(\+1)?[0-9]{10}",
        r"[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}",
        r"^[a-zA-Z0-9_]{3,16}$",
        r"[^0-9]{4,6}",
        r"\w+\s\w+",
        r"(cat|dog|bird)s?",
        r"(?:[A-F0-9]{2}:){5}[A-F0-9]{2}",
        r"\(\d{3}\) \d{3}-\d{4}",
        r".{8,}",
        r"[\d]{4}",
        r"[-a-z]{1,3}",
        r"\D\W\S",
        r"a*b+c?",
        r"[A-Z][a-z]*( [A-Z][a-z]*)*",
        r"\d{1,1000}",
    ];

    #[test]
    fn generated_values_match_their_pattern() {
        let mut r = rng(7);
        for p in PATTERNS {
            let pat = Pattern::parse(p).unwrap_or_else(|| panic!("could not parse {p}"));
            let re = Regex::new(&format!("^(?:{p})$")).unwrap();
            for _ in 0..200 {
                let s = pat.generate(&mut r);
                assert!(re.is_match(&s), "{s:?} does not match {p}");
            }
        }
    }

    #[test]
    fn unsupported_patterns_are_refused() {
        for p in [
            r"(a)\1",
            r"(?=a)a",
            r"\bword",
            r"\p{L}+",
            r"[a-z",
            r"(ab",
            r"a{3,1}",
            r"*a",
            r"[[a-z]--[aeiou]]",
            r"a)",
        ] {
            assert!(Pattern::parse(p).is_none(), "{p} should be refused");
        }
    }

    #[test]
    fn ten_digits() {
        let pat = Pattern::parse(r"\d{10}").unwrap();
        let s = pat.generate(&mut rng(1));
        assert_eq!(s.len(), 10);
        assert!(s.chars().all(|c| c.is_ascii_digit()));
    }
}
