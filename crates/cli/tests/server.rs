//! `[server]` and `--serve`: wayfarer starts the application under test (here the bundled
//! apps' own server, `wayfarer serve`), waits until it is ready (its URL answers, or a line
//! of its output matches), keeps its output in the run directory, stops it at the end, on
//! SIGKILL too (the watchdog), ends the run with exit 2 when it dies, and restarts it
//! before every replay with `restart = "episode"`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::procs::marked;
use common::throttle;

const BIN: &str = env!("CARGO_BIN_EXE_wayfarer");

fn wayfarer() -> Command {
    Command::new(BIN)
}

/// The command that serves a bundled app on wayfarer's port.
fn serve(app: &str) -> String {
    format!("{BIN} serve {app} --port {{port}}")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn config(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("wayfarer.toml");
    std::fs::write(&path, body).unwrap();
    path
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

#[test]
fn ready_by_url_or_by_output_the_server_log_is_kept_and_the_server_stopped() {
    for ready in [None, Some("^http://127\\.0\\.0\\.1:[0-9]+/$")] {
        let dir = tempfile::tempdir().unwrap();
        let mut body = format!("[server]\ncommand = \"{}\"\n", serve("expense"));
        if let Some(r) = ready {
            body.push_str(&format!("ready = '{r}'\n"));
        }
        let cfg = config(dir.path(), &body);
        let out_dir = dir.path().join("out");
        let mark = format!("ready-{}-{}", std::process::id(), ready.is_some());
        let out = wayfarer()
            .args(["explore", "--budget", "8", "--json", "--config"])
            .arg(&cfg)
            .arg("--out")
            .arg(&out_dir)
            .env("WF_SERVER_TEST", &mark)
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
        let summary = json(&out);
        assert_eq!(summary["steps"], 8, "{summary}");
        let target = summary["target"].as_str().unwrap().to_string();
        assert!(target.starts_with("http://127.0.0.1:"), "{target}");
        // The server's output, with wayfarer's start and stop lines, is in the run dir.
        let log = std::fs::read_to_string(out_dir.join("server.log")).unwrap();
        assert!(log.contains("== wayfarer: start 1 of"), "{log}");
        assert!(log.contains(&target), "the URL it printed: {log}");
        assert!(log.contains("== wayfarer: stopped by wayfarer"), "{log}");
        let left = marked("WF_SERVER_TEST", &mark);
        assert!(left.is_empty(), "left running: {left:?}");
    }
}

#[test]
fn serve_flag_with_a_path_explores_that_page_of_the_started_server() {
    let dir = tempfile::tempdir().unwrap();
    let out = wayfarer()
        .args(["explore", "/throws", "--budget", "12", "--seed", "3"])
        .args([
            "--strategy",
            "random",
            "--json",
            "--serve",
            &serve("hazards"),
        ])
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let summary = json(&out);
    assert!(
        summary["target"].as_str().unwrap().ends_with("/throws"),
        "{summary}"
    );
    // A trace remembers the server it was recorded on, and replay starts it again.
    let traces: Vec<PathBuf> = std::fs::read_dir(dir.path().join("out/traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    let trace = &traces[0];
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trace).unwrap()).unwrap();
    assert!(
        t["setup"]["server"]["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("serve hazards --port {port}")),
        "{t}"
    );
    let out = wayfarer()
        .args(["replay", "--json"])
        .arg(trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "reproduced: {}", text(&out));
}

/// A bundled server of `testapps/servers/`.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testapps/servers")
        .join(name)
}

#[test]
fn a_500_arrives_with_the_traceback_the_server_wrote_at_its_step() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &format!(
            "[server]\ncommand = \"exec python3 notes.py {{port}}\"\nready = \"^notes: http\"\n\
             cwd = \"{}\"\n",
            fixture("").display()
        ),
    );
    let out_dir = dir.path().join("out");
    let out = wayfarer()
        .args(["explore", "--budget", "40", "--seed", "3", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    // In the terminal: the end of the traceback, under the failure it explains.
    let at = all
        .find("HTTP 500")
        .unwrap_or_else(|| panic!("no 500 found: {all}"));
    let evidence = &all[at..];
    assert!(
        evidence.contains("the server's output at step")
            && evidence.contains("| ZeroDivisionError: division by zero"),
        "{all}"
    );
    // In report.json, whole: the traceback from its first line, the access log line of
    // the request after it, and nothing of the server's start-up.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    let details = report["failure_details"].as_array().unwrap();
    let failure = details
        .iter()
        .find(|f| f["kind"] == "http5xx")
        .unwrap_or_else(|| panic!("{report:#}"));
    let lines: Vec<&str> = failure["server_output"]["lines"]
        .as_array()
        .unwrap_or_else(|| panic!("{failure:#}"))
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let first = lines
        .iter()
        .position(|l| *l == "Traceback (most recent call last):")
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert_eq!(
        lines[first - 1],
        "Internal Server Error: /report",
        "{lines:#?}"
    );
    assert!(lines[first..].contains(&"ZeroDivisionError: division by zero"));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("\"GET /report HTTP/1.1\" 500")),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("notes: http")),
        "{lines:#?}"
    );
    // In report.html, under the failure's card.
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(html.contains("ZeroDivisionError: division by zero"));
    // `coverage = "auto"` read a python3 server with coverage.py (scripts/test.sh
    // installs it) in its working directory, and the page that failed ran server lines
    // of its own.
    let c = &report["server_coverage"];
    assert_eq!(c["stack"], "python", "{c:#}");
    assert!(c["lines_covered"].as_u64().unwrap() > 30, "{c:#}");
    let data = wayfarer_store::load(&out_dir).unwrap();
    let step = data.steps.iter().find(|s| s.record.step == 2).unwrap();
    assert!(
        step.record.novelty.server_lines.unwrap_or(0) >= 4,
        "{:?}",
        step.record.novelty
    );
}

