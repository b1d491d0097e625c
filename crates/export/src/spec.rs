//! One Playwright Test spec from one failure trace: a regression test that repeats the
//! login and the recorded steps and fails while the failure still happens.

use std::collections::BTreeSet;

use url::Url;
use wayfarer_core::config::LoginStep;
use wayfarer_core::spec_action::{key_label, SpecAction, WAIT_MS};
use wayfarer_core::trace::{Trace, TraceStep};
use wayfarer_core::ActionKind;

use crate::locator::{chosen, render, Locator};
use crate::ts::{comment, secret_names, str_lit, value_expr};
use wayfarer_core::trace::LocatorKind;

/// What writing a spec needs besides the trace.
pub struct SpecContext<'a> {
    /// The trace file's name, for the header.
    pub trace_name: &'a str,
    /// The start URL (parsed), whose origin is the config's `baseURL` when it equals `base`.
    pub start: &'a Url,
    /// The config's `baseURL`.
    pub base: &'a Url,
    /// The config's `testIdAttribute`.
    pub test_id_attr: &'a str,
    /// For a feature's test: what to check at the end (else a regression test).
    pub check: Option<&'a crate::FeatureCheck>,
    /// The file (next to the spec) holding the bundle of the trace's specification.
    pub spec_file: Option<&'a str>,
}

/// The test body's lines, the support functions they use and the secrets they read.
pub struct Body {
    pub lines: Vec<String>,
    pub imports: BTreeSet<&'static str>,
    pub secrets: Vec<String>,
}

impl Body {
    fn line(&mut self, s: impl Into<String>) {
        self.lines.push(s.into());
    }

    /// The expression for a typed value, noting the secrets it reads.
    fn value(&mut self, v: &str) -> String {
        for n in secret_names(v) {
            if !self.secrets.contains(&n) {
                self.secrets.push(n);
            }
        }
        value_expr(v)
    }
}

/// The spec for `trace`.
pub fn spec(trace: &Trace, cx: &SpecContext) -> String {
    let mut b = Body {
        lines: Vec::new(),
        imports: BTreeSet::from(["watchApp"]),
        secrets: Vec::new(),
    };
    if !trace.setup.login.is_empty() {
        b.line("// Log in (the login steps of wayfarer's configuration).");
        for step in &trace.setup.login {
            login_step(&mut b, step, cx);
        }
        b.line("");
    }
    let spec = cx.spec_file.filter(|_| trace.setup.spec.is_some());
    if let Some(file) = spec {
        b.imports.insert("checkProperties");
        b.line(format!(
            "// The properties of {} (bundled in {file}), checked after every step.",
            comment(
                trace
                    .setup
                    .spec
                    .as_ref()
                    .map(|s| s.file.as_str())
                    .unwrap_or("")
            )
        ));
        b.line(format!(
            "const props = await checkProperties(page, app, {});",
            str_lit(file)
        ));
    }
    b.line("// Start where wayfarer starts every episode.");
    b.line(format!(
        "await page.goto({});",
        str_lit(&app_url(cx.start, cx))
    ));
    b.line("await app.settle();");
    if spec.is_some() {
        b.line("await props.check();");
    }
    let mut page = cx.start.to_string();
    for (i, step) in trace.steps.iter().enumerate() {
        b.line("");
        if !step.url.is_empty() && step.url != page {
            page = step.url.clone();
            let shown = Url::parse(&page).map_or(page.clone(), |u| app_url(&u, cx));
            b.line(format!("// On {}", comment(&shown)));
        }
        let locator = step
            .action
            .target
            .as_deref()
            .map(|t| render(t, &chosen(t, step.element.as_ref()), cx.test_id_attr));
        b.line(format!(
            "// {}. {}",
            i + 1,
            comment(&step_comment(step, locator.as_ref()))
        ));
        let shown = Url::parse(&page).map_or(page.clone(), |u| app_url(&u, cx));
        let acted = action(
            &mut b,
            Step {
                n: i + 1,
                step,
                page: &shown,
            },
            locator,
            cx,
            &trace.setup.allow_origins,
        );
        if acted && i + 1 < trace.steps.len() {
            b.line("await app.settle();");
            if spec.is_some() {
                b.line("await props.check();");
            }
        }
    }
    b.line("");
    b.line("// Late failures (timers, slow requests) count too: let the page settle first.");
    b.line("await app.settle(500);");
    if spec.is_some() {
        b.line("await props.check();");
        b.line(
            "// A property still waiting for its deadline (`within`) is checked once it is due.",
        );
        b.line("await props.settle();");
    }
    if let Some(check) = cx.check {
        feature_checks(&mut b, check, cx);
    }
    let props_line = "expect(props.violations, 'properties violated').toEqual([]);";
    let property_first = trace.expected.kind == "property";
    if spec.is_some() && property_first {
        b.line(props_line);
    }
    b.line("expect(app.failures, 'failures while the steps ran').toEqual([]);");
    if spec.is_some() && !property_first {
        b.line(props_line);
    }
    crate::render::document(trace, cx, &b)
}

