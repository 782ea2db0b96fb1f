//! The privacy rules, kept by every store alike: a person who is not
//! learned about (their own choice, their group's rule, everyone's) is
//! not ranked and their uploads teach nothing, their aliases spent; an
//! excluded type teaches nothing; forgetting erases a person's actions and
//! expertise and the counts follow; the retention forgets the oldest
//! actions and learns again from the rest; the subjects asked are counted
//! per day and pruned.

use std::sync::Arc;

use chrono::{Duration, NaiveDate};
use kenning_domain::{AskedSubject, LearningRule, Scoring, UserId};
use kenning_ports::{AuditQuery, ExpertiseStore, UserStore};
use kenning_test_macros::contract_check;

use super::{action, adapters, by, group_with, new_user, now, score_of, Store};

/// Whether `user` is among those `evidence` ranks on `key`.
fn ranked(store: &dyn ExpertiseStore, user: UserId, key: &str) -> bool {
    store
        .evidence(&[key.to_owned()], 10, 10, &Scoring::default())
        .unwrap()
        .standings
        .iter()
        .any(|s| s.user == user)
}

/// The kinds of the audit entries about `user`, newest first.
fn audited(store: &dyn Store, user: UserId) -> Vec<String> {
    store
        .audit_entries(
            &AuditQuery {
                resource_id: Some(user.as_uuid()),
                ..AuditQuery::default()
            },
            50,
        )
        .unwrap()
        .into_iter()
        .map(|e| e.change.kind.as_str().to_owned())
        .collect()
}

#[contract_check]
fn a_person_who_opts_out_is_not_learned_from_nor_offered(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    let before = action("ada@example.com", Some("a1"), 0, &[("rust", 1.0)]);
    assert!(store.record(&before, &scoring).unwrap().taught);
    assert!(ranked(&*store, ada.id(), "rust"));

    let off = store
        .set_learning_choice(ada.id(), Some(false), &by())
        .unwrap()
        .unwrap();
    assert_eq!((off.choice, off.learns), (Some(false), false));
    assert!(!ranked(&*store, ada.id(), "rust"), "not offered while off");
    let during = action("ada@example.com", Some("a2"), 1, &[("haskell", 1.0)]);
    let recorded = store.record(&during, &scoring).unwrap();
    assert_eq!((recorded.user, recorded.taught), (ada.id(), false));
    assert_eq!(score_of(&*store, ada.id(), "haskell"), None);
    assert!(store.people_on(&["haskell".into()]).unwrap().is_empty());
    assert!(
        store.record(&during, &scoring).is_err(),
        "the alias is spent: nothing is learned twice later"
    );

    let on = store
        .set_learning_choice(ada.id(), Some(true), &by())
        .unwrap()
        .unwrap();
    assert!(on.learns);
    assert!(
        ranked(&*store, ada.id(), "rust"),
        "what was learned before is back"
    );
    assert_eq!(
        score_of(&*store, ada.id(), "haskell"),
        None,
        "later uploads only"
    );
    let after = action("ada@example.com", Some("a3"), 2, &[("haskell", 1.0)]);
    assert!(store.record(&after, &scoring).unwrap().taught);
    assert!(score_of(&*store, ada.id(), "haskell").is_some());
    assert_eq!(
        audited(&*store, ada.id())[..2],
        ["user.learning_changed", "user.learning_changed"]
    );
    // Setting the same choice again changes and records nothing.
    store
        .set_learning_choice(ada.id(), Some(true), &by())
        .unwrap();
    assert_eq!(audited(&*store, ada.id()).len(), 3);
}

