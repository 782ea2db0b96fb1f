//! HTTP-level error answers.

use actix_web::http::{header, StatusCode};
use actix_web::HttpResponse;
use serde_json::json;

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

fn plain_problem(status: StatusCode, code: &str, message: &str) -> HttpResponse {
    HttpResponse::build(status).json(json!({ "error": { "code": code, "message": message } }))
}

pub async fn not_found() -> HttpResponse {
    plain_problem(StatusCode::NOT_FOUND, "NotFound", "no such route")
}

pub async fn method_not_allowed() -> HttpResponse {
    plain_problem(
        StatusCode::METHOD_NOT_ALLOWED,
        "MethodNotAllowed",
        "this route answers GET and POST only",
    )
}
