//! Categories, reports and the budget wizard.

use std::collections::HashMap;

use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Form};

use super::data::{money, parse_amount, Account, Budget, REPORT_MONTHS, TODAY};
use super::{flash_html, page, S};
use crate::common::{self, err, esc, field, fill, js_json, Errors, Sid};

const CATEGORIES: &str = include_str!("../../assets/expense/categories.html");
const REPORTS: &str = include_str!("../../assets/expense/reports.html");
const WIZARD: &str = include_str!("../../assets/expense/wizard.html");

type F = Form<HashMap<String, String>>;

fn current(st: &super::St, sid: &Sid) -> Option<(Account, Option<String>)> {
    st.sessions.with(sid, |s| {
        let flash = s.take_flash();
        s.user().cloned().map(|u| (u, flash))
    })
}

pub async fn categories(st: S, Extension(sid): Extension<Sid>) -> Response {
    let Some((u, flash)) = current(&st, &sid) else {
        return common::redirect("/");
    };
    render_categories(&st, &u, flash, "", &Errors::new())
}

fn render_categories(
    st: &super::St,
    u: &Account,
    flash: Option<String>,
    name: &str,
    errors: &Errors,
) -> Response {
    let mut rows = String::new();
    for (c, n, t) in u.by_category() {
        rows.push_str(&format!(
            "<tr><td>{c}</td><td class=\"num\">{n}</td><td class=\"num\">{m}</td><td>\
             <form method=\"post\" action=\"/categories/delete\" class=\"inline\">\
             <input type=\"hidden\" name=\"name\" value=\"{c}\">\
             <button type=\"submit\" class=\"danger\" data-action-id=\"expense.categories.delete\">Delete</button>\
             </form></td></tr>\n",
            c = esc(&c),
            m = money(t),
        ));
    }
    let body = fill(
        CATEGORIES,
        &[
            ("flash", &flash_html(flash)),
            ("rows", &rows),
            ("name", &esc(name)),
            ("err_name", &err(errors, "name")),
        ],
    );
    let script = format!(
        "<script>window.CATEGORIES = {};</script>",
        js_json(&u.categories)
    );
    page(
        st,
        "Categories",
        "categories",
        Some(&u.name),
        &body,
        &script,
    )
}

pub async fn add_category(st: S, Extension(sid): Extension<Sid>, Form(f): F) -> Response {
    st.sessions.log(&sid, "expense.categories.add");
    let Some((u, _)) = current(&st, &sid) else {
        return common::redirect("/");
    };
    let name = field(&f, "name");
    let mut errors = Errors::new();
    if name.is_empty() {
        errors.insert("name", "Name is required".into());
    } else if name.chars().count() > 30 {
        errors.insert("name", "Name must be at most 30 characters".into());
    } else if u.categories.iter().any(|c| c.eq_ignore_ascii_case(&name)) {
        errors.insert(
            "name",
            format!("Category \u{201c}{name}\u{201d} already exists"),
        );
    } else if u.categories.len() >= 12 {
        errors.insert("name", "At most 12 categories".into());
    }
    if !errors.is_empty() {
        return render_categories(&st, &u, None, &name, &errors);
    }
    st.sessions.with(&sid, |s| {
        if let Some(u) = s.user() {
            u.categories.push(name.clone());
        }
        s.flash = Some(format!("Category \u{201c}{name}\u{201d} added."));
    });
    common::redirect("/categories")
}

pub async fn delete_category(st: S, Extension(sid): Extension<Sid>, Form(f): F) -> Response {
    st.sessions.log(&sid, "expense.categories.delete");
    let name = field(&f, "name");
    let ok = st.sessions.with(&sid, |s| {
        let u = s.user()?;
        let used = u.expenses.iter().filter(|e| e.category == name).count();
        let msg = if used > 0 {
            format!("Category \u{201c}{name}\u{201d} is used by {used} expense(s) and cannot be deleted.")
        } else if u.categories.len() <= 1 {
            "Keep at least one category.".to_string()
        } else {
            u.categories.retain(|c| *c != name);
            u.budgets.retain(|b| b.category != name);
            format!("Category \u{201c}{name}\u{201d} deleted.")
        };
        s.flash = Some(msg);
        Some(())
    });
    common::redirect(if ok.is_some() { "/categories" } else { "/" })
}

pub async fn reports(st: S, Extension(sid): Extension<Sid>) -> Response {
    let Some((u, _)) = current(&st, &sid) else {
        return common::redirect("/");
    };
    let mut months = String::from("<option value=\"all\">All time</option>");
    for m in REPORT_MONTHS {
        let sel = if TODAY.starts_with(m) {
            " selected"
        } else {
            ""
        };
        months.push_str(&format!("<option value=\"{m}\"{sel}>{m}</option>"));
    }
    let body = fill(REPORTS, &[("months", &months)]);
    let script = format!(
        "<script>window.REPORT_DATA = {};</script>",
        js_json(&u.expenses)
    );
    page(&st, "Reports", "reports", Some(&u.name), &body, &script)
}

pub async fn wizard(st: S, Extension(sid): Extension<Sid>) -> Response {
    let Some((u, _)) = current(&st, &sid) else {
        return common::redirect("/");
    };
    let mut tiles = String::new();
    for c in &u.categories {
        tiles.push_str(&format!(
            "<div class=\"tile\" data-category=\"{0}\" data-action-id=\"expense.wizard.tile\">{0}</div>\n",
            esc(c)
        ));
    }
    let body = fill(WIZARD, &[("tiles", &tiles)]);
    page(&st, "Budget wizard", "wizard", Some(&u.name), &body, "")
}

/// `POST /budgets` (from the wizard's fetch): JSON `{ok, error?}`.
pub async fn save_budget(st: S, Extension(sid): Extension<Sid>, Form(f): F) -> Response {
    st.sessions.log(&sid, "expense.wizard.confirm");
    let category = field(&f, "category");
    let period = field(&f, "period");
    let limit = parse_amount(&field(&f, "limit"));
    let result: Result<(), String> = st.sessions.with(&sid, |s| {
        let u = s.user().ok_or("You are not logged in")?;
        if !u.categories.contains(&category) {
            return Err("Unknown category".into());
        }
        if period != "monthly" && period != "weekly" {
            return Err("Unknown period".into());
        }
        let cents = limit.map_err(|m| m.to_string())?;
        u.budgets.retain(|b| b.category != category);
        u.budgets.push(Budget {
            category: category.clone(),
            cents,
            period: period.clone(),
        });
        Ok(())
    });
    let body = match result {
        Ok(()) => serde_json::json!({ "ok": true }),
        Err(e) => serde_json::json!({ "ok": false, "error": e }),
    };
    common::typed(StatusCode::OK, "application/json", body.to_string())
}
