//! Validation of what the client posts: amounts, the transaction and group forms (dates:
//! see `dates.rs`). Messages are the client's too, so both show the same inline text.

use std::collections::BTreeMap;

use serde::Deserialize;

pub const MAX_DESCRIPTION: usize = 200;
pub const MAX_GROUP_NAME: usize = 60;
pub const MAX_MEMBER_NAME: usize = 40;
pub const MAX_MEMBERS: usize = 12;
const MAX_CENTS: i64 = 10_000_000;

/// Validation errors by field name (ordered, so the JSON is deterministic).
pub type Errors = BTreeMap<&'static str, String>;

/// Parses a positive amount with at most two decimals ("12", "12.5", "12.50") into cents.
pub fn parse_amount(s: &str) -> Result<i64, &'static str> {
    let s = s.trim();
    if s.is_empty() {
        return Err("Amount is required");
    }
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |p: &str| p.bytes().all(|c| c.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(frac) || frac.len() > 2 || s.ends_with('.') {
        return Err("Enter an amount like 12.50 (at most two decimals)");
    }
    if whole.len() > 6 {
        return Err("Amount must be at most 100000");
    }
    let w: i64 = whole.parse().unwrap_or(0);
    let f: i64 = format!("{frac:0<2}").parse().unwrap_or(0);
    let cents = w * 100 + f;
    if cents <= 0 {
        return Err("Amount must be greater than 0");
    }
    if cents > MAX_CENTS {
        return Err("Amount must be at most 100000");
    }
    Ok(cents)
}

/// The body of a create or update transaction request.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TxIn {
    pub description: String,
    pub amount: String,
    pub date: String,
    pub payer: Option<usize>,
    pub participants: Vec<usize>,
}

/// A validated transaction: description, cents, payer, participants (sorted, unique).
pub struct TxOk {
    pub description: String,
    pub cents: i64,
    pub payer: usize,
    pub participants: Vec<usize>,
}

/// Checks every field but the date (the caller decides which date rule applies).
pub fn check_tx(input: &TxIn, members: usize, errors: &mut Errors) -> Option<TxOk> {
    let description = input.description.trim().to_string();
    if description.is_empty() {
        errors.insert("description", "Description is required".into());
    } else if description.chars().count() > MAX_DESCRIPTION {
        let m = format!("Description must be at most {MAX_DESCRIPTION} characters");
        errors.insert("description", m);
    }
    let cents = parse_amount(&input.amount)
        .map_err(|m| errors.insert("amount", m.into()))
        .ok();
    match input.payer {
        None => {
            errors.insert("payer", "Choose who paid".into());
        }
        Some(p) if p >= members => {
            errors.insert("payer", "Unknown member".into());
        }
        Some(_) => {}
    }
    let mut participants = input.participants.clone();
    participants.sort_unstable();
    participants.dedup();
    if participants.is_empty() {
        errors.insert("participants", "Choose at least one participant".into());
    } else if participants.iter().any(|&p| p >= members) {
        errors.insert("participants", "Unknown member".into());
    }
    if !errors.is_empty() {
        return None;
    }
    Some(TxOk {
        description,
        cents: cents?,
        payer: input.payer?,
        participants,
    })
}

/// The body of a create group request.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct GroupIn {
    pub name: String,
    pub members: Vec<String>,
}

/// Validates a new group: a name and at least two different member names (empty rows of
/// the form are ignored). Returns the trimmed name and members.
pub fn check_group(input: &GroupIn) -> Result<(String, Vec<String>), Errors> {
    let mut errors = Errors::new();
    let name = input.name.trim().to_string();
    if name.is_empty() {
        errors.insert("name", "Group name is required".into());
    } else if name.chars().count() > MAX_GROUP_NAME {
        let m = format!("Group name must be at most {MAX_GROUP_NAME} characters");
        errors.insert("name", m);
    }
    let members: Vec<String> = input
        .members
        .iter()
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
        .collect();
    let mut lower: Vec<String> = members.iter().map(|m| m.to_lowercase()).collect();
    lower.sort();
    lower.dedup();
    if members.len() < 2 {
        errors.insert("members", "Add at least two members".into());
    } else if members.len() > MAX_MEMBERS {
        errors.insert("members", format!("At most {MAX_MEMBERS} members"));
    } else if members.iter().any(|m| m.chars().count() > MAX_MEMBER_NAME) {
        let m = format!("Member names must be at most {MAX_MEMBER_NAME} characters");
        errors.insert("members", m);
    } else if lower.len() != members.len() {
        errors.insert("members", "Member names must be different".into());
    }
    if errors.is_empty() {
        Ok((name, members))
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("12.5"), Ok(1250));
        assert_eq!(parse_amount("0.01"), Ok(1));
        for bad in ["0", "1.234", "-3", "1e3", ".5", "5.", "abc", "", "1000000"] {
            assert!(parse_amount(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn groups() {
        let g = |name: &str, members: &[&str]| GroupIn {
            name: name.into(),
            members: members.iter().map(|m| m.to_string()).collect(),
        };
        assert!(check_group(&g("Trip", &["A", " ", "B"])).is_ok());
        assert!(check_group(&g("", &["A", "B"]))
            .unwrap_err()
            .contains_key("name"));
        assert!(check_group(&g("Trip", &["A", ""])).is_err());
        assert!(check_group(&g("Trip", &["Ann", "ann"])).is_err());
    }
}
