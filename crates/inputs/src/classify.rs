//! What a form field is for (email, first name, zip code, ...), read off its input type
//! and its words: the heuristic generator's first question.

use wayfarer_core::model::Element;

use crate::Kind;

/// The field's words: autocomplete, name, id, aria-label, placeholder, label, title,
/// split into lower-case tokens (`firstName` -> `first name`) between spaces.
pub(crate) struct Hints(String);

impl Hints {
    pub(crate) fn of(e: &Element) -> Hints {
        let mut out = String::from(" ");
        let sources = [
            e.attr("autocomplete"),
            e.attr("name"),
            e.attr("id"),
            e.attr("aria-label"),
            e.attr("placeholder"),
            Some(e.label.as_str()),
            e.attr("title"),
        ];
        for s in sources.into_iter().flatten() {
            let mut prev: Option<char> = None;
            for c in s.chars() {
                if c.is_alphanumeric() {
                    let boundary = prev.is_some_and(|p| {
                        (p.is_lowercase() && c.is_uppercase())
                            || (p.is_alphabetic() != c.is_alphabetic())
                    });
                    if boundary {
                        out.push(' ');
                    }
                    out.extend(c.to_lowercase());
                    prev = Some(c);
                } else {
                    if !out.ends_with(' ') {
                        out.push(' ');
                    }
                    prev = None;
                }
            }
            if !out.ends_with(' ') {
                out.push(' ');
            }
        }
        Hints(out)
    }

    /// `=word` and keys under 5 chars match whole tokens only ("age" is not in "message");
    /// longer keys match anywhere ("firstname", "emailaddress").
    pub(crate) fn has(&self, key: &str) -> bool {
        match key.strip_prefix('=') {
            Some(k) => self.0.contains(&format!(" {k} ")),
            None if key.len() < 5 => self.0.contains(&format!(" {key} ")),
            None => self.0.contains(key),
        }
    }

