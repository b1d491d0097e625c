//! Which origins belong to the application: the start URL's plus the allowed ones.
//! Navigations elsewhere are blocked; coverage and stability only count these origins.

use std::collections::HashSet;

use url::Url;

#[derive(Clone, Debug)]
pub(crate) struct Scope {
    origins: HashSet<String>,
}

fn origin_of(s: &str) -> Option<String> {
    let u = Url::parse(s).ok()?;
    match u.scheme() {
        "http" | "https" => Some(u.origin().ascii_serialization()),
        _ => None,
    }
}

impl Scope {
    pub fn new(start: &Url, allow: &[String]) -> Scope {
        let mut origins = HashSet::new();
        origins.insert(start.origin().ascii_serialization());
        for a in allow {
            // "http://host:port" or a full URL; a bare origin string that does not parse is
            // kept as written (minus a trailing slash) so it still matches exactly.
            match origin_of(a) {
                Some(o) => origins.insert(o),
                None => origins.insert(a.trim_end_matches('/').to_string()),
            };
        }
        Scope { origins }
    }

    /// Whether `url` is an http(s) URL of one of the application's origins.
    pub fn allows(&self, url: &str) -> bool {
        origin_of(url).is_some_and(|o| self.origins.contains(&o))
    }

    /// The origins, for clearing their storage on reset.
    pub fn origins(&self) -> impl Iterator<Item = &String> {
        self.origins.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_origin_and_allowed_origins_only() {
        let start = Url::parse("http://127.0.0.1:8080/app/").unwrap();
        let s = Scope::new(&start, &["http://127.0.0.1:9000/".to_string()]);
        assert!(s.allows("http://127.0.0.1:8080/x?y=1"));
        assert!(s.allows("http://127.0.0.1:9000/"));
        assert!(!s.allows("http://127.0.0.1:8081/"));
        assert!(!s.allows("http://localhost:8080/"));
        assert!(!s.allows("https://example.com/"));
        assert!(!s.allows("about:blank"));
        assert!(!s.allows(""));
    }
}
