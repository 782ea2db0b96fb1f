//! Which users a directory query asks for: comparisons of user attributes
//! joined with and, or and not, as an identity provider asks before it
//! creates or changes someone ("the user whose e-mail is ...").
//!
//! A filter only ever sees users that are ACTIVE or DEACTIVATED: one
//! pending deletion or deleted is gone for the directories that provision
//! users. [`UserFilter::matches`] is the rule; storage adapters translate
//! the same rule into their query language, and the contract suite checks
//! that they agree.

use chrono::{DateTime, Utc};

use crate::profile::Email;
use crate::user::{Status, User};

/// An attribute a filter can compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterAttribute {
    /// The name an identity provider knows the user by, or the e-mail
    /// address of a user that has none; compared without regard to case.
    UserName,
    /// The e-mail address, compared without regard to case.
    Email,
    /// The externalId, compared exactly (case counts).
    ExternalId,
    /// The last name, compared without regard to case.
    FamilyName,
    /// The first name, compared without regard to case.
    GivenName,
    /// Whether the user is ACTIVE (true) or DEACTIVATED (false).
    Active,
    /// When the user last changed ([`User::modified`]).
    LastModified,
}

impl FilterAttribute {
    /// Whether text comparisons of this attribute ignore case.
    pub fn ignores_case(self) -> bool {
        matches!(
            self,
            Self::UserName | Self::Email | Self::FamilyName | Self::GivenName
        )
    }
}

/// How an attribute is compared with the filter's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterOperator {
    /// The values are equal.
    Equal,
    /// The values are not equal (also when the attribute has no value).
    NotEqual,
    /// The text contains the value.
    Contains,
    /// The text starts with the value.
    StartsWith,
    /// The text ends with the value.
    EndsWith,
    /// The moment is after the value.
    GreaterThan,
    /// The moment is the value or after it.
    GreaterOrEqual,
    /// The moment is before the value.
    LessThan,
    /// The moment is the value or before it.
    LessOrEqual,
}

/// The value a filter compares an attribute with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterValue {
    /// For the text attributes.
    Text(String),
    /// For [`FilterAttribute::Active`].
    Bool(bool),
    /// For [`FilterAttribute::LastModified`].
    Moment(DateTime<Utc>),
}

/// Why a comparison cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FilterError(pub &'static str);

/// One comparison of an attribute with a value, checked to make sense.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    attribute: FilterAttribute,
    operator: FilterOperator,
    value: FilterValue,
}

impl Comparison {
    /// The comparison, when the operator applies to the attribute and the
    /// value is of the attribute's kind: text attributes take text and
    /// every operator but the ordering ones; `Active` takes a boolean and
    /// only equal and not equal; `LastModified` takes a moment and equal,
    /// not equal and the orderings.
    pub fn new(
        attribute: FilterAttribute,
        operator: FilterOperator,
        value: FilterValue,
    ) -> Result<Self, FilterError> {
        use FilterOperator as Op;
        let ordering = matches!(
            operator,
            Op::GreaterThan | Op::GreaterOrEqual | Op::LessThan | Op::LessOrEqual
        );
        let text_only = matches!(operator, Op::Contains | Op::StartsWith | Op::EndsWith);
        match (attribute, &value) {
            (FilterAttribute::Active, FilterValue::Bool(_)) if !ordering && !text_only => {}
            (FilterAttribute::Active, _) => {
                return Err(FilterError(
                    "active is compared with true or false, by eq or ne",
                ))
            }
            (FilterAttribute::LastModified, FilterValue::Moment(_)) if !text_only => {}
            (FilterAttribute::LastModified, _) => {
                return Err(FilterError(
                    "meta.lastModified is compared with a date-time, by eq, ne, gt, ge, lt or le",
                ))
            }
            (_, FilterValue::Text(_)) if !ordering => {}
            _ => {
                return Err(FilterError(
                    "a text attribute is compared with a string, by eq, ne, co, sw or ew",
                ))
            }
        }
        Ok(Self {
            attribute,
            operator,
            value,
        })
    }

