//! Expense tracker data, kept per browser session.

/// The fixed "today" of the application (nothing depends on the real clock).
pub const TODAY: &str = "2024-03-15";
pub const MAX_DESCRIPTION: usize = 200;
pub const DEFAULT_CATEGORIES: [&str; 5] = ["Food", "Transport", "Rent", "Fun", "Other"];
/// The months the reports page offers (besides "all").
pub const REPORT_MONTHS: [&str; 3] = ["2024-01", "2024-02", "2024-03"];

#[derive(Clone, Debug, serde::Serialize)]
pub struct Expense {
    pub id: u32,
    pub description: String,
    pub cents: i64,
    pub date: String,
    pub category: String,
}

#[derive(Clone, Debug)]
pub struct Budget {
    pub category: String,
    pub cents: i64,
    pub period: String,
}

#[derive(Clone, Debug)]
pub struct Account {
    pub name: String,
    pub email: String,
    pub password: String,
    pub expenses: Vec<Expense>,
    pub categories: Vec<String>,
    pub budgets: Vec<Budget>,
    pub next_id: u32,
}

impl Account {
    pub fn new(name: &str, email: &str, password: &str) -> Account {
        Account {
            name: name.into(),
            email: email.into(),
            password: password.into(),
            expenses: Vec::new(),
            categories: DEFAULT_CATEGORIES.iter().map(|s| s.to_string()).collect(),
            budgets: Vec::new(),
            next_id: 1,
        }
    }

    pub fn add(&mut self, description: &str, cents: i64, date: &str, category: &str) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        self.expenses.push(Expense {
            id,
            description: description.into(),
            cents,
            date: date.into(),
            category: category.into(),
        });
        id
    }

    /// Expenses newest first (date, then id), as the dashboard lists them.
    pub fn sorted(&self) -> Vec<&Expense> {
        let mut v: Vec<&Expense> = self.expenses.iter().collect();
        v.sort_by(|a, b| b.date.cmp(&a.date).then(b.id.cmp(&a.id)));
        v
    }

    pub fn total(&self) -> i64 {
        self.expenses.iter().map(|e| e.cents).sum()
    }

    /// (category, count, total) for every category, in the account's order.
    pub fn by_category(&self) -> Vec<(String, usize, i64)> {
        self.categories
            .iter()
            .map(|c| {
                let items = self.expenses.iter().filter(|e| &e.category == c);
                let (n, t) = items.fold((0, 0), |(n, t), e| (n + 1, t + e.cents));
                (c.clone(), n, t)
            })
            .collect()
    }
}

/// One browser session: the accounts (the demo user always exists) and who is logged in.
#[derive(Debug)]
pub struct ExpenseSession {
    pub accounts: Vec<Account>,
    pub current: Option<usize>,
    pub flash: Option<String>,
}

pub fn new_session() -> ExpenseSession {
    let mut demo = Account::new("Demo User", "demo@example.com", "demo1234");
    demo.add("Monthly rent", 85000, "2024-03-01", "Rent");
    demo.add("Groceries", 5420, "2024-03-02", "Food");
    demo.add("Bus pass", 3000, "2024-03-05", "Transport");
    demo.add("Cinema", 1250, "2024-02-27", "Fun");
    ExpenseSession {
        accounts: vec![demo],
        current: None,
        flash: None,
    }
}

impl ExpenseSession {
    pub fn user(&mut self) -> Option<&mut Account> {
        let i = self.current?;
        self.accounts.get_mut(i)
    }

    pub fn take_flash(&mut self) -> Option<String> {
        self.flash.take()
    }
}

/// Parses a positive amount with at most two decimals into cents.
pub fn parse_amount(s: &str) -> Result<i64, &'static str> {
    let s = s.trim();
    if s.is_empty() {
        return Err("Amount is required");
    }
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |p: &str| p.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() && frac.is_empty() || !digits(whole) || !digits(frac) || frac.len() > 2 {
        return Err("Amount must be a number with at most two decimals");
    }
    if whole.len() > 7 {
        return Err("Amount must be at most 1000000");
    }
    let w: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| "Amount is invalid")?
    };
    let f: i64 = format!("{frac:0<2}")
        .parse()
        .map_err(|_| "Amount is invalid")?;
    let cents = w * 100 + f;
    if cents <= 0 {
        return Err("Amount must be greater than 0");
    }
    if cents > 100_000_000 {
        return Err("Amount must be at most 1000000");
    }
    Ok(cents)
}

/// Formats cents as "$1,234.50".
pub fn money(cents: i64) -> String {
    let neg = cents < 0;
    let c = cents.unsigned_abs();
    let whole = (c / 100).to_string();
    let mut grouped = String::new();
    for (i, ch) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    format!("{}${grouped}.{:02}", if neg { "-" } else { "" }, c % 100)
}

/// Cents as a plain decimal for an `<input type=number>` value: "12.50".
pub fn decimal(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("12.5"), Ok(1250));
        assert_eq!(parse_amount("0.01"), Ok(1));
        assert!(parse_amount("0").is_err() && parse_amount("1.234").is_err());
        assert!(
            parse_amount("-3").is_err()
                && parse_amount("abc").is_err()
                && parse_amount(".").is_err()
        );
        assert_eq!(money(123456789), "$1,234,567.89");
        assert_eq!(decimal(1250), "12.50");
    }
}