    pub(crate) fn any(&self, keys: &[&str]) -> bool {
        keys.iter().any(|k| self.has(k))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Card,
    Cvv,
    Expiry,
    ConfirmPassword,
    Password,
    Email,
    Username,
    FirstName,
    LastName,
    Company,
    FullName,
    Phone,
    Zip,
    City,
    State,
    Country,
    Street,
    Url,
    Search,
    BirthDate,
    Date,
    Time,
    Age,
    Year,
    Quantity,
    Amount,
    Pin,
    Otp,
    Title,
    Description,
    Generic,
}

const PASSWORD: &[&str] = &["password", "passwd", "=pass", "=pwd", "passphrase"];
const CONFIRM: &[&str] = &[
    "confirm",
    "repeat",
    "retype",
    "again",
    "verify",
    "reenter",
    "re enter",
    "password 2",
    "=pass 2",
    "=pwd 2",
    "verification",
];
const CARD: &[&str] = &[
    "credit card",
    "cardnumber",
    "card number",
    "=cc number",
    "=pan",
];
/// "product name", "team name": a thing's name, not a person's.
const THING: &[&str] = &[
    "product", "project", "=item", "=file", "=group", "=team", "event", "=task", "=list",
    "category", "=tag", "=store", "=shop", "=app", "=pet", "=room", "=board", "=folder",
    "document", "course", "recipe", "=book", "brand", "=model",
];

/// Keyword rules after the special cases. First match wins, so the order settles
/// overlaps: "company name" is a company, "zip code" a zip, "email address" an email.
#[rustfmt::skip]
const RULES: &[(Field, &[&str])] = &[
    (Field::Cvv, &["=cvv", "=cvc", "=csc", "=cvv 2", "security code"]),
    (Field::Expiry, &["expir", "=exp", "=mm yy"]),
    (Field::Username, &["username", "user name", "=user", "=login", "nickname", "=nick",
        "handle", "=userid", "user id", "screen name", "account name"]),
    (Field::FirstName, &["first name", "firstname", "=fname", "given name", "=given", "forename"]),
    (Field::LastName, &["last name", "lastname", "surname", "=lname", "family name", "=family"]),
    (Field::Company, &["company", "organization", "organisation", "employer", "business", "=org"]),
    (Field::FullName, &["full name", "fullname", "your name", "=name", "holder"]),
    (Field::Phone, &["phone", "telephone", "=tel", "mobile", "=cell", "=fax"]),
    (Field::Zip, &["=zip", "zipcode", "postal", "postcode", "post code"]),
    (Field::City, &["=city", "=town", "locality", "address level 2"]),
    (Field::State, &["=state", "province", "=region", "=county", "address level 1"]),
    (Field::Country, &["country", "=nation", "nationality"]),
    (Field::Street, &["street", "address", "=addr", "=line 1", "=line 2"]),
    (Field::Url, &["=url", "website", "homepage", "home page", "web site", "=link", "=site",
        "=web", "=uri"]),
    (Field::Search, &["search", "=query", "=q", "keyword", "=find", "=term", "=terms"]),
    (Field::BirthDate, &["birth", "=dob", "=bday"]),
    (Field::Date, &["=date", "=day"]),
    (Field::Time, &["=time", "=hour", "=hh mm"]),
    (Field::Age, &["=age"]),
    (Field::Year, &["=year", "=yyyy", "=yr"]),
    (Field::Quantity, &["quantity", "=qty", "=count", "number of", "=guests", "=seats",
        "=items", "=nights", "=people", "=adults", "=children", "=tickets", "=units"]),
    (Field::Amount, &["amount", "price", "=cost", "=total", "salary", "budget", "=fee",
        "payment", "income", "=sum", "balance", "deposit"]),
    (Field::Pin, &["=pin"]),
    (Field::Otp, &["=otp", "=code", "one time", "verification"]),
    (Field::Title, &["title", "subject", "headline", "heading", "=topic"]),
    (Field::Description, &["description", "comment", "=notes", "=note", "message", "=bio",
        "=about", "feedback", "details", "summary", "=body", "content", "remarks", "=reason",
        "=text"]),
];

/// The input type decides where it is specific; the field's words decide otherwise.
pub(crate) fn classify(kind: Kind, h: &Hints) -> Field {
    match kind {
        Kind::Email => return Field::Email,
        Kind::Password if h.any(CONFIRM) => return Field::ConfirmPassword,
        Kind::Password => return Field::Password,
        Kind::Url => return Field::Url,
        Kind::Search => return Field::Search,
        _ => {}
    }
    let f = from_hints(h);
    match (kind, f) {
        (Kind::Tel, Field::Card | Field::Cvv | Field::Pin | Field::Otp | Field::Zip) => f,
        (Kind::Tel, _) => Field::Phone,
        _ => f,
    }
}

/// The field's meaning from its words alone.
pub(crate) fn from_hints(h: &Hints) -> Field {
    if h.any(PASSWORD) {
        return if h.any(CONFIRM) {
            Field::ConfirmPassword
        } else {
            Field::Password
        };
    }
    if h.any(&["email", "=mail", "=e mail"]) {
        return Field::Email;
    }
    if h.any(CARD) || (h.has("=card") && !h.any(&["holder", "=name"])) {
        return Field::Card;
    }
    // Checked before the rules so that "product name" does not become a person's name.
    if h.has("=name") && h.any(THING) && !h.any(&["first", "last", "full", "user", "company"]) {
        return Field::Title;
    }
    RULES
        .iter()
        .find(|(_, keys)| h.any(keys))
        .map_or(Field::Generic, |&(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::input;

    fn field(ty: &str, attrs: &[(&str, &str)], label: &str) -> Field {
        let mut e = input(ty, attrs);
        e.label = label.into();
        classify(Kind::of(&e), &Hints::of(&e))
    }

    #[test]
    fn tokens_split_camel_case_and_digits() {
        let e = input(
            "text",
            &[("name", "billingAddressLine2"), ("id", "user_email")],
        );
        assert_eq!(Hints::of(&e).0, " billing address line 2 user email ");
    }

    #[test]
    fn overlaps_resolve_by_order() {
        assert_eq!(field("text", &[], "Email address"), Field::Email);
        assert_eq!(
            field("text", &[("name", "companyName")], ""),
            Field::Company
        );
        assert_eq!(field("text", &[("name", "zip_code")], ""), Field::Zip);
        assert_eq!(field("text", &[("name", "productName")], ""), Field::Title);
        assert_eq!(
            field("text", &[("name", "cardholderName")], ""),
            Field::FullName
        );
        assert_eq!(
            field("text", &[("name", "message")], ""),
            Field::Description
        );
        assert_eq!(field("text", &[("name", "age")], ""), Field::Age);
        assert_eq!(field("text", &[("name", "discount")], ""), Field::Generic);
        assert_eq!(
            field("text", &[("autocomplete", "address-level2")], ""),
            Field::City
        );
        assert_eq!(field("text", &[("name", "passport")], ""), Field::Generic);
    }

    #[test]
    fn input_type_wins_where_specific() {
        assert_eq!(field("email", &[("name", "username")], ""), Field::Email);
        assert_eq!(field("tel", &[("name", "contact")], ""), Field::Phone);
        assert_eq!(field("tel", &[("name", "otp")], ""), Field::Otp);
        assert_eq!(
            field("password", &[], "Confirm password"),
            Field::ConfirmPassword
        );
        assert_eq!(
            field("text", &[("name", "password_confirmation")], ""),
            Field::ConfirmPassword
        );
    }
}
