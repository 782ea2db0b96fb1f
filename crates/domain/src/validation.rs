//! Validation failures that name the field and the rule it broke.

use std::borrow::Cow;
use std::fmt;

/// The rule a field value broke.
///
/// New rules come with new fields, so the enum is non-exhaustive: a match
/// outside this crate needs an arm for the rules it does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rule {
    /// The field is required and was missing or blank.
    Required,
    /// The field cannot be set to null.
    NotNullable,
    /// The value is longer than `limit` characters.
    TooLong {
        /// The most characters allowed.
        limit: usize,
    },
    /// The value is not a syntactically valid e-mail address.
    InvalidEmail,
    /// The value is not an ISO 639-1 language code.
    UnknownLanguage,
    /// The value is not an ISO 3166-1 alpha-2 country code.
    UnknownCountry,
    /// The value is not a calendar date written `yyyy-mm-dd`.
    InvalidDate,
    /// The number is below `min`.
    TooSmall {
        /// The smallest number allowed.
        min: i64,
    },
    /// The number is above `max`.
    TooLarge {
        /// The largest number allowed.
        max: i64,
    },
    /// The value is not one of the listed words.
    OneOf {
        /// The words allowed, separated by commas.
        allowed: &'static str,
    },
    /// The value is not lower-case letters, digits and underscores.
    NotAnIdentifier,
    /// The value is not the id of a user that is not deleted.
    NotAUser,
    /// The value is not the id of a group.
    NotAGroup,
    /// The value is not a whole number.
    NotANumber,
    /// The value is not an RFC 3339 timestamp with an offset.
    InvalidTimestamp,
    /// The moment lies further in the future than clocks can disagree.
    InFuture,
    /// The transport that delivered the input refused the value before it
    /// was checked here (a value of a kind the field cannot hold, a field
    /// the input does not have); `problem` is its reason, in its own words.
    Refused {
        /// What is wrong, completing a sentence that starts with the
        /// field's name, such as `must be a string`.
        problem: &'static str,
    },
    /// Exactly one of two fields must be given.
    ExactlyOneOf {
        /// The other field's public name.
        other: &'static str,
    },
    /// The list holds more than `max` items.
    TooMany {
        /// The most items allowed.
        max: usize,
    },
    /// The text holds a control character other than tab or line break.
    ControlCharacter,
    /// The value is not a cursor the listing handed out (an edge's
    /// `cursor` or a page's `endCursor`).
    InvalidCursor,
    /// The offset lies beyond `max`, past which a listing is paged by
    /// cursor (`usersConnection`) instead.
    BeyondOffsetPaging {
        /// The largest offset allowed.
        max: i64,
    },
    /// The moment lies before another field's.
    NotBefore {
        /// The other field's public name.
        other: &'static str,
    },
    /// Neither of two fields was given; one or both must be.
    OneOrBoth {
        /// The first field's public name.
        first: &'static str,
        /// The second field's public name.
        second: &'static str,
    },
}

impl Rule {
    /// `ControlCharacter` unless `text` holds only printable characters,
    /// tabs and line breaks. Databases refuse some control characters (NUL)
    /// and no profile field or alias needs any of them.
    pub fn printable(text: &str) -> Result<(), Rule> {
        if text
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        {
            Err(Rule::ControlCharacter)
        } else {
            Ok(())
        }
    }
}

impl Rule {
    /// The numeric bound the rule enforces, if it has one.
    pub fn limit(&self) -> Option<i64> {
        match self {
            Rule::TooLong { limit } => i64::try_from(*limit).ok(),
            Rule::TooSmall { min } => Some(*min),
            Rule::TooLarge { max } => Some(*max),
            Rule::TooMany { max } => i64::try_from(*max).ok(),
            Rule::BeyondOffsetPaging { max } => Some(*max),
            _ => None,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Required => f.write_str("is required and cannot be blank"),
            Rule::NotNullable => f.write_str("cannot be null"),
            Rule::TooLong { limit } => write!(f, "must be at most {limit} characters"),
            Rule::InvalidEmail => f.write_str("must be a valid e-mail address"),
            Rule::UnknownLanguage => f.write_str("must be an ISO 639-1 language code such as `en`"),
            Rule::UnknownCountry => {
                f.write_str("must be a lower-case ISO 3166-1 alpha-2 country code such as `ch`")
            }
            Rule::InvalidDate => f.write_str("must be a date written yyyy-mm-dd"),
            Rule::TooSmall { min } => write!(f, "must be at least {min}"),
            Rule::TooLarge { max } => write!(f, "must be at most {max}"),
            Rule::OneOf { allowed } => write!(f, "must be one of {allowed}"),
            Rule::NotAnIdentifier => {
                f.write_str("must be lower-case letters, digits and underscores")
            }
            Rule::NotAUser => f.write_str("must be the id of a user that is not deleted"),
            Rule::NotAGroup => f.write_str("must be the id of a group"),
            Rule::NotANumber => f.write_str("must be a whole number"),
            Rule::InvalidTimestamp => f.write_str(
                "must be an RFC 3339 timestamp with an offset, e.g. 2026-03-02T08:00:00.000Z",
            ),
            Rule::InFuture => f.write_str("must not be more than a day in the future"),
            Rule::Refused { problem } => f.write_str(problem),
            Rule::ExactlyOneOf { other } => {
                write!(f, "exactly one of this and {other} is required")
            }
            Rule::TooMany { max } => write!(f, "must hold at most {max} items"),
            Rule::ControlCharacter => {
                f.write_str("must not contain control characters other than tabs and line breaks")
            }
            Rule::InvalidCursor => f.write_str(
                "must be a cursor a listing returned (an edge's cursor or endCursor), unchanged",
            ),
            Rule::BeyondOffsetPaging { max } => write!(
                f,
                "must be at most {max}; page further with usersConnection (first, after), \
                 which reads any page as fast as the first"
            ),
            Rule::NotBefore { other } => write!(f, "must not be before {other}"),
            Rule::OneOrBoth { first, second } => {
                write!(f, "must give {first}, {second} or both")
            }
        }
    }
}

