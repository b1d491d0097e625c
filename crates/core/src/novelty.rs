//! What an action newly caused, as the page tells it for free after every step: a script
//! the application had not loaded before (code-split apps load a feature's code when it
//! opens), an endpoint it had not called (new server functionality), a URL it had not
//! shown, functions that had never run. The bench's reach table reads when each kind was
//! last seen (where exploration stops); strategies can reward it.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use url::Url;

use crate::model::{Event, EventKind};

/// What one step (or reset) caused for the first time in the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Novelty {
    /// Application scripts requested for the first time.
    pub scripts: u32,
    /// Endpoint patterns (a request's path with its ids masked, its query's keys) called
    /// for the first time, documents and static assets apart.
    pub endpoints: u32,
    /// Pages (URL without its fragment) shown for the first time.
    pub urls: u32,
    /// Functions run for the first time, when coverage was measured.
    pub functions: u64,
    /// Regions of the page (a dialog, a menu, a tab panel, a side panel:
    /// `Observation::regions`) shown open for the first time on their kind of page. Not in
    /// `score` yet (issue 40 measures it first).
    pub regions: u32,
    /// Lines of the server's own code run for the first time, when its coverage was read
    /// for the step (`[server] coverage`); `None` where it was not, so a strategy can tell
    /// "the server ran nothing new" (`Some(0)`) from "nobody asked".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_lines: Option<u64>,
}

/// New server lines that weigh as much as a new endpoint in [`Novelty::score`]. Measured,
/// not guessed: over 408 steps that ran new server code (one-minute guided runs on ten
/// real applications, docs/src/real-apps.md), the median step ran 30 new lines (p25 9,
/// p75 99), and the median step new to the client weighed 0.5 (a page); at 60 lines a
/// unit the two medians weigh the same.
pub const SERVER_LINES_PER_UNIT: f64 = 60.0;

impl Novelty {
    /// Nothing was new (a server read that found nothing new counts as nothing).
    pub fn is_empty(&self) -> bool {
        let Novelty {
            scripts,
            endpoints,
            urls,
            functions,
            regions,
            server_lines,
        } = *self;
        [scripts, endpoints, urls, regions] == [0; 4]
            && functions == 0
            && server_lines.unwrap_or(0) == 0
    }

    /// How much was new, in [0, 1): 1 - exp(-(scripts + endpoints + pages / 2 +
    /// functions / 100 + server lines / 60)). A step that loaded one new script scores
    /// 0.63, one that only ran 20 new functions 0.18, one that made the server run 30 new
    /// lines 0.39; bounded, so a reward built on it stays on its scale.
    pub fn score(&self) -> f64 {
        self.score_with_server(SERVER_LINES_PER_UNIT)
    }

    /// [`Novelty::score`] with `lines_per_unit` new server lines weighing as much as a new
    /// endpoint; 0 leaves the server out (the client's signals alone).
    pub fn score_with_server(&self, lines_per_unit: f64) -> f64 {
        let server = match self.server_lines {
            Some(n) if lines_per_unit > 0.0 => n as f64 / lines_per_unit,
            _ => 0.0,
        };
        let weight = f64::from(self.scripts)
            + f64::from(self.endpoints)
            + f64::from(self.urls) / 2.0
            + self.functions as f64 / 100.0
            + server;
        1.0 - (-weight).exp()
    }

    /// "2 scripts, 1 endpoint, 14 functions"; empty when nothing was new.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        let mut part = |n: u64, one: &str, many: &str| {
            if n > 0 {
                parts.push(format!("{n} {}", if n == 1 { one } else { many }));
            }
        };
        part(self.scripts.into(), "script", "scripts");
        part(self.endpoints.into(), "endpoint", "endpoints");
        part(self.urls.into(), "page", "pages");
        part(self.functions, "function", "functions");
        part(self.regions.into(), "region", "regions");
        part(
            self.server_lines.unwrap_or(0),
            "server line",
            "server lines",
        );
        parts.join(", ")
    }
}

/// The novelty of each step against everything the run saw before it.
#[derive(Clone, Debug, Default)]
pub struct NoveltyTracker {
    /// Origins whose requests count (`scheme://host:port`); empty: every origin.
    origins: Vec<String>,
    scripts: HashSet<String>,
    endpoints: HashSet<String>,
    urls: HashSet<String>,
    functions: u64,
    /// (kind of page, region) pairs shown open.
    regions: HashSet<String>,
}

