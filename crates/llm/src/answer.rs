//! Reading a model's answer the way the prompts asked for it ("Generated Input Text: ...",
//! "Selected Button Number: ..."), with VETL's fallbacks for answers that ignore the format.

/// The prefix the input prompt asks for.
pub const INPUT_PREFIX: &str = "Generated Input Text:";
/// The prefix the element prompt asks for.
pub const BUTTON_PREFIX: &str = "Selected Button Number:";

/// Longest text typed from an answer: a model that rambles must not type a novel.
pub const MAX_TEXT: usize = 2000;

/// What follows `prefix` (ASCII case-insensitive), when it is there.
fn after<'a>(answer: &'a str, prefix: &str) -> Option<&'a str> {
    answer
        .char_indices()
        .find(|(i, _)| {
            answer[*i..]
                .get(..prefix.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        })
        .map(|(i, _)| &answer[i + prefix.len()..])
}

/// Quotes, brackets and backticks a model may wrap its value in.
fn unwrap_value(s: &str) -> &str {
    let mut s = s.trim();
    for (open, close) in [('"', '"'), ('\'', '\''), ('`', '`'), ('[', ']'), ('“', '”')] {
        if s.len() >= 2 && s.starts_with(open) && s.ends_with(close) {
            s = s[open.len_utf8()..s.len() - close.len_utf8()].trim();
        }
    }
    s
}

fn cap(s: &str) -> String {
    s.chars().take(MAX_TEXT).collect()
}

/// The text to type from an answer to the input prompt, and whether the answer had the
/// asked-for structure. With the prefix: the first non-empty line after it, unwrapped.
/// Without: the whole answer, trimmed (VETL uses it "regardless of its content").
/// `None` when nothing usable is left (the caller falls back to the heuristic).
pub fn input_text(answer: &str) -> (Option<String>, bool) {
    match after(answer, INPUT_PREFIX) {
        Some(rest) => {
            let line = rest.lines().map(str::trim).find(|l| !l.is_empty());
            let value = line.map(unwrap_value).filter(|v| !v.is_empty());
            match value {
                Some(v) => (Some(cap(v)), true),
                None => (None, false),
            }
        }
        None => {
            let t = answer.trim();
            ((!t.is_empty()).then(|| cap(t)), false)
        }
    }
}

/// The button chosen in an answer to the element prompt (1-based, among `count`), and
/// whether the answer had the asked-for structure. An answer without the prefix, or with a
/// number that names no button, chooses none (VETL skips the interested element then).
pub fn button(answer: &str, count: usize) -> (Option<usize>, bool) {
    let Some(rest) = after(answer, BUTTON_PREFIX) else {
        return (None, false);
    };
    let digits: String = rest
        .trim_start_matches(|c: char| !c.is_ascii_digit() && c != '\n')
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    match digits.parse::<usize>() {
        Ok(n) if (1..=count).contains(&n) => (Some(n), true),
        _ => (None, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_well_formed_input_answer_gives_its_value() {
        assert_eq!(
            input_text("Generated Input Text: 199"),
            (Some("199".into()), true)
        );
        assert_eq!(
            input_text("Sure!\ngenerated input text:\n  \"Lisbon trip\"  \nHope it helps"),
            (Some("Lisbon trip".into()), true)
        );
        assert_eq!(
            input_text("Generated Input Text: [jane@example.com]"),
            (Some("jane@example.com".into()), true)
        );
    }

    #[test]
    fn an_input_answer_without_the_prefix_is_used_as_it_is() {
        assert_eq!(input_text("  42 \n"), (Some("42".into()), false));
        assert_eq!(input_text("   "), (None, false));
        // The prefix with nothing after it is no value at all.
        assert_eq!(input_text("Generated Input Text: \n\n"), (None, false));
        let long = "x".repeat(MAX_TEXT + 50);
        assert_eq!(input_text(&long).0.unwrap().len(), MAX_TEXT);
    }

    #[test]
    fn a_button_answer_names_a_button_or_none() {
        assert_eq!(button("Selected Button Number: 2", 5), (Some(2), true));
        assert_eq!(button("selected button number: [3].", 5), (Some(3), true));
        assert_eq!(button("Selected Button Number: 9", 5), (None, false));
        assert_eq!(button("Selected Button Number: 0", 5), (None, false));
        assert_eq!(button("Selected Button Number: none", 5), (None, false));
        assert_eq!(button("2", 5), (None, false));
        assert_eq!(button("", 5), (None, false));
    }

    #[test]
    fn non_ascii_text_before_the_prefix_is_no_problem() {
        assert_eq!(
            input_text("Ünïcödé → Generated Input Text: ok"),
            (Some("ok".into()), true)
        );
        assert_eq!(button("İ Selected Button Number: 1", 1), (Some(1), true));
    }
}
