//! The language model end to end: `wayfarer demo --strategy vetl-l --llm URL --model NAME`
//! against the fixture OpenAI-compatible server (VETL's prompts on the wire, answers cached
//! in the run store, the key nowhere in what a run leaves), against a closed port (the
//! budget is spent on heuristic answers, said once), and, with `WAYFARER_TEST_LLM=1`,
//! against the real local model of `scripts/ensure-llm.sh`.

use std::path::Path;
use std::process::{Command, Output};

use wayfarer_testapps::LlmFixture;

const KEY: &str = "sk-wayfarer-test-5e3c7a91d2";

fn wayfarer() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
}

fn demo(out: &Path, llm: &str, budget: &str) -> Output {
    wayfarer()
        .args([
            "demo",
            "--strategy",
            "vetl-l",
            "--budget",
            budget,
            "--seed",
            "2",
        ])
        .args(["--llm", llm, "--model", "fixture-model", "--json", "--out"])
        .arg(out)
        .env("WAYFARER_LLM_KEY", KEY)
        .output()
        .unwrap()
}

fn summary(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout} / {}", String::from_utf8_lossy(&out.stderr)))
}

/// Every file under `dir` that holds `needle`.
fn files_holding(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                if bytes.windows(needle.len()).any(|w| w == needle) {
                    found.push(p.display().to_string());
                }
            }
        }
    }
    found
}

#[test]
fn vetl_asks_the_endpoint_caches_in_the_store_and_never_leaks_the_key() {
    let fx = LlmFixture::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let first = demo(dir.path(), &fx.url(), "40");
    let v = summary(&first);
    assert_eq!(v["steps"], 40, "{v}");
    let llm = &v["llm"];
    assert_eq!(llm["provider"], "openai", "{v}");
    let calls = llm["calls"].as_u64().unwrap();
    assert!(calls > 0, "{llm}");
    assert_eq!(llm["failed"], 0, "{llm}");
    let requests = fx.requests();
    assert_eq!(requests.len() as u64, calls);
    for r in &requests {
        assert_eq!(r.authorization.as_deref(), Some(&*format!("Bearer {KEY}")));
        assert_eq!(r.body["model"], "fixture-model");
        assert!(
            r.prompt().contains("Generated Input Text: [answer]"),
            "{}",
            r.prompt()
        );
    }
    assert!(
        v["form_acceptance"]["submissions"].as_u64().is_some(),
        "{v}"
    );

    // A second run in the same directory answers the same questions from the store.
    let second = demo(dir.path(), &fx.url(), "40");
    let v2 = summary(&second);
    let hits = v2["llm"]["cache_hits"].as_u64().unwrap();
    assert!(hits > 0, "{}", v2["llm"]);
    assert_eq!(
        fx.requests().len() as u64,
        calls + v2["llm"]["calls"].as_u64().unwrap()
    );

    // The key is in none of the run's outputs.
    for out in [&first, &second] {
        for stream in [&out.stdout, &out.stderr] {
            assert!(!String::from_utf8_lossy(stream).contains(KEY));
        }
    }
    let leaked = files_holding(dir.path(), KEY.as_bytes());
    assert!(leaked.is_empty(), "the key is in {leaked:?}");
}

#[test]
fn a_closed_port_spends_the_budget_on_heuristic_answers_and_says_so_once() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let out = demo(dir.path(), &format!("http://127.0.0.1:{port}/v1"), "30");
    assert_ne!(out.status.code(), Some(2));
    let v = summary(&out);
    assert_eq!(v["steps"], 30, "{v}");
    let llm = &v["llm"];
    assert!(llm["failed"].as_u64().unwrap() >= 1, "{llm}");
    assert_eq!(llm["calls"], 0);
    assert_eq!(llm["heuristic"], llm["questions"], "{llm}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("is unreachable").count(), 1, "{stderr}");
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
}

