//! State inference in a real browser: a seeded bug fired by an action whose next scan was
//! skipped is still reported, at its step and with its trace, because failures come from
//! the step's CDP events and the probe, not from the scan.

mod common;

use common::{launch, options, Steps};
use rand_chacha::ChaCha8Rng;
use wayfarer_core::config::BrowserConfig;
use wayfarer_core::state::StructureAbstraction;
use wayfarer_core::{run, Action, ActionKind, Agent, Budget, Environment, RunSummary, View};
use wayfarer_testapps::{seeded_bugs, App, ServeOptions, Server};

/// Clicks the controls named by action id (and text), in order; then the first offered.
#[derive(Clone)]
struct Script {
    steps: Vec<(&'static str, &'static str)>,
    next: usize,
}

impl Agent for Script {
    fn name(&self) -> &str {
        "script"
    }

    fn choose(&mut self, view: &View<'_>, _: &mut ChaCha8Rng) -> Action {
        let wanted = self.steps.get(self.next).copied();
        self.next += 1;
        let found = wanted.and_then(|(id, text)| {
            view.observation.elements.iter().find(|e| {
                e.attr("data-action-id") == Some(id)
                    && e.text.to_lowercase().contains(&text.to_lowercase())
            })
        });
        match found {
            Some(e) => Action::on(ActionKind::Click, e.locator.clone()),
            None => view.actions[0].clone(),
        }
    }

    fn fork(&self) -> Option<Box<dyn Agent + Send>> {
        Some(Box::new(self.clone()))
    }
}

fn contact_twice(inference: Option<&str>) -> (RunSummary, Steps) {
    let server = Server::start(App::Clinic, ServeOptions::default()).unwrap();
    let url = server.url().to_string();
    let mut env = launch(&url, BrowserConfig::default());
    let mut opts = options(&url, 1, Budget::actions(5), 20);
    opts.inference = inference.map(|i| i.parse().unwrap());
    let mut agent = Script {
        steps: vec![
            ("clinic.nav.vets", ""),
            // Harmless without a filter: the knowledge base learns where it leads.
            ("clinic.vets.contact", ""),
            ("clinic.vets.chip", "cardiology"),
            // The seeded bug, on an interaction the knowledge base already knows.
            ("clinic.vets.contact", ""),
            ("clinic.nav.home", ""),
        ],
        next: 0,
    };
    let mut steps = Steps::default();
    let summary = run(
        &mut env,
        &mut agent,
        &mut StructureAbstraction::default(),
        &opts,
        &mut [&mut steps],
    )
    .unwrap();
    env.close();
    (summary, steps)
}

#[test]
fn a_bug_on_a_guessed_step_is_reported_at_its_step_with_its_trace() {
    let bug = seeded_bugs(App::Clinic)
        .iter()
        .find(|b| b.id == "clinic-vets-contact")
        .unwrap();
    let (base, _) = contact_twice(None);
    let (s, steps) = contact_twice(Some("actions-5"));

    let fired = &steps.0[3];
    let info = fired.inference.as_ref().expect("inference recorded");
    assert_eq!(info.accepted, Some(1), "step 4 was guessed: {info:?}");
    assert!(fired.timings.scan.is_zero(), "no scan on the guessed step");
    assert_eq!(fired.findings.len(), 1, "{:?}", fired.events);
    assert!(s.scans_avoided > 0.0);

    for summary in [&base, &s] {
        let f = summary
            .failures
            .iter()
            .find(|f| bug.matches(&f.kind, &f.message))
            .unwrap_or_else(|| panic!("the seeded bug is reported: {:?}", summary.failures));
        assert_eq!(f.step, 4);
        assert_eq!(f.trace_len, 4);
    }
    assert_eq!(s.failures.len(), base.failures.len());
}
