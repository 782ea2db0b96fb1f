//! What a credential is called and what it may do.

use std::fmt;
use std::str::FromStr;

use crate::validation::bounded_text;

bounded_text!(
    /// The name a credential is issued under, so that people can tell
    /// credentials apart: required, at most 100 characters, no control
    /// characters but tab and line breaks.
    CredentialName, "name", 100, required = true
);

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
}

impl Scope {
    /// Every scope, the set the first admin token carries.
    pub const ALL: [Scope; 5] = [
        Scope::UsersRead,
        Scope::UsersWrite,
        Scope::ExpertiseRead,
        Scope::AuditRead,
        Scope::WebhooksManage,
    ];

    /// The scope's public name, as tokens list it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Scope::UsersRead => "users:read",
            Scope::UsersWrite => "users:write",
            Scope::ExpertiseRead => "expertise:read",
            Scope::AuditRead => "audit:read",
            Scope::WebhooksManage => "webhooks:manage",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scope name that is not one of [`Scope::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope `{0}` (known: users:read, users:write, expertise:read, audit:read, webhooks:manage)")]
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
    use crate::{FieldViolation, Rule};

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
