//! The splitter's ground truth: states under the "screen" abstraction, action ids, a tour
//! and hand-written feature cases (see `crate::truth`).

use crate::truth::{FeatureCase, GroundTruth, Pick, Step};
use crate::App;

/// Creating a group: cancel once, then a name, three members (one row added, one added and
/// removed again), create, and home.
const TOUR_GROUP: &[Step] = &[
    Step::click("splitter.groups.new"),
    Step::click("splitter.group_form.cancel"),
    Step::click("splitter.groups.new"),
    Step::type_text("splitter.group_form.name", "Book club"),
    Step::type_text("splitter.group_form.member", "Zoe"),
    Step::type_text("splitter.group_form.member", "Yan").pick(Pick::Last),
    Step::click("splitter.group_form.add_member"),
    Step::type_text("splitter.group_form.member", "Xia").pick(Pick::Last),
    Step::click("splitter.group_form.add_member"),
    Step::click_last("splitter.group_form.remove_member"),
    Step::click("splitter.group_form.submit"),
    Step::click("splitter.nav.home"),
];

/// The Ski trip: filter, add a transaction (not for Ann), edit it, look at another one,
/// settle up with one payment, delete a transaction. Dates stay on or before today.
const TOUR_TRANSACTIONS: &[Step] = &[
    Step::click_text("splitter.groups.group", "Ski trip"),
    Step::type_text("splitter.group.filter", "lift"),
    Step::click("splitter.group.add_tx"),
    Step::click("splitter.tx_form.cancel"),
    Step::click("splitter.group.add_tx"),
    Step::type_text("splitter.tx_form.description", "Snacks"),
    Step::type_text("splitter.tx_form.amount", "45.60"),
    Step::type_text("splitter.tx_form.date", "14.03.2024"),
    Step::select("splitter.tx_form.payer", "2"),
    Step::click("splitter.tx_form.participant"),
    Step::click("splitter.tx_form.submit"),
    Step::click_text("splitter.group.tx", "Snacks"),
    Step::type_text("splitter.tx.description", "Snacks and drinks"),
    Step::type_text("splitter.tx.amount", "50"),
    Step::type_text("splitter.tx.date", "13.03.2024"),
    Step::select("splitter.tx.payer", "1"),
    Step::click("splitter.tx.participant"),
    Step::click("splitter.tx.save"),
    Step::click_text("splitter.group.tx", "Lift passes"),
    Step::click("splitter.tx.cancel"),
    Step::click("splitter.group.settle"),
    Step::click("splitter.settle.mark_paid"),
    Step::click("splitter.settle.back"),
    Step::click_text("splitter.group.tx", "Fondue dinner"),
    Step::click("splitter.tx.delete"),
    // Back to the deleted transaction's address shows its group, not "not found".
    Step::back(),
];

pub(crate) static TRUTH: GroundTruth = GroundTruth {
    app: App::Splitter,
    // `not_found` (an unknown group or a malformed hash) is left out: no user action
    // leads there; Back to a deleted transaction shows its group (the tour checks it).
    states: &["groups", "group_new", "group", "tx_new", "tx", "settle"],
    actions: &[
        "splitter.nav.home",
        "splitter.groups.new",
        "splitter.groups.group",
        "splitter.group_form.name",
        "splitter.group_form.member",
        "splitter.group_form.add_member",
        "splitter.group_form.remove_member",
        "splitter.group_form.submit",
        "splitter.group_form.cancel",
        "splitter.group.add_tx",
        "splitter.group.tx",
        "splitter.group.settle",
        "splitter.group.filter",
        "splitter.tx_form.description",
        "splitter.tx_form.amount",
        "splitter.tx_form.date",
        "splitter.tx_form.payer",
        "splitter.tx_form.participant",
        "splitter.tx_form.submit",
        "splitter.tx_form.cancel",
        "splitter.tx.description",
        "splitter.tx.amount",
        "splitter.tx.date",
        "splitter.tx.payer",
        "splitter.tx.participant",
        "splitter.tx.save",
        "splitter.tx.delete",
        "splitter.tx.cancel",
        "splitter.settle.mark_paid",
        "splitter.settle.back",
    ],
    tour: &[TOUR_GROUP, TOUR_TRANSACTIONS],
    feature_cases: &[
        FeatureCase {
            feature: "create_group",
            covers: "splitter.groups.new splitter.group_form.name splitter.group_form.member \
                     splitter.group_form.member splitter.group_form.submit",
            misses: "splitter.groups.new splitter.group_form.name splitter.group_form.member \
                     splitter.group_form.cancel",
        },
        FeatureCase {
            feature: "add_member",
            covers: "splitter.group_form.name splitter.group_form.add_member \
                     splitter.group_form.member splitter.group_form.submit",
            misses: "splitter.group_form.name splitter.group_form.member \
                     splitter.group_form.add_member splitter.group_form.submit",
        },
        FeatureCase {
            feature: "remove_member",
            covers: "splitter.group_form.add_member splitter.group_form.remove_member \
                     splitter.group_form.submit",
            misses: "splitter.group_form.add_member splitter.group_form.member \
                     splitter.group_form.submit",
        },
        FeatureCase {
            feature: "view_group",
            covers: "splitter.groups.new splitter.group_form.cancel splitter.groups.group",
            misses: "splitter.groups.new splitter.group_form.cancel",
        },
        FeatureCase {
            feature: "filter_transactions",
            covers: "splitter.groups.group splitter.group.filter",
            misses: "splitter.groups.group splitter.group.tx",
        },
        FeatureCase {
            feature: "add_transaction",
            covers: "splitter.groups.group splitter.group.add_tx splitter.tx_form.description \
                     splitter.tx_form.amount splitter.tx_form.date splitter.tx_form.payer \
                     splitter.tx_form.submit",
            misses: "splitter.groups.group splitter.group.add_tx splitter.tx_form.description \
                     splitter.tx_form.amount splitter.tx_form.payer splitter.tx_form.submit",
        },
        FeatureCase {
            feature: "choose_participants",
            covers: "splitter.group.add_tx splitter.tx_form.participant splitter.tx_form.submit",
            misses: "splitter.group.add_tx splitter.tx_form.participant splitter.tx_form.cancel",
        },
        FeatureCase {
            feature: "edit_transaction",
            covers: "splitter.group.tx splitter.tx.amount splitter.tx.save",
            misses: "splitter.group.tx splitter.tx.save",
        },
        FeatureCase {
            feature: "delete_transaction",
            covers: "splitter.group.tx splitter.tx.delete",
            misses: "splitter.group.tx splitter.tx.cancel",
        },
        FeatureCase {
            feature: "settle_up",
            covers: "splitter.groups.group splitter.group.settle",
            misses: "splitter.groups.group splitter.group.add_tx",
        },
        FeatureCase {
            feature: "record_payment",
            covers: "splitter.group.settle splitter.settle.mark_paid",
            misses: "splitter.group.settle splitter.settle.back",
        },
    ],
};
