//! When the application changes under a strategy, its recorded paths break: the
//! memory-based strategies record where, keep replays off the broken step and go on.

mod common;

use common::Valid;

use wayfarer_core::sim::{SimApp, SimEnv};
use wayfarer_core::tagseq::TagSeqAbstraction;
use wayfarer_core::{
    run, Action, Agent, Budget, EnvError, Environment, Observer, Outcome, Progress, RunOptions,
    StepRecord, StrategySnapshot,
};
use wayfarer_strategies::by_name;

/// After `after` steps the application is redeployed: every link changes its locator
/// (`#lN` becomes `#moved-lN`) and the pages link to one another differently, so
/// recorded paths no longer replay.
struct Redeployed {
    inner: SimEnv,
    steps: u64,
    after: u64,
    swap: u64,
}

impl Redeployed {
    fn moved(&self) -> bool {
        self.steps > self.after
    }

    fn rename(&self, mut out: Outcome) -> Outcome {
        if self.moved() {
            for e in &mut out.observation.elements {
                if e.locator.starts_with("#l") {
                    e.locator = format!("#moved-{}", &e.locator[1..]);
                }
            }
        }
        out
    }
}

impl Environment for Redeployed {
    fn reset(&mut self) -> Result<Outcome, EnvError> {
        let out = self.inner.reset()?;
        Ok(self.rename(out))
    }

    fn step(&mut self, action: &Action) -> Result<Outcome, EnvError> {
        self.steps += 1;
        if self.steps == self.after + 1 {
            // The new release also links its pages differently.
            let at = self.inner.visited.clone();
            self.inner = SimEnv::new(SimApp::generate(self.swap, 14));
            self.inner.visited = at;
        }
        let mut a = action.clone();
        match a.target.as_deref() {
            Some(t) if t.starts_with("#l") && self.moved() => {
                return Err(EnvError::ElementNotFound(t.to_string()));
            }
            Some(t) if t.starts_with("#moved-") => {
                a.target = Some(format!("#{}", &t["#moved-".len()..]));
            }
            _ => {}
        }
        let out = self.inner.step(&a)?;
        Ok(self.rename(out))
    }

    fn observe(&mut self) -> Result<Outcome, EnvError> {
        let out = self.inner.observe()?;
        Ok(self.rename(out))
    }
}

#[derive(Default)]
struct Watch {
    errors: usize,
    last: Option<StrategySnapshot>,
}

impl Observer for Watch {
    fn on_step(&mut self, r: &StepRecord, _: &Progress) {
        self.errors += usize::from(r.error.is_some());
    }
    fn on_strategy(&mut self, s: &StrategySnapshot) {
        self.last = Some(s.clone());
    }
}

fn counter(s: &StrategySnapshot, name: &str) -> u64 {
    s.counters.iter().find(|c| c.0 == name).map_or(0, |c| c.1)
}

#[test]
fn a_redeployed_app_breaks_replays_that_are_recorded_and_then_avoided() {
    for strategy in ["bfs", "dfs", "webexplor"] {
        let app = SimApp::generate(17, 14);
        let mut env = Redeployed {
            inner: SimEnv::new(app),
            steps: 0,
            after: 60,
            swap: 18,
        };
        let mut agent: Box<dyn Agent + Send> =
            by_name(strategy, &wayfarer_core::Config::default(), Box::new(Valid)).unwrap();
        let mut abs = TagSeqAbstraction::default();
        let opts = RunOptions::new(Budget::actions(1500), 100, 4);
        let mut watch = Watch::default();
        let summary = run(&mut env, agent.as_mut(), &mut abs, &opts, &mut [&mut watch]).unwrap();
        assert_eq!(summary.steps, 1500, "{strategy}");
        let snap = watch.last.expect("a snapshot");
        assert!(
            counter(&snap, "broken replays") >= 1,
            "{strategy}: {:?}",
            snap.counters
        );
        // Regression: a crawl route that ended in the wrong state was planned again and
        // again, spending the whole budget on replays.
        let replayed = counter(&snap, "replayed steps");
        assert!(
            replayed < 750,
            "{strategy} replayed {replayed} of 1500 steps"
        );
        // Broken steps are not retried without end: few steps fail on a missing target.
        assert!(
            watch.errors < 30,
            "{strategy}: {} failed steps",
            watch.errors
        );
        let pages = env.inner.visited.iter().filter(|v| **v).count();
        assert_eq!(pages, 14, "{strategy} reached {pages} of 14 pages");
    }
}