/// One field that failed validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldViolation {
    /// The field's public (API) name, e.g. `firstname`, `externalId` or
    /// `texts[1].descriptor`.
    pub field: Cow<'static, str>,
    /// The rule the value broke.
    pub rule: Rule,
}

impl FieldViolation {
    /// The violation of `rule` by `field` (its public name).
    pub fn new(field: impl Into<Cow<'static, str>>, rule: Rule) -> Self {
        Self {
            field: field.into(),
            rule,
        }
    }
}

impl fmt::Display for FieldViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.field, self.rule)
    }
}

impl std::error::Error for FieldViolation {}

/// Every field that failed validation in one input, in the order checked.
///
/// Never empty: it is only built from at least one violation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationErrors(Vec<FieldViolation>);

impl ValidationErrors {
    /// The violations, first checked first.
    pub fn violations(&self) -> &[FieldViolation] {
        &self.0
    }

    /// The first violation.
    pub fn first(&self) -> &FieldViolation {
        // The constructor guarantees at least one element.
        &self.0[0]
    }

    /// These violations, then `later`'s: the problems of two inputs
    /// checked one after the other, reported at once.
    pub fn and(mut self, later: ValidationErrors) -> Self {
        self.0.extend(later.0);
        self
    }
}

impl From<FieldViolation> for ValidationErrors {
    fn from(v: FieldViolation) -> Self {
        Self(vec![v])
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}

/// `raw` trimmed, if it is not blank (when `required`), holds no control
/// characters but tabs and line breaks, and is at most `limit` characters
/// long; else the first rule it breaks, under `field`.
pub(crate) fn bounded(
    field: &'static str,
    raw: &str,
    limit: usize,
    required: bool,
) -> Result<String, FieldViolation> {
    let value = raw.trim();
    if required && value.is_empty() {
        return Err(FieldViolation::new(field, Rule::Required));
    }
    Rule::printable(value).map_err(|rule| FieldViolation::new(field, rule))?;
    if value.chars().count() > limit {
        return Err(FieldViolation::new(field, Rule::TooLong { limit }));
    }
    Ok(value.to_owned())
}

/// Declares a text value type with a length limit, checked by [`bounded`].
macro_rules! bounded_text {
    ($(#[$doc:meta])* $name:ident, $field:literal, $limit:literal, required = $required:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(String);

        impl $name {
            /// The field's public name.
            pub const FIELD: &'static str = $field;
            /// The maximum length in characters.
            pub const MAX_CHARS: usize = $limit;

            /// `raw` trimmed; refused when it is blank (if the field is
            /// required), holds a control character other than tab and line
            /// break, or is longer than `MAX_CHARS` characters.
            pub fn parse(raw: &str) -> Result<Self, $crate::FieldViolation> {
                $crate::validation::bounded($field, raw, $limit, $required).map(Self)
            }

            /// The value, trimmed.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

pub(crate) use bounded_text;

/// Collects violations while several fields are parsed, so that one answer
/// lists every bad field at once: the domain's inputs and the adapters'
/// arguments alike.
#[derive(Debug, Default)]
pub struct Collector(Vec<FieldViolation>);

impl Collector {
    /// Keeps the value of a successful parse, records the failure otherwise.
    pub fn take<T>(&mut self, result: Result<T, FieldViolation>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(violation) => {
                self.0.push(violation);
                None
            }
        }
    }

    /// `Ok(())` when nothing failed.
    pub fn finish(self) -> Result<(), ValidationErrors> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ValidationErrors(self.0))
        }
    }
}