    /// The attribute compared.
    pub fn attribute(&self) -> FilterAttribute {
        self.attribute
    }

    /// How it is compared.
    pub fn operator(&self) -> FilterOperator {
        self.operator
    }

    /// What it is compared with.
    pub fn value(&self) -> &FilterValue {
        &self.value
    }

    fn matches(&self, user: &User) -> bool {
        use FilterOperator as Op;
        let Some(profile) = user.profile() else {
            return false;
        };
        match (&self.value, self.attribute) {
            (FilterValue::Bool(active), _) => {
                let is = user.status() == Status::Active;
                (is == *active) == (self.operator == Op::Equal)
            }
            (FilterValue::Moment(moment), _) => {
                let at = user.modified();
                match self.operator {
                    Op::Equal => at == *moment,
                    Op::NotEqual => at != *moment,
                    Op::GreaterThan => at > *moment,
                    Op::GreaterOrEqual => at >= *moment,
                    Op::LessThan => at < *moment,
                    _ => at <= *moment,
                }
            }
            (FilterValue::Text(wanted), attribute) => {
                let held = match attribute {
                    FilterAttribute::UserName => Some(
                        profile
                            .user_name
                            .as_ref()
                            .map_or(profile.email.as_str(), |n| n.as_str()),
                    ),
                    FilterAttribute::Email => Some(profile.email.as_str()),
                    FilterAttribute::ExternalId => profile.external_id.as_ref().map(|e| e.as_str()),
                    FilterAttribute::FamilyName => Some(profile.lastname.as_str()),
                    _ => Some(profile.firstname.as_str()),
                };
                let Some(held) = held else {
                    return self.operator == Op::NotEqual;
                };
                let (held, wanted) = if attribute.ignores_case() {
                    (Email::fold(held), Email::fold(wanted))
                } else {
                    (held.to_owned(), wanted.clone())
                };
                match self.operator {
                    Op::Equal => held == wanted,
                    Op::NotEqual => held != wanted,
                    Op::Contains => held.contains(&wanted),
                    Op::StartsWith => held.starts_with(&wanted),
                    _ => held.ends_with(&wanted),
                }
            }
        }
    }
}

/// A condition on users.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserFilter {
    /// One attribute compared with a value.
    Compare(Comparison),
    /// The attribute has a value: always for every attribute but the
    /// externalId, which a user may lack.
    Present(FilterAttribute),
    /// Both hold.
    And(Box<UserFilter>, Box<UserFilter>),
    /// Either holds.
    Or(Box<UserFilter>, Box<UserFilter>),
    /// The condition does not hold.
    Not(Box<UserFilter>),
}

impl UserFilter {
    /// Whether `user` is among those the filter asks for: ACTIVE or
    /// DEACTIVATED, and the condition holds.
    pub fn matches(&self, user: &User) -> bool {
        user.is_provisioned() && self.holds(user)
    }

    fn holds(&self, user: &User) -> bool {
        match self {
            UserFilter::Compare(c) => c.matches(user),
            UserFilter::Present(attribute) => match attribute {
                FilterAttribute::ExternalId => {
                    user.profile().is_some_and(|p| p.external_id.is_some())
                }
                _ => user.profile().is_some(),
            },
            UserFilter::And(a, b) => a.holds(user) && b.holds(user),
            UserFilter::Or(a, b) => a.holds(user) || b.holds(user),
            UserFilter::Not(a) => !a.holds(user),
        }
    }

