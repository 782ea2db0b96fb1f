//! HTTP-level error answers, in the envelope of the endpoint that gives
//! them.

use actix_web::http::{header, StatusCode};
use actix_web::HttpResponse;
use serde_json::json;

use kenning_app::ServiceError;

use crate::body::BodyError;
use crate::codes::RequestCode;
use crate::wire::{ErrorBody, ErrorEnvelope, FieldProblem};

/// A request refused before (or instead of) the use case, or a use case's
/// error: a status, a stable code, a message, and the body fields at fault
/// when there are.
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
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            fields: Vec::new(),
            retry_after: None,
        }
    }

    /// The request refused on its own, with the status of `code`.
    pub fn refusal(code: RequestCode, message: impl Into<String>) -> Self {
        Self::new(code.status(), code.code(), message)
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::refusal(RequestCode::BadRequest, message)
    }

    /// A use case's error answered with `status`, under its own code.
    pub fn service(status: StatusCode, e: &ServiceError, message: impl Into<String>) -> Self {
        Self::new(status, e.code(), message)
    }

    /// A body whose fields broke rules: 422 `ValidationError` with every
    /// (field, rule) at fault.
    pub fn validation(fields: Vec<(String, String)>) -> Self {
        let mut problem = Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "ValidationError",
            "the request has invalid fields",
        );
        problem.fields = fields;
        problem
    }

    pub fn unauthenticated(message: impl Into<String>) -> Self {
        Self::service(
            StatusCode::UNAUTHORIZED,
            &ServiceError::Unauthenticated,
            message,
        )
    }

    /// A failure that is not the caller's: logged with `what` failed and
    /// `e`, and answered without any detail. A use case's error is logged
    /// as its `log_message`, with every cause beneath it.
    pub fn internal(what: &str, e: &dyn std::fmt::Display) -> Self {
        log::error!("{what} failed: {e}");
        let error = ServiceError::Internal(String::new());
        Self::service(StatusCode::INTERNAL_SERVER_ERROR, &error, "internal error")
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
        builder.json(ErrorEnvelope {
            error: self.into_error_body(),
        })
    }

    /// What the envelope outside GraphQL holds under `error`.
    pub fn into_error_body(self) -> ErrorBody {
        ErrorBody {
            code: self.code.to_owned(),
            message: self.message,
            fields: self
                .fields
                .into_iter()
                .map(|(field, problem)| FieldProblem { field, problem })
                .collect(),
        }
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
        Self::refusal(e.code(), e.message())
    }
}

pub async fn not_found() -> HttpResponse {
    Problem::refusal(RequestCode::NotFound, "no such route").into_response()
}

/// 404 for a path that is no route: a page for a browser (which asks for
/// HTML first), the JSON problem for everyone else.
pub async fn no_route(req: actix_web::HttpRequest) -> HttpResponse {
    let wants_page = req
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.starts_with("text/html"));
    if wants_page {
        return kenning_web::not_found_page();
    }
    not_found().await
}

pub async fn method_not_allowed() -> HttpResponse {
    Problem::refusal(
        RequestCode::MethodNotAllowed,
        "this route does not answer this method",
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The match is exhaustive, so a new variant does not compile until it
    /// is placed here, after its predecessor in `ALL`; the test then
    /// demands it in `ALL`, and the API test of every code demands that it
    /// can be produced.
    fn next(code: Option<RequestCode>) -> Option<RequestCode> {
        use RequestCode::*;
        match code {
            None => Some(BadRequest),
            Some(BadRequest) => Some(UnsupportedMediaType),
            Some(UnsupportedMediaType) => Some(PayloadTooLarge),
            Some(PayloadTooLarge) => Some(RequestTimeout),
            Some(RequestTimeout) => Some(NotFound),
            Some(NotFound) => Some(MethodNotAllowed),
            Some(MethodNotAllowed) => Some(NotImplemented),
            Some(NotImplemented) => Some(UriTooLong),
            Some(UriTooLong) => Some(HeaderFieldsTooLarge),
            Some(HeaderFieldsTooLarge) => Some(TooManyRequests),
            Some(TooManyRequests) => Some(ResponseTooLarge),
            Some(ResponseTooLarge) => None,
        }
    }

    #[test]
    fn all_lists_every_variant_once() {
        let every: Vec<RequestCode> =
            std::iter::successors(next(None), |c| next(Some(*c))).collect();
        assert_eq!(every, RequestCode::ALL);
        let mut codes: Vec<&str> = every.iter().map(|c| c.code()).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), RequestCode::ALL.len(), "codes are distinct");
    }

    #[test]
    fn a_body_error_is_answered_with_its_refusal() {
        let problem = Problem::from(BodyError::TooLarge(10));
        assert_eq!(problem.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(problem.code, "PayloadTooLarge");
    }

    #[test]
    fn use_case_errors_keep_their_own_codes() {
        assert_eq!(Problem::unauthenticated("no").code, "Unauthenticated");
        let internal = Problem::internal("a test", &"disk full");
        assert_eq!(internal.code, "Internal");
        assert_eq!(internal.message, "internal error");
    }
}
