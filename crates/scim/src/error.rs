//! SCIM's error envelope (RFC 7644 §3.12): every refusal of the SCIM
//! endpoint, the service's own ones included, answered as
//! `{"schemas": [Error], "status": "409", "scimType": "uniqueness",
//! "detail": ...}`.

use kenning_app::{Missing, ServiceError};
use kenning_domain::Status;
use serde_json::{json, Value};

use crate::schemas::{scim_name, ERROR_SCHEMA};

const BAD_REQUEST: u16 = 400;
const UNAUTHORIZED: u16 = 401;
const FORBIDDEN: u16 = 403;
const NOT_FOUND: u16 = 404;
const CONFLICT: u16 = 409;
const PRECONDITION_FAILED: u16 = 412;
const INTERNAL_SERVER_ERROR: u16 = 500;

/// A refused SCIM request.
#[derive(Debug)]
pub struct ScimError {
    /// The HTTP status.
    pub status: u16,
    /// The `scimType` of a 400 or 409, when one fits.
    pub scim_type: Option<&'static str>,
    /// What went wrong, for people.
    pub detail: String,
    /// Seconds after which a refused request may be repeated
    /// (`Retry-After`).
    pub retry_after: Option<u64>,
}

impl ScimError {
    /// A refusal with `status`, its `scimType` when one fits, and the
    /// detail.
    pub fn new(status: u16, scim_type: Option<&'static str>, detail: impl Into<String>) -> Self {
        Self {
            status,
            scim_type,
            detail: detail.into(),
            retry_after: None,
        }
    }

    /// 400 `invalidValue`.
    pub fn invalid_value(detail: impl Into<String>) -> Self {
        Self::new(BAD_REQUEST, Some("invalidValue"), detail)
    }

    /// 400 `invalidSyntax`.
    pub fn invalid_syntax(detail: impl Into<String>) -> Self {
        Self::new(BAD_REQUEST, Some("invalidSyntax"), detail)
    }

    /// 400 `invalidFilter`.
    pub fn invalid_filter(detail: impl Into<String>) -> Self {
        Self::new(BAD_REQUEST, Some("invalidFilter"), detail)
    }

    /// 400 `invalidPath`.
    pub fn invalid_path(detail: impl Into<String>) -> Self {
        Self::new(BAD_REQUEST, Some("invalidPath"), detail)
    }

    /// 400 `noTarget`.
    pub fn no_target(detail: impl Into<String>) -> Self {
        Self::new(BAD_REQUEST, Some("noTarget"), detail)
    }

    /// 400 `mutability`.
    pub fn mutability(detail: impl Into<String>) -> Self {
        Self::new(BAD_REQUEST, Some("mutability"), detail)
    }

    /// 404 for a user that SCIM does not show.
    pub fn not_found() -> Self {
        Self::new(NOT_FOUND, None, "no user has this id")
    }

    /// 404 for a resource or route there is not.
    pub fn no_such(what: &str) -> Self {
        Self::new(NOT_FOUND, None, format!("no such {what}"))
    }

    /// 412 for an `If-Match` that does not name the current version of
    /// the `resource`.
    pub fn stale(resource: &str) -> Self {
        Self::new(
            PRECONDITION_FAILED,
            None,
            format!("If-Match does not name the {resource}'s current version"),
        )
    }

    /// Whether the request was refused for its credential (a 401 names
    /// the Bearer scheme).
    pub fn is_unauthenticated(&self) -> bool {
        self.status == UNAUTHORIZED
    }

    /// A use case's error. A stale version is 412 (the `If-Match` it was
    /// asked under no longer holds).
    pub fn service(e: &ServiceError) -> Self {
        match e {
            ServiceError::Validation(errors) => {
                let detail: Vec<String> = errors
                    .violations()
                    .iter()
                    .map(|v| format!("{}: {}", scim_name(&v.field), v.rule))
                    .collect();
                Self::invalid_value(detail.join("; "))
            }
            ServiceError::StaleVersion { resource } => Self::new(
                PRECONDITION_FAILED,
                None,
                format!("the {resource} changed since the version in If-Match; read it again"),
            ),
            ServiceError::Conflict { resource, field } => Self::new(
                CONFLICT,
                Some("uniqueness"),
                format!("{} is already used by another {resource}", scim_name(field)),
            ),
            ServiceError::NotFound(missing) => Self::new(NOT_FOUND, None, missing.to_string()),
            ServiceError::Forbidden(reason) => Self::new(FORBIDDEN, None, reason.clone()),
            ServiceError::Unauthenticated => {
                Self::new(UNAUTHORIZED, None, "a valid access token is required")
            }
            // The user went into deletion meanwhile: gone for SCIM, which
            // knows the users who learn (ACTIVE or DEACTIVATED) alone.
            ServiceError::InvalidTransition { status, .. }
                if !Status::LEARNING.contains(status) =>
            {
                Self::not_found()
            }
            ServiceError::InvalidTransition { message, .. } => {
                Self::new(BAD_REQUEST, Some("mutability"), message.clone())
            }
            other => {
                log::error!("a SCIM request failed: {}", other.log_message());
                Self::new(INTERNAL_SERVER_ERROR, None, "internal error")
            }
        }
    }

    /// A group id that names no group.
    pub fn no_group() -> Self {
        Self::service(&ServiceError::NotFound(Missing::Group))
    }

    /// The error's body: `{"schemas": [Error], "status": "409",
    /// "scimType": "uniqueness", "detail": ...}`.
    pub fn body(&self) -> Value {
        let mut body = json!({
            "schemas": [ERROR_SCHEMA],
            "status": self.status.to_string(),
            "detail": self.detail,
        });
        if let Some(scim_type) = self.scim_type {
            body["scimType"] = json!(scim_type);
        }
        body
    }
}

/// A use case's error as SCIM answers it ([`ScimError::service`]).
impl From<ServiceError> for ScimError {
    fn from(e: ServiceError) -> Self {
        Self::service(&e)
    }
}
