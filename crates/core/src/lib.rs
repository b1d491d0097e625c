//! wayfarer-core: the model every other crate points to.
//!
//! It holds the data (`model`), the two seams of the system (`Environment` for what is
//! explored, `Agent` for who explores), the exploration loop with its observers, the
//! oracles that turn events into deduplicated failures, and a simulated web application
//! for fast tests. Nothing here knows about CDP or a browser.

pub mod config;
pub mod env;
pub mod grammar;
pub mod infer;
pub mod model;

pub use config::Config;
pub use env::{
    AppUnderTest, Coverage, EnvError, EnvTimings, Environment, Outcome, PageNames, Performed,
    Probe, ScriptReach, TargetName, TestId, TreeName, WithApp, TEST_ID_ATTRS,
};
pub use model::{Action, ActionKind, AppProbe, Element, Event, EventKind, Observation, Rect, Size};
pub mod agent;
pub mod budget;
pub mod candidates;
pub mod check;
pub mod ddmin;
pub mod embed;
pub mod files;
pub mod findings;
pub mod forms;
pub mod input;
pub mod keys;
pub mod llm;
pub mod minimize;
pub mod novelty;
pub mod observer;
pub mod oracle;
pub mod pattern;
pub mod record;
pub mod replay;
pub mod runner;
pub mod secrets;
pub mod server;
pub mod shortcut;
pub mod signature;
pub mod similarity;
pub mod spec_action;
pub mod state;
pub mod summary;
pub mod tagseq;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod trace;

pub use agent::{Agent, SnapshotTable, StrategySnapshot, Transition, View};
pub use budget::Budget;
pub use novelty::{Novelty, NoveltyTracker};
pub use observer::{Observer, Progress};
pub use oracle::{Failure, FailureKind, Oracles, Warning};
pub use record::ResetRecord;
pub use record::{StepRecord, StepTimings};
pub use runner::{run, run_workers, AutoWorkers, RunOptions, WorkerEnv};
pub use state::{Abstraction, Analysis, StateId};
pub use summary::{RunSummary, WorkerLine};
pub use trace::{Trace, TraceStep};
pub mod sim;
