//! The administrators of the web app are the ACTIVE members of the group
//! the settings name by its id or externalId, read again on every
//! request; who administers changes only for a caller who may change it.

use kenning_app::{Administrators, CredentialService, Gate, GroupService, UseCases, UserService};
use kenning_domain::{Actor, CredentialKind, GroupInput, LanguageId, Lifetime, Scope, User};

use super::{person, world, World};

fn input(name: &str, external_id: Option<&str>, members: &[&User]) -> GroupInput {
    GroupInput {
        display_name: name.to_owned(),
        external_id: external_id.map(str::to_owned),
        members: members.iter().map(|u| u.id().to_string()).collect(),
    }
}

/// The use cases of `world`, guarded by `administrators`.
struct Services {
    users: UserService,
    groups: GroupService,
    credentials: CredentialService,
}

fn services((store, clock): &World, administrators: &Administrators) -> Services {
    Services {
        users: UserService::new(
            store.clone(),
            clock.clone(),
            LanguageId::parse("en").unwrap(),
        )
        .with_administrators(administrators.clone()),
        groups: GroupService::new(store.clone(), store.clone(), clock.clone())
            .with_administrators(administrators.clone()),
        credentials: CredentialService::new(store.clone(), clock.clone())
            .with_administrators(administrators.clone()),
    }
}

/// The services guarded by `administrators`, and their use cases as a
/// token that writes users calls them and as one that may also change
/// who administers.
fn gated(world: &World, administrators: &Administrators) -> (Services, UseCases, UseCases) {
    let s = services(world, administrators);
    let use_cases = UseCases {
        users: s.users.clone(),
        credentials: s.credentials.clone(),
        groups: s.groups.clone(),
        ..super::callers::use_cases(world)
    };
    let gate = Gate::new(use_cases.clone(), administrators.clone());
    let writer = gate.called_by(
        super::callers::token(&use_cases, &[Scope::UsersRead, Scope::UsersWrite]),
        Actor::cli(),
    );
    let keeper = gate.called_by(
        super::callers::token(&use_cases, &[Scope::UsersWrite, Scope::AdministratorsWrite]),
        Actor::cli(),
    );
    (s, writer, keeper)
}

fn named(world: &World, group: &str) -> Administrators {
    let (store, _) = world;
    Administrators::of_group(group.parse().unwrap(), store.clone(), store.clone())
}

#[test]
fn an_active_member_of_the_named_group_is_an_administrator_until_taken_out() {
    let world = world();
    let admins = named(&world, "kenning-admins");
    let s = services(&world, &admins);
    let ada = person(&s.users, "ada@example.com");
    let bob = person(&s.users, "bob@example.com");
    let group = s
        .groups
        .create(input("Kenning admins", Some("kenning-admins"), &[&ada]))
        .unwrap();
    assert!(admins.administers(&ada).unwrap());
    assert!(!admins.administers(&bob).unwrap());

    s.groups
        .replace(
            group.id(),
            None,
            input("Kenning admins", Some("kenning-admins"), &[&bob]),
        )
        .unwrap();
    assert!(!admins.administers(&ada).unwrap());
    assert!(admins.administers(&bob).unwrap());

    let bob = s.users.deactivate(bob.id()).unwrap();
    assert!(!admins.administers(&bob).unwrap());

    // Named by its id, the same group.
    let by_id = named(&world, &group.id().to_string());
    let bob = s.users.reactivate(bob.id()).unwrap();
    assert!(by_id.administers(&bob).unwrap());
}

#[test]
fn a_look_alike_name_makes_nobody_an_administrator() {
    let world = world();
    let admins = named(&world, "kenning-admins");
    let s = services(&world, &admins);
    let ada = person(&s.users, "ada@example.com");
    let mallory = person(&s.users, "mallory@example.com");
    s.groups
        .create(input("Kenning admins", Some("kenning-admins"), &[&ada]))
        .unwrap();
    for name in ["Kenning admins", "kenning ADMINS", "kenning-admins"] {
        s.groups.create(input(name, None, &[&mallory])).unwrap();
    }
    assert!(!admins.administers(&mallory).unwrap());
    assert!(!Administrators::nobody().administers(&ada).unwrap());
    assert!(!named(&world, "elsewhere").administers(&ada).unwrap());
}

