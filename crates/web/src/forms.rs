//! Every form that changes something is checked against cross-site
//! request forgery twice: it must come from Kenning's own origin (the
//! browser's `Origin`, or `Sec-Fetch-Site`), and it must carry the
//! session's token, which another site cannot read (before a session, a
//! sign-in link's button carries the token its page set in a cookie).

use crate::render::{internal_error, message_page};
use crate::session::cookie;
use crate::state::Web;
use crate::view::Chrome;
use crate::visitor::Visitor;
use actix_web::http::header;
use actix_web::web;
use actix_web::{HttpRequest, HttpResponse};
use kenning_app::ServiceError;
use subtle::ConstantTimeEq;

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

/// Whether `req`, a form sent before anyone is signed in (a sign-in
/// link's button), comes from Kenning's own page in the browser that was
/// shown it: from Kenning's own origin, carrying as `presented` the token
/// the page set in the cookie `cookie_name` (compared in constant time).
/// Another site can neither read that cookie nor make the browser send it
/// with its own form (`SameSite`).
pub(crate) fn from_own_page(
    req: &HttpRequest,
    app: &Web,
    cookie_name: &str,
    presented: &str,
) -> bool {
    let Some(expected) = cookie(req, cookie_name) else {
        return false;
    };
    same_origin(req, app) && bool::from(expected.as_bytes().ct_eq(presented.as_bytes()))
}

/// `work` run off the request's thread; the 500 page when it could not be.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ServiceError> + Send + 'static,
) -> Result<Result<T, ServiceError>, HttpResponse> {
    web::block(work)
        .await
        .map_err(|e| internal_error(&e.to_string()))
}

/// A form's fields as the browser sent them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Form(Vec<(String, String)>);

impl Form {
    /// Whether no field was sent: the page is shown for the first time.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The fields of an `application/x-www-form-urlencoded` body.
    pub(crate) fn parse(body: &[u8]) -> Self {
        Self(
            url::form_urlencoded::parse(body)
                .map(|(name, value)| (name.into_owned(), value.into_owned()))
                .collect(),
        )
    }

    /// The field `name` as written; empty when absent.
    pub(crate) fn value(&self, name: &str) -> String {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }

    /// The field `name` when something but blanks was written in it: an
    /// empty field of an HTML form is a field left unset.
    pub(crate) fn given(&self, name: &str) -> Option<String> {
        Some(self.value(name)).filter(|v| !v.trim().is_empty())
    }

    /// Every value of the field `name` (checkboxes).
    pub(crate) fn values(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The 403 page when the form is not one of `visitor`'s session sent
    /// from Kenning's own pages (see [`refusal`]).
    pub(crate) fn refusal(
        &self,
        req: &HttpRequest,
        app: &Web,
        visitor: &Visitor,
    ) -> Option<HttpResponse> {
        refusal(req, app, visitor, &self.value("csrf"))
    }
}

/// The answer to a change made: on to `location` (303), so that reloading
/// the page it shows does not send the form again.
pub(crate) fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}
