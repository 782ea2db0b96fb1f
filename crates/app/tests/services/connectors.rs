//! What connectors ask and report besides uploads: who a source's
//! identities are, decided by the rule that accepts an upload's user, and
//! the runs they report, read by whoever may read them.

use chrono::Duration;
use kenning_app::{Caller, ConnectorService, Gate, Machine, ServiceError, UseCases, UserService};
use kenning_domain::{Actor, Channel, IdentityInput, NewUserInput, Raw, RunInput, Scope, User};
use uuid::Uuid;

use super::{callers, start, users, world};

fn identity(email: Option<&str>, external_id: Option<&str>) -> Raw<IdentityInput> {
    let raw = |v: Option<&str>| v.map_or(Raw::Missing, |v| Raw::Value(v.to_owned()));
    Raw::Value(IdentityInput {
        email: raw(email),
        external_id: raw(external_id),
        refused_fields: Vec::new(),
    })
}

fn with_external_id(users: &UserService, email: &str, external_id: &str) -> User {
    users
        .create(NewUserInput {
            email: email.to_owned(),
            firstname: "Grace".to_owned(),
            lastname: "Hopper".to_owned(),
            external_id: Some(external_id.to_owned()),
            ..NewUserInput::default()
        })
        .unwrap()
}

/// The addresses `identify` answers, as text.
fn identified(users: &UserService, identities: Vec<Raw<IdentityInput>>) -> Vec<Option<String>> {
    users
        .identify(Raw::Value(identities))
        .unwrap()
        .into_iter()
        .map(|email| email.map(|e| e.as_str().to_owned()))
        .collect()
}

#[test]
fn an_identity_is_the_user_an_upload_naming_it_would_teach() {
    let users = users(&world());
    with_external_id(&users, "Grace@Example.org", "emp-7");
    let leaving = with_external_id(&users, "leaving@example.org", "emp-8");
    users.delete(leaving.id()).unwrap();
    let resting = with_external_id(&users, "resting@example.org", "emp-9");
    users.deactivate(resting.id()).unwrap();
    with_external_id(&users, "other@example.org", "emp-10");
    assert_eq!(
        identified(
            &users,
            vec![
                identity(Some("GRACE@example.ORG"), None),
                identity(None, Some("emp-7")),
                identity(Some("nobody@example.org"), Some("emp-7")),
                identity(None, Some("EMP-7")),
                identity(Some("leaving@example.org"), None),
                identity(None, Some("emp-8")),
                identity(Some("resting@example.org"), None),
                // The address's user decides: pending deletion, so nobody,
                // though the externalId is another's.
                identity(Some("leaving@example.org"), Some("emp-10")),
                identity(Some("root@(none)"), None),
            ]
        ),
        [
            Some("Grace@Example.org".to_owned()),
            Some("Grace@Example.org".to_owned()),
            Some("Grace@Example.org".to_owned()),
            None,
            None,
            None,
            Some("resting@example.org".to_owned()),
            None,
            None,
        ]
    );
}

#[test]
fn identities_are_checked_before_anyone_is_looked_up() {
    let users = users(&world());
    let refused = users
        .identify(Raw::Value(vec![identity(None, None)]))
        .unwrap_err();
    let ServiceError::Validation(errors) = refused else {
        panic!("{refused:?}")
    };
    assert_eq!(errors.first().field, "identities[0]");
    let too_many = vec![identity(Some("a@example.org"), None); 1001];
    assert_eq!(
        users.identify(Raw::Value(too_many)).unwrap_err().code(),
        "ValidationError"
    );
}

fn report(source: &str, error: Option<&str>) -> RunInput {
    let s = |v: &str| Raw::Value(v.to_owned());
    RunInput {
        source: s(source),
        name: s("/srv/git/kenning.git"),
        started: s("2026-03-02T07:00:00Z"),
        finished: s("2026-03-02T07:05:00Z"),
        read: Raw::Value(12),
        sent: Raw::Value(10),
        known: Raw::Value(1),
        not_found: Raw::Value(1),
        refused: Raw::Missing,
        failed: Raw::Value(0),
        dry_run: Raw::Value(false),
        error: error.map_or(Raw::Null, s),
        refused_fields: Vec::new(),
    }
}

fn key(name: &str) -> Machine {
    Machine {
        credential_id: Uuid::new_v4(),
        name: name.to_owned(),
        scopes: Vec::new(),
    }
}

