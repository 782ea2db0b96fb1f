//! The outbox kept by every store alike: a change is queued for each
//! subscription that wants it in the same step as the change; a lease
//! hands each delivery to one taker, the oldest of a resource first;
//! deliveries are marked, retried, counted, pruned and resumed.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use kenning_domain::{
    Actor, Attribution, ChangeKind, Subscription, SubscriptionState, UserPatch, UserPatchInput,
};
use kenning_ports::UserStore;
use kenning_test_macros::contract_check;
use uuid::Uuid;

use super::{adapters, by_at, new_user, now, Store};

fn subscription(kinds: &[ChangeKind], minute: i64) -> Subscription {
    Subscription {
        id: Uuid::new_v4(),
        url: format!("https://hooks{minute}.example/kenning"),
        kinds: kinds.to_vec(),
        secret: format!("whsec_{minute}"),
        created: now() + Duration::minutes(minute),
        state: SubscriptionState::Active,
    }
}

fn renamed(last: &str) -> UserPatch {
    UserPatch::parse(UserPatchInput {
        lastname: kenning_domain::Patch::Set(last.into()),
        ..UserPatchInput::default()
    })
    .unwrap()
}

fn far() -> DateTime<Utc> {
    now() + Duration::days(1)
}

#[contract_check]
fn changes_are_queued_for_the_subscriptions_that_want_them(store: Arc<impl Store>) {
    let all = subscription(&[], 0);
    let creations = subscription(&[ChangeKind::UserCreated], 1);
    store.insert_subscription(&all).unwrap();
    store.insert_subscription(&creations).unwrap();
    assert_eq!(
        store.subscriptions().unwrap(),
        [all.clone(), creations.clone()]
    );

    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by_at(now())).unwrap();
    store
        .modify(ada.id(), &by_at(now()), &mut |u| u.update(renamed("Byron")))
        .unwrap();
    // A refused change queues nothing.
    assert!(store
        .modify(ada.id(), &by_at(now()), &mut |u| u.expect_version(99))
        .is_err());

    let leased = store
        .lease_deliveries(far(), far() + Duration::minutes(1), 100)
        .unwrap();
    let mut got: Vec<(Uuid, &str)> = leased
        .iter()
        .map(|d| (d.subscription.id, d.entry.change.kind.as_str()))
        .collect();
    got.sort();
    let mut wanted = vec![(all.id, "user.created"), (creations.id, "user.created")];
    wanted.sort();
    assert_eq!(got, wanted, "one at a time per resource, the oldest first");
    let first = leased.iter().find(|d| d.subscription.id == all.id).unwrap();
    assert_eq!(first.subscription.secret, all.secret);
    assert_eq!(first.entry.change.resource_id, ada.id().as_uuid());
    assert_eq!(first.attempts, 0);
    assert_eq!(first.first_attempt, None);

    // Leased: nobody else takes them; the next of the resource waits.
    assert!(store
        .lease_deliveries(far(), far() + Duration::minutes(1), 100)
        .unwrap()
        .is_empty());
    for delivery in &leased {
        store.delivered(delivery.id, far()).unwrap();
    }
    let next = store
        .lease_deliveries(far(), far() + Duration::minutes(1), 100)
        .unwrap();
    let kinds: Vec<&str> = next.iter().map(|d| d.entry.change.kind.as_str()).collect();
    assert_eq!(kinds, ["user.updated"]);
    assert_eq!(next[0].subscription.id, all.id);

    let counts = store.outbox_counts().unwrap();
    assert_eq!(counts.len(), 2);
    assert_eq!(
        (
            counts[0].subscription,
            counts[0].pending,
            counts[0].delivered
        ),
        (all.id, 1, 1)
    );
    assert_eq!(
        (
            counts[1].subscription,
            counts[1].pending,
            counts[1].delivered
        ),
        (creations.id, 0, 1)
    );
}

#[contract_check]
fn a_failed_delivery_waits_and_a_failing_subscription_keeps_its_events(store: Arc<impl Store>) {
    let hook = subscription(&[], 0);
    store.insert_subscription(&hook).unwrap();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by_at(now())).unwrap();
    let at = now() + Duration::minutes(5);
    let lease = |when: DateTime<Utc>| {
        store
            .lease_deliveries(when, when + Duration::seconds(30), 10)
            .unwrap()
    };
    let first = lease(at);
    assert_eq!(first.len(), 1);
    store
        .retry_delivery(first[0].id, 1, at, at + Duration::seconds(2))
        .unwrap();
    assert!(lease(at + Duration::seconds(1)).is_empty(), "not due yet");
    let again = lease(at + Duration::seconds(2));
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].attempts, 1);
    assert_eq!(again[0].first_attempt, Some(at));

    // An expired lease is taken again (its taker died).
    assert_eq!(lease(at + Duration::seconds(40)).len(), 1);

    let failing = SubscriptionState::Failing { since: at };
    assert!(store.set_subscription_state(hook.id, failing).unwrap());
    store
        .modify(ada.id(), &by_at(at), &mut |u| u.update(renamed("Byron")))
        .unwrap();
    assert!(
        lease(far()).is_empty(),
        "a failing subscription is not delivered to"
    );
    assert_eq!(
        store.outbox_counts().unwrap()[0].pending,
        2,
        "its events are kept"
    );
    assert!(store
        .set_subscription_state(hook.id, SubscriptionState::Active)
        .unwrap());
    assert_eq!(lease(at).len(), 1, "resumed: due at once, in order");
    assert!(!store
        .set_subscription_state(Uuid::new_v4(), SubscriptionState::Active)
        .unwrap());
}

#[contract_check]
fn delivered_ones_are_pruned_oldest_first_and_a_deleted_subscription_takes_its_own(
    store: Arc<impl Store>,
) {
    let hook = subscription(&[], 0);
    store.insert_subscription(&hook).unwrap();
    let mut users = Vec::new();
    for n in 0..4 {
        let user = new_user(&format!("u{n}@example.com"), "U", &format!("{n}"), None);
        let by = Attribution::new(Actor::embedded(), now() + Duration::minutes(n));
        UserStore::insert(&*store, &user, &by).unwrap();
        users.push(user);
    }
    let leased = store.lease_deliveries(far(), far(), 100).unwrap();
    assert_eq!(leased.len(), 4, "one per resource");
    for (n, d) in leased.iter().enumerate() {
        store
            .delivered(d.id, far() + Duration::minutes(n as i64))
            .unwrap();
    }
    assert_eq!(store.prune_outbox(10).unwrap(), 0);
    assert_eq!(store.prune_outbox(1).unwrap(), 3);
    assert_eq!(store.outbox_counts().unwrap()[0].delivered, 1);
    store
        .modify(users[0].id(), &by_at(now()), &mut |u| {
            u.update(renamed("X"))
        })
        .unwrap();
    assert!(store.delete_subscription(hook.id).unwrap());
    assert!(!store.delete_subscription(hook.id).unwrap());
    assert!(store.subscriptions().unwrap().is_empty());
    assert!(store.outbox_counts().unwrap().is_empty());
    assert!(store
        .lease_deliveries(far(), far(), 100)
        .unwrap()
        .is_empty());
}
