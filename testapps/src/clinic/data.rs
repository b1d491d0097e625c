//! Clinic data (the Spring PetClinic sample data), copied into every browser session.

/// The fixed "today" of the application.
pub const TODAY: &str = "2024-03-15";
pub const PET_TYPES: [&str; 6] = ["bird", "cat", "dog", "hamster", "lizard", "snake"];
/// Specialty filters on the vets page; nobody practises cardiology.
pub const SPECIALTIES: [&str; 4] = ["radiology", "surgery", "dentistry", "cardiology"];

#[derive(Clone, Debug, serde::Serialize)]
pub struct Visit {
    pub id: u32,
    pub date: String,
    pub description: String,
}

#[derive(Clone, Debug)]
pub struct Pet {
    pub id: u32,
    pub name: String,
    pub birth_date: String,
    pub kind: String,
    pub visits: Vec<Visit>,
}

#[derive(Clone, Debug, Default)]
pub struct Owner {
    pub id: u32,
    pub first_name: String,
    pub last_name: String,
    pub address: String,
    pub city: String,
    pub telephone: String,
    pub email: String,
    pub pets: Vec<Pet>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Vet {
    #[serde(rename = "firstName")]
    pub first_name: &'static str,
    #[serde(rename = "lastName")]
    pub last_name: &'static str,
    pub specialties: Vec<&'static str>,
}

#[derive(Debug)]
pub struct ClinicSession {
    pub owners: Vec<Owner>,
    pub next_owner: u32,
    pub next_pet: u32,
    pub next_visit: u32,
    pub flash: Option<String>,
}

impl ClinicSession {
    pub fn owner(&mut self, id: u32) -> Option<&mut Owner> {
        self.owners.iter_mut().find(|o| o.id == id)
    }

    pub fn take_flash(&mut self) -> Option<String> {
        self.flash.take()
    }
}

type SeedPet = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const CHECKUP: &[(&str, &str)] = &[("2023-11-20", "annual checkup")];
/// first name, last name, address, city, telephone, pets.
type SeedOwner = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [SeedPet],
);

const OWNERS: [SeedOwner; 10] = [
    (
        "George",
        "Franklin",
        "110 W. Liberty St.",
        "Madison",
        "6085551023",
        &[("Leo", "2010-09-07", "cat", CHECKUP)],
    ),
    (
        "Betty",
        "Davis",
        "638 Cardinal Ave.",
        "Sun Prairie",
        "6085551749",
        &[("Basil", "2012-08-06", "hamster", CHECKUP)],
    ),
    (
        "Eduardo",
        "Rodriquez",
        "2693 Commerce St.",
        "McFarland",
        "6085558763",
        &[
            (
                "Rosy",
                "2011-04-17",
                "dog",
                &[("2023-06-02", "vaccination")],
            ),
            ("Jewel", "2010-03-07", "dog", CHECKUP),
        ],
    ),
    (
        "Harold",
        "Davis",
        "563 Friendly St.",
        "Windsor",
        "6085553198",
        &[(
            "Iggy",
            "2010-11-30",
            "lizard",
            &[("2023-09-14", "skin check")],
        )],
    ),
    (
        "Peter",
        "McTavish",
        "2387 S. Fair Way",
        "Madison",
        "6085552765",
        &[("George", "2010-01-20", "snake", CHECKUP)],
    ),
    (
        "Jean",
        "Coleman",
        "105 N. Lake St.",
        "Monona",
        "6085552654",
        &[
            (
                "Samantha",
                "2012-09-04",
                "cat",
                &[("2013-01-01", "rabies shot"), ("2013-01-04", "spayed")],
            ),
            (
                "Max",
                "2012-09-04",
                "cat",
                &[("2013-01-02", "rabies shot"), ("2013-01-03", "neutered")],
            ),
        ],
    ),
    (
        "Jeff",
        "Black",
        "1450 Oak Blvd.",
        "Monona",
        "6085555387",
        &[("Lucky", "2011-08-06", "bird", CHECKUP)],
    ),
    (
        "Maria",
        "Escobito",
        "345 Maple St.",
        "Madison",
        "6085557683",
        &[(
            "Mulligan",
            "2007-02-24",
            "dog",
            &[("2024-01-08", "dental cleaning")],
        )],
    ),
    (
        "David",
        "Schroeder",
        "2749 Blackhawk Trail",
        "Madison",
        "6085559435",
        &[("Freddy", "2010-03-09", "bird", CHECKUP)],
    ),
    (
        "Carlos",
        "Estaban",
        "2335 Independence La.",
        "Waunakee",
        "6085555487",
        &[
            ("Lucky", "2010-06-24", "dog", CHECKUP),
            (
                "Sly",
                "2012-06-08",
                "cat",
                &[("2023-12-01", "annual checkup")],
            ),
        ],
    ),
];

/// A fresh copy of the sample data. Every seeded pet has at least one visit.
pub fn new_session() -> ClinicSession {
    let mut s = ClinicSession {
        owners: Vec::new(),
        next_owner: 1,
        next_pet: 1,
        next_visit: 1,
        flash: None,
    };
    for (first, last, address, city, tel, pets) in OWNERS {
        let mut o = Owner {
            id: s.next_owner,
            first_name: first.into(),
            last_name: last.into(),
            address: address.into(),
            city: city.into(),
            telephone: tel.into(),
            ..Owner::default()
        };
        s.next_owner += 1;
        for (name, birth, kind, visits) in pets {
            let mut p = Pet {
                id: s.next_pet,
                name: name.to_string(),
                birth_date: birth.to_string(),
                kind: kind.to_string(),
                visits: Vec::new(),
            };
            s.next_pet += 1;
            for (date, desc) in visits.iter() {
                p.visits.push(Visit {
                    id: s.next_visit,
                    date: date.to_string(),
                    description: desc.to_string(),
                });
                s.next_visit += 1;
            }
            o.pets.push(p);
        }
        s.owners.push(o);
    }
    s
}

pub fn vets() -> Vec<Vet> {
    let v = |f, l, s: &[&'static str]| Vet {
        first_name: f,
        last_name: l,
        specialties: s.to_vec(),
    };
    vec![
        v("James", "Carter", &[]),
        v("Helen", "Leary", &["radiology"]),
        v("Linda", "Douglas", &["dentistry", "surgery"]),
        v("Rafael", "Ortega", &["surgery"]),
        v("Henry", "Stevens", &["radiology"]),
        v("Sharon", "Jenkins", &[]),
    ]
}