/// What a person checks after a feature's steps: the page it ends on (its URL up to
/// ids, its title).
fn feature_checks(b: &mut Body, check: &crate::FeatureCheck, cx: &SpecContext) {
    b.line("// Where the feature ends, as wayfarer saw it.");
    if let Ok(end) = Url::parse(&check.end_url) {
        if end.origin() == cx.base.origin() {
            b.line(format!(
                "await expect(page).toHaveURL(new RegExp({}));",
                str_lit(&url_pattern(&end))
            ));
        }
    }
    let title = check.end_title.trim();
    if !title.is_empty() {
        b.line(format!(
            "await expect(page).toHaveTitle(new RegExp({}));",
            str_lit(&format!("^{}$", digits_free(title)))
        ));
    }
}

impl crate::FeatureCheck {
    /// Whether a page at `url` titled `title` passes the checks the feature's test makes
    /// (see `feature_checks`), for a replay outside Playwright; `base` is the
    /// application's start URL. The error says which check fails.
    pub fn holds(&self, url: &str, title: &str, base: &Url) -> Result<(), String> {
        if let (Ok(end), Ok(now)) = (Url::parse(&self.end_url), Url::parse(url)) {
            let path = |u: &Url| digit_runs_as_one(&u[url::Position::BeforePath..]);
            if end.origin() == base.origin()
                && (now.origin() != end.origin() || path(&now) != path(&end))
            {
                return Err(format!("it ends on {url}, not on {}", self.end_url));
            }
        }
        let want = self.end_title.trim();
        if !want.is_empty() && digit_runs_as_one(title) != digit_runs_as_one(want) {
            return Err(format!("it ends on a page titled {title:?}, not {want:?}"));
        }
        Ok(())
    }
}

/// `text` with every run of digits as one marker: equal when `digits_free`'s pattern of
/// the one matches the other.
fn digit_runs_as_one(text: &str) -> String {
    digit_runs(text, "\u{1}", |c, out| out.push(c))
}

/// `text` with each run of digits replaced by `run` and every other character by what
/// `other` writes.
fn digit_runs(text: &str, run: &str, other: impl Fn(char, &mut String)) -> String {
    let mut out = String::new();
    let mut digits = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !digits {
                out.push_str(run);
            }
            digits = true;
        } else {
            digits = false;
            other(c, &mut out);
        }
    }
    out
}

/// A regular expression for `url`'s path, query and fragment with every run of digits
/// (ids, dates) free: the same page for another record.
pub(crate) fn url_pattern(url: &Url) -> String {
    format!("{}$", digits_free(&url[url::Position::BeforePath..]))
}

/// `text` as a regular expression, every run of digits matching any other.
fn digits_free(text: &str) -> String {
    digit_runs(text, "\\d+", |c, out| {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    })
}

/// `url` as the spec writes it: relative to `baseURL` when on its origin, so the suite
/// can be pointed at another deployment.
pub fn app_url(url: &Url, cx: &SpecContext) -> String {
    if url.origin() == cx.base.origin() {
        url[url::Position::BeforePath..].to_string()
    } else {
        url.to_string()
    }
}

fn login_step(b: &mut Body, step: &LoginStep, cx: &SpecContext) {
    if let Some(goto) = &step.goto {
        let target = cx
            .start
            .join(goto)
            .map_or(goto.clone(), |u| app_url(&u, cx));
        b.line(format!("await page.goto({});", str_lit(&target)));
        b.line("await app.settle();");
    }
    if let Some(sel) = &step.fill {
        b.imports.insert("fill");
        let v = b.value(step.value.as_deref().unwrap_or(""));
        b.line(format!("await fill(page.locator({}), {v});", str_lit(sel)));
        b.line("await app.settle();");
    }
    if let Some(sel) = &step.click {
        b.line(format!("await page.locator({}).click();", str_lit(sel)));
        b.line("await app.settle();");
    }
}

