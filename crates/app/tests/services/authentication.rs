//! `CredentialService::authenticate` and `Machine::require`: only a live
//! credential of the kind asked for, presented whole, lets a caller in,
//! with the scopes it was issued with.

use chrono::Duration;
use kenning_app::{CredentialService, IssuedCredential, ServiceError};
use kenning_domain::{CredentialKind, Scope};
use uuid::Uuid;

use super::world;

fn service() -> CredentialService {
    let (store, clock) = world();
    CredentialService::new(store, clock)
}

/// A new access token named `reporting` with `scopes`.
fn token(credentials: &CredentialService, scopes: &[Scope]) -> IssuedCredential {
    credentials
        .issue(CredentialKind::AccessToken, "reporting", scopes, None)
        .unwrap()
}

/// A new API key named `crawler`, asked for with `scopes`.
fn api_key(credentials: &CredentialService, scopes: &[Scope]) -> IssuedCredential {
    credentials
        .issue(CredentialKind::ApiKey, "crawler", scopes, None)
        .unwrap()
}

#[test]
fn a_live_token_names_its_credential_and_scopes() {
    let credentials = service();
    let issued = token(
        &credentials,
        &[Scope::UsersWrite, Scope::UsersRead, Scope::UsersRead],
    );
    let machine = credentials
        .authenticate(CredentialKind::AccessToken, &issued.secret)
        .unwrap();
    assert_eq!(machine.credential_id(), issued.credential.id);
    assert_eq!(machine.name(), "reporting");
    assert_eq!(machine.scopes(), [Scope::UsersRead, Scope::UsersWrite]);
    assert_eq!(machine.require(Scope::UsersWrite), Ok(()));
}

#[test]
fn a_scope_the_token_lacks_is_forbidden() {
    let credentials = service();
    let issued = token(&credentials, &[Scope::UsersRead]);
    let machine = credentials
        .authenticate(CredentialKind::AccessToken, &issued.secret)
        .unwrap();
    let refused = machine.require(Scope::UsersWrite).unwrap_err();
    assert_eq!(refused.code(), "Forbidden");
    assert_eq!(
        refused.to_string(),
        format!("this operation needs the scope {}", Scope::UsersWrite)
    );
}

#[test]
fn an_api_key_carries_no_scope() {
    let credentials = service();
    let key = api_key(&credentials, &Scope::ALL);
    assert!(key.secret.starts_with("kn_key_"));
    let machine = credentials
        .authenticate(CredentialKind::ApiKey, &key.secret)
        .unwrap();
    assert_eq!(machine.credential_id(), key.credential.id);
    assert!(machine.scopes().is_empty());
    assert!(machine.require(Scope::UsersRead).is_err());
}

#[test]
fn a_secret_of_the_other_kind_is_refused() {
    let credentials = service();
    let issued = token(&credentials, &Scope::ALL);
    let key = api_key(&credentials, &[]);
    assert_eq!(
        credentials.authenticate(CredentialKind::ApiKey, &issued.secret),
        Err(ServiceError::Unauthenticated)
    );
    assert_eq!(
        credentials.authenticate(CredentialKind::AccessToken, &key.secret),
        Err(ServiceError::Unauthenticated)
    );
    // The other kind's prefix on a real id and secret is not enough either.
    let relabelled = issued.secret.replacen("kn_tok_", "kn_key_", 1);
    assert_eq!(
        credentials.authenticate(CredentialKind::ApiKey, &relabelled),
        Err(ServiceError::Unauthenticated)
    );
}

#[test]
fn unknown_and_malformed_secrets_are_refused() {
    let credentials = service();
    let issued = token(&credentials, &Scope::ALL);
    let (id_part, secret_part) = issued
        .secret
        .strip_prefix("kn_tok_")
        .unwrap()
        .split_once('_')
        .unwrap();
    let never_issued = format!("kn_tok_{}_{secret_part}", Uuid::new_v4().simple());
    let wrong_secret = format!("kn_tok_{id_part}_{}", "0".repeat(secret_part.len()));
    for presented in [
        never_issued.as_str(),
        wrong_secret.as_str(),
        &format!("kn_tok_{id_part}"),
        &format!("kn_tok_not-a-uuid_{secret_part}"),
        &issued.secret[1..],
        "",
    ] {
        assert_eq!(
            credentials.authenticate(CredentialKind::AccessToken, presented),
            Err(ServiceError::Unauthenticated),
            "{presented}"
        );
    }
}

#[test]
fn a_revoked_credential_never_authenticates_again() {
    let (store, clock) = world();
    let credentials = CredentialService::new(store, clock.clone());
    let issued = token(&credentials, &Scope::ALL);
    let other = token(&credentials, &Scope::ALL);
    clock.advance(Duration::hours(1));
    credentials
        .revoke(CredentialKind::AccessToken, issued.credential.id)
        .unwrap();

    assert_eq!(
        credentials.authenticate(CredentialKind::AccessToken, &issued.secret),
        Err(ServiceError::Unauthenticated)
    );
    assert!(credentials
        .authenticate(CredentialKind::AccessToken, &other.secret)
        .is_ok());
    let listed = credentials.list(CredentialKind::AccessToken).unwrap();
    let revoked = listed
        .iter()
        .find(|c| c.id == issued.credential.id)
        .unwrap();
    assert_eq!(revoked.revoked, Some(super::start() + Duration::hours(1)));
}
