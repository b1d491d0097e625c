//! Add / edit pet and add visit.

use std::collections::HashMap;

use axum::extract::Path;
use axum::response::Response;
use axum::{Extension, Form};

use super::data::{Owner, Pet, Visit, PET_TYPES, TODAY};
use super::{page, S};
use crate::common::{self, err, esc, field, fill, js_json, Errors, Sid};

const PET_FORM: &str = include_str!("../../assets/clinic/pet_form.html");
const VISIT_FORM: &str = include_str!("../../assets/clinic/visit_form.html");

type F = Form<HashMap<String, String>>;

fn owner(st: &super::St, sid: &Sid, id: u32) -> Option<Owner> {
    st.sessions.with(sid, |s| s.owner(id).cloned())
}

fn render_pet(
    st: &super::St,
    o: &Owner,
    edit: Option<u32>,
    f: &HashMap<String, String>,
    errors: &Errors,
) -> Response {
    let (p, heading, action, button) = match edit {
        Some(pid) => (
            "clinic.pet_edit",
            "Edit Pet",
            format!("/owners/{}/pets/{pid}/edit", o.id),
            "Update Pet",
        ),
        None => (
            "clinic.pet_new",
            "New Pet",
            format!("/owners/{}/pets/new", o.id),
            "Add Pet",
        ),
    };
    let kind = field(f, "type");
    let mut options = String::new();
    for t in PET_TYPES {
        let sel = if t == kind { " selected" } else { "" };
        options.push_str(&format!("<option value=\"{t}\"{sel}>{t}</option>"));
    }
    let body = fill(
        PET_FORM,
        &[
            ("p", p),
            ("heading", heading),
            ("action", &action),
            ("button", button),
            ("owner", &esc(&format!("{} {}", o.first_name, o.last_name))),
            ("today", TODAY),
            ("name", &esc(&field(f, "name"))),
            ("birthDate", &esc(&field(f, "birthDate"))),
            ("options", &options),
            ("err_name", &err(errors, "name")),
            ("err_birthDate", &err(errors, "birthDate")),
            ("err_type", &err(errors, "type")),
        ],
    );
    let page_id = if edit.is_some() {
        "pet_edit"
    } else {
        "pet_new"
    };
    page(st, heading, page_id, &body, "")
}

pub async fn new_page(st: S, Extension(sid): Extension<Sid>, Path(id): Path<u32>) -> Response {
    match owner(&st, &sid, id) {
        Some(o) => render_pet(&st, &o, None, &HashMap::new(), &Errors::new()),
        None => common::not_found(),
    }
}

pub async fn edit_page(
    st: S,
    Extension(sid): Extension<Sid>,
    Path((id, pid)): Path<(u32, u32)>,
) -> Response {
    let Some(o) = owner(&st, &sid, id) else {
        return common::not_found();
    };
    let Some(p) = o.pets.iter().find(|p| p.id == pid) else {
        return common::not_found();
    };
    let f: HashMap<String, String> = [
        ("name", &p.name),
        ("birthDate", &p.birth_date),
        ("type", &p.kind),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.clone()))
    .collect();
    render_pet(&st, &o, Some(pid), &f, &Errors::new())
}

fn validate_pet(o: &Owner, pid: Option<u32>, f: &HashMap<String, String>) -> Errors {
    let mut errors = Errors::new();
    let name = field(f, "name");
    if name.is_empty() {
        errors.insert("name", "is required".into());
    } else if name.chars().count() > 30 {
        errors.insert("name", "must be at most 30 characters".into());
    } else if o
        .pets
        .iter()
        .any(|p| Some(p.id) != pid && p.name.eq_ignore_ascii_case(&name))
    {
        errors.insert("name", "is already in use".into());
    }
    let birth = field(f, "birthDate");
    if birth.is_empty() {
        errors.insert("birthDate", "is required".into());
    } else if !common::valid_date(&birth) {
        errors.insert("birthDate", "must be a date like 2020-05-31".into());
    } else if birth.as_str() > TODAY {
        errors.insert("birthDate", "must not be in the future".into());
    }
    if !PET_TYPES.contains(&field(f, "type").as_str()) {
        errors.insert("type", "choose a type".into());
    }
    errors
}

pub async fn create(
    st: S,
    Extension(sid): Extension<Sid>,
    Path(id): Path<u32>,
    Form(f): F,
) -> Response {
    st.sessions.log(&sid, "clinic.pet_new.submit");
    let Some(o) = owner(&st, &sid, id) else {
        return common::not_found();
    };
    let errors = validate_pet(&o, None, &f);
    if !errors.is_empty() {
        return render_pet(&st, &o, None, &f, &errors);
    }
    st.sessions.with(&sid, |s| {
        let pid = s.next_pet;
        s.next_pet += 1;
        if let Some(o) = s.owner(id) {
            o.pets.push(Pet {
                id: pid,
                name: field(&f, "name"),
                birth_date: field(&f, "birthDate"),
                kind: field(&f, "type"),
                visits: Vec::new(),
            });
        }
        s.flash = Some("New Pet has been Added".into());
    });
    common::redirect(&format!("/owners/{id}"))
}

