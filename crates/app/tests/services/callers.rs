//! Each use case asks who calls: the use cases narrowed with
//! `Gate::called_by`, as every door narrows them, refuse what that
//! caller may not do, and a refusal writes nothing.

use std::sync::Arc;

use std::time::Duration;

use kenning_app::{
    Administrators, AdministratorsGroup, AuditService, Caller, ConnectorService, CredentialService,
    DeliverySettings, Gate, GroupService, PrivacyService, ServiceError, SessionService, UseCases,
    WebhookService,
};
use kenning_domain::{
    Actor, AuditLimit, Channel, CredentialKind, GroupFilter, GroupInput, Patch, Scope,
    SessionPolicy, SignInMethod, Status, TextFormat, User, UserKey, UserPatchInput,
};
use kenning_ports::{AuditQuery, Extraction, TopicExtractor};
use kenning_webhook::{EventSource, NetworkPolicy, Webhooks};
use uuid::Uuid;

use super::{expertise, person, users, world, World};

mod rows;

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
    world: World,
    use_cases: UseCases,
    ada: User,
    bob: User,
}

fn doors() -> Doors {
    let world = world();
    let use_cases = use_cases(&world);
    let (ada, bob) = (
        person(&use_cases.users, "ada@example.com"),
        person(&use_cases.users, "bob@example.com"),
    );
    Doors {
        world,
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
        Gate::new(self.use_cases.clone(), Administrators::nobody()).called_by(
            caller,
            Actor::credential(Uuid::new_v4(), "door", Channel::GraphQl),
        )
    }

    /// A script with a new access token of `scopes`, as the gate makes it.
    fn token(&self, scopes: &[Scope]) -> Caller {
        token(&self.use_cases, scopes)
    }

    /// `user` signed in, no administrator, as the gate makes them.
    fn person(&self, user: &User) -> Caller {
        signed_in(&self.use_cases, &Administrators::nobody(), user)
    }

    /// `user` signed in as an administrator, as the gate makes them.
    fn administrator(&self, user: &User) -> Caller {
        let administrators = administrators_of(&self.world, &self.use_cases, user);
        signed_in(&self.use_cases, &administrators, user)
    }
}

/// A script with a new access token of `scopes` issued by the operator of
/// `use_cases`, as the gate makes it once the token is presented.
pub(super) fn token(use_cases: &UseCases, scopes: &[Scope]) -> Caller {
    let issued = use_cases
        .credentials
        .issue(
            CredentialKind::AccessToken,
            &format!("script {}", Uuid::new_v4().simple()),
            scopes,
            None,
        )
        .unwrap();
    let gate = Gate::new(use_cases.clone(), Administrators::nobody());
    gate.for_token(
        gate.authenticate(CredentialKind::AccessToken, &issued.secret)
            .unwrap(),
    )
    .unwrap()
}

/// `user` signed in to the web app, as the gate makes them: an
/// administrator when `administrators` say so.
pub(super) fn signed_in(
    use_cases: &UseCases,
    administrators: &Administrators,
    user: &User,
) -> Caller {
    let email = user.profile().unwrap().email.clone();
    let begun = use_cases
        .sessions
        .sign_in_as(&UserKey::Email(email), SignInMethod::Oidc)
        .unwrap();
    let session = use_cases.sessions.session(&begun.secret).unwrap();
    Gate::new(use_cases.clone(), administrators.clone())
        .for_session(&session)
        .unwrap()
}

/// The administrators of a new group in `world` whose one member is
/// `user`.
pub(super) fn administrators_of(
    world: &World,
    use_cases: &UseCases,
    user: &User,
) -> Administrators {
    let group = use_cases
        .groups
        .create(GroupInput {
            display_name: format!("Administrators {}", Uuid::new_v4().simple()),
            external_id: None,
            members: vec![user.id().to_string()],
        })
        .unwrap();
    Administrators::of_group(
        AdministratorsGroup::Id(group.id()),
        world.0.clone(),
        world.0.clone(),
    )
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

    let experts = d.as_(d.token(&[Scope::ExpertiseRead]));
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

    let reader = d.as_(d.token(&[Scope::UsersRead]));
    assert!(reader.users.get(ada).is_ok());
    assert!(reader.users.may_read().is_ok());
    assert!(reader.expertise.hidden_topics(bob).is_ok());
    refused(reader.users.get_for_change(ada));
    refused(reader.users.deactivate(ada));
    refused(reader.expertise.person(ada));

    let writer = d.as_(d.token(&[Scope::UsersWrite]));
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

    let hooks = d.as_(d.token(&[Scope::WebhooksManage]));
    assert!(hooks.webhooks.subscriptions().unwrap().is_empty());
    // A token of every scope still issues no credential.
    refused(
        d.as_(d.token(&Scope::ALL))
            .credentials
            .list(CredentialKind::AccessToken),
    );
}

