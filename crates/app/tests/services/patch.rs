//! The `patch` use cases decide what a change read, made and written at
//! the version read does when the resource changed in between, and stale
//! versions and taken values name the kind of resource they are about.

use kenning_app::{
    ExpertiseService, GroupService, Missing, Replacement, Resource, ServiceError, UserService,
    PATCH_ATTEMPTS,
};
use kenning_domain::{
    ExpertsLimit, GroupId, GroupInput, LanguageId, NewUserInput, Patch, Scoring, User,
    UserPatchInput,
};
use kenning_keyphrase::KeyphraseExtractor;

use super::world;

struct Services {
    users: UserService,
    groups: GroupService,
    expertise: ExpertiseService,
}

fn services() -> Services {
    let (store, clock) = world();
    Services {
        users: UserService::new(
            store.clone(),
            clock.clone(),
            LanguageId::parse("en").unwrap(),
        ),
        groups: GroupService::new(store.clone(), store.clone(), clock.clone()),
        expertise: ExpertiseService::new(
            store.clone(),
            store.clone(),
            store,
            std::sync::Arc::new(KeyphraseExtractor::new()),
            clock,
            Scoring::default(),
        ),
    }
}

fn ada(users: &UserService) -> User {
    users
        .create(NewUserInput {
            email: "ada@example.org".into(),
            firstname: "Ada".into(),
            lastname: "Lovelace".into(),
            ..NewUserInput::default()
        })
        .unwrap()
}

/// The replacement that renames `user`, keeping everything else.
fn renamed(user: &User, first: &str) -> Replacement {
    Replacement {
        email: user.profile().unwrap().email.as_str().to_owned(),
        changes: UserPatchInput {
            firstname: Patch::Set(first.to_owned()),
            ..UserPatchInput::default()
        },
        active: None,
    }
}

/// Changes the user's last name behind a patch's back.
fn meddle(users: &UserService, user: &User, last: &str) {
    let change = UserPatchInput {
        lastname: Patch::Set(last.to_owned()),
        ..UserPatchInput::default()
    };
    users.update(user.id(), change, None).unwrap();
}

#[test]
fn a_patch_of_a_user_changed_meanwhile_is_made_again_on_what_it_became() {
    let s = services();
    let user = ada(&s.users);
    let mut reads = Vec::new();
    let patched = s
        .users
        .patch(user.id(), None, |current: &User| {
            reads.push(current.version());
            if reads.len() == 1 {
                meddle(&s.users, current, "Byron");
            }
            Ok::<_, ServiceError>(renamed(current, "Augusta"))
        })
        .unwrap();
    assert_eq!(reads.len(), 2, "read again after the change: {reads:?}");
    assert!(reads[1] > reads[0]);
    let profile = patched.profile().unwrap();
    assert_eq!(profile.firstname.as_str(), "Augusta");
    assert_eq!(
        profile.lastname.as_str(),
        "Byron",
        "the change meanwhile stays"
    );
}

#[test]
fn a_patch_gives_up_after_its_attempts_and_one_at_a_version_does_not_retry() {
    let s = services();
    let user = ada(&s.users);
    let mut attempts = 0;
    let error = s
        .users
        .patch(user.id(), None, |current: &User| {
            attempts += 1;
            meddle(&s.users, current, &format!("Byron {attempts}"));
            Ok::<_, ServiceError>(renamed(current, "Augusta"))
        })
        .unwrap_err();
    assert_eq!(attempts, PATCH_ATTEMPTS);
    assert_eq!(
        error,
        ServiceError::StaleVersion {
            resource: Resource::User
        }
    );
    assert_eq!(error.code(), "Conflict");

    let current = s.users.get(user.id()).unwrap();
    let mut attempts = 0;
    let error = s
        .users
        .patch(user.id(), Some(current.version() - 1), |current: &User| {
            attempts += 1;
            Ok::<_, ServiceError>(renamed(current, "Augusta"))
        })
        .unwrap_err();
    assert_eq!(
        attempts, 1,
        "the version asked for is the caller's to read again"
    );
    assert_eq!(
        error.to_string(),
        "the user changed since the version given; read it again"
    );
}

#[test]
fn an_error_of_the_change_ends_a_patch_and_writes_nothing() {
    let s = services();
    let user = ada(&s.users);
    #[derive(Debug, PartialEq)]
    enum Refusal {
        Mine,
        Service(ServiceError),
    }
    impl From<ServiceError> for Refusal {
        fn from(e: ServiceError) -> Self {
            Refusal::Service(e)
        }
    }
    let answer = s.users.patch(user.id(), None, |_: &User| {
        Err::<Replacement, _>(Refusal::Mine)
    });
    assert_eq!(answer.unwrap_err(), Refusal::Mine);
    assert_eq!(s.users.get(user.id()).unwrap().version(), user.version());
    let unknown = kenning_domain::UserId::from_uuid(uuid::Uuid::new_v4());
    let answer = s.users.patch(unknown, None, |_: &User| {
        Err::<Replacement, _>(Refusal::Mine)
    });
    assert_eq!(
        answer.unwrap_err(),
        Refusal::Service(ServiceError::NotFound(Missing::User))
    );
}

fn engineers(external: &str) -> GroupInput {
    GroupInput {
        display_name: "Engineers".into(),
        external_id: Some(external.into()),
        members: Vec::new(),
    }
}

#[test]
fn a_patch_of_a_group_is_made_again_and_its_conflicts_name_a_group() {
    let s = services();
    let group = s.groups.create(engineers("eng")).unwrap();
    let mut reads = 0;
    let patched = s
        .groups
        .patch(group.id(), None, |current| {
            reads += 1;
            if reads == 1 {
                s.groups
                    .replace(current.id(), None, engineers("eng-2"))
                    .unwrap();
            }
            Ok::<_, ServiceError>(GroupInput {
                display_name: "Builders".into(),
                external_id: current
                    .attributes()
                    .external_id
                    .as_ref()
                    .map(|e| e.as_str().to_owned()),
                members: Vec::new(),
            })
        })
        .unwrap();
    assert_eq!(reads, 2);
    assert_eq!(patched.attributes().display_name.as_str(), "Builders");
    assert_eq!(
        patched
            .attributes()
            .external_id
            .as_ref()
            .map(|e| e.as_str()),
        Some("eng-2")
    );

    let stale = s
        .groups
        .replace(group.id(), Some(group.version()), engineers("eng-3"))
        .unwrap_err();
    assert_eq!(
        stale,
        ServiceError::StaleVersion {
            resource: Resource::Group
        }
    );
    assert_eq!(
        stale.to_string(),
        "the group changed since the version given; read it again"
    );

    let taken = s.groups.create(engineers("eng-2")).unwrap_err();
    assert_eq!(
        taken.to_string(),
        "externalId is already used by another group"
    );
    assert_eq!(taken.code(), "Conflict");
}

#[test]
fn experts_in_a_group_that_does_not_exist_is_not_found() {
    let s = services();
    let unknown = GroupId::from_uuid(uuid::Uuid::new_v4());
    for query in ["who knows rust?", ""] {
        assert_eq!(
            s.expertise
                .experts_in(query, ExpertsLimit::default(), Some(unknown)),
            Err(ServiceError::NotFound(Missing::Group)),
            "{query:?}"
        );
    }
    let group = s.groups.create(engineers("eng")).unwrap();
    assert_eq!(
        s.expertise
            .experts_in("who knows rust?", ExpertsLimit::default(), Some(group.id())),
        Ok(Vec::new())
    );
}
