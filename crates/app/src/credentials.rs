//! Access tokens and connector API keys: issued, listed, revoked and checked.
//!
//! A secret looks like `kn_tok_<id>_<secret>` (access token) or
//! `kn_key_<id>_<secret>` (API key). The id finds the stored credential; the
//! secret part is stored only as its SHA-256 hash and compared in constant
//! time. The secret is 256 random bits, so a fast hash is enough: there is
//! nothing to guess.
//!
//! A successful check is remembered (by the credential's id, with the
//! secret's hash) for less than [`REVOCATION_DELAY`], so most requests are
//! authenticated without reading the store; a revocation made elsewhere is
//! therefore honoured at most that long after it was written, and one made
//! through the same service at once.

mod verified;

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use kenning_domain::{Actor, Attribution, CredentialKind, CredentialName, Lifetime, Scope, UserId};
use kenning_ports::{Clock, CredentialStore, StoredCredential};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::access::{Caller, Operation};
use crate::administrators::Administrators;
use crate::error::{Missing, ServiceError};
use crate::machine::Machine;
use verified::Verified;
pub use verified::{DEFAULT_CAPACITY, REVOCATION_DELAY};

/// What may be shown of a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    /// The credential's id, the part of its secret that finds it.
    pub id: Uuid,
    /// Access token or API key.
    pub kind: CredentialKind,
    /// The name it was issued under, as a [`CredentialName`] holds it.
    pub name: String,
    /// What it may do, sorted and without repeats; always empty for an API key.
    pub scopes: Vec<Scope>,
    /// When it was issued.
    pub created: DateTime<Utc>,
    /// When it was revoked, if it was; a revoked credential never authenticates
    /// again.
    pub revoked: Option<DateTime<Utc>>,
    /// The administrator who issued it in the web app, if one did; it is
    /// accepted only while they administer Kenning.
    pub issued_by: Option<UserId>,
    /// When it stops being accepted, if ever.
    pub expires: Option<DateTime<Utc>>,
}

impl From<StoredCredential> for Credential {
    fn from(c: StoredCredential) -> Self {
        Self {
            id: c.id,
            kind: c.kind,
            name: c.name,
            scopes: c.scopes,
            created: c.created,
            revoked: c.revoked,
            issued_by: c.issued_by,
            expires: c.expires,
        }
    }
}

/// A credential just issued, with the secret that is shown this once.
#[derive(Debug)]
pub struct IssuedCredential {
    /// The credential as it may be shown from now on.
    pub credential: Credential,
    /// The whole secret to present (`kn_tok_...` or `kn_key_...`); it is not
    /// stored and cannot be shown again.
    pub secret: String,
}

/// The kind of credential a presented secret is written as, by its
/// prefix (`kn_tok_` or `kn_key_`), whether or not it is valid: so that a
/// credential sent where the other kind belongs can be named as such.
pub fn kind_of_secret(presented: &str) -> Option<CredentialKind> {
    [CredentialKind::AccessToken, CredentialKind::ApiKey]
        .into_iter()
        .find(|kind| presented.starts_with(prefix(*kind)))
}

/// The id of the credential a secret of `kind` names (`kn_tok_<id>_...`
/// or `kn_key_<id>_...`), valid or not; `None` when it is not written as
/// one.
pub fn id_of_secret(kind: CredentialKind, presented: &str) -> Option<Uuid> {
    let rest = presented.trim().strip_prefix(prefix(kind))?;
    let (id, _) = rest.split_once('_')?;
    Uuid::try_parse(id).ok()
}

fn prefix(kind: CredentialKind) -> &'static str {
    match kind {
        CredentialKind::AccessToken => "kn_tok_",
        CredentialKind::ApiKey => "kn_key_",
    }
}

