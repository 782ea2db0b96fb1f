//! Each use case asks who calls: the use cases narrowed with
//! `Gate::called_by`, as every door narrows them, refuse what that
//! caller may not do, and a refusal writes nothing.

use std::sync::Arc;

use std::time::Duration;

use kenning_app::{
    AuditService, Caller, ConnectorService, CredentialService, DeliverySettings, Gate,
    GroupService, Machine, PrivacyService, ServiceError, SessionService, UseCases, WebhookService,
};
use kenning_domain::{
    Actor, AuditLimit, Channel, CredentialKind, GroupFilter, GroupInput, Patch, Scope,
    SessionPolicy, Status, TextFormat, User, UserPatchInput,
};
use kenning_ports::{AuditQuery, Extraction, TopicExtractor};
use kenning_webhook::{EventSource, NetworkPolicy, Webhooks};
use uuid::Uuid;

use super::{expertise, person, users, world, World};

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

/// Every use case a door calls, as the composition root builds them (for
/// the operator), with two people in the directory.
struct Doors {
    use_cases: UseCases,
    ada: User,
    bob: User,
}

fn doors() -> Doors {
    let use_cases = use_cases(&world());
    let (ada, bob) = (
        person(&use_cases.users, "ada@example.com"),
        person(&use_cases.users, "bob@example.com"),
    );
    Doors {
        use_cases,
        ada,
        bob,
    }
}

/// Every use case a door calls over `world`, as the composition root
/// builds them (for the operator), without an administrators' group.
pub(super) fn use_cases(world: &World) -> UseCases {
    let users = users(world);
    let expertise = expertise(world, Arc::new(NoTopics)).with_privacy(world.0.clone());
    let (store, clock) = world.clone();
    UseCases {
        groups: GroupService::new(store.clone(), store.clone(), clock.clone()),
        privacy: PrivacyService::new(
            store.clone(),
            store.clone(),
            store.clone(),
            store.clone(),
            expertise.clone(),
            clock.clone(),
        ),
        audit: AuditService::new(store.clone(), clock.clone()),
        webhooks: WebhookService::new(
            store.clone(),
            Arc::new(Webhooks::new(
                NetworkPolicy::default(),
                Duration::from_secs(1),
                EventSource::default(),
            )),
            clock.clone(),
            DeliverySettings::default(),
        ),
        sessions: SessionService::new(
            store.clone(),
            store.clone(),
            clock.clone(),
            SessionPolicy::default(),
        ),
        connectors: ConnectorService::new(store.clone(), store.clone(), clock.clone()),
        credentials: CredentialService::new(store, clock),
        users,
        expertise,
    }
}

impl Doors {
    /// The use cases as `caller` calls them, as a door narrows them.
    fn as_(&self, caller: Caller) -> UseCases {
        Gate::new(self.use_cases.clone()).called_by(
            caller,
            Actor::credential(Uuid::new_v4(), "door", Channel::GraphQl),
        )
    }
}