#[contract_check]
fn a_group_rule_follows_the_group_s_members(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    for user in [&ada, &bob] {
        UserStore::insert(&*store, user, &by()).unwrap();
        let email = user.profile().unwrap().email.as_str().to_owned();
        store
            .record(&action(&email, None, 0, &[("rust", 1.0)]), &scoring)
            .unwrap();
    }
    let council = group_with("Works council", &[ada.id()]);
    store.insert_group(&council, &by()).unwrap();
    let rule = LearningRule::GroupOff(council.id());
    assert!(store.set_learning_rule(&rule, true, &by()).unwrap());
    assert!(!store.set_learning_rule(&rule, true, &by()).unwrap());
    assert!(!store.learning_of(ada.id()).unwrap().unwrap().learns);
    assert!(store.learning_of(bob.id()).unwrap().unwrap().learns);
    assert!(!ranked(&*store, ada.id(), "rust"));
    assert!(ranked(&*store, bob.id(), "rust"));
    let ada_later = action("ada@example.com", None, 1, &[("go", 1.0)]);
    assert!(!store.record(&ada_later, &scoring).unwrap().taught);

    // Bob joins the group and Ada leaves it: the rule follows at once.
    store
        .modify_group(council.id(), &by(), &mut |group| {
            let mut attributes = group.attributes().clone();
            attributes.members = [bob.id()].into_iter().collect();
            group.replace(attributes, now());
            Ok(())
        })
        .unwrap();
    assert!(store.learning_of(ada.id()).unwrap().unwrap().learns);
    assert!(!store.learning_of(bob.id()).unwrap().unwrap().learns);
    assert!(ranked(&*store, ada.id(), "rust"));
    assert!(!ranked(&*store, bob.id(), "rust"));

    // Deleting the group, or lifting the rule, learns about Bob again.
    store.delete_group(council.id(), None, &by()).unwrap();
    assert!(store.learning_of(bob.id()).unwrap().unwrap().learns);
    let everyone = LearningRule::LearningOff;
    store.set_learning_rule(&everyone, true, &by()).unwrap();
    assert!(!ranked(&*store, ada.id(), "rust") && !ranked(&*store, bob.id(), "rust"));
    store.set_learning_rule(&everyone, false, &by()).unwrap();
    assert!(ranked(&*store, ada.id(), "rust") && ranked(&*store, bob.id(), "rust"));
    let rules = store.learning_rules().unwrap();
    assert_eq!(
        rules
            .rules
            .iter()
            .map(|r| r.rule.clone())
            .collect::<Vec<_>>(),
        [rule],
        "a rule stays listed, with who set it, until it is lifted"
    );
}

#[contract_check]
fn new_people_start_as_the_organisation_says(store: Arc<impl Store>) {
    let opt_in = LearningRule::NewPeopleOptedOut;
    store.set_learning_rule(&opt_in, true, &by()).unwrap();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    let learning = store.learning_of(ada.id()).unwrap().unwrap();
    assert_eq!((learning.choice, learning.learns), (None, false));
    let recorded = store
        .record(
            &action("ada@example.com", None, 0, &[("rust", 1.0)]),
            &Scoring::default(),
        )
        .unwrap();
    assert!(!recorded.taught);
    assert!(
        store
            .set_learning_choice(ada.id(), Some(true), &by())
            .unwrap()
            .unwrap()
            .learns
    );
    store.set_learning_choice(ada.id(), None, &by()).unwrap();
    assert!(!store.learning_of(ada.id()).unwrap().unwrap().learns);
    store.set_learning_rule(&opt_in, false, &by()).unwrap();
    assert!(store.learning_of(ada.id()).unwrap().unwrap().learns);
    assert_eq!(
        store
            .learning_of(UserId::from_uuid(uuid::Uuid::new_v4()))
            .unwrap(),
        None
    );
}

#[contract_check]
fn an_excluded_type_teaches_nothing(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    let chat = LearningRule::ExcludedEntityType("chat".into());
    let views = LearningRule::ExcludedActionType("view".into());
    store.set_learning_rule(&chat, true, &by()).unwrap();
    store.set_learning_rule(&views, true, &by()).unwrap();
    let mut chatted = action("ada@example.com", Some("c1"), 0, &[("rust", 1.0)]);
    chatted.entity_type = "chat".into();
    let mut viewed = action("ada@example.com", Some("v1"), 0, &[("go", 1.0)]);
    viewed.action_type = "view".into();
    let written = action("ada@example.com", Some("d1"), 0, &[("zig", 1.0)]);
    let answers: Vec<bool> = store
        .record_all(&[chatted, viewed, written], &scoring)
        .unwrap()
        .into_iter()
        .map(|r| r.unwrap().taught)
        .collect();
    assert_eq!(answers, [false, false, true]);
    assert_eq!(score_of(&*store, ada.id(), "rust"), None);
    assert_eq!(score_of(&*store, ada.id(), "go"), None);
    assert!(score_of(&*store, ada.id(), "zig").is_some());
    assert_eq!(
        store.population().unwrap().actions,
        1,
        "only the action that taught counts"
    );
    let kept = store.actions_of(ada.id()).unwrap();
    assert_eq!(kept.len(), 3, "every action is kept, with its alias");
    assert_eq!(
        kept.iter().filter(|a| a.topics.is_empty()).count(),
        2,
        "those that taught nothing list no topic"
    );
}

