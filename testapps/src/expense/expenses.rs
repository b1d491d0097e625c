//! Dashboard and the add / edit / delete expense forms.

use std::collections::HashMap;

use axum::extract::Path;
use axum::response::Response;
use axum::{Extension, Form};

use super::data::{decimal, money, parse_amount, Account, MAX_DESCRIPTION, TODAY};
use super::{flash_html, page, S};
use crate::common::{self, err, esc, field, fill, Errors, Sid};

const DASHBOARD: &str = include_str!("../../assets/expense/dashboard.html");
const FORM: &str = include_str!("../../assets/expense/expense_form.html");

type F = Form<HashMap<String, String>>;

pub async fn dashboard(st: S, Extension(sid): Extension<Sid>) -> Response {
    let view = st.sessions.with(&sid, |s| {
        let flash = s.take_flash();
        s.user().map(|u| (u.clone(), flash))
    });
    let Some((u, flash)) = view else {
        return common::redirect("/");
    };
    let mut rows = String::new();
    for e in u.sorted() {
        rows.push_str(&format!(
            "<tr data-cents=\"{c}\" data-text=\"{t}\"><td>{d}</td><td>{desc}</td><td>{cat}</td>\
             <td class=\"num\">{m}</td><td class=\"actions\">\
             <a href=\"/expenses/{id}/edit\" data-action-id=\"expense.dashboard.edit\">Edit</a> \
             <form method=\"post\" action=\"/expenses/{id}/delete\" class=\"inline\">\
             <button type=\"submit\" class=\"danger\" data-action-id=\"expense.dashboard.delete\">Delete</button>\
             </form></td></tr>\n",
            c = e.cents,
            t = esc(&e.description.to_lowercase()),
            d = esc(&e.date),
            desc = esc(&e.description),
            cat = esc(&e.category),
            m = money(e.cents),
            id = e.id,
        ));
    }
    if rows.is_empty() {
        rows =
            "<tr class=\"empty\"><td colspan=\"5\">No expenses yet. Add your first one!</td></tr>"
                .into();
    }
    let mut cats = String::new();
    for (c, n, t) in u.by_category().into_iter().filter(|x| x.1 > 0) {
        cats.push_str(&format!(
            "<tr><td>{}</td><td class=\"num\">{n}</td><td class=\"num\">{}</td></tr>\n",
            esc(&c),
            money(t)
        ));
    }
    let mut budgets = String::new();
    for b in &u.budgets {
        let spent: i64 = u
            .expenses
            .iter()
            .filter(|e| e.category == b.category && e.date.get(..7) == TODAY.get(..7))
            .map(|e| e.cents)
            .sum();
        let state = if spent > b.cents { "over" } else { "ok" };
        budgets.push_str(&format!(
            "<li class=\"budget {state}\">{} · {} {} · spent {} this month</li>\n",
            esc(&b.category),
            money(b.cents),
            esc(&b.period),
            money(spent)
        ));
    }
    if budgets.is_empty() {
        budgets =
            "<li class=\"empty\">No budgets yet. Use the budget wizard to set one.</li>".into();
    }
    let body = fill(
        DASHBOARD,
        &[
            ("flash", &flash_html(flash)),
            ("total", &money(u.total())),
            ("count", &u.expenses.len().to_string()),
            ("rows", &rows),
            ("categories", &cats),
            ("budgets", &budgets),
        ],
    );
    page(&st, "Dashboard", "dashboard", Some(&u.name), &body, "")
}

struct Values {
    description: String,
    amount: String,
    date: String,
    category: String,
}

fn render_form(
    st: &super::St,
    u: &Account,
    edit: Option<u32>,
    v: &Values,
    errors: &Errors,
) -> Response {
    let (p, heading, action) = match edit {
        Some(id) => (
            "expense.expense_edit",
            "Edit expense",
            format!("/expenses/{id}/edit"),
        ),
        None => (
            "expense.expense_new",
            "Add expense",
            "/expenses/new".to_string(),
        ),
    };
    let mut options = String::new();
    for c in &u.categories {
        let sel = if *c == v.category { " selected" } else { "" };
        options.push_str(&format!("<option value=\"{0}\"{sel}>{0}</option>", esc(c)));
    }
    let body = fill(
        FORM,
        &[
            ("p", p),
            ("heading", heading),
            ("action", &action),
            ("max", &MAX_DESCRIPTION.to_string()),
            ("description", &esc(&v.description)),
            ("amount", &esc(&v.amount)),
            ("date", &esc(&v.date)),
            ("options", &options),
            ("err_description", &err(errors, "description")),
            ("err_amount", &err(errors, "amount")),
            ("err_date", &err(errors, "date")),
            ("err_category", &err(errors, "category")),
        ],
    );
    let page_id = if edit.is_some() {
        "expense_edit"
    } else {
        "expense_new"
    };
    page(st, heading, page_id, Some(&u.name), &body, "")
}

