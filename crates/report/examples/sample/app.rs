//! The sample's made-up clinic application: its pages, their links, and the action a
//! user would take to follow a link or fill a form.

use std::collections::BTreeMap;

use wayfarer_core::trace::ElementHint;
use wayfarer_core::{Action, ActionKind};

pub const XSS: &str = "<script>alert(1)</script>";
pub const IMG: &str = "\"><img src=x onerror=alert(1)>";

/// A page: path, title, and the pages it links to (by index).
pub struct Page {
    pub path: String,
    pub title: String,
    pub links: Vec<usize>,
}

pub fn pages() -> Vec<Page> {
    let p = |path: &str, title: &str, links: &[usize]| Page {
        path: path.into(),
        title: title.into(),
        links: links.to_vec(),
    };
    vec![
        p("/", "Clinic · Home", &[2, 7, 10, 16, 20, 13, 12]),
        p("/login", "Sign in", &[0]),
        p("/patients", "Patients", &[3, 4, 6, 12, 0]),
        p("/patients?page=2", "Patients (page 2)", &[2, 4]),
        p("/patients/12", "Patient: Ada Lovelace", &[5, 8, 2]),
        p("/patients/12/edit", "Edit patient", &[4]),
        p("/patients/new", "New patient", &[22, 2]),
        p("/appointments", "Appointments", &[8, 9, 0]),
        p("/appointments/new", "New appointment", &[9, 7]),
        p("/appointments/31", "Appointment #31", &[7, 11]),
        p("/doctors", "Doctors", &[11, 24, 0]),
        p("/doctors/3", "Dr. Grace Hopper", &[10, 8]),
        p(
            &format!("/search?q={XSS}"),
            &format!("Search: {XSS}"),
            &[4, 2],
        ),
        p("/settings", "Settings", &[14, 15, 23]),
        p("/settings/profile", "Profile", &[13]),
        p("/settings/notifications", "Notifications", &[13]),
        p("/reports", "Reports", &[17, 18, 0]),
        p("/reports/monthly", "Monthly report — March", &[16]),
        p("/invoices", "Invoices", &[19, 16]),
        p("/invoices/7", "Invoice 7", &[18]),
        p("/help", "Help", &[21, 0]),
        p(&format!("/help/faq#{IMG}"), &format!("FAQ {IMG}"), &[20]),
        p("/patients/new", "New patient · 3 errors", &[6, 2]),
        p("/logout", "Signed out", &[1]),
        p("/departments", "Departments", &[10]),
    ]
}

/// A small deterministic generator (xorshift), so the sample is the same every time.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

fn hint(tag: &str, role: &str, name: &str, id: &str) -> ElementHint {
    ElementHint {
        tag: tag.into(),
        role: Some(role.into()),
        name: name.into(),
        text: name.into(),
        attrs: BTreeMap::from([("id".to_string(), id.to_string())]),
        same_name: 1,
        ..ElementHint::default()
    }
}

/// The action that leads to page `to`, or one that stays on the page (a form field).
pub fn action_to(pages: &[Page], to: Option<usize>, rng: &mut Rng) -> (Action, ElementHint) {
    let field = |kind, loc: &str, value: Option<String>, h| {
        let a = Action::on(kind, loc);
        (value.map_or(a.clone(), |v| a.with_value(v)), h)
    };
    match to {
        Some(12) => field(
            ActionKind::Type,
            "#q",
            Some(XSS.into()),
            hint("input", "searchbox", "Search patients", "q"),
        ),
        Some(22) => field(
            ActionKind::Click,
            "form#patient button[type=submit]",
            None,
            hint("button", "button", "Save", "save"),
        ),
        Some(t) => {
            let name = pages[t].title.split(['·', ':']).next().unwrap_or("").trim();
            let loc = format!("a[href=\"{}\"]", pages[t].path);
            field(ActionKind::Click, &loc, None, hint("a", "link", name, &loc))
        }
        None => match rng.below(4) {
            0 => field(
                ActionKind::Type,
                "#email",
                Some("a@b.co".into()),
                ElementHint {
                    label: "E-mail".into(),
                    ..hint("input", "textbox", "E-mail", "email")
                },
            ),
            1 => field(
                ActionKind::Type,
                "#notes",
                Some("x".repeat(201)),
                hint("textarea", "textbox", "", "notes"),
            ),
            2 => field(
                ActionKind::Select,
                "#dept",
                Some("Cardiology".into()),
                hint("select", "combobox", "Department", "dept"),
            ),
            _ => field(
                ActionKind::Check,
                "#consent",
                None,
                hint("input", "checkbox", "I agree to the terms", "consent"),
            ),
        },
    }
}
