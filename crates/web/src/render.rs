//! Pages as responses: every page under one Content-Security-Policy that
//! allows nothing but this server's own style sheet, and never cached
//! (pages show what a person may see now).

use actix_web::http::{header, StatusCode};
use actix_web::HttpResponse;
use askama::Template;

use crate::view::Chrome;

/// What a page may load: its style sheet from this server, nothing else;
/// forms go only to this server; no page frames another or is framed.
pub(crate) const POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// `template` rendered as the page of a response with `status`.
pub(crate) fn respond(status: StatusCode, template: &impl Template) -> HttpResponse {
    match template.render() {
        Ok(html) => HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .insert_header((header::CONTENT_SECURITY_POLICY, POLICY))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            // The app's own forms carry their origin; other sites learn
            // nothing of where a person came from.
            .insert_header((header::REFERRER_POLICY, "same-origin"))
            .body(html),
        Err(e) => internal_error(&format!("rendering a page: {e}")),
    }
}

/// A page that says one thing, with where to go next.
#[derive(Template)]
#[template(path = "message.html")]
pub(crate) struct MessagePage<'a> {
    pub(crate) chrome: Chrome,
    pub(crate) title: &'a str,
    pub(crate) text: &'a str,
    pub(crate) next: Option<(&'a str, &'a str)>,
}

/// A page that says `text` under the heading `title`, with a link back to
/// the search (or to sign-in, for nobody signed in).
pub(crate) fn message_page(
    status: StatusCode,
    chrome: Chrome,
    title: &str,
    text: &str,
) -> HttpResponse {
    let next = if chrome.name.is_some() {
        ("/", "Back to the search")
    } else {
        ("/signin", "Sign in")
    };
    respond(
        status,
        &MessagePage {
            chrome,
            title,
            text,
            next: Some(next),
        },
    )
}

/// The 500 page: the detail goes to the log, never to the person.
pub(crate) fn internal_error(detail: &str) -> HttpResponse {
    log::error!("web: {detail}");
    let page = MessagePage {
        chrome: Chrome::default(),
        title: "Something went wrong on Kenning's side",
        text: "Nothing you did caused it, and it has been logged. Try again in a moment; \
               if it persists, tell the people who run Kenning.",
        next: Some(("/", "Back to the search")),
    };
    match page.render() {
        Ok(html) => HttpResponse::InternalServerError()
            .content_type("text/html; charset=utf-8")
            .insert_header((header::CONTENT_SECURITY_POLICY, POLICY))
            .body(html),
        Err(_) => HttpResponse::InternalServerError().finish(),
    }
}

/// The page of a path that is not one of Kenning's, for browsers.
pub fn not_found_page() -> HttpResponse {
    message_page(
        StatusCode::NOT_FOUND,
        Chrome::default(),
        "There is no such page",
        "Check the address, or start again from the search.",
    )
}

/// The page of a request refused for coming too fast (429): when to try
/// again, also as `Retry-After`, in `seconds`.
pub fn too_many_requests_page(seconds: u64) -> HttpResponse {
    let text = format!(
        "Kenning answers a person only so many requests a minute, and this browser sent \
         more. Try again in {seconds} s."
    );
    let mut response = message_page(
        StatusCode::TOO_MANY_REQUESTS,
        Chrome::default(),
        "Too many requests",
        &text,
    );
    if let Ok(value) = header::HeaderValue::from_str(&seconds.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}