pub async fn update(
    st: S,
    Extension(sid): Extension<Sid>,
    Path((id, pid)): Path<(u32, u32)>,
    Form(f): F,
) -> Response {
    st.sessions.log(&sid, "clinic.pet_edit.submit");
    let Some(o) = owner(&st, &sid, id) else {
        return common::not_found();
    };
    if !o.pets.iter().any(|p| p.id == pid) {
        return common::not_found();
    }
    let errors = validate_pet(&o, Some(pid), &f);
    if !errors.is_empty() {
        return render_pet(&st, &o, Some(pid), &f, &errors);
    }
    st.sessions.with(&sid, |s| {
        if let Some(p) = s
            .owner(id)
            .and_then(|o| o.pets.iter_mut().find(|p| p.id == pid))
        {
            p.name = field(&f, "name");
            p.birth_date = field(&f, "birthDate");
            p.kind = field(&f, "type");
        }
        s.flash = Some("Pet details has been edited".into());
    });
    common::redirect(&format!("/owners/{id}"))
}

fn render_visit(
    st: &super::St,
    o: &Owner,
    p: &Pet,
    f: &HashMap<String, String>,
    errors: &Errors,
) -> Response {
    let mut rows = String::new();
    for v in &p.visits {
        rows.push_str(&format!(
            "<tr><td>{}</td><td>{}</td></tr>",
            esc(&v.date),
            esc(&v.description)
        ));
    }
    let date = f
        .get("date")
        .map(|d| d.trim().to_string())
        .unwrap_or_else(|| TODAY.into());
    let body = fill(
        VISIT_FORM,
        &[
            (
                "action",
                &format!("/owners/{}/pets/{}/visits/new", o.id, p.id),
            ),
            ("pet", &esc(&p.name)),
            ("birth_date", &esc(&p.birth_date)),
            ("type", &esc(&p.kind)),
            ("owner", &esc(&format!("{} {}", o.first_name, o.last_name))),
            ("date", &esc(&date)),
            ("description", &esc(&field(f, "description"))),
            ("visits", &rows),
            ("err_date", &err(errors, "date")),
            ("err_description", &err(errors, "description")),
        ],
    );
    let pet = serde_json::json!({ "name": p.name, "visits": p.visits });
    let script = format!("<script>window.PET = {};</script>", js_json(&pet));
    page(st, "New Visit", "visit_new", &body, &script)
}

fn owner_pet(st: &super::St, sid: &Sid, id: u32, pid: u32) -> Option<(Owner, Pet)> {
    let o = owner(st, sid, id)?;
    let p = o.pets.iter().find(|p| p.id == pid)?.clone();
    Some((o, p))
}

pub async fn visit_page(
    st: S,
    Extension(sid): Extension<Sid>,
    Path((id, pid)): Path<(u32, u32)>,
) -> Response {
    match owner_pet(&st, &sid, id, pid) {
        Some((o, p)) => render_visit(&st, &o, &p, &HashMap::new(), &Errors::new()),
        None => common::not_found(),
    }
}

pub async fn add_visit(
    st: S,
    Extension(sid): Extension<Sid>,
    Path((id, pid)): Path<(u32, u32)>,
    Form(f): F,
) -> Response {
    st.sessions.log(&sid, "clinic.visit_new.submit");
    let Some((o, p)) = owner_pet(&st, &sid, id, pid) else {
        return common::not_found();
    };
    let date = field(&f, "date");
    let description = field(&f, "description");
    let mut errors = Errors::new();
    if date.is_empty() || !common::valid_date(&date) {
        errors.insert("date", "must be a date like 2024-03-15".into());
    }
    if description.is_empty() {
        errors.insert("description", "must not be blank".into());
    } else if description.chars().count() > 255 {
        errors.insert("description", "must be at most 255 characters".into());
    }
    if !errors.is_empty() {
        return render_visit(&st, &o, &p, &f, &errors);
    }
    st.sessions.with(&sid, |s| {
        let vid = s.next_visit;
        s.next_visit += 1;
        if let Some(p) = s
            .owner(id)
            .and_then(|o| o.pets.iter_mut().find(|p| p.id == pid))
        {
            p.visits.push(Visit {
                id: vid,
                date,
                description,
            });
        }
        s.flash = Some("Your visit has been booked".into());
    });
    common::redirect(&format!("/owners/{id}"))
}
