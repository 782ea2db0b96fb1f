//! Checking the credential a request presents.

use actix_web::web;
use kenning_domain::CredentialKind;
use kenning_ports::{Principal, ServiceError};

use crate::problem::Problem;
use crate::AppState;

/// The caller behind `secret`, a credential of `kind`; 401 with `refused`
/// as the message when it is unknown or revoked. The check reads storage,
/// so it runs on the blocking pool.
pub async fn check(
    state: &AppState,
    kind: CredentialKind,
    secret: String,
    refused: &str,
) -> Result<Principal, Problem> {
    let credentials = state.credentials.clone();
    match web::block(move || credentials.authenticate(kind, &secret)).await {
        Ok(Ok(principal)) => Ok(principal),
        Ok(Err(ServiceError::Unauthenticated)) => Err(Problem::unauthenticated(refused)),
        Ok(Err(e)) => Err(Problem::internal("checking a credential", &e)),
        Err(e) => Err(Problem::internal("checking a credential", &e)),
    }
}
