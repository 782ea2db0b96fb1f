//! SCIM's error envelope (RFC 7644 §3.12): every refusal of the SCIM
//! endpoint, the service's own ones included, answered as
//! `{"schemas": [Error], "status": "409", "scimType": "uniqueness",
//! "detail": ...}`.

use actix_web::http::{header, StatusCode};
use actix_web::HttpResponse;
use kenning_app::ServiceError;
use serde_json::json;

use super::resource::scim_name;
use super::SCIM_CONTENT_TYPE;
use crate::problem::Problem;

/// The error message schema.
pub const ERROR_SCHEMA: &str = "urn:ietf:params:scim:api:messages:2.0:Error";

/// A refused SCIM request.
#[derive(Debug)]
pub struct ScimError {
    pub status: StatusCode,
    pub scim_type: Option<&'static str>,
    pub detail: String,
    retry_after: Option<u64>,
    /// A 401 names the Bearer scheme.
    unauthenticated: bool,
}

impl ScimError {
    pub fn new(
        status: StatusCode,
        scim_type: Option<&'static str>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            status,
            scim_type,
            detail: detail.into(),
            retry_after: None,
            unauthenticated: status == StatusCode::UNAUTHORIZED,
        }
    }

    pub fn invalid_value(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, Some("invalidValue"), detail)
    }

    pub fn invalid_syntax(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, Some("invalidSyntax"), detail)
    }

    pub fn invalid_filter(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, Some("invalidFilter"), detail)
    }

    pub fn invalid_path(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, Some("invalidPath"), detail)
    }

    pub fn no_target(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, Some("noTarget"), detail)
    }

    pub fn mutability(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, Some("mutability"), detail)
    }

    pub fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, None, "no user has this id")
    }

    /// A use case's error. `Conflict` on the version is 412 (the
    /// `If-Match` it was asked under no longer holds).
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
            ServiceError::Conflict { field } if *field == "version" => Self::new(
                StatusCode::PRECONDITION_FAILED,
                None,
                "the user changed since the version in If-Match; read it again",
            ),
            ServiceError::Conflict { field } => Self::new(
                StatusCode::CONFLICT,
                Some("uniqueness"),
                format!("{} is already used by another user", scim_name(field)),
            ),
            ServiceError::NotFound(missing) => {
                Self::new(StatusCode::NOT_FOUND, None, missing.to_string())
            }
            ServiceError::Forbidden(reason) => {
                Self::new(StatusCode::FORBIDDEN, None, reason.clone())
            }
            ServiceError::Unauthenticated => Self::new(
                StatusCode::UNAUTHORIZED,
                None,
                "a valid access token is required",
            ),
            // The user went into deletion meanwhile: gone for SCIM.
            ServiceError::InvalidTransition { status, .. }
                if *status == kenning_domain::Status::PENDING_DELETION
                    || *status == kenning_domain::Status::DELETED =>
            {
                Self::not_found()
            }
            ServiceError::InvalidTransition { message, .. } => {
                Self::new(StatusCode::BAD_REQUEST, Some("mutability"), message.clone())
            }
            other => {
                let problem = Problem::internal("a SCIM request", &other.log_message());
                Self::new(problem.status, None, problem.message)
            }
        }
    }

    pub fn into_response(self) -> HttpResponse {
        let mut builder = HttpResponse::build(self.status);
        builder.insert_header((header::CONTENT_TYPE, SCIM_CONTENT_TYPE));
        if let Some(seconds) = self.retry_after {
            builder.insert_header((header::RETRY_AFTER, seconds));
        }
        if self.unauthenticated {
            builder.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"kenning\""));
        }
        let mut body = json!({
            "schemas": [ERROR_SCHEMA],
            "status": self.status.as_u16().to_string(),
            "detail": self.detail,
        });
        if let Some(scim_type) = self.scim_type {
            body["scimType"] = json!(scim_type);
        }
        builder.body(body.to_string())
    }
}

/// A refusal of the HTTP layer (credential, rate limit, body) in SCIM's
/// envelope, with its status; a body that is not JSON is `invalidSyntax`.
impl From<Problem> for ScimError {
    fn from(problem: Problem) -> Self {
        let scim_type = (problem.status == StatusCode::BAD_REQUEST).then_some("invalidSyntax");
        let mut error = Self::new(problem.status, scim_type, problem.message);
        error.retry_after = problem.retry_after;
        error
    }
}

impl From<crate::body::BodyError> for ScimError {
    fn from(e: crate::body::BodyError) -> Self {
        Problem::from(e).into()
    }
}