#[contract_check]
fn forgetting_erases_a_person_s_actions_and_expertise(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    for user in [&ada, &bob] {
        UserStore::insert(&*store, user, &by()).unwrap();
    }
    for (email, topics) in [
        ("ada@example.com", &[("rust", 1.0), ("ferris", 1.0)][..]),
        ("bob@example.com", &[("rust", 1.0)][..]),
    ] {
        store
            .record(&action(email, Some(email), 0, topics), &scoring)
            .unwrap();
    }
    assert!(store.forget(ada.id(), &by()).unwrap());
    assert!(store.standings_of(ada.id()).unwrap().is_empty());
    assert!(store.actions_of(ada.id()).unwrap().is_empty());
    assert_eq!(
        store.people_on(&["rust".into(), "ferris".into()]).unwrap(),
        [("rust".to_owned(), 1)].into_iter().collect()
    );
    let population = store.population().unwrap();
    assert_eq!((population.people, population.actions), (1, 1));
    assert_eq!(audited(&*store, ada.id())[0], "user.forgotten");
    assert!(
        UserStore::get(&*store, ada.id()).unwrap().is_some(),
        "the account stays"
    );
    // Her alias is free again: nothing of the action is kept.
    assert!(store
        .record(
            &action(
                "ada@example.com",
                Some("ada@example.com"),
                1,
                &[("go", 1.0)]
            ),
            &scoring
        )
        .is_ok());
    assert!(!store
        .forget(UserId::from_uuid(uuid::Uuid::new_v4()), &by())
        .unwrap());
}

#[contract_check]
fn the_retention_forgets_the_oldest_actions_and_learns_from_the_rest(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    for user in [&ada, &bob] {
        UserStore::insert(&*store, user, &by()).unwrap();
    }
    store
        .record(
            &action(
                "ada@example.com",
                None,
                -400,
                &[("cobol", 1.0), ("rust", 1.0)],
            ),
            &scoring,
        )
        .unwrap();
    store
        .record(
            &action("ada@example.com", None, -10, &[("rust", 1.0)]),
            &scoring,
        )
        .unwrap();
    store
        .record(
            &action("bob@example.com", None, -500, &[("cobol", 1.0)]),
            &scoring,
        )
        .unwrap();
    let cutoff = now() - Duration::days(365);
    assert_eq!(
        store.expire_before(cutoff, 1, &scoring).unwrap(),
        1,
        "bounded"
    );
    assert_eq!(store.expire_before(cutoff, 10, &scoring).unwrap(), 1);
    assert_eq!(store.expire_before(cutoff, 10, &scoring).unwrap(), 0);
    assert_eq!(score_of(&*store, ada.id(), "cobol"), None);
    assert!(score_of(&*store, ada.id(), "rust").is_some());
    assert!(store.standings_of(bob.id()).unwrap().is_empty());
    assert!(store.people_on(&["cobol".into()]).unwrap().is_empty());
    let population = store.population().unwrap();
    assert_eq!((population.people, population.actions), (1, 1));
    // What is left is what a fresh start would learn from the action left.
    let fresh = action("ada@example.com", None, -10, &[("rust", 1.0)]);
    let other = new_user("eve@example.com", "Eve", "Fresh", None);
    UserStore::insert(&*store, &other, &by()).unwrap();
    let mut again = fresh.clone();
    again.user_email_key = "eve@example.com".into();
    store.record(&again, &scoring).unwrap();
    let (left, anew) = (
        score_of(&*store, ada.id(), "rust").unwrap(),
        score_of(&*store, other.id(), "rust").unwrap(),
    );
    assert!((left - anew).abs() < 1e-9, "{left} vs {anew}");
}

#[contract_check]
fn subjects_asked_are_counted_per_day_and_pruned(store: Arc<impl Store>) {
    let day = |d: u32| NaiveDate::from_ymd_opt(2026, 3, d).unwrap();
    let gap = AskedSubject::of(&[("quantum".into(), "quantum".into())], 0).unwrap();
    let lone = AskedSubject::of(&[("cobol".into(), "COBOL".into())], 1).unwrap();
    store.count_asked(day(1), &gap, 2).unwrap();
    store.count_asked(day(2), &gap, 3).unwrap();
    store.count_asked(day(2), &lone, 1).unwrap();
    let counted = store.asked_since(day(1), 10).unwrap();
    let read: Vec<(&str, u8, u64, NaiveDate)> = counted
        .iter()
        .map(|c| (c.subject.label.as_str(), c.subject.holders, c.asks, c.last))
        .collect();
    assert_eq!(read, [("quantum", 0, 5, day(2)), ("COBOL", 1, 1, day(2))]);
    assert_eq!(store.asked_since(day(2), 10).unwrap()[0].asks, 3);
    assert_eq!(store.asked_since(day(1), 1).unwrap().len(), 1);
    assert_eq!(store.prune_asked(day(2)).unwrap(), 1);
    assert_eq!(store.asked_since(day(1), 10).unwrap()[0].asks, 3);
}
