//! The feature matcher against each application's grammar: for every feature, a
//! hand-written action-id log that covers it and one that narrowly misses it
//! (`GroundTruth::feature_cases`). No browser.

use wayfarer_core::grammar::FeatureGrammar;
use wayfarer_testapps::{feature_grammar, ground_truth, App};

#[test]
fn every_feature_has_a_case_that_covers_it_and_one_that_narrowly_misses() {
    for &app in App::all_apps() {
        let truth = ground_truth(app).unwrap();
        let grammar =
            FeatureGrammar::parse(feature_grammar(app)).unwrap_or_else(|e| panic!("{app}: {e}"));
        assert!(grammar.len() >= 5, "{app}: {} features", grammar.len());
        for f in grammar.features() {
            let cases: Vec<_> = truth
                .feature_cases
                .iter()
                .filter(|c| c.feature == f.name)
                .collect();
            assert!(!cases.is_empty(), "{app}: feature {} has no case", f.name);
            for c in cases {
                let covers: Vec<&str> = c.covers.split_whitespace().collect();
                let misses: Vec<&str> = c.misses.split_whitespace().collect();
                assert!(
                    grammar.covered(&covers).contains(&c.feature),
                    "{app}: {:?} does not cover {}",
                    c.covers,
                    c.feature
                );
                assert!(
                    !grammar.covered(&misses).contains(&c.feature),
                    "{app}: {:?} covers {} but should narrowly miss it",
                    c.misses,
                    c.feature
                );
                // Narrowly: the miss shares most of its ids with the cover.
                let shared = misses.iter().filter(|m| covers.contains(m)).count();
                assert!(
                    shared * 2 >= misses.len(),
                    "{app}: {}: the miss {:?} is not near the cover",
                    c.feature,
                    c.misses
                );
                for id in covers.iter().chain(&misses) {
                    assert!(
                        truth.actions.contains(id),
                        "{app}: {}: {id} is not an action id of the app",
                        c.feature
                    );
                }
            }
        }
        for c in truth.feature_cases {
            assert!(
                grammar.features().iter().any(|f| f.name == c.feature),
                "{app}: case for unknown feature {}",
                c.feature
            );
        }
    }
}
