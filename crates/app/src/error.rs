//! The errors of the use cases, each with a stable machine code.

use std::error::Error;

use chrono::{DateTime, Utc};
use kenning_domain::{UserError, ValidationErrors};

use kenning_ports::{ModifyError, StoreError};

/// Why a use case did not succeed.
///
/// New use cases bring new failures, so the enum is non-exhaustive: a
/// match outside this crate needs an arm for the errors it does not know
/// ([`ServiceError::code`] gives every error, known or not, its stable
/// code).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    /// No credential, or one that is unknown, malformed or revoked.
    #[error("a valid credential is required")]
    Unauthenticated,
    /// The credential lacks a scope, or the domain refuses the change for the
    /// user (a system user, say); the text says why.
    #[error("{0}")]
    Forbidden(String),
    /// Nothing of the kind asked for has the id given; the text names the
    /// kind.
    #[error("{0}")]
    NotFound(Missing),
    /// The input broke field rules; every problem is listed.
    #[error("{0}")]
    Validation(ValidationErrors),
    /// Another live resource of the kind holds the value of a unique
    /// field.
    #[error("{field} is already used by another {resource}")]
    Conflict {
        /// What kind of resource was refused.
        resource: Resource,
        /// The field's public name: `email`, `externalId`, `displayName`.
        field: &'static str,
    },
    /// The resource changed since the version the change was asked for
    /// (code `Conflict`, as a taken value: the caller reads again).
    #[error("the {resource} changed since the version given; read it again")]
    StaleVersion {
        /// What kind of resource changed.
        resource: Resource,
    },
    /// The user's status does not allow the change.
    #[error("{message}")]
    InvalidTransition {
        /// The status the user is in.
        status: &'static str,
        /// What was refused, for people.
        message: String,
    },
    /// A cancellation came after the user's grace period ended.
    #[error("the grace period ended at {scheduled_for}; the deletion can no longer be cancelled")]
    GracePeriodExpired {
        /// When the grace period ended.
        scheduled_for: DateTime<Utc>,
    },
    /// An upload names a user that does not exist or is being deleted.
    #[error("no active or deactivated user has this e-mail address")]
    UnknownUser,
    /// An upload's action_alias was accepted before.
    #[error(
        "an upload with this action_alias was accepted before, at {}, as action {action_id}; \
         it is not stored twice",
        accepted.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    )]
    DuplicateAlias {
        /// The stored action's id.
        action_id: uuid::Uuid,
        /// When it was received.
        accepted: DateTime<Utc>,
    },
    /// Something that is not the caller's fault; the text is for the log only.
    #[error("internal error")]
    Internal(String),
}

/// What kind of resource a [`ServiceError::Conflict`] or
/// [`ServiceError::StaleVersion`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Resource {
    /// A user.
    User,
    /// A group of users.
    Group,
}

impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Resource::User => "user",
            Resource::Group => "group",
        })
    }
}

/// What a [`ServiceError::NotFound`] did not find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Missing {
    /// No user, whatever its status, has the id.
    User,
    /// No live credential of the kind asked for has the id.
    Credential,
    /// No group has the id.
    Group,
    /// No webhook subscription has the id.
    Subscription,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Missing::User => "no user has this globalUserId",
            Missing::Credential => "no live credential has this id",
            Missing::Group => "no group has this id",
            Missing::Subscription => "no webhook subscription has this id",
        })
    }
}

impl ServiceError {
    /// The error as a log line should give it: the message and, for
    /// [`ServiceError::Internal`], the detail, which holds every cause
    /// beneath it (a database's own words). For operators only; a caller
    /// gets the message alone.
    pub fn log_message(&self) -> String {
        match self {
            ServiceError::Internal(detail) => format!("{self}: {detail}"),
            other => other.to_string(),
        }
    }

    /// Every code, for documentation and for the test that each can occur.
    pub const CODES: [&'static str; 10] = [
        "Unauthenticated",
        "Forbidden",
        "NotFound",
        "ValidationError",
        "Conflict",
        "InvalidTransition",
        "GracePeriodExpired",
        "UnknownUser",
        "DuplicateAlias",
        "Internal",
    ];

    /// The stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            ServiceError::Unauthenticated => "Unauthenticated",
            ServiceError::Forbidden(_) => "Forbidden",
            ServiceError::NotFound(_) => "NotFound",
            ServiceError::Validation(_) => "ValidationError",
            ServiceError::Conflict { .. } | ServiceError::StaleVersion { .. } => "Conflict",
            ServiceError::InvalidTransition { .. } => "InvalidTransition",
            ServiceError::GracePeriodExpired { .. } => "GracePeriodExpired",
            ServiceError::UnknownUser => "UnknownUser",
            ServiceError::DuplicateAlias { .. } => "DuplicateAlias",
            ServiceError::Internal(_) => "Internal",
        }
    }
}

impl From<kenning_domain::FieldViolation> for ServiceError {
    fn from(violation: kenning_domain::FieldViolation) -> Self {
        ServiceError::Validation(violation.into())
    }
}

impl From<ValidationErrors> for ServiceError {
    fn from(errors: ValidationErrors) -> Self {
        ServiceError::Validation(errors)
    }
}

