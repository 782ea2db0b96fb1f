//! Signing in and out: the sign-in page, the identity provider, sign-out
//! (sign-in links have their own module, `link`).

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use kenning_app::SignInError;
use kenning_domain::{Email, ExternalId, SignInMethod, UserKey};

use crate::forms;
use crate::oidc::{Claimed, OidcError, Pending};
use crate::render::{internal_error, message_page, not_found_page};
use crate::session::{
    clear_cookie, pending_cookie, pending_value, session_started, signed_in, with_cookie,
};
use crate::signin::signin;
use crate::state::Web;
use crate::view::Chrome;

/// `GET /signin`.
pub(crate) async fn signin_page(app: web::Data<Web>) -> HttpResponse {
    signin(&app, StatusCode::OK, None)
}

/// The page of a refused sign-in, saying what to do.
pub(crate) fn refused(why: &SignInError) -> HttpResponse {
    let (status, title) = match why {
        SignInError::UsedLink | SignInError::ExpiredLink => {
            (StatusCode::GONE, "This sign-in link no longer works")
        }
        SignInError::UnknownLink => (StatusCode::NOT_FOUND, "This sign-in link is not valid"),
        SignInError::UnknownPerson => (StatusCode::FORBIDDEN, "Kenning does not know you yet"),
        SignInError::NotActive { .. } => (StatusCode::FORBIDDEN, "This account cannot sign in"),
        _ => (StatusCode::UNAUTHORIZED, "Please sign in"),
    };
    message_page(status, Chrome::default(), title, &why.to_string())
}

/// `POST /auth/signout`: ends the session everywhere.
pub(crate) async fn sign_out(
    req: HttpRequest,
    app: web::Data<Web>,
    body: web::Bytes,
) -> HttpResponse {
    let person = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    let csrf = url::form_urlencoded::parse(&body)
        .find(|(name, _)| name == "csrf")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default();
    if let Some(refused) = forms::refusal(&req, &app, &person, &csrf) {
        return refused;
    }
    let sessions = app.gate.sessions().clone();
    match web::block(move || sessions.sign_out(&person)).await {
        Ok(Ok(())) => with_cookie(
            message_page(
                StatusCode::OK,
                Chrome::default(),
                "You are signed out",
                "Your session has ended on every device and every Kenning server.",
            ),
            &clear_cookie(&app.config),
        ),
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(e) => internal_error(&e.to_string()),
    }
}

/// How long a sign-in with the identity provider may take, in seconds.
const PENDING_SECONDS: i64 = 600;

/// `GET /auth/oidc`: sends the person to the identity provider.
pub(crate) async fn oidc_begin(app: web::Data<Web>) -> HttpResponse {
    let Some(provider) = app.config.oidc.clone() else {
        return message_page(
            StatusCode::NOT_FOUND,
            Chrome::default(),
            "No identity provider is set up",
            "This Kenning signs people in with sign-in links only; ask an administrator for one.",
        );
    };
    match web::block(move || provider.begin()).await {
        Ok(Ok((url, pending))) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, url))
            .insert_header((
                header::SET_COOKIE,
                pending_cookie(&app.config, &pending.to_cookie(), PENDING_SECONDS),
            ))
            .finish(),
        Ok(Err(e)) => provider_failed(&e),
        Err(e) => internal_error(&e.to_string()),
    }
}

/// The page of a sign-in the identity provider's side made fail.
fn provider_failed(e: &OidcError) -> HttpResponse {
    let (status, title) = match e {
        OidcError::Unreachable(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "The identity provider is not answering",
        ),
        OidcError::Refused(_) | OidcError::Untrusted(_) | OidcError::NoIdentity(_) => {
            (StatusCode::FORBIDDEN, "The sign-in did not succeed")
        }
        OidcError::OutsideDomains(_) => (
            StatusCode::FORBIDDEN,
            "This account is outside the organisation",
        ),
    };
    log::warn!("web: sign-in with the identity provider failed: {e}");
    message_page(status, Chrome::default(), title, &e.to_string())
}

/// What the identity provider sends back.
#[derive(Debug, Default, serde::Deserialize)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /auth/callback`: the identity provider sends the person back;
/// the answer is checked and, when it names a person who may sign in, a
/// session begins.
pub(crate) async fn oidc_callback(req: HttpRequest, app: web::Data<Web>) -> HttpResponse {
    let Some(provider) = app.config.oidc.clone() else {
        return not_found_page();
    };
    let forget = pending_cookie(&app.config, "", 0);
    let refuse = |status: StatusCode, title: &str, text: &str| {
        with_cookie(
            message_page(status, Chrome::default(), title, text),
            &forget,
        )
    };
    let answer = web::Query::<Callback>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .unwrap_or_default();
    let Some(pending) = pending_value(&req, &app.config).and_then(|v| Pending::from_cookie(&v))
    else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "This sign-in was not started here",
            "It was begun in another browser, or more than ten minutes ago. Start again from \
             the sign-in page.",
        );
    };
    if let Some(error) = answer.error {
        let said = answer.error_description.unwrap_or(error);
        return refuse(
            StatusCode::FORBIDDEN,
            "The identity provider refused the sign-in",
            &format!(
                "It said: {said}. Start again from the sign-in page, or ask an administrator."
            ),
        );
    }
    let (Some(code), Some(state)) = (answer.code, answer.state) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "The identity provider's answer is incomplete",
            "It held no code or no state. Start again from the sign-in page.",
        );
    };
    if !pending.state_matches(&state) {
        return refuse(
            StatusCode::BAD_REQUEST,
            "This sign-in answer is not the one expected",
            "Its state does not match the sign-in this browser began, so it may be forged. \
             Nothing was signed in. Start again from the sign-in page.",
        );
    }
    let sessions = app.gate.sessions().clone();
    let signed = web::block(move || {
        let claimed = provider
            .finish(&pending, &code)
            .map_err(Outcome::Provider)?;
        let key = match claimed {
            Claimed::Email(email) => Email::parse(&email).map(UserKey::Email),
            Claimed::ExternalId(id) => ExternalId::parse(&id).map(UserKey::ExternalId),
        }
        .map_err(|_| Outcome::Refused(SignInError::UnknownPerson))?;
        sessions
            .sign_in_as(&key, SignInMethod::Oidc)
            .map_err(Outcome::Refused)
    })
    .await;
    let response = match signed {
        Ok(Ok(signed_in)) => session_started(&app, &signed_in),
        Ok(Err(Outcome::Provider(e))) => provider_failed(&e),
        Ok(Err(Outcome::Refused(SignInError::Service(e)))) => internal_error(&e.log_message()),
        Ok(Err(Outcome::Refused(why))) => refused(&why),
        Err(e) => internal_error(&e.to_string()),
    };
    with_cookie(response, &forget)
}

/// Why a sign-in with the provider did not begin a session.
enum Outcome {
    Provider(OidcError),
    Refused(SignInError),
}
