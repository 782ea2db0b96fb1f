//! Reading request bodies within the configured limit.

use actix_web::http::header;
use actix_web::{web, HttpRequest};

/// Whether the request declares a JSON body (`application/json`, any
/// parameters).
pub fn is_json(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
}

/// Why a body could not be read; each endpoint answers it in its own
/// error envelope.
#[derive(Debug)]
pub enum BodyError {
    /// The body grew past the limit (bytes): 413.
    TooLarge(usize),
    /// The transport failed while reading: 400.
    Unreadable(String),
}

impl BodyError {
    pub fn message(&self) -> String {
        match self {
            BodyError::TooLarge(limit) => {
                format!("the request body is larger than the limit of {limit} bytes")
            }
            BodyError::Unreadable(e) => format!("the request body could not be read: {e}"),
        }
    }
}

/// The whole body, or [`BodyError::TooLarge`] once it grows past `limit`
/// bytes.
pub async fn read_limited(payload: web::Payload, limit: usize) -> Result<web::Bytes, BodyError> {
    match payload.to_bytes_limited(limit).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(BodyError::Unreadable(e.to_string())),
        Err(_) => Err(BodyError::TooLarge(limit)),
    }
}