pub(crate) fn hash(secret: &str) -> String {
    let digest = Sha256::digest(secret.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn random_secret() -> Result<String, ServiceError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| ServiceError::Internal(format!("no randomness: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Issues, lists, revokes and checks credentials.
///
/// Clones share one memory of recent checks, so a revocation through any
/// clone takes effect at once on all of them.
#[derive(Clone)]
pub struct CredentialService {
    store: Arc<dyn CredentialStore>,
    clock: Arc<dyn Clock>,
    verified: Arc<Verified>,
    /// Who the credentials issued and revoked here are recorded as issued
    /// and revoked by.
    actor: Actor,
    /// Who calls: issuing, listing and revoking ask whether they may.
    caller: Caller,
    /// Who administers Kenning: a credential an administrator issued is
    /// accepted only while they do.
    administrators: Administrators,
}

impl std::fmt::Debug for CredentialService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialService")
            .field("actor", &self.actor)
            .finish_non_exhaustive()
    }
}

impl CredentialService {
    /// The service over `store`, stamping issue and revocation moments with
    /// `clock` and timing its memory of recent checks by it; that memory
    /// holds at most [`DEFAULT_CAPACITY`] credentials. What it issues and
    /// revokes is recorded as done by [`Actor::embedded`] until
    /// [`acting_as`](Self::acting_as) names someone; it serves the
    /// operator until [`Gate::called_by`](crate::Gate::called_by) names the caller.
    pub fn new(store: Arc<dyn CredentialStore>, clock: Arc<dyn Clock>) -> Self {
        Self {
            store,
            clock,
            verified: Arc::new(Verified::new(DEFAULT_CAPACITY)),
            actor: Actor::embedded(),
            caller: Caller::operator(),
            administrators: Administrators::nobody(),
        }
    }

    /// The same service (sharing its memory of recent checks), accepting
    /// a credential an administrator issued only while `administrators`
    /// counts them (nobody until given).
    #[must_use]
    pub fn with_administrators(self, administrators: Administrators) -> Self {
        if !self.caller.is_operator() {
            return self;
        }
        Self {
            administrators,
            ..self
        }
    }

    /// The same service (sharing its memory of recent checks) for
    /// `caller`: only an administrator (or the operator) manages
    /// credentials.
    pub(crate) fn called_by(&self, caller: Caller) -> Self {
        Self {
            caller,
            ..self.clone()
        }
    }

    /// The same service (sharing its memory of recent checks), what it
    /// issues and revokes recorded in the audit trail as done by `actor`.
    pub fn acting_as(&self, actor: Actor) -> Self {
        if !self.caller.is_operator() {
            return self.clone();
        }
        Self {
            actor,
            ..self.clone()
        }
    }

    /// The same service with a new, empty memory of recent checks holding
    /// at most `capacity` credentials; 0 reads the store on every check.
    #[must_use]
    pub fn with_cache_capacity(self, capacity: usize) -> Self {
        if !self.caller.is_operator() {
            return self;
        }
        Self {
            verified: Arc::new(Verified::new(capacity)),
            ..self
        }
    }

    fn prepare(
        &self,
        kind: CredentialKind,
        name: &str,
        scopes: &[Scope],
        lifetime: Option<Lifetime>,
    ) -> Result<(StoredCredential, String), ServiceError> {
        let name = CredentialName::parse(name)?;
        let mut scopes = match kind {
            CredentialKind::AccessToken => scopes.to_vec(),
            CredentialKind::ApiKey => Vec::new(),
        };
        scopes.sort();
        scopes.dedup();
        let id = Uuid::new_v4();
        let secret_part = random_secret()?;
        let secret = format!("{}{}_{}", prefix(kind), id.simple(), secret_part);
        let created = self.clock.now();
        let stored = StoredCredential {
            id,
            kind,
            name: name.as_str().to_owned(),
            scopes,
            secret_hash: hash(&secret_part),
            created,
            revoked: None,
            issued_by: self.caller.administrator(),
            expires: lifetime.map(|l| created + TimeDelta::days(i64::from(l.days()))),
        };
        Ok((stored, secret))
    }

    /// Issues a credential under `name` (a [`CredentialName`], else
    /// `ValidationError` on `name`), accepted for `lifetime` (ever when
    /// `None`). Access tokens carry `scopes`, or every scope the caller
    /// may issue ([`issuable_scopes`](Self::issuable_scopes)) when none is
    /// given; API keys carry none.
    ///
    /// Issued by an administrator in the web app, it records who issued it
    /// and is accepted only while they administer Kenning; a scope
    /// [issued at the command line only](Scope::is_issued_at_the_command_line_only)
    /// is then `Forbidden`, so that no administrator hands a token more
    /// than they may give.
    pub fn issue(
        &self,
        kind: CredentialKind,
        name: &str,
        scopes: &[Scope],
        lifetime: Option<Lifetime>,
    ) -> Result<IssuedCredential, ServiceError> {
        self.caller.require(Operation::ManageCredentials)?;
        if let Some(scope) = scopes.iter().find(|s| !self.may_issue(**s)) {
            return Err(ServiceError::Forbidden(format!(
                "a token with the scope {scope} is issued at the command line only"
            )));
        }
        // One default on every door: an access token asked without a
        // scope carries every scope its issuer may give.
        let every = self.issuable_scopes();
        let scopes = if scopes.is_empty() { &every } else { scopes };
        let (stored, secret) = self.prepare(kind, name, scopes, lifetime)?;
        let by = Attribution::new(self.actor.clone(), stored.created);
        self.store.insert(&stored, &by)?;
        Ok(IssuedCredential {
            credential: stored.into(),
            secret,
        })
    }

    /// The scopes this service's caller may issue a token with, in
    /// [`Scope::ALL`]'s order.
    pub fn issuable_scopes(&self) -> Vec<Scope> {
        Scope::ALL
            .into_iter()
            .filter(|scope| self.may_issue(*scope))
            .collect()
    }

    fn may_issue(&self, scope: Scope) -> bool {
        self.caller.is_operator() || !scope.is_issued_at_the_command_line_only()
    }

    /// On a store that has never held an access token, issues one with every
    /// scope and returns it; otherwise `None`.
    pub fn issue_first_admin_token(&self) -> Result<Option<IssuedCredential>, ServiceError> {
        self.caller.require(Operation::ManageCredentials)?;
        let (stored, secret) =
            self.prepare(CredentialKind::AccessToken, "admin", &Scope::ALL, None)?;
        let by = Attribution::new(self.actor.clone(), stored.created);
        if self.store.insert_first(&stored, &by)? {
            Ok(Some(IssuedCredential {
                credential: stored.into(),
                secret,
            }))
        } else {
            Ok(None)
        }
    }

    /// Every credential of `kind`, oldest first, revoked ones included; never a
    /// secret.
    pub fn list(&self, kind: CredentialKind) -> Result<Vec<Credential>, ServiceError> {
        self.caller.require(Operation::ManageCredentials)?;
        Ok(self
            .store
            .list(kind)?
            .into_iter()
            .map(Credential::from)
            .collect())
    }

    /// Revokes a credential; `NotFound` ([`Missing::Credential`]) if there is
    /// no such live credential of `kind`. This service (and its clones)
    /// refuses it from now on; other services on the same store within
    /// [`REVOCATION_DELAY`].
    pub fn revoke(&self, kind: CredentialKind, id: Uuid) -> Result<(), ServiceError> {
        self.caller.require(Operation::ManageCredentials)?;
        let by = Attribution::new(self.actor.clone(), self.clock.now());
        if self.store.revoke(kind, id, &by)? {
            self.verified.forget(kind, id);
            Ok(())
        } else {
            Err(ServiceError::NotFound(Missing::Credential))
        }
    }

    /// Checks a presented secret; `Unauthenticated` unless it is a live
    /// credential of `kind`: not revoked, not expired, and, when an
    /// administrator issued it, issued by someone who still administers
    /// Kenning.
    ///
    /// A credential that passed this check less than [`REVOCATION_DELAY`]
    /// ago (by the clock) with the same secret passes again without a read
    /// of the store, so a revocation another service wrote in the meantime
    /// takes effect only when that time is up. A refusal is never
    /// remembered: a new credential works at once.
    pub fn authenticate(
        &self,
        kind: CredentialKind,
        presented: &str,
    ) -> Result<Machine, ServiceError> {
        let rest = presented
            .strip_prefix(prefix(kind))
            .ok_or(ServiceError::Unauthenticated)?;
        let (id, secret_part) = rest.split_once('_').ok_or(ServiceError::Unauthenticated)?;
        let id = Uuid::try_parse(id).map_err(|_| ServiceError::Unauthenticated)?;
        let secret_hash = hash(secret_part);
        let now = self.clock.now();
        if let Some(machine) = self.verified.recall(kind, id, &secret_hash, now) {
            return Ok(machine);
        }
        // Taken before the read, so the memory's time runs from a moment
        // no later than the state the store answers with.
        let ticket = self.verified.ticket(now);
        let stored = self
            .store
            .find(kind, id)?
            .ok_or(ServiceError::Unauthenticated)?;
        let matches: bool = secret_hash
            .as_bytes()
            .ct_eq(stored.secret_hash.as_bytes())
            .into();
        if !matches || stored.revoked.is_some() || stored.expires.is_some_and(|at| at <= now) {
            return Err(ServiceError::Unauthenticated);
        }
        if let Some(issuer) = stored.issued_by {
            if !self.administrators.administers_id(issuer)? {
                return Err(ServiceError::Unauthenticated);
            }
        }
        let machine = Machine::checked(kind, stored.id, stored.name, stored.scopes);
        self.verified
            .remember(kind, id, secret_hash, machine.clone(), ticket);
        Ok(machine)
    }
}

#[cfg(test)]
mod tests {
    use kenning_clock::ManualClock;
    use kenning_store_memory::MemoryStore;

    use super::*;

    fn service() -> CredentialService {
        CredentialService::new(
            Arc::new(MemoryStore::new()),
            Arc::new(ManualClock::new(DateTime::<Utc>::UNIX_EPOCH)),
        )
    }

    #[test]
    fn revoking_an_unknown_credential_says_no_credential_has_the_id() {
        let credentials = service();
        let error = credentials
            .revoke(CredentialKind::AccessToken, Uuid::nil())
            .unwrap_err();
        assert_eq!(error, ServiceError::NotFound(Missing::Credential));
        assert_eq!(error.code(), "NotFound");
        assert_eq!(error.to_string(), "no live credential has this id");
    }

    #[test]
    fn a_name_with_a_control_character_is_refused() {
        let credentials = service();
        for kind in [CredentialKind::AccessToken, CredentialKind::ApiKey] {
            let error = credentials
                .issue(kind, "report\u{7}ing", &Scope::ALL, None)
                .unwrap_err();
            assert_eq!(error.code(), "ValidationError");
            let ServiceError::Validation(errors) = error else {
                panic!("a validation error")
            };
            assert_eq!(errors.first().field, "name");
            assert_eq!(errors.first().rule, kenning_domain::Rule::ControlCharacter);
            assert!(credentials.list(kind).unwrap().is_empty());
        }
    }

    #[test]
    fn a_token_id_is_not_found_among_api_keys() {
        let credentials = service();
        let token = credentials
            .issue(CredentialKind::AccessToken, "reporting", &Scope::ALL, None)
            .unwrap();
        assert_eq!(
            credentials.revoke(CredentialKind::ApiKey, token.credential.id),
            Err(ServiceError::NotFound(Missing::Credential))
        );
    }
}
