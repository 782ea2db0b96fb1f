//! Checking the credential a request presents, under the rate limits.

use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use kenning_app::{Principal, ServiceError};
use kenning_domain::CredentialKind;

use crate::problem::{Problem, RequestCode};
use crate::throttle::client_key;
use crate::AppState;

/// The caller behind `presented`, a credential of `kind` (or the 401 of a
/// request that presents none usable); 401 with `refused` as the message
/// when it is unknown or revoked.
///
/// Every 401 counts against the client's address; an address that failed
/// too often gets 429 without its credential being looked at, so secrets
/// cannot be guessed at speed. A known credential that sends requests
/// faster than its rate gets 429 too. The check reads storage unless the
/// credential passed it lately, so it runs on the blocking pool.
pub async fn check(
    req: &HttpRequest,
    state: &AppState,
    kind: CredentialKind,
    presented: Result<String, Problem>,
    refused: &str,
) -> Result<Principal, Problem> {
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
        Ok(principal) => {
            if let Some(requests) = &state.throttle.requests {
                requests
                    .admit(principal.credential_id, Instant::now())
                    .map_err(|wait| too_many("this credential sends requests too fast", wait))?;
            }
            Ok(principal)
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
) -> Result<Principal, Problem> {
    let credentials = state.credentials.clone();
    match web::block(move || credentials.authenticate(kind, &secret)).await {
        Ok(Ok(principal)) => Ok(principal),
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