pub(super) fn token(scopes: &[Scope]) -> Caller {
    Caller::Machine(Machine {
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
    let (ada, bob) = (d.ada.id(), d.bob.id());

    let experts = d.as_(token(&[Scope::ExpertiseRead]));
    assert_eq!(experts.expertise.person(ada).unwrap().id(), ada);
    assert_eq!(experts.expertise.people(&[ada, bob]).unwrap().len(), 2);
    refused(experts.users.get(ada));
    refused(experts.groups.list(&GroupFilter::default(), 0, 10));
    refused(
        experts
            .audit
            .entries(AuditQuery::default(), AuditLimit::default()),
    );
    refused(experts.privacy.rules());
    refused(experts.webhooks.subscriptions());

    let reader = d.as_(token(&[Scope::UsersRead]));
    assert!(reader.users.get(ada).is_ok());
    assert!(reader.users.may_read().is_ok());
    assert!(reader.expertise.hidden_topics(bob).is_ok());
    refused(reader.users.get_for_change(ada));
    refused(reader.users.deactivate(ada));
    refused(reader.expertise.person(ada));

    let writer = d.as_(token(&[Scope::UsersWrite]));
    refused(writer.users.get(ada));
    refused(writer.users.may_read());
    assert!(writer.users.get_for_change(ada).is_ok());
    let patched = writer
        .users
        .update(
            ada,
            UserPatchInput {
                firstname: Patch::Set("Augusta".to_owned()),
                ..UserPatchInput::default()
            },
            None,
        )
        .unwrap();
    assert_eq!(patched.profile().unwrap().firstname.as_str(), "Augusta");

    let hooks = d.as_(token(&[Scope::WebhooksManage]));
    assert!(hooks.webhooks.subscriptions().unwrap().is_empty());
    // A token of every scope still issues no credential.
    refused(
        d.as_(token(&Scope::ALL))
            .credentials
            .list(CredentialKind::AccessToken),
    );
}

#[test]
fn a_person_reads_and_changes_their_own_data_only_and_a_refusal_writes_nothing() {
    let d = doors();
    let (own, other) = (d.ada.id(), d.bob.id());
    let ada = d.as_(Caller::Person(own));
    assert!(ada.privacy.learning_of(own).is_ok());
    assert!(ada.privacy.rules().is_ok());
    refused(ada.privacy.learning_of(other));
    refused(ada.privacy.export(other));
    refused(ada.privacy.forget(other));
    assert!(ada.expertise.hidden_topics(own).is_ok());
    refused(ada.expertise.hidden_topics(other));
    refused(ada.expertise.set_topic_hidden(other, "rust", true));
    // The people of an answer, and the groups, are a person's to read; the
    // directory is not.
    assert!(ada.expertise.person(other).is_ok());
    assert!(ada.expertise.learns_about(other).unwrap());
    assert!(ada.groups.list(&GroupFilter::default(), 0, 10).is_ok());
    refused(ada.users.get(other));
    refused(ada.credentials.list(CredentialKind::ApiKey));
    refused(ada.users.deactivate(other));
    refused(ada.groups.create(GroupInput {
        display_name: "Readers".to_owned(),
        external_id: None,
        members: vec![other.to_string()],
    }));
    let operator = &d.use_cases;
    assert_eq!(operator.users.get(other).unwrap().status(), Status::Active);
    assert_eq!(
        operator
            .groups
            .list(&GroupFilter::default(), 0, 10)
            .unwrap()
            .total,
        0
    );
}

#[test]
fn what_a_person_knows_is_said_by_the_person_alone() {
    let d = doors();
    let (own, other) = (d.ada.id(), d.bob.id());
    let ada = d.as_(Caller::Person(own));
    assert_eq!(ada.expertise.declare_topic(own, "COBOL").unwrap().len(), 1);
    refused(ada.expertise.declare_topic(other, "COBOL"));
    refused(ada.expertise.withdraw_topic(other, "cobol"));
    // Neither a token of every scope nor an administrator says it for
    // someone else; an administrator says it for themselves.
    refused(
        d.as_(token(&Scope::ALL))
            .expertise
            .declare_topic(own, "Lisp"),
    );
    refused(
        d.as_(token(&Scope::ALL))
            .expertise
            .withdraw_topic(own, "cobol"),
    );
    let admin = d.as_(Caller::Administrator(other));
    refused(admin.expertise.declare_topic(own, "Lisp"));
    assert_eq!(
        admin.expertise.declare_topic(other, "Lisp").unwrap().len(),
        1
    );
    // What they say is read as their profile is.
    let reader = d.as_(token(&[Scope::ExpertiseRead]));
    assert_eq!(reader.expertise.declared_topics(own).unwrap().len(), 1);
    refused(
        d.as_(token(&[Scope::UsersRead]))
            .expertise
            .declared_topics(own),
    );
    assert_eq!(
        d.use_cases.expertise.declared_topics(own).unwrap()[0].label,
        "COBOL"
    );
}

#[test]
fn the_use_cases_serve_the_operator_until_a_door_names_the_caller() {
    let d = doors();
    let operator = &d.use_cases;
    let issued = operator
        .credentials
        .issue(
            CredentialKind::AccessToken,
            "reporting",
            &[Scope::UsersRead],
            None,
        )
        .unwrap();
    assert_eq!(
        operator
            .credentials
            .list(CredentialKind::AccessToken)
            .unwrap()
            .len(),
        1
    );
    assert!(operator.users.get(d.bob.id()).is_ok());
    assert!(operator.privacy.export(d.bob.id()).is_ok());
    let administrator = d.as_(Caller::Administrator(d.ada.id()));
    administrator
        .credentials
        .revoke(CredentialKind::AccessToken, issued.credential.id)
        .unwrap();
    assert!(administrator.privacy.export(d.bob.id()).is_ok());
    // The same person, not an administrator on this request, is refused.
    let person = d.as_(Caller::Person(d.ada.id()));
    refused(person.credentials.list(CredentialKind::AccessToken));
    refused(person.privacy.export(d.bob.id()));
}

#[test]
fn a_member_is_added_by_e_mail_and_taken_out_by_id_by_who_may_change_groups() {
    let d = doors();
    let writer = d.as_(token(&[Scope::UsersWrite]));
    let group = writer
        .groups
        .create(GroupInput {
            display_name: "Readers".to_owned(),
            external_id: None,
            members: Vec::new(),
        })
        .unwrap();
    let id = group.id();
    let members =
        |g: &kenning_domain::Group| g.attributes().members.iter().copied().collect::<Vec<_>>();
    let added = writer
        .groups
        .add_member_by_email(id, " Ada@Example.com ")
        .unwrap();
    assert_eq!(members(&added), [d.ada.id()]);
    // A member already stays one, once.
    let again = writer
        .groups
        .add_member_by_email(id, "ada@example.com")
        .unwrap();
    assert_eq!(members(&again), [d.ada.id()]);
    let refusal = writer.groups.add_member_by_email(id, "not an address");
    assert_eq!(refusal.unwrap_err().code(), "ValidationError");
    let refusal = writer.groups.add_member_by_email(id, "nobody@example.com");
    assert!(matches!(
        refusal,
        Err(ServiceError::NotFound(kenning_app::Missing::User))
    ));
    refused(
        d.as_(Caller::Person(d.bob.id()))
            .groups
            .add_member_by_email(id, "bob@example.com"),
    );
    refused(
        d.as_(token(&[Scope::UsersRead]))
            .groups
            .remove_member(id, d.ada.id()),
    );
    let taken_out = writer.groups.remove_member(id, d.ada.id()).unwrap();
    assert!(members(&taken_out).is_empty());
}
