//! Reading request bodies: JSON only, within the configured limit and
//! timeout.

use std::time::Duration;

use actix_web::http::header;
use actix_web::{web, HttpRequest};

use crate::codes::RequestCode;

/// Why a body could not be taken; each endpoint answers it in its own
/// error envelope, with the status and code of its [`RequestCode`].
#[derive(Debug)]
pub enum BodyError {
    /// The content type is not `application/json`: 415.
    NotJson,
    /// The body grew, or was declared to grow, past the limit (bytes): 413.
    TooLarge(usize),
    /// The body did not arrive whole within the timeout: 408.
    TimedOut(Duration),
    /// The transport failed while reading: 400.
    Unreadable(String),
}

impl BodyError {
    /// The refusal it is answered with, which gives the status and code.
    pub fn code(&self) -> RequestCode {
        match self {
            BodyError::NotJson => RequestCode::UnsupportedMediaType,
            BodyError::TooLarge(_) => RequestCode::PayloadTooLarge,
            BodyError::TimedOut(_) => RequestCode::RequestTimeout,
            BodyError::Unreadable(_) => RequestCode::BadRequest,
        }
    }

    pub fn message(&self) -> String {
        match self {
            BodyError::NotJson => {
                "the body must be JSON, sent with Content-Type: application/json".to_owned()
            }
            BodyError::TooLarge(limit) => {
                format!("the request body is larger than the limit of {limit} bytes")
            }
            BodyError::TimedOut(timeout) => format!(
                "the request body did not arrive within {} seconds",
                timeout.as_secs_f64()
            ),
            BodyError::Unreadable(e) => format!("the request body could not be read: {e}"),
        }
    }
}

/// Whether the request declares a body of one of `types` (any
/// parameters).
fn is_one_of(req: &HttpRequest, types: &[&str]) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| types.iter().any(|t| mime.trim().eq_ignore_ascii_case(t)))
}

/// The body length the request declares in `Content-Length`, if any.
fn declared_length(req: &HttpRequest) -> Option<u64> {
    req.headers()
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The whole body of a request that declares JSON, or why not: the content
/// type is checked first, then the declared length (refused at once, before
/// reading, when it passes `limit` bytes), then the body is read, which
/// stops once it passes `limit` bytes or when it has not arrived whole
/// within `timeout`, so a client that declares a body and never sends it
/// holds no connection for long.
pub async fn read_json(
    req: &HttpRequest,
    payload: web::Payload,
    limit: usize,
    timeout: Duration,
) -> Result<web::Bytes, BodyError> {
    read_json_of(req, payload, limit, timeout, &["application/json"]).await
}

/// [`read_json`] for a body declared as one of `types` (JSON media types,
/// such as SCIM's `application/scim+json`).
pub async fn read_json_of(
    req: &HttpRequest,
    payload: web::Payload,
    limit: usize,
    timeout: Duration,
    types: &[&str],
) -> Result<web::Bytes, BodyError> {
    if !is_one_of(req, types) {
        return Err(BodyError::NotJson);
    }
    if declared_length(req).is_some_and(|n| n > u64::try_from(limit).unwrap_or(u64::MAX)) {
        return Err(BodyError::TooLarge(limit));
    }
    match actix_web::rt::time::timeout(timeout, payload.to_bytes_limited(limit)).await {
        Ok(Ok(Ok(bytes))) => Ok(bytes),
        Ok(Ok(Err(e))) => Err(BodyError::Unreadable(e.to_string())),
        Ok(Err(_)) => Err(BodyError::TooLarge(limit)),
        Err(_) => Err(BodyError::TimedOut(timeout)),
    }
}
