//! Shared plumbing: HTML escaping, a tiny template filler, response helpers and the shared
//! instrumentation script.

use std::collections::HashMap;

use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

pub use crate::session::{finish_router, Sessions, Sid};

/// The shared action logger served at `/static/wf.js`.
pub const WF_JS: &str = include_str!("../assets/common/wf.js");

/// Escapes text for HTML element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Serialises a value as JSON that is safe inside an inline `<script>`.
pub fn js_json<V: serde::Serialize + ?Sized>(v: &V) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "null".into())
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// Fills `{{key}}` placeholders in one pass (inserted values are never re-scanned).
/// Unknown keys are left as they are.
pub fn fill(tpl: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(tpl.len() + 256);
    let mut rest = tpl;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let key = &after[..end];
                match vars.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push_str("{{");
                        out.push_str(key);
                        out.push_str("}}");
                    }
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

pub fn typed(status: StatusCode, content_type: &'static str, body: impl Into<String>) -> Response {
    let mut r = (status, body.into()).into_response();
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    r.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

pub fn html(body: String) -> Response {
    typed(StatusCode::OK, "text/html; charset=utf-8", body)
}

pub fn html_status(status: StatusCode, body: String) -> Response {
    typed(status, "text/html; charset=utf-8", body)
}

pub fn js(body: &'static str) -> Response {
    typed(StatusCode::OK, "text/javascript; charset=utf-8", body)
}

pub fn css(body: &'static str) -> Response {
    typed(StatusCode::OK, "text/css; charset=utf-8", body)
}

/// 303 See Other to a same-origin path.
pub fn redirect(to: &str) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(LOCATION, v);
    }
    r
}

/// The page every seeded server-side bug answers with.
pub fn internal_error() -> Response {
    html_status(
        StatusCode::INTERNAL_SERVER_ERROR,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>500 Internal Server Error</title></head>\
         <body><h1>Internal Server Error</h1><p>The server encountered an unexpected condition.</p></body></html>"
            .to_string(),
    )
}

pub fn not_found() -> Response {
    html_status(
        StatusCode::NOT_FOUND,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Not found</title></head>\
         <body><h1>Not found</h1><p><a href=\"/\" data-action-id=\"notfound.home\">Home</a></p></body></html>"
            .to_string(),
    )
}

/// `/favicon.ico`: an empty answer so browsers do not log a 404 on every page.
pub async fn favicon() -> Response {
    let mut r = StatusCode::NO_CONTENT.into_response();
    r.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
    r
}

pub async fn wf_js() -> Response {
    js(WF_JS)
}

/// A form field, trimmed; missing fields are empty.
pub fn field(form: &HashMap<String, String>, name: &str) -> String {
    form.get(name)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Validation errors of a form, by field name.
pub type Errors = HashMap<&'static str, String>;

/// The escaped inline validation message of a field (empty when there is none); templates
/// put it inside `<div class="field-error" data-error-for="NAME">`.
pub fn err(errors: &Errors, name: &str) -> String {
    errors.get(name).map(|m| esc(m)).unwrap_or_default()
}

/// Whether `s` is a plausible `YYYY-MM-DD` date.
pub fn valid_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().ok();
    match (num(0..4), num(5..7), num(8..10)) {
        (Some(y), Some(m), Some(d)) => {
            (1900..=2100).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d)
        }
        _ => false,
    }
}

/// The e-mail check both apps use when their bugs are off: something@domain.tld.
pub fn email_ok(email: &str) -> bool {
    match email.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !email.contains(char::is_whitespace)
        }
        None => false,
    }
}

/// The seeded malformed-e-mail trigger: an `@` whose domain part has no dot ("a@b").
pub fn email_domain_without_dot(email: &str) -> bool {
    matches!(email.split_once('@'), Some((_, d)) if !d.contains('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_is_single_pass() {
        let out = fill("<p>{{a}} {{b}} {{c}}</p>", &[("a", "{{b}}"), ("b", "x")]);
        assert_eq!(out, "<p>{{b}} x {{c}}</p>");
        assert_eq!(fill("no end {{a", &[("a", "x")]), "no end {{a");
    }

    #[test]
    fn escaping() {
        assert_eq!(
            esc("<a href=\"x\">'&"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;"
        );
        assert_eq!(js_json("</script>"), "\"\\u003c/script\\u003e\"");
    }

    #[test]
    fn emails_and_dates() {
        assert!(email_ok("a@b.co") && !email_ok("a@b") && !email_ok("ab.co") && !email_ok("@b.co"));
        assert!(email_domain_without_dot("a@b") && !email_domain_without_dot("a@b.c"));
        assert!(!email_domain_without_dot("plain"));
        assert!(valid_date("2024-03-15") && !valid_date("2024-13-01") && !valid_date("15/03/2024"));
    }
}
