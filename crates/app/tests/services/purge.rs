//! `UserService::purge_due`: due pending deletions are anonymized batch
//! after batch; nothing else is touched.

use chrono::Duration;
use kenning_app::users::PURGE_BATCH;
use kenning_app::UserService;
use kenning_domain::{GracePeriod, LanguageId, NewUserInput, Status, User, UserId};

use super::world;

fn users(world: &super::World) -> UserService {
    UserService::new(
        world.0.clone(),
        world.1.clone(),
        LanguageId::parse("en").unwrap(),
    )
}

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

fn is_deleted(user: &User) -> bool {
    matches!(user.status(), Status::Deleted { .. }) && user.profile().is_none()
}

#[test]
fn more_due_users_than_a_batch_are_all_anonymized_in_one_call() {
    let world = world();
    let users = users(&world);
    let due = usize::try_from(2 * PURGE_BATCH + 7).unwrap();
    let ids = create(&users, 0, due);
    delete_all(&users, &ids);
    world.1.advance(Duration::days(GracePeriod::DAYS));

    assert_eq!(users.purge_due().unwrap(), due);
    assert!(ids.iter().all(|id| is_deleted(&users.get(*id).unwrap())));
    assert_eq!(users.purge_due().unwrap(), 0, "nothing is left to purge");
}

#[test]
fn exactly_one_batch_of_due_users_is_anonymized() {
    let world = world();
    let users = users(&world);
    let due = usize::try_from(PURGE_BATCH).unwrap();
    let ids = create(&users, 0, due);
    delete_all(&users, &ids);
    world.1.advance(Duration::days(GracePeriod::DAYS));

    assert_eq!(users.purge_due().unwrap(), due);
    assert!(ids.iter().all(|id| is_deleted(&users.get(*id).unwrap())));
}

#[test]
fn nothing_is_purged_when_nobody_is_due() {
    let world = world();
    let users = users(&world);
    let active = create(&users, 0, 3);
    let pending = create(&users, 3, 2);
    delete_all(&users, &pending);
    world
        .1
        .advance(Duration::days(GracePeriod::DAYS) - Duration::seconds(1));

    assert_eq!(users.purge_due().unwrap(), 0);
    for id in &active {
        assert_eq!(users.get(*id).unwrap().status(), Status::Active);
    }
    for id in &pending {
        assert!(matches!(
            users.get(*id).unwrap().status(),
            Status::PendingDeletion { .. }
        ));
    }
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
    assert!(early.iter().all(|id| is_deleted(&users.get(*id).unwrap())));
    for id in &late {
        let status = users.get(*id).unwrap().status();
        assert!(
            matches!(status, Status::PendingDeletion { .. }),
            "{status:?}"
        );
    }
    for id in &kept {
        assert_eq!(users.get(*id).unwrap().status(), Status::Active);
    }

    world.1.advance(Duration::days(5));
    assert_eq!(users.purge_due().unwrap(), late.len());
    assert!(late.iter().all(|id| is_deleted(&users.get(*id).unwrap())));
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
    assert_eq!(users.get(ids[0]).unwrap().status(), Status::Deactivated);
    assert!(is_deleted(&users.get(ids[1]).unwrap()));
}
