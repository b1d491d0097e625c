//! What the loop records of each step: the action, the states, the events and where the
//! time went (scan / analysis / decide / act / wait).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::model::{Action, Event};
use crate::state::StateId;
use crate::trace::ElementHint;

/// Where one step's time went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepTimings {
    pub scan: Duration,
    pub analysis: Duration,
    pub decide: Duration,
    pub act: Duration,
    pub wait: Duration,
    /// State inference: trying guessed states against the live page (copies of the
    /// agent, cheap queries); zero when inference is off or had nothing to try.
    #[serde(default)]
    pub validate: Duration,
    /// Taking JS coverage (measurement overhead, outside the scan).
    #[serde(default)]
    pub coverage: Duration,
    /// Judging the step's events into failures (oracles, and the screenshot of a new one).
    #[serde(default)]
    pub judge: Duration,
    /// The strategy learning from the step, and state inference's bookkeeping.
    #[serde(default)]
    pub learn: Duration,
    /// Reading the target's role and name from the browser's accessibility tree.
    #[serde(default)]
    pub name: Duration,
    /// Checking the specification's properties (`--spec`).
    #[serde(default)]
    pub spec: Duration,
    /// The strategy training its networks at the end of the episode before this step
    /// (webrled), counted with the episode's first step.
    #[serde(default)]
    pub train: Duration,
    /// Asking the language model (and taking the screenshot for it) while deciding.
    #[serde(default)]
    pub llm: Duration,
    /// Reading the server's coverage after the step (`[server] coverage`).
    #[serde(default)]
    pub server: Duration,
    /// The whole step, wall clock; what the parts above do not account for is `other()`.
    pub total: Duration,
}

impl StepTimings {
    /// The named parts, in display order (the time split of reports and the bench).
    pub fn parts(&self) -> [(&'static str, Duration); 14] {
        [
            ("scan", self.scan),
            ("analysis", self.analysis),
            ("decide", self.decide),
            ("act", self.act),
            ("wait", self.wait),
            ("validate", self.validate),
            ("coverage", self.coverage),
            ("judge", self.judge),
            ("learn", self.learn),
            ("name", self.name),
            ("spec", self.spec),
            ("train", self.train),
            ("llm", self.llm),
            ("server", self.server),
        ]
    }

    /// The time of the step no part accounts for (the loop's own bookkeeping).
    pub fn other(&self) -> Duration {
        let named: Duration = self.parts().iter().map(|p| p.1).sum();
        self.total.saturating_sub(named)
    }
}

/// One step of the run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StepRecord {
    /// 1-based over the whole run.
    pub step: u64,
    /// 1-based over the whole run (every worker's episodes are numbered in one sequence).
    pub episode: u64,
    /// The worker that took the step (0-based; 0 in a run with one worker).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub worker: u32,
    pub episode_step: u32,
    pub action: Action,
    /// A short human description of the target ("button \"Save\"").
    pub target: Option<String>,
    pub state_before: StateId,
    pub state_after: StateId,
    pub url_after: String,
    #[serde(default)]
    pub title_after: String,
    /// How the target looked before the action, for reports and generated tests.
    #[serde(default)]
    pub element: Option<ElementHint>,
    pub new_state: bool,
    pub events: Vec<Event>,
    pub timings: StepTimings,
    /// The action could not be performed (element gone, step error); the message says why.
    pub error: Option<String>,
    /// Signatures of the failures this step raised (new or seen before).
    #[serde(default)]
    pub findings: Vec<String>,
    /// The action ids an instrumented application logged during this step
    /// (`AppProbe`); empty for other applications.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub app_actions: Vec<String>,
    /// The application's own name for the screen after the step (`data-wf-state`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_state: Option<String>,
    /// Why the strategy chose this action ("explore", "replay 2/5 to s7"), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// How the form this step submitted fared (form acceptance), when it submitted one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<crate::forms::Verdict>,
    /// How the step used state inference, when it is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference: Option<StepInference>,
    /// What the step caused for the first time in the run (scripts, endpoints, pages,
    /// functions): "what this action opened".
    #[serde(default, skip_serializing_if = "crate::novelty::Novelty::is_empty")]
    pub novelty: crate::novelty::Novelty,
}

/// A reset: the start of an episode.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ResetRecord {
    /// 1-based over the whole run.
    pub episode: u64,
    /// The worker that reset (0-based).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub worker: u32,
    /// Steps taken before this reset.
    pub after_step: u64,
    pub state: StateId,
    pub url: String,
    pub title: String,
    pub events: Vec<Event>,
    /// Signatures of the failures the reset raised.
    pub findings: Vec<String>,
    /// The application's own name for the start screen (`data-wf-state`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_state: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// How a step used the knowledge base, recorded with the step.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepInference {
    /// Candidates the knowledge base offered for the interaction.
    pub candidates: u32,
    /// 1-based index of the candidate accepted; none means the page was scanned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<u32>,
    /// The interaction is marked non-deterministic: scanned without asking.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nondeterministic: bool,
}
