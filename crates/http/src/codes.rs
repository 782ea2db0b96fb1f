//! The stable codes of the refusals this layer gives on its own.

use actix_web::http::StatusCode;

/// Why this layer refused a request on its own, before (or instead of) a
/// use case: each refusal has one status and a stable code, answered in the
/// envelope of the endpoint that gives it. The use cases' errors keep
/// their own codes (`ServiceError::code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestCode {
    /// The body or the request is malformed: 400.
    BadRequest,
    /// The body is not declared as JSON: 415.
    UnsupportedMediaType,
    /// The body is, or is declared to be, larger than the limit: 413.
    PayloadTooLarge,
    /// The body did not arrive whole in time: 408.
    RequestTimeout,
    /// No route has this path: 404.
    NotFound,
    /// The route does not answer this method: 405.
    MethodNotAllowed,
    /// The method is unknown to the service: 501.
    NotImplemented,
    /// The request line is too long: 414.
    UriTooLong,
    /// The request headers are too large: 431.
    HeaderFieldsTooLarge,
    /// The address failed too often, or the credential asks too fast: 429.
    TooManyRequests,
    /// The GraphQL answer would be larger than the limit: 400.
    ResponseTooLarge,
}

impl RequestCode {
    /// Every refusal, for documentation and for the test that each can
    /// occur.
    pub const ALL: [RequestCode; 11] = [
        RequestCode::BadRequest,
        RequestCode::UnsupportedMediaType,
        RequestCode::PayloadTooLarge,
        RequestCode::RequestTimeout,
        RequestCode::NotFound,
        RequestCode::MethodNotAllowed,
        RequestCode::NotImplemented,
        RequestCode::UriTooLong,
        RequestCode::HeaderFieldsTooLarge,
        RequestCode::TooManyRequests,
        RequestCode::ResponseTooLarge,
    ];

    /// The stable machine code.
    pub fn code(self) -> &'static str {
        match self {
            RequestCode::BadRequest => "BadRequest",
            RequestCode::UnsupportedMediaType => "UnsupportedMediaType",
            RequestCode::PayloadTooLarge => "PayloadTooLarge",
            RequestCode::RequestTimeout => "RequestTimeout",
            RequestCode::NotFound => "NotFound",
            RequestCode::MethodNotAllowed => "MethodNotAllowed",
            RequestCode::NotImplemented => "NotImplemented",
            RequestCode::UriTooLong => "UriTooLong",
            RequestCode::HeaderFieldsTooLarge => "HeaderFieldsTooLarge",
            RequestCode::TooManyRequests => "TooManyRequests",
            RequestCode::ResponseTooLarge => "ResponseTooLarge",
        }
    }

    /// The HTTP status it is answered with.
    pub fn status(self) -> StatusCode {
        match self {
            RequestCode::BadRequest | RequestCode::ResponseTooLarge => StatusCode::BAD_REQUEST,
            RequestCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RequestCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            RequestCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            RequestCode::NotFound => StatusCode::NOT_FOUND,
            RequestCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            RequestCode::NotImplemented => StatusCode::NOT_IMPLEMENTED,
            RequestCode::UriTooLong => StatusCode::URI_TOO_LONG,
            RequestCode::HeaderFieldsTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            RequestCode::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
        }
    }
}

/// Every code this layer answers with besides the use cases' own: those of
/// [`RequestCode`], and the codes GraphQL gives a document it will not run
/// (its `BadRequest` is [`RequestCode::BadRequest`]'s).
pub fn request_codes() -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = RequestCode::ALL.iter().map(|c| c.code()).collect();
    codes.extend([
        kenning_graphql::VALIDATION_ERROR,
        kenning_graphql::QUERY_TOO_COMPLEX,
    ]);
    codes
}
