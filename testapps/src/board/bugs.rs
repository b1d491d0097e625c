//! The task board's seeded bugs (all off with `ServeOptions { bugs: false }`).

use crate::bugs::SeededBug;
use crate::truth::Step;
use crate::App;

pub(crate) const BUGS: &[SeededBug] = &[
    SeededBug {
        id: "board-rename-empty",
        app: App::Board,
        description: "Renaming a card to a blank title is accepted; moving that card then throws \
                      while reading its title. Steps: board Launch, double-click the first \
                      card's title, title = three spaces, Save, \u{2192}.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of null (reading 'nodeValue')",
        min_actions: 5,
        steps: &[
            Step::click("board.boards.open"),
            Step::double_click("board.card.title"),
            Step::type_text("board.rename.title", "   "),
            Step::click("board.rename.save"),
            Step::click("board.card.move_right"),
        ],
    },
    SeededBug {
        id: "board-unknown-label",
        app: App::Board,
        description: "Adding a card whose title carries an unknown label (\"#zzz\", or a bare \
                      \"#\") answers HTTP 500 'Internal Server Error'. Steps: board Launch, Add \
                      card, title = #zzz, Save.",
        kind: "http-500",
        message_contains: "HTTP 500",
        min_actions: 4,
        steps: &[
            Step::click("board.boards.open"),
            Step::click("board.board.add_card"),
            Step::type_text("board.composer.title", "#zzz"),
            Step::click("board.composer.save"),
        ],
    },
    SeededBug {
        id: "board-long-title",
        app: App::Board,
        description: "Typing a card title longer than 200 characters throws in the composer's \
                      length meter. Steps: board Launch, Add card, title = 201+ characters.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of undefined (reading 'color')",
        min_actions: 3,
        steps: &[
            Step::click("board.boards.open"),
            Step::click("board.board.add_card"),
            Step::type_long("board.composer.title", 201),
        ],
    },
    SeededBug {
        id: "board-clear-done",
        app: App::Board,
        description: "Clearing Done when it holds a card created in this session (new cards have \
                      no description; every sample card has one) throws while writing the \
                      release notes. Steps: board Launch, Add card, title = Ship it, Save, \
                      \u{2192}, \u{2192}, Done's \u{22ef} menu, Clear Done, Yes.",
        kind: "exception",
        message_contains: "TypeError: Cannot read properties of null (reading 'split')",
        min_actions: 9,
        steps: &[
            Step::click("board.boards.open"),
            Step::click("board.board.add_card"),
            Step::type_text("board.composer.title", "Ship it"),
            Step::click("board.composer.save"),
            Step::click("board.card.move_right"),
            Step::click("board.card.move_right"),
            Step::click_last("board.column.menu"),
            Step::click("board.menu.clear_done"),
            Step::click("board.menu.confirm"),
        ],
    },
];
