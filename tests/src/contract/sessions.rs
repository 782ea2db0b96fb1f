//! Sign-in links and sessions, kept by every store alike: a link signs in
//! once and not after it expires; a session is found by its secret's hash
//! until it is ended, and its start and end are in the audit trail, where
//! they name nobody once the person is forgotten or anonymized.

use std::sync::Arc;

use chrono::Duration;
use kenning_domain::{
    Actor, Attribution, AuditEntry, ChangeKind, SignInMethod, Subscription, SubscriptionState,
    UserId,
};
use kenning_ports::{
    AuditQuery, Redemption, StoredLink, StoredSession, TopicListChange, UserStore,
};
use kenning_test_macros::contract_check;
use uuid::Uuid;

use super::{adapters, by, by_at, new_user, now, Store};

fn link(secret_hash: &str, user: UserId, minutes: i64) -> StoredLink {
    StoredLink {
        secret_hash: secret_hash.to_owned(),
        user,
        created: now(),
        expires: now() + Duration::minutes(minutes),
    }
}

#[contract_check]
fn a_link_signs_in_once_and_not_after_it_expires(store: Arc<impl Store>) {
    let ada = UserId::from_uuid(Uuid::new_v4());
    store.insert_link(&link("aaa", ada, 15)).unwrap();
    store.insert_link(&link("bbb", ada, 15)).unwrap();
    assert_eq!(
        store.redeem_link("aaa", now()).unwrap(),
        Redemption::Redeemed(ada)
    );
    assert_eq!(store.redeem_link("aaa", now()).unwrap(), Redemption::Used);
    assert_eq!(
        store
            .redeem_link("bbb", now() + Duration::minutes(15))
            .unwrap(),
        Redemption::Expired
    );
    assert_eq!(
        store.redeem_link("ccc", now()).unwrap(),
        Redemption::Unknown
    );
}

#[contract_check]
fn two_redemptions_of_one_link_at_once_sign_in_once(store: Arc<impl Store>) {
    let ada = UserId::from_uuid(Uuid::new_v4());
    store.insert_link(&link("raced", ada, 15)).unwrap();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let store = store.clone();
            std::thread::spawn(move || store.redeem_link("raced", now()).unwrap())
        })
        .collect();
    let outcomes: Vec<Redemption> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let won = outcomes
        .iter()
        .filter(|o| matches!(o, Redemption::Redeemed(_)))
        .count();
    assert_eq!(won, 1, "{outcomes:?}");
}

#[contract_check]
fn a_session_lasts_until_it_is_ended_and_both_are_audited(store: Arc<impl Store>) {
    let ada = UserId::from_uuid(Uuid::new_v4());
    let session = StoredSession {
        id: Uuid::new_v4(),
        secret_hash: "cookie-hash".to_owned(),
        user: ada,
        method: SignInMethod::Oidc,
        csrf: "token".to_owned(),
        created: now(),
        last_seen: now(),
    };
    let by = Attribution::new(Actor::person(ada.as_uuid()), now());
    store.open_session(&session, &by).unwrap();
    assert_eq!(store.session("cookie-hash").unwrap(), Some(session.clone()));
    assert_eq!(store.session("other").unwrap(), None);

    let later = now() + Duration::minutes(5);
    store.touch_session(session.id, later).unwrap();
    // A touch never moves the last use back.
    store.touch_session(session.id, now()).unwrap();
    assert_eq!(
        store.session("cookie-hash").unwrap().unwrap().last_seen,
        later
    );

    assert!(store.end_session(session.id, &by).unwrap());
    assert_eq!(store.session("cookie-hash").unwrap(), None);
    assert!(!store.end_session(session.id, &by).unwrap());

    let entries = store
        .audit_entries(
            &AuditQuery {
                resource_id: Some(ada.as_uuid()),
                ..AuditQuery::default()
            },
            10,
        )
        .unwrap();
    let kinds: Vec<&str> = entries.iter().map(|e| e.change.kind.as_str()).collect();
    assert_eq!(kinds, ["user.signed_out", "user.signed_in"]);
    assert_eq!(entries[1].change.fields, ["oidc"]);
    assert_eq!(entries[1].actor, Actor::person(ada.as_uuid()));
}

#[contract_check]
fn pruning_forgets_what_can_no_longer_sign_in(store: Arc<impl Store>) {
    let ada = UserId::from_uuid(Uuid::new_v4());
    let session = |hash: &str, created_hours: i64, seen_hours: i64| StoredSession {
        id: Uuid::new_v4(),
        secret_hash: hash.to_owned(),
        user: ada,
        method: SignInMethod::Link,
        csrf: "t".to_owned(),
        created: now() - Duration::hours(created_hours),
        last_seen: now() - Duration::hours(seen_hours),
    };
    let by = Attribution::new(Actor::person(ada.as_uuid()), now());
    for s in [
        session("live", 1, 0),
        session("idle", 10, 9),
        session("old", 200, 1),
    ] {
        store.open_session(&s, &by).unwrap();
    }
    store.insert_link(&link("fresh", ada, 15)).unwrap();
    store.insert_link(&link("stale", ada, -60)).unwrap();
    let pruned = store
        .prune_sessions(
            now() - Duration::hours(8),
            now() - Duration::days(7),
            now() - Duration::minutes(30),
        )
        .unwrap();
    assert_eq!(pruned, 3);
    assert!(store.session("live").unwrap().is_some());
    assert!(store.session("idle").unwrap().is_none());
    assert!(store.session("old").unwrap().is_none());
    assert_eq!(
        store.redeem_link("stale", now()).unwrap(),
        Redemption::Unknown
    );
    assert_eq!(
        store.redeem_link("fresh", now()).unwrap(),
        Redemption::Redeemed(ada)
    );
}

