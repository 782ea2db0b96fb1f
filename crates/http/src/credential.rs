//! Checking the credential a request presents, under the rate limits: the
//! access token of `Authorization: Bearer` (GraphQL, SCIM) and the API key
//! of the `APIKEY` header (the connector API), each refused with a message
//! that says which of the two was sent where the other belongs.

use std::time::{Duration, Instant};

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest};
use kenning_app::{kind_of_secret, Machine, ServiceError};
use kenning_domain::CredentialKind;

use crate::codes::RequestCode;
use crate::problem::Problem;
use crate::state::AppState;
use crate::throttle::client_key;

/// The header a connector sends its API key in.
pub const API_KEY_HEADER: &str = "APIKEY";

/// The caller behind `Authorization: Bearer <token>`: an access token.
pub async fn bearer(req: &HttpRequest, state: &AppState) -> Result<Machine, Problem> {
    let token = match req.headers().get(header::AUTHORIZATION) {
        None => Err(Problem::unauthenticated(
            "send an access token as Authorization: Bearer <token>",
        )),
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim().to_owned())
            .ok_or_else(|| {
                Problem::unauthenticated("the Authorization header must read Bearer <token>")
            }),
    };
    let refused = match &token {
        Ok(secret) if kind_of_secret(secret) == Some(CredentialKind::ApiKey) => {
            "a connector API key was sent as the Bearer token: GraphQL needs an access token \
             (kenning token create); API keys are for the connector API"
        }
        _ => "the access token is unknown or revoked",
    };
    check(req, state, CredentialKind::AccessToken, token, refused).await
}

/// The connector behind the `APIKEY` header: only connector keys pass,
/// never access tokens.
pub async fn api_key(req: &HttpRequest, state: &AppState) -> Result<Machine, Problem> {
    const REFUSED: &str = "the API key is unknown or revoked";
    let key = match req.headers().get(API_KEY_HEADER) {
        None => Err(Problem::unauthenticated(
            "send the connector's API key in the APIKEY header",
        )),
        Some(value) => value
            .to_str()
            .map(|v| v.trim().to_owned())
            .map_err(|_| Problem::unauthenticated(REFUSED)),
    };
    let refused = match &key {
        Ok(secret) if kind_of_secret(secret) == Some(CredentialKind::AccessToken) => {
            "an access token was sent in the APIKEY header: connectors authenticate with an \
             API key (kenning apikey create); access tokens are for GraphQL"
        }
        _ => REFUSED,
    };
    check(req, state, CredentialKind::ApiKey, key, refused).await
}

/// The caller behind `presented`, a credential of `kind` (or the 401 of a
/// request that presents none usable); 401 with `refused` as the message
/// when it is unknown or revoked.
///
/// Every 401 counts against the client's address; an address that failed
/// too often gets 429 without its credential being looked at, so secrets
/// cannot be guessed at speed. A known credential that sends requests
/// faster than its rate gets 429 too. The check reads storage unless the
/// credential passed it lately, so it runs on the blocking pool.
async fn check(
    req: &HttpRequest,
    state: &AppState,
    kind: CredentialKind,
    presented: Result<String, Problem>,
    refused: &str,
) -> Result<Machine, Problem> {
    let client = state.config.trusted_proxies.client_of(req).map(client_key);
    if let (Some(failures), Some(client)) = (&state.throttle.failures, client) {
        failures
            .check(client, Instant::now())
            .map_err(|wait| too_many("authentication failed too often from this address", wait))?;
    }
    let outcome = match presented {
        Ok(secret) => verify(state, kind, secret, refused).await,
        Err(problem) => Err(problem),
    };
    match outcome {
        Ok(machine) => {
            if let Some(requests) = &state.throttle.requests {
                requests
                    .admit(machine.credential_id(), Instant::now())
                    .map_err(|wait| too_many("this credential sends requests too fast", wait))?;
            }
            Ok(machine)
        }
        Err(problem) => {
            if problem.status == StatusCode::UNAUTHORIZED {
                if let (Some(failures), Some(client)) = (&state.throttle.failures, client) {
                    // A failure beyond the limit is already answered 401;
                    // the next request from the address gets the 429.
                    let _ = failures.admit(client, Instant::now());
                }
            }
            Err(problem)
        }
    }
}

async fn verify(
    state: &AppState,
    kind: CredentialKind,
    secret: String,
    refused: &str,
) -> Result<Machine, Problem> {
    let gate = state.gate.clone();
    match web::block(move || gate.authenticate(kind, &secret)).await {
        Ok(Ok(machine)) => Ok(machine),
        Ok(Err(ServiceError::Unauthenticated)) => Err(Problem::unauthenticated(refused)),
        Ok(Err(e)) => Err(Problem::internal("checking a credential", &e.log_message())),
        Err(e) => Err(Problem::internal("checking a credential", &e)),
    }
}

/// 429, with `Retry-After` in whole seconds (rounded up).
fn too_many(message: &str, wait: Duration) -> Problem {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut problem = Problem::refusal(
        RequestCode::TooManyRequests,
        format!("{message}: retry in {seconds} s"),
    );
    problem.retry_after = Some(seconds.max(1));
    problem
}
