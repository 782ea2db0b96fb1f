//! Reading request bodies: JSON only, within the configured limit.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest};

/// Why a body could not be taken; each endpoint answers it in its own
/// error envelope, with this status and code.
#[derive(Debug)]
pub enum BodyError {
    /// The content type is not `application/json`: 415.
    NotJson,
    /// The body grew past the limit (bytes): 413.
    TooLarge(usize),
    /// The transport failed while reading: 400.
    Unreadable(String),
}

impl BodyError {
    pub fn status(&self) -> StatusCode {
        match self {
            BodyError::NotJson => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            BodyError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            BodyError::Unreadable(_) => StatusCode::BAD_REQUEST,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            BodyError::NotJson => "UnsupportedMediaType",
            BodyError::TooLarge(_) => "PayloadTooLarge",
            BodyError::Unreadable(_) => "BadRequest",
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
            BodyError::Unreadable(e) => format!("the request body could not be read: {e}"),
        }
    }
}

/// Whether the request declares a JSON body (`application/json`, any
/// parameters).
fn is_json(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
}

/// The whole body of a request that declares JSON, or why not: the content
/// type is checked first, then the size, which stops reading once it
/// passes `limit` bytes.
pub async fn read_json(
    req: &HttpRequest,
    payload: web::Payload,
    limit: usize,
) -> Result<web::Bytes, BodyError> {
    if !is_json(req) {
        return Err(BodyError::NotJson);
    }
    match payload.to_bytes_limited(limit).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(BodyError::Unreadable(e.to_string())),
        Err(_) => Err(BodyError::TooLarge(limit)),
    }
}
