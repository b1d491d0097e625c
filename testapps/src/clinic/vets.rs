//! Home page and the veterinarians list.

use axum::response::Response;

use super::data::{vets as all_vets, SPECIALTIES};
use super::{page, S};
use crate::common::{esc, fill, js_json};

const HOME: &str = include_str!("../../assets/clinic/home.html");
const VETS: &str = include_str!("../../assets/clinic/vets.html");

pub async fn home(st: S) -> Response {
    page(&st, "Welcome", "home", HOME, "")
}

pub async fn vets(st: S) -> Response {
    let vets = all_vets();
    let mut rows = String::new();
    for v in &vets {
        let specs = if v.specialties.is_empty() {
            "none".to_string()
        } else {
            v.specialties.join(" ")
        };
        rows.push_str(&format!(
            "<tr data-specialties=\"{}\"><td>{} {}</td><td>{}</td></tr>\n",
            esc(&v.specialties.join(" ")),
            esc(v.first_name),
            esc(v.last_name),
            esc(&specs),
        ));
    }
    let mut chips = String::from(
        "<div class=\"chip selected\" data-filter=\"all\" data-action-id=\"clinic.vets.chip\">all</div>",
    );
    for s in SPECIALTIES.iter().chain(["none"].iter()) {
        chips.push_str(&format!(
            "<div class=\"chip\" data-filter=\"{s}\" data-action-id=\"clinic.vets.chip\">{s}</div>"
        ));
    }
    let body = fill(VETS, &[("rows", &rows), ("chips", &chips)]);
    let script = format!("<script>window.VETS = {};</script>", js_json(&vets));
    page(&st, "Veterinarians", "vets", &body, &script)
}
