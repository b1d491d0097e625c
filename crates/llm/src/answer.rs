//! Reading a model's answer the way the prompts asked for it ("Generated Input Text: ...",
//! "Selected Button Number: ..."), with VETL's fallbacks for answers that ignore the format;
//! and AutoE2E's answers (feature labels one per line, yes or no), read leniently: what
//! cannot be read is no answer, never a guess.

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

/// Longest feature label, in words and characters: a longer line is a sentence.
pub const MAX_LABEL_WORDS: usize = 10;
const MAX_LABEL_CHARS: usize = 80;

/// Lines starting so introduce, refuse or explain; with a colon, what follows may be a label.
const PREAMBLES: &[&str] = &[
    "here are",
    "here is",
    "here's",
    "sure",
    "certainly",
    "of course",
    "okay",
    "ok,",
    "the features",
    "features",
    "feature",
    "possible features",
    "likely features",
    "answer",
    "the answer",
    "labels",
    "based on",
    "note",
    "i ",
    "i'm",
    "sorry",
    "unfortunately",
    "as an",
    "this action",
    "these are",
];

/// Lines that say there is nothing to list.
const NOTHING: &[&str] = &[
    "none",
    "n/a",
    "na",
    "nothing",
    "no features",
    "unknown",
    "-",
    "for example",
    "e.g",
    "example",
    // A UI verb or widget alone names no feature.
    "click",
    "tap",
    "press",
    "type",
    "button",
    "link",
    "submit",
];

/// Where a label's explanation starts ("Add an owner: creates ..."; "Add an owner - ...").
const EXPLAINED: &[&str] = &[": ", " - ", " – ", " — ", ". "];

/// The feature labels in an answer to the feature prompt, most likely first, at most `r`.
/// Read leniently: numbered or bulleted lines (the other lines are then preambles and
/// explanations), else every line, else one line's comma-separated names; a JSON list
/// too. Markers, emphasis, quotes and explanations go; preambles, refusals, sentences
/// and repeats (ignoring case) are dropped. Empty when nothing reads as a label.
pub fn feature_labels(answer: &str, r: usize) -> Vec<String> {
    let candidates = json_labels(answer).unwrap_or_else(|| label_lines(answer));
    let mut out: Vec<String> = Vec::new();
    for c in candidates {
        let Some(label) = clean_label(&c) else {
            continue;
        };
        if !out.iter().any(|l| l.eq_ignore_ascii_case(&label)) {
            out.push(label);
        }
    }
    out.truncate(r);
    out
}

/// `["Add an owner", ...]`, or an object holding such a list (`{"features": [...]}`).
fn json_labels(answer: &str) -> Option<Vec<String>> {
    let body = answer
        .trim()
        .trim_start_matches("```json")
        .trim_matches('`')
        .trim();
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let list = match &v {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(o) => o.values().find_map(|x| x.as_array())?,
        _ => return None,
    };
    let labels: Vec<String> = list
        .iter()
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect();
    (!labels.is_empty()).then_some(labels)
}

/// The lines that may hold labels (see `feature_labels`).
fn label_lines(answer: &str) -> Vec<String> {
    let lines: Vec<&str> = answer
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("```") && !l.starts_with('#'))
        .collect();
    let items: Vec<String> = lines
        .iter()
        .filter_map(|l| list_item(l))
        .map(str::to_string)
        .collect();
    if !items.is_empty() {
        return items;
    }
    let [one] = lines.as_slice() else {
        return lines.into_iter().map(str::to_string).collect();
    };
    // One line: maybe "Here are the features: A, B, C", maybe a refusal.
    let body = if preamble(one) {
        match one.split_once(':') {
            Some((_, after)) => after,
            None => return Vec::new(),
        }
    } else {
        one
    };
    // A list of names only when every part is a name (not a sentence with commas).
    let parts: Vec<String> = body
        .split([',', ';'])
        .filter(|p| !p.trim().is_empty())
        .map(str::to_string)
        .collect();
    if !body.contains(':') && parts.len() > 1 && parts.iter().all(|p| clean_label(p).is_some()) {
        parts
    } else {
        vec![body.to_string()]
    }
}

