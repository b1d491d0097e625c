//! The ground truth of each fixture application holds in a real browser: its tour reaches
//! exactly the declared screens, shows only declared action ids and uses them all, covers
//! every feature of the grammar (matched on the app's own action log) and raises no
//! failure; each seeded bug fires at the last step of its witness and not before; and
//! the witness is 1-minimal: dropping any one step no longer triggers the bug.
//!
//! Needs Chromium (scripts/ensure-chromium.sh).

mod common;

use std::collections::BTreeSet;

use common::walker::{Walked, Walker};
use wayfarer_core::grammar::FeatureGrammar;
use wayfarer_core::Environment;
use wayfarer_testapps::{
    feature_grammar, ground_truth, seeded_bugs, App, SeededBug, ServeOptions, Server,
};

fn hits(bug: &SeededBug, w: &Walked) -> Vec<usize> {
    w.failures
        .iter()
        .filter(|(_, k, m)| bug.matches(k, m))
        .map(|(at, _, _)| *at)
        .collect()
}

fn check(app: App) {
    let truth = ground_truth(app).expect("a ground truth");
    let grammar = FeatureGrammar::parse(feature_grammar(app)).unwrap();
    let server = Server::start(app, ServeOptions::default()).unwrap();
    let mut w = Walker::launch(&server.url());

    // The tour: every screen, every action id, every feature, and no failure.
    let mut logs = Vec::new();
    for (n, walk) in truth.tour.iter().enumerate() {
        let out = w.walk(walk);
        assert!(
            out.stuck.is_none(),
            "{app} tour walk {}: {:?}",
            n + 1,
            out.stuck
        );
        assert!(
            out.failures.is_empty(),
            "{app} tour walk {} raised failures: {:?}",
            n + 1,
            out.failures
        );
        logs.push(out.log);
    }
    let declared: BTreeSet<String> = truth.states.iter().map(|s| s.to_string()).collect();
    assert_eq!(w.states, declared, "{app}: screens reached by the tour");
    let actions: BTreeSet<String> = truth.actions.iter().map(|s| s.to_string()).collect();
    let undeclared: Vec<_> = w.seen_actions.difference(&actions).collect();
    assert!(
        undeclared.is_empty(),
        "{app}: undeclared action ids shown: {undeclared:?}"
    );
    let used: BTreeSet<String> = truth
        .tour
        .iter()
        .flat_map(|walk| walk.iter().filter(|s| s.has_control()))
        .map(|s| s.action_id.to_string())
        .collect();
    let unused: Vec<_> = actions.difference(&used).collect();
    assert!(unused.is_empty(), "{app}: the tour never uses {unused:?}");
    let logged: BTreeSet<&String> = logs.iter().flatten().collect();
    let unlogged: Vec<_> = actions.iter().filter(|a| !logged.contains(a)).collect();
    assert!(
        unlogged.is_empty(),
        "{app}: the app never logged {unlogged:?}"
    );
    let covered = grammar.covered_by_any(&logs);
    let all: Vec<&str> = grammar.features().iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        covered, all,
        "{app}: features covered by the tour; logs: {logs:?}"
    );

    bugs_hold(app, &mut w);
    w.env.close();
}

/// Each seeded bug of `app`: fires at the last step of its witness, and not before; and
/// without any one of its steps it does not fire.
fn bugs_hold(app: App, w: &mut Walker) {
    for bug in seeded_bugs(app) {
        assert_eq!(bug.steps.len() as u32, bug.min_actions, "{}", bug.id);
        let out = w.walk(bug.steps);
        assert!(out.stuck.is_none(), "{}: {:?}", bug.id, out.stuck);
        let at = hits(bug, &out);
        assert!(
            at.contains(&(bug.steps.len() - 1)),
            "{}: not raised at its last step; failures: {:?}",
            bug.id,
            out.failures
        );
        assert!(
            at.iter().all(|&i| i == bug.steps.len() - 1),
            "{}: raised before its last step: {:?}",
            bug.id,
            out.failures
        );
        // 1-minimal: without any one of its steps the bug does not fire.
        for skip in 0..bug.steps.len() {
            let mut shorter = bug.steps.to_vec();
            shorter.remove(skip);
            let out = w.walk(&shorter);
            assert!(
                hits(bug, &out).is_empty(),
                "{}: still raised without step {} ({:?})",
                bug.id,
                skip + 1,
                bug.steps[skip]
            );
        }
    }
}

#[test]
fn expense_ground_truth() {
    check(App::Expense);
}

#[test]
fn clinic_ground_truth() {
    check(App::Clinic);
}

#[test]
fn splitter_ground_truth() {
    check(App::Splitter);
}

#[test]
fn board_ground_truth() {
    check(App::Board);
}

/// The delegated board has the same tour, screens and bugs: only how its controls listen
/// differs.
#[test]
fn delegated_board_ground_truth() {
    check(App::BoardDelegated);
}

/// The gestures app has no tour: its bugs, each behind a gesture other than a click (a
/// delegated double click, a hover, a stylesheet hover, a context menu, Enter), fire at
/// their witness's last step, and only with every step of it.
#[test]
fn gestures_bugs_fire_through_their_gesture_only() {
    let server = Server::start(App::Gestures, ServeOptions::default()).unwrap();
    let mut w = Walker::launch(&server.url());
    bugs_hold(App::Gestures, &mut w);
    w.env.close();
}