/// What a response was, for novelty.
#[derive(Debug, PartialEq, Eq)]
enum Request {
    Script(String),
    Endpoint(String),
    /// A document, a stylesheet, an image, a font: not counted.
    Other,
}

impl NoveltyTracker {
    /// A tracker counting requests to `origins` only (the application's); pages are
    /// counted wherever they are.
    pub fn new(origins: Vec<String>) -> NoveltyTracker {
        NoveltyTracker {
            origins,
            ..NoveltyTracker::default()
        }
    }

    /// Take in what a step raised (`events`), the page it ended on, and the functions
    /// covered so far (`None` where coverage was not measured this step): what was new.
    pub fn absorb(&mut self, events: &[Event], url_after: &str, functions: Option<u64>) -> Novelty {
        let mut n = Novelty::default();
        for e in events {
            if e.kind != EventKind::HttpResponse || e.document {
                continue;
            }
            let Some(url) = e.url.as_deref().and_then(|u| Url::parse(u).ok()) else {
                continue;
            };
            if !self.counts(&url) {
                continue;
            }
            match classify(&url) {
                Request::Script(key) => n.scripts += u32::from(self.scripts.insert(key)),
                Request::Endpoint(key) => n.endpoints += u32::from(self.endpoints.insert(key)),
                Request::Other => {}
            }
        }
        if let Some(page) = page_of(url_after) {
            n.urls += u32::from(self.urls.insert(page));
        }
        if let Some(f) = functions {
            n.functions = f.saturating_sub(self.functions);
            self.functions = self.functions.max(f);
        }
        n
    }

    /// The open regions of the page the step ended on never seen open on its kind of
    /// page (`page_pattern`) before.
    pub fn regions(&mut self, url_after: &str, regions: &[String]) -> u32 {
        let Ok(url) = Url::parse(url_after) else {
            return 0;
        };
        let page = page_pattern(&url);
        regions
            .iter()
            .filter(|r| self.regions.insert(format!("{page} {r}")))
            .count() as u32
    }

    fn counts(&self, url: &Url) -> bool {
        self.origins.is_empty() || {
            let origin = url.origin().ascii_serialization();
            self.origins.contains(&origin)
        }
    }

    /// Distinct scripts, endpoints and pages seen so far.
    pub fn seen(&self) -> (usize, usize, usize) {
        (self.scripts.len(), self.endpoints.len(), self.urls.len())
    }
}

/// The page a URL shows: without its fragment, unless the fragment is a client-side
/// route (`#/experiments/1`, `#!/inbox`), which a hash-routed SPA changes instead of the
/// path (MLflow counted one page in a whole run). Record ids in the route are masked.
fn page_of(url: &str) -> Option<String> {
    let mut page = Url::parse(url).ok()?;
    let route = route_of(&page);
    page.set_fragment(None);
    let mut out = page.to_string();
    if let Some(r) = route {
        out.push_str("#/");
        out.push_str(&r);
    }
    Some(out)
}

/// A URL's client-side route (`#/experiments/1`, `#!/inbox`) with record ids masked,
/// without its `#/`; `None` when the fragment is no route.
fn route_of(url: &Url) -> Option<String> {
    let route = url
        .fragment()
        .and_then(|f| f.strip_prefix('/').or_else(|| f.strip_prefix("!/")))?;
    let path = route.split(['?', '#']).next().unwrap_or("");
    let masked: Vec<&str> = path
        .split('/')
        .map(|seg| if is_id(seg) { "<id>" } else { seg })
        .collect();
    Some(masked.join("/"))
}

/// The kind of page a URL shows, for breadth: its path with record ids masked, its
/// query's keys, its client-side route masked the same way (`http://h/issues/<id>`,
/// `http://h/admin/#/items/<id>`). Two issues are one kind of page.
pub fn page_pattern(url: &Url) -> String {
    let mut out = url.origin().ascii_serialization();
    out.push_str(&endpoint_pattern(url));
    if let Some(route) = route_of(url) {
        out.push_str("#/");
        out.push_str(&route);
    }
    out
}

const STATIC: &[&str] = &[
    "css", "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "avif", "woff", "woff2", "ttf",
    "otf", "eot", "map", "mp4", "webm", "mp3",
];

/// The lower-cased extension of a URL path's last segment (`js` of `/a/app.JS`).
pub fn extension(path: &str) -> Option<String> {
    let last = path.rsplit('/').next()?;
    let (_, ext) = last.rsplit_once('.')?;
    Some(ext.to_ascii_lowercase())
}

