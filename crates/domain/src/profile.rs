//! The value types of a user profile. Each can only be built through its
//! `parse` constructor, so a value that exists is valid everywhere.
//!
//! Text is trimmed of surrounding white space before it is checked; lengths
//! count Unicode characters, not bytes.

use chrono::NaiveDate;
use validator::ValidateEmail;

use crate::validation::{bounded, bounded_text, FieldViolation, Rule};

bounded_text!(
    /// A user's first name: required, at most 50 characters.
    FirstName, "firstname", 50, required = true
);
bounded_text!(
    /// A user's last name: required, at most 50 characters.
    LastName, "lastname", 50, required = true
);
bounded_text!(
    /// The identifier of the user in the customer's own systems: at most 250
    /// characters, unique among users that are not deleted.
    ExternalId, "externalId", 250, required = true
);
bounded_text!(
    /// The name an identity provider knows the user by (SCIM's `userName`,
    /// often a sign-in name such as a user principal name): at most 255
    /// characters, unique among users that are not deleted, compared
    /// without regard to case ([`UserName::key`]).
    UserName, "userName", 255, required = true
);

impl UserName {
    /// The name folded as e-mail addresses are ([`Email::fold`]), under
    /// which uniqueness is checked.
    pub fn key(&self) -> String {
        Email::fold(self.as_str())
    }
}

bounded_text!(
    /// The name a user is shown by (SCIM's `displayName`), when set apart
    /// from the first and last names: at most 255 characters.
    ShownName, "displayName", 255, required = true
);

bounded_text!(
    /// Location-specific information such as an office: at most 100 characters.
    Location, "location", 100, required = false
);
bounded_text!(
    /// A description shown in the user's profile: at most 100 characters.
    About, "about", 100, required = false
);
bounded_text!(
    /// At most 255 characters.
    Company, "company", 255, required = false
);
bounded_text!(
    /// At most 255 characters.
    Department, "department", 255, required = false
);
bounded_text!(
    /// At most 255 characters.
    Position, "position", 255, required = false
);

/// An e-mail address: at most 191 characters and syntactically valid.
///
/// Uniqueness is case-insensitive, so the address also has a folded
/// [`key`](Email::key) under which it is compared.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    /// The field's public name.
    pub const FIELD: &'static str = "email";
    /// The maximum length in characters.
    pub const MAX_CHARS: usize = 191;

    /// Trims `raw` and checks it is a syntactically valid address of at most
    /// [`Email::MAX_CHARS`] characters.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        let value = bounded(Self::FIELD, raw, Self::MAX_CHARS, true)?;
        if !value.validate_email() {
            return Err(FieldViolation::new(Self::FIELD, Rule::InvalidEmail));
        }
        Ok(Self(value))
    }

    /// The address as given, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The address folded to lower case: two addresses with the same key
    /// belong to the same mailbox as far as Kenning is concerned.
    pub fn key(&self) -> String {
        Self::fold(&self.0)
    }

    /// Folds any text the way [`Email::key`] folds an address, for look-ups
    /// by an address that has not been parsed.
    pub fn fold(raw: &str) -> String {
        raw.trim().to_lowercase()
    }
}

/// An ISO 639-1 language code such as `en`, kept in lower case.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LanguageId(String);

impl LanguageId {
    /// The field's public name.
    pub const FIELD: &'static str = "languageId";

    /// Accepts any letter case and keeps the code in lower case.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        let code = raw.trim().to_ascii_lowercase();
        match isolang::Language::from_639_1(&code) {
            Some(_) => Ok(Self(code)),
            None => Err(FieldViolation::new(Self::FIELD, Rule::UnknownLanguage)),
        }
    }

    /// The code, in lower case.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A country as its ISO 3166-1 alpha-2 code, such as `ch`, kept in lower
/// case.
///
/// The specification names ISO 3166-2, but a country is what the field
/// holds, so subdivision codes such as `ch-zh` are refused (see
/// `docs/decisions.md`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CountryId(String);

impl CountryId {
    /// The field's public name.
    pub const FIELD: &'static str = "countryId";

    /// Accepts a code of the ISO 3166-1 alpha-2 list (as the `isocountry`
    /// crate knows it) in any letter case, surrounding blanks trimmed, and
    /// keeps it in lower case; anything else is [`Rule::UnknownCountry`].
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        let code = raw.trim();
        let valid = code.len() == 2 && isocountry::CountryCode::for_alpha2_caseless(code).is_ok();
        if valid {
            Ok(Self(code.to_ascii_lowercase()))
        } else {
            Err(FieldViolation::new(Self::FIELD, Rule::UnknownCountry))
        }
    }

    /// The code, in lower case.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The date a user's employment started, written `yyyy-mm-dd`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EmploymentStart(NaiveDate);

impl EmploymentStart {
    /// The field's public name.
    pub const FIELD: &'static str = "employmentStart";

    /// Trims `raw` and checks it is a calendar date written `yyyy-mm-dd`.
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        let raw = raw.trim();
        // `%Y` alone would also take five-digit and signed years.
        let shaped = raw.len() == 10
            && raw.bytes().enumerate().all(|(i, b)| {
                if i == 4 || i == 7 {
                    b == b'-'
                } else {
                    b.is_ascii_digit()
                }
            });
        match NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
            Ok(date) if shaped => Ok(Self(date)),
            _ => Err(FieldViolation::new(Self::FIELD, Rule::InvalidDate)),
        }
    }

    /// The date.
    pub fn date(&self) -> NaiveDate {
        self.0
    }
}

