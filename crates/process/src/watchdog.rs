//! Nothing wayfarer starts outlives it: a tiny supervisor process per browser and per
//! application server.
//!
//! chromiumoxide starts Chromium itself, so no parent-death signal can be set on it, and a
//! wayfarer killed by SIGKILL (or by `| head`) runs no destructor. The watchdog is a
//! `/bin/sh` that waits on a pipe only wayfarer holds: the kernel closes it whatever way
//! wayfarer ends. Told "done", the watchdog leaves quietly (wayfarer stopped what it
//! watches politely); at end-of-file it ends what it watches: a browser (every process
//! started with its profile directory, then the profile is removed) or a process group (a
//! server: SIGTERM so it can clean up, then SIGKILL).

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Runs in `sh`: what to kill comes by environment, not argv, so the watchdog's own
/// command line never matches the pattern it kills by.
const SCRIPT: &str = r#"
trap '' INT TERM HUP QUIT PIPE
while read -r word; do
  [ "$word" = done ] && exit 0
done
if [ -n "$WAYFARER_PGID" ]; then
  # dash's kill takes no `--`: a negative number after the signal is the group.
  kill -TERM "-$WAYFARER_PGID" 2>/dev/null
  i=0
  while [ "$i" -lt "$WAYFARER_GRACE_TENTHS" ] && kill -0 "-$WAYFARER_PGID" 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
  done
  kill -KILL "-$WAYFARER_PGID" 2>/dev/null
fi
if [ -n "$WAYFARER_PROFILE" ]; then
  kill_browser() {
    for p in /proc/[0-9]*; do
      n=${p#/proc/}
      [ "$n" = "$$" ] && continue
      if grep -qaF -e "--user-data-dir=$WAYFARER_PROFILE" "$p/cmdline" 2>/dev/null; then
        kill -KILL "$n" 2>/dev/null
      fi
    done
  }
  kill_browser
  sleep 1
  kill_browser
  rm -rf "$WAYFARER_PROFILE"
fi
"#;

/// The watchdog of one browser or one server.
pub struct Watchdog {
    child: Child,
}

impl Watchdog {
    /// Start watching the browser that will run with `profile` as its user data directory.
    /// None (with a warning) where no shell can be started: the run goes on unguarded.
    pub fn for_profile(profile: &Path) -> Option<Watchdog> {
        Self::spawn(&[("WAYFARER_PROFILE", profile.as_os_str())])
    }

    /// Start watching the process group `pgid` (a server started as its leader): ended with
    /// SIGTERM, then SIGKILL after `grace`, if wayfarer dies first.
    pub fn for_group(pgid: u32, grace: std::time::Duration) -> Option<Watchdog> {
        let pgid = pgid.to_string();
        let tenths = (grace.as_millis() / 100).max(1).to_string();
        Self::spawn(&[
            ("WAYFARER_PGID", pgid.as_ref()),
            ("WAYFARER_GRACE_TENTHS", tenths.as_ref()),
        ])
    }

    fn spawn(env: &[(&str, &std::ffi::OsStr)]) -> Option<Watchdog> {
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(SCRIPT)
            .arg("wayfarer-watchdog")
            .env_remove("WAYFARER_PROFILE")
            .env_remove("WAYFARER_PGID")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group: a Ctrl-C at the terminal reaches wayfarer, not it.
            .process_group(0);
        for (k, v) in env {
            cmd.env(k, v);
        }
        match cmd.spawn() {
            Ok(child) => Some(Watchdog { child }),
            Err(e) => {
                tracing::warn!(%e, "no watchdog: a process may outlive a killed wayfarer");
                None
            }
        }
    }

    /// The watchdog's pid (tests check it is gone).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What it watches was stopped by wayfarer: the watchdog leaves without killing.
    pub fn dismiss(mut self) {
        if let Some(mut stdin) = self.child.stdin.take() {
            let _ = stdin.write_all(b"done\n");
        }
        let _ = self.child.wait();
    }
}

impl Drop for Watchdog {
    // Dropped without `dismiss` (a panic unwinding past the browser): closing the pipe
    // makes the watchdog kill what it watches, which is what should happen to it then.
    fn drop(&mut self) {
        drop(self.child.stdin.take());
    }
}

/// Whether process `pid` runs (a zombie has exited: nobody waited for it yet).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            // The state follows the parenthesised command name.
            let state = s.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn wait_gone(pid: u32, within: Duration) -> bool {
        let t = Instant::now();
        while t.elapsed() < within {
            if !alive(pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        !alive(pid)
    }

    /// A stand-in browser: a shell waiting on a pipe (no child of its own), its command
    /// line naming the profile directory.
    fn fake_browser(profile: &Path) -> Child {
        Command::new("/bin/sh")
            .arg("-c")
            .arg("read x")
            .arg(format!("--user-data-dir={}", profile.display()))
            .stdin(Stdio::piped())
            .spawn()
            .unwrap()
    }

    #[test]
    fn closing_the_pipe_kills_the_browser_and_removes_its_profile() {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("profile");
        std::fs::create_dir(&profile).unwrap();
        let dog = Watchdog::for_profile(&profile).unwrap();
        let mut browser = fake_browser(&profile);
        // Another process, not of this browser, must survive.
        let mut other = fake_browser(&dir.path().join("other"));
        drop(dog);
        let _ = browser.wait();
        assert!(wait_gone(browser.id(), Duration::from_secs(5)));
        let t = Instant::now();
        while profile.exists() && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!profile.exists(), "the profile is removed");
        assert!(
            alive(other.id()),
            "only this browser's processes are killed"
        );
        other.kill().unwrap();
        let _ = other.wait();
    }

    #[test]
    fn a_dismissed_watchdog_leaves_the_browser_alone() {
        let dir = tempfile::tempdir().unwrap();
        let dog = Watchdog::for_profile(dir.path()).unwrap();
        let pid = dog.pid();
        let mut browser = fake_browser(dir.path());
        dog.dismiss();
        assert!(!alive(pid), "the watchdog has exited");
        std::thread::sleep(Duration::from_millis(300));
        assert!(alive(browser.id()));
        assert!(dir.path().exists());
        browser.kill().unwrap();
        let _ = browser.wait();
    }

    #[test]
    fn closing_the_pipe_ends_the_whole_group_with_term_first() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("termed");
        // A leader that cleans up on SIGTERM (as a server's start script does) and a
        // child of its own in the same group.
        let mut leader = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!(
                "trap 'touch {}; exit 0' TERM; sleep 300 & wait",
                marker.display()
            ))
            .process_group(0)
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let dog = Watchdog::for_group(leader.id(), Duration::from_secs(2)).unwrap();
        drop(dog);
        let _ = leader.wait();
        assert!(wait_gone(leader.id(), Duration::from_secs(5)));
        assert!(marker.exists(), "SIGTERM came first");
        // The sleep of the group is gone too: no process is left with the leader's pgid.
        let t = Instant::now();
        let group_left = || {
            std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
                let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                let fields: Vec<&str> = stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .split_whitespace()
                    .collect();
                fields.get(2) == Some(&leader.id().to_string().as_str())
                    && !fields.first().is_some_and(|s| s.starts_with('Z'))
            })
        };
        while group_left() && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!group_left(), "nothing of the group is left");
    }
}
