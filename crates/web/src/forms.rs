//! Every form that changes something is checked against cross-site
//! request forgery twice: it must come from Kenning's own origin (the
//! browser's `Origin`, or `Sec-Fetch-Site`), and it must carry the
//! session's token, which another site cannot read.

use crate::render::message_page;
use crate::state::Web;
use crate::view::Chrome;
use crate::visitor::Visitor;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};

/// Whether `req` comes from the app's own pages: its `Origin` is the
/// public URL's or the request's own host's; without an `Origin` (or with
/// `null`, which a browser sends under some referrer policies), its
/// `Sec-Fetch-Site` says same-origin; with neither header (an old
/// browser, a script), the token alone guards.
fn same_origin(req: &HttpRequest, app: &Web) -> bool {
    let headers = req.headers();
    let origin = headers
        .get(header::ORIGIN)
        .map(|o| o.to_str().unwrap_or("invalid"))
        .filter(|o| *o != "null");
    if let Some(origin) = origin {
        let own_host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(|host| {
                let scheme = req.connection_info().scheme().to_owned();
                format!("{scheme}://{host}")
            });
        return origin == app.config.origin() || Some(origin) == own_host.as_deref();
    }
    match headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        Some(site) => site == "same-origin",
        None => true,
    }
}

/// Nothing when `req` is a form of `person`'s session sent from the app's
/// own pages carrying the session's token `csrf`; otherwise the 403 page
/// to answer with.
pub(crate) fn refusal(
    req: &HttpRequest,
    app: &Web,
    person: &Visitor,
    csrf: &str,
) -> Option<HttpResponse> {
    if same_origin(req, app) && person.csrf_matches(csrf) {
        return None;
    }
    Some(message_page(
        actix_web::http::StatusCode::FORBIDDEN,
        Chrome::of(Some(person)),
        "This form was refused",
        "It did not come from one of Kenning's own pages, or the page was from an earlier \
         session. Nothing was changed. Go back, reload the page and try again.",
    ))
}