#[test]
fn a_run_is_recorded_as_its_key_reported_it_when_it_was_received() {
    let world = world();
    let connectors = ConnectorService::new(world.0.clone(), world.0.clone(), world.1.clone());
    let nightly = key("nightly git");
    let first = connectors
        .record_run(report("git", None), &nightly)
        .unwrap();
    world.1.advance(Duration::minutes(15));
    let second = connectors
        .record_run(report("git", Some("not a git repository")), &nightly)
        .unwrap();
    let sources = connectors.sources(0, 100).unwrap().sources;
    assert_eq!(sources.len(), 1);
    let git = &sources[0];
    assert_eq!(git.last.id, second);
    assert_ne!(first, second);
    assert_eq!(git.runs, 2);
    assert_eq!(git.since, start());
    assert_eq!(git.last.received, start() + Duration::minutes(15));
    assert_eq!(git.last.credential_id, nightly.credential_id);
    assert_eq!(git.last.credential_name, "nightly git");
    assert!(git.last.report.troubled());
    let runs = connectors
        .runs_of("git", "/srv/git/kenning.git", 10)
        .unwrap();
    assert_eq!(
        runs.iter().map(|r| r.id).collect::<Vec<_>>(),
        [second, first]
    );
    let refused = connectors
        .record_run(report("Git", None), &nightly)
        .unwrap_err();
    assert_eq!(refused.code(), "ValidationError");
    assert_eq!(
        connectors.sources(0, 100).unwrap().sources[0].runs,
        2,
        "nothing recorded"
    );
    assert_eq!(
        connectors.runs_of("Git", " ", 10).unwrap_err().code(),
        "ValidationError"
    );
}

#[test]
fn runs_are_read_by_administrators_and_tokens_that_read_users() {
    let world = world();
    let use_cases = callers::use_cases(&world);
    use_cases
        .connectors
        .record_run(report("git", None), &key("nightly git"))
        .unwrap();
    let ada = super::person(&use_cases.users, "ada@example.com");
    let as_ = |caller: Caller| -> UseCases {
        Gate::new(use_cases.clone()).called_by(
            caller,
            Actor::credential(Uuid::new_v4(), "door", Channel::GraphQl),
        )
    };
    let admin = as_(Caller::Administrator(ada.id()));
    assert_eq!(admin.connectors.sources(0, 100).unwrap().sources.len(), 1);
    let reader = as_(callers::token(&[Scope::UsersRead]));
    assert_eq!(reader.connectors.sources(0, 100).unwrap().sources.len(), 1);
    for refused in [
        as_(Caller::Person(ada.id())),
        as_(callers::token(&[Scope::ExpertiseRead, Scope::AuditRead])),
    ] {
        assert_eq!(
            refused.connectors.sources(0, 100).unwrap_err().code(),
            "Forbidden"
        );
        assert_eq!(
            refused
                .connectors
                .runs_of("git", "/srv/git/kenning.git", 1)
                .unwrap_err()
                .code(),
            "Forbidden"
        );
        // Who a source's identities are is a read of the directory too.
        assert_eq!(
            refused
                .users
                .identify(Raw::Value(vec![identity(Some("ada@example.com"), None)]))
                .unwrap_err()
                .code(),
            "Forbidden"
        );
    }
    assert_eq!(
        reader
            .users
            .identify(Raw::Value(vec![identity(Some("ADA@example.com"), None)]))
            .unwrap()[0]
            .as_ref()
            .map(|e| e.as_str().to_owned()),
        Some("ada@example.com".to_owned())
    );
}

/// A source is its last run's key's: another live key may not report it
/// (and so bury its failed runs) until that key is revoked; and a key
/// reports a bounded number of sources.
#[test]
fn a_key_reports_its_own_sources_and_a_bounded_number_of_them() {
    let world = world();
    let connectors = ConnectorService::new(world.0.clone(), world.0.clone(), world.1.clone());
    let credentials = kenning_app::CredentialService::new(world.0.clone(), world.1.clone());
    let issue = |name: &str| {
        let issued = credentials
            .issue(kenning_domain::CredentialKind::ApiKey, name, &[], None)
            .unwrap();
        Machine {
            credential_id: issued.credential.id,
            name: name.to_owned(),
            scopes: Vec::new(),
        }
    };
    let nightly = issue("nightly git");
    let other = issue("other");
    connectors
        .record_run(report("git", Some("not a git repository")), &nightly)
        .unwrap();
    let refused = connectors
        .record_run(report("git", None), &other)
        .unwrap_err();
    assert_eq!(refused.code(), "Forbidden");
    assert!(refused.to_string().contains("nightly git"), "{refused}");
    let sources = connectors.sources(0, 10).unwrap().sources;
    assert!(
        sources[0].last.report.troubled(),
        "the failed run stays last"
    );

    credentials
        .revoke(
            kenning_domain::CredentialKind::ApiKey,
            nightly.credential_id,
        )
        .unwrap();
    connectors.record_run(report("git", None), &other).unwrap();

    let mut many = report("mail", None);
    for n in 1..kenning_app::MAX_SOURCES_PER_KEY {
        many.name = Raw::Value(format!("/var/mail/{n}"));
        connectors.record_run(many.clone(), &other).unwrap();
    }
    many.name = Raw::Value("/var/mail/one-more".to_owned());
    let refused = connectors.record_run(many, &other).unwrap_err();
    assert_eq!(refused.code(), "Forbidden");
    assert!(refused.to_string().contains("1000 sources"), "{refused}");
    // Its own sources it still reports.
    connectors.record_run(report("git", None), &other).unwrap();
    let page = connectors.sources(0, 10).unwrap();
    assert_eq!(page.total, kenning_app::MAX_SOURCES_PER_KEY);
    assert_eq!(page.sources.len(), 10);
}
