//! Reading the scan's answer. scan.js runs in the page, whose scripts can rewrite the
//! builtins it relies on and so make it answer anything: the JSON is read as untrusted,
//! refused when it is no observation, and cut to what an honest scan returns.

use wayfarer_core::{Observation, Rect, Size};

use crate::cdp::BrowserError;

/// The most an honest scan returns; scan.js stops at the same caps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    pub elements: usize,
    pub tags: usize,
    /// scan.js checks this before each append, and escaping grows text: its HTML can
    /// reach a few times this, never `HTML_SLACK` times.
    pub html: usize,
}

const HTML_SLACK: usize = 8;
/// scan.js keeps the last 5000 ids of the instrumentation log.
/// The largest answer of a page check's extractor kept (serialized JSON).
const MAX_FACT_BYTES: usize = 4096;
const MAX_APP_ACTIONS: usize = 5000;
/// scan.js cuts the error text to 200 characters.
const MAX_ERROR_TEXT: usize = 1000;
/// scan.js names at most 20 open regions, each in a role and 60 characters.
const MAX_REGIONS: usize = 20;
const MAX_REGION: usize = 200;
/// listeners.js records 17 event types, and IntersectionObserver use.
const MAX_DELEGATED: usize = 18;
/// Chromium lays nothing out beyond 2^25 CSS pixels (its LayoutUnit range): within it,
/// sums such as a rect's centre stay finite.
const MAX_PX: f64 = 33_554_432.0;

/// The observation in the scan's answer `json`, or why it is none.
pub(crate) fn observation(json: &str, caps: &Caps) -> Result<Observation, BrowserError> {
    let mut o: Observation = serde_json::from_str(json).map_err(|e| {
        let head: String = json.chars().take(80).collect();
        BrowserError::Step(format!(
            "scan result is not an observation ({e}); it began {head:?}"
        ))
    })?;
    o.elements.truncate(caps.elements);
    o.tags.truncate(caps.tags);
    cut(&mut o.html, caps.html * HTML_SLACK);
    if let Some(t) = &mut o.error_text {
        cut(t, MAX_ERROR_TEXT);
    }
    // The page checks' lists: scan.js keeps at most 10, 10 and 20, each cut.
    o.placeholder_text.truncate(10);
    o.broken_images.truncate(10);
    o.unnamed_controls.truncate(20);
    for t in o
        .placeholder_text
        .iter_mut()
        .chain(&mut o.broken_images)
        .chain(&mut o.unnamed_controls)
    {
        cut(t, MAX_ERROR_TEXT);
    }
    o.regions.truncate(MAX_REGIONS);
    for r in &mut o.regions {
        cut(r, MAX_REGION);
    }
    // listeners.js records a dozen event types: anything else is the page's doing.
    o.delegated.retain(|t| t.len() <= 20);
    o.delegated.truncate(MAX_DELEGATED);
    // A check's extractor answers a little, on every page: a big answer is a wrong one.
    o.facts.retain(|_, v| v.to_string().len() <= MAX_FACT_BYTES);
    if let Some(app) = &mut o.app {
        let extra = app.actions.len().saturating_sub(MAX_APP_ACTIONS);
        app.actions.drain(..extra);
    }
    o.viewport = size(o.viewport);
    o.page = size(o.page);
    for e in &mut o.elements {
        e.gestures.retain(|g| {
            matches!(
                g.as_str(),
                "hover" | "context_menu" | "keys" | "scroll" | "drag" | "drop"
            ) || g
                .strip_prefix("sort:")
                .is_some_and(|n| n.len() <= 4 && n.bytes().all(|b| b.is_ascii_digit()))
        });
        e.gestures.dedup();
        e.rect = Rect {
            x: e.rect.x.clamp(-MAX_PX, MAX_PX),
            y: e.rect.y.clamp(-MAX_PX, MAX_PX),
            width: e.rect.width.clamp(0.0, MAX_PX),
            height: e.rect.height.clamp(0.0, MAX_PX),
        };
    }
    Ok(o)
}

fn size(s: Size) -> Size {
    Size {
        width: s.width.clamp(0.0, MAX_PX),
        height: s.height.clamp(0.0, MAX_PX),
    }
}

