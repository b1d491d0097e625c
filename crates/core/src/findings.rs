//! A unique failure after the run: the minimal trace shrinking left of it, whether the
//! replays that confirm it raised it every time, and whether a baseline run knew it.
//! The summary carries these, so the terminal, report.json, JUnit, the HTML report and
//! the CI outputs all say the same thing.

use serde::{Deserialize, Serialize};

/// What the confirming replays of a failure's (minimal) trace said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reproduced {
    /// Raised on every replay.
    Confirmed,
    /// Raised on some replays, not all.
    Flaky,
    /// Raised on none: the run saw it, its replays never did.
    NotReproduced,
}

impl Reproduced {
    pub fn of(hits: u32, runs: u32) -> Option<Reproduced> {
        match (hits, runs) {
            (_, 0) => None,
            (h, r) if h >= r => Some(Reproduced::Confirmed),
            (0, _) => Some(Reproduced::NotReproduced),
            _ => Some(Reproduced::Flaky),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Reproduced::Confirmed => "confirmed",
            Reproduced::Flaky => "flaky",
            Reproduced::NotReproduced => "not reproduced",
        }
    }
}

/// A reported failure's verdict, for every failure: what its confirming replays said,
/// or that none was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Raised on every confirming replay.
    Confirmed,
    /// Raised on some.
    Flaky,
    /// Raised on none.
    NotReproduced,
    /// Never replayed (shrinking off, out of time, or the run stopped).
    Unconfirmed,
}

impl Verdict {
    /// Where it ranks in a report: the confirmed first, the never replayed last.
    pub fn rank(self) -> u8 {
        match self {
            Verdict::Confirmed => 0,
            Verdict::Flaky => 1,
            Verdict::NotReproduced => 2,
            Verdict::Unconfirmed => 3,
        }
    }

    /// Of a failure's shrinking result (`None`: never shrunk).
    pub fn of(shrunk: Option<&Shrunk>) -> Verdict {
        match shrunk.and_then(Shrunk::verdict) {
            Some(Reproduced::Confirmed) => Verdict::Confirmed,
            Some(Reproduced::Flaky) => Verdict::Flaky,
            Some(Reproduced::NotReproduced) => Verdict::NotReproduced,
            None => Verdict::Unconfirmed,
        }
    }

    /// "reproduced 3/3", "flaky 1/3", "not reproduced 0/3" (as `Shrunk::verdict_text`),
    /// or "unconfirmed (never replayed)".
    pub fn text(self, shrunk: Option<&Shrunk>) -> String {
        match shrunk.map(Shrunk::verdict_text).filter(|t| !t.is_empty()) {
            Some(t) if self != Verdict::Unconfirmed => t,
            _ => "unconfirmed (never replayed)".into(),
        }
    }
}

/// What shrinking and confirming did to one unique failure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shrunk {
    /// The minimal trace's steps, in order: an index below `of` is a step of the
    /// failure's trace, `of + i` is `via[i]`.
    pub kept: Vec<usize>,
    /// The length of the failure's trace.
    pub of: usize,
    /// Steps the run took elsewhere that the minimal trace uses: a shorter way to where
    /// the failure happened, from the run's state graph (`shortcut`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<crate::trace::TraceStep>,
    /// Replays spent shrinking (the confirming ones not counted).
    pub replays: u32,
    /// False when its share of the shrink budget ran out first: `kept` is then the
    /// shortest trace seen to fail so far, not a 1-minimal one.
    pub finished: bool,
    /// Set when a replay showed the failure needs state a reset does not undo; the trace
    /// is then not shrunk (see `minimize::outside_state_warning`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_state: Option<String>,
    /// Confirming replays of the kept steps that raised the failure, of `runs`.
    pub hits: u32,
    pub runs: u32,
    /// Wall seconds spent on this failure (shrinking and confirming).
    pub seconds: f64,
    /// Why the failure was not shrunk or not confirmed, when it was not (no time left,
    /// its replay could not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Shrunk {
    pub fn verdict(&self) -> Option<Reproduced> {
        Reproduced::of(self.hits, self.runs)
    }

    /// "reproduced 3/3", "flaky 1/3", "not reproduced 0/3"; empty when never replayed.
    pub fn verdict_text(&self) -> String {
        match self.verdict() {
            None => String::new(),
            Some(Reproduced::Confirmed) => format!("reproduced {}/{}", self.hits, self.runs),
            Some(v) => format!("{} {}/{}", v.as_str(), self.hits, self.runs),
        }
    }

    /// Whether the kept steps are fewer than the trace's.
    pub fn shortened(&self) -> bool {
        self.kept.len() < self.of
    }

    /// The minimal trace's steps, given the failure's recorded `trace`; `None` when
    /// `trace` is not the one shrunk (another length) or an index points nowhere.
    pub fn steps(&self, trace: &[crate::trace::TraceStep]) -> Option<Vec<crate::trace::TraceStep>> {
        if trace.len() != self.of {
            return None;
        }
        self.kept
            .iter()
            .map(|&k| {
                if k < self.of {
                    trace.get(k).cloned()
                } else {
                    self.via.get(k - self.of).cloned()
                }
            })
            .collect()
    }
}

