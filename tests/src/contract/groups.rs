//! The group repository ([`GroupStore`]) kept by every store alike:
//! a group keeps its members, counts its versions and refuses a stale
//! change or delete; externalIds are unique; groups are found by name or
//! externalId, page by page; an anonymized user leaves every group.

use std::sync::Arc;

use chrono::Duration;
use kenning_domain::UserId;
use kenning_ports::{ModifyGroupError, StoreError, UserStore};
use kenning_test_macros::contract_check;
use uuid::Uuid;

use super::{adapters, by, group_of, new_user, now, Store};

#[contract_check]
fn groups_keep_their_members_versions_and_unique_external_ids(store: Arc<impl Store>) {
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    for u in [&ada, &bob] {
        UserStore::insert(&*store, u, &by()).unwrap();
    }
    let sales = group_of("Sales", Some("g-1"), &[&ada, &bob]);
    store.insert_group(&sales, &by()).unwrap();
    assert_eq!(store.group(sales.id()).unwrap(), Some(sales.clone()));
    assert_eq!(
        store.insert_group(&group_of("Other", Some("g-1"), &[]), &by()),
        Err(StoreError::Conflict {
            field: "externalId"
        })
    );
    let rnd = group_of("R&D", None, &[&ada]);
    store.insert_group(&rnd, &by()).unwrap();
    store
        .insert_group(&group_of("r&d", None, &[]), &by())
        .unwrap();

    let later = now() + Duration::minutes(5);
    let renamed = store
        .modify_group(sales.id(), &by(), &mut |g| {
            g.expect_version(1)?;
            let mut a = g.attributes().clone();
            a.members.remove(&bob.id());
            g.replace(a, later);
            Ok(())
        })
        .unwrap();
    assert_eq!((renamed.version(), renamed.modified()), (2, later));
    assert_eq!(store.group(sales.id()).unwrap(), Some(renamed.clone()));
    assert_eq!(
        store.modify_group(sales.id(), &by(), &mut |g| g.expect_version(1)),
        Err(ModifyGroupError::Rejected(
            kenning_domain::GroupError::StaleVersion {
                expected: 1,
                current: 2
            }
        ))
    );
    let missing = kenning_domain::GroupId::from_uuid(Uuid::new_v4());
    assert_eq!(
        store.modify_group(missing, &by(), &mut |_| Ok(())),
        Err(ModifyGroupError::NotFound)
    );

    let by_name = |name: &str| kenning_domain::GroupFilter {
        display_name: Some(name.into()),
        external_id: None,
    };
    let named = store.groups(&by_name("R&D"), 0, 10).unwrap();
    assert_eq!(named.total, 2);
    assert_eq!(
        named.groups[0].id().min(named.groups[1].id()),
        named.groups[0].id()
    );
    let by_external = kenning_domain::GroupFilter {
        display_name: None,
        external_id: Some("g-1".into()),
    };
    assert_eq!(store.groups(&by_external, 0, 10).unwrap().groups, [renamed]);
    let all = store
        .groups(&kenning_domain::GroupFilter::default(), 1, 1)
        .unwrap();
    assert_eq!(all.total, 3);
    assert_eq!(all.groups.len(), 1);

    assert_eq!(
        store.delete_group(rnd.id(), Some(2), &by()),
        Err(ModifyGroupError::Rejected(
            kenning_domain::GroupError::StaleVersion {
                expected: 2,
                current: 1
            }
        ))
    );
    store.delete_group(rnd.id(), Some(1), &by()).unwrap();
    assert_eq!(
        store.delete_group(rnd.id(), None, &by()),
        Err(ModifyGroupError::NotFound)
    );
    assert_eq!(store.group(rnd.id()).unwrap(), None);

    let stranger = UserId::from_uuid(Uuid::new_v4());
    let mut live = store.live_users(&[ada.id(), stranger, bob.id()]).unwrap();
    live.sort();
    let mut expected = vec![ada.id(), bob.id()];
    expected.sort();
    assert_eq!(live, expected);
}

#[contract_check]
fn an_anonymized_user_leaves_every_group(store: Arc<impl Store>) {
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    for u in [&ada, &bob] {
        UserStore::insert(&*store, u, &by()).unwrap();
    }
    let team = group_of("Team", None, &[&ada, &bob]);
    let solo = group_of("Solo", None, &[&bob]);
    store.insert_group(&team, &by()).unwrap();
    store.insert_group(&solo, &by()).unwrap();
    store
        .modify(ada.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    let due = now() + Duration::days(30);
    store
        .modify(ada.id(), &by(), &mut |u| {
            u.anonymize(due)?;
            u.touch(due);
            Ok(())
        })
        .unwrap();
    let team = store.group(team.id()).unwrap().unwrap();
    assert_eq!(
        team.attributes()
            .members
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        [bob.id()]
    );
    assert_eq!((team.version(), team.modified()), (2, due));
    assert_eq!(store.group(solo.id()).unwrap().unwrap().version(), 1);
    assert_eq!(store.live_users(&[ada.id()]).unwrap(), []);
}

/// The names a choice of groups offers: the first groups by name (without
/// regard to case) then id, each with its id and names, however many
/// members each has.
#[contract_check]
fn group_names_list_the_first_groups_by_name(store: Arc<impl Store>) {
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    for (name, external) in [("beta", None), ("Alpha", Some("g-1")), ("gamma", None)] {
        store
            .insert_group(&group_of(name, external, &[&ada]), &by())
            .unwrap();
    }
    let names = store.group_names(2).unwrap();
    let listed: Vec<(&str, Option<&str>)> = names
        .iter()
        .map(|g| {
            (
                g.display_name.as_str(),
                g.external_id.as_ref().map(|e| e.as_str()),
            )
        })
        .collect();
    assert_eq!(listed, [("Alpha", Some("g-1")), ("beta", None)]);
    let alpha = store.group(names[0].group).unwrap().unwrap();
    assert_eq!(alpha.attributes().display_name.as_str(), "Alpha");
    assert_eq!(store.group_names(10).unwrap().len(), 3);
}