/// `s` cut to at most `max` bytes, at a character boundary.
pub(crate) fn cut(s: &mut String, max: usize) {
    if s.len() > max {
        let mut at = max;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde_json::{json, Value};
    use wayfarer_core::{AppProbe, Element};

    use super::*;

    const CAPS: Caps = Caps {
        elements: 20,
        tags: 30,
        html: 100,
    };

    /// What the rest of wayfarer may assume of an observation.
    fn sane(o: &Observation) -> Result<(), TestCaseError> {
        prop_assert!(o.elements.len() <= CAPS.elements);
        prop_assert!(o.tags.len() <= CAPS.tags);
        prop_assert!(o.html.len() <= CAPS.html * HTML_SLACK);
        prop_assert!(o
            .error_text
            .as_ref()
            .is_none_or(|t| t.len() <= MAX_ERROR_TEXT));
        prop_assert!(o
            .app
            .as_ref()
            .is_none_or(|a| a.actions.len() <= MAX_APP_ACTIONS));
        prop_assert!(o.regions.len() <= MAX_REGIONS);
        prop_assert!(o.regions.iter().all(|r| r.len() <= MAX_REGION));
        for s in [o.viewport, o.page] {
            prop_assert!((0.0..=MAX_PX).contains(&s.width) && (0.0..=MAX_PX).contains(&s.height));
        }
        for e in &o.elements {
            let (cx, cy) = e.rect.center();
            prop_assert!(cx.is_finite() && cy.is_finite(), "{:?}", e.rect);
            prop_assert!(e.rect.width >= 0.0 && e.rect.height >= 0.0, "{:?}", e.rect);
        }
        Ok(())
    }

    /// Read `json`: a sane observation, or a step error that says what came back.
    fn read(json: &str) -> Result<(), TestCaseError> {
        match observation(json, &CAPS) {
            Ok(o) => sane(&o),
            Err(BrowserError::Step(m)) => {
                prop_assert!(m.starts_with("scan result is not an observation"), "{}", m);
                Ok(())
            }
            Err(e) => Err(TestCaseError::fail(format!("not a step error: {e}"))),
        }
    }

    /// An observation with something in every field.
    fn full() -> Observation {
        let el = Element {
            locator: "#save".into(),
            xpath: "/html/body/button".into(),
            tag: "button".into(),
            role: Some("button".into()),
            input_type: Some("submit".into()),
            attrs: BTreeMap::from([("id".to_string(), "save".to_string())]),
            text: "Save".into(),
            label: "Form".into(),
            rect: Rect {
                x: 10.0,
                y: 20.0,
                width: 80.0,
                height: 30.0,
            },
            actionable: vec!["tag:button".into()],
            gestures: vec!["hover".into()],
            options: vec!["a".into()],
            checked: Some(false),
            form: Some("#f".into()),
            invalid: true,
            ..Element::default()
        };
        Observation {
            url: "http://127.0.0.1:1/".into(),
            title: "Home".into(),
            tags: vec!["html".into(), "body".into(), "button".into()],
            html: "<body><button>Save</button></body>".into(),
            elements: vec![el.clone(), el],
            viewport: Size {
                width: 1280.0,
                height: 800.0,
            },
            page: Size {
                width: 1280.0,
                height: 2000.0,
            },
            status: Some(200),
            error_text: Some("TypeError: x".into()),
            placeholder_text: vec!["Total: NaN".into()],
            broken_images: vec!["http://127.0.0.1:1/logo.png".into()],
            unnamed_controls: vec!["#q".into()],
            facts: [(
                "image_alt".to_string(),
                serde_json::json!(["http://127.0.0.1:1/logo.png"]),
            )]
            .into(),
            regions: vec!["dialog:Edit item #".into()],
            delegated: vec!["dblclick".into()],
            app: Some(AppProbe {
                state: Some("home".into()),
                actions: vec!["a1".into()],
            }),
            dom_size: Some(42),
            picture: None,
        }
    }

    #[test]
    fn a_checks_answer_past_its_cap_is_dropped() {
        let mut o = full();
        o.facts
            .insert("big".into(), serde_json::json!("x".repeat(MAX_FACT_BYTES)));
        let back = observation(&serde_json::to_string(&o).unwrap(), &CAPS).unwrap();
        assert!(back.facts.contains_key("image_alt"));
        assert!(!back.facts.contains_key("big"));
    }

    #[test]
    fn an_honest_scan_reads_back_unchanged() {
        let o = full();
        assert_eq!(
            observation(&serde_json::to_string(&o).unwrap(), &CAPS).unwrap(),
            o
        );
    }

    #[test]
    fn lists_past_what_a_scan_returns_are_cut_and_text_at_a_character() {
        let el = serde_json::to_value(&full().elements[0]).unwrap();
        let answer = json!({
            "url": "http://127.0.0.1:1/",
            "title": "",
            "elements": vec![el; 5000],
            "tags": vec!["div"; 50_000],
            "html": "é".repeat(1_000_000),
            "error_text": "🦀".repeat(10_000),
            "regions": vec!["dialog:".to_string() + &"é".repeat(1000); 500],
            "app": {"actions": (0..20_000).map(|i| i.to_string()).collect::<Vec<_>>()},
        });
        let o = observation(&answer.to_string(), &CAPS).unwrap();
        sane(&o).unwrap();
        assert_eq!((o.elements.len(), o.tags.len()), (CAPS.elements, CAPS.tags));
        assert_eq!(
            o.html.len(),
            CAPS.html * HTML_SLACK,
            "é is two bytes: an even cap"
        );
        assert!(o.error_text.unwrap().chars().all(|c| c == '🦀'));
        assert_eq!(o.regions.len(), MAX_REGIONS);
        let actions = o.app.unwrap().actions;
        assert_eq!(
            actions.first().map(String::as_str),
            Some("15000"),
            "the latest kept"
        );
    }

    #[test]
    fn coordinates_past_any_layout_are_brought_within_it() {
        let mut answer = serde_json::to_value(full()).unwrap();
        answer["elements"][0]["rect"] =
            json!({"x": 1.7e308, "y": -1.7e308, "width": 1.7e308, "height": -5});
        answer["page"] = json!({"width": -1, "height": 1e300});
        let o = observation(&answer.to_string(), &CAPS).unwrap();
        sane(&o).unwrap();
        assert_eq!(o.elements[0].rect.center(), (MAX_PX * 1.5, -MAX_PX));
    }

    #[test]
    fn deep_nesting_and_numbers_past_f64_are_errors_not_crashes() {
        for text in [
            "[".repeat(100_000),
            format!(
                "{{\"url\":\"\",\"title\":\"\",\"app\":{}",
                "{\"state\":".repeat(50_000)
            ),
            r#"{"url":"","title":"","viewport":{"width":1e309,"height":1}}"#.to_string(),
            r#"{"url":"","title":"","status":70000}"#.to_string(),
            r##"{"url":"","title":"","elements":[{"locator":"#a"}]}"##.to_string(),
            "\"[object Object]\"".to_string(),
        ] {
            let e = observation(&text, &CAPS).unwrap_err().to_string();
            assert!(e.starts_with("scan result is not an observation"), "{e}");
            assert!(e.len() < 400, "the answer is quoted short: {e}");
        }
    }

    /// Any JSON value, keys mostly those of an observation and its elements, numbers at
    /// the ends of the range among the scalars.
    fn any_json() -> impl Strategy<Value = Value> {
        wayfarer_core::testing::any_json(
            &[
                "url",
                "title",
                "tags",
                "html",
                "elements",
                "viewport",
                "page",
                "status",
                "error_text",
                "app",
                "dom_size",
                "locator",
                "tag",
                "rect",
                "x",
                "y",
                "width",
                "height",
                "attrs",
                "actionable",
                "options",
                "checked",
                "visible",
                "actions",
                "state",
            ],
            [1.7e308, -1.7e308, -0.0, 5e-324].map(Value::from).to_vec(),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn any_text_is_an_observation_or_an_error(text in any::<String>()) {
            read(&text)?;
        }

        #[test]
        fn any_json_is_an_observation_or_an_error(v in any_json()) {
            read(&v.to_string())?;
        }

        /// An honest answer with one place given anything: a wrong type, a missing
        /// part, a huge number, a deep value.
        #[test]
        fn an_answer_with_one_part_replaced_is_an_observation_or_an_error(
            pick in any::<prop::sample::Index>(),
            with in any_json(),
        ) {
            let mut v = serde_json::to_value(full()).unwrap();
            let all = wayfarer_core::testing::json_places(&v);
            let at = pick.get(&all).clone();
            match v.pointer_mut(&at) {
                Some(slot) => *slot = with,
                None => v = with,
            }
            read(&v.to_string())?;
        }

        /// Many elements and tags with coordinates anywhere in f64.
        #[test]
        fn long_lists_and_far_coordinates_come_back_sane(
            n in 0usize..200,
            tags in 0usize..200,
            xs in prop::collection::vec(any::<f64>().prop_filter("JSON has no nan or inf", |x| x.is_finite()), 4),
        ) {
            let mut el = serde_json::to_value(&full().elements[0]).unwrap();
            el["rect"] = json!({"x": xs[0], "y": xs[1], "width": xs[2], "height": xs[3]});
            let mut v = serde_json::to_value(full()).unwrap();
            v["elements"] = Value::Array(vec![el; n]);
            v["tags"] = json!(vec!["div"; tags]);
            read(&v.to_string())?;
        }
    }
}
