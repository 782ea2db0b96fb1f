//! The credential store ([`CredentialStore`]) kept by every store alike:
//! a credential is found by its kind and id, listed oldest first and
//! revoked once; at most one first credential of a kind is ever stored,
//! even when processes race.

use std::sync::Arc;

use chrono::Duration;
use kenning_domain::{CredentialKind, UserId};
use kenning_ports::{CredentialStore, StoredCredential};
use kenning_test_macros::contract_check;
use uuid::Uuid;

use super::{adapters, by, by_at, credential, now, Store};

#[contract_check]
fn credentials_are_stored_listed_and_revoked(store: Arc<impl Store>) {
    // Issued in the console: by whom, and until when, are kept as given.
    let second = StoredCredential {
        issued_by: Some(UserId::from_uuid(Uuid::new_v4())),
        expires: Some(now() + Duration::days(90)),
        ..credential(CredentialKind::AccessToken, "second", 2)
    };
    let first = credential(CredentialKind::AccessToken, "first", 1);
    let key = credential(CredentialKind::ApiKey, "crm", 3);
    for c in [&second, &first, &key] {
        CredentialStore::insert(&*store, c, &by()).unwrap();
    }
    assert_eq!(
        store.find(CredentialKind::AccessToken, first.id).unwrap(),
        Some(first.clone())
    );
    // A secret of one kind is never found as the other.
    assert_eq!(store.find(CredentialKind::ApiKey, first.id).unwrap(), None);
    assert_eq!(
        store.list(CredentialKind::AccessToken).unwrap(),
        vec![first.clone(), second.clone()]
    );
    assert_eq!(
        store.list(CredentialKind::ApiKey).unwrap(),
        vec![key.clone()]
    );

    let at = now() + Duration::hours(1);
    assert!(store
        .revoke(CredentialKind::AccessToken, first.id, &by_at(at))
        .unwrap());
    assert!(!store
        .revoke(CredentialKind::AccessToken, first.id, &by_at(at))
        .unwrap());
    assert!(!store
        .revoke(CredentialKind::ApiKey, second.id, &by_at(at))
        .unwrap());
    assert_eq!(
        store
            .find(CredentialKind::AccessToken, first.id)
            .unwrap()
            .unwrap()
            .revoked,
        Some(at)
    );
}

#[contract_check]
fn only_one_first_credential_is_ever_stored(store: Arc<impl Store>) {
    let results: Vec<bool> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let store = store.clone();
                s.spawn(move || {
                    store
                        .insert_first(&credential(CredentialKind::AccessToken, "admin", i), &by())
                        .unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        results.iter().filter(|stored| **stored).count(),
        1,
        "{results:?}"
    );
    assert_eq!(store.list(CredentialKind::AccessToken).unwrap().len(), 1);
    // Other kinds are counted on their own.
    assert!(store
        .insert_first(&credential(CredentialKind::ApiKey, "k", 0), &by())
        .unwrap());

    let revoked_all = store.list(CredentialKind::AccessToken).unwrap();
    for c in revoked_all {
        store.revoke(c.kind, c.id, &by_at(now())).unwrap();
    }
    assert!(!store
        .insert_first(&credential(CredentialKind::AccessToken, "again", 9), &by())
        .unwrap());
}