#[test]
fn no_group_takes_another_groups_id_as_its_external_id() {
    let world = world();
    let s = services(&world, &Administrators::nobody());
    let ada = person(&s.users, "ada@example.com");
    let mallory = person(&s.users, "mallory@example.com");
    let admins = s.groups.create(input("Admins", None, &[&ada])).unwrap();
    let taken = |result: Result<_, kenning_app::ServiceError>| {
        let refused = result.unwrap_err();
        assert_eq!(refused.code(), "Conflict", "{refused}");
        assert!(refused.to_string().contains("externalId"), "{refused}");
    };
    let id = admins.id().to_string();
    taken(s.groups.create(input("Look-alike", Some(&id), &[&mallory])));
    taken(
        s.groups
            .create(input("Look-alike", Some(&id.to_uppercase()), &[&mallory])),
    );
    let other = s.groups.create(input("Other", None, &[&mallory])).unwrap();
    taken(
        s.groups
            .replace(other.id(), None, input("Other", Some(&id), &[])),
    );
    // A group may hold its own id as its external id.
    s.groups
        .replace(admins.id(), None, input("Admins", Some(&id), &[&ada]))
        .unwrap();

    // Named by id, the group with the id administers, and nothing makes
    // the name ambiguous.
    let by_id = named(&world, &id);
    assert_eq!(by_id.impostor().unwrap(), None);
    assert!(by_id.administers(&ada).unwrap());

    // A look-alike a database already held (written before the rule):
    // found and named, and the group with the id still administers.
    s.groups
        .replace(admins.id(), None, input("Admins", None, &[&ada]))
        .unwrap();
    let (store, clock) = &world;
    let now = kenning_ports::Clock::now(clock.as_ref());
    let attributes =
        kenning_domain::GroupAttributes::parse(input("Old look-alike", Some(&id), &[&mallory]))
            .unwrap();
    let old = kenning_domain::Group::create(
        kenning_domain::GroupId::from_uuid(uuid::Uuid::new_v4()),
        attributes,
        now,
    );
    let by = kenning_domain::Attribution::new(Actor::cli(), now);
    kenning_ports::GroupStore::insert_group(store.as_ref(), &old, &by).unwrap();
    assert_eq!(by_id.impostor().unwrap().map(|g| g.id()), Some(old.id()));
    assert!(by_id.administers(&ada).unwrap());
    assert!(!by_id.administers(&mallory).unwrap());
}

#[test]
fn an_administrators_status_changes_only_for_a_caller_who_may_change_who_administers() {
    let world = world();
    let admins = named(&world, "kenning-admins");
    let (s, writer, keeper) = gated(&world, &admins);
    let ada = person(&s.users, "ada@example.com");
    let bob = person(&s.users, "bob@example.com");
    s.groups
        .create(input("Kenning admins", Some("kenning-admins"), &[&ada]))
        .unwrap();

    // The only administrator cannot be locked out by a users:write token.
    forbidden(writer.users.deactivate(ada.id()));
    forbidden(writer.users.delete(ada.id()));
    forbidden(writer.users.patch(ada.id(), None, |user| {
        Ok::<_, kenning_app::ServiceError>(kenning_app::Replacement {
            email: user.profile().unwrap().email.as_str().to_owned(),
            changes: Default::default(),
            active: Some(false),
        })
    }));
    assert!(admins.administers(&s.users.get(ada.id()).unwrap()).unwrap());

    // Deactivated by one who may, they are not brought back by a writer.
    keeper.users.deactivate(ada.id()).unwrap();
    forbidden(writer.users.reactivate(ada.id()));
    forbidden(writer.users.patch(ada.id(), None, |user| {
        Ok::<_, kenning_app::ServiceError>(kenning_app::Replacement {
            email: user.profile().unwrap().email.as_str().to_owned(),
            changes: Default::default(),
            active: Some(true),
        })
    }));
    keeper.users.delete(ada.id()).unwrap();
    forbidden(writer.users.cancel_delete(ada.id()));
    keeper.users.cancel_delete(ada.id()).unwrap();
    let ada = keeper.users.reactivate(ada.id()).unwrap();
    assert!(admins.administers(&ada).unwrap());

    // Anyone else's status stays users:write's.
    writer.users.deactivate(bob.id()).unwrap();
    writer.users.reactivate(bob.id()).unwrap();
    writer.users.delete(bob.id()).unwrap();
    writer.users.cancel_delete(bob.id()).unwrap();
}

