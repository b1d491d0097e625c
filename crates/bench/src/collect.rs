//! The bench's observer: what a strategy run looked like over its steps (the series the
//! plots need), the application's action log per episode (for feature coverage) and
//! the screens it reached, next to the run store.

use std::collections::BTreeSet;
use std::time::Duration;

use wayfarer_core::{Action, Observer, Progress, ResetRecord, StepRecord};

use crate::series::SeriesPoint;

#[derive(Debug, Default)]
pub struct Collector {
    pub series: Vec<SeriesPoint>,
    /// One action-id log per episode (each episode is one trace from a reset), at index
    /// `episode - 1`: the steps of several workers arrive interleaved.
    pub episode_logs: Vec<Vec<String>>,
    /// `data-wf-state` values seen after resets and steps.
    pub screens: BTreeSet<String>,
    /// Every action in order (the deviation between runs compares them).
    pub actions: Vec<Action>,
    /// Time in scan, analysis and validation over the run.
    pub scan_analysis: Duration,
}

impl Collector {
    fn point(&mut self, p: &Progress) {
        self.series.push(SeriesPoint {
            step: p.steps,
            elapsed_ms: p.elapsed.as_millis() as u64,
            states: p.states,
            js_coverage: p.coverage.map(|c| c.ratio()).unwrap_or(0.0),
            failures: p.failures,
        });
    }

    /// The log of `episode` (1-based), made with those before it when missing.
    fn log_of(&mut self, episode: u64) -> &mut Vec<String> {
        let i = episode.saturating_sub(1) as usize;
        if self.episode_logs.len() <= i {
            self.episode_logs.resize_with(i + 1, Vec::new);
        }
        &mut self.episode_logs[i]
    }

    /// The distinct action ids the application logged over the run.
    pub fn action_ids(&self) -> BTreeSet<&str> {
        self.episode_logs
            .iter()
            .flatten()
            .map(String::as_str)
            .collect()
    }
}

impl Observer for Collector {
    fn on_reset(&mut self, record: &ResetRecord, progress: &Progress) {
        self.log_of(record.episode);
        if let Some(s) = &record.app_state {
            self.screens.insert(s.clone());
        }
        self.point(progress);
    }

    fn on_step(&mut self, record: &StepRecord, progress: &Progress) {
        self.actions.push(record.action.clone());
        let t = &record.timings;
        self.scan_analysis += t.scan + t.analysis + t.validate;
        self.log_of(record.episode)
            .extend(record.app_actions.iter().cloned());
        if let Some(s) = &record.app_state {
            self.screens.insert(s.clone());
        }
        self.point(progress);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_core::{Action, ActionKind, StateId};

    fn step(n: u64, episode: u64, ids: &[&str], state: &str) -> StepRecord {
        StepRecord {
            step: n,
            episode,
            worker: 0,
            episode_step: n as u32,
            action: Action::on(ActionKind::Click, "#x"),
            target: None,
            state_before: StateId(0),
            state_after: StateId(1),
            url_after: String::new(),
            title_after: String::new(),
            element: None,
            new_state: false,
            events: vec![],
            timings: Default::default(),
            error: None,
            findings: vec![],
            app_actions: ids.iter().map(|s| s.to_string()).collect(),
            app_state: Some(state.into()),
            decision: None,
            form: None,
            inference: None,
            novelty: Default::default(),
        }
    }

    fn reset(episode: u64) -> ResetRecord {
        ResetRecord {
            episode,
            worker: 0,
            after_step: 0,
            state: StateId(0),
            url: String::new(),
            title: String::new(),
            events: vec![],
            findings: vec![],
            app_state: Some("start".into()),
        }
    }

    #[test]
    fn episodes_get_their_own_logs() {
        let mut c = Collector::default();
        let p = Progress::default();
        c.on_reset(&reset(1), &p);
        c.on_step(&step(1, 1, &["a.x", "a.y"], "one"), &p);
        c.on_step(&step(2, 1, &[], "two"), &p);
        c.on_reset(&reset(2), &p);
        c.on_step(&step(3, 2, &["a.z"], "one"), &p);
        // Another worker's episode 1 goes on while episode 2 runs: its steps stay in its log.
        c.on_step(&step(4, 1, &["a.w"], "one"), &p);
        assert_eq!(
            c.episode_logs,
            vec![
                vec!["a.x".to_string(), "a.y".into(), "a.w".into()],
                vec!["a.z".into()]
            ]
        );
        assert_eq!(c.screens.len(), 3);
        assert_eq!(c.series.len(), 6);
        assert_eq!(c.action_ids().len(), 4);
    }
}
