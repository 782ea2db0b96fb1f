//! What connectors ask and report besides uploads: who a source's
//! identities are, decided by the rule that accepts an upload's user, and
//! the runs they report, read by whoever may read them.

use chrono::Duration;
use kenning_app::{
    Administrators, Caller, Connector, Gate, Machine, ServiceError, UseCases, UserService,
};
use kenning_domain::{
    Actor, Channel, CredentialKind, IdentityInput, NewUserInput, Raw, RunInput, Scope, User,
};
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

/// A connector with a new API key named `name`, as the gate makes it once
/// the key is presented, and the key.
fn connector(use_cases: &UseCases, name: &str) -> (Connector, Machine) {
    let issued = use_cases
        .credentials
        .issue(CredentialKind::ApiKey, name, &[], None)
        .unwrap();
    let gate = Gate::new(use_cases.clone(), Administrators::nobody());
    let key = gate
        .authenticate(CredentialKind::ApiKey, &issued.secret)
        .unwrap();
    (gate.connector(key.clone()).unwrap(), key)
}

#[test]
fn a_run_is_recorded_as_its_key_reported_it_when_it_was_received() {
    let world = world();
    let use_cases = callers::use_cases(&world);
    let connectors = &use_cases.connectors;
    let (nightly, key) = connector(&use_cases, "nightly git");
    let first = nightly.record_run(report("git", None)).unwrap();
    world.1.advance(Duration::minutes(15));
    let second = nightly
        .record_run(report("git", Some("not a git repository")))
        .unwrap();
    let sources = connectors.sources(0, 100).unwrap().sources;
    assert_eq!(sources.len(), 1);
    let git = &sources[0];
    assert_eq!(git.last.id, second);
    assert_ne!(first, second);
    assert_eq!(git.runs, 2);
    assert_eq!(git.since, start());
    assert_eq!(git.last.received, start() + Duration::minutes(15));
    assert_eq!(git.last.credential_id, key.credential_id());
    assert_eq!(git.last.credential_name, "nightly git");
    assert!(git.last.report.troubled());
    let runs = connectors
        .runs_of("git", "/srv/git/kenning.git", 10)
        .unwrap();
    assert_eq!(
        runs.iter().map(|r| r.id).collect::<Vec<_>>(),
        [second, first]
    );
    let refused = nightly.record_run(report("Git", None)).unwrap_err();
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
    let (nightly, _) = connector(&use_cases, "nightly git");
    nightly.record_run(report("git", None)).unwrap();
    let ada = super::person(&use_cases.users, "ada@example.com");
    let as_ = |caller: Caller| -> UseCases {
        Gate::new(use_cases.clone(), Administrators::nobody()).called_by(
            caller,
            Actor::credential(Uuid::new_v4(), "door", Channel::GraphQl),
        )
    };
    let administrators = callers::administrators_of(&world, &use_cases, &ada);
    let admin = as_(callers::signed_in(&use_cases, &administrators, &ada));
    assert_eq!(admin.connectors.sources(0, 100).unwrap().sources.len(), 1);
    let reader = as_(callers::token(&use_cases, &[Scope::UsersRead]));
    assert_eq!(reader.connectors.sources(0, 100).unwrap().sources.len(), 1);
    for refused in [
        as_(callers::signed_in(
            &use_cases,
            &Administrators::nobody(),
            &ada,
        )),
        as_(callers::token(
            &use_cases,
            &[Scope::ExpertiseRead, Scope::AuditRead],
        )),
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
    }
    // Who a source's identities are is a connector's question, no
    // door's.
    for refused in [admin, reader] {
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
        nightly
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
    let use_cases = callers::use_cases(&world);
    let connectors = &use_cases.connectors;
    let (nightly, nightly_key) = connector(&use_cases, "nightly git");
    let (other, _) = connector(&use_cases, "other");
    nightly
        .record_run(report("git", Some("not a git repository")))
        .unwrap();
    let refused = other.record_run(report("git", None)).unwrap_err();
    assert_eq!(refused.code(), "Forbidden");
    assert!(refused.to_string().contains("nightly git"), "{refused}");
    let sources = connectors.sources(0, 10).unwrap().sources;
    assert!(
        sources[0].last.report.troubled(),
        "the failed run stays last"
    );

    use_cases
        .credentials
        .revoke(CredentialKind::ApiKey, nightly_key.credential_id())
        .unwrap();
    other.record_run(report("git", None)).unwrap();

    let mut many = report("mail", None);
    for n in 1..kenning_app::MAX_SOURCES_PER_KEY {
        many.name = Raw::Value(format!("/var/mail/{n}"));
        other.record_run(many.clone()).unwrap();
    }
    many.name = Raw::Value("/var/mail/one-more".to_owned());
    let refused = other.record_run(many).unwrap_err();
    assert_eq!(refused.code(), "Forbidden");
    assert!(refused.to_string().contains("1000 sources"), "{refused}");
    // Its own sources it still reports.
    other.record_run(report("git", None)).unwrap();
    let page = connectors.sources(0, 10).unwrap();
    assert_eq!(page.total, kenning_app::MAX_SOURCES_PER_KEY);
    assert_eq!(page.sources.len(), 10);
}
