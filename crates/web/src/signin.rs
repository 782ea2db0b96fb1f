//! The sign-in page: shown at `/signin`, and in place of any page asked
//! for without a session.

use actix_web::http::StatusCode;
use actix_web::HttpResponse;
use askama::Template;
use kenning_domain::SIGN_IN_LINK_MINUTES;

use crate::render::respond;
use crate::state::Web;
use crate::view::Chrome;

#[derive(Template)]
#[template(path = "signin.html")]
struct SigninPage {
    chrome: Chrome,
    notice: Option<String>,
    provider: Option<String>,
    links: bool,
    link_minutes: i64,
}

/// The sign-in page with `status`, saying `notice` first when given.
pub(crate) fn signin(app: &Web, status: StatusCode, notice: Option<String>) -> HttpResponse {
    respond(
        status,
        &SigninPage {
            chrome: Chrome::default(),
            notice,
            provider: app.config.oidc.as_ref().map(|p| p.name().to_owned()),
            links: app.config.links,
            link_minutes: SIGN_IN_LINK_MINUTES,
        },
    )
}

/// The sign-in page in place of a page that needs a person signed in
/// (401), saying why when a session ended.
pub(crate) fn signin_response(app: &Web, notice: Option<String>) -> HttpResponse {
    signin(app, StatusCode::UNAUTHORIZED, notice)
}
