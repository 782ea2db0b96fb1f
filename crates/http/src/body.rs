//! Reading request bodies within the configured limit.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest};

use crate::problem::GraphqlProblem;

/// Whether the request declares a JSON body (`application/json`, any
/// parameters).
pub fn is_json(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
}

/// The whole body, or 413 once it grows past `limit` bytes.
pub async fn read_limited(
    payload: web::Payload,
    limit: usize,
) -> Result<web::Bytes, GraphqlProblem> {
    match payload.to_bytes_limited(limit).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(GraphqlProblem::bad_request(format!(
            "the request body could not be read: {e}"
        ))),
        Err(_) => Err(GraphqlProblem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PayloadTooLarge",
            format!("the request body is larger than the limit of {limit} bytes"),
        )),
    }
}