/// The text of a list item (`1. x`, `2) x`, `(3) x`, `- x`, `* x`, `• x`), or none.
fn list_item(line: &str) -> Option<&str> {
    for bullet in ["- ", "* ", "• ", "+ "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return Some(rest);
        }
    }
    let rest = line.strip_prefix('(').unwrap_or(line);
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 2 {
        return None;
    }
    let rest = &rest[digits..];
    let rest = rest.strip_prefix(['.', ')', ':'])?;
    (rest.is_empty() || rest.starts_with(' ')).then_some(rest)
}

/// Whether `s` starts with one of `PREAMBLES` (as whole words).
fn preamble(s: &str) -> bool {
    let lower = s.to_lowercase();
    PREAMBLES.iter().any(|p| {
        lower.starts_with(p)
            && (p.ends_with([' ', ',']) || !lower[p.len()..].starts_with(char::is_alphanumeric))
    })
}

/// Words no feature name holds: the model talking about itself.
const REFUSAL: &[&str] = &[
    "i",
    "i'm",
    "cannot",
    "can't",
    "sorry",
    "unable",
    "unfortunately",
];

/// A candidate line as a label, or none when it is not one.
fn clean_label(line: &str) -> Option<String> {
    let mut s = line.replace("**", "").replace("__", "").replace('`', "");
    s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    // A line ending in a colon introduces what follows.
    if s.ends_with(':') {
        return None;
    }
    if preamble(&s) {
        // "Feature 1: Add an owner", "Answer: Add an owner": the label follows.
        let (_, after) = s.split_once(':')?;
        s = after.trim().to_string();
    }
    let mut s = s.as_str();
    for sep in EXPLAINED {
        if let Some((before, _)) = s.split_once(sep) {
            if !before.trim().is_empty() {
                s = before;
            }
        }
    }
    let period = s.trim().ends_with('.');
    let s = s
        .trim()
        .trim_end_matches(['.', ',', ';'])
        .trim_matches(['"', '\'', '“', '”', '‘', '’', '*', '_'])
        .trim();
    let words: Vec<String> = s.split_whitespace().map(str::to_lowercase).collect();
    // Code a model wrote on ("// TODO ...", "//www") is no label either.
    let sentence = (period && words.len() > 6)
        || s.ends_with(['!', '?'])
        || s.starts_with(['<', '{', '[', '/', '\\', '#', '('])
        || words.iter().any(|w| w == "todo")
        || words.iter().any(|w| REFUSAL.contains(&w.trim_matches(',')));
    let nothing = NOTHING.contains(&s.to_lowercase().as_str());
    let readable = s.chars().any(char::is_alphabetic);
    let fits = (1..=MAX_LABEL_WORDS).contains(&words.len()) && s.chars().count() <= MAX_LABEL_CHARS;
    (readable && fits && !sentence && !nothing).then(|| s.to_string())
}

