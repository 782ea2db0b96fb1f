//! Sign-in links. Opening one (`GET`) shows a page with one button and
//! changes nothing, so a link-preview robot that fetches it does not spend
//! it; the button (`POST`) signs in. The button's form must come from that
//! page in the browser that opened it (its origin, and the token the page
//! set in a cookie), so another site cannot sign a visitor in to an
//! account of its choosing with a link of its own.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use kenning_app::SignInError;
use kenning_domain::SIGN_IN_LINK_MINUTES;
use openidconnect::CsrfToken;

use crate::forms::{from_own_page, Form};
use crate::pages::auth::refused;
use crate::render::{internal_error, message_page, respond};
use crate::session::{link_cookie, link_cookie_name, session_started, with_cookie};
use crate::state::Web;
use crate::view::Chrome;

/// The random bytes of the token a link's page sets.
const TOKEN_BYTES: u32 = 32;

/// The page a sign-in link opens.
#[derive(Template)]
#[template(path = "link.html")]
struct LinkPage {
    chrome: Chrome,
    /// The token the button's form carries, also set in the cookie.
    token: String,
    minutes: i64,
}

/// The page for a link when the server takes none.
fn turned_off(app: &Web) -> Option<HttpResponse> {
    (!app.config.links).then(|| {
        message_page(
            StatusCode::FORBIDDEN,
            Chrome::default(),
            "Sign-in links are turned off",
            "This Kenning accepts no sign-in links. Sign in with your organisation's account.",
        )
    })
}

/// `GET /auth/link/{secret}`: the button that signs in with the link.
/// Nothing is spent or signed in; the link is not even looked up, so the
/// page tells nobody whether it works.
pub(crate) async fn page(app: web::Data<Web>) -> HttpResponse {
    if let Some(off) = turned_off(&app) {
        return off;
    }
    let token = CsrfToken::new_random_len(TOKEN_BYTES).into_secret();
    let cookie = link_cookie(&app.config, &token, SIGN_IN_LINK_MINUTES * 60);
    let page = LinkPage {
        chrome: Chrome::default(),
        token,
        minutes: SIGN_IN_LINK_MINUTES,
    };
    with_cookie(respond(StatusCode::OK, &page), &cookie)
}

/// `POST /auth/link/{secret}`, the button of the link's page: signs in
/// with the link, once, and goes on to the search. A form that is not
/// the page's (another origin, no token or another one) is refused and
/// leaves the link unspent.
pub(crate) async fn sign_in(
    req: HttpRequest,
    app: web::Data<Web>,
    secret: web::Path<String>,
    body: web::Bytes,
) -> HttpResponse {
    if let Some(off) = turned_off(&app) {
        return off;
    }
    let form = Form::parse(&body);
    let cookie_name = link_cookie_name(&app.config);
    if !from_own_page(&req, &app, &cookie_name, &form.value("csrf")) {
        return message_page(
            StatusCode::FORBIDDEN,
            Chrome::default(),
            "This sign-in was refused",
            "It did not come from the sign-in link's own page in this browser. Nobody was \
             signed in and the link was not used: open the link again and use its button.",
        );
    }
    let sessions = app.gate.sessions().clone();
    let secret = secret.into_inner();
    let response = match web::block(move || sessions.sign_in_with_link(&secret)).await {
        Ok(Ok(signed_in)) => session_started(&app, &signed_in),
        Ok(Err(SignInError::Service(e))) => internal_error(&e.log_message()),
        Ok(Err(why)) => refused(&why),
        Err(e) => internal_error(&e.to_string()),
    };
    with_cookie(response, &link_cookie(&app.config, "", 0))
}
