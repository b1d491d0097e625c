//! Task board data, kept per browser session: boards, and cards in three columns.

use serde::Serialize;

pub const MAX_TITLE: usize = 200;
pub const MAX_NAME: usize = 60;
pub const MAX_DESCRIPTION: usize = 1000;
/// The labels a card title may carry as `#tag` words.
pub const LABELS: [&str; 3] = ["urgent", "bug", "docs"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Col {
    Todo,
    Doing,
    Done,
}

impl Col {
    pub fn parse(s: &str) -> Option<Col> {
        match s {
            "todo" => Some(Col::Todo),
            "doing" => Some(Col::Doing),
            "done" => Some(Col::Done),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Col::Todo => "To do",
            Col::Doing => "Doing",
            Col::Done => "Done",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Card {
    pub id: u32,
    #[serde(skip)]
    pub board: u32,
    pub title: String,
    pub labels: Vec<String>,
    pub col: Col,
    /// `None` until someone writes one: every sample card has one, new cards do not.
    pub description: Option<String>,
    /// Created in this session (only those can be deleted).
    pub own: bool,
    #[serde(skip)]
    pub archived: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Board {
    pub id: u32,
    pub name: String,
}

/// One browser session. A column's order is the order of `cards`.
#[derive(Debug)]
pub struct BoardSession {
    pub boards: Vec<Board>,
    pub cards: Vec<Card>,
    next_board: u32,
    next_card: u32,
}

pub fn new_session() -> BoardSession {
    let mut s = BoardSession {
        boards: vec![Board {
            id: 1,
            name: "Launch".into(),
        }],
        cards: Vec::new(),
        next_board: 2,
        next_card: 1,
    };
    let sample: [(&str, &[&str], Col, &str); 4] = [
        (
            "Write announcement",
            &["docs"],
            Col::Todo,
            "Blog post and mailing list.\nKeep it short.",
        ),
        (
            "Fix login redirect",
            &["bug", "urgent"],
            Col::Todo,
            "Users land on /home instead of the page they asked for.",
        ),
        (
            "Design landing page",
            &[],
            Col::Doing,
            "Hero, three features, sign-up form.",
        ),
        (
            "Set up repository",
            &[],
            Col::Done,
            "CI runs tests on every push.",
        ),
    ];
    for (title, labels, col, description) in sample {
        let id = s.add_card(1, title, labels.iter().map(|l| l.to_string()).collect());
        let c = s.card_mut(id).expect("just added");
        c.col = col;
        c.description = Some(description.into());
        c.own = false;
    }
    s
}

impl BoardSession {
    pub fn board(&self, id: u32) -> Option<&Board> {
        self.boards.iter().find(|b| b.id == id)
    }

    /// The board's cards on the board (not archived), in column order.
    pub fn open_cards(&self, board: u32) -> Vec<&Card> {
        let on = |c: &&Card| c.board == board && !c.archived;
        self.cards.iter().filter(on).collect()
    }

    pub fn archived_cards(&self, board: u32) -> Vec<&Card> {
        let on = |c: &&Card| c.board == board && c.archived;
        self.cards.iter().filter(on).collect()
    }

    pub fn card_mut(&mut self, id: u32) -> Option<&mut Card> {
        self.cards.iter_mut().find(|c| c.id == id)
    }

    pub fn add_board(&mut self, name: &str) -> u32 {
        let id = self.next_board;
        self.next_board += 1;
        self.boards.push(Board {
            id,
            name: name.into(),
        });
        id
    }

    /// A new card at the bottom of To do.
    pub fn add_card(&mut self, board: u32, title: &str, labels: Vec<String>) -> u32 {
        let id = self.next_card;
        self.next_card += 1;
        self.cards.push(Card {
            id,
            board,
            title: title.into(),
            labels,
            col: Col::Todo,
            description: None,
            own: true,
            archived: false,
        });
        id
    }

    /// Puts the card at the bottom of its column (moves and restores do that).
    pub fn send_to_bottom(&mut self, id: u32) {
        if let Some(i) = self.cards.iter().position(|c| c.id == id) {
            let c = self.cards.remove(i);
            self.cards.push(c);
        }
    }

    pub fn delete(&mut self, id: u32) {
        self.cards.retain(|c| c.id != id);
    }

    /// Sorts one column by title (case-insensitive, stable), leaving the others alone.
    pub fn sort(&mut self, board: u32, col: Col) {
        let in_col = |c: &Card| c.board == board && c.col == col && !c.archived;
        let mut sorted: Vec<Card> = self.cards.iter().filter(|c| in_col(c)).cloned().collect();
        sorted.sort_by_key(|c| c.title.to_lowercase());
        let mut next = sorted.into_iter();
        for slot in self.cards.iter_mut() {
            if in_col(slot) {
                if let Some(c) = next.next() {
                    *slot = c;
                }
            }
        }
    }

    /// Archives every card in Done; returns how many.
    pub fn clear_done(&mut self, board: u32) -> usize {
        let mut n = 0;
        for c in self.cards.iter_mut() {
            if c.board == board && c.col == Col::Done && !c.archived {
                c.archived = true;
                n += 1;
            }
        }
        n
    }
}

/// Splits a composer title into the title and its `#labels`: "Fix login #bug" gives
/// ("Fix login", ["bug"]). `Err(tag)` names the first unknown label ("" for a bare `#`).
pub fn parse_title(raw: &str) -> Result<(String, Vec<String>), String> {
    let mut words = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    for w in raw.split_whitespace() {
        match w.strip_prefix('#') {
            Some(tag) => {
                let tag = tag.to_lowercase();
                if !LABELS.contains(&tag.as_str()) {
                    return Err(tag);
                }
                if !labels.contains(&tag) {
                    labels.push(tag);
                }
            }
            None => words.push(w),
        }
    }
    Ok((words.join(" "), labels))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_labels() {
        assert_eq!(
            parse_title("Fix  login #bug #BUG #urgent"),
            Ok(("Fix login".into(), vec!["bug".into(), "urgent".into()]))
        );
        assert_eq!(parse_title("#zzz"), Err("zzz".into()));
        assert_eq!(parse_title("a # b"), Err(String::new()));
        assert_eq!(parse_title("  "), Ok((String::new(), vec![])));
    }

    #[test]
    fn columns_keep_their_order() {
        let mut s = new_session();
        let id = s.add_card(1, "alpha", vec![]);
        s.sort(1, Col::Todo);
        let todo: Vec<&str> = s
            .open_cards(1)
            .into_iter()
            .filter(|c| c.col == Col::Todo)
            .map(|c| c.title.as_str())
            .collect();
        assert_eq!(todo, ["alpha", "Fix login redirect", "Write announcement"]);
        s.card_mut(id).unwrap().col = Col::Done;
        s.send_to_bottom(id);
        assert_eq!(s.clear_done(1), 2);
        assert_eq!(s.archived_cards(1).len(), 2);
        assert!(s.cards.iter().all(|c| c.own == (c.id == id)));
    }
}
