//! The public tables: apps, seeded bugs, feature grammars.

use std::collections::HashSet;

use regex::Regex;
use wayfarer_testapps::{feature_grammar, seeded_bugs, App};

/// Every application, the driver test pages included.
const EVERY_APP: [App; 5] = [
    App::Expense,
    App::Clinic,
    App::Splitter,
    App::Board,
    App::Hazards,
];

#[test]
fn app_names_round_trip() {
    for app in EVERY_APP {
        assert_eq!(App::from_name(app.name()), Some(app));
    }
    assert_eq!(
        App::all_apps(),
        &[App::Expense, App::Clinic, App::Splitter, App::Board]
    );
    assert_eq!(App::from_name("nope"), None);
}

#[test]
fn seeded_bugs_are_complete() {
    let mut ids = HashSet::new();
    for &app in App::all_apps() {
        let bugs = seeded_bugs(app);
        assert!(bugs.len() >= 4, "{app}");
        let kinds: HashSet<&str> = bugs.iter().map(|b| b.kind).collect();
        assert!(kinds.contains("exception") && kinds.contains("http-500"));
        assert!(
            bugs.iter().any(|b| (6..=9).contains(&b.min_actions)),
            "{app} has a deep bug"
        );
        for b in bugs {
            assert_eq!(b.app, app);
            assert!(ids.insert(b.id), "duplicate id {}", b.id);
            assert!(["exception", "http-500", "console-error", "error-text"].contains(&b.kind));
            assert!(!b.message_contains.is_empty() && b.min_actions >= 1);
            assert_eq!(
                b.steps.len() as u32,
                b.min_actions,
                "{}: witness length",
                b.id
            );
            let truth = wayfarer_testapps::ground_truth(app).unwrap();
            for s in b.steps {
                assert!(
                    truth.actions.contains(&s.action_id),
                    "{}: {} is not an action id of {app}",
                    b.id,
                    s.action_id
                );
            }
        }
        // Bugs of one app are told apart by (kind, message).
        let keys: HashSet<(&str, &str)> =
            bugs.iter().map(|b| (b.kind, b.message_contains)).collect();
        assert_eq!(keys.len(), bugs.len());
    }
    assert!(seeded_bugs(App::Hazards).is_empty());
}

#[test]
fn feature_grammars_parse() {
    for app in EVERY_APP {
        let g = feature_grammar(app);
        let mut names = HashSet::new();
        for line in g.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (name, re) = line
                .split_once(':')
                .unwrap_or_else(|| panic!("{app}: bad line {line}"));
            assert!(
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            );
            assert!(names.insert(name.to_string()), "{app}: duplicate {name}");
            let re = Regex::new(re.trim()).unwrap_or_else(|e| panic!("{app}: {name}: {e}"));
            assert!(
                re.as_str().contains(app.name()),
                "{app}: {name} mentions the app's ids"
            );
        }
        assert!(names.len() >= 5, "{app}");
    }
    // A sample session matches the features it walks through.
    let g = feature_grammar(App::Expense);
    let find = |n: &str| {
        let line = g.lines().find(|l| l.starts_with(&format!("{n}:"))).unwrap();
        Regex::new(line.split_once(':').unwrap().1.trim()).unwrap()
    };
    let seq = "expense.login.demo expense.login.submit expense.nav.wizard expense.wizard.tile \
               expense.wizard.next1 expense.wizard.limit expense.wizard.next2 expense.wizard.confirm";
    assert!(find("login").is_match(seq));
    assert!(find("set_budget").is_match(seq));
    assert!(!find("register").is_match(seq));
}

#[test]
fn ground_truths_are_consistent() {
    for &app in App::all_apps() {
        let t = wayfarer_testapps::ground_truth(app).expect("every bench app has a ground truth");
        assert_eq!(t.app, app);
        let states: HashSet<&str> = t.states.iter().copied().collect();
        assert_eq!(states.len(), t.states.len(), "{app}: duplicate state");
        let actions: HashSet<&str> = t.actions.iter().copied().collect();
        assert_eq!(actions.len(), t.actions.len(), "{app}: duplicate action id");
        for id in &actions {
            assert!(id.starts_with(&format!("{}.", app.name())), "{app}: {id}");
        }
        assert!(!t.tour.is_empty() && t.states.len() >= 3, "{app}");
        for walk in t.tour {
            for s in walk.iter().filter(|s| s.has_control()) {
                assert!(
                    actions.contains(s.action_id),
                    "{app}: tour uses unknown {}",
                    s.action_id
                );
            }
        }
    }
    assert!(wayfarer_testapps::ground_truth(App::Hazards).is_none());
}
