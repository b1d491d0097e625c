//! TypeScript source text: string literals, template literals and comments that say
//! exactly what the trace holds, whatever the page or the configuration put in it.

use wayfarer_core::trace::{secret_parts, SecretPart};

/// `s` as a TypeScript string literal: single-quoted, or double-quoted when that needs
/// fewer escapes (Prettier's rule), so `"reading 'x'"` stays readable.
pub fn str_lit(s: &str) -> String {
    let singles = s.matches('\'').count();
    let doubles = s.matches('"').count();
    let quote = if singles > doubles { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        escape_into(&mut out, c, quote);
    }
    out.push(quote);
    out
}

/// `s` as the literal text of a template literal (between backticks): `${` must not
/// start an interpolation, a backtick must not end it.
fn template_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek() == Some(&'{') {
            out.push_str("\\$");
        } else {
            escape_into(&mut out, c, '`');
        }
    }
    out
}

/// The escapes both kinds of literal share. Line terminators (U+2028/9 included, which
/// end a line in older parsers) and other control characters become escapes so that a
/// literal always stays on one line; everything else, unicode included, stays readable.
fn escape_into(out: &mut String, c: char, quote: char) {
    match c {
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{2028}' => out.push_str("\\u2028"),
        '\u{2029}' => out.push_str("\\u2029"),
        c if c == quote => {
            out.push('\\');
            out.push(c);
        }
        c if c.is_control() || c == '\u{feff}' => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push(c),
    }
}

/// A short literal repeated many times (the long inputs that break forms) as
/// `'ab'.repeat(120)`, so the spec stays readable.
fn repeated_lit(s: &str) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() < 40 {
        return None;
    }
    (1..=8).find_map(|period| {
        let whole = chars.len() % period == 0;
        let periodic = whole
            && chars
                .iter()
                .enumerate()
                .all(|(i, c)| *c == chars[i % period]);
        periodic.then(|| {
            let unit: String = chars[..period].iter().collect();
            format!("{}.repeat({})", str_lit(&unit), chars.len() / period)
        })
    })
}

/// The TypeScript expression for a typed value: a string literal, or, when it holds
/// `${NAME}` secret references, a read of `secret.NAME` (the spec declares `secret` from
/// `process.env`), so a secret's value never appears in the file.
pub fn value_expr(s: &str) -> String {
    let parts = secret_parts(s);
    if !parts.iter().any(|p| matches!(p, SecretPart::Env(_))) {
        return repeated_lit(s).unwrap_or_else(|| str_lit(s));
    }
    if let [SecretPart::Env(name)] = parts.as_slice() {
        return format!("secret.{name}");
    }
    let mut out = String::from("`");
    for p in parts {
        match p {
            SecretPart::Literal(l) => out.push_str(&template_text(l)),
            SecretPart::Env(name) => out.push_str(&format!("${{secret.{name}}}")),
        }
    }
    out.push('`');
    out
}

/// The secret names `s` refers to, in order of first use.
pub fn secret_names(s: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in secret_parts(s) {
        if let SecretPart::Env(n) = p {
            if !names.iter().any(|m| m == n) {
                names.push(n.to_string());
            }
        }
    }
    names
}

/// `s` made safe for a `//` comment: one line (any line terminator would end the comment
/// and turn the rest into code), no other control characters.
pub fn comment(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_escape_quotes_backslashes_and_line_breaks() {
        assert_eq!(str_lit("it's"), r#""it's""#);
        assert_eq!(str_lit("it's \"q\" 'x'"), r#""it's \"q\" 'x'""#);
        assert_eq!(str_lit("say \"hi\""), r#"'say "hi"'"#);
        assert_eq!(str_lit(r"C:\dir"), r"'C:\\dir'");
        assert_eq!(str_lit("a\nb\r\tc"), r"'a\nb\r\tc'");
        assert_eq!(str_lit("x\u{2028}y\u{2029}z"), r"'x\u2028y\u2029z'");
        assert_eq!(str_lit("nul\0bel\u{7}"), r"'nul\u0000bel\u0007'");
        // No escaping needed inside single quotes: backticks, `${`, double quotes.
        assert_eq!(str_lit("`${x}` \"q\""), "'`${x}` \"q\"'");
        // Nothing HTML-special in a .ts file, and unicode stays readable.
        assert_eq!(str_lit("</script><!--"), "'</script><!--'");
        assert_eq!(str_lit("Zoë 👩‍⚕️ 東京"), "'Zoë 👩‍⚕️ 東京'");
    }

    #[test]
    fn hostile_values_stay_one_literal() {
        let hostile = "'; process.exit(1); //\n`${ globalThis.x}`\\</script>";
        let lit = value_expr(hostile);
        assert_eq!(
            lit,
            r#""'; process.exit(1); //\n`${ globalThis.x}`\\</script>""#
        );
        assert!(!lit.contains('\n'));
    }

    #[test]
    fn secrets_become_environment_reads_never_literals() {
        assert_eq!(value_expr("${PASSWORD}"), "secret.PASSWORD");
        assert_eq!(
            value_expr("user-${USER}@corp"),
            "`user-${secret.USER}@corp`"
        );
        // Literal parts of a template escape backticks, backslashes and `${`.
        assert_eq!(
            value_expr("`${ a} \\ ${PW}$"),
            r"`\`\${ a} \\ ${secret.PW}$`"
        );
        assert_eq!(value_expr("$${PW}"), "`$${secret.PW}`");
        assert_eq!(value_expr("line\n${PW}"), r"`line\n${secret.PW}`");
        // Not a reference: not an identifier.
        assert_eq!(value_expr("${1X}"), "'${1X}'");
        assert_eq!(secret_names("${A}${B}${A}"), vec!["A", "B"]);
    }

    #[test]
    fn long_repeated_values_are_written_as_repeat() {
        assert_eq!(value_expr(&"a".repeat(201)), "'a'.repeat(201)");
        assert_eq!(value_expr(&"ab'".repeat(20)), r#""ab'".repeat(20)"#);
        assert_eq!(value_expr(&"a".repeat(39)), format!("'{}'", "a".repeat(39)));
        let mixed = format!("{}b", "a".repeat(50));
        assert_eq!(value_expr(&mixed), format!("'{mixed}'"));
    }

    #[test]
    fn comments_stay_on_one_line() {
        assert_eq!(comment("a\nb\r\nc\u{2028}d"), "a b  c d");
    }
}
