//! HTTP-level error answers.

use actix_web::http::{header, StatusCode};
use actix_web::HttpResponse;
use serde_json::json;

use crate::body::BodyError;

/// An answer in the GraphQL error envelope for a request that never reached
/// execution: `{"errors": [{"message", "extensions": {"code"}}]}`.
#[derive(Debug)]
pub struct GraphqlProblem {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl GraphqlProblem {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "BadRequest", message)
    }

    pub fn into_response(self) -> HttpResponse {
        let mut builder = HttpResponse::build(self.status);
        if self.status == StatusCode::UNAUTHORIZED {
            builder.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"kenning\""));
        }
        builder.json(json!({
            "errors": [{ "message": self.message, "extensions": { "code": self.code } }]
        }))
    }
}

impl From<BodyError> for GraphqlProblem {
    fn from(e: BodyError) -> Self {
        Self::new(e.status(), e.code(), e.message())
    }
}

/// An answer outside GraphQL (the connector, unknown routes):
/// `{"error": {"code", "message", "fields": [{"field", "problem"}]}}`, with
/// `fields` only when the problem is about fields of the body.
#[derive(Debug)]
pub struct Problem {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub fields: Vec<(String, String)>,
}

impl Problem {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            fields: Vec::new(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "BadRequest", message)
    }

    pub fn into_response(self) -> HttpResponse {
        let mut error = json!({ "code": self.code, "message": self.message });
        if !self.fields.is_empty() {
            error["fields"] = self
                .fields
                .into_iter()
                .map(|(field, problem)| json!({ "field": field, "problem": problem }))
                .collect();
        }
        HttpResponse::build(self.status).json(json!({ "error": error }))
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