    /// How deep the filter nests: 1 for a comparison.
    pub fn depth(&self) -> usize {
        match self {
            UserFilter::Compare(_) | UserFilter::Present(_) => 1,
            UserFilter::And(a, b) | UserFilter::Or(a, b) => 1 + a.depth().max(b.depth()),
            UserFilter::Not(a) => 1 + a.depth(),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::{LanguageId, NewUser, NewUserInput, UserId};

    fn user(email: &str, last: &str, external: Option<&str>) -> User {
        let new = NewUser::parse(
            NewUserInput {
                email: email.into(),
                firstname: "Ada".into(),
                lastname: last.into(),
                external_id: external.map(Into::into),
                ..NewUserInput::default()
            },
            &LanguageId::parse("en").unwrap(),
        )
        .unwrap();
        let at = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        User::register(UserId::from_uuid(uuid::Uuid::new_v4()), new, at)
    }

    fn compare(a: FilterAttribute, op: FilterOperator, text: &str) -> UserFilter {
        UserFilter::Compare(Comparison::new(a, op, FilterValue::Text(text.into())).unwrap())
    }

    #[test]
    fn text_comparisons_ignore_case_except_for_the_external_id() {
        use FilterAttribute::*;
        use FilterOperator::*;
        let u = user("Ada.L@Example.com", "Lovelace", Some("E-1"));
        assert!(compare(Email, Equal, "ada.l@example.COM").matches(&u));
        assert!(compare(FamilyName, StartsWith, "love").matches(&u));
        assert!(compare(FamilyName, EndsWith, "LACE").matches(&u));
        assert!(compare(GivenName, Contains, "d").matches(&u));
        assert!(compare(ExternalId, Equal, "E-1").matches(&u));
        assert!(!compare(ExternalId, Equal, "e-1").matches(&u));
        assert!(compare(ExternalId, NotEqual, "e-1").matches(&u));
    }

    #[test]
    fn a_missing_external_id_is_absent_and_unequal() {
        use FilterAttribute::*;
        let u = user("a@example.com", "L", None);
        assert!(!UserFilter::Present(ExternalId).matches(&u));
        assert!(UserFilter::Present(Email).matches(&u));
        assert!(compare(ExternalId, FilterOperator::NotEqual, "x").matches(&u));
        assert!(!compare(ExternalId, FilterOperator::Equal, "x").matches(&u));
        let not = UserFilter::Not(Box::new(compare(ExternalId, FilterOperator::Equal, "x")));
        assert!(not.matches(&u));
    }

    #[test]
    fn active_and_last_modified_take_their_own_values_and_operators() {
        use FilterAttribute::*;
        use FilterOperator::*;
        let mut u = user("a@example.com", "L", None);
        let active = |b| Comparison::new(Active, Equal, FilterValue::Bool(b));
        assert!(UserFilter::Compare(active(true).unwrap()).matches(&u));
        u.deactivate().unwrap();
        assert!(UserFilter::Compare(active(false).unwrap()).matches(&u));
        let at = u.modified();
        let later = UserFilter::Compare(
            Comparison::new(LastModified, GreaterThan, FilterValue::Moment(at)).unwrap(),
        );
        assert!(!later.matches(&u));
        u.touch(at + chrono::Duration::seconds(1));
        assert!(later.matches(&u));
        assert!(Comparison::new(Active, Contains, FilterValue::Bool(true)).is_err());
        assert!(Comparison::new(Email, GreaterThan, FilterValue::Text("a".into())).is_err());
        assert!(Comparison::new(LastModified, StartsWith, FilterValue::Moment(at)).is_err());
        assert!(Comparison::new(Email, Equal, FilterValue::Bool(true)).is_err());
    }

    #[test]
    fn only_active_and_deactivated_users_match_and_logic_nests() {
        use FilterAttribute::*;
        use FilterOperator::*;
        let mut u = user("a@example.com", "Lovelace", None);
        let either = UserFilter::Or(
            Box::new(compare(FamilyName, Equal, "nobody")),
            Box::new(UserFilter::And(
                Box::new(compare(Email, StartsWith, "a@")),
                Box::new(UserFilter::Not(Box::new(compare(GivenName, Equal, "bob")))),
            )),
        );
        assert_eq!(either.depth(), 4);
        assert!(either.matches(&u));
        u.delete(u.created()).unwrap();
        assert!(!either.matches(&u));
    }
}
