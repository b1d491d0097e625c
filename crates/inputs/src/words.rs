//! Small built-in word lists: enough variety to look human, ASCII so that typical
//! `[A-Za-z ]` patterns accept them.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

pub const FIRST_NAMES: &[&str] = &[
    "Alice", "Bruno", "Chloe", "Daniel", "Elena", "Farid", "Grace", "Hiro", "Isabel", "Jamal",
    "Kira", "Liam", "Maria", "Nadia", "Oscar", "Priya", "Quentin", "Rosa", "Samuel", "Tara",
    "Umar", "Vera", "Wei", "Ximena", "Yusuf", "Zoe", "Anna", "Ben", "Carla", "David",
];

pub const LAST_NAMES: &[&str] = &[
    "Smith", "Johnson", "Garcia", "Nguyen", "Kim", "Patel", "Rossi", "Silva", "Novak", "Kowalski",
    "Tanaka", "Dubois", "Jensen", "Okafor", "Haddad", "Lopez", "Brown", "Wilson", "Martin",
    "Andersen", "Costa", "Ivanova", "Schmidt", "Fischer", "Moreau", "Santos", "Cohen", "Ali",
    "Chen", "Walker",
];

pub const CITIES: &[&str] = &[
    "Springfield",
    "Lisbon",
    "Toronto",
    "Osaka",
    "Berlin",
    "Nairobi",
    "Melbourne",
    "Madrid",
    "Chicago",
    "Lyon",
    "Krakow",
    "Seattle",
    "Austin",
    "Dublin",
    "Oslo",
    "Porto",
    "Denver",
    "Bristol",
    "Auckland",
    "Vancouver",
    "Milan",
    "Boston",
    "Prague",
    "Cairo",
    "Lima",
];

pub const STATES: &[&str] = &[
    "California",
    "Texas",
    "Ontario",
    "Bavaria",
    "Queensland",
    "Oregon",
    "Quebec",
    "Victoria",
    "Florida",
    "Colorado",
    "Ohio",
    "Georgia",
];

pub const COUNTRIES: &[&str] = &[
    "United States",
    "Canada",
    "Germany",
    "France",
    "Portugal",
    "Japan",
    "Brazil",
    "Kenya",
    "Australia",
    "Spain",
    "Italy",
    "Poland",
    "India",
    "Mexico",
    "Norway",
    "Ireland",
    "Egypt",
    "Peru",
    "New Zealand",
    "Netherlands",
];

pub const STREETS: &[&str] = &[
    "Oak", "Maple", "Cedar", "Elm", "Pine", "Main", "High", "Park", "Lake", "Hill", "Church",
    "Mill", "River", "Station", "Market",
];

pub const STREET_SUFFIXES: &[&str] = &["Street", "Avenue", "Road", "Lane", "Drive", "Way"];

pub const COMPANIES: &[&str] = &[
    "Acme Corporation",
    "Northwind Traders",
    "Contoso Ltd",
    "Fabrikam Inc",
    "Globex",
    "Initech",
    "Blue Harbor Studio",
    "Summit Analytics",
    "Greenleaf Foods",
    "Brightline Labs",
    "Oakridge Partners",
    "Silverline Logistics",
];

/// Common, inoffensive words for titles, sentences and search terms.
pub const WORDS: &[&str] = &[
    "garden",
    "river",
    "report",
    "quarterly",
    "blue",
    "coffee",
    "meeting",
    "project",
    "summer",
    "window",
    "travel",
    "kitchen",
    "budget",
    "bright",
    "simple",
    "weekly",
    "review",
    "music",
    "mountain",
    "update",
    "green",
    "market",
    "ticket",
    "order",
    "lunch",
    "team",
    "plan",
    "notes",
    "morning",
    "quiet",
    "library",
    "bicycle",
    "recipe",
    "holiday",
    "invoice",
    "spring",
    "harbor",
    "camera",
    "paper",
    "friendly",
    "delivery",
    "local",
    "fresh",
    "planning",
    "event",
    "workshop",
    "photo",
    "sample",
    "draft",
    "small",
];

/// Reserved example domains (RFC 2606), so generated addresses never reach a real person.
pub const DOMAINS: &[&str] = &[
    "example.com",
    "example.org",
    "example.net",
    "mail.example.com",
    "test.example.org",
];

pub fn pick(rng: &mut ChaCha8Rng, list: &[&'static str]) -> &'static str {
    list.choose(rng).copied().unwrap_or("")
}

pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `n` lower-case words separated by spaces.
pub fn words(rng: &mut ChaCha8Rng, n: usize) -> String {
    (0..n)
        .map(|_| pick(rng, WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A short sentence: capitalised, 5 to 10 words, full stop.
pub fn sentence(rng: &mut ChaCha8Rng) -> String {
    let n = rng.gen_range(5..=10);
    format!("{}.", capitalize(&words(rng, n)))
}

/// `n` random decimal digits; the first is never 0 so the value keeps its length as a number.
pub fn digits(rng: &mut ChaCha8Rng, n: usize) -> String {
    (0..n)
        .map(|i| {
            let lo = if i == 0 { 1 } else { 0 };
            char::from(b'0' + rng.gen_range(lo..=9u8))
        })
        .collect()
}
