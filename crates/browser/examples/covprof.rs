// Temporary experiment (not committed): is coverage of a navigated-away document still
// reported by a take after the navigation?
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::input::*;
use chromiumoxide::cdp::browser_protocol::page::*;
use chromiumoxide::cdp::js_protocol::{debugger, profiler};
use futures::StreamExt;
use std::time::Duration;

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
    let cache0 = std::env::var("CACHE0").is_ok();
    let server =
        wayfarer_testapps::Server::start(wayfarer_testapps::App::Expense, Default::default())
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let b = BrowserConfig::builder()
        .chrome_executable("/usr/bin/chromium")
        .new_headless_mode()
        .no_sandbox()
        .viewport(None)
        .window_size(1280, 800)
        .user_data_dir(dir.path())
        .arg("disable-gpu")
        .arg("disable-back-forward-cache");
    let (browser, mut handler) = Browser::launch(b.build().unwrap()).await.unwrap();
    tokio::spawn(async move { while let Some(_) = handler.next().await {} });
    let page = browser.new_page("about:blank").await.unwrap();
    let mut parsed = page
        .event_listener::<debugger::EventScriptParsed>()
        .await
        .unwrap();
    let scripts = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(String, String)>::new()));
    let sc = scripts.clone();
    tokio::spawn(async move {
        while let Some(e) = parsed.next().await {
            sc.lock()
                .unwrap()
                .push((e.script_id.inner().clone(), e.url.clone()));
        }
    });
    let mut d = debugger::EnableParams::default();
    if cache0 {
        d.max_scripts_cache_size = Some(0.0);
    }
    page.execute(d).await.unwrap();
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
    page.execute(NavigateParams::new(server.url()))
        .await
        .unwrap();
    if std::env::var("PAUSE").is_ok() {
        use chromiumoxide::cdp::browser_protocol::fetch;
        use chromiumoxide::cdp::browser_protocol::network::ResourceType;
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
        let names = scripts.clone();
        tokio::spawn(async move {
            while let Some(e) = s.next().await {
                let p = p2.clone();
                let id = e.request_id.clone();
                let names = names.clone();
                let url = e.request.url.clone();
                tokio::spawn(async move {
                    let t = std::time::Instant::now();
                    let r = tokio::time::timeout(
                        Duration::from_secs(3),
                        p.execute(profiler::TakePreciseCoverageParams::default()),
                    )
                    .await;
                    match r {
                        Ok(Ok(r)) => {
                            let n = names.lock().unwrap().clone();
                            println!(
                                "paused {url}: take {:?}: {:?}",
                                t.elapsed(),
                                r.result
                                    .result
                                    .iter()
                                    .map(|s| (
                                        s.script_id.inner().clone(),
                                        n.iter()
                                            .find(|(i, _)| i == s.script_id.inner())
                                            .map(|x| x.1.clone())
                                            .unwrap_or_default(),
                                        s.functions
                                            .iter()
                                            .filter(|f| f.ranges[0].count > 0)
                                            .count()
                                    ))
                                    .collect::<Vec<_>>()
                            );
                        }
                        other => println!(
                            "paused {url}: take failed after {:?}: {:?}",
                            t.elapsed(),
                            other.is_ok()
                        ),
                    }
                    p.execute(fetch::ContinueRequestParams::new(id)).await.ok();
                });
            }
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let r = page
        .execute(profiler::TakePreciseCoverageParams::default())
        .await
        .unwrap();
    println!("take after load: {} scripts", r.result.result.len());
    click(&page, "#demo-fill").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    click(&page, "button[type=submit]").await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let r = page
        .execute(profiler::TakePreciseCoverageParams::default())
        .await
        .unwrap();
    let names = scripts.lock().unwrap().clone();
    for s in &r.result.result {
        let url = names
            .iter()
            .find(|(id, _)| id == s.script_id.inner())
            .map(|x| x.1.clone())
            .unwrap_or_default();
        let ran: Vec<String> = s
            .functions
            .iter()
            .filter(|f| f.ranges.first().is_some_and(|r| r.count > 0))
            .map(|f| format!("{}@{}", f.function_name, f.ranges[0].start_offset))
            .collect();
        println!(
            "script {} {} ran {:?}",
            s.script_id.inner(),
            url,
            &ran[..ran.len().min(8)]
        );
    }
}
