//! The session cookie: read from a request, set when a person signs in,
//! cleared when the session ends.

use actix_web::http::header;
use actix_web::{web, HttpMessage as _, HttpRequest, HttpResponse};
use kenning_app::{SessionBegun, SignInError};

use crate::config::WebConfig;
use crate::render::internal_error;
use crate::signin::signin_response;
use crate::state::Web;
use crate::visitor::Visitor;

/// The value of the cookie `name` that `req` carries, if any.
pub(crate) fn cookie(req: &HttpRequest, name: &str) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.trim_matches('"').to_owned())
        .filter(|value| !value.is_empty())
}

/// Marks a request whose session the web app verified (in its
/// extensions): the server's rate limit counts the session's later
/// requests against the session, and until then against the client's
/// address.
#[derive(Debug, Clone, Copy)]
pub struct VerifiedSession;

/// The session secret `req` presents (its session cookie's value), if any,
/// valid or not: whom the server's rate limit counts it against.
pub fn presented_session(req: &HttpRequest, config: &WebConfig) -> Option<String> {
    cookie(req, &config.cookie_name())
}

/// A `Set-Cookie` value: `name=value` for `path` and `max_age_seconds`
/// (0: forget it), never readable by a script, sent on top-level
/// navigations from elsewhere but on no other cross-site request, and
/// over https alone when the public URL is https.
fn set_cookie_value(
    config: &WebConfig,
    name: &str,
    value: &str,
    path: &str,
    max_age_seconds: i64,
) -> String {
    format!(
        "{name}={value}; Path={path}; HttpOnly; SameSite=Lax; Max-Age={max_age_seconds}{}",
        if config.secure() { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that gives the browser the session `secret`,
/// kept as long as a session can last.
pub(crate) fn set_cookie(config: &WebConfig, secret: &str, max_age_seconds: i64) -> String {
    set_cookie_value(config, &config.cookie_name(), secret, "/", max_age_seconds)
}

/// The `Set-Cookie` value that makes the browser forget the session.
pub(crate) fn clear_cookie(config: &WebConfig) -> String {
    set_cookie(config, "", 0)
}

/// The `Set-Cookie` value that keeps a sign-in under way (`value`; empty
/// and `max_age_seconds` 0 to forget it), for the whole site, as the
/// `__Host-` prefix requires.
pub(crate) fn pending_cookie(config: &WebConfig, value: &str, max_age_seconds: i64) -> String {
    set_cookie_value(
        config,
        &config.pending_cookie_name(),
        value,
        "/",
        max_age_seconds,
    )
}

/// The sign-in under way that `req`'s browser began, as its cookie holds
/// it (under the name [`pending_cookie`] gives it, so over https a cookie
/// planted without the prefix is not read).
pub(crate) fn pending_value(req: &HttpRequest, config: &WebConfig) -> Option<String> {
    cookie(req, &config.pending_cookie_name())
}

/// The name of the cookie that ties a sign-in link's page to the browser
/// that opened it (`__Host-` over https, so no sibling host can set it).
pub(crate) fn link_cookie_name(config: &WebConfig) -> String {
    if config.secure() {
        format!("__Host-{LINK_COOKIE}")
    } else {
        LINK_COOKIE.to_owned()
    }
}

/// The cookie's name without its prefix.
const LINK_COOKIE: &str = "kenning_link";

/// The `Set-Cookie` value that ties a sign-in link's page to this
/// browser with the token `value` (empty and `max_age_seconds` 0 to
/// forget it). Like every cookie here it is `SameSite=Lax`, so no other
/// site's form sends it along.
pub(crate) fn link_cookie(config: &WebConfig, value: &str, max_age_seconds: i64) -> String {
    set_cookie_value(
        config,
        &link_cookie_name(config),
        value,
        "/",
        max_age_seconds,
    )
}

/// `response` also setting the cookie `set_cookie` (a `Set-Cookie`
/// value as the functions above make it).
pub(crate) fn with_cookie(mut response: HttpResponse, set_cookie: &str) -> HttpResponse {
    if let Ok(value) = header::HeaderValue::from_str(set_cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

/// The answer to a sign-in that began a session: its cookie, and on to
/// the search.
pub(crate) fn session_started(app: &Web, signed_in: &SessionBegun) -> HttpResponse {
    let cookie = set_cookie(
        &app.config,
        &signed_in.secret,
        app.gate.sessions().policy().absolute.num_seconds(),
    );
    with_cookie(
        HttpResponse::SeeOther()
            .insert_header((header::LOCATION, "/"))
            .finish(),
        &cookie,
    )
}

/// The person signed in on `req`, with whether they are an administrator
/// now (asked on every request, so that leaving the group takes effect at
/// once), or the response to give instead: the sign-in page, saying why
/// when a session ended (and clearing its cookie).
pub(crate) async fn signed_in(
    req: &HttpRequest,
    app: &web::Data<Web>,
) -> Result<Visitor, HttpResponse> {
    let Some(secret) = cookie(req, &app.config.cookie_name()) else {
        return Err(signin_response(app, None));
    };
    let worker = app.clone();
    let visitor = move || {
        let session = worker.gate.sessions().session(&secret)?;
        let caller = worker.gate.for_session(&session)?;
        Ok::<_, SignInError>(Visitor { session, caller })
    };
    match web::block(visitor).await {
        Ok(Ok(visitor)) => {
            req.extensions_mut().insert(VerifiedSession);
            Ok(visitor)
        }
        Ok(Err(SignInError::Service(e))) => Err(internal_error(&e.log_message())),
        Ok(Err(why)) => Err(with_cookie(
            signin_response(app, Some(why.to_string())),
            &clear_cookie(&app.config),
        )),
        Err(e) => Err(internal_error(&e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let req = TestRequest::default()
            .insert_header((header::COOKIE, "a=1; kenning_session=abc; b=2"))
            .to_http_request();
        assert_eq!(cookie(&req, "kenning_session").as_deref(), Some("abc"));
        assert_eq!(cookie(&req, "other"), None);
    }

    #[test]
    fn the_cookie_is_http_only_lax_and_secure_over_https() {
        let plain = WebConfig::new("http://127.0.0.1:8080".parse().unwrap());
        let value = set_cookie(&plain, "s", 60);
        assert!(value.starts_with("kenning_session=s;"));
        assert!(value.contains("HttpOnly") && value.contains("SameSite=Lax"));
        assert!(!value.contains("Secure"));
        let secure = WebConfig::new("https://kenning.example.com".parse().unwrap());
        let value = set_cookie(&secure, "s", 60);
        assert!(value.starts_with("__Host-kenning_session=s;"));
        assert!(value.ends_with("; Secure"));
    }

    #[test]
    fn the_pending_sign_in_cookie_is_host_only_over_https() {
        let secure = WebConfig::new("https://kenning.example.com".parse().unwrap());
        let value = pending_cookie(&secure, "s.n.v", 600);
        assert!(
            value.starts_with("__Host-kenning_oidc=s.n.v; Path=/;"),
            "{value}"
        );
        assert!(
            value.ends_with("; Secure") && !value.contains("Domain"),
            "{value}"
        );
        let plain = WebConfig::new("http://127.0.0.1:8080".parse().unwrap());
        let value = pending_cookie(&plain, "s.n.v", 600);
        assert!(value.starts_with("kenning_oidc=s.n.v; Path=/;"), "{value}");
        assert!(!value.contains("Secure"), "{value}");
    }

    #[test]
    fn the_pending_sign_in_is_read_under_its_own_name_alone() {
        let secure = WebConfig::new("https://kenning.example.com".parse().unwrap());
        let plain = WebConfig::new("http://127.0.0.1:8080".parse().unwrap());
        let planted = TestRequest::default()
            .insert_header((header::COOKIE, "kenning_oidc=planted.n.v"))
            .to_http_request();
        assert_eq!(pending_value(&planted, &secure), None);
        assert_eq!(
            pending_value(&planted, &plain).as_deref(),
            Some("planted.n.v")
        );
        let own = TestRequest::default()
            .insert_header((
                header::COOKIE,
                "kenning_oidc=planted.n.v; __Host-kenning_oidc=own.n.v",
            ))
            .to_http_request();
        assert_eq!(pending_value(&own, &secure).as_deref(), Some("own.n.v"));
    }
}
