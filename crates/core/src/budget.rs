//! Run budgets: a number of actions, a wall time, or both (whichever ends first).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    pub actions: Option<u64>,
    pub time: Option<Duration>,
}

impl Budget {
    pub fn actions(n: u64) -> Budget {
        Budget {
            actions: Some(n),
            time: None,
        }
    }

    pub fn exhausted(&self, steps: u64, elapsed: Duration) -> bool {
        self.actions.is_some_and(|n| steps >= n) || self.time.is_some_and(|t| elapsed >= t)
    }

    /// Share used, 0 to 1 (the larger of the two when both are set).
    pub fn used(&self, steps: u64, elapsed: Duration) -> f64 {
        let a = self.actions.map(|n| steps as f64 / n.max(1) as f64);
        let t = self
            .time
            .map(|t| elapsed.as_secs_f64() / t.as_secs_f64().max(1e-9));
        a.into_iter().chain(t).fold(0.0, f64::max).min(1.0)
    }
}

/// A budget string that is neither a count nor a duration.
#[derive(Debug, thiserror::Error)]
#[error("invalid budget {0:?}: give a number of actions (300), a duration (90s, 2m, 1h), or both (300,2m)")]
pub struct BadBudget(String);

impl FromStr for Budget {
    type Err = BadBudget;

    fn from_str(s: &str) -> Result<Budget, BadBudget> {
        let bad = || BadBudget(s.to_string());
        let mut b = Budget::default();
        for part in s.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(bad());
            }
            if let Ok(n) = part.parse::<u64>() {
                if n == 0 || b.actions.is_some() {
                    return Err(bad());
                }
                b.actions = Some(n);
                continue;
            }
            let split = part.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
            let (num, unit) = part.split_at(split);
            let n: u64 = num.parse().map_err(|_| bad())?;
            // Checked: minutes or hours past u64 seconds are a bad budget, not an overflow.
            let d = match unit {
                "ms" => Some(Duration::from_millis(n)),
                "s" => Some(Duration::from_secs(n)),
                "m" | "min" => n.checked_mul(60).map(Duration::from_secs),
                "h" => n.checked_mul(3600).map(Duration::from_secs),
                _ => None,
            }
            .ok_or_else(bad)?;
            if d.is_zero() || b.time.is_some() {
                return Err(bad());
            }
            b.time = Some(d);
        }
        Ok(b)
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.actions, self.time) {
            (Some(a), Some(t)) => write!(f, "{a} actions or {}s", t.as_secs()),
            (Some(a), None) => write!(f, "{a} actions"),
            (None, Some(t)) => write!(f, "{}s", t.as_secs_f64()),
            (None, None) => write!(f, "unlimited"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_counts_durations_and_both() {
        assert_eq!("300".parse::<Budget>().unwrap(), Budget::actions(300));
        assert_eq!(
            "2m".parse::<Budget>().unwrap().time,
            Some(Duration::from_secs(120))
        );
        let both: Budget = "50, 90s".parse().unwrap();
        assert_eq!(both.actions, Some(50));
        assert_eq!(both.time, Some(Duration::from_secs(90)));
        for bad in [
            "",
            "0",
            "2x",
            "m",
            "1,2",
            "-3",
            "-5s",
            "1m,2m",
            "307445734561825861m",
            "5124095576030432h",
            "99999999999999999999s",
        ] {
            assert!(bad.parse::<Budget>().is_err(), "{bad}");
        }
    }

    #[test]
    fn exhaustion_is_whichever_first() {
        let b: Budget = "10,1s".parse().unwrap();
        assert!(!b.exhausted(9, Duration::from_millis(10)));
        assert!(b.exhausted(10, Duration::ZERO));
        assert!(b.exhausted(1, Duration::from_secs(2)));
        assert_eq!(b.used(5, Duration::from_millis(100)), 0.5);
    }
}