impl From<UserError> for ServiceError {
    fn from(error: UserError) -> Self {
        match error {
            UserError::Validation(errors) => ServiceError::Validation(errors),
            UserError::InvalidTransition { status, .. } => ServiceError::InvalidTransition {
                status,
                message: error.to_string(),
            },
            UserError::Forbidden(reason) => ServiceError::Forbidden(reason.to_owned()),
            UserError::GracePeriodExpired { scheduled_for } => {
                ServiceError::GracePeriodExpired { scheduled_for }
            }
            UserError::StaleVersion { .. } => ServiceError::StaleVersion {
                resource: Resource::User,
            },
            // A refusal this crate does not know yet is still the domain
            // refusing the change, with the domain's words for why.
            other => ServiceError::Forbidden(other.to_string()),
        }
    }
}

impl ServiceError {
    /// A store's failure to write a `resource`: a taken unique value is a
    /// [`Conflict`](ServiceError::Conflict) on it, the store's own failure
    /// is [`Internal`](ServiceError::Internal).
    pub(crate) fn of_store(resource: Resource, error: StoreError) -> Self {
        match error {
            StoreError::Conflict { field } => ServiceError::Conflict { resource, field },
            failure @ StoreError::Backend(_) => ServiceError::Internal(chain(&failure)),
        }
    }
}

/// The user repository is the store most use cases write to, so a bare
/// `?` on a [`StoreError`] reads a taken value as a user's; the group use
/// cases say [`Resource::Group`] through `ServiceError::of_store`.
impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        ServiceError::of_store(Resource::User, error)
    }
}

/// `error` and every error beneath it ([`Error::source`]), outermost
/// first, joined by `: `: the whole story for the log.
pub(crate) fn chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        text.push_str(": ");
        text.push_str(&error.to_string());
        cause = error.source();
    }
    text
}

impl From<ModifyError> for ServiceError {
    fn from(error: ModifyError) -> Self {
        match error {
            ModifyError::NotFound => ServiceError::NotFound(Missing::User),
            ModifyError::Rejected(e) => e.into(),
            ModifyError::Store(e) => e.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// One error of each variant. The match below is exhaustive (this is
    /// the defining crate), so a new variant does not compile until it is
    /// added here, and then the test below demands its code in `CODES`.
    fn one_of_each() -> Vec<ServiceError> {
        let all = vec![
            ServiceError::Unauthenticated,
            ServiceError::Forbidden(String::new()),
            ServiceError::NotFound(Missing::User),
            ServiceError::Validation(
                kenning_domain::FieldViolation::new("email", kenning_domain::Rule::Required).into(),
            ),
            ServiceError::Conflict {
                resource: Resource::User,
                field: "email",
            },
            ServiceError::StaleVersion {
                resource: Resource::Group,
            },
            ServiceError::InvalidTransition {
                status: "DELETED",
                message: String::new(),
            },
            ServiceError::GracePeriodExpired {
                scheduled_for: DateTime::<Utc>::UNIX_EPOCH,
            },
            ServiceError::UnknownUser,
            ServiceError::DuplicateAlias {
                action_id: uuid::Uuid::nil(),
                accepted: DateTime::<Utc>::UNIX_EPOCH,
            },
            ServiceError::Internal(String::new()),
        ];
        for e in &all {
            match e {
                ServiceError::Unauthenticated
                | ServiceError::Forbidden(_)
                | ServiceError::NotFound(_)
                | ServiceError::Validation(_)
                | ServiceError::Conflict { .. }
                | ServiceError::StaleVersion { .. }
                | ServiceError::InvalidTransition { .. }
                | ServiceError::GracePeriodExpired { .. }
                | ServiceError::UnknownUser
                | ServiceError::DuplicateAlias { .. }
                | ServiceError::Internal(_) => {}
            }
        }
        all
    }

    /// A database's failure as a store reports it.
    #[derive(Debug, thiserror::Error)]
    #[error("no such table: users")]
    struct DatabaseFailure;

    #[test]
    fn an_internal_error_keeps_the_database_message_for_the_log_only() {
        let error = ServiceError::from(StoreError::backend(DatabaseFailure));
        assert_eq!(error.code(), "Internal");
        assert_eq!(error.to_string(), "internal error");
        assert_eq!(
            error.log_message(),
            "internal error: storage failure: no such table: users"
        );
    }

    #[test]
    fn codes_lists_the_code_of_every_variant_once() {
        let codes: BTreeSet<&str> = one_of_each().iter().map(ServiceError::code).collect();
        let listed: BTreeSet<&str> = ServiceError::CODES.into_iter().collect();
        assert_eq!(codes, listed);
        assert_eq!(
            listed.len(),
            ServiceError::CODES.len(),
            "a code listed twice"
        );
    }

    #[test]
    fn conflicts_name_the_kind_of_resource() {
        let taken = ServiceError::of_store(
            Resource::Group,
            StoreError::Conflict {
                field: "externalId",
            },
        );
        assert_eq!(
            taken.to_string(),
            "externalId is already used by another group"
        );
        let stale = ServiceError::StaleVersion {
            resource: Resource::Group,
        };
        assert_eq!(
            stale.to_string(),
            "the group changed since the version given; read it again"
        );
        assert_eq!(stale.code(), "Conflict");
    }
}
