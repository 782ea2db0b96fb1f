//! `CredentialService` remembers the credentials it verified lately: a
//! check it made less than `REVOCATION_DELAY` ago answers without reading
//! the store, a revocation through it takes effect at once, one made
//! elsewhere within that delay, and the memory stays bounded.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use chrono::Duration;
use kenning_app::{CredentialService, IssuedCredential, ServiceError, REVOCATION_DELAY};
use kenning_clock::ManualClock;
use kenning_domain::{Attribution, CredentialKind, Scope};
use kenning_ports::{CredentialStore, StoreError, StoredCredential};
use kenning_store_memory::MemoryStore;
use uuid::Uuid;

use super::world;

/// The in-memory store, counting how often a credential is read and
/// running `after_read` (once) between the first read and its answer.
#[derive(Default)]
struct Watched {
    inner: MemoryStore,
    reads: AtomicUsize,
    after_read: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

impl Watched {
    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }
}

impl CredentialStore for Watched {
    fn insert(&self, credential: &StoredCredential, by: &Attribution) -> Result<(), StoreError> {
        self.inner.insert(credential, by)
    }

    fn insert_first(
        &self,
        credential: &StoredCredential,
        by: &Attribution,
    ) -> Result<bool, StoreError> {
        self.inner.insert_first(credential, by)
    }

    fn find(&self, kind: CredentialKind, id: Uuid) -> Result<Option<StoredCredential>, StoreError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        let found = self.inner.find(kind, id);
        let hook = self.after_read.lock().unwrap().take();
        if let Some(hook) = hook {
            hook();
        }
        found
    }

    fn list(&self, kind: CredentialKind) -> Result<Vec<StoredCredential>, StoreError> {
        self.inner.list(kind)
    }

    fn revoke(&self, kind: CredentialKind, id: Uuid, by: &Attribution) -> Result<bool, StoreError> {
        self.inner.revoke(kind, id, by)
    }
}

/// A watched store, a service over it and the clock it runs on.
fn watched() -> (Arc<Watched>, CredentialService, Arc<ManualClock>) {
    let (_, clock) = world();
    let store = Arc::new(Watched::default());
    let credentials = CredentialService::new(store.clone(), clock.clone());
    (store, credentials, clock)
}

fn token(credentials: &CredentialService) -> IssuedCredential {
    credentials
        .issue(CredentialKind::AccessToken, "reporting", &Scope::ALL, None)
        .unwrap()
}

fn accepts(credentials: &CredentialService, issued: &IssuedCredential) -> bool {
    match credentials.authenticate(issued.credential.kind, &issued.secret) {
        Ok(machine) => {
            assert_eq!(machine.credential_id(), issued.credential.id);
            true
        }
        Err(ServiceError::Unauthenticated) => false,
        Err(e) => panic!("checking a credential failed: {e}"),
    }
}

#[test]
fn a_credential_checked_lately_is_not_read_again() {
    let (store, credentials, clock) = watched();
    let issued = token(&credentials);
    let key = credentials
        .issue(CredentialKind::ApiKey, "crawler", &[], None)
        .unwrap();
    assert!(accepts(&credentials, &issued));
    assert!(accepts(&credentials, &key));
    assert_eq!(store.reads(), 2);

    clock.advance(REVOCATION_DELAY - Duration::microseconds(1));
    for _ in 0..10 {
        assert!(accepts(&credentials, &issued));
        assert!(accepts(&credentials.clone(), &key));
    }
    assert_eq!(store.reads(), 2, "every check after the first from memory");

    // Then the store is asked again, and the answer trusted anew.
    clock.advance(Duration::microseconds(1));
    assert!(accepts(&credentials, &issued));
    assert!(accepts(&credentials, &issued));
    assert_eq!(store.reads(), 3);
}

