//! The HTML pages: the boards list, a board (rendered by the client from inline JSON) and a
//! board's archive.

use axum::extract::Path;
use axum::response::Response;
use axum::Extension;

use super::data::BoardSession;
use super::{page, S};
use crate::common::{self, esc, fill, js_json, Sid};

const BOARDS: &str = include_str!("../../assets/board/boards.html");
const BOARD: &str = include_str!("../../assets/board/board.html");
const ARCHIVE: &str = include_str!("../../assets/board/archive.html");

/// The JSON a board page starts from (also `GET /api/boards/{id}`).
pub fn board_value(s: &BoardSession, id: u32) -> Option<serde_json::Value> {
    let b = s.board(id)?;
    Some(serde_json::json!({ "id": b.id, "name": b.name, "cards": s.open_cards(id) }))
}

pub async fn boards(st: S, Extension(sid): Extension<Sid>) -> Response {
    let tiles = st.sessions.with(&sid, |s| {
        let mut out = String::new();
        for b in &s.boards {
            // The tile's own text is the name alone, so "click the tile Launch" is exact.
            out.push_str(&format!(
                "<div class=\"tile-wrap\"><div class=\"tile\" data-action-id=\"board.boards.open\" \
                 data-href=\"/boards/{id}\">{name}</div><div class=\"meta\">{n} open cards</div></div>\n",
                id = b.id,
                name = esc(&b.name),
                n = s.open_cards(b.id).len(),
            ));
        }
        out
    });
    let body = fill(BOARDS, &[("tiles", &tiles)]);
    page(&st, "Boards", "boards", "boards", &body, "")
}

pub async fn board(st: S, Extension(sid): Extension<Sid>, Path(id): Path<u32>) -> Response {
    let found = st.sessions.with(&sid, |s| {
        let name = s.board(id)?.name.clone();
        Some((name, board_value(s, id)?))
    });
    let Some((name, value)) = found else {
        return common::not_found();
    };
    let body = fill(BOARD, &[("name", &esc(&name))]);
    let script = format!("<script>window.BOARD = {};</script>", js_json(&value));
    page(&st, &name, "board", "board", &body, &script)
}

pub async fn archive(st: S, Extension(sid): Extension<Sid>, Path(id): Path<u32>) -> Response {
    let found = st.sessions.with(&sid, |s| {
        let name = s.board(id)?.name.clone();
        let mut rows = String::new();
        for c in s.archived_cards(id) {
            rows.push_str(&format!(
                "<div class=\"archived-card\" data-card-id=\"{cid}\"><span class=\"title\">{t}</span> \
                 <span class=\"meta\">from {col}</span> \
                 <div class=\"ctl\" data-action-id=\"board.archive.restore\">Restore</div></div>\n",
                cid = c.id,
                t = esc(&c.title),
                col = c.col.name(),
            ));
        }
        Some((name, rows))
    });
    let Some((name, rows)) = found else {
        return common::not_found();
    };
    let empty_hidden = if rows.is_empty() { "" } else { " hidden" };
    let body = fill(
        ARCHIVE,
        &[
            ("name", &esc(&name)),
            ("id", &id.to_string()),
            ("rows", &rows),
            ("empty_hidden", empty_hidden),
        ],
    );
    page(
        &st,
        &format!("Archive · {name}"),
        "archive",
        "archive",
        &body,
        "",
    )
}
