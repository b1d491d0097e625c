//! `wayfarer init`: a first `wayfarer.toml` for an application, from what its pages show.
//!
//! The login form becomes `[[login]]` steps that read `${WAYFARER_USER}` and
//! `${WAYFARER_PASSWORD}`; with both set, the steps are tried as a run replays them. The
//! logout controls seen once logged in become `[[deny]]` rules, the test id attribute the
//! page uses most is named, and what a plain load already reports (a console error, a 4xx)
//! is offered as a commented-out `ignore` pattern. The reading of pages ([`plan_from`]) is
//! apart from the browser that shows them ([`init`]), so it is tested on observations.

use std::sync::LazyLock;

use regex::Regex;
use url::Url;
use wayfarer_browser::{find_chrome, BrowserEnv, BrowserOptions};
use wayfarer_core::config::{DenyRule, LoginStep, OracleConfig};
use wayfarer_core::env::Outcome;
use wayfarer_core::secrets::Secrets;
use wayfarer_core::trace::unmask;
use wayfarer_core::{
    Action, ActionKind, Element, Environment, Observation, Oracles, TEST_ID_ATTRS,
};

use crate::{environment, RunError, Why};

/// The environment variable the login steps read the user from.
pub const USER_VAR: &str = "WAYFARER_USER";
/// The environment variable the login steps read the password from.
pub const PASSWORD_VAR: &str = "WAYFARER_PASSWORD";

/// Test id attributes in use elsewhere, looked for besides the ones a run reads anyway
/// (`TEST_ID_ATTRS`); the scan reports them all.
const MORE_TEST_IDS: &[&str] = &[
    "data-qa",
    "data-test-subj",
    "data-automation-id",
    "data-e2e",
    "data-pw",
];

/// What `init` needs besides the URL.
#[derive(Clone, Debug, Default)]
pub struct InitOptions {
    /// The Chromium binary (default: `$CHROME`, then the Debian paths).
    pub chrome: Option<String>,
    /// The user and password to try the login with (`WAYFARER_USER`,
    /// `WAYFARER_PASSWORD`); `None`: the steps are written, not tried.
    pub credentials: Option<(String, String)>,
}

/// The login form found: CSS selectors of its fields and of its submit control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoginForm {
    /// The page that shows it (absolute URL).
    pub page: String,
    /// The control that opens it on that page (a "Log in" button that shows a dialog),
    /// when it is not shown by loading the page.
    pub opener: Option<String>,
    /// The user field (a text, e-mail or username field before the password).
    pub user: Option<String>,
    pub password: String,
    /// The control that sends the form; `None` when none could be told apart.
    pub submit: Option<String>,
}

/// Whether the login steps were seen to log in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No credentials in the environment, or no login form.
    NotTried(String),
    /// The login form is gone once logged in.
    Yes { lands_on: String },
    /// The steps ran and the form stayed, with no error shown: an application that shows
    /// its login form to a logged-in user, or a login that silently failed.
    Unsure { lands_on: String, why: String },
    /// The steps failed, or the page said the login was refused.
    No(String),
}

/// A `[[deny]]` rule and what it was made from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denied {
    pub rule: DenyRule,
    /// The control it stands for, e.g. `a link "Sign out" to /logout`.
    pub seen: String,
}

/// Everything `init` found, ready to be written as a configuration ([`render`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub start_url: String,
    pub login: Option<LoginForm>,
    /// Why no login form was found, when none was.
    pub no_login: Option<String>,
    pub verdict: Verdict,
    pub deny: Vec<Denied>,
    /// The test id attribute used most, with how many elements carry it.
    pub test_ids: Option<(String, usize)>,
    /// What a plain load already reports, as `ignore` patterns ("kind: message").
    pub noise: Vec<String>,
    /// Origins besides the start URL's the login needs (a login page elsewhere).
    pub allow_origins: Vec<String>,
}

impl Plan {
    /// The `[[login]]` steps: load the login page, fill the fields, click the submit.
    pub fn login_steps(&self) -> Vec<LoginStep> {
        self.login
            .as_ref()
            .map(|form| steps_for(&self.start_url, form))
            .unwrap_or_default()
    }
}

/// The login steps of `form` for a run that starts at `start_url`.
fn steps_for(start_url: &str, form: &LoginForm) -> Vec<LoginStep> {
    let step = LoginStep {
        goto: None,
        fill: None,
        value: None,
        click: None,
    };
    let mut steps = vec![LoginStep {
        goto: Some(relative_to(start_url, &form.page)),
        ..step.clone()
    }];
    if let Some(opener) = &form.opener {
        steps.push(LoginStep {
            click: Some(opener.clone()),
            ..step.clone()
        });
    }
    if let Some(user) = &form.user {
        steps.push(LoginStep {
            fill: Some(user.clone()),
            value: Some(format!("${{{USER_VAR}}}")),
            ..step.clone()
        });
    }
    steps.push(LoginStep {
        fill: Some(form.password.clone()),
        value: Some(format!("${{{PASSWORD_VAR}}}")),
        ..step.clone()
    });
    if let Some(submit) = &form.submit {
        steps.push(LoginStep {
            click: Some(submit.clone()),
            ..step
        });
    }
    steps
}

/// `to` as a login step's `goto`: its path and query when it is on `start`'s origin.
fn relative_to(start: &str, to: &str) -> String {
    match (Url::parse(start), Url::parse(to)) {
        (Ok(s), Ok(t)) if s.origin() == t.origin() => {
            let mut p = t.path().to_string();
            if let Some(q) = t.query() {
                p.push('?');
                p.push_str(q);
            }
            p
        }
        _ => to.to_string(),
    }
}