#[test]
fn who_administers_changes_only_for_a_caller_who_may_change_it() {
    let world = world();
    let admins = named(&world, "kenning-admins");
    let (s, writer, keeper) = gated(&world, &admins);
    let ada = person(&s.users, "ada@example.com");
    let mallory = person(&s.users, "mallory@example.com");

    forbidden(
        writer
            .groups
            .create(input("x", Some("kenning-admins"), &[&mallory])),
    );
    let group = s
        .groups
        .create(input("Kenning admins", Some("kenning-admins"), &[&ada]))
        .unwrap();
    forbidden(writer.groups.replace(
        group.id(),
        None,
        input("Kenning admins", Some("kenning-admins"), &[&ada, &mallory]),
    ));
    forbidden(
        writer
            .groups
            .replace(group.id(), None, input("Kenning admins", None, &[&ada])),
    );
    forbidden(writer.groups.delete(group.id(), None));
    let other = writer.groups.create(input("Other", None, &[])).unwrap();
    forbidden(writer.groups.replace(
        other.id(),
        None,
        input("Other", Some("kenning-admins"), &[]),
    ));
    forbidden(
        writer
            .users
            .update_email(ada.id(), "mallory+a@example.com", None),
    );
    assert_eq!(s.users.get(ada.id()).unwrap(), ada);
    // A door cannot lift the guard by building on what it was handed.
    forbidden(
        writer
            .users
            .clone()
            .with_administrators(Administrators::nobody())
            .acting_as(Actor::cli())
            .update_email(ada.id(), "mallory+a@example.com", None),
    );
    forbidden(
        writer
            .groups
            .clone()
            .with_administrators(Administrators::nobody())
            .delete(group.id(), None),
    );

    // What does not touch who administers stays users:write's.
    writer
        .groups
        .replace(
            group.id(),
            None,
            input("Administrators", Some("kenning-admins"), &[&ada]),
        )
        .unwrap();
    writer
        .users
        .update_email(mallory.id(), "m@example.com", None)
        .unwrap();
    // A deactivated member is guarded as well: reactivated, they administer.
    s.users.deactivate(ada.id()).unwrap();
    forbidden(
        writer
            .users
            .update_email(ada.id(), "mallory+a@example.com", None),
    );

    keeper
        .groups
        .replace(
            group.id(),
            None,
            input("Administrators", Some("kenning-admins"), &[&ada, &mallory]),
        )
        .unwrap();
    let mallory = s.users.get(mallory.id()).unwrap();
    assert!(admins.administers(&mallory).unwrap());
}

#[test]
fn a_credential_an_administrator_issued_lives_while_they_administer_and_until_it_expires() {
    let world = world();
    let admins = named(&world, "kenning-admins");
    let s = services(&world, &admins);
    let ada = person(&s.users, "ada@example.com");
    let group = s
        .groups
        .create(input("Kenning admins", Some("kenning-admins"), &[&ada]))
        .unwrap();
    let use_cases = UseCases {
        credentials: s.credentials.clone(),
        ..super::callers::use_cases(&world)
    };
    let administrator = super::callers::signed_in(&use_cases, &admins, &ada);
    assert!(administrator.is_administrator());
    let console = Gate::new(use_cases, admins.clone())
        .called_by(administrator, Actor::cli())
        .credentials;

    assert_eq!(
        console
            .issue(
                CredentialKind::AccessToken,
                "x",
                &[Scope::AdministratorsWrite],
                None
            )
            .unwrap_err()
            .code(),
        "Forbidden"
    );
    assert!(!console
        .issuable_scopes()
        .contains(&Scope::AdministratorsWrite));
    assert!(s
        .credentials
        .issuable_scopes()
        .contains(&Scope::AdministratorsWrite));
    // A token asked without a scope carries every scope its issuer may
    // give, in the console as at the command line; an API key none.
    let unscoped = |credentials: &kenning_app::CredentialService, kind| {
        credentials
            .issue(kind, "unscoped", &[], None)
            .unwrap()
            .credential
            .scopes
    };
    assert_eq!(
        unscoped(&console, CredentialKind::AccessToken),
        console.issuable_scopes()
    );
    assert_eq!(
        unscoped(&s.credentials, CredentialKind::AccessToken),
        Scope::ALL
    );
    assert!(unscoped(&console, CredentialKind::ApiKey).is_empty());

    let week = Some(Lifetime::parse(7).unwrap());
    let weekly = console
        .issue(
            CredentialKind::AccessToken,
            "weekly",
            &[Scope::UsersRead],
            week,
        )
        .unwrap();
    let lasting = console
        .issue(
            CredentialKind::AccessToken,
            "lasting",
            &[Scope::UsersRead],
            None,
        )
        .unwrap();
    assert_eq!(weekly.credential.issued_by, Some(ada.id()));
    let check = |secret: &str| {
        s.credentials
            .authenticate(CredentialKind::AccessToken, secret)
    };
    assert!(check(&weekly.secret).is_ok());

    let (_, clock) = &world;
    clock.advance(chrono::Duration::days(7));
    assert_eq!(check(&weekly.secret).unwrap_err().code(), "Unauthenticated");
    assert!(check(&lasting.secret).is_ok());

    s.groups
        .replace(
            group.id(),
            None,
            input("Kenning admins", Some("kenning-admins"), &[]),
        )
        .unwrap();
    clock.advance(kenning_app::REVOCATION_DELAY);
    assert_eq!(
        check(&lasting.secret).unwrap_err().code(),
        "Unauthenticated"
    );
    // One issued at the command line answers to nobody's office.
    let cli = s
        .credentials
        .issue(CredentialKind::AccessToken, "cli", &Scope::ALL, None)
        .unwrap();
    assert_eq!(cli.credential.issued_by, None);
    assert!(check(&cli.secret).is_ok());
}

#[track_caller]
fn forbidden<T: std::fmt::Debug>(result: Result<T, kenning_app::ServiceError>) {
    assert_eq!(result.unwrap_err().code(), "Forbidden");
}
