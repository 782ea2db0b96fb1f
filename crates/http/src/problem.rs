//! HTTP-level error answers, in the envelope of the endpoint that gives
//! them.

use actix_web::http::{header, StatusCode};
use actix_web::HttpResponse;
use serde_json::json;

use crate::body::BodyError;

/// Every code this layer answers with besides the use cases' own
/// (`ServiceError::CODES`): refusals of the request itself, in either
/// envelope, and the codes GraphQL gives a document it will not run.
pub const REQUEST_CODES: [&str; 13] = [
    "BadRequest",
    "UnsupportedMediaType",
    "PayloadTooLarge",
    "RequestTimeout",
    "NotFound",
    "MethodNotAllowed",
    "NotImplemented",
    "UriTooLong",
    "HeaderFieldsTooLarge",
    "TooManyRequests",
    kenning_graphql::VALIDATION_ERROR,
    kenning_graphql::QUERY_TOO_COMPLEX,
    "ResponseTooLarge",
];

/// A request refused before (or instead of) the use case: a status, a
/// stable code, a message, and the body fields at fault when there are.
#[derive(Debug)]
pub struct Problem {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub fields: Vec<(String, String)>,
    /// Seconds after which a refused request may be repeated
    /// (`Retry-After`).
    pub retry_after: Option<u64>,
}

impl Problem {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            fields: Vec::new(),
            retry_after: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "BadRequest", message)
    }

    pub fn unauthenticated(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "Unauthenticated", message)
    }

    /// A failure that is not the caller's: logged with `what` failed and
    /// `e`, and answered without any detail. A use case's error is logged
    /// as its `log_message`, with every cause beneath it.
    pub fn internal(what: &str, e: &dyn std::fmt::Display) -> Self {
        log::error!("{what} failed: {e}");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal",
            "internal error",
        )
    }

    /// The GraphQL error envelope, for a request that never reached
    /// execution: `{"errors": [{"message", "extensions": {"code"}}]}`; a
    /// 401 names the Bearer scheme.
    pub fn into_graphql_response(self) -> HttpResponse {
        let mut builder = self.builder();
        if self.status == StatusCode::UNAUTHORIZED {
            builder.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"kenning\""));
        }
        builder.json(json!({
            "errors": [{ "message": self.message, "extensions": { "code": self.code } }]
        }))
    }

    /// The envelope outside GraphQL (the connector, unknown routes):
    /// `{"error": {"code", "message", "fields": [{"field", "problem"}]}}`,
    /// with `fields` only when the problem is about fields of the body.
    pub fn into_response(self) -> HttpResponse {
        let mut builder = self.builder();
        let mut error = json!({ "code": self.code, "message": self.message });
        if !self.fields.is_empty() {
            error["fields"] = self
                .fields
                .into_iter()
                .map(|(field, problem)| json!({ "field": field, "problem": problem }))
                .collect();
        }
        builder.json(json!({ "error": error }))
    }

    fn builder(&self) -> actix_web::HttpResponseBuilder {
        let mut builder = HttpResponse::build(self.status);
        if let Some(seconds) = self.retry_after {
            builder.insert_header((header::RETRY_AFTER, seconds));
        }
        builder
    }
}

impl From<BodyError> for Problem {
    fn from(e: BodyError) -> Self {
        Self::new(e.status(), e.code(), e.message())
    }
}

pub async fn not_found() -> HttpResponse {
    Problem::new(StatusCode::NOT_FOUND, "NotFound", "no such route").into_response()
}

pub async fn method_not_allowed() -> HttpResponse {
    Problem::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "MethodNotAllowed",
        "this route does not answer this method",
    )
    .into_response()
}