/// What a step does, for people: the element by role and accessible name
/// (`click link "Find owners"`), plus wayfarer's CSS locator when the code names the
/// element another way, so the structural path is at hand when the page changes.
fn step_comment(step: &TraceStep, locator: Option<&Locator>) -> String {
    // A step without a target describes as "click " (nothing to name).
    let said = step.describe().trim_end().to_string();
    match (step.action.target.as_deref(), locator) {
        (Some(css), Some(l)) if l.kind != LocatorKind::Css => format!("{said} (css: {css})"),
        _ => said,
    }
}

/// One step as the spec numbers it, and the page it was recorded on (as the spec writes
/// URLs).
struct Step<'a> {
    n: usize,
    step: &'a TraceStep,
    page: &'a str,
}

/// Write one step's code; false when there is nothing to do (a comment says why). Every
/// step that acts on an element first finds it (`app.find`), so a page that changed
/// fails on that step with its own message, not as the failure coming back.
fn action(
    b: &mut Body,
    s: Step,
    locator: Option<Locator>,
    cx: &SpecContext,
    allow: &[String],
) -> bool {
    let step = s.step;
    let a = &step.action;
    let kind = a.kind;
    if kind == ActionKind::Back {
        b.line("await app.back();");
        return true;
    }
    if kind == ActionKind::Navigate {
        return navigate(b, step, cx, allow);
    }
    if kind == ActionKind::Spec {
        return spec_action(b, a);
    }
    if kind == ActionKind::Scroll && a.target.is_none() {
        // The wheel over the middle of the window, as wayfarer turned it.
        b.line(
            "await page.mouse.move(page.viewportSize().width / 2, page.viewportSize().height / 2);",
        );
        b.line(format!(
            "await page.mouse.wheel(0, {});",
            wayfarer_core::model::SCROLL_PX
        ));
        return true;
    }
    if kind == ActionKind::Press && a.target.is_none() {
        // A key pressed where the focus was (Escape in an open dialog).
        let key = a.value.as_deref().unwrap_or("Escape");
        b.line(format!("await page.keyboard.press({});", str_lit(key)));
        return true;
    }
    let Some(code) = locator.map(|l| l.code) else {
        b.line("// (no target recorded: wayfarer could not perform this step either)");
        return false;
    };
    let l = format!("step{}", s.n);
    b.line(format!(
        "const {l} = await app.find({}, {}, {}, {code});",
        s.n,
        str_lit(&step.target_phrase()),
        str_lit(s.page)
    ));
    let line = match kind {
        ActionKind::Click => format!("await {l}.click();"),
        // wayfarer checks by clicking: it toggles, as a user's click does.
        ActionKind::Check => format!("await {l}.click(); // toggles"),
        ActionKind::DoubleClick => format!("await {l}.dblclick();"),
        ActionKind::Hover => format!("await {l}.hover();"),
        ActionKind::ContextMenu => format!("await {l}.click({{ button: 'right' }});"),
        ActionKind::Drag => {
            // Playwright's CSS pierces open shadow roots: wayfarer's `>>>` steps are
            // descendant steps there.
            let onto = a.value.as_deref().unwrap_or("").replace(" >>> ", " ");
            format!("await {l}.dragTo(page.locator({}));", str_lit(&onto))
        }
        ActionKind::Scroll => {
            b.line(format!("await {l}.hover();"));
            format!(
                "await page.mouse.wheel(0, {});",
                wayfarer_core::model::SCROLL_PX
            )
        }
        ActionKind::Upload => {
            let spec = wayfarer_core::files::FileSpec::parse(a.value.as_deref().unwrap_or(""));
            format!("await {l}.setInputFiles({});", file_payload(&spec))
        }
        ActionKind::Press => {
            let key = a.value.as_deref().unwrap_or("Enter");
            format!("await {l}.press({});", str_lit(key))
        }
        ActionKind::Type => {
            b.imports.insert("fill");
            let v = b.value(a.value.as_deref().unwrap_or(""));
            format!("await fill({l}, {v});")
        }
        ActionKind::Select => match a.value.as_deref() {
            Some(v) => format!("await {l}.selectOption({});", b.value(v)),
            None => {
                b.imports.insert("selectAnother");
                format!("await selectAnother({l});")
            }
        },
        ActionKind::Submit => {
            b.imports.insert("submit");
            format!("await submit({l});")
        }
        ActionKind::Back | ActionKind::Navigate | ActionKind::Spec => {
            unreachable!("handled above")
        }
    };
    b.line(line);
    true
}

