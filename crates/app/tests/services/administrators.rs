//! The administrators of the web app are the ACTIVE members of the group
//! the settings name, read again on every request.

use kenning_app::{Administrators, Caller, GroupService, UserService};
use kenning_domain::{GroupInput, LanguageId, User};

use super::{person, world};

fn input(members: &[&User]) -> GroupInput {
    GroupInput {
        display_name: "Kenning admins".to_owned(),
        external_id: None,
        members: members.iter().map(|u| u.id().to_string()).collect(),
    }
}

#[test]
fn an_active_member_of_the_named_group_is_an_administrator_until_taken_out() {
    let (store, clock) = world();
    let users = UserService::new(
        store.clone(),
        clock.clone(),
        LanguageId::parse("en").unwrap(),
    );
    let groups = GroupService::new(store.clone(), store, clock);
    let ada = person(&users, "ada@example.com");
    let bob = person(&users, "bob@example.com");
    let group = groups.create(input(&[&ada])).unwrap();
    // The name is compared as a group filter compares it: without regard to case.
    let admins = Administrators::of_group(Some("kenning ADMINS".to_owned()));

    assert_eq!(
        admins.caller(&groups, &ada).unwrap(),
        Caller::Administrator(ada.id())
    );
    assert_eq!(
        admins.caller(&groups, &bob).unwrap(),
        Caller::Person(bob.id())
    );

    groups.replace(group.id(), None, input(&[&bob])).unwrap();
    assert_eq!(
        admins.caller(&groups, &ada).unwrap(),
        Caller::Person(ada.id())
    );
    assert_eq!(
        admins.caller(&groups, &bob).unwrap(),
        Caller::Administrator(bob.id())
    );

    let bob = users.deactivate(bob.id()).unwrap();
    assert_eq!(
        admins.caller(&groups, &bob).unwrap(),
        Caller::Person(bob.id())
    );
}

#[test]
fn nobody_is_an_administrator_without_a_group_or_with_one_that_does_not_exist() {
    let (store, clock) = world();
    let users = UserService::new(
        store.clone(),
        clock.clone(),
        LanguageId::parse("en").unwrap(),
    );
    let groups = GroupService::new(store.clone(), store, clock);
    let ada = person(&users, "ada@example.com");
    groups.create(input(&[&ada])).unwrap();
    let unset = Administrators::of_group(None);
    assert_eq!(unset.group(), None);
    assert_eq!(
        unset.caller(&groups, &ada).unwrap(),
        Caller::Person(ada.id())
    );
    let elsewhere = Administrators::of_group(Some("Somebody else".to_owned()));
    assert_eq!(
        elsewhere.caller(&groups, &ada).unwrap(),
        Caller::Person(ada.id())
    );
}
