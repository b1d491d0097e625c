//! Find owners, the owners list, owner detail and the add / edit owner form.

use std::collections::HashMap;

use axum::extract::{Path, Query};
use axum::response::Response;
use axum::{Extension, Form};

use super::data::Owner;
use super::{flash_html, page, S};
use crate::common::{self, err, esc, field, fill, Errors, Sid};

const FIND: &str = include_str!("../../assets/clinic/find.html");
const LIST: &str = include_str!("../../assets/clinic/owners.html");
const FORM: &str = include_str!("../../assets/clinic/owner_form.html");
const DETAIL: &str = include_str!("../../assets/clinic/owner.html");
const PET: &str = include_str!("../../assets/clinic/owner_pet.html");

type F = Form<HashMap<String, String>>;

pub async fn find_page(st: S) -> Response {
    render_find(&st, "", "")
}

fn render_find(st: &super::St, last_name: &str, error: &str) -> Response {
    let body = fill(
        FIND,
        &[
            ("last_name", &esc(last_name)),
            ("err_last_name", &esc(error)),
        ],
    );
    page(st, "Find owners", "find", &body, "")
}

pub async fn list(
    st: S,
    Extension(sid): Extension<Sid>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    st.sessions.log(&sid, "clinic.find.submit");
    let last = field(&q, "lastName");
    let needle = last.to_lowercase();
    let found: Vec<Owner> = st.sessions.with(&sid, |s| {
        s.owners
            .iter()
            .filter(|o| o.last_name.to_lowercase().starts_with(&needle))
            .cloned()
            .collect()
    });
    match found.len() {
        0 => render_find(&st, &last, "has not been found"),
        1 => common::redirect(&format!("/owners/{}", found[0].id)),
        _ => {
            let mut rows = String::new();
            for o in &found {
                let pets: Vec<&str> = o.pets.iter().map(|p| p.name.as_str()).collect();
                rows.push_str(&format!(
                    "<tr><td><a href=\"/owners/{}\" data-action-id=\"clinic.owners.owner\">{} {}</a></td>\
                     <td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                    o.id,
                    esc(&o.first_name),
                    esc(&o.last_name),
                    esc(&o.address),
                    esc(&o.city),
                    esc(&o.telephone),
                    esc(&pets.join(", ")),
                ));
            }
            page(&st, "Owners", "owners", &fill(LIST, &[("rows", &rows)]), "")
        }
    }
}

pub async fn detail(st: S, Extension(sid): Extension<Sid>, Path(id): Path<u32>) -> Response {
    let Some((o, flash)) = st.sessions.with(&sid, |s| {
        let flash = s.take_flash();
        s.owner(id).cloned().map(|o| (o, flash))
    }) else {
        return common::not_found();
    };
    let mut pets = String::new();
    for p in &o.pets {
        let mut visits = String::new();
        for v in &p.visits {
            visits.push_str(&format!(
                "<tr><td>{}</td><td>{}</td></tr>",
                esc(&v.date),
                esc(&v.description)
            ));
        }
        if visits.is_empty() {
            visits = "<tr class=\"empty\"><td colspan=\"2\">No visits yet</td></tr>".into();
        }
        pets.push_str(&fill(
            PET,
            &[
                ("owner", &o.id.to_string()),
                ("pet", &p.id.to_string()),
                ("name", &esc(&p.name)),
                ("birth_date", &esc(&p.birth_date)),
                ("type", &esc(&p.kind)),
                ("visits", &visits),
            ],
        ));
    }
    let body = fill(
        DETAIL,
        &[
            ("flash", &flash_html(flash)),
            ("id", &o.id.to_string()),
            ("name", &esc(&format!("{} {}", o.first_name, o.last_name))),
            ("address", &esc(&o.address)),
            ("city", &esc(&o.city)),
            ("telephone", &esc(&o.telephone)),
            ("email", &esc(&o.email)),
            ("pets", &pets),
        ],
    );
    page(&st, "Owner information", "owner", &body, "")
}

fn render_form(
    st: &super::St,
    edit: Option<u32>,
    f: &HashMap<String, String>,
    errors: &Errors,
) -> Response {
    let (p, heading, action, button) = match edit {
        Some(id) => (
            "clinic.owner_edit",
            "Edit owner",
            format!("/owners/{id}/edit"),
            "Update Owner",
        ),
        None => (
            "clinic.owner_new",
            "New owner",
            "/owners/new".to_string(),
            "Add Owner",
        ),
    };
    let mut vars: Vec<(&str, String)> = vec![
        ("p", p.into()),
        ("heading", heading.into()),
        ("action", action),
        ("button", button.into()),
    ];
    for name in [
        "firstName",
        "lastName",
        "address",
        "city",
        "telephone",
        "email",
    ] {
        vars.push((name, esc(&field(f, name))));
    }
    let err_keys = [
        "err_firstName",
        "err_lastName",
        "err_address",
        "err_city",
        "err_telephone",
        "err_email",
    ];
    for k in err_keys {
        vars.push((k, err(errors, &k[4..])));
    }
    let pairs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let page_id = if edit.is_some() {
        "owner_edit"
    } else {
        "owner_new"
    };
    page(st, heading, page_id, &fill(FORM, &pairs), "")
}

