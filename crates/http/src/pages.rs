//! The web app's rate limits: the rate a credential has on the API, per
//! caller of the pages, who is the session a request presents once the web
//! app has verified it, or, for a request that presents none or one not
//! yet verified, its client's address. A session the web app
//! refuses counts as a failed authentication of the address it came from,
//! as a refused token does, and an address that failed too often gets 429
//! for what it presents without its session being looked at.

use std::time::Instant;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage as _};

use crate::state::AppState;
use crate::throttle::{client_key, retry_after};

/// Middleware around the web app: 429, as a page, for a caller beyond its
/// rate; a refused session counted against its address.
pub async fn limit(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    let throttle = &state.throttle;
    let client = state
        .config
        .trusted_proxies
        .client_of(req.request())
        .map(client_key);
    let session = kenning_web::presented_session(req.request(), &state.web.config);
    let now = Instant::now();
    if let (Some(failures), Some(client), Some(_)) = (&throttle.failures, client, &session) {
        if let Err(wait) = failures.check(client, now) {
            return Ok(too_many(req, wait));
        }
    }
    let caller = throttle.page_caller(session.as_deref(), client);
    if let (Some(pages), Some(caller)) = (&throttle.pages, caller) {
        if let Err(wait) = pages.admit(caller, now) {
            return Ok(too_many(req, wait));
        }
    }
    let response = next.call(req).await?;
    let verified = response
        .request()
        .extensions()
        .contains::<kenning_web::VerifiedSession>();
    if let (true, Some(secret)) = (verified, &session) {
        throttle.verified(secret);
    }
    if response.status() == StatusCode::UNAUTHORIZED && session.is_some() {
        if let (Some(failures), Some(client)) = (&throttle.failures, client) {
            // Beyond the limit this one is answered already; the next
            // request from the address gets the 429.
            let _ = failures.admit(client, Instant::now());
        }
    }
    Ok(response.map_into_left_body())
}

/// `req` answered 429 with the page that says to wait `wait`.
fn too_many<B>(req: ServiceRequest, wait: std::time::Duration) -> ServiceResponse<EitherBody<B>> {
    let (req, _) = req.into_parts();
    let page = kenning_web::too_many_requests_page(retry_after(wait)).map_into_right_body();
    ServiceResponse::new(req, page)
}
