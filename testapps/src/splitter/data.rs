//! Splitter data, kept per browser session: groups, their members and transactions, and the
//! balances and "settle up" transfers computed from them.

use serde::Serialize;

/// Whether a transaction is a shared expense or a payment recorded on the settle-up screen.
pub const EXPENSE: &str = "expense";
pub const PAYMENT: &str = "payment";

#[derive(Clone, Debug, Serialize)]
pub struct Tx {
    pub id: u32,
    pub description: String,
    pub cents: i64,
    /// As the user typed it: `DD.MM.YYYY` (validated).
    pub date: String,
    /// Index into the group's members.
    pub payer: usize,
    /// Indexes into the group's members, ascending, at least one.
    pub participants: Vec<usize>,
    pub kind: &'static str,
}

#[derive(Clone, Debug)]
pub struct Group {
    pub id: u32,
    pub name: String,
    pub members: Vec<String>,
    pub txs: Vec<Tx>,
}

/// One "who pays whom" line of the settle-up screen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Transfer {
    pub from: usize,
    pub to: usize,
    pub cents: i64,
}

/// What the API answers for one group.
#[derive(Serialize)]
pub struct GroupView<'a> {
    pub id: u32,
    pub name: &'a str,
    pub members: &'a [String],
    pub transactions: &'a [Tx],
    pub balances: Vec<i64>,
    pub transfers: Vec<Transfer>,
}

/// One row of the groups list.
#[derive(Serialize)]
pub struct GroupSummary<'a> {
    pub id: u32,
    pub name: &'a str,
    pub members: &'a [String],
    pub count: usize,
    pub total: i64,
}

/// One browser session's groups. Ids count up per session and are never reused.
#[derive(Debug)]
pub struct SplitSession {
    pub groups: Vec<Group>,
    next_group: u32,
    next_tx: u32,
}

fn tx(description: &str, cents: i64, date: &str, payer: usize, participants: &[usize]) -> Tx {
    Tx {
        id: 0,
        description: description.into(),
        cents,
        date: date.into(),
        payer,
        participants: participants.to_vec(),
        kind: EXPENSE,
    }
}

/// The sample data of every fresh session.
pub fn new_session() -> SplitSession {
    let mut s = SplitSession {
        groups: Vec::new(),
        next_group: 1,
        next_tx: 1,
    };
    let ski = s.add_group("Ski trip", vec!["Ann".into(), "Ben".into(), "Cleo".into()]);
    for t in [
        tx("Chalet", 30000, "10.03.2024", 0, &[0, 1, 2]),
        tx("Lift passes", 13500, "11.03.2024", 1, &[0, 1, 2]),
        tx("Fondue dinner", 6000, "12.03.2024", 2, &[0, 2]),
        tx("Ski rental", 4200, "13.03.2024", 2, &[0, 1, 2]),
    ] {
        s.add_tx(ski, t);
    }
    let flat = s.add_group("Flat share", vec!["Dana".into(), "Eli".into()]);
    s.add_tx(flat, tx("Internet", 4000, "01.03.2024", 0, &[0, 1]));
    s
}

impl SplitSession {
    pub fn add_group(&mut self, name: &str, members: Vec<String>) -> u32 {
        let id = self.next_group;
        self.next_group += 1;
        self.groups.push(Group {
            id,
            name: name.into(),
            members,
            txs: Vec::new(),
        });
        id
    }

    /// Appends a transaction (its id is assigned here) and returns the id.
    pub fn add_tx(&mut self, group: u32, mut t: Tx) -> u32 {
        let id = self.next_tx;
        self.next_tx += 1;
        t.id = id;
        if let Some(g) = self.group_mut(group) {
            g.txs.push(t);
        }
        id
    }

    pub fn group(&self, id: u32) -> Option<&Group> {
        self.groups.iter().find(|g| g.id == id)
    }

    pub fn group_mut(&mut self, id: u32) -> Option<&mut Group> {
        self.groups.iter_mut().find(|g| g.id == id)
    }
}

impl Group {
    pub fn tx_index(&self, id: u32) -> Option<usize> {
        self.txs.iter().position(|t| t.id == id)
    }

    /// Per member: what they paid minus their share of what they took part in.
    pub fn balances(&self) -> Vec<i64> {
        let mut bal = vec![0i64; self.members.len()];
        for t in &self.txs {
            if let Some(b) = bal.get_mut(t.payer) {
                *b += t.cents;
            }
            for (p, share) in t
                .participants
                .iter()
                .zip(shares(t.cents, t.participants.len()))
            {
                if let Some(b) = bal.get_mut(*p) {
                    *b -= share;
                }
            }
        }
        bal
    }

    /// Greedy settle-up: the largest debtor pays the largest creditor, ties by member order.
    pub fn transfers(&self) -> Vec<Transfer> {
        let bal = self.balances();
        let mut debt: Vec<(usize, i64)> = (0..bal.len())
            .filter(|&i| bal[i] < 0)
            .map(|i| (i, -bal[i]))
            .collect();
        let mut credit: Vec<(usize, i64)> = (0..bal.len())
            .filter(|&i| bal[i] > 0)
            .map(|i| (i, bal[i]))
            .collect();
        let mut out = Vec::new();
        loop {
            debt.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            credit.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let (Some(d), Some(c)) = (debt.first_mut(), credit.first_mut()) else {
                break;
            };
            let cents = d.1.min(c.1);
            out.push(Transfer {
                from: d.0,
                to: c.0,
                cents,
            });
            d.1 -= cents;
            c.1 -= cents;
            debt.retain(|x| x.1 > 0);
            credit.retain(|x| x.1 > 0);
        }
        out
    }

    pub fn view(&self) -> GroupView<'_> {
        GroupView {
            id: self.id,
            name: &self.name,
            members: &self.members,
            transactions: &self.txs,
            balances: self.balances(),
            transfers: self.transfers(),
        }
    }

    pub fn summary(&self) -> GroupSummary<'_> {
        let expenses = self.txs.iter().filter(|t| t.kind == EXPENSE);
        GroupSummary {
            id: self.id,
            name: &self.name,
            members: &self.members,
            count: self.txs.len(),
            total: expenses.map(|t| t.cents).sum(),
        }
    }
}

/// Splits `cents` equally among `n`; the first `cents % n` shares get one cent more.
pub fn shares(cents: i64, n: usize) -> Vec<i64> {
    if n == 0 {
        return Vec::new();
    }
    let n64 = n as i64;
    (0..n64)
        .map(|i| cents / n64 + i64::from(i < cents % n64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_balances_and_transfers() {
        let s = new_session();
        let ski = s.group(1).unwrap();
        assert_eq!(ski.balances(), vec![11100, -2400, -8700]);
        assert_eq!(
            ski.transfers(),
            vec![
                Transfer {
                    from: 2,
                    to: 0,
                    cents: 8700
                },
                Transfer {
                    from: 1,
                    to: 0,
                    cents: 2400
                }
            ]
        );
        assert_eq!(s.group(2).unwrap().balances(), vec![2000, -2000]);
    }

    #[test]
    fn shares_keep_every_cent() {
        assert_eq!(shares(1000, 3), vec![334, 333, 333]);
        assert_eq!(shares(1000, 3).iter().sum::<i64>(), 1000);
        assert!(shares(5, 0).is_empty());
    }
}