fn classify(url: &Url) -> Request {
    let path = url.path();
    match extension(path).as_deref() {
        Some("js" | "mjs" | "cjs") => Request::Script(path.to_string()),
        Some(ext) if STATIC.contains(&ext) => Request::Other,
        _ => Request::Endpoint(endpoint_pattern(url)),
    }
}

/// A request's endpoint: its path with the segments that name one record masked
/// (numbers, UUIDs, long hex or mixed ids), and the sorted names of its query parameters
/// (`/api/items/<id>?fields&sort`). Two requests to one endpoint with other records or
/// other values are one.
pub fn endpoint_pattern(url: &Url) -> String {
    let mut out = String::new();
    for seg in url.path().split('/').skip(1) {
        out.push('/');
        out.push_str(if is_id(seg) { "<id>" } else { seg });
    }
    if out.is_empty() {
        out.push('/');
    }
    out.push_str(&crate::state::query_keys(url));
    out
}

/// A path segment that names a record rather than a resource.
fn is_id(seg: &str) -> bool {
    if seg.is_empty() {
        return false;
    }
    let digits = seg.chars().filter(char::is_ascii_digit).count();
    let hex = seg.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    // 42, 2026-11-28, 3f2a...-uuid, a 24-hex object id, MailDev's "LU9nlwWB" and
    // "spqBMTZU" (as failure signatures mask them); "v1", "h2o", "oauth2" or "petNew" stay.
    let alnum = seg.chars().all(|c| c.is_ascii_alphanumeric());
    digits == seg.len()
        || (hex && seg.len() >= 8 && digits > 0)
        || (alnum && seg.len() >= 8 && crate::signature::looks_generated(seg))
        || (alnum && seg.len() >= 16 && digits * 4 >= seg.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(url: &str) -> Event {
        Event::http(200, url, false)
    }

    fn pattern(u: &str) -> String {
        endpoint_pattern(&Url::parse(u).unwrap())
    }

    #[test]
    fn a_page_pattern_is_one_for_every_record_and_route_instance() {
        let p = |u: &str| page_pattern(&Url::parse(u).unwrap());
        assert_eq!(
            p("http://h:1/issues/42?sort=a"),
            "http://h:1/issues/<id>?sort"
        );
        assert_eq!(
            p("http://h:1/issues/7?sort=b"),
            p("http://h:1/issues/42?sort=a")
        );
        assert_eq!(
            p("http://h:1/#/experiments/3/runs"),
            "http://h:1/#/experiments/<id>/runs"
        );
        assert_ne!(p("http://h:1/#/experiments"), p("http://h:1/#/models"));
        // A fragment that is no route is the same page.
        assert_eq!(p("http://h:1/docs#intro"), p("http://h:1/docs"));
        assert_ne!(p("http://h:1/a"), p("http://other:1/a"));
    }

    #[test]
    fn a_region_is_new_once_per_kind_of_page() {
        let mut t = NoveltyTracker::default();
        let open = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            t.regions("http://a/items/1", &open(&["dialog:Edit item #"])),
            1
        );
        assert_eq!(
            t.regions("http://a/items/2", &open(&["dialog:Edit item #"])),
            0
        );
        assert_eq!(
            t.regions("http://a/items/2", &open(&["dialog:Edit item #", "menu:"])),
            1
        );
        assert_eq!(
            t.regions("http://a/users", &open(&["dialog:Edit item #"])),
            1
        );
        let n = Novelty {
            regions: 2,
            ..Novelty::default()
        };
        assert_eq!(n.describe(), "2 regions");
        assert_eq!(n.score(), 0.0, "not in the score until measured");
    }

    #[test]
    fn the_score_grows_with_what_was_new_and_stays_below_one() {
        let none = Novelty::default();
        let script = Novelty { scripts: 1, ..none };
        let some = Novelty {
            functions: 20,
            ..none
        };
        let lots = Novelty {
            scripts: 3,
            endpoints: 2,
            urls: 2,
            functions: 300,
            regions: 0,
            server_lines: None,
        };
        assert_eq!(none.score(), 0.0);
        assert!(some.score() > 0.0 && some.score() < script.score());
        assert!(lots.score() < 1.0 && lots.score() > script.score());
    }

    #[test]
    fn new_server_lines_count_at_their_measured_weight_and_can_be_left_out() {
        let read_nothing = Novelty {
            server_lines: Some(0),
            ..Novelty::default()
        };
        assert!(read_nothing.is_empty());
        assert_eq!(read_nothing.score(), 0.0);
        let endpoint = Novelty {
            endpoints: 1,
            ..Novelty::default()
        };
        let server = Novelty {
            server_lines: Some(60),
            ..Novelty::default()
        };
        assert!(!server.is_empty());
        assert!((server.score() - endpoint.score()).abs() < 1e-12);
        let both = Novelty {
            server_lines: Some(30),
            ..endpoint
        };
        assert!(both.score() > endpoint.score());
        assert_eq!(both.score_with_server(0.0), endpoint.score());
    }

    #[test]
    fn endpoints_mask_records_and_keep_parameter_names() {
        assert_eq!(
            pattern("http://a/api/items/42?b=1&a=2&b=3"),
            "/api/items/<id>?a&b"
        );
        assert_eq!(
            pattern("http://a/items/3f2a9c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b/fields"),
            "/items/<id>/fields"
        );
        assert_eq!(pattern("http://a/v1/h2o/users"), "/v1/h2o/users");
        assert_eq!(pattern("http://a/"), "/");
        assert_eq!(pattern("http://a/issues/2026-11-28"), "/issues/<id>");
        // Random mixed-case ids with a digit (MailDev's e-mails); words stay.
        assert_eq!(pattern("http://a/email/LU9nlwWB/html"), "/email/<id>/html");
        assert_eq!(pattern("http://a/email/mwGJ4715"), "/email/<id>");
        assert_eq!(pattern("http://a/oauth2/authorize"), "/oauth2/authorize");
        assert_eq!(pattern("http://a/api/getUserById"), "/api/getUserById");
    }

    #[test]
    fn a_step_counts_only_what_the_run_had_not_seen() {
        let mut t = NoveltyTracker::new(vec!["http://app:1".into()]);
        let first = t.absorb(
            &[
                response("http://app:1/static/chunk-a.js"),
                response("http://app:1/api/items/1"),
                response("http://app:1/style.css"),
                response("http://cdn:2/lib.js"),
            ],
            "http://app:1/items#top",
            Some(10),
        );
        assert_eq!(
            first,
            Novelty {
                scripts: 1,
                endpoints: 1,
                urls: 1,
                functions: 10,
                regions: 0,
                server_lines: None,
            }
        );
        let again = t.absorb(
            &[
                response("http://app:1/static/chunk-a.js"),
                response("http://app:1/api/items/2"),
            ],
            "http://app:1/items#bottom",
            Some(12),
        );
        assert_eq!(
            again,
            Novelty {
                functions: 2,
                ..Novelty::default()
            }
        );
        assert_eq!(again.describe(), "2 functions");
        // Coverage not measured this step: no functions, and no loss of the count.
        let none = t.absorb(&[], "http://app:1/items", None);
        assert!(none.is_empty());
        assert_eq!(t.seen(), (1, 1, 1));
    }

    #[test]
    fn a_hash_route_is_a_page_an_anchor_is_not() {
        let mut t = NoveltyTracker::new(Vec::new());
        let mut pages = |u: &str| t.absorb(&[], u, None).urls;
        assert_eq!(pages("http://a/#/experiments"), 1);
        assert_eq!(pages("http://a/#/experiments/12/runs"), 1);
        // Another record on a route seen: the same page.
        assert_eq!(pages("http://a/#/experiments/13/runs"), 0);
        assert_eq!(pages("http://a/#!/inbox"), 1);
        assert_eq!(pages("http://a/docs#intro"), 1);
        assert_eq!(pages("http://a/docs#usage"), 0);
        assert_eq!(pages("http://a/#/experiments?tab=2"), 0);
    }

    #[test]
    fn documents_are_pages_not_endpoints() {
        let mut t = NoveltyTracker::new(Vec::new());
        let doc = Event::http(200, "http://a/admin/", true);
        let n = t.absorb(&[doc], "http://a/admin/", None);
        assert_eq!((n.endpoints, n.urls), (0, 1));
        assert_eq!(
            Novelty {
                scripts: 2,
                endpoints: 1,
                urls: 0,
                functions: 0,
                regions: 0,
                server_lines: Some(40),
            }
            .describe(),
            "2 scripts, 1 endpoint, 40 server lines"
        );
    }
}