/// The file `spec` makes, as Playwright's `setInputFiles` takes it: its name, type and
/// bytes; a large file as its head and `a`s, as wayfarer made it.
fn file_payload(spec: &wayfarer_core::files::FileSpec) -> String {
    use base64::Engine;
    let bytes = spec.bytes();
    let head = &bytes[..bytes.len().min(spec.head().len())];
    let b64 = base64::engine::general_purpose::STANDARD.encode(head);
    let buffer = if bytes.len() > head.len() {
        format!(
            "Buffer.concat([Buffer.from('{b64}', 'base64'), Buffer.alloc({}, 'a')])",
            bytes.len() - head.len()
        )
    } else {
        format!("Buffer.from('{b64}', 'base64')")
    };
    format!(
        "{{ name: {}, mimeType: {}, buffer: {buffer} }}",
        str_lit(&spec.name),
        str_lit(spec.mime())
    )
}

/// An action of the specification's generators, with Playwright's mouse and keyboard as
/// wayfarer's browser performs it (the project's viewport is wayfarer's window, so a
/// point lands where it did).
fn spec_action(b: &mut Body, a: &wayfarer_core::Action) -> bool {
    let s = match SpecAction::of(a) {
        Ok(s) => s,
        Err(e) => {
            b.line(format!(
                "// (an action wayfarer could not read: {})",
                comment(&e.0)
            ));
            return false;
        }
    };
    match s {
        SpecAction::Back => b.line("await app.back();"),
        SpecAction::Forward => b.line("await app.forward();"),
        SpecAction::Reload => b.line("await page.reload();"),
        SpecAction::Wait => b.line(format!("await page.waitForTimeout({WAIT_MS});")),
        SpecAction::Click { point, .. } => {
            b.line(format!("await page.mouse.click({}, {});", point.x, point.y))
        }
        SpecAction::DoubleClick {
            point,
            delay_millis,
            ..
        } if delay_millis <= 0.0 => b.line(format!(
            "await page.mouse.dblclick({}, {});",
            point.x, point.y
        )),
        SpecAction::DoubleClick {
            point,
            delay_millis,
            ..
        } => {
            // The second press counts 2 after the delay: a double click to the page.
            b.line(format!("await page.mouse.click({}, {});", point.x, point.y));
            b.line(format!("await page.waitForTimeout({delay_millis});"));
            b.line("await page.mouse.down({ clickCount: 2 });");
            b.line("await page.mouse.up({ clickCount: 2 });");
        }
        SpecAction::TypeText { text, delay_millis } if delay_millis <= 0.0 => b.line(format!(
            "await page.keyboard.insertText({});",
            str_lit(&text)
        )),
        SpecAction::TypeText { text, delay_millis } => b.line(format!(
            "for (const c of {}) {{ await page.waitForTimeout({delay_millis}); \
             await page.keyboard.insertText(c); }}",
            str_lit(&text)
        )),
        SpecAction::PressKey { code } => b.line(format!(
            "await page.keyboard.press({});",
            str_lit(key_label(code as u8))
        )),
        SpecAction::ScrollUp { origin, distance } => wheel(b, origin, -distance),
        SpecAction::ScrollDown { origin, distance } => wheel(b, origin, distance),
        SpecAction::SetFileInputFiles { selector, files } => {
            let files: Vec<String> = files.iter().map(|f| str_lit(f)).collect();
            b.line(format!(
                "await page.setInputFiles({}, [{}]);",
                str_lit(&selector),
                files.join(", ")
            ))
        }
        SpecAction::MouseDrag {
            from,
            to,
            steps,
            delay_millis,
        } => {
            b.line(format!("await page.mouse.move({}, {});", from.x, from.y));
            b.line("await page.mouse.down();");
            if delay_millis > 0.0 {
                b.line(format!(
                    "for (let i = 1; i <= {steps}; i++) {{ await page.waitForTimeout({delay_millis}); \
                     await page.mouse.move({} + ({} - {}) * i / {steps}, {} + ({} - {}) * i / {steps}); }}",
                    from.x, to.x, from.x, from.y, to.y, from.y
                ));
            } else {
                b.line(format!(
                    "await page.mouse.move({}, {}, {{ steps: {steps} }});",
                    to.x, to.y
                ));
            }
            b.line("await page.mouse.up();");
        }
        SpecAction::SetViewport { width, height } => b.line(format!(
            "await page.setViewportSize({{ width: {width}, height: {height} }});"
        )),
    }
    true
}