#[test]
fn a_named_stack_whose_tool_is_missing_is_exit_2_saying_how_to_install_it() {
    let dir = tempfile::tempdir().unwrap();
    // The server's Python finds a `coverage` it cannot import, as one without coverage.py.
    let stub = dir.path().join("stub");
    std::fs::create_dir_all(&stub).unwrap();
    std::fs::write(
        stub.join("coverage.py"),
        "raise ImportError('no coverage here')\n",
    )
    .unwrap();
    let cfg = config(
        dir.path(),
        &format!(
            "[server]\ncommand = \"exec python3 {} {{port}}\"\nready = \"^notes: http\"\n\
             coverage = \"python\"\nenv = {{ PYTHONPATH = \"{}\" }}\n",
            fixture("notes.py").display(),
            stub.display()
        ),
    );
    let out = wayfarer()
        .args(["explore", "--budget", "5", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("coverage.py is not installed in the server's Python")
            && all.contains("-m pip install coverage")
            && all.contains("coverage = \"off\""),
        "{all}"
    );
    // With "auto", the same server is explored, and the run says why it is not read.
    let cfg = config(
        dir.path(),
        &format!(
            "[server]\ncommand = \"exec python3 {} {{port}}\"\nready = \"^notes: http\"\n\
             env = {{ PYTHONPATH = \"{}\" }}\n",
            fixture("notes.py").display(),
            stub.display()
        ),
    );
    let out = wayfarer()
        .args(["explore", "--budget", "5", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(dir.path().join("out2"))
        .output()
        .unwrap();
    let all = text(&out);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{all}");
    assert!(
        all.contains(
            "not reading the server's coverage (server coverage: coverage.py is not installed"
        ),
        "{all}"
    );
}

#[test]
fn a_node_servers_lines_are_read_step_by_step_and_the_report_lists_what_never_ran() {
    let dir = tempfile::tempdir().unwrap();
    let servers = fixture("");
    let cfg = config(
        dir.path(),
        &format!(
            "[server]\ncommand = \"exec node notes.mjs {{port}}\"\nready = \"^notes: http\"\n\
             cwd = \"{}\"\ncoverage = \"node\"\n",
            servers.display()
        ),
    );
    let out_dir = dir.path().join("out");
    let out = wayfarer()
        .args([
            "explore", "--budget", "30", "--seed", "3", "--json", "--config",
        ])
        .arg(&cfg)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    let summary = json(&out);
    let c = &summary["server_coverage"];
    assert_eq!(c["stack"], "node", "{summary:#}");
    let covered = c["lines_covered"].as_u64().unwrap();
    let gain = covered - c["first_lines_covered"].as_u64().unwrap();
    assert!(
        covered > 20 && covered < c["lines_total"].as_u64().unwrap(),
        "{c:#}"
    );
    let files = c["by_file"].as_array().unwrap();
    assert_eq!(files.len(), 1, "only the app's own file: {c:#}");
    assert!(files[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("servers/notes.mjs"));
    // Each step is credited with the lines it ran first: the first visit of the report
    // ran its code, a later one nothing new.
    let data = wayfarer_store::load(&out_dir).unwrap();
    let to_report: Vec<u64> = data
        .steps
        .iter()
        .filter(|s| s.record.url_after.ends_with("/report"))
        .map(|s| s.record.novelty.server_lines.unwrap_or(0))
        .collect();
    assert!(to_report.len() >= 2, "{to_report:?}");
    assert!(to_report[0] >= 3, "{to_report:?}");
    let credited: u64 = data
        .steps
        .iter()
        .map(|s| s.record.novelty.server_lines.unwrap_or(0))
        .sum();
    assert!(credited > 0 && credited <= gain, "{credited} of {gain}");
    assert!(data.steps.last().unwrap().sample.server_lines.is_some());
    // The inspector's own lines are not the application's output.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    let evidence = report["failure_details"][0]["server_output"].to_string();
    assert!(evidence.contains("RangeError: no average"), "{report:#}");
    assert!(!evidence.contains("Debugger"), "{evidence}");
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(html.contains("Server code never run"));
}

#[test]
fn a_replay_does_not_read_the_servers_coverage() {
    // Recorded with coverage.py read (the trace keeps `coverage = "python"` in its
    // server), replayed where coverage.py cannot be imported: the replay has no use for
    // it, so it neither needs nor starts it.
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &format!(
            "[server]\ncommand = \"exec python3 notes.py {{port}}\"\nready = \"^notes: http\"\n\
             cwd = \"{}\"\ncoverage = \"python\"\n",
            fixture("").display()
        ),
    );
    let out_dir = dir.path().join("out");
    let out = wayfarer()
        .args(["explore", "--budget", "40", "--seed", "3", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let trace = std::fs::read_dir(out_dir.join("traces"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.to_string_lossy().contains("http-5xx") && !p.to_string_lossy().contains(".min.")
        })
        .expect("the 500's trace");
    let stub = dir.path().join("stub");
    std::fs::create_dir_all(&stub).unwrap();
    std::fs::write(
        stub.join("coverage.py"),
        "raise ImportError('no coverage here')\n",
    )
    .unwrap();
    let out = wayfarer()
        .args(["replay", "--json"])
        .arg(&trace)
        .env("PYTHONPATH", &stub)
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "reproduced: {all}");
    assert!(!all.contains("coverage"), "{all}");
}

/// The decisions of a 40-step guided run (seed 3) on the notes server, its coverage read,
/// with `extra` appended to the config.
fn guided_decisions_on_notes(extra: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &format!(
            "[server]\ncommand = \"exec python3 notes.py {{port}}\"\nready = \"^notes: http\"\n\
             cwd = \"{}\"\ncoverage = \"python\"\n{extra}",
            fixture("").display()
        ),
    );
    let out_dir = dir.path().join("out");
    let out = wayfarer()
        .args(["explore", "--budget", "40", "--seed", "3", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    let data = wayfarer_store::load(&out_dir).unwrap();
    data.steps
        .iter()
        .map(|s| s.record.decision.clone().unwrap_or_default())
        .collect()
}

#[test]
fn a_form_the_server_answered_with_new_code_is_sent_again_with_a_boundary_value() {
    // The note form's first submission runs the server's POST handler for the first
    // time: the next time the form shows, guided fills and sends it again first, and the
    // mutate layer breaks one of its fields.
    let decisions = guided_decisions_on_notes("");
    let at = decisions
        .iter()
        .position(|d| d.starts_with("the server ran new code for this form"))
        .unwrap_or_else(|| panic!("no form sent again for the server: {decisions:#?}"));
    assert!(
        decisions[at..]
            .iter()
            .take(4)
            .any(|d| d.contains("mutate ")),
        "{decisions:#?}"
    );
    // With the server left out of guided's reward, no step is taken for it.
    let without = guided_decisions_on_notes("[strategy.guided]\nserver_lines_per_unit = 0.0\n");
    assert!(
        !without
            .iter()
            .any(|d| d.contains("the server ran new code")),
        "{without:#?}"
    );
}

#[test]
fn a_server_that_never_gets_ready_is_exit_2_with_its_last_output() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "[server]\ncommand = \"echo booting on {port}; echo no database >&2; sleep 60\"\nready = \"^listening\"\ntimeout_s = 2\n",
    );
    let t = Instant::now();
    let out = wayfarer()
        .args(["explore", "--budget", "5", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("was not ready within 2 s"), "{all}");
    assert!(
        all.contains("| booting on") && all.contains("| no database"),
        "{all}"
    );
    assert!(t.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_server_killed_mid_run_ends_it_with_exit_2_and_complete_reports() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("server.pid");
    let cfg = config(
        dir.path(),
        &format!(
            "[server]\ncommand = \"echo $$ > {}; exec {}\"\n",
            pidfile.display(),
            serve("expense")
        ),
    );
    let out_dir = dir.path().join("out");
    let child = wayfarer()
        .args(["explore", "--budget", "5000,60s", "--json", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&out_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Some steps in, the server is killed behind wayfarer's back (its pid: a positive one).
    let t = Instant::now();
    while !pidfile.exists() && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    // Some steps recorded, however long a busy machine takes to start the browser (a
    // fixed sleep killed the server before the first step under load).
    while !wayfarer_store::load(&out_dir).is_ok_and(|d| d.steps.len() >= 3) {
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "no 3 steps stored after 2 minutes"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let pid = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .to_string();
    assert!(Command::new("kill")
        .args(["-KILL", &pid])
        .status()
        .unwrap()
        .success());
    let killed = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        killed.elapsed() < Duration::from_secs(45),
        "noticed at once"
    );
    let summary = json(&out);
    let why = summary["stopped_early"].as_str().unwrap_or_default();
    assert!(
        why.contains("the application's server stopped") && why.contains("signal: 9"),
        "{summary}"
    );
    assert!(summary["steps"].as_u64().unwrap() > 0, "{summary}");
    // The reports are complete: the run ended, with why.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["complete"], true, "{report}");
    assert_eq!(report["ended_by_environment"], true, "{report}");
    assert!(out_dir.join("report.html").exists() && out_dir.join("junit.xml").exists());
    // Refused connections after the death are not the application's failures.
    let failures = report["failures"].as_array().unwrap();
    assert!(
        failures.iter().all(|f| !f["message"]
            .as_str()
            .unwrap_or("")
            .contains("ERR_CONNECTION_REFUSED")),
        "{failures:?}"
    );
}

#[test]
fn a_sigkilled_wayfarer_leaves_no_server_behind() {
    let dir = tempfile::tempdir().unwrap();
    let mark = format!("sigkill-{}", std::process::id());
    let mut child = wayfarer()
        .args([
            "explore",
            "--budget",
            "5000",
            "-q",
            "--serve",
            &serve("clinic"),
        ])
        .arg("--out")
        .arg(dir.path().join("out"))
        .env("WF_SERVER_TEST", &mark)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Until the server runs (a `serve` process of this mark), then a few seconds more.
    let t = Instant::now();
    while !marked("WF_SERVER_TEST", &mark)
        .iter()
        .any(|(_, c)| c.contains(" serve clinic "))
    {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the server never ran"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(3));
    child.kill().unwrap();
    child.wait().unwrap();
    // The watchdogs end the server (TERM, then KILL) and the browser.
    let t = Instant::now();
    let mut left = marked("WF_SERVER_TEST", &mark);
    while !left.is_empty() && t.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(100));
        left = marked("WF_SERVER_TEST", &mark);
    }
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn restart_per_episode_minimises_the_login_throttle_without_a_reset_hook() {
    let dir = tempfile::tempdir().unwrap();
    // Recorded against a server that is gone: the trace moves to the one started now.
    let trace = dir.path().join("throttle.json");
    std::fs::write(&trace, throttle::trace("http://127.0.0.1:9/")).unwrap();
    let cfg = config(
        dir.path(),
        &format!(
            "[server]\ncommand = \"{}\"\nurl = \"http://127.0.0.1:{{port}}/throttle\"\nrestart = \"episode\"\n",
            serve("hazards")
        ),
    );
    let min = dir.path().join("min.json");
    let out = wayfarer()
        .args(["minimize", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&min)
        .arg(&trace)
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("every replay starts on a freshly started server"),
        "{all}"
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&min).unwrap()).unwrap();
    let logins = throttle::logins(&m);
    assert!(
        logins >= 5,
        "the lock needs its failed logins: {logins}\n{all}"
    );
    assert!(m.get("outside_state").is_none(), "{m}");
    assert!(!all.contains("outside the browser"), "{all}");
    // Every replay had a server of its own: started once per replay.
    let log = std::fs::read_to_string(dir.path().join("throttle.server.log")).unwrap();
    let starts = log.matches("== wayfarer: start ").count();
    assert!(starts >= 5, "{starts} starts:\n{log}");
}

#[test]
fn a_page_polling_its_server_while_it_restarts_is_not_a_failure() {
    // maildev: its socket.io poll, refused while the server restarted between episodes,
    // was reported; here a long poll that the restart cuts off.
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &format!(
            "[server]\ncommand = \"{}\"\nurl = \"http://127.0.0.1:{{port}}/longpoll\"\nrestart = \"episode\"\n\
             # The page stays, its poll open, until the reset.\n[[deny]]\nselector = \"a\"\n",
            serve("hazards")
        ),
    );
    let out_dir = dir.path().join("out");
    let out = wayfarer()
        .args([
            "explore",
            "--budget",
            "6",
            "--episode-steps",
            "2",
            "--json",
            "--config",
        ])
        .arg(&cfg)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let log = std::fs::read_to_string(out_dir.join("server.log")).unwrap();
    assert!(
        log.matches("== wayfarer: start ").count() >= 3,
        "a server per episode:\n{log}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["failures"], serde_json::json!([]), "{report}");
}
