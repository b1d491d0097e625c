//! `--workers auto`: how many of the run's browsers explore, chosen by measurement. The
//! first worker explores alone for its first `probe_steps` steps while the others wait
//! at the gate; then the share of the machine's CPU the run kept busy decides: a run that
//! leaves the cores idle while it waits on the application (a slow server) gains from
//! more browsers, one that keeps them busy (a fast application on two cores) only splits
//! them. Where the machine's CPU time cannot be read (not Linux), the share of the
//! probe's step time spent waiting on the page stands in for the idle share.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// What `--workers auto` measures before it decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoWorkers {
    /// Steps the first worker takes alone.
    pub probe_steps: u64,
}

impl Default for AutoWorkers {
    fn default() -> Self {
        AutoWorkers { probe_steps: 20 }
    }
}

/// How far the browsers may ask beyond the machine's CPU: on Redmine and Datasette (2
/// cores, one browser at 45-48% busy) two browsers made 1.45-2.03x the steps, so one at
/// 52-56% (three runs of twelve that `floor(1 / busy)` kept alone) should take two.
const OVERCOMMIT: f64 = 1.15;

/// The browsers worth running when one kept `busy` (0..=1) of the machine's CPU busy:
/// as many as fill it with a little to spare, `floor(1.15 / busy)`, between 1 and `max`.
pub fn workers_for(busy: f64, max: usize) -> usize {
    let max = max.max(1);
    if !busy.is_finite() || busy <= 0.0 {
        return max;
    }
    ((OVERCOMMIT / busy).floor() as usize).clamp(1, max)
}

/// The machine's CPU time so far from /proc/stat: (busy, total) in clock ticks.
pub fn cpu_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    parse_cpu_line(stat.lines().next()?)
}

/// `cpu  user nice system idle iowait irq softirq steal ...`: idle and iowait are idle.
fn parse_cpu_line(line: &str) -> Option<(u64, u64)> {
    let mut fields = line.split_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let v: Vec<u64> = fields
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if v.len() < 5 {
        return None;
    }
    let total: u64 = v.iter().sum();
    Some((total - v[3] - v[4], total))
}

#[derive(Debug)]
enum State {
    /// Probing since these CPU ticks (none where they cannot be read).
    Probing(Option<(u64, u64)>),
    Decided {
        workers: usize,
    },
}

/// Where the other workers wait while the first one probes.
pub(super) struct Gate {
    state: Mutex<State>,
    opened: Condvar,
    /// Workers the run has: the most auto may choose.
    max: usize,
}

impl Gate {
    /// A gate that lets everyone through at once (workers chosen by the user).
    pub fn open(max: usize) -> Gate {
        Gate {
            state: Mutex::new(State::Decided { workers: max }),
            opened: Condvar::new(),
            max,
        }
    }

    /// A gate closed until the first worker's probe decides.
    pub fn probing(max: usize) -> Gate {
        Gate {
            state: Mutex::new(State::Probing(cpu_ticks())),
            opened: Condvar::new(),
            max,
        }
    }

    pub fn is_probing(&self) -> bool {
        matches!(*self.lock(), State::Probing(_))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Decide from the probe: the machine's busy share since it began, else `1 -
    /// waiting` (the probe's share of step time spent waiting on the page). Returns the
    /// workers chosen and why, or `None` when it was decided already.
    pub fn decide(&self, waiting: f64, steps: u64) -> Option<(usize, String)> {
        let mut state = self.lock();
        let State::Probing(start) = *state else {
            return None;
        };
        let measured = start.zip(cpu_ticks()).and_then(|((b0, t0), (b1, t1))| {
            (t1 > t0).then(|| (b1.saturating_sub(b0)) as f64 / (t1 - t0) as f64)
        });
        let (busy, what) = match measured {
            Some(b) => (b, "of the machine's CPU busy"),
            None => (1.0 - waiting, "of its step time not waiting on the page"),
        };
        let workers = workers_for(busy, self.max);
        *state = State::Decided { workers };
        self.opened.notify_all();
        let why = format!(
            "{workers} of {} browsers: one kept {:.0}% {what} over its first {steps} steps",
            self.max,
            busy * 100.0
        );
        Some((workers, why))
    }

    /// The probe ended before it could measure (the run or the first worker stopped):
    /// the first worker stays alone.
    pub fn close(&self) {
        let mut state = self.lock();
        if matches!(*state, State::Probing(_)) {
            *state = State::Decided { workers: 1 };
            self.opened.notify_all();
        }
    }

    /// Wait until the gate is decided, or `stop()` says the run is over; whether worker
    /// `id` explores.
    pub fn admits(&self, id: u32, stop: impl Fn() -> bool) -> bool {
        let mut state = self.lock();
        loop {
            if let State::Decided { workers } = *state {
                return (id as usize) < workers;
            }
            if stop() {
                return false;
            }
            state = self
                .opened
                .wait_timeout(state, Duration::from_millis(200))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_many_browsers_as_fill_the_machine() {
        assert_eq!(workers_for(0.9, 3), 1);
        assert_eq!(workers_for(0.6, 3), 1);
        assert_eq!(workers_for(0.56, 3), 2);
        assert_eq!(workers_for(0.5, 3), 2);
        assert_eq!(workers_for(0.39, 3), 2);
        assert_eq!(workers_for(0.38, 3), 3);
        assert_eq!(workers_for(0.3, 3), 3);
        assert_eq!(workers_for(0.1, 3), 3);
        assert_eq!(workers_for(0.0, 3), 3);
        assert_eq!(workers_for(f64::NAN, 2), 2);
        assert_eq!(workers_for(0.2, 0), 1);
    }

    #[test]
    fn the_cpu_line_counts_idle_and_iowait_as_idle() {
        assert_eq!(
            parse_cpu_line("cpu  100 5 20 800 50 1 2 3 0 0"),
            Some((131, 981))
        );
        assert_eq!(parse_cpu_line("cpu0 1 2 3 4 5"), None);
        assert_eq!(parse_cpu_line("cpu  x 2 3 4 5"), None);
    }

    #[test]
    fn waiting_workers_go_once_the_probe_decides() {
        let gate = Gate::probing(3);
        assert!(gate.is_probing());
        std::thread::scope(|s| {
            let waiter = s.spawn(|| gate.admits(2, || false));
            std::thread::sleep(Duration::from_millis(50));
            let (n, why) = gate.decide(0.95, 20).unwrap();
            assert!(why.contains("over its first 20 steps"), "{why}");
            assert_eq!(waiter.join().unwrap(), n >= 3);
        });
        assert!(gate.decide(0.5, 30).is_none(), "decided once");
        assert!(gate.admits(0, || false));
    }

    #[test]
    fn a_closed_probe_keeps_the_first_worker_alone() {
        let gate = Gate::probing(3);
        gate.close();
        assert!(gate.admits(0, || false));
        assert!(!gate.admits(1, || false));
        // A run that stops while the probe is on lets no one wait forever.
        let gate = Gate::probing(3);
        assert!(!gate.admits(1, || true));
        assert!(Gate::open(2).admits(1, || false));
    }
}