/// A failure seen against a baseline run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewOrKnown {
    /// Not among the baseline's failures.
    New,
    /// The baseline had it too.
    Known,
}

/// The shrinking phase of a run, as a whole.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ShrinkSummary {
    /// The time it was given, in seconds.
    pub budget_s: f64,
    /// The time it added after the exploration (apart from the exploration's `duration_s`).
    pub seconds: f64,
    /// Browser time it took while the run explored (browsers handed over, idle ones too).
    #[serde(default)]
    pub during_run_s: f64,
    /// The browsers it could use.
    #[serde(default)]
    pub browsers: usize,
    /// Confirming replays per failure.
    pub confirm_runs: u32,
    /// Failures it did not reach before its budget ran out.
    pub skipped: usize,
    /// Why it could not run at all (no browser), when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The run's failures against a baseline run's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BaselineSummary {
    /// The baseline as given (a report.json or a run directory).
    pub from: String,
    pub new: usize,
    pub known: usize,
    /// The baseline's failures this run did not raise.
    pub gone: Vec<crate::summary::FailureLine>,
}

/// `--fail-on`: which failures make the run's exit code 1. Conditions joined by commas
/// must all hold (`new,confirmed`: new and confirmed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FailOn {
    /// Only failures a baseline did not have.
    pub new: bool,
    /// Only failures at least this sure (`flaky`: raised on a replay at least once;
    /// `confirmed`: on every one).
    pub at_least: Option<Reproduced>,
}

impl FailOn {
    /// Whether `line` makes the run fail.
    pub fn fails(&self, line: &crate::summary::FailureLine) -> bool {
        if self.new && line.baseline == Some(NewOrKnown::Known) {
            return false;
        }
        let verdict = line.shrunk.as_ref().and_then(Shrunk::verdict);
        match (self.at_least, verdict) {
            (None, _) => true,
            // Never replayed (shrinking off or out of time): nothing says it is not real.
            (Some(_), None) => true,
            (Some(Reproduced::Confirmed), Some(v)) => v == Reproduced::Confirmed,
            (Some(_), Some(v)) => v != Reproduced::NotReproduced,
        }
    }
}

impl std::str::FromStr for FailOn {
    type Err = String;

    fn from_str(s: &str) -> Result<FailOn, String> {
        let mut out = FailOn::default();
        for part in s.split(',').map(str::trim) {
            match part {
                "any" => {}
                "new" => out.new = true,
                "confirmed" => out.at_least = Some(Reproduced::Confirmed),
                "flaky" => {
                    out.at_least.get_or_insert(Reproduced::Flaky);
                }
                other => {
                    return Err(format!(
                        "--fail-on: {other:?} is not one of any, new, confirmed, flaky (join with commas: new,confirmed)"
                    ))
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::FailureLine;

    #[test]
    fn fail_on_filters_by_baseline_and_verdict() {
        let line = |hits, baseline| FailureLine {
            shrunk: Some(Shrunk {
                hits,
                runs: 3,
                ..Shrunk::default()
            }),
            baseline,
            ..FailureLine::default()
        };
        let any: FailOn = "any".parse().unwrap();
        let new: FailOn = "new".parse().unwrap();
        let confirmed: FailOn = "confirmed".parse().unwrap();
        let flaky: FailOn = "flaky".parse().unwrap();
        let both: FailOn = "new,confirmed".parse().unwrap();
        assert!(any.fails(&line(0, Some(NewOrKnown::Known))));
        assert!(!new.fails(&line(3, Some(NewOrKnown::Known))));
        assert!(new.fails(&line(3, Some(NewOrKnown::New))));
        assert!(confirmed.fails(&line(3, None)));
        assert!(!confirmed.fails(&line(2, None)));
        assert!(flaky.fails(&line(1, None)));
        assert!(!flaky.fails(&line(0, None)));
        assert!(!both.fails(&line(2, Some(NewOrKnown::New))));
        assert!(both.fails(&line(3, Some(NewOrKnown::New))));
        // Not replayed at all: counted, a verdict cannot clear it.
        assert!(confirmed.fails(&FailureLine::default()));
        assert!("sometimes"
            .parse::<FailOn>()
            .unwrap_err()
            .contains("any, new"));
    }

    #[test]
    fn verdicts_from_hits() {
        assert_eq!(Reproduced::of(3, 3), Some(Reproduced::Confirmed));
        assert_eq!(Reproduced::of(1, 3), Some(Reproduced::Flaky));
        assert_eq!(Reproduced::of(0, 3), Some(Reproduced::NotReproduced));
        assert_eq!(Reproduced::of(0, 0), None);
        let s = Shrunk {
            hits: 1,
            runs: 3,
            ..Shrunk::default()
        };
        assert_eq!(s.verdict_text(), "flaky 1/3");
        let s = Shrunk {
            hits: 3,
            runs: 3,
            ..Shrunk::default()
        };
        assert_eq!(s.verdict_text(), "reproduced 3/3");
        assert_eq!(Shrunk::default().verdict_text(), "");
    }
}