/// Every sign-in and sign-out in the trail, oldest first.
fn uses<S: Store + ?Sized>(store: &S) -> Vec<AuditEntry> {
    let mut all = store
        .audit_entries(
            &AuditQuery {
                kinds: vec![ChangeKind::UserSignedIn, ChangeKind::UserSignedOut],
                ..AuditQuery::default()
            },
            1_000,
        )
        .unwrap();
    all.reverse();
    all
}

#[contract_check]
fn a_persons_sign_ins_and_outs_name_nobody_once_she_is_forgotten_or_anonymized(
    store: Arc<impl Store>,
) {
    let hook = Subscription {
        id: Uuid::new_v4(),
        url: "https://hooks.example/kenning".to_owned(),
        kinds: vec![ChangeKind::UserSignedIn],
        secret: "whsec_1".to_owned(),
        created: now(),
        state: SubscriptionState::Active,
    };
    store.insert_subscription(&hook).unwrap();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Baker", None);
    for user in [&ada, &bob] {
        UserStore::insert(&*store, user, &by()).unwrap();
    }
    let as_person = |user: &kenning_domain::User, minutes: i64| {
        Attribution::new(
            Actor::person(user.id().as_uuid()),
            now() + Duration::minutes(minutes),
        )
    };
    let visit = |user: &kenning_domain::User, minutes: i64, ends: bool| {
        let session = StoredSession {
            id: Uuid::new_v4(),
            secret_hash: Uuid::new_v4().to_string(),
            user: user.id(),
            method: SignInMethod::Link,
            csrf: "t".to_owned(),
            created: now() + Duration::minutes(minutes),
            last_seen: now() + Duration::minutes(minutes),
        };
        store
            .open_session(&session, &as_person(user, minutes))
            .unwrap();
        if ends {
            assert!(store
                .end_session(session.id, &as_person(user, minutes + 1))
                .unwrap());
        }
    };
    visit(&ada, 1, true);
    visit(&bob, 2, true);
    visit(&ada, 3, false);
    assert_eq!(
        store
            .set_hidden(ada.id(), &["helm"], true, 10, &as_person(&ada, 4))
            .unwrap(),
        TopicListChange::Changed
    );
    let before = uses(&*store);
    assert_eq!(before.len(), 5);

    // Forgetting her: her sign-ins and sign-outs so far name nobody;
    // what was done to her or by her keeps naming her; Bob's stay his.
    assert!(store
        .forget(ada.id(), &by_at(now() + Duration::minutes(5)))
        .unwrap());
    let expected: Vec<AuditEntry> = before
        .iter()
        .map(|e| {
            if e.records_use_by(ada.id().as_uuid()) {
                e.clone().anonymized()
            } else {
                e.clone()
            }
        })
        .collect();
    assert_eq!(uses(&*store), expected);
    let hers = store
        .audit_entries(
            &AuditQuery {
                resource_id: Some(ada.id().as_uuid()),
                ..AuditQuery::default()
            },
            100,
        )
        .unwrap();
    let kinds: Vec<&str> = hers.iter().map(|e| e.change.kind.as_str()).collect();
    assert_eq!(kinds, ["user.forgotten", "user.updated", "user.created"]);
    assert_eq!(hers[1].actor, Actor::person(ada.id().as_uuid()));

    // Signing in again is recorded as hers, until she is anonymized.
    visit(&ada, 6, true);
    assert!(uses(&*store)[5].records_use_by(ada.id().as_uuid()));
    store
        .modify(ada.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    let purge = Attribution::new(Actor::purge(), now() + Duration::days(20));
    store
        .modify(ada.id(), &purge, &mut |u| u.anonymize(purge.at))
        .unwrap();
    let after = uses(&*store);
    assert_eq!(after.len(), 7);
    for entry in &after {
        let bobs = entry.change.resource_id == bob.id().as_uuid();
        assert!(
            bobs || *entry == entry.clone().anonymized(),
            "{entry:?} still names someone"
        );
        assert_eq!(bobs, entry.actor == Actor::person(bob.id().as_uuid()));
    }

    // The deliveries waiting carry the entries as they are now.
    let delivered: Vec<AuditEntry> = store
        .lease_deliveries(now() + Duration::days(30), now() + Duration::days(31), 100)
        .unwrap()
        .into_iter()
        .map(|d| d.entry)
        .collect();
    assert!(!delivered.is_empty());
    for entry in delivered {
        let now_kept = after.iter().find(|e| e.position == entry.position);
        assert_eq!(Some(&entry), now_kept);
    }
}
