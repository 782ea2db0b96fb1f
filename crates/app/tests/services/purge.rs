//! `UserService::purge_due`: due pending deletions are anonymized batch
//! after batch; nothing else is touched.

use std::collections::BTreeSet;

use chrono::Duration;
use kenning_app::UserService;
use kenning_app::PURGE_BATCH;
use kenning_domain::{GracePeriod, NewUserInput, UserId};

use super::{users, world};

/// `n` new ACTIVE users, numbered from `first` in their addresses.
fn create(users: &UserService, first: usize, n: usize) -> Vec<UserId> {
    (first..first + n)
        .map(|i| {
            users
                .create(NewUserInput {
                    email: format!("user{i}@example.com"),
                    firstname: "Test".into(),
                    lastname: format!("User {i}"),
                    ..NewUserInput::default()
                })
                .unwrap()
                .id()
        })
        .collect()
}

fn delete_all(users: &UserService, ids: &[UserId]) {
    for id in ids {
        users.delete(*id).unwrap();
    }
}

/// Every (status, whether a profile is kept) that `ids` are in.
fn states(users: &UserService, ids: &[UserId]) -> BTreeSet<(&'static str, bool)> {
    ids.iter()
        .map(|id| {
            let user = users.get(*id).unwrap();
            (user.status().name(), user.profile().is_some())
        })
        .collect()
}

const ACTIVE: (&str, bool) = ("ACTIVE", true);
const PENDING: (&str, bool) = ("PENDING_DELETION", true);
const ANONYMIZED: (&str, bool) = ("DELETED", false);

/// `due` users whose grace period ends now are all anonymized by one
/// call, and a second call finds nobody.
fn all_due_users_are_anonymized(due: usize) {
    let world = world();
    let users = users(&world);
    let ids = create(&users, 0, due);
    delete_all(&users, &ids);
    world.1.advance(Duration::days(GracePeriod::DAYS));

    assert_eq!(users.purge_due().unwrap(), due);
    assert_eq!(states(&users, &ids), BTreeSet::from([ANONYMIZED]));
    assert_eq!(users.purge_due().unwrap(), 0, "nothing is left to purge");
}

#[test]
fn more_due_users_than_a_batch_are_all_anonymized_in_one_call() {
    all_due_users_are_anonymized(usize::try_from(2 * PURGE_BATCH + 7).unwrap());
}

#[test]
fn exactly_one_batch_of_due_users_is_anonymized() {
    all_due_users_are_anonymized(usize::try_from(PURGE_BATCH).unwrap());
}

#[test]
fn nothing_is_purged_when_nobody_is_due() {
    let world = world();
    let users = users(&world);
    let active = create(&users, 0, 3);
    let pending = create(&users, 3, 2);
    delete_all(&users, &pending);
    let almost = Duration::days(GracePeriod::DAYS) - Duration::seconds(1);
    world.1.advance(almost);

    assert_eq!(users.purge_due().unwrap(), 0);
    assert_eq!(states(&users, &active), BTreeSet::from([ACTIVE]));
    assert_eq!(states(&users, &pending), BTreeSet::from([PENDING]));
}

#[test]
fn only_users_whose_grace_period_ended_are_purged() {
    let world = world();
    let users = users(&world);
    let early = create(&users, 0, 3);
    delete_all(&users, &early);
    world.1.advance(Duration::days(5));
    let late = create(&users, 3, 4);
    delete_all(&users, &late);
    let kept = create(&users, 7, 2);
    world.1.advance(Duration::days(GracePeriod::DAYS - 5));

    assert_eq!(users.purge_due().unwrap(), early.len());
    assert_eq!(states(&users, &early), BTreeSet::from([ANONYMIZED]));
    assert_eq!(states(&users, &late), BTreeSet::from([PENDING]));
    assert_eq!(states(&users, &kept), BTreeSet::from([ACTIVE]));

    world.1.advance(Duration::days(5));
    assert_eq!(users.purge_due().unwrap(), late.len());
    assert_eq!(states(&users, &late), BTreeSet::from([ANONYMIZED]));
    assert_eq!(states(&users, &kept), BTreeSet::from([ACTIVE]));
}

#[test]
fn a_cancelled_deletion_is_not_purged() {
    let world = world();
    let users = users(&world);
    let ids = create(&users, 0, 2);
    delete_all(&users, &ids);
    users.cancel_delete(ids[0]).unwrap();
    world.1.advance(Duration::days(GracePeriod::DAYS));

    assert_eq!(users.purge_due().unwrap(), 1);
    assert_eq!(
        states(&users, &ids[..1]),
        BTreeSet::from([("DEACTIVATED", true)])
    );
    assert_eq!(states(&users, &ids[1..]), BTreeSet::from([ANONYMIZED]));
}
