//! Bounds on the request head, checked before routing.
//!
//! actix-web parses a request head of up to 128 KiB and has no setting for
//! the length of the request line or of the headers, so these bounds are
//! applied to the parsed head, before any handler, metric label or log
//! line sees it.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::web;

use crate::codes::RequestCode;
use crate::problem::Problem;
use crate::state::AppState;

/// The methods this service knows; any other answers 501 (RFC 9110,
/// section 9.1: an unrecognized method).
const KNOWN_METHODS: [Method; 9] = [
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PUT,
    Method::DELETE,
    Method::OPTIONS,
    Method::PATCH,
    Method::TRACE,
    Method::CONNECT,
];

/// Why a head is refused, if it is: an unknown method (501), a request
/// line longer than `max_line` bytes (414) or headers longer than
/// `max_headers` bytes in all (431).
fn refusal(req: &ServiceRequest, max_line: usize, max_headers: usize) -> Option<Problem> {
    if !KNOWN_METHODS.contains(req.method()) {
        return Some(Problem::refusal(
            RequestCode::NotImplemented,
            "this method is not implemented",
        ));
    }
    let target = req
        .uri()
        .path_and_query()
        .map_or(req.path().len(), |p| p.as_str().len());
    // "METHOD SP target SP HTTP/1.1"
    let line = req.method().as_str().len() + 1 + target + 9;
    if line > max_line {
        return Some(Problem::refusal(
            RequestCode::UriTooLong,
            format!("the request line is longer than {max_line} bytes"),
        ));
    }
    // "name: value CRLF" per field.
    let headers: usize = req
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if headers > max_headers {
        return Some(Problem::refusal(
            RequestCode::HeaderFieldsTooLarge,
            format!("the request headers are larger than {max_headers} bytes in all"),
        ));
    }
    None
}

/// Middleware: refuses a request whose head is out of bounds, before it
/// reaches a route.
pub async fn bound(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let bounds = req
        .app_data::<web::Data<AppState>>()
        .map(|s| (s.config.max_request_line, s.config.max_header_bytes));
    if let Some((max_line, max_headers)) = bounds {
        if let Some(problem) = refusal(&req, max_line, max_headers) {
            let (req, _) = req.into_parts();
            let response = problem.into_response().map_into_right_body();
            return Ok(ServiceResponse::new(req, response));
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}