fn form_of(o: &Owner) -> HashMap<String, String> {
    [
        ("firstName", &o.first_name),
        ("lastName", &o.last_name),
        ("address", &o.address),
        ("city", &o.city),
        ("telephone", &o.telephone),
        ("email", &o.email),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.clone()))
    .collect()
}

pub async fn new_page(st: S) -> Response {
    render_form(&st, None, &HashMap::new(), &Errors::new())
}

pub async fn edit_page(st: S, Extension(sid): Extension<Sid>, Path(id): Path<u32>) -> Response {
    match st.sessions.with(&sid, |s| s.owner(id).cloned()) {
        Some(o) => render_form(&st, Some(id), &form_of(&o), &Errors::new()),
        None => common::not_found(),
    }
}

/// The seeded 500, checked before any validation.
fn seeded_email_500(st: &super::St, f: &HashMap<String, String>) -> Option<Response> {
    if st.bugs && common::email_domain_without_dot(&field(f, "email")) {
        // SEEDED BUG clinic-owner-email-500: the optional e-mail is split at the domain's
        // dot without a check; "a@b" makes the request fail with a 500.
        return Some(common::internal_error());
    }
    None
}

/// Server-side validation of the owner form.
fn validate(f: &HashMap<String, String>) -> (Owner, Errors) {
    let email = field(f, "email");
    let o = Owner {
        first_name: field(f, "firstName"),
        last_name: field(f, "lastName"),
        address: field(f, "address"),
        city: field(f, "city"),
        telephone: field(f, "telephone"),
        email,
        ..Owner::default()
    };
    let mut errors = Errors::new();
    let limits = [
        ("firstName", &o.first_name, 30),
        ("lastName", &o.last_name, 30),
        ("address", &o.address, 255),
        ("city", &o.city, 80),
    ];
    for (name, value, max) in limits {
        if value.is_empty() {
            errors.insert(name, "must not be blank".into());
        } else if value.chars().count() > max {
            errors.insert(name, format!("must be at most {max} characters"));
        }
    }
    let t = &o.telephone;
    if t.is_empty() {
        errors.insert("telephone", "must not be blank".into());
    } else if t.len() > 10 || !t.chars().all(|c| c.is_ascii_digit()) {
        errors.insert(
            "telephone",
            "Telephone must be a numeric value of at most 10 digits".into(),
        );
    }
    if !o.email.is_empty() && (!common::email_ok(&o.email) || o.email.len() > 100) {
        errors.insert("email", "must be a well-formed e-mail address".into());
    }
    (o, errors)
}

pub async fn create(st: S, Extension(sid): Extension<Sid>, Form(f): F) -> Response {
    st.sessions.log(&sid, "clinic.owner_new.submit");
    if let Some(resp) = seeded_email_500(&st, &f) {
        return resp;
    }
    let (mut o, errors) = validate(&f);
    if !errors.is_empty() {
        return render_form(&st, None, &f, &errors);
    }
    let id = st.sessions.with(&sid, |s| {
        o.id = s.next_owner;
        s.next_owner += 1;
        s.owners.push(o);
        s.flash = Some("New Owner Created".into());
        s.next_owner - 1
    });
    common::redirect(&format!("/owners/{id}"))
}

pub async fn update(
    st: S,
    Extension(sid): Extension<Sid>,
    Path(id): Path<u32>,
    Form(f): F,
) -> Response {
    st.sessions.log(&sid, "clinic.owner_edit.submit");
    if let Some(resp) = seeded_email_500(&st, &f) {
        return resp;
    }
    let (o, errors) = validate(&f);
    if !errors.is_empty() {
        return render_form(&st, Some(id), &f, &errors);
    }
    let found = st.sessions.with(&sid, |s| {
        let cur = s.owner(id)?;
        let pets = std::mem::take(&mut cur.pets);
        *cur = Owner { id, pets, ..o };
        s.flash = Some("Owner Values Updated".into());
        Some(())
    });
    match found {
        Some(()) => common::redirect(&format!("/owners/{id}")),
        None => common::not_found(),
    }
}