fn current(st: &super::St, sid: &Sid) -> Option<Account> {
    st.sessions.with(sid, |s| s.user().cloned())
}

pub async fn new_page(st: S, Extension(sid): Extension<Sid>) -> Response {
    let Some(u) = current(&st, &sid) else {
        return common::redirect("/");
    };
    let v = Values {
        description: String::new(),
        amount: String::new(),
        date: TODAY.into(),
        category: u.categories.first().cloned().unwrap_or_default(),
    };
    render_form(&st, &u, None, &v, &Errors::new())
}

pub async fn edit_page(st: S, Extension(sid): Extension<Sid>, Path(id): Path<u32>) -> Response {
    let Some(u) = current(&st, &sid) else {
        return common::redirect("/");
    };
    let Some(e) = u.expenses.iter().find(|e| e.id == id) else {
        return common::not_found();
    };
    let v = Values {
        description: e.description.clone(),
        amount: decimal(e.cents),
        date: e.date.clone(),
        category: e.category.clone(),
    };
    render_form(&st, &u, Some(id), &v, &Errors::new())
}

fn validate(u: &Account, f: &HashMap<String, String>) -> (Values, Errors, i64) {
    let v = Values {
        description: field(f, "description"),
        amount: field(f, "amount"),
        date: field(f, "date"),
        category: field(f, "category"),
    };
    let mut errors = Errors::new();
    if v.description.is_empty() {
        errors.insert("description", "Description is required".into());
    } else if v.description.chars().count() > MAX_DESCRIPTION {
        errors.insert(
            "description",
            format!("Description must be at most {MAX_DESCRIPTION} characters"),
        );
    }
    let cents = parse_amount(&v.amount).unwrap_or_else(|m| {
        errors.insert("amount", m.into());
        0
    });
    if v.date.is_empty() {
        errors.insert("date", "Date is required".into());
    } else if !common::valid_date(&v.date) {
        errors.insert("date", "Date must look like 2024-03-15".into());
    }
    if !u.categories.contains(&v.category) {
        errors.insert("category", "Choose a category".into());
    }
    (v, errors, cents)
}

pub async fn create(st: S, Extension(sid): Extension<Sid>, Form(f): F) -> Response {
    st.sessions.log(&sid, "expense.expense_new.submit");
    let Some(u) = current(&st, &sid) else {
        return common::redirect("/");
    };
    let (v, errors, cents) = validate(&u, &f);
    if !errors.is_empty() {
        return render_form(&st, &u, None, &v, &errors);
    }
    st.sessions.with(&sid, |s| {
        if let Some(u) = s.user() {
            u.add(&v.description, cents, &v.date, &v.category);
        }
        s.flash = Some(format!("Added \u{201c}{}\u{201d}.", v.description));
    });
    common::redirect("/dashboard")
}

pub async fn update(
    st: S,
    Extension(sid): Extension<Sid>,
    Path(id): Path<u32>,
    Form(f): F,
) -> Response {
    st.sessions.log(&sid, "expense.expense_edit.submit");
    let Some(u) = current(&st, &sid) else {
        return common::redirect("/");
    };
    if !u.expenses.iter().any(|e| e.id == id) {
        return common::not_found();
    }
    let (v, errors, cents) = validate(&u, &f);
    if !errors.is_empty() {
        return render_form(&st, &u, Some(id), &v, &errors);
    }
    st.sessions.with(&sid, |s| {
        if let Some(e) = s
            .user()
            .and_then(|u| u.expenses.iter_mut().find(|e| e.id == id))
        {
            e.description = v.description.clone();
            e.cents = cents;
            e.date = v.date.clone();
            e.category = v.category.clone();
        }
        s.flash = Some("Expense updated.".into());
    });
    common::redirect("/dashboard")
}

pub async fn delete(st: S, Extension(sid): Extension<Sid>, Path(id): Path<u32>) -> Response {
    st.sessions.log(&sid, "expense.dashboard.delete");
    let found = st.sessions.with(&sid, |s| {
        let u = s.user()?;
        let i = u.expenses.iter().position(|e| e.id == id)?;
        let e = u.expenses.remove(i);
        s.flash = Some(format!("Deleted \u{201c}{}\u{201d}.", e.description));
        Some(())
    });
    match found {
        Some(()) => common::redirect("/dashboard"),
        None if current(&st, &sid).is_none() => common::redirect("/"),
        None => common::redirect("/dashboard"),
    }
}