/// The answer to a yes-or-no prompt: its first word that is "yes" or "no" (any case,
/// any punctuation around it); none when it has neither.
pub fn yes_no(answer: &str) -> Option<bool> {
    answer.split(|c: char| !c.is_alphanumeric()).find_map(|w| {
        match w.to_ascii_lowercase().as_str() {
            "yes" => Some(true),
            "no" => Some(false),
            _ => None,
        }
    })
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

    #[test]
    fn what_a_small_model_writes_instead_of_labels_is_dropped() {
        let a = "click\n//www\n// TODO be able to test with a\nFor example\nSearch owners";
        assert_eq!(feature_labels(a, 5), vec!["Search owners"]);
    }

    #[test]
    fn feature_labels_come_from_numbered_lines_without_their_explanations() {
        let a = "Here are the most likely features:\n\n\
                 1. **Add an owner** - lets the clinic register a new pet owner\n\
                 2. Search owners by last name\n\
                 3. \"Edit an owner\"\n\
                 4) View owner details.\n   (shows the pets too)\n\
                 5. Add a pet\n\
                 6. Delete an owner\n\n\
                 These are ordered by likelihood.";
        assert_eq!(
            feature_labels(a, 5),
            vec![
                "Add an owner",
                "Search owners by last name",
                "Edit an owner",
                "View owner details",
                "Add a pet"
            ]
        );
        assert_eq!(feature_labels(a, 2).len(), 2);
        assert!(feature_labels(a, 0).is_empty());
    }

    #[test]
    fn bullets_fences_and_repeats() {
        let a = "```\n- Add an owner\n- add an owner\n* Find owners\n\n• Find Owners\n+ `Edit an owner`\n```";
        assert_eq!(
            feature_labels(a, 5),
            vec!["Add an owner", "Find owners", "Edit an owner"]
        );
        // Reasoning first, then the list: only the list counts.
        let a = "Let me think. The page is for finding owners, and the button submits \
                 the search.\n\nFeatures:\n(1) Find owners\n(2) Search owners by last name";
        assert_eq!(
            feature_labels(a, 5),
            vec!["Find owners", "Search owners by last name"]
        );
        let a = "Feature 1: Add an owner\nFeature 2: Find owners\n### Notes\nnone";
        assert_eq!(feature_labels(a, 5), vec!["Add an owner", "Find owners"]);
    }

    #[test]
    fn plain_lines_a_single_line_and_json() {
        let a = "Sure! Here are 3 features:\nAdd an owner\n\nFind owners\nThese are ranked.";
        assert_eq!(feature_labels(a, 5), vec!["Add an owner", "Find owners"]);
        assert_eq!(
            feature_labels("Add an owner, Find owners; Edit an owner", 5),
            vec!["Add an owner", "Find owners", "Edit an owner"]
        );
        assert_eq!(
            feature_labels("Here are the features: Add an owner, Find owners.", 5),
            vec!["Add an owner", "Find owners"]
        );
        assert_eq!(feature_labels("Add an owner", 5), vec!["Add an owner"]);
        assert_eq!(
            feature_labels("{\"features\": [\"Add an owner\", \"Find owners\"]}", 5),
            vec!["Add an owner", "Find owners"]
        );
        assert_eq!(
            feature_labels("```json\n[\"Log in\", \"Log out\"]\n```", 1),
            vec!["Log in"]
        );
    }

    #[test]
    fn garbage_gives_no_labels() {
        for a in [
            "",
            "  \n\n ",
            "I'm sorry, but I can't help with that.",
            "As an AI language model, I cannot browse the web to determine features.",
            "<html><body>502 Bad Gateway</body></html>",
            "None",
            "N/A.",
            "1.\n2.\n3.",
            "?!?",
            "{\"error\": \"overloaded\"}",
            "The action 'Find Owner' on the search page most probably belongs to the owner \
             search feature of the clinic application, which lets a receptionist find one.",
            "Unfortunately, there is not enough information on this page to say.",
        ] {
            assert_eq!(feature_labels(a, 5), Vec::<String>::new(), "{a:?}");
        }
    }

    #[test]
    fn yes_or_no_is_the_first_such_word() {
        assert_eq!(yes_no("Yes"), Some(true));
        assert_eq!(yes_no("no."), Some(false));
        assert_eq!(
            yes_no("**YES** — both describe adding an owner"),
            Some(true)
        );
        assert_eq!(yes_no("Answer: No, one adds and one edits."), Some(false));
        assert_eq!(yes_no("They are the same feature.\nYes."), Some(true));
        for a in [
            "",
            "Maybe",
            "I think not",
            "Nope",
            "yesterday",
            "<html></html>",
        ] {
            assert_eq!(yes_no(a), None, "{a:?}");
        }
    }
}
