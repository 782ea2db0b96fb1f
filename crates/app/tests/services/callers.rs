//! Each use case asks who calls: a service narrowed with `called_by`
//! refuses what that caller may not do, whichever door built it, and a
//! refusal writes nothing.

use std::sync::Arc;

use kenning_app::{
    AuditService, Caller, CredentialService, ExpertiseService, GroupService, Principal,
    PrivacyService, ServiceError, UserService,
};
use kenning_domain::{
    AuditLimit, CredentialKind, GroupFilter, GroupInput, LanguageId, Patch, Scope, Scoring, Status,
    TextFormat, User, UserPatchInput,
};
use kenning_ports::{AuditQuery, Extraction, TopicExtractor};
use uuid::Uuid;

use super::{person, world};

/// Finds no topic in any text: these checks are about who may ask.
struct NoTopics;

impl TopicExtractor for NoTopics {
    fn extract(&self, _: &str, _: TextFormat, _: Option<&str>, _: usize) -> Extraction {
        Extraction {
            language: "en".to_owned(),
            topics: Vec::new(),
            words: Vec::new(),
        }
    }
}

/// Every service a door calls, as the composition root builds them (for
/// the operator), with two people in the directory.
struct Doors {
    users: UserService,
    groups: GroupService,
    expertise: ExpertiseService,
    privacy: PrivacyService,
    audit: AuditService,
    credentials: CredentialService,
    ada: User,
    bob: User,
}

fn doors() -> Doors {
    let (store, clock) = world();
    let users = UserService::new(
        store.clone(),
        clock.clone(),
        LanguageId::parse("en").unwrap(),
    );
    let groups = GroupService::new(store.clone(), store.clone(), clock.clone());
    let expertise = ExpertiseService::new(
        store.clone(),
        store.clone(),
        store.clone(),
        Arc::new(NoTopics),
        clock.clone(),
        Scoring::default(),
    )
    .with_privacy(store.clone());
    let privacy = PrivacyService::new(
        store.clone(),
        store.clone(),
        store.clone(),
        store.clone(),
        expertise.clone(),
        clock.clone(),
    );
    let (ada, bob) = (
        person(&users, "ada@example.com"),
        person(&users, "bob@example.com"),
    );
    Doors {
        audit: AuditService::new(store.clone(), clock.clone()),
        credentials: CredentialService::new(store, clock),
        users,
        groups,
        expertise,
        privacy,
        ada,
        bob,
    }
}

fn token(scopes: &[Scope]) -> Caller {
    Caller::Machine(Principal {
        credential_id: Uuid::new_v4(),
        name: "script".to_owned(),
        scopes: scopes.to_vec(),
    })
}

#[track_caller]
fn refused<T: std::fmt::Debug>(answer: Result<T, ServiceError>) {
    assert!(
        matches!(answer, Err(ServiceError::Forbidden(_))),
        "expected Forbidden, got {answer:?}"
    );
}

