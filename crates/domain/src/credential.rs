//! What a credential is called and what it may do.

use std::fmt;
use std::str::FromStr;

use crate::validation::bounded_text;
use crate::{FieldViolation, Rule};

bounded_text!(
    /// The name a credential is issued under, so that people can tell
    /// credentials apart: required, at most 100 characters, no control
    /// characters but tab and line breaks.
    CredentialName, "name", 100, required = true
);

/// The field a lifetime is written in.
const FIELD: &str = "expiresInDays";

/// How many days a credential is accepted after it is issued: 1 to
/// [`Lifetime::MAX_DAYS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetime(u32);

impl Lifetime {
    /// The longest lifetime, ten years.
    pub const MAX_DAYS: u32 = 3_650;

    /// `days` as a lifetime; [`Rule::TooSmall`] or [`Rule::TooLarge`] on
    /// `expiresInDays` outside 1 to [`Lifetime::MAX_DAYS`].
    pub fn parse(days: i64) -> Result<Self, FieldViolation> {
        if days < 1 {
            return Err(FieldViolation::new(FIELD, Rule::TooSmall { min: 1 }));
        }
        u32::try_from(days)
            .ok()
            .filter(|days| *days <= Self::MAX_DAYS)
            .map(Self)
            .ok_or(FieldViolation::new(
                FIELD,
                Rule::TooLarge {
                    max: i64::from(Self::MAX_DAYS),
                },
            ))
    }

    /// A lifetime as a form writes it: blank is none (accepted ever),
    /// anything else a whole number of days ([`Rule::NotANumber`]
    /// otherwise) that [`parse`](Self::parse) accepts.
    pub fn read(written: &str) -> Result<Option<Self>, FieldViolation> {
        let written = written.trim();
        if written.is_empty() {
            return Ok(None);
        }
        let days = written
            .parse::<i64>()
            .map_err(|_| FieldViolation::new(FIELD, Rule::NotANumber))?;
        Self::parse(days).map(Some)
    }

    /// The number of days.
    pub fn days(&self) -> u32 {
        self.0
    }
}

/// The two kinds of credential. A secret of one kind is never accepted as
/// the other.
///
/// A closed set on purpose: each kind has its own secret prefix, storage
/// name and header, so a new kind must be handled by every match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CredentialKind {
    /// A GraphQL access token, sent as `Authorization: Bearer ...`.
    AccessToken,
    /// A connector API key, sent as `APIKEY: ...`.
    ApiKey,
}

impl CredentialKind {
    /// The stable name used in storage and on the command line.
    pub fn as_str(&self) -> &'static str {
        match self {
            CredentialKind::AccessToken => "token",
            CredentialKind::ApiKey => "apikey",
        }
    }
}

/// A permission an access token carries.
///
/// New operations bring new scopes, so the enum is non-exhaustive: a match
/// outside this crate needs a wildcard arm; [`Scope::ALL`] lists them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Scope {
    /// Read users.
    UsersRead,
    /// Create, change and retire users.
    UsersWrite,
    /// Ask who knows what.
    ExpertiseRead,
    /// Read the audit trail: who changed what.
    AuditRead,
    /// Subscribe other systems to changes (webhooks), list and end
    /// subscriptions.
    WebhooksManage,
    /// Change who administers Kenning: the members and external id of the
    /// administrators' group, and an administrator's e-mail address or
    /// external id, with which they sign in. Issued at the command line
    /// only ([`Scope::is_issued_at_the_command_line_only`]).
    AdministratorsWrite,
}

impl Scope {
    /// Every scope, the set the first admin token carries.
    pub const ALL: [Scope; 6] = [
        Scope::UsersRead,
        Scope::UsersWrite,
        Scope::ExpertiseRead,
        Scope::AuditRead,
        Scope::WebhooksManage,
        Scope::AdministratorsWrite,
    ];

    /// The scope's public name, as tokens list it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Scope::UsersRead => "users:read",
            Scope::UsersWrite => "users:write",
            Scope::ExpertiseRead => "expertise:read",
            Scope::AuditRead => "audit:read",
            Scope::WebhooksManage => "webhooks:manage",
            Scope::AdministratorsWrite => "administrators:write",
        }
    }

    /// Whether only whoever holds the database (the command line) may
    /// issue a token with this scope: a scope that decides who
    /// administers Kenning is never issued by an administrator in the web
    /// app, so that no administrator, and no token they issue, can make
    /// itself more than it is.
    pub fn is_issued_at_the_command_line_only(&self) -> bool {
        matches!(self, Scope::AdministratorsWrite)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scope name that is not one of [`Scope::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope `{0}` (known: users:read, users:write, expertise:read, audit:read, webhooks:manage, administrators:write)")]
pub struct UnknownScope(pub String);

impl FromStr for Scope {
    type Err = UnknownScope;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scope::ALL
            .into_iter()
            .find(|scope| scope.as_str() == s)
            .ok_or_else(|| UnknownScope(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lifetime_is_1_to_3650_days() {
        assert_eq!(Lifetime::parse(1).unwrap().days(), 1);
        assert_eq!(Lifetime::parse(3_650).unwrap().days(), 3_650);
        assert_eq!(
            Lifetime::parse(0),
            Err(FieldViolation::new(
                "expiresInDays",
                Rule::TooSmall { min: 1 }
            ))
        );
        assert_eq!(Lifetime::read(" "), Ok(None));
        assert_eq!(Lifetime::read(" 90 ").unwrap().unwrap().days(), 90);
        assert_eq!(
            Lifetime::read("ninety"),
            Err(FieldViolation::new("expiresInDays", Rule::NotANumber))
        );
        for days in [3_651, i64::MAX] {
            assert_eq!(
                Lifetime::parse(days),
                Err(FieldViolation::new(
                    "expiresInDays",
                    Rule::TooLarge { max: 3_650 }
                ))
            );
        }
    }

    #[test]
    fn only_the_scope_that_decides_who_administers_is_the_command_lines_alone() {
        let only = Scope::ALL
            .into_iter()
            .filter(Scope::is_issued_at_the_command_line_only)
            .collect::<Vec<_>>();
        assert_eq!(only, [Scope::AdministratorsWrite]);
    }

    #[test]
    fn a_credential_name_is_trimmed_printable_text_of_1_to_100_characters() {
        assert_eq!(
            CredentialName::parse("  reporting ").unwrap().as_str(),
            "reporting"
        );
        assert!(CredentialName::parse(&"n".repeat(100)).is_ok());
        for (raw, rule) in [
            ("   ", Rule::Required),
            ("report\u{0}ing", Rule::ControlCharacter),
            ("report\u{1b}[31ming", Rule::ControlCharacter),
            (&*"n".repeat(101), Rule::TooLong { limit: 100 }),
        ] {
            assert_eq!(
                CredentialName::parse(raw),
                Err(FieldViolation::new("name", rule)),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn scopes_round_trip_through_their_names() {
        for scope in Scope::ALL {
            assert_eq!(scope.as_str().parse::<Scope>(), Ok(scope));
        }
        assert_eq!("admin".parse::<Scope>(), Err(UnknownScope("admin".into())));
    }
}