#[test]
fn half_an_llm_configuration_is_a_usage_error() {
    let out = wayfarer()
        .args(["demo", "--llm", "http://127.0.0.1:9/v1", "--budget", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs --model"), "{err}");
}

/// With a real model (scripts/ensure-llm.sh --start, then WAYFARER_TEST_LLM=1 and the
/// printed WAYFARER_LLM_URL): the whole client path against llama.cpp's server.
#[test]
fn a_real_local_model_answers_vetl() {
    if std::env::var("WAYFARER_TEST_LLM").as_deref() != Ok("1") {
        eprintln!(
            "skipped: set WAYFARER_TEST_LLM=1 and WAYFARER_LLM_URL (scripts/ensure-llm.sh --start)"
        );
        return;
    }
    let url = std::env::var("WAYFARER_LLM_URL")
        .expect("WAYFARER_LLM_URL from scripts/ensure-llm.sh --start");
    let dir = tempfile::tempdir().unwrap();
    let out = wayfarer()
        .args([
            "demo",
            "--strategy",
            "vetl-l",
            "--budget",
            "25",
            "--seed",
            "1",
        ])
        .args(["--llm", &url, "--model", "gemma3-270m", "--json", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let v = summary(&out);
    assert_eq!(v["steps"], 25, "{v}");
    let llm = &v["llm"];
    assert!(llm["calls"].as_u64().unwrap() > 0, "{llm}");
    // A base model may answer nothing now and then (an empty answer, answered by the
    // heuristic), but the endpoint never went down.
    assert_eq!(llm["skipped"], 0, "{llm}");
    let last = llm["last_error"].as_str().unwrap_or("");
    assert!(
        !last.contains("cannot reach") && !last.contains("no answer within"),
        "{llm}"
    );
    assert!(llm["latency_ms_median"].as_f64().unwrap() > 0.0);
}

/// `vetl` with a model that reads images: both questions go with the screenshot, the
/// field framed in red and, for the element question, the clickables in blue. Set
/// `WAYFARER_SAVE_PICTURES=DIR` to keep the pictures sent (to look at them).
#[test]
fn vision_variants_send_annotated_screenshots() {
    use base64::Engine;
    let fx = LlmFixture::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("wayfarer.toml");
    std::fs::write(
        &cfg,
        format!(
            "[llm]\nurl = \"{}\"\nmodel = \"text\"\nvision_model = \"seeing\"\nvision = true\n",
            fx.url()
        ),
    )
    .unwrap();
    let out = wayfarer()
        .args([
            "demo",
            "--strategy",
            "vetl",
            "--budget",
            "12",
            "--seed",
            "1",
            "--json",
        ])
        .arg("--config")
        .arg(&cfg)
        .arg("--out")
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    let v = summary(&out);
    assert_eq!(v["steps"], 12, "{v}");
    let save = std::env::var("WAYFARER_SAVE_PICTURES").ok();
    let (mut inputs, mut elements) = (0, 0);
    for (i, r) in fx.requests().iter().enumerate() {
        let images = r.images();
        assert_eq!(
            images.len(),
            1,
            "question {i} of {} went without a picture: {}",
            fx.requests().len(),
            r.prompt()
        );
        assert_eq!(r.body["model"], "seeing");
        let b64 = images[0].strip_prefix("data:image/png;base64,").unwrap();
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        let img = image::load_from_memory(&png).unwrap().to_rgba8();
        assert!(
            img.width() <= 1280 && img.height() <= 800,
            "{}x{}",
            img.width(),
            img.height()
        );
        let red = img.pixels().filter(|p| p.0 == [230, 20, 20, 255]).count();
        assert!(red > 50, "the field is framed in red ({red} pixels)");
        let prompt = r.prompt();
        if prompt.contains("Selected Button Number") {
            elements += 1;
            let blue = img.pixels().filter(|p| p.0 == [20, 70, 230, 255]).count();
            assert!(
                blue > 50,
                "the clickables are framed in blue ({blue} pixels)"
            );
            assert!(prompt.contains("marked with"), "{prompt}");
        } else {
            inputs += 1;
            assert!(prompt.contains("marked with a red frame"), "{prompt}");
        }
        if let Some(d) = &save {
            std::fs::create_dir_all(d).unwrap();
            std::fs::write(format!("{d}/{i:02}.png"), &png).unwrap();
        }
    }
    assert!(
        inputs > 0 && elements > 0,
        "{inputs} input and {elements} element questions"
    );
}