#[test]
fn a_token_does_through_each_use_case_what_its_scopes_allow() {
    let d = doors();
    let experts = token(&[Scope::ExpertiseRead]);
    assert_eq!(
        d.expertise
            .called_by(experts.clone())
            .person(d.ada.id())
            .unwrap()
            .id(),
        d.ada.id()
    );
    refused(d.users.called_by(experts.clone()).get(d.ada.id()));
    refused(
        d.groups
            .called_by(experts.clone())
            .list(&GroupFilter::default(), 0, 10),
    );
    refused(
        d.audit
            .called_by(experts.clone())
            .entries(AuditQuery::default(), AuditLimit::default()),
    );
    refused(d.privacy.called_by(experts).rules());

    let reader = token(&[Scope::UsersRead]);
    assert!(d.users.called_by(reader.clone()).get(d.ada.id()).is_ok());
    assert!(d.users.called_by(reader.clone()).may_read().is_ok());
    refused(d.users.called_by(reader.clone()).get_for_change(d.ada.id()));
    refused(d.users.called_by(reader.clone()).deactivate(d.ada.id()));
    refused(d.expertise.called_by(reader.clone()).person(d.ada.id()));

    let writer = token(&[Scope::UsersWrite]);
    refused(d.users.called_by(writer.clone()).get(d.ada.id()));
    refused(d.users.called_by(writer.clone()).may_read());
    assert!(d
        .users
        .called_by(writer.clone())
        .get_for_change(d.ada.id())
        .is_ok());
    let patched = d
        .users
        .called_by(writer.clone())
        .update(
            d.ada.id(),
            UserPatchInput {
                firstname: Patch::Set("Augusta".to_owned()),
                ..UserPatchInput::default()
            },
            None,
        )
        .unwrap();
    assert_eq!(patched.profile().unwrap().firstname.as_str(), "Augusta");
    // A token of every scope still issues no credential.
    refused(
        d.credentials
            .called_by(token(&Scope::ALL))
            .list(CredentialKind::AccessToken),
    );
}

#[test]
fn a_person_reads_and_changes_their_own_data_only_and_a_refusal_writes_nothing() {
    let d = doors();
    let ada = Caller::Person(d.ada.id());
    let (own, other) = (d.ada.id(), d.bob.id());
    assert!(d.privacy.called_by(ada.clone()).learning_of(own).is_ok());
    refused(d.privacy.called_by(ada.clone()).learning_of(other));
    refused(d.privacy.called_by(ada.clone()).export(other));
    refused(d.privacy.called_by(ada.clone()).forget(other));
    assert!(d
        .expertise
        .called_by(ada.clone())
        .hidden_topics(own)
        .is_ok());
    refused(d.expertise.called_by(ada.clone()).hidden_topics(other));
    refused(
        d.expertise
            .called_by(ada.clone())
            .set_topic_hidden(other, "rust", true),
    );
    // The people of an answer, and the groups, are a person's to read; the
    // directory is not.
    assert!(d.expertise.called_by(ada.clone()).person(other).is_ok());
    assert!(d
        .expertise
        .called_by(ada.clone())
        .learns_about(other)
        .unwrap());
    assert!(d
        .groups
        .called_by(ada.clone())
        .list(&GroupFilter::default(), 0, 10)
        .is_ok());
    refused(d.users.called_by(ada.clone()).get(other));
    refused(
        d.credentials
            .called_by(ada.clone())
            .list(CredentialKind::ApiKey),
    );
    refused(d.users.called_by(ada.clone()).deactivate(other));
    refused(d.groups.called_by(ada.clone()).create(GroupInput {
        display_name: "Readers".to_owned(),
        external_id: None,
        members: vec![other.to_string()],
    }));
    assert_eq!(d.users.get(other).unwrap().status(), Status::Active);
    assert_eq!(
        d.groups.list(&GroupFilter::default(), 0, 10).unwrap().total,
        0
    );
}

#[test]
fn a_service_serves_the_operator_until_a_door_names_the_caller() {
    let d = doors();
    let issued = d
        .credentials
        .issue(
            CredentialKind::AccessToken,
            "reporting",
            &[Scope::UsersRead],
        )
        .unwrap();
    assert_eq!(
        d.credentials
            .list(CredentialKind::AccessToken)
            .unwrap()
            .len(),
        1
    );
    assert!(d.users.get(d.bob.id()).is_ok());
    assert!(d.privacy.export(d.bob.id()).is_ok());
    let administrator = Caller::Administrator(d.ada.id());
    let credentials = d.credentials.called_by(administrator);
    credentials
        .revoke(CredentialKind::AccessToken, issued.credential.id)
        .unwrap();
    // Narrowed again, the same service refuses.
    refused(
        credentials
            .called_by(Caller::Person(d.ada.id()))
            .list(CredentialKind::AccessToken),
    );
}