static LOGIN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\W*(log\s*-?\s*in|sign\s*-?\s*in|login|signin)\b").expect("regex")
});
static LOGIN_HREF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(log_?-?in|sign_?-?in)\b").expect("regex"));
static LOGOUT_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(log\s*-?\s*out|sign\s*-?\s*out|log\s*-?\s*off|sign\s*-?\s*off|logout|signout)\b",
    )
    .expect("regex")
});
static LOGOUT_HREF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(log_?-?out|sign_?-?out|log_?-?off|sign_?-?off)").expect("regex")
});
static REFUSED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(invalid|incorrect|wrong|failed|failure|error|denied|not match|try again|unable|locked|too many)\b",
    )
    .expect("regex")
});

/// The words a control goes by: its text, label, `aria-label` and `title`.
fn names(e: &Element) -> Vec<&str> {
    let mut v = vec![e.text.as_str(), e.label.as_str()];
    for a in ["aria-label", "title", "value"] {
        if let Some(x) = e.attrs.get(a) {
            v.push(x);
        }
    }
    v.into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

fn input_type(e: &Element) -> &str {
    e.input_type.as_deref().unwrap_or("")
}

/// A selector a login step can use: the scan's, unless it crosses into a frame or a
/// shadow root (`>>>`), where `document.querySelector` cannot follow.
fn usable(e: &Element) -> Option<String> {
    (!e.locator.contains(">>>")).then(|| e.locator.clone())
}

fn is_text_field(e: &Element) -> bool {
    e.tag == "input" && matches!(input_type(e), "" | "text" | "email" | "tel")
}

fn sends_form(e: &Element) -> bool {
    match e.tag.as_str() {
        "button" => !matches!(input_type(e), "button" | "reset"),
        "input" => matches!(input_type(e), "submit" | "image"),
        _ => false,
    }
}

fn says_login(e: &Element) -> bool {
    names(e).iter().any(|n| LOGIN_TEXT.is_match(n))
}

/// The login form of a page: a password field (the only one of its form, so not a
/// sign-up form's pair), the user field just before it, and the control that sends it.
pub fn find_login(obs: &Observation) -> Option<LoginForm> {
    let els = &obs.elements;
    let shown = |e: &&Element| e.visible && e.enabled;
    let passwords: Vec<(usize, &Element)> = els
        .iter()
        .enumerate()
        .filter(|(_, e)| e.tag == "input" && input_type(e) == "password" && shown(e))
        .collect();
    let same_form = |a: &Element, b: &Element| a.form.is_some() && a.form == b.form;
    let (at, password) = passwords
        .iter()
        .copied()
        .find(|(_, p)| passwords.iter().filter(|(_, q)| same_form(p, q)).count() <= 1)?;
    let password_sel = field_selector(password, els)?;
    // Fields of its form, or with no form at all, those anywhere before it.
    let mates = |e: &&Element| {
        if password.form.is_some() {
            same_form(e, password)
        } else {
            true
        }
    };
    let before: Vec<&Element> = els[..at].iter().filter(shown).filter(mates).collect();
    let user = before
        .iter()
        .rev()
        .find(|e| {
            e.attrs
                .get("autocomplete")
                .is_some_and(|a| a.contains("username") || a.contains("email"))
        })
        .or_else(|| before.iter().rev().find(|e| is_text_field(e)))
        .and_then(|e| field_selector(e, els));
    // A submit may be disabled until the fields are filled: shown is enough.
    let seen = |e: &&Element| e.visible;
    let after: Vec<&Element> = els[at + 1..].iter().filter(seen).filter(mates).collect();
    let submit = after
        .iter()
        .find(|e| sends_form(e) && says_login(e))
        .or_else(|| after.iter().find(|e| sends_form(e)))
        .copied()
        // A script's login: a button named like one, anywhere after the field.
        .or_else(|| {
            els[at + 1..].iter().filter(seen).find(|e| {
                (e.tag == "button" || e.role.as_deref() == Some("button")) && says_login(e)
            })
        })
        .and_then(|e| submit_selector(e, els));
    Some(LoginForm {
        page: obs.url.clone(),
        opener: None,
        user,
        password: password_sel,
        submit,
    })
}

/// Whether the scan's selector is a bare `#id`, as a person would write it anyway.
fn by_plain_id(e: &Element) -> bool {
    e.locator.starts_with('#') && !e.locator.contains([' ', '>', ':', '.'])
}

/// A field as a person would name it: `#id`, else by a `name` or `autocomplete` no other
/// element of the page shares, else the scan's selector.
fn field_selector(e: &Element, els: &[Element]) -> Option<String> {
    if !by_plain_id(e) && !e.locator.contains(">>>") {
        for attr in ["name", "autocomplete"] {
            let Some(v) = e
                .attrs
                .get(attr)
                .filter(|v| !v.is_empty() && !v.contains('"'))
            else {
                continue;
            };
            if els.iter().filter(|x| x.attrs.get(attr) == Some(v)).count() == 1 {
                return Some(format!("{}[{attr}=\"{v}\"]", e.tag));
            }
        }
    }
    usable(e)
}

/// The submit control as a person would name it, `#login-form button[type="submit"]`,
/// when it is the only one of its form, else the scan's selector (or its `#id`).
fn submit_selector(e: &Element, els: &[Element]) -> Option<String> {
    let submit_typed = |x: &Element| {
        x.attrs
            .get("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("submit"))
    };
    if let (Some(form), false, true) = (e.form.as_deref(), by_plain_id(e), submit_typed(e)) {
        let alike = els
            .iter()
            .filter(|x| x.form == e.form && x.tag == e.tag && submit_typed(x))
            .count();
        if alike == 1 && !form.contains(">>>") {
            return Some(format!("{form} {}[type=\"submit\"]", e.tag));
        }
    }
    usable(e)
}

/// A control that leads to the login page: a link or button named "Log in" / "Sign in",
/// or a link whose address says so.
pub fn login_link(obs: &Observation) -> Option<&Element> {
    let candidates = obs
        .elements
        .iter()
        .filter(|e| e.visible && e.enabled && !e.actionable.is_empty());
    let by_name = candidates.clone().find(|e| says_login(e));
    by_name.or_else(|| {
        candidates
            .filter(|e| e.tag == "a")
            .find(|e| e.attrs.get("href").is_some_and(|h| LOGIN_HREF.is_match(h)))
    })
}

/// `[[deny]]` rules for the logout controls of these pages (the scan reports the shown
/// ones: a logout in a closed menu is not seen), by their text where they have a short
/// one, else by their address, and the forms that post to a logout address.
pub fn logout_rules(pages: &[&Observation]) -> Vec<Denied> {
    let mut out: Vec<Denied> = Vec::new();
    let controls = pages.iter().flat_map(|o| o.elements.iter());
    for e in controls.filter(|e| !e.actionable.is_empty()) {
        let href = e.attrs.get("href").or_else(|| e.attrs.get("action"));
        let named = names(e)
            .into_iter()
            .find(|n| n.chars().count() <= 30 && LOGOUT_TEXT.is_match(n));
        let by_href = href.and_then(|h| LOGOUT_HREF.find(h).map(|m| m.as_str().to_string()));
        let what = match e.tag.as_str() {
            "a" => "a link",
            "button" | "input" => "a button",
            _ => "a control",
        };
        let place = href.map(|h| format!(" to {h}")).unwrap_or_default();
        let denied = if let Some(text) = named {
            Denied {
                rule: DenyRule {
                    selector: None,
                    text: Some(text.to_string()),
                },
                seen: format!("{what} \"{text}\"{place}"),
            }
        } else if let Some(word) = by_href {
            Denied {
                rule: DenyRule {
                    selector: Some(format!("[href*=\"{word}\" i]")),
                    text: None,
                },
                seen: format!("{what}{place}"),
            }
        } else {
            continue;
        };
        let same = |d: &Denied| {
            d.rule.selector == denied.rule.selector
                && d.rule.text.as_deref().map(str::to_lowercase)
                    == denied.rule.text.as_deref().map(str::to_lowercase)
        };
        if !out.iter().any(same) {
            out.push(denied);
        }
    }
    // A form that posts to a logout address: everything in it, whatever its buttons say.
    static FORM_ACTION: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"<form\b[^>]*\saction="([^"]*)""#).expect("regex"));
    for o in pages {
        for c in FORM_ACTION.captures_iter(&o.html) {
            let Some(word) = LOGOUT_HREF.find(&c[1]).map(|m| m.as_str().to_string()) else {
                continue;
            };
            let selector = format!("form[action*=\"{word}\" i]");
            if !out
                .iter()
                .any(|d| d.rule.selector.as_deref() == Some(selector.as_str()))
            {
                out.push(Denied {
                    rule: DenyRule {
                        selector: Some(selector),
                        text: None,
                    },
                    seen: format!("a form posting to {}", &c[1]),
                });
            }
        }
    }
    out
}

/// The test id attribute most elements of these pages carry, and how many do.
pub fn test_id_attribute(pages: &[&Observation]) -> Option<(String, usize)> {
    TEST_ID_ATTRS
        .iter()
        .chain(MORE_TEST_IDS)
        .map(|a| {
            let n = pages
                .iter()
                .flat_map(|o| o.elements.iter())
                .filter(|e| e.attrs.contains_key(*a))
                .count();
            (a.to_string(), n)
        })
        .filter(|(_, n)| *n > 0)
        // The first of the most used: the common ones win a tie.
        .fold(None, |best: Option<(String, usize)>, (a, n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((a, n)),
        })
}

/// What the oracles would report on these outcomes already, 4xx included, as `ignore`
/// patterns that match each message ("kind: message", escaped, cut at 120 characters).
pub fn noise(outcomes: &[&Outcome], origin: &str) -> Vec<String> {
    let oracles = Oracles::new(
        OracleConfig {
            http_4xx: true,
            ..OracleConfig::default()
        },
        vec![origin.to_string()],
    )
    .expect("the default oracles have no pattern");
    let mut out: Vec<String> = Vec::new();
    for o in outcomes {
        for f in oracles.judge(&o.events, Some(&o.observation)) {
            if f.warning {
                continue;
            }
            let message: String = f.message.chars().take(120).collect();
            let pattern = format!("{}: {}", f.kind.as_str(), regex::escape(&message));
            if !out.contains(&pattern) {
                out.push(pattern);
            }
        }
    }
    out
}

/// The page's text, one piece per text node of the simplified HTML.
fn texts(obs: &Observation) -> Vec<String> {
    static TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<[^>]*>").expect("regex"));
    TAG.split(&obs.html)
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty())
        .collect()
}

/// What the page after a login says that the login page did not (at most 80 characters).
fn news(before: &Observation, after: &Observation) -> String {
    let old = texts(before);
    let new: Vec<String> = texts(after)
        .into_iter()
        .filter(|t| !old.contains(t))
        .collect();
    let mut s = new.join(" ");
    if s.chars().count() > 80 {
        s = s.chars().take(79).collect::<String>() + "…";
    }
    s
}

/// Whether every field of the login form is on the page.
fn shows_form(obs: &Observation, form: &LoginForm) -> bool {
    let on = |sel: &str| obs.elements.iter().any(|e| e.locator == sel && e.visible);
    on(&form.password) && form.user.as_deref().is_none_or(on)
}

/// The verdict on a login from the page before it, the page right after sending it, and
/// the start page a run's reset then loads.
pub fn judge_login(
    form: &LoginForm,
    login_page: &Observation,
    after_submit: &Observation,
    start_after: &Observation,
    secrets: &Secrets,
) -> Verdict {
    if form.submit.is_none() {
        return Verdict::No(
            "no control that sends the form was found: add its `click` step".into(),
        );
    }
    let said = secrets.mask(&news(login_page, after_submit));
    if !shows_form(after_submit, form) {
        let lands_on = secrets.mask(&after_submit.url);
        return Verdict::Yes { lands_on };
    }
    // A form a control opens (a dialog) is not on the start page anyway; a single-page
    // app may still show the form while its login request runs.
    if form.opener.is_none() && !shows_form(start_after, form) {
        let lands_on = secrets.mask(&start_after.url);
        return Verdict::Yes { lands_on };
    }
    let lands_on = secrets.mask(&after_submit.url);
    if REFUSED.is_match(&said) {
        return Verdict::No(format!("the login page came back saying \"{said}\""));
    }
    let why = if said.is_empty() {
        "the login form came back unchanged: the user or password may be wrong".to_string()
    } else {
        format!("the login form is still shown, and the page now says \"{said}\"")
    };
    Verdict::Unsure { lands_on, why }
}

/// The plan from pages already seen: the start page's first load, the login page (the
/// start page or the one its sign-in link led to), and, when the login was tried, the
/// page right after it and the start page behind it.
pub fn plan_from(
    start_url: &str,
    start: &Outcome,
    login_page: Option<&Outcome>,
    form: Option<LoginForm>,
    verdict: Verdict,
    behind: &[&Observation],
) -> Plan {
    let origin = Url::parse(start_url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default();
    let no_login = match (login_page, &form) {
        (_, Some(_)) => None,
        (None, None) => Some("no password field on the start page, and no link to log in".into()),
        (Some(p), None) => Some(format!(
            "no usable password field on {} (one in a frame or a shadow root, or a sign-up form's pair)",
            p.observation.url
        )),
    };
    let mut pages: Vec<&Observation> = behind.to_vec();
    if pages.is_empty() {
        pages.push(&start.observation);
    }
    let mut outcomes = vec![start];
    outcomes.extend(login_page.filter(|p| p.observation.url != start.observation.url));
    let allow_origins = form
        .as_ref()
        .and_then(|f| Url::parse(&f.page).ok())
        .map(|u| u.origin().ascii_serialization())
        .filter(|o| *o != origin)
        .into_iter()
        .collect();
    Plan {
        deny: logout_rules(&pages),
        test_ids: test_id_attribute(&pages),
        noise: noise(&outcomes, &origin),
        start_url: start_url.to_string(),
        login: form,
        no_login,
        verdict,
        allow_origins,
    }
}

/// Open the application, find its login, try it when credentials are given, and return
/// what a first configuration should say.
pub fn init(url: &Url, opts: &InitOptions) -> Result<Plan, RunError> {
    crate::app::check_reachable(url)?;
    let chrome = find_chrome(opts.chrome.as_deref())
        .environment(|| "cannot start the browser".to_string())?;
    let launch = |login: Vec<LoginStep>| {
        BrowserEnv::launch(BrowserOptions {
            login,
            chrome: Some(chrome.clone()),
            ..BrowserOptions::new(url.clone())
        })
        .environment(|| "cannot start the browser".to_string())
    };
    let mut env = launch(Vec::new())?;
    let start = env.reset().environment(|| format!("cannot load {url}"))?;
    let (login_page, form) = if let Some(form) = find_login(&start.observation) {
        (Some(start.clone()), Some(form))
    } else if let Some(link) = login_link(&start.observation) {
        let click = Action::on(ActionKind::Click, link.locator.clone());
        let shown = env.step(&click).ok();
        let form = shown.as_ref().and_then(|o| find_login(&o.observation));
        // The same page with the form shown (a dialog): the steps click it open too.
        let dialog = shown
            .as_ref()
            .is_some_and(|o| o.observation.url == start.observation.url);
        let form = form.map(|f| LoginForm {
            opener: usable(link).filter(|_| dialog),
            ..f
        });
        (shown, form)
    } else {
        (None, None)
    };
    let (verdict, behind) = match (&form, &opts.credentials) {
        (None, _) => (Verdict::NotTried("no login form".into()), Vec::new()),
        (Some(_), None) => (
            Verdict::NotTried(format!(
                "{USER_VAR} and {PASSWORD_VAR} are not both set: the steps were written, not tried"
            )),
            Vec::new(),
        ),
        (Some(form), Some((user, password))) => {
            let secrets = Secrets::new([
                (USER_VAR.to_string(), user.clone()),
                (PASSWORD_VAR.to_string(), password.clone()),
            ]);
            let page = login_page.as_ref().expect("a form comes from a page");
            try_login(
                &mut env,
                form,
                &page.observation,
                user,
                password,
                &secrets,
                &launch,
                url,
            )?
        }
    };
    env.close();
    let behind: Vec<&Observation> = behind.iter().collect();
    Ok(plan_from(
        url.as_str(),
        &start,
        login_page.as_ref(),
        form,
        verdict,
        &behind,
    ))
}

/// Log in by hand in `env` (to see where the login lands and what it says), then as a
/// run's reset does, in a fresh browser with the steps; the pages behind the login come
/// back for the deny rules and test ids.
#[allow(clippy::too_many_arguments)]
fn try_login(
    env: &mut BrowserEnv,
    form: &LoginForm,
    login_page: &Observation,
    user: &str,
    password: &str,
    secrets: &Secrets,
    launch: &dyn Fn(Vec<LoginStep>) -> Result<BrowserEnv, RunError>,
    url: &Url,
) -> Result<(Verdict, Vec<Observation>), RunError> {
    let typed = |sel: &str, v: &str| Action {
        kind: ActionKind::Type,
        target: Some(sel.to_string()),
        value: Some(v.to_string()),
    };
    let mut actions = vec![];
    if let Some(u) = &form.user {
        actions.push(typed(u.as_str(), user));
    }
    actions.push(typed(form.password.as_str(), password));
    if let Some(s) = &form.submit {
        actions.push(Action::on(ActionKind::Click, s.clone()));
    }
    let mut after = None;
    for a in &actions {
        match env.step(a) {
            Ok(o) => after = Some(o.observation),
            Err(e) => {
                return Ok((
                    Verdict::No(secrets.mask(&format!("logging in by hand failed: {e}"))),
                    vec![],
                ))
            }
        }
    }
    let after = after.expect("at least the password is typed");
    // The steps as written, with the values the run will read from the environment.
    let env = |k: &str| match k {
        USER_VAR => Some(user.to_string()),
        PASSWORD_VAR => Some(password.to_string()),
        _ => None,
    };
    let steps: Vec<LoginStep> = steps_for(url.as_str(), form)
        .into_iter()
        .map(|mut s| {
            // The references resolved as a run resolves them (`trace::unmask`).
            s.value = s.value.map(|v| unmask(&v, env).unwrap_or(v));
            s
        })
        .collect();
    let mut fresh = launch(steps)?;
    let reset = fresh.reset();
    fresh.close();
    let start_after = match reset {
        Ok(o) => o.observation,
        Err(e) => {
            return Ok((
                Verdict::No(secrets.mask(&format!(
                    "the steps did not log in as a run replays them: {e}"
                ))),
                vec![after],
            ))
        }
    };
    let verdict = judge_login(form, login_page, &after, &start_after, secrets);
    Ok((verdict, vec![after, start_after]))
}

/// The TOML string of `s` (quoted and escaped).
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The configuration file for `plan`: every section commented, the login steps and deny
/// rules live, the rest suggestions to uncomment.
pub fn render(plan: &Plan, file: &str) -> String {
    let mut s = String::new();
    let mut line = |l: &str| {
        s.push_str(l);
        s.push('\n');
    };
    line(&format!(
        "# wayfarer configuration for {}, written by `wayfarer init`.",
        plan.start_url
    ));
    line("# Every key with its default: docs/src/configuration.md (the book's configuration reference).");
    let creds = if plan.login.is_some() {
        format!("{USER_VAR}=... {PASSWORD_VAR}=... ")
    } else {
        String::new()
    };
    line(&format!(
        "# Explore with it: {creds}wayfarer explore {} --config {file}",
        plan.start_url
    ));
    line("");
    line("[scope]");
    if plan.allow_origins.is_empty() {
        line("# Origins the run may visit besides the start URL's own (none needed so far).");
        line("# allow_origins = [\"http://127.0.0.1:8081\"]");
    } else {
        line("# The login page is on another origin: the run may go there.");
        let list: Vec<String> = plan.allow_origins.iter().map(|o| quoted(o)).collect();
        line(&format!("allow_origins = [{}]", list.join(", ")));
    }
    line("");
    match &plan.login {
        None => {
            line(&format!(
                "# No login form found ({}). If the application has one, add steps:",
                plan.no_login.as_deref().unwrap_or("none seen")
            ));
            line("# [[login]]");
            line("# goto = \"/login\"");
            line("# [[login]]");
            line("# fill = \"#user\"");
            line(&format!("# value = \"...\"   # a reference to ${USER_VAR} in braces keeps it out of the file"));
        }
        Some(form) => {
            line(&format!(
                "# The login form of {}, replayed after every reset; the values come from",
                form.page
            ));
            line(&format!(
                "# the environment (${USER_VAR}, ${PASSWORD_VAR}) and never land in a file."
            ));
            // A text the mask turned into `${NAME}` (a short password found in a URL)
            // reads as if the secret were part of it: left out.
            let plain = |t: &str| !t.contains("${");
            match &plan.verdict {
                Verdict::Yes { lands_on } if plain(lands_on) => {
                    line(&format!(
                        "# Tried: it logs in (the login led to {lands_on})."
                    ));
                }
                Verdict::Yes { .. } => line("# Tried: it logs in."),
                Verdict::Unsure { why, .. } if plain(why) => {
                    line(&format!("# Tried: unsure whether it logs in ({why})."));
                }
                Verdict::Unsure { .. } => {
                    line("# Tried: unsure whether it logs in (see what init printed).")
                }
                Verdict::No(why) if plain(why) => {
                    line(&format!("# Tried: it did NOT log in: {why}."))
                }
                Verdict::No(_) => line("# Tried: it did NOT log in (see what init printed)."),
                Verdict::NotTried(why) => line(&format!("# Not tried: {why}.")),
            }
            if form.user.is_none() {
                line("# No user field was found before the password field: add its `fill` step if it has one.");
            }
            if form.submit.is_none() {
                line("# No control that sends the form was found: add its `click` step.");
            }
            for step in plan.login_steps() {
                line("[[login]]");
                for (k, v) in [
                    ("goto", &step.goto),
                    ("fill", &step.fill),
                    ("value", &step.value),
                    ("click", &step.click),
                ] {
                    if let Some(v) = v {
                        line(&format!("{k} = {}", quoted(v)));
                    }
                }
            }
        }
    }
    line("");
    if plan.deny.is_empty() {
        line("# Controls never to act on. No logout control was seen; if there is one, deny it:");
        line("# [[deny]]");
        line("# text = \"Log out\"");
    } else {
        line("# Logging out only undoes the login: never act on these.");
        for d in &plan.deny {
            line(&format!("# {}", d.seen));
            line("[[deny]]");
            if let Some(t) = &d.rule.text {
                line(&format!("text = {}", quoted(t)));
            }
            if let Some(sel) = &d.rule.selector {
                line(&format!("selector = {}", quoted(sel)));
            }
        }
    }
    line("");
    line("[browser]");
    match &plan.test_ids {
        Some((attr, n)) if TEST_ID_ATTRS.contains(&attr.as_str()) => {
            line(&format!(
                "# The page names {n} element(s) with {attr}, which a run reads anyway."
            ));
            line("# test_id_attributes = []");
        }
        Some((attr, n)) => {
            line(&format!(
                "# The page names {n} element(s) with {attr}: exported tests locate by it."
            ));
            line(&format!("test_id_attributes = [{}]", quoted(attr)));
        }
        None => {
            line("# No test id attribute seen; name yours if the application has one.");
            line("# test_id_attributes = [\"data-qa\"]");
        }
    }
    line("");
    line("[oracles]");
    if plan.noise.is_empty() {
        line(
            "# A plain load of the start page reported nothing. Known noise, once seen, goes here:",
        );
        line("# ignore = [\"console_error: .*favicon\"]");
    } else {
        line("# A plain load already reports these (4xx only count with http_4xx = true).");
        line("# Uncomment the ones that are known noise rather than bugs:");
        line("# ignore = [");
        for p in &plan.noise {
            line(&format!("#   {},", quoted(p)));
        }
        line("# ]");
    }
    line("");
    line("[budget]");
    line("# budget = \"5m\"   # actions (300, the default), a time (5m) or both (300,5m)");
    s
}

/// Where `init` writes, refusing to replace a file unless told to.
pub fn check_output(path: &std::path::Path, force: bool) -> Result<(), RunError> {
    if path.exists() && !force {
        return Err(crate::usage!(
            "{} exists; pass --force to replace it, or -o to write elsewhere",
            path.display()
        ));
    }
    Ok(())
}

/// Write the configuration (after [`check_output`]).
pub fn write(path: &std::path::Path, text: &str) -> Result<(), RunError> {
    std::fs::write(path, text).map_err(|e| environment!("cannot write {}: {e}", path.display()))
}

/// The credentials of the environment, when both are set and not empty.
pub fn credentials_from_env() -> Option<(String, String)> {
    let get = |k| std::env::var(k).ok().filter(|v: &String| !v.is_empty());
    Some((get(USER_VAR)?, get(PASSWORD_VAR)?))
}

#[cfg(test)]
mod tests {
    use wayfarer_core::{Event, EventKind};

    use super::*;

    fn el(tag: &str, ty: Option<&str>, locator: &str, text: &str, form: Option<&str>) -> Element {
        Element {
            locator: locator.into(),
            tag: tag.into(),
            input_type: ty.map(Into::into),
            text: text.into(),
            visible: true,
            enabled: true,
            actionable: vec![format!("tag:{tag}")],
            form: form.map(Into::into),
            ..Element::default()
        }
    }

    fn with(mut e: Element, attr: &str, v: &str) -> Element {
        e.attrs.insert(attr.into(), v.into());
        e
    }

    fn page(url: &str, elements: Vec<Element>, html: &str) -> Observation {
        Observation {
            url: url.into(),
            elements,
            html: html.into(),
            ..Observation::default()
        }
    }

    /// The expense app's login page, as its scan reports it.
    fn expense_login() -> Observation {
        let f = Some("#login-form");
        page(
            "http://127.0.0.1:8080/",
            vec![
                with(
                    el("input", Some("email"), "#email", "", f),
                    "autocomplete",
                    "username",
                ),
                el("input", Some("password"), "#password", "", f),
                with(
                    el(
                        "button",
                        Some("submit"),
                        "#login-form > div > button:nth-of-type(1)",
                        "Log in",
                        f,
                    ),
                    "type",
                    "submit",
                ),
                el(
                    "button",
                    Some("button"),
                    "#demo-fill",
                    "Fill demo credentials",
                    f,
                ),
                with(
                    el(
                        "a",
                        None,
                        "a[href=\"/register\"]",
                        "Create an account",
                        None,
                    ),
                    "href",
                    "/register",
                ),
            ],
            "<h1>Log in</h1><p>No account yet?</p>",
        )
    }

    #[test]
    fn the_login_form_is_its_password_the_user_field_before_it_and_its_submit() {
        let form = find_login(&expense_login()).unwrap();
        assert_eq!(form.user.as_deref(), Some("#email"));
        assert_eq!(form.password, "#password");
        assert_eq!(
            form.submit.as_deref(),
            Some("#login-form button[type=\"submit\"]"),
            "the submit, not the button that fills the demo values, as a person names it"
        );
    }

    #[test]
    fn a_sign_up_forms_pair_of_passwords_is_not_the_login() {
        let up = Some("#signup");
        let login = Some("#signin");
        let obs = page(
            "http://a/",
            vec![
                el("input", Some("text"), "#new-user", "", up),
                el("input", Some("password"), "#new-pw", "", up),
                el("input", Some("password"), "#new-pw2", "", up),
                el("button", None, "#signup button", "Create", up),
                el("input", Some("text"), "#user", "", login),
                el("input", Some("password"), "#pw", "", login),
                el("input", Some("submit"), "#go", "", login),
            ],
            "",
        );
        let form = find_login(&obs).unwrap();
        assert_eq!(
            (form.user.as_deref(), form.password.as_str()),
            (Some("#user"), "#pw")
        );
        // A field without an id goes by a name no other element has.
        let mut named = obs.clone();
        named.elements[4].locator = "form > div > input".into();
        named.elements[4]
            .attrs
            .insert("name".into(), "login".into());
        let form = find_login(&named).unwrap();
        assert_eq!(form.user.as_deref(), Some("input[name=\"login\"]"));
        assert_eq!(form.submit.as_deref(), Some("#go"));
        assert_eq!(find_login(&page("http://a/", vec![], "")), None);
    }

    #[test]
    fn a_script_login_without_a_form_is_sent_by_a_button_named_like_one() {
        let obs = page(
            "http://a/",
            vec![
                el("input", Some("email"), "#e", "", None),
                el("input", Some("password"), "#p", "", None),
                el("button", Some("button"), "#help", "Help", None),
                el("div", None, "#go", "Sign in", None),
            ],
            "",
        );
        let mut go = obs.clone();
        go.elements[3].role = Some("button".into());
        assert_eq!(find_login(&go).unwrap().submit.as_deref(), Some("#go"));
        assert_eq!(
            find_login(&obs).unwrap().submit,
            None,
            "nothing says it sends"
        );
    }

    #[test]
    fn the_sign_in_link_is_found_by_name_or_address() {
        let by_name = page(
            "http://a/",
            vec![
                with(el("a", None, "#home", "Home", None), "href", "/"),
                with(
                    el("a", None, "#in", "Sign in", None),
                    "href",
                    "/session/new",
                ),
            ],
            "",
        );
        assert_eq!(login_link(&by_name).unwrap().locator, "#in");
        let by_href = page(
            "http://a/",
            vec![with(
                el("a", None, "#key", "🔑", None),
                "href",
                "/accounts/login/?next=/",
            )],
            "",
        );
        assert_eq!(login_link(&by_href).unwrap().locator, "#key");
    }

    #[test]
    fn logout_controls_become_deny_rules_by_text_or_address_once_each() {
        let a = page(
            "http://a/",
            vec![
                el("button", Some("submit"), "#out", "Log out", Some("#f")),
                with(el("a", None, "#so", "Sign Out", None), "href", "/logout"),
                with(el("a", None, "#icon", "", None), "href", "/users/sign_out"),
                el("p", None, "#p", "Remember to log out", None),
            ],
            r#"<form class="inline" action="/accounts/logout/" method="post"><button>x</button></form>"#,
        );
        let mut b = a.clone();
        b.elements[0].text = "log out".into();
        b.elements[3].actionable.clear();
        let mut pages = a.clone();
        pages.elements[3].actionable.clear();
        let rules = logout_rules(&[&pages, &b]);
        let shown: Vec<(Option<&str>, Option<&str>)> = rules
            .iter()
            .map(|d| (d.rule.text.as_deref(), d.rule.selector.as_deref()))
            .collect();
        assert_eq!(
            shown,
            [
                (Some("Log out"), None),
                (Some("Sign Out"), None),
                (None, Some("[href*=\"sign_out\" i]")),
                (None, Some("form[action*=\"logout\" i]")),
            ]
        );
        assert_eq!(rules[3].seen, "a form posting to /accounts/logout/");
        assert_eq!(rules[1].seen, "a link \"Sign Out\" to /logout");
    }

    #[test]
    fn the_test_id_attribute_used_most_is_named() {
        let obs = page(
            "http://a/",
            vec![
                with(el("a", None, "#1", "x", None), "data-qa", "one"),
                with(el("a", None, "#2", "y", None), "data-qa", "two"),
                with(el("a", None, "#3", "z", None), "data-testid", "three"),
            ],
            "",
        );
        assert_eq!(test_id_attribute(&[&obs]), Some(("data-qa".into(), 2)));
        assert_eq!(test_id_attribute(&[&page("http://a/", vec![], "")]), None);
    }

    #[test]
    fn a_plain_loads_findings_become_escaped_patterns_that_match_them() {
        let mut o = Outcome {
            observation: page("http://a:1/", vec![], ""),
            ..Outcome::default()
        };
        o.events = vec![
            Event::new(
                EventKind::ConsoleError,
                "Failed to load resource: the server responded (404)",
            ),
            Event::http(404, "http://a:1/favicon.ico", false),
            Event::http(404, "http://cdn.example/x.js", false),
        ];
        let patterns = noise(&[&o], "http://a:1");
        assert_eq!(patterns.len(), 2, "{patterns:?}");
        assert!(patterns[0]
            .starts_with("console_error: Failed to load resource: the server responded \\(404\\)"));
        let config = OracleConfig {
            http_4xx: true,
            ignore: patterns,
            ..OracleConfig::default()
        };
        let quiet = Oracles::new(config, vec!["http://a:1".into()]).unwrap();
        assert!(
            quiet.judge(&o.events, None).is_empty(),
            "the patterns silence them"
        );
    }

    fn throttle_form() -> LoginForm {
        LoginForm {
            page: "http://a/throttle".into(),
            opener: None,
            user: Some("#u".into()),
            password: "#p".into(),
            submit: Some("#go".into()),
        }
    }

    fn throttle_page(html: &str) -> Observation {
        page(
            "http://a/throttle",
            vec![
                el("input", Some("text"), "#u", "", Some("#f")),
                el("input", Some("password"), "#p", "", Some("#f")),
            ],
            html,
        )
    }

    #[test]
    fn the_verdict_reads_the_form_going_away_an_error_or_neither() {
        let secrets = Secrets::new([(USER_VAR.to_string(), "ada".to_string())]);
        let form = throttle_form();
        let before = throttle_page("<h1>Log in</h1>");
        let gone = page("http://a/home", vec![], "<h1>Home</h1>");
        assert_eq!(
            judge_login(&form, &before, &gone, &gone, &secrets),
            Verdict::Yes {
                lands_on: "http://a/home".into()
            }
        );
        let refused = throttle_page("<h1>Log in</h1><span>Login failed</span>");
        assert!(matches!(
            judge_login(&form, &before, &refused, &before, &secrets),
            Verdict::No(why) if why.contains("Login failed")
        ));
        let welcome = throttle_page("<h1>Log in</h1><p>Welcome, ada!</p>");
        match judge_login(&form, &before, &welcome, &before, &secrets) {
            Verdict::Unsure { why, .. } => {
                assert!(why.contains("Welcome, ${WAYFARER_USER}!"), "masked: {why}")
            }
            v => panic!("{v:?}"),
        }
        assert!(matches!(
            judge_login(&form, &before, &before, &before, &secrets),
            Verdict::Unsure { why, .. } if why.contains("unchanged")
        ));
        // A dialog's form is not on the start page either way; no submit, no login.
        let dialog = LoginForm {
            opener: Some("#open".into()),
            ..form.clone()
        };
        let start = page("http://a/", vec![], "<h1>Home</h1>");
        assert!(matches!(
            judge_login(&dialog, &before, &before, &start, &secrets),
            Verdict::Unsure { .. }
        ));
        let unsent = LoginForm {
            submit: None,
            ..form.clone()
        };
        assert!(matches!(
            judge_login(&unsent, &before, &gone, &gone, &secrets),
            Verdict::No(why) if why.contains("click")
        ));
    }

    fn plan() -> Plan {
        let start = Outcome {
            observation: expense_login(),
            ..Outcome::default()
        };
        let behind = page(
            "http://127.0.0.1:8080/dashboard",
            vec![
                with(
                    el("a", None, "#x", "Expenses", None),
                    "data-qa",
                    "nav-expenses",
                ),
                el(
                    "button",
                    Some("submit"),
                    "form.inline > button",
                    "Log out",
                    Some("form.inline"),
                ),
            ],
            "<h1>Dashboard</h1>",
        );
        let verdict = Verdict::Yes {
            lands_on: "http://127.0.0.1:8080/dashboard".into(),
        };
        let form = find_login(&start.observation);
        plan_from(
            "http://127.0.0.1:8080/",
            &start,
            Some(&start),
            form,
            verdict,
            &[&behind],
        )
    }

    #[test]
    fn the_written_config_parses_into_the_plans_steps_and_rules() {
        let plan = plan();
        let text = render(&plan, "wayfarer.toml");
        let c = crate::config::parse(&text, |k| Some(format!("<{k}>"))).unwrap();
        let mut steps = plan.login_steps();
        for s in &mut steps {
            s.value = s
                .value
                .take()
                .map(|v| v.replace("${", "<").replace('}', ">"));
        }
        assert_eq!(c.login, steps);
        assert_eq!(c.login[0].goto.as_deref(), Some("/"));
        assert_eq!(c.deny.len(), 1);
        assert_eq!(c.deny[0].text.as_deref(), Some("Log out"));
        assert_eq!(c.browser.test_id_attributes, ["data-qa"]);
        insta::assert_snapshot!(text);
    }

    #[test]
    fn with_nothing_found_the_config_still_parses_and_says_what_to_add() {
        let start = Outcome {
            observation: page("http://a/", vec![], ""),
            ..Outcome::default()
        };
        let verdict = Verdict::NotTried("no login form".into());
        let plan = plan_from("http://a/", &start, None, None, verdict, &[]);
        let text = render(&plan, "w.toml");
        let c = crate::config::parse(&text, |_| None).unwrap();
        assert_eq!(c, wayfarer_core::Config::default());
        assert!(
            text.contains("No login form found (no password field"),
            "{text}"
        );
    }

    /// A landing URL that quotes a short secret comes back masked; in a comment it would
    /// read as if the secret were part of the URL, so the comment leaves it out.
    #[test]
    fn a_masked_landing_url_stays_out_of_the_comments() {
        let mut plan = plan();
        plan.verdict = Verdict::Yes {
            lands_on: "http://127.0.0.1:8080/${WAYFARER_PASSWORD}/".into(),
        };
        let text = render(&plan, "wayfarer.toml");
        assert!(text.contains("# Tried: it logs in.\n"), "{text}");
        assert_eq!(text.matches("${").count(), 2, "only the two values: {text}");
    }
}
