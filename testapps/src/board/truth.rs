//! The task board's ground truth: screens, action ids, a tour and feature cases.

use crate::truth::{FeatureCase, GroundTruth, Step};
use crate::App;

/// `board.card.rename` is not here: it is no control's id but what the double-click
/// handler records, so the feature cases spell a double-click as its two clicks on
/// `board.card.title` (see features.grammar).
const ACTIONS: &[&str] = &[
    "board.boards.open",
    "board.boards.new_board",
    "board.boards.name",
    "board.boards.create",
    "board.boards.cancel",
    "board.board.back",
    "board.board.archive",
    "board.board.add_card",
    "board.composer.title",
    "board.composer.save",
    "board.composer.cancel",
    "board.card.title",
    "board.card.move_left",
    "board.card.move_right",
    "board.card.open",
    "board.card.delete",
    "board.rename.title",
    "board.rename.save",
    "board.rename.cancel",
    "board.column.menu",
    "board.menu.sort",
    "board.menu.clear_done",
    "board.menu.close",
    "board.menu.confirm",
    "board.menu.cancel",
    "board.detail.description",
    "board.detail.save",
    "board.detail.archive",
    "board.detail.close",
    "board.archive.restore",
    "board.archive.back",
];

/// Boards: open the form, cancel it, create a board, go back, open the new board.
const BOARDS_WALK: &[Step] = &[
    Step::click("board.boards.new_board"),
    Step::type_text("board.boards.name", "Roadmap"),
    Step::click("board.boards.cancel"),
    Step::click("board.boards.new_board"),
    Step::type_text("board.boards.name", "Roadmap"),
    Step::click("board.boards.create"),
    Step::click("board.board.back"),
    Step::click_text("board.boards.open", "Roadmap"),
];

/// The Launch board: compose, move and delete a card of one's own; rename, describe,
/// archive and restore a sample card; the column menus. Triggers no seeded bug.
const CARDS_WALK: &[Step] = &[
    Step::click("board.boards.open"),
    Step::click("board.board.add_card"),
    Step::click("board.composer.cancel"),
    Step::click("board.board.add_card"),
    Step::type_text("board.composer.title", "Write release notes #docs"),
    Step::click("board.composer.save"),
    Step::click("board.card.move_right"),
    Step::click("board.card.move_left"),
    Step::click("board.card.delete"),
    Step::double_click("board.card.title"),
    Step::click("board.rename.cancel"),
    Step::double_click("board.card.title"),
    Step::type_text("board.rename.title", "Draft announcement"),
    Step::click("board.rename.save"),
    Step::click("board.card.open"),
    Step::type_text("board.detail.description", "Blog post only"),
    Step::click("board.detail.save"),
    Step::click("board.detail.close"),
    Step::click("board.card.open"),
    Step::click("board.detail.archive"),
    Step::click("board.board.archive"),
    Step::click("board.archive.restore"),
    Step::click("board.archive.back"),
    Step::click("board.column.menu"),
    Step::click("board.menu.sort"),
    Step::click("board.column.menu"),
    Step::click("board.menu.close"),
    Step::click_last("board.column.menu"),
    Step::click("board.menu.clear_done"),
    Step::click("board.menu.cancel"),
    Step::click("board.menu.clear_done"),
    Step::click("board.menu.confirm"),
];

const CASES: &[FeatureCase] = &[
    FeatureCase {
        feature: "open_board",
        covers: "board.boards.new_board board.boards.cancel board.boards.open",
        misses: "board.boards.new_board board.boards.cancel",
    },
    FeatureCase {
        feature: "create_board",
        covers: "board.boards.new_board board.boards.name board.boards.create",
        misses: "board.boards.new_board board.boards.create board.boards.name",
    },
    FeatureCase {
        feature: "add_card",
        covers: "board.board.add_card board.composer.title board.composer.save",
        misses: "board.board.add_card board.composer.save board.composer.title",
    },
    FeatureCase {
        feature: "rename_card",
        covers: "board.card.title board.card.title board.rename.title board.rename.save",
        misses: "board.card.title board.card.title board.rename.title board.rename.cancel",
    },
    FeatureCase {
        feature: "move_card",
        covers: "board.card.title board.card.move_right",
        misses: "board.card.title board.card.open",
    },
    FeatureCase {
        feature: "delete_card",
        covers: "board.composer.save board.card.title board.card.delete",
        misses: "board.composer.save board.card.title board.card.open board.detail.archive",
    },
    FeatureCase {
        feature: "describe_card",
        covers: "board.card.open board.detail.description board.detail.save",
        misses: "board.card.open board.detail.description board.detail.close",
    },
    FeatureCase {
        feature: "archive_card",
        covers: "board.card.open board.detail.archive",
        misses: "board.card.open board.detail.close",
    },
    FeatureCase {
        feature: "restore_card",
        covers: "board.board.archive board.archive.restore",
        misses: "board.board.archive board.archive.back",
    },
    FeatureCase {
        feature: "sort_column",
        covers: "board.column.menu board.menu.sort",
        misses: "board.column.menu board.menu.close",
    },
    FeatureCase {
        feature: "clear_done",
        covers: "board.column.menu board.menu.clear_done board.menu.confirm",
        misses: "board.column.menu board.menu.clear_done board.menu.cancel",
    },
];

pub(crate) static TRUTH: GroundTruth = GroundTruth {
    app: App::Board,
    states: &[
        "boards",
        "boards/new",
        "board",
        "board/composer",
        "board/rename",
        "board/menu",
        "board/confirm",
        "card",
        "archive",
    ],
    actions: ACTIONS,
    tour: &[BOARDS_WALK, CARDS_WALK],
    feature_cases: CASES,
};
