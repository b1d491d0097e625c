// Temporary profiling experiment (not committed): median time from a click on "Log in"
// to the main frame's stopped-loading event, over ROUNDS rounds, with optional domains.
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::fetch;
use chromiumoxide::cdp::browser_protocol::input::*;
use chromiumoxide::cdp::browser_protocol::network::*;
use chromiumoxide::cdp::browser_protocol::page::*;
use chromiumoxide::cdp::js_protocol::{debugger, profiler};
use futures::StreamExt;
use std::time::{Duration, Instant};

async fn click(page: &chromiumoxide::Page, sel: &str) {
    let v = page.evaluate(format!("(() => {{ const r = document.querySelector({:?}).getBoundingClientRect(); return [r.left + r.width/2, r.top + r.height/2]; }})()", sel)).await.unwrap();
    let a: Vec<f64> = v.into_value().unwrap();
    for (ty, n) in [
        (DispatchMouseEventType::MouseMoved, 0),
        (DispatchMouseEventType::MousePressed, 1),
        (DispatchMouseEventType::MouseReleased, 1),
    ] {
        let mut b = DispatchMouseEventParams::builder()
            .r#type(ty.clone())
            .x(a[0])
            .y(a[1]);
        if n > 0 {
            b = b.button(MouseButton::Left).click_count(1);
        }
        page.execute(b.build().unwrap()).await.unwrap();
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let on = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty());
    let extra: Vec<String> = std::env::var("FLAGS")
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect();
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let server =
        wayfarer_testapps::Server::start(wayfarer_testapps::App::Expense, Default::default())
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut b = BrowserConfig::builder()
        .chrome_executable("/usr/bin/chromium")
        .new_headless_mode()
        .no_sandbox()
        .viewport(None)
        .window_size(1280, 800)
        .user_data_dir(dir.path())
        .arg("disable-gpu")
        .arg("disable-quic")
        .arg("disable-component-update");
    for f in &extra {
        b = b.arg(f.as_str());
    }
    let (browser, mut handler) = Browser::launch(b.build().unwrap()).await.unwrap();
    tokio::spawn(async move { while let Some(_) = handler.next().await {} });
    let page = browser.new_page("about:blank").await.unwrap();
    if on("NET") {
        page.execute(EnableParams::default()).await.unwrap();
    }
    if on("DBG") {
        page.execute(debugger::EnableParams::default())
            .await
            .unwrap();
    }
    if on("COV") {
        page.execute(profiler::EnableParams::default())
            .await
            .unwrap();
        page.execute(
            profiler::StartPreciseCoverageParams::builder()
                .call_count(true)
                .detailed(true)
                .build(),
        )
        .await
        .unwrap();
    }
    if on("FETCH") {
        let pattern = fetch::RequestPattern::builder()
            .url_pattern("*")
            .resource_type(ResourceType::Document)
            .request_stage(fetch::RequestStage::Request)
            .build();
        page.execute(fetch::EnableParams::builder().pattern(pattern).build())
            .await
            .unwrap();
        let mut s = page
            .event_listener::<fetch::EventRequestPaused>()
            .await
            .unwrap();
        let p2 = page.clone();
        tokio::spawn(async move {
            while let Some(e) = s.next().await {
                let p = p2.clone();
                let id = e.request_id.clone();
                tokio::spawn(async move {
                    p.execute(fetch::ContinueRequestParams::new(id)).await.ok();
                });
            }
        });
    }
    let stops = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Instant>::new()));
    {
        let mut st = page
            .event_listener::<EventFrameStoppedLoading>()
            .await
            .unwrap();
        let stops = stops.clone();
        tokio::spawn(async move {
            while let Some(_e) = st.next().await {
                stops.lock().unwrap().push(Instant::now());
            }
        });
    }
    page.goto(server.url()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut times = Vec::new();
    for _ in 0..rounds {
        click(&page, "#demo-fill").await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        stops.lock().unwrap().clear();
        let t = Instant::now();
        click(&page, "button[type=submit]").await;
        tokio::time::sleep(Duration::from_millis(400)).await;
        if let Some(v) = stops.lock().unwrap().first() {
            times.push(v.duration_since(t).as_secs_f64() * 1000.0);
        }
        page.execute(ClearBrowserCookiesParams::default())
            .await
            .unwrap();
        page.execute(NavigateParams::new(server.url()))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = times.len();
    println!(
        "click->loaded median {:.1} ms (n={n}, p25 {:.1}, p75 {:.1})",
        times[n / 2],
        times[n / 4],
        times[n * 3 / 4]
    );
}
