//! Where access tokens and connector API keys are kept.
//!
//! A credential is stored with the SHA-256 hash of its secret part, never
//! the secret itself; issuing and checking secrets is the application's
//! work (`kenning-app`'s `CredentialService`).

use chrono::{DateTime, Utc};
use kenning_domain::{Attribution, CredentialKind, Scope, UserId};
use uuid::Uuid;

use crate::errors::StoreError;

/// A credential as stored: never the secret, only its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCredential {
    /// The credential's id, the part of its secret that finds it.
    pub id: Uuid,
    /// Access token or API key.
    pub kind: CredentialKind,
    /// The name it was issued under.
    pub name: String,
    /// What it may do; empty for an API key.
    pub scopes: Vec<Scope>,
    /// Lower-case hex SHA-256 of the secret part.
    pub secret_hash: String,
    /// When it was issued.
    pub created: DateTime<Utc>,
    /// When it was revoked, if it was.
    pub revoked: Option<DateTime<Utc>>,
    /// The administrator who issued it in the web app, if one did (`None`:
    /// the command line or Kenning itself).
    pub issued_by: Option<UserId>,
    /// When it stops being accepted, if ever.
    pub expires: Option<DateTime<Utc>>,
}

/// Where credentials live. Issuing and revoking record
/// [`kenning_domain::credential_issued`] and
/// [`kenning_domain::credential_revoked`] in the audit trail
/// ([`crate::AuditTrail`]) in the same atomic step.
pub trait CredentialStore: Send + Sync {
    /// Stores a new credential, issued as `by` says.
    fn insert(&self, credential: &StoredCredential, by: &Attribution) -> Result<(), StoreError>;

    /// Stores `credential` only if no credential of its kind was ever
    /// stored, atomically; returns whether it did. At most one credential
    /// is ever stored this way per kind, even when processes race.
    fn insert_first(
        &self,
        credential: &StoredCredential,
        by: &Attribution,
    ) -> Result<bool, StoreError>;

    /// The credential of `kind` with `id`, revoked or not.
    fn find(&self, kind: CredentialKind, id: Uuid) -> Result<Option<StoredCredential>, StoreError>;

    /// Every credential of the kind, oldest first, revoked ones included.
    fn list(&self, kind: CredentialKind) -> Result<Vec<StoredCredential>, StoreError>;

    /// Marks the credential revoked as `by` says (at `by.at`); false if
    /// there is no such credential or it was revoked already.
    fn revoke(&self, kind: CredentialKind, id: Uuid, by: &Attribution) -> Result<bool, StoreError>;
}
