//! The seeded bugs of the fixture applications (all off with `ServeOptions { bugs: false }`).

use crate::truth::Step;
use crate::App;

/// A bug seeded on purpose, with what a failure oracle will see when it is triggered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeededBug {
    pub id: &'static str,
    pub app: App,
    pub description: &'static str,
    /// "exception" | "http-500" | "console-error" | "error-text"
    pub kind: &'static str,
    /// A substring of the failure message an oracle sees (for exceptions, of the
    /// exception's description, e.g. Chrome's "Uncaught TypeError: ..." minus "Uncaught ").
    pub message_contains: &'static str,
    /// The fewest user actions from the start URL in a fresh session that trigger it;
    /// typing into a field, choosing an option and every click count as one action each.
    pub min_actions: u32,
    /// A shortest walk from the start URL of a fresh session that triggers the bug
    /// (`steps.len() == min_actions`; the last step raises the failure).
    pub steps: &'static [Step],
}

impl SeededBug {
    /// Whether a failure an oracle reported (its kind as in wayfarer's reports:
    /// `exception`, `http_5xx`, ...) and message is this bug.
    pub fn matches(&self, kind: &str, message: &str) -> bool {
        let kind_fits = match self.kind {
            "exception" => matches!(kind, "exception" | "unhandled_rejection"),
            "http-500" => matches!(kind, "http_5xx" | "error_text"),
            "console-error" => kind == "console_error",
            _ => true,
        };
        kind_fits && message.contains(self.message_contains)
    }
}

const EXPENSE: &[SeededBug] = &[
    SeededBug {
        id: "expense-report-export",
        app: App::Expense,
        description: "Reports: exporting the 'By category' view of a period without expenses \
                      throws. Steps: Fill demo credentials, Log in, Reports, Period = 2024-01, \
                      By category, Export.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'key')",
        min_actions: 6,
        steps: &[
            Step::click("expense.login.demo"),
            Step::click("expense.login.submit"),
            Step::click("expense.nav.reports"),
            Step::select("expense.reports.month", "2024-01"),
            Step::click("expense.reports.by_category"),
            Step::click("expense.reports.export"),
        ],
    },
    SeededBug {
        id: "expense-register-email-500",
        app: App::Expense,
        description: "Registration with an e-mail whose domain has no dot (\"a@b\") answers \
                      HTTP 500 'Internal Server Error'. Steps: Create an account, E-mail = a@b, \
                      Create account.",
        kind: "http-500",
        message_contains: "HTTP 500",
        min_actions: 3,
        steps: &[
            Step::click("expense.login.register"),
            Step::type_text("expense.register.email", "a@b"),
            Step::click("expense.register.submit"),
        ],
    },
    SeededBug {
        id: "expense-long-description",
        app: App::Expense,
        description: "Add/edit expense: typing a description longer than 200 characters throws \
                      in the character counter. Steps: Fill demo credentials, Log in, Add \
                      expense, Description = 201+ characters.",
        kind: "exception",
        message_contains: "RangeError: Invalid count value",
        min_actions: 4,
        steps: &[
            Step::click("expense.login.demo"),
            Step::click("expense.login.submit"),
            Step::click("expense.nav.add"),
            Step::type_long("expense.expense_new.description", 201),
        ],
    },
    SeededBug {
        id: "expense-wizard-confirm",
        app: App::Expense,
        description: "Budget wizard: confirming a budget for a category without an icon \
                      (\"Other\", or any user-added category) throws. Steps: Fill demo \
                      credentials, Log in, Budget wizard, tile Other, Next, Limit = 100, Next, \
                      Confirm.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'glyph')",
        min_actions: 8,
        steps: &[
            Step::click("expense.login.demo"),
            Step::click("expense.login.submit"),
            Step::click("expense.nav.wizard"),
            Step::click_text("expense.wizard.tile", "Other"),
            Step::click("expense.wizard.next1"),
            Step::type_text("expense.wizard.limit", "100"),
            Step::click("expense.wizard.next2"),
            Step::click("expense.wizard.confirm"),
        ],
    },
];

const CLINIC: &[SeededBug] = &[
    SeededBug {
        id: "clinic-vets-contact",
        app: App::Clinic,
        description: "Veterinarians: 'Contact first listed vet' with a specialty filter that \
                      leaves nobody (cardiology) throws. Steps: Veterinarians, chip cardiology, \
                      Contact first listed vet.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'firstName')",
        min_actions: 3,
        steps: &[
            Step::click("clinic.nav.vets"),
            Step::click_text("clinic.vets.chip", "cardiology"),
            Step::click("clinic.vets.contact"),
        ],
    },
    SeededBug {
        id: "clinic-owner-email-500",
        app: App::Clinic,
        description: "Add/edit owner with an e-mail whose domain has no dot (\"a@b\") answers \
                      HTTP 500 'Internal Server Error' (checked before the other fields). Steps: \
                      Find owners, Add Owner, E-mail = a@b, Add Owner.",
        kind: "http-500",
        message_contains: "HTTP 500",
        min_actions: 4,
        steps: &[
            Step::click("clinic.nav.find_owners"),
            Step::click("clinic.find.add_owner"),
            Step::type_text("clinic.owner_new.email", "a@b"),
            Step::click("clinic.owner_new.submit"),
        ],
    },
    SeededBug {
        id: "clinic-long-address",
        app: App::Clinic,
        description: "Add/edit owner: typing an address longer than 200 characters throws in \
                      the mailing-label preview. Steps: Find owners, Add Owner, Address = 201+ \
                      characters.",
        kind: "exception",
        message_contains: "RangeError: Invalid array length",
        min_actions: 3,
        steps: &[
            Step::click("clinic.nav.find_owners"),
            Step::click("clinic.find.add_owner"),
            Step::type_long("clinic.owner_new.address", 201),
        ],
    },
    SeededBug {
        id: "clinic-visit-empty-description",
        app: App::Clinic,
        description: "Add visit with an empty description for a pet that has no visits yet \
                      (every sample pet has one, so the pet must be added first) throws. Steps: \
                      Find owners, Find Owner, an owner, Add New Pet, Name, Birth Date, Add Pet, \
                      Add Visit (new pet), Add Visit.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'trim')",
        min_actions: 9,
        steps: &[
            Step::click("clinic.nav.find_owners"),
            Step::click("clinic.find.submit"),
            Step::click("clinic.owners.owner"),
            Step::click("clinic.owner.add_pet"),
            Step::type_text("clinic.pet_new.name", "Nova"),
            Step::type_text("clinic.pet_new.birth_date", "2023-05-01"),
            Step::click("clinic.pet_new.submit"),
            Step::click_last("clinic.owner.add_visit"),
            Step::click("clinic.visit_new.submit"),
        ],
    },
];

/// The seeded bugs of an application (none for Hazards).
pub fn seeded_bugs(app: App) -> &'static [SeededBug] {
    match app {
        App::Expense => EXPENSE,
        App::Clinic => CLINIC,
        App::Splitter => crate::splitter::BUGS,
        App::Board | App::BoardDelegated => crate::board::BUGS,
        App::Gestures => crate::gestures::BUGS,
        App::Hazards => &[],
    }
}