fn wheel(b: &mut Body, origin: wayfarer_core::spec_action::Point, dy: f64) {
    b.line(format!(
        "await page.mouse.move({}, {});",
        origin.x, origin.y
    ));
    b.line(format!("await page.mouse.wheel(0, {dy});"));
}

/// Navigation resolves against the page the step was taken on, as wayfarer's does;
/// wayfarer blocks destinations outside the application, so the test does not go there.
fn navigate(b: &mut Body, step: &TraceStep, cx: &SpecContext, allow: &[String]) -> bool {
    let value = step.action.value.as_deref().unwrap_or("");
    let base = Url::parse(&step.url).unwrap_or_else(|_| cx.start.clone());
    let Ok(url) = base.join(value) else {
        b.line("// (not a URL: wayfarer could not load it either)");
        return false;
    };
    let origin = url.origin().ascii_serialization();
    let allowed = url.origin() == cx.start.origin()
        || allow
            .iter()
            .any(|o| Url::parse(o).is_ok_and(|a| a.origin().ascii_serialization() == origin));
    if allowed {
        b.line(format!("await page.goto({});", str_lit(&app_url(&url, cx))));
    } else {
        b.line("// (outside the application's origins: wayfarer blocked this navigation)");
    }
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FeatureCheck;

    fn check(end_url: &str, end_title: &str) -> FeatureCheck {
        FeatureCheck {
            label: "View group".into(),
            end_url: end_url.into(),
            end_title: end_title.into(),
            ..FeatureCheck::default()
        }
    }

    #[test]
    fn an_upload_carries_the_bytes_wayfarer_set_a_large_one_as_its_head_and_padding() {
        use wayfarer_core::files::FileSpec;
        let small = file_payload(&FileSpec::parse("data.csv"));
        // "name,amount\nCoffee,3.50\nTrain,12.00\n" in base64.
        assert_eq!(
            small,
            "{ name: 'data.csv', mimeType: 'text/csv', buffer: \
             Buffer.from('bmFtZSxhbW91bnQKQ29mZmVlLDMuNTAKVHJhaW4sMTIuMDAK', 'base64') }"
        );
        let large = file_payload(&FileSpec::parse("photo.png:6291456"));
        let head = FileSpec::parse("photo.png").bytes().len();
        assert!(
            large.contains(&format!("Buffer.alloc({}, 'a')", 6291456 - head)),
            "{large}"
        );
        let empty = file_payload(&FileSpec::parse("notes.txt:0"));
        assert!(empty.contains("Buffer.from('', 'base64')"), "{empty}");
    }

    #[test]
    fn a_replay_ends_where_the_test_checks_up_to_ids() {
        let base = Url::parse("http://127.0.0.1:4000/").unwrap();
        let c = check("http://127.0.0.1:4000/#/groups/1", "Ski trip · Splitter");
        assert_eq!(
            c.holds(
                "http://127.0.0.1:4000/#/groups/17",
                "Ski trip · Splitter",
                &base
            ),
            Ok(())
        );
        assert!(c
            .holds(
                "http://127.0.0.1:4000/#/groups/1/settle",
                "Ski trip · Splitter",
                &base
            )
            .unwrap_err()
            .contains("ends on"));
        assert!(c
            .holds(
                "http://127.0.0.1:4000/#/groups/1",
                "Travel update · Splitter",
                &base
            )
            .unwrap_err()
            .contains("titled"));
        // Digits in a title are free as in the pattern; other text is not.
        let t = check("http://127.0.0.1:4000/r/2", "Report 2026-11");
        assert_eq!(
            t.holds("http://127.0.0.1:4000/r/3", "Report 2025-1", &base),
            Ok(())
        );
        assert!(t
            .holds("http://127.0.0.1:4000/r/3", "Report 2025", &base)
            .is_err());
        assert_eq!(digits_free("Report 2026-11"), "Report \\d+-\\d+");
        // A feature that ended outside the application checks its title alone.
        let out = check("https://example.org/help", "Help");
        assert_eq!(
            out.holds("https://example.org/other", "Help", &base),
            Ok(())
        );
        // Another origin than the application's fails a check made in it.
        assert!(c
            .holds(
                "http://127.0.0.1:5000/#/groups/1",
                "Ski trip · Splitter",
                &base
            )
            .is_err());
    }
}
