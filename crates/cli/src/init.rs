//! `wayfarer init URL`: write a first configuration for the application (the work is
//! `wayfarer_run::init`'s; this prints what it found).

use std::path::Path;

use anyhow::Result;
use wayfarer_run::init::{self, InitOptions, Verdict};

/// Look at the application, write the configuration to `out`, and say what it holds.
pub fn command(url: &str, out: &Path, force: bool, chrome: Option<&str>) -> Result<i32> {
    // Before the browser starts: a file that would be replaced is refused at once.
    init::check_output(out, force)?;
    let url = wayfarer_run::app::parse_url(url)?;
    let credentials = init::credentials_from_env();
    if let Some((user, password)) = &credentials {
        // Masked in everything printed from here on.
        wayfarer_core::secrets::remember([
            (init::USER_VAR.to_string(), user.clone()),
            (init::PASSWORD_VAR.to_string(), password.clone()),
        ]);
    }
    meprintln!("wayfarer: looking at {url}");
    let plan = init::init(
        &url,
        &InitOptions {
            chrome: chrome.map(str::to_string),
            credentials,
        },
    )?;
    let file = out.display().to_string();
    init::write(out, &init::render(&plan, &file))?;
    mprintln!("Wrote {file}:");
    match &plan.login {
        None => mprintln!(
            "  login: none found ({})",
            plan.no_login.as_deref().unwrap_or("")
        ),
        Some(form) => mprintln!(
            "  login: {} step(s) for the form of {}",
            plan.login_steps().len(),
            form.page
        ),
    }
    match &plan.verdict {
        Verdict::Yes { lands_on } => mprintln!("  login tried: it logs in (landed on {lands_on})"),
        Verdict::Unsure { lands_on, why } => {
            mprintln!("  login tried: unsure ({why}; landed on {lands_on})")
        }
        Verdict::No(why) => mprintln!("  login tried: it did NOT log in: {why}"),
        Verdict::NotTried(why) => mprintln!("  login not tried: {why}"),
    }
    for d in &plan.deny {
        mprintln!("  deny: {}", d.seen);
    }
    if let Some((attr, n)) = &plan.test_ids {
        mprintln!("  test ids: {attr} on {n} element(s)");
    }
    if !plan.noise.is_empty() {
        mprintln!(
            "  {} finding(s) on a plain load, offered as commented-out ignore patterns",
            plan.noise.len()
        );
    }
    let creds = if plan.login.is_some() {
        format!("{}=... {}=... ", init::USER_VAR, init::PASSWORD_VAR)
    } else {
        String::new()
    };
    mprintln!("Next: {creds}wayfarer explore {url} --config {file}");
    Ok(0)
}