#[test]
fn a_revocation_elsewhere_is_honoured_within_the_delay() {
    let (store, credentials, clock) = watched();
    // Another instance, or the command line, on the same database.
    let elsewhere = CredentialService::new(store.clone(), clock.clone());
    let issued = token(&credentials);
    assert!(accepts(&credentials, &issued));
    elsewhere
        .revoke(CredentialKind::AccessToken, issued.credential.id)
        .unwrap();
    assert!(!accepts(&elsewhere, &issued));

    // What this instance verified before the revocation holds no longer
    // than the delay, counted from before its read of the store.
    clock.advance(REVOCATION_DELAY - Duration::microseconds(1));
    assert!(accepts(&credentials, &issued));
    clock.advance(Duration::microseconds(1));
    assert!(!accepts(&credentials, &issued));
    assert!(!accepts(&credentials, &issued));
}

#[test]
fn a_revocation_through_the_service_is_honoured_at_once_by_every_clone() {
    let (_, credentials, _) = watched();
    let worker = credentials.clone();
    let issued = token(&credentials);
    assert!(accepts(&credentials, &issued));
    assert!(accepts(&worker, &issued));
    credentials
        .revoke(CredentialKind::AccessToken, issued.credential.id)
        .unwrap();
    assert!(!accepts(&credentials, &issued));
    assert!(!accepts(&worker, &issued));
}

#[test]
fn a_check_under_way_during_a_revocation_is_not_remembered() {
    let (store, credentials, _) = watched();
    let issued = token(&credentials);
    let revoker = credentials.clone();
    let id = issued.credential.id;
    // The revocation lands after the check read the credential, so the
    // check still answers yes, but must not keep that answer.
    *store.after_read.lock().unwrap() = Some(Box::new(move || {
        revoker.revoke(CredentialKind::AccessToken, id).unwrap();
    }));
    assert!(accepts(&credentials, &issued));
    assert!(!accepts(&credentials, &issued));
}

#[test]
fn a_wrong_secret_is_refused_and_refusals_are_not_remembered() {
    let (store, credentials, _) = watched();
    let issued = token(&credentials);
    assert!(accepts(&credentials, &issued));
    // The remembered id with the last digit of its secret changed.
    let mut wrong = issued.secret.clone();
    let last = wrong.pop();
    wrong.push(if last == Some('0') { '1' } else { '0' });
    let as_key = issued.secret.replacen("kn_tok_", "kn_key_", 1);
    let reads = store.reads();
    for (kind, presented) in [
        (CredentialKind::AccessToken, &wrong),
        (CredentialKind::AccessToken, &wrong),
        (CredentialKind::ApiKey, &as_key),
    ] {
        let refused = credentials.authenticate(kind, presented);
        assert_eq!(refused, Err(ServiceError::Unauthenticated), "{presented}");
    }
    assert_eq!(store.reads(), reads + 3, "each refusal asks the store");
    // The right secret is still remembered.
    assert!(accepts(&credentials, &issued));
    assert_eq!(store.reads(), reads + 3);
}

#[test]
fn a_clock_set_back_does_not_stretch_what_is_remembered() {
    let (store, credentials, clock) = watched();
    let issued = token(&credentials);
    assert!(accepts(&credentials, &issued));
    clock.advance(-Duration::hours(1));
    assert!(accepts(&credentials, &issued));
    assert_eq!(store.reads(), 2);
}

#[test]
fn the_memory_is_bounded() {
    let (store, credentials, clock) = watched();
    let credentials = credentials.with_cache_capacity(2);
    let [first, second, third] = [(); 3].map(|()| token(&credentials));
    for issued in [&first, &second, &third] {
        assert!(accepts(&credentials, issued));
        clock.advance(Duration::milliseconds(1));
    }
    assert_eq!(store.reads(), 3);
    // The third pushed the oldest out; the two newest stay.
    assert!(accepts(&credentials, &second));
    assert!(accepts(&credentials, &third));
    assert_eq!(store.reads(), 3);
    assert!(accepts(&credentials, &first));
    assert_eq!(store.reads(), 4);

    let forgetful = credentials.with_cache_capacity(0);
    assert!(accepts(&forgetful, &first));
    assert!(accepts(&forgetful, &first));
    assert_eq!(store.reads(), 6);
}
