//! The errors of the use cases, each with a stable machine code.

use chrono::{DateTime, Utc};
use kenning_domain::{UserError, ValidationErrors};

use kenning_ports::{ModifyError, StoreError};

/// Why a use case did not succeed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceError {
    #[error("a valid credential is required")]
    Unauthenticated,
    #[error("{0}")]
    Forbidden(String),
    #[error("no user has this globalUserId")]
    NotFound,
    #[error("{0}")]
    Validation(ValidationErrors),
    #[error("{field} is already used by another user")]
    Conflict { field: &'static str },
    #[error("{message}")]
    InvalidTransition {
        status: &'static str,
        message: String,
    },
    #[error("the grace period ended at {scheduled_for}; the deletion can no longer be cancelled")]
    GracePeriodExpired { scheduled_for: DateTime<Utc> },
    /// An upload names a user that does not exist or is being deleted.
    #[error("no active or deactivated user has this e-mail address")]
    UnknownUser,
    /// An upload's action_alias was accepted before.
    #[error("an upload with this action_alias was accepted before")]
    DuplicateAlias,
    /// Something that is not the caller's fault; the text is for the log only.
    #[error("internal error")]
    Internal(String),
}

impl ServiceError {
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
            ServiceError::NotFound => "NotFound",
            ServiceError::Validation(_) => "ValidationError",
            ServiceError::Conflict { .. } => "Conflict",
            ServiceError::InvalidTransition { .. } => "InvalidTransition",
            ServiceError::GracePeriodExpired { .. } => "GracePeriodExpired",
            ServiceError::UnknownUser => "UnknownUser",
            ServiceError::DuplicateAlias => "DuplicateAlias",
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
        }
    }
}

impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Conflict { field } => ServiceError::Conflict { field },
            StoreError::Backend(detail) => ServiceError::Internal(detail),
        }
    }
}

impl From<ModifyError> for ServiceError {
    fn from(error: ModifyError) -> Self {
        match error {
            ModifyError::NotFound => ServiceError::NotFound,
            ModifyError::Rejected(e) => e.into(),
            ModifyError::Store(e) => e.into(),
        }
    }
}
