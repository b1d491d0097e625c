//! The same-origin JSON API the board's scripts call. Requests are form-encoded posts;
//! answers are `{"ok": true, ...}` or, for invalid input, 400 `{"ok": false, "error": ...}`.
//! Each successful change is logged under the action id of the control that made it.

use std::collections::HashMap;

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Form};
use serde_json::{json, Value};

use super::data::{parse_title, Col, MAX_DESCRIPTION, MAX_NAME, MAX_TITLE};
use super::pages::board_value;
use super::S;
use crate::common::{self, field, typed, Sid};

type F = Form<HashMap<String, String>>;

fn answer(status: StatusCode, v: Value) -> Response {
    typed(status, "application/json", v.to_string())
}

fn ok(v: Value) -> Response {
    answer(StatusCode::OK, v)
}

fn bad(msg: impl Into<String>) -> Response {
    answer(
        StatusCode::BAD_REQUEST,
        json!({ "ok": false, "error": msg.into() }),
    )
}

fn missing() -> Response {
    answer(
        StatusCode::NOT_FOUND,
        json!({ "ok": false, "error": "No such board or card" }),
    )
}

pub async fn board_json(st: S, Extension(sid): Extension<Sid>, Path(id): Path<u32>) -> Response {
    match st.sessions.with(&sid, |s| board_value(s, id)) {
        Some(v) => ok(json!({ "ok": true, "board": v })),
        None => missing(),
    }
}

pub async fn create_board(st: S, Extension(sid): Extension<Sid>, Form(f): F) -> Response {
    let name = field(&f, "name");
    if name.is_empty() {
        return bad("Name is required");
    }
    if name.chars().count() > MAX_NAME {
        return bad(format!("Name must be at most {MAX_NAME} characters"));
    }
    let id = st.sessions.with(&sid, |s| s.add_board(&name));
    st.sessions.log(&sid, "board.boards.create");
    ok(json!({ "ok": true, "id": id }))
}

pub async fn create_card(
    st: S,
    Extension(sid): Extension<Sid>,
    Path(board): Path<u32>,
    Form(f): F,
) -> Response {
    let raw = field(&f, "title");
    if raw.chars().count() > MAX_TITLE {
        return bad(format!("Title must be at most {MAX_TITLE} characters"));
    }
    let (title, labels) = match parse_title(&raw) {
        Ok(t) => t,
        Err(tag) => {
            if st.bugs {
                // SEEDED BUG board-unknown-label: the label lookup assumes every `#tag` is
                // known; "#zzz" (or a bare "#") crashes the handler: HTTP 500.
                return common::internal_error();
            }
            return bad(format!("Unknown label #{tag}: use #urgent, #bug or #docs"));
        }
    };
    if title.is_empty() {
        return bad("Title is required");
    }
    let card = st.sessions.with(&sid, |s| {
        s.board(board)?;
        let id = s.add_card(board, &title, labels);
        s.card_mut(id).map(|c| json!(c))
    });
    match card {
        Some(card) => {
            st.sessions.log(&sid, "board.composer.save");
            ok(json!({ "ok": true, "card": card }))
        }
        None => missing(),
    }
}

/// `POST /api/boards/{id}/sort` (field `col`) and `POST /api/boards/{id}/clear-done`.
pub async fn board_op(
    st: S,
    Extension(sid): Extension<Sid>,
    Path((board, op)): Path<(u32, String)>,
    Form(f): F,
) -> Response {
    let col = Col::parse(&field(&f, "col"));
    let res = st.sessions.with(&sid, |s| {
        s.board(board)?;
        Some(match (op.as_str(), col) {
            ("sort", Some(col)) => {
                s.sort(board, col);
                Ok(("board.menu.sort", json!({ "ok": true })))
            }
            ("sort", None) => Err("Unknown column"),
            ("clear-done", _) => {
                let n = s.clear_done(board);
                Ok(("board.menu.confirm", json!({ "ok": true, "archived": n })))
            }
            _ => Err("Unknown operation"),
        })
    });
    finish(&st, &sid, res)
}

/// `POST /api/cards/{id}/{op}`: move (field `to`), rename (`title`), describe
/// (`description`), delete, archive, restore.
pub async fn card_op(
    st: S,
    Extension(sid): Extension<Sid>,
    Path((id, op)): Path<(u32, String)>,
    Form(f): F,
) -> Response {
    let bugs = st.bugs;
    let res = st.sessions.with(&sid, |s| {
        let card = s.card_mut(id)?;
        let done = |action: &'static str| Ok((action, json!({ "ok": true })));
        Some(match op.as_str() {
            "move" => match Col::parse(&field(&f, "to")) {
                Some(to) if !card.archived => {
                    let action = if (to as u8) < (card.col as u8) {
                        "board.card.move_left"
                    } else {
                        "board.card.move_right"
                    };
                    card.col = to;
                    s.send_to_bottom(id);
                    done(action)
                }
                _ => Err("Unknown column"),
            },
            "rename" => {
                let title = field(&f, "title");
                // SEEDED BUG board-rename-empty: with bugs on an empty title is stored
                // (the client then crashes when the card is moved).
                if title.is_empty() && !bugs {
                    Err("Title is required")
                } else if title.chars().count() > MAX_TITLE {
                    Err("Title must be at most 200 characters")
                } else {
                    card.title = title;
                    done("board.rename.save")
                }
            }
            "describe" => {
                let d = field(&f, "description");
                if d.chars().count() > MAX_DESCRIPTION {
                    Err("Description must be at most 1000 characters")
                } else {
                    card.description = Some(d);
                    done("board.detail.save")
                }
            }
            "delete" if !card.own => Err("Only cards you created can be deleted"),
            "delete" => {
                s.delete(id);
                done("board.card.delete")
            }
            "archive" => {
                card.archived = true;
                done("board.detail.archive")
            }
            "restore" => {
                card.archived = false;
                s.send_to_bottom(id);
                done("board.archive.restore")
            }
            _ => Err("Unknown operation"),
        })
    });
    finish(&st, &sid, res)
}

type Outcome = Option<Result<(&'static str, Value), &'static str>>;

fn finish(st: &super::St, sid: &Sid, res: Outcome) -> Response {
    match res {
        None => missing(),
        Some(Err(msg)) => bad(msg),
        Some(Ok((action, v))) => {
            st.sessions.log(sid, action);
            ok(v)
        }
    }
}
