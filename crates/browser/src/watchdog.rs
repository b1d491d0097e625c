//! Chromium dies with wayfarer: a tiny supervisor process per launched browser.
//!
//! chromiumoxide starts Chromium itself, so no parent-death signal can be set on it, and a
//! wayfarer killed by SIGKILL (or by `| head`) runs no destructor. The watchdog is a
//! `/bin/sh` that waits on a pipe only wayfarer holds: the kernel closes it whatever way
//! wayfarer ends. Told "done", the watchdog leaves quietly (the browser was closed
//! politely); at end-of-file it kills every process started with this browser's profile
//! directory and removes the profile.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Runs in `sh`: the profile directory comes by environment, not argv, so the watchdog's
/// own command line never matches the pattern it kills by.
const SCRIPT: &str = r#"
trap '' INT TERM HUP QUIT PIPE
while read -r word; do
  [ "$word" = done ] && exit 0
done
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
"#;

/// The watchdog of one launched browser.
pub(crate) struct Watchdog {
    child: Child,
}

impl Watchdog {
    /// Start watching the browser that will run with `profile` as its user data directory.
    /// None (with a warning) where no shell can be started: the run goes on unguarded.
    pub fn spawn(profile: &Path) -> Option<Watchdog> {
        let spawned = Command::new("/bin/sh")
            .arg("-c")
            .arg(SCRIPT)
            .arg("wayfarer-watchdog")
            .env("WAYFARER_PROFILE", profile)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group: a Ctrl-C at the terminal reaches wayfarer, not it.
            .process_group(0)
            .spawn();
        match spawned {
            Ok(child) => Some(Watchdog { child }),
            Err(e) => {
                tracing::warn!(%e, "no browser watchdog: Chromium may outlive a killed wayfarer");
                None
            }
        }
    }

    /// The watchdog's pid (tests check it is gone).
    #[cfg(test)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The browser was shut down by wayfarer: the watchdog leaves without killing.
    pub fn dismiss(mut self) {
        if let Some(mut stdin) = self.child.stdin.take() {
            let _ = stdin.write_all(b"done\n");
        }
        let _ = self.child.wait();
    }
}

impl Drop for Watchdog {
    // Dropped without `dismiss` (a panic unwinding past the browser): closing the pipe
    // makes the watchdog kill the browser, which is what should happen to it then.
    fn drop(&mut self) {
        drop(self.child.stdin.take());
    }
}

/// Whether process `pid` runs (a zombie has exited: nobody waited for it yet).
pub(crate) fn alive(pid: u32) -> bool {
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
        let dog = Watchdog::spawn(&profile).unwrap();
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
        let dog = Watchdog::spawn(dir.path()).unwrap();
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
}
