//! The splitter's seeded bugs (all off with `ServeOptions { bugs: false }`). The triggers
//! are marked `SEEDED BUG <id>` in `api.rs` and in `assets/splitter/*.js`.

use crate::bugs::SeededBug;
use crate::truth::Step;
use crate::App;

pub(crate) const BUGS: &[SeededBug] = &[
    SeededBug {
        id: "splitter-settle-empty",
        app: App::Splitter,
        description: "Settle up on a group without expenses throws while summarising the \
                      largest expense (reduce of an empty list). Steps: group Flat share, \
                      transaction Internet, Delete transaction, Settle up.",
        kind: "exception",
        message_contains: "TypeError: Reduce of empty array with no initial value",
        min_actions: 4,
        steps: &[
            Step::click_text("splitter.groups.group", "Flat share"),
            Step::click_text("splitter.group.tx", "Internet"),
            Step::click("splitter.tx.delete"),
            Step::click("splitter.group.settle"),
        ],
    },
    SeededBug {
        id: "splitter-leap-day-500",
        app: App::Splitter,
        description: "Saving a transaction dated 29.02 of a common year (29.02.2023, which \
                      the client's check lets through) answers HTTP 500 from \
                      POST /api/groups/{id}/transactions[/{tx}]. Steps: group Ski trip, \
                      transaction Chalet, Date = 29.02.2023, Save changes.",
        kind: "http-500",
        message_contains: "HTTP 500",
        min_actions: 4,
        steps: &[
            Step::click_text("splitter.groups.group", "Ski trip"),
            Step::click_text("splitter.group.tx", "Chalet"),
            Step::type_text("splitter.tx.date", "29.02.2023"),
            Step::click("splitter.tx.save"),
        ],
    },
    SeededBug {
        id: "splitter-long-description",
        app: App::Splitter,
        description: "Typing a transaction description longer than 200 characters throws in \
                      the length hint. Steps: group Ski trip, Add transaction, Description = \
                      201+ characters.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'label')",
        min_actions: 3,
        steps: &[
            Step::click_text("splitter.groups.group", "Ski trip"),
            Step::click("splitter.group.add_tx"),
            Step::type_long("splitter.tx_form.description", 201),
        ],
    },
    SeededBug {
        id: "splitter-future-settle",
        app: App::Splitter,
        description: "The new-transaction form accepts a date after today (15.03.2024; \
                      editing refuses it), and Settle up then throws while bucketing \
                      expenses by age. Needs a valid DD.MM.YYYY date. Steps: group Ski trip, \
                      Add transaction, Description, Amount = 30, Date = 20.03.2024, Paid by \
                      Ann, Save transaction, Settle up.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'count')",
        min_actions: 8,
        steps: &[
            Step::click_text("splitter.groups.group", "Ski trip"),
            Step::click("splitter.group.add_tx"),
            Step::type_text("splitter.tx_form.description", "Dinner"),
            Step::type_text("splitter.tx_form.amount", "30"),
            Step::type_text("splitter.tx_form.date", "20.03.2024"),
            Step::select("splitter.tx_form.payer", "0"),
            Step::click("splitter.tx_form.submit"),
            Step::click("splitter.group.settle"),
        ],
    },
];
