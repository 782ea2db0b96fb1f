//! What a person says they know, read by the real extractor: found by a
//! search as one upload about it would be, never above someone whose
//! uploads taught the same, at most twenty, removable and audited.

use std::sync::Arc;

use kenning_app::{Administrators, AuditService, Gate, ServiceError, UseCases};
use kenning_domain::{Actor, AuditLimit, ExpertsLimit, Raw, Rule, UploadInput, UserId};
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::AuditQuery;

use super::{callers, expertise, person, world};

struct Company {
    operator: UseCases,
    audit: AuditService,
    ada: UserId,
    bob: UserId,
}

fn company() -> Company {
    let world = world();
    let mut operator = callers::use_cases(&world);
    operator.expertise = expertise(&world, Arc::new(KeyphraseExtractor::new()));
    let ada = person(&operator.users, "ada@example.com").id();
    let bob = person(&operator.users, "bob@example.com").id();
    Company {
        audit: AuditService::new(world.0.clone(), world.1.clone()),
        operator,
        ada,
        bob,
    }
}

impl Company {
    fn as_person(&self, user: UserId) -> UseCases {
        let person = self.operator.users.get(user).unwrap();
        let caller = callers::signed_in(&self.operator, &Administrators::nobody(), &person);
        Gate::new(self.operator.clone(), Administrators::nobody())
            .called_by(caller, Actor::person(user.as_uuid()))
    }

    fn first_for(&self, query: &str) -> Vec<(UserId, f64)> {
        self.operator
            .expertise
            .experts(query, ExpertsLimit::default())
            .unwrap()
            .into_iter()
            .map(|e| (e.user, e.score))
            .collect()
    }
}

#[test]
fn a_person_found_by_what_they_say_stands_below_one_an_upload_taught() {
    let c = company();
    let ada = c.as_person(c.ada);
    assert!(c.first_for("COBOL batch jobs").is_empty());
    let said = ada
        .expertise
        .declare_topic(c.ada, "COBOL batch jobs")
        .unwrap();
    assert_eq!(said.len(), 1);
    assert_eq!(said[0].label, "COBOL batch jobs");
    let found = c.first_for("COBOL batch jobs");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, c.ada);
    // A word of it finds her too.
    assert_eq!(c.first_for("COBOL")[0].0, c.ada);

    // Bob's one upload about it puts him first.
    c.operator
        .expertise
        .upload(UploadInput {
            entity_type: Raw::Value("document".into()),
            action_type: Raw::Value("create".into()),
            action_date: Raw::Value("2026-03-01T10:00:00.000Z".into()),
            user_email: Raw::Value("bob@example.com".into()),
            text: Raw::Value(
                "Our COBOL batch jobs run every night; the COBOL batch jobs for payroll \
                 moved to the new scheduler."
                    .into(),
            ),
            ..UploadInput::default()
        })
        .unwrap();
    let found = c.first_for("COBOL batch jobs");
    assert_eq!(
        found.iter().map(|(u, _)| *u).collect::<Vec<_>>(),
        [c.bob, c.ada],
        "{found:?}"
    );
    assert!(found[0].1 > found[1].1, "{found:?}");

    // Withdrawn, it finds her no more.
    let key = said[0].key.clone();
    assert!(ada
        .expertise
        .withdraw_topic(c.ada, &key)
        .unwrap()
        .is_empty());
    let found = c.first_for("COBOL batch jobs");
    assert_eq!(found.iter().map(|(u, _)| *u).collect::<Vec<_>>(), [c.bob]);
}

/// Twenty subjects, each a topic of its own.
const SUBJECTS: [&str; 20] = [
    "COBOL",
    "Fortran",
    "Lisp",
    "Haskell",
    "Prolog",
    "Erlang",
    "Smalltalk",
    "Ada",
    "Pascal",
    "Scheme",
    "Clojure",
    "OCaml",
    "Elixir",
    "Kotlin",
    "Swift",
    "Julia",
    "Perl",
    "Tcl",
    "Forth",
    "Simula",
];

#[test]
fn twenty_topics_at_most_each_change_audited() {
    let c = company();
    let ada = c.as_person(c.ada);
    let entries = || {
        c.audit
            .entries(AuditQuery::default(), AuditLimit::parse(500).unwrap())
            .unwrap()
            .entries
            .len()
    };
    let before = entries();
    for topic in SUBJECTS {
        ada.expertise.declare_topic(c.ada, topic).unwrap();
    }
    assert_eq!(entries(), before + 20);
    let refused = ada.expertise.declare_topic(c.ada, "one more");
    let Err(ServiceError::Validation(e)) = refused else {
        panic!("expected a refusal, got {refused:?}");
    };
    assert_eq!(e.first().field, "declaredTopics");
    assert_eq!(e.first().rule, Rule::TooMany { max: 20 });
    assert_eq!(entries(), before + 20, "a refusal records nothing");
    // Saying it again changes nothing; a blank topic is refused by name.
    assert_eq!(
        ada.expertise.declare_topic(c.ada, "Lisp").unwrap().len(),
        20
    );
    assert!(matches!(
        ada.expertise.declare_topic(c.ada, "   "),
        Err(ServiceError::Validation(_))
    ));
}
