//! The transaction date: `DD.MM.YYYY` only, a real calendar day, and (where asked) not
//! after the application's fixed "today". Messages match the client's.

/// The fixed "today" of the application (nothing depends on the real clock).
pub const TODAY: &str = "15.03.2024";
const TODAY_KEY: u32 = 20240315;

/// Why a date was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum DateError {
    Missing,
    Format,
    Year,
    NoSuchDay,
    /// 29.02 of a year that is not a leap year (the server-side seeded bug's trigger).
    CommonYearLeapDay(u32),
    Future,
}

impl DateError {
    pub fn message(&self, text: &str) -> String {
        match self {
            DateError::Missing => "Date is required".into(),
            DateError::Format => "Use the format DD.MM.YYYY, e.g. 15.03.2024".into(),
            DateError::Year => "The year must be between 2000 and 2099".into(),
            DateError::NoSuchDay => format!("There is no such day: {text}"),
            DateError::CommonYearLeapDay(y) => {
                format!("There is no such day: {text} ({y} is not a leap year)")
            }
            DateError::Future => format!("The date must not be after today, {TODAY}"),
        }
    }
}

fn leap(y: u32) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Parses a `DD.MM.YYYY` date (two-digit day and month, four-digit year) into a sortable
/// `YYYYMMDD` number. Anything else, ISO dates included, is refused.
pub fn parse_date(s: &str) -> Result<u32, DateError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(DateError::Missing);
    }
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let shape = b.len() == 10 && b[2] == b'.' && b[5] == b'.';
    if !shape || !digits(0..2) || !digits(3..5) || !digits(6..10) {
        return Err(DateError::Format);
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(0);
    let (d, m, y) = (num(0..2), num(3..5), num(6..10));
    if !(2000..=2099).contains(&y) {
        return Err(DateError::Year);
    }
    if !(1..=12).contains(&m) || d == 0 {
        return Err(DateError::NoSuchDay);
    }
    if m == 2 && d == 29 && !leap(y) {
        return Err(DateError::CommonYearLeapDay(y));
    }
    if d > days_in_month(y, m) {
        return Err(DateError::NoSuchDay);
    }
    Ok(y * 10000 + m * 100 + d)
}

/// Like [`parse_date`], also refusing dates after [`TODAY`].
pub fn parse_past_date(s: &str) -> Result<u32, DateError> {
    let key = parse_date(s)?;
    if key > TODAY_KEY {
        return Err(DateError::Future);
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(parse_date("15.03.2024"), Ok(20240315));
        assert_eq!(parse_date("29.02.2024"), Ok(20240229));
        assert_eq!(parse_date("2024-03-15"), Err(DateError::Format));
        assert_eq!(parse_date("15/03/2024"), Err(DateError::Format));
        assert_eq!(parse_date("5.3.2024"), Err(DateError::Format));
        assert_eq!(parse_date(" "), Err(DateError::Missing));
        assert_eq!(parse_date("31.02.2024"), Err(DateError::NoSuchDay));
        assert_eq!(parse_date("31.04.2024"), Err(DateError::NoSuchDay));
        assert_eq!(parse_date("01.13.2024"), Err(DateError::NoSuchDay));
        assert_eq!(
            parse_date("29.02.2023"),
            Err(DateError::CommonYearLeapDay(2023))
        );
        assert_eq!(parse_date("29.02.2100"), Err(DateError::Year));
        assert_eq!(parse_past_date("16.03.2024"), Err(DateError::Future));
        assert_eq!(parse_past_date("15.03.2024"), Ok(20240315));
    }
}