impl From<NaiveDate> for EmploymentStart {
    fn from(date: NaiveDate) -> Self {
        Self(date)
    }
}

impl std::fmt::Display for EmploymentStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.format("%Y-%m-%d"))
    }
}

/// A unique value a user who is not deleted is looked up by exactly: the
/// e-mail address (compared by its [`Email::key`]) or the externalId.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum UserKey {
    /// The e-mail address, compared without regard to case.
    Email(Email),
    /// The identifier in the customer's own systems, compared exactly.
    ExternalId(ExternalId),
}

impl UserKey {
    /// Whether a profile with this address and externalId holds the key.
    pub fn matches(&self, email: &Email, external_id: Option<&ExternalId>) -> bool {
        match self {
            Self::Email(wanted) => wanted.key() == email.key(),
            Self::ExternalId(wanted) => external_id == Some(wanted),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(n: usize) -> String {
        "é".repeat(n)
    }

    #[test]
    fn text_limits_hold_at_n_and_fail_at_n_plus_one() {
        type Check = (&'static str, usize, fn(&str) -> Result<(), FieldViolation>);
        let cases: [Check; 8] = [
            ("firstname", 50, |s| FirstName::parse(s).map(drop)),
            ("lastname", 50, |s| LastName::parse(s).map(drop)),
            ("externalId", 250, |s| ExternalId::parse(s).map(drop)),
            ("location", 100, |s| Location::parse(s).map(drop)),
            ("about", 100, |s| About::parse(s).map(drop)),
            ("company", 255, |s| Company::parse(s).map(drop)),
            ("department", 255, |s| Department::parse(s).map(drop)),
            ("position", 255, |s| Position::parse(s).map(drop)),
        ];
        for (field, limit, parse) in cases {
            assert!(parse(&chars(limit)).is_ok(), "{field} at {limit}");
            assert_eq!(
                parse(&chars(limit + 1)),
                Err(FieldViolation::new(field, Rule::TooLong { limit })),
                "{field} at {}",
                limit + 1
            );
        }
    }

    #[test]
    fn required_names_reject_blank() {
        assert_eq!(
            FirstName::parse("  ").unwrap_err(),
            FieldViolation::new("firstname", Rule::Required)
        );
        assert_eq!(
            LastName::parse("").unwrap_err(),
            FieldViolation::new("lastname", Rule::Required)
        );
        assert_eq!(FirstName::parse("  Ada ").unwrap().as_str(), "Ada");
    }

    #[test]
    fn email_limit_is_191_characters() {
        // validator caps the local part at 64 and a label at 63 characters.
        let at_limit = format!(
            "{}@{}.{}.com",
            "a".repeat(64),
            "b".repeat(61),
            "c".repeat(60)
        );
        assert_eq!(at_limit.len(), 191);
        assert!(Email::parse(&at_limit).is_ok());
        let over = format!(
            "{}@{}.{}.com",
            "a".repeat(64),
            "b".repeat(62),
            "c".repeat(60)
        );
        assert_eq!(
            Email::parse(&over).unwrap_err(),
            FieldViolation::new("email", Rule::TooLong { limit: 191 })
        );
    }

    #[test]
    fn email_syntax_is_checked() {
        for bad in [
            "plainaddress",
            "@example.com",
            "a@",
            "a b@example.com",
            "a@b@c.com",
        ] {
            assert_eq!(
                Email::parse(bad).unwrap_err(),
                FieldViolation::new("email", Rule::InvalidEmail),
                "{bad}"
            );
        }
        let email = Email::parse(" Ada.Lovelace@Example.COM ").unwrap();
        assert_eq!(email.as_str(), "Ada.Lovelace@Example.COM");
        assert_eq!(email.key(), "ada.lovelace@example.com");
    }

    #[test]
    fn language_uses_the_iso_639_1_list() {
        assert_eq!(LanguageId::parse("de").unwrap().as_str(), "de");
        assert_eq!(LanguageId::parse("EN").unwrap().as_str(), "en");
        for bad in ["xx", "eng", "", "e"] {
            assert_eq!(
                LanguageId::parse(bad).unwrap_err(),
                FieldViolation::new("languageId", Rule::UnknownLanguage),
                "{bad}"
            );
        }
    }

    #[test]
    fn country_uses_the_iso_3166_1_alpha_2_list() {
        assert_eq!(CountryId::parse("ch").unwrap().as_str(), "ch");
        assert_eq!(CountryId::parse("US").unwrap().as_str(), "us");
        for bad in ["xx", "che", "", "zz", "c", "ch-zh"] {
            assert_eq!(
                CountryId::parse(bad).unwrap_err(),
                FieldViolation::new("countryId", Rule::UnknownCountry),
                "{bad}"
            );
        }
    }

    #[test]
    fn employment_start_is_a_plain_date() {
        assert_eq!(
            EmploymentStart::parse("2024-02-29").unwrap().to_string(),
            "2024-02-29"
        );
        for bad in [
            "2023-02-29",
            "2024-2-1",
            "24-02-01",
            "2024-02-01T00:00:00Z",
            "+2024-02-01",
        ] {
            assert_eq!(
                EmploymentStart::parse(bad).unwrap_err(),
                FieldViolation::new("employmentStart", Rule::InvalidDate),
                "{bad}"
            );
        }
    }
}