#[test]
fn a_person_reads_and_changes_their_own_data_only_and_a_refusal_writes_nothing() {
    let d = doors();
    let (own, other) = (d.ada.id(), d.bob.id());
    let ada = d.as_(d.person(&d.ada));
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
    let ada = d.as_(d.person(&d.ada));
    assert_eq!(ada.expertise.declare_topic(own, "COBOL").unwrap().len(), 1);
    refused(ada.expertise.declare_topic(other, "COBOL"));
    refused(ada.expertise.withdraw_topic(other, "cobol"));
    // Neither a token of every scope nor an administrator says it for
    // someone else; an administrator says it for themselves.
    refused(
        d.as_(d.token(&Scope::ALL))
            .expertise
            .declare_topic(own, "Lisp"),
    );
    refused(
        d.as_(d.token(&Scope::ALL))
            .expertise
            .withdraw_topic(own, "cobol"),
    );
    let admin = d.as_(d.administrator(&d.bob));
    refused(admin.expertise.declare_topic(own, "Lisp"));
    assert_eq!(
        admin.expertise.declare_topic(other, "Lisp").unwrap().len(),
        1
    );
    // What they say is read as their profile is.
    let reader = d.as_(d.token(&[Scope::ExpertiseRead]));
    assert_eq!(reader.expertise.declared_topics(own).unwrap().len(), 1);
    refused(
        d.as_(d.token(&[Scope::UsersRead]))
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
    let administrator = d.as_(d.administrator(&d.ada));
    administrator
        .credentials
        .revoke(CredentialKind::AccessToken, issued.credential.id)
        .unwrap();
    assert!(administrator.privacy.export(d.bob.id()).is_ok());
    // The same person, not an administrator on this request, is refused.
    let person = d.as_(d.person(&d.ada));
    refused(person.credentials.list(CredentialKind::AccessToken));
    refused(person.privacy.export(d.bob.id()));
}

#[test]
fn a_member_is_added_by_e_mail_and_taken_out_by_id_by_who_may_change_groups() {
    let d = doors();
    let writer = d.as_(d.token(&[Scope::UsersWrite]));
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
        d.as_(d.person(&d.bob))
            .groups
            .add_member_by_email(id, "bob@example.com"),
    );
    refused(
        d.as_(d.token(&[Scope::UsersRead]))
            .groups
            .remove_member(id, d.ada.id()),
    );
    let taken_out = writer.groups.remove_member(id, d.ada.id()).unwrap();
    assert!(members(&taken_out).is_empty());
}

/// A run's report, as a connector sends it.
fn a_run() -> kenning_domain::RunInput {
    use kenning_domain::Raw;
    let s = |v: &str| Raw::Value(v.to_owned());
    kenning_domain::RunInput {
        source: s("git"),
        name: s("/srv/git/kenning.git"),
        started: s("2026-03-02T07:00:00Z"),
        finished: s("2026-03-02T07:05:00Z"),
        read: Raw::Value(1),
        sent: Raw::Value(1),
        known: Raw::Value(0),
        not_found: Raw::Value(0),
        refused: Raw::Missing,
        failed: Raw::Value(0),
        dry_run: Raw::Value(false),
        error: Raw::Null,
        refused_fields: Vec::new(),
    }
}

#[test]
fn a_token_is_no_connector_and_an_api_key_no_token() {
    let d = doors();
    let gate = Gate::new(d.use_cases.clone(), Administrators::nobody());
    let issue = |kind| {
        let issued = d
            .use_cases
            .credentials
            .issue(kind, &format!("{kind:?}"), &[], None)
            .unwrap();
        gate.authenticate(kind, &issued.secret).unwrap()
    };
    let token = issue(CredentialKind::AccessToken);
    let key = issue(CredentialKind::ApiKey);
    assert!(matches!(
        gate.connector(token.clone()),
        Err(ServiceError::Unauthenticated)
    ));
    assert!(matches!(
        gate.for_token(key.clone()),
        Err(ServiceError::Unauthenticated)
    ));
    assert!(gate.for_token(token).is_ok());
    assert!(gate.connector(key).unwrap().record_run(a_run()).is_ok());
}

/// An upload of `email`'s, as a connector sends it.
fn an_upload(email: &str) -> kenning_domain::UploadInput {
    use kenning_domain::{Raw, UploadInput};
    UploadInput {
        entity_type: Raw::Value("document".into()),
        action_type: Raw::Value("create".into()),
        action_date: Raw::Value("2026-03-01T10:00:00.000Z".into()),
        user_email: Raw::Value(email.into()),
        text: Raw::Value("Register allocation by graph colouring.".into()),
        ..UploadInput::default()
    }
}

#[test]
fn no_door_uploads_reports_a_run_or_runs_a_round_and_the_operator_runs_the_rounds() {
    let d = doors();
    for caller in [
        d.token(&Scope::ALL),
        d.administrator(&d.ada),
        d.person(&d.bob),
    ] {
        let door = d.as_(caller);
        refused(door.expertise.upload(an_upload("ada@example.com")));
        refused(door.users.identify(kenning_domain::Raw::Value(Vec::new())));
        refused(door.users.purge_due());
        refused(door.privacy.forget_expired(1));
        refused(door.privacy.prune_asked());
        refused(door.expertise.rebuild_standings());
        refused(door.expertise.refresh_meanings());
        refused(door.audit.prune(1));
        refused(door.webhooks.deliver_due());
        refused(door.sessions.prune());
        refused(door.connectors.record_run(a_run()));
    }
    // The operator has no key to report a run as.
    refused(d.use_cases.connectors.record_run(a_run()));
    // What the gate hands anyone to sign in with runs no round either.
    let gate = Gate::new(d.use_cases.clone(), Administrators::nobody());
    refused(gate.sessions().prune());
    // The operator (the composition root, the command line) runs them.
    let operator = &d.use_cases;
    assert_eq!(operator.users.purge_due().unwrap(), 0);
    assert_eq!(operator.privacy.forget_expired(1).unwrap(), 0);
    assert_eq!(operator.audit.prune(1).unwrap(), 0);
    assert_eq!(operator.sessions.prune().unwrap(), 0);
    assert!(operator.webhooks.deliver_due().is_ok());
    assert!(operator
        .expertise
        .upload(an_upload("ada@example.com"))
        .is_ok());
}
