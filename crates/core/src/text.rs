//! Text cut for a reader: reports, exported tests and bench tables show page-made strings
//! (URLs, messages, labels) that can run to kilobytes, and cut them all the same way.

/// At most `max` characters of `s`, the last of them an ellipsis when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_by_characters_with_an_ellipsis() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abcd", 4), "abcd");
        assert_eq!(truncate("ééééé", 3), "éé…");
        assert_eq!(truncate("", 0), "");
    }
}
