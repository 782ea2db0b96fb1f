//! The topics a person says they know: at most so many, also when
//! several are said at once, every change audited, read back per person
//! and per topic, and erased with the person.

use std::sync::Arc;

use chrono::Duration;
use kenning_domain::{DeclaredTopic, User};
use kenning_ports::{TopicListChange, UserStore};
use kenning_test_macros::contract_check;

use super::{adapters, by, new_user, now, Store};

fn person(store: &impl Store, name: &str) -> User {
    let user = new_user(&format!("{name}@example.com"), name, "Example", None);
    UserStore::insert(store, &user, &by()).unwrap();
    user
}

fn topic(key: &str, day: i64) -> DeclaredTopic {
    DeclaredTopic {
        key: key.to_owned(),
        label: key.to_uppercase(),
        declared: now() + Duration::days(day),
    }
}

/// A person says they know at most `most` topics: one more changes
/// nothing and records nothing; saying a topic again changes nothing;
/// withdrawing is never refused; declarations that race never pass the
/// bound.
#[contract_check]
fn a_person_says_they_know_no_more_topics_than_allowed(store: Arc<impl Store>) {
    let ada = person(&*store, "ada");
    let say = |key: &str| {
        store
            .set_declared(ada.id(), key, Some(&topic(key, 0)), 3, &by())
            .unwrap()
    };
    for key in ["cobol", "fortran", "lisp"] {
        assert_eq!(say(key), TopicListChange::Changed);
    }
    let recorded = store.audit_entries(&Default::default(), 100).unwrap().len();
    assert_eq!(say("ada"), TopicListChange::Full);
    assert_eq!(say("cobol"), TopicListChange::Unchanged);
    assert_eq!(
        store.audit_entries(&Default::default(), 100).unwrap().len(),
        recorded,
        "a refusal records nothing"
    );
    let keys = |user: &User| -> Vec<String> {
        store
            .declared_of(user.id())
            .unwrap()
            .into_iter()
            .map(|t| t.key)
            .collect()
    };
    assert_eq!(keys(&ada), ["cobol", "fortran", "lisp"]);
    assert_eq!(store.declared_of(ada.id()).unwrap()[0], topic("cobol", 0));
    let withdraw = store
        .set_declared(ada.id(), "fortran", None, 3, &by())
        .unwrap();
    assert_eq!(withdraw, TopicListChange::Changed);
    assert_eq!(
        store.audit_entries(&Default::default(), 100).unwrap().len(),
        recorded + 1,
        "a withdrawal is recorded"
    );
    assert_eq!(say("ada"), TopicListChange::Changed);
    assert_eq!(keys(&ada), ["ada", "cobol", "lisp"]);

    let bob = person(&*store, "bob").id();
    let changed = super::racing_additions(&store, move |store, n, by| {
        let key = format!("topic {n}");
        store
            .set_declared(bob, &key, Some(&topic(&key, 0)), 5, by)
            .unwrap()
    });
    assert_eq!(changed, 5);
    assert_eq!(store.declared_of(bob).unwrap().len(), 5);
}

/// Who says they know each topic asked, the newest first and at most so
/// many a topic; nothing of a person erased.
#[contract_check]
fn declarations_are_read_per_topic_and_erased_with_the_person(store: Arc<impl Store>) {
    let ada = person(&*store, "ada");
    let bob = person(&*store, "bob");
    let cy = person(&*store, "cy");
    for (user, day) in [(&ada, 0), (&bob, 2), (&cy, 1)] {
        store
            .set_declared(user.id(), "cobol", Some(&topic("cobol", day)), 20, &by())
            .unwrap();
    }
    store
        .set_declared(ada.id(), "lisp", Some(&topic("lisp", 0)), 20, &by())
        .unwrap();
    let on = store
        .declared_on(&["cobol".to_owned(), "lisp".to_owned()], 2)
        .unwrap();
    let pairs: Vec<(String, kenning_domain::UserId, String)> = on
        .iter()
        .map(|(asked, u, t)| (asked.clone(), *u, t.key.clone()))
        .collect();
    let read = |asked: &str, user: &User, key: &str| (asked.to_owned(), user.id(), key.to_owned());
    assert_eq!(
        pairs,
        [
            read("cobol", &bob, "cobol"),
            read("cobol", &cy, "cobol"),
            read("lisp", &ada, "lisp"),
        ]
    );
    // A declaration speaks of the whole words of its key, and of no
    // part of a word; a pattern's characters are read as written.
    store
        .set_declared(
            bob.id(),
            "cobol batch job",
            Some(&topic("cobol batch job", 3)),
            20,
            &by(),
        )
        .unwrap();
    let asked = |key: &str| -> Vec<String> {
        store
            .declared_on(&[key.to_owned()], 10)
            .unwrap()
            .into_iter()
            .map(|(_, _, t)| t.key)
            .collect()
    };
    assert_eq!(asked("batch"), ["cobol batch job"]);
    assert_eq!(asked("batch job"), ["cobol batch job"]);
    assert_eq!(asked("cobol batch job"), ["cobol batch job"]);
    assert!(asked("bat").is_empty());
    assert!(asked("cobol job").is_empty());
    assert!(asked("%").is_empty());
    assert!(asked("_obol").is_empty());

    store
        .modify(ada.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    store
        .modify(ada.id(), &by(), &mut |u| {
            u.anonymize(now() + Duration::days(14))
        })
        .unwrap();
    assert!(store.declared_of(ada.id()).unwrap().is_empty());
    assert!(store
        .declared_on(&["lisp".to_owned()], 5)
        .unwrap()
        .is_empty());
    assert_eq!(store.declared_of(bob.id()).unwrap().len(), 2);
}
