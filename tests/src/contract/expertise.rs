//! The expertise store ([`ExpertiseStore`]) kept by every store alike:
//! each accepted action teaches its user, a refused one (unknown user,
//! alias taken) leaves nothing, also when uploads race; an erased user
//! leaves nothing taught; a standing keeps the label written most and
//! whether any upload showed it, a person's hidden topics stay hidden;
//! standings are rebuilt under new settings without losing an upload;
//! the best actions and standings on a topic are read first; the counts
//! of people and actions stay exact.

use std::sync::Arc;

use chrono::Duration;
use kenning_domain::{EntityTopic, Scoring, User, UserId};
use kenning_ports::{ExpertiseStore, NewAction, RecordError, Recorded, TopicListChange, UserStore};
use kenning_test_macros::contract_check;
use uuid::Uuid;

use super::{action, adapters, by, group_with, new_user, now, score_of, Store};

#[contract_check]
fn actions_teach_their_user(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    assert!(store.rebuild_if_changed(&scoring).unwrap());
    assert!(!store.rebuild_if_changed(&scoring).unwrap());
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();

    let first = action(
        "ADA@example.com",
        Some("doc_1"),
        0,
        &[("rust", 1.0), ("cargo", 0.5)],
    );
    assert_eq!(store.record(&first, &scoring).map(|r| r.user), Ok(ada.id()));
    store
        .record(
            &action("ada@example.com", None, 0, &[("rust", 0.5)]),
            &scoring,
        )
        .unwrap();
    assert!((score_of(&*store, ada.id(), "rust").unwrap() - 1.5).abs() < 1e-9);
    assert!((score_of(&*store, ada.id(), "cargo").unwrap() - 0.5).abs() < 1e-9);

    let on_rust = store.actions_on(ada.id(), "rust", &scoring, 10).unwrap();
    assert_eq!(on_rust.len(), 2);
    assert!(on_rust
        .iter()
        .any(|a| a.id == first.id && a.alias.as_deref() == Some("doc_1")));
    assert_eq!(
        store
            .actions_on(ada.id(), "rust", &scoring, 1)
            .unwrap()
            .len(),
        1
    );

    let found = store
        .evidence(
            &["cargo".into(), "python".into()],
            10,
            0,
            &Scoring::default(),
        )
        .unwrap()
        .standings;
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].user, found[0].label.as_str()),
        (ada.id(), "CARGO")
    );
}

/// Several actions recorded at once are answered each as if recorded one
/// after another: a refused one (unknown user, alias taken before or
/// earlier in the same call) leaves nothing and stops nothing, and the
/// counts are those of the accepted ones.
#[contract_check]
fn actions_recorded_together_are_answered_each_in_order(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    UserStore::insert(&*store, &bob, &by()).unwrap();
    let mut old = action("bob@example.com", Some("old"), 0, &[("go", 1.0)]);
    old.received = now() - Duration::hours(1);
    store.record(&old, &scoring).unwrap();
    let actions = [
        action(
            "ada@example.com",
            Some("a1"),
            0,
            &[("rust", 1.0), ("cargo", 0.5)],
        ),
        action("nobody@example.com", Some("a2"), 0, &[("rust", 1.0)]),
        action("bob@example.com", Some("a1"), 0, &[("rust", 1.0)]),
        action("bob@example.com", Some("old"), 0, &[("rust", 1.0)]),
        action("bob@example.com", Some("a2"), 0, &[("rust", 0.5)]),
        action("ada@example.com", None, 0, &[("rust", 0.5)]),
        action("bob@example.com", Some("a2"), 0, &[("rust", 0.5)]),
    ];
    // A taken alias answers which action holds it, and since when.
    let duplicate_of = |taken: &NewAction| {
        Err(RecordError::DuplicateAlias {
            action: taken.id,
            received: taken.received,
        })
    };
    assert_eq!(
        store
            .record_all(&actions, &scoring)
            .unwrap()
            .into_iter()
            .map(|r| r.map(|recorded| recorded.user))
            .collect::<Vec<_>>(),
        vec![
            Ok(ada.id()),
            Err(RecordError::UnknownUser),
            duplicate_of(&actions[0]),
            duplicate_of(&old),
            Ok(bob.id()),
            Ok(ada.id()),
            duplicate_of(&actions[4]),
        ]
    );
    assert_eq!(store.record_all(&[], &scoring).unwrap(), vec![]);
    assert!((score_of(&*store, ada.id(), "rust").unwrap() - 1.5).abs() < 1e-9);
    assert!((score_of(&*store, bob.id(), "rust").unwrap() - 0.5).abs() < 1e-9);
    let bob_on_rust = store.actions_on(bob.id(), "rust", &scoring, 10).unwrap();
    assert_eq!(
        bob_on_rust
            .iter()
            .map(|a| a.alias.as_deref())
            .collect::<Vec<_>>(),
        vec![Some("a2")]
    );
    let people = store
        .people_on(&["rust".into(), "cargo".into(), "go".into()])
        .unwrap();
    assert_eq!(
        (people.get("rust"), people.get("cargo"), people.get("go")),
        (Some(&2), Some(&1), Some(&1))
    );
    let population = store.population().unwrap();
    assert_eq!((population.people, population.actions), (2, 4));
}

#[contract_check]
fn uploads_for_unknown_or_leaving_users_are_refused(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    assert_eq!(
        store.record(
            &action("nobody@example.com", Some("a"), 0, &[("x", 1.0)]),
            &scoring
        ),
        Err(RecordError::UnknownUser)
    );
    store
        .modify(ada.id(), &by(), &mut |u| u.deactivate())
        .unwrap();
    // Deactivated users keep learning but are not listed as experts.
    store
        .record(&action("ada@example.com", None, 0, &[("x", 1.0)]), &scoring)
        .unwrap();
    assert!(store
        .evidence(&["x".into()], 10, 0, &Scoring::default())
        .unwrap()
        .standings
        .is_empty());
    store
        .modify(ada.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    assert_eq!(
        store.record(
            &action("ada@example.com", Some("a"), 0, &[("x", 1.0)]),
            &scoring
        ),
        Err(RecordError::UnknownUser)
    );
    // Nothing of the refused uploads was kept, the alias included.
    assert_eq!(
        store.actions_on(ada.id(), "x", &scoring, 10).unwrap().len(),
        1
    );
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    UserStore::insert(&*store, &bob, &by()).unwrap();
    store
        .record(
            &action("bob@example.com", Some("a"), 0, &[("x", 1.0)]),
            &scoring,
        )
        .unwrap();
}

#[contract_check]
fn an_alias_is_accepted_once_even_when_uploads_race(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    let results: Vec<Result<Recorded, RecordError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..24)
            .map(|_| {
                let store = store.clone();
                let scoring = scoring.clone();
                s.spawn(move || {
                    store.record(
                        &action("ada@example.com", Some("race_1"), 0, &[("rust", 1.0)]),
                        &scoring,
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let won = results.iter().filter(|r| r.is_ok()).count();
    let refused = results
        .iter()
        .filter(|r| matches!(r, Err(RecordError::DuplicateAlias { .. })))
        .count();
    assert_eq!((won, refused), (1, 23), "{results:?}");
    assert!((score_of(&*store, ada.id(), "rust").unwrap() - 1.0).abs() < 1e-9);
}

#[contract_check]
fn anonymizing_a_user_erases_what_it_taught(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    UserStore::insert(&*store, &bob, &by()).unwrap();
    for email in ["ada@example.com", "bob@example.com"] {
        store
            .record(&action(email, Some(email), 0, &[("rust", 1.0)]), &scoring)
            .unwrap();
    }
    assert_eq!(
        store
            .set_hidden(ada.id(), &["rust"], true, 10, &by())
            .unwrap(),
        TopicListChange::Changed
    );
    store
        .modify(ada.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    store
        .modify(ada.id(), &by(), &mut |u| {
            u.anonymize(now() + Duration::days(14))
        })
        .unwrap();
    assert!(store.standings_of(ada.id()).unwrap().is_empty());
    assert!(store.hidden_of(ada.id()).unwrap().is_empty());
    assert!(store
        .actions_on(ada.id(), "rust", &scoring, 10)
        .unwrap()
        .is_empty());
    let left = store
        .evidence(&["rust".into()], 10, 0, &Scoring::default())
        .unwrap()
        .standings;
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].user, bob.id());
    // The erased action's alias may be used again.
    store
        .record(
            &action(
                "bob@example.com",
                Some("ada@example.com"),
                0,
                &[("go", 1.0)],
            ),
            &scoring,
        )
        .unwrap();
}

#[contract_check]
fn standings_are_rebuilt_under_new_settings(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    store.rebuild_if_changed(&scoring).unwrap();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    store
        .record(
            &action("ada@example.com", None, 0, &[("rust", 1.0)]),
            &scoring,
        )
        .unwrap();
    store
        .record(
            &action("ada@example.com", None, -365, &[("rust", 1.0)]),
            &scoring,
        )
        .unwrap();
    assert!((score_of(&*store, ada.id(), "rust").unwrap() - 1.5).abs() < 1e-9);

    let edit = kenning_domain::ActionType::parse("edit").unwrap();
    let heavier = Scoring::new([(edit, 2.0)], 1.0, [1.5, 1.0, 0.5], Duration::days(365)).unwrap();
    assert!(store.rebuild_if_changed(&heavier).unwrap());
    let standing = store.standings_of(ada.id()).unwrap().remove(0);
    assert!((standing.standing.score_at(now(), &heavier) - 3.0).abs() < 1e-9);
    assert!(!store.rebuild_if_changed(&heavier).unwrap());
}

/// Whether people read a topic is kept per standing, as the OR of the
/// uploads that taught it, through a rebuild; related topics come from
/// shown topics alone.
#[contract_check]
fn a_topic_shown_by_any_upload_stays_shown(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    store.rebuild_if_changed(&scoring).unwrap();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    let hidden = |mut a: NewAction, keys: &[&str]| {
        for topic in &mut a.topics {
            topic.shown = !keys.contains(&topic.key.as_str());
        }
        a
    };
    let first = hidden(
        action(
            "ada@example.com",
            None,
            0,
            &[("helm", 1.0), ("run", 1.0), ("pod", 0.5)],
        ),
        &["run", "pod"],
    );
    store.record(&first, &scoring).unwrap();
    let second = hidden(
        action(
            "ada@example.com",
            None,
            1,
            &[("helm", 1.0), ("pod", 1.0), ("run", 0.5)],
        ),
        &["run"],
    );
    store.record(&second, &scoring).unwrap();
    let shown = |store: &dyn ExpertiseStore| {
        let mut shown: Vec<(String, bool)> = store
            .standings_of(ada.id())
            .unwrap()
            .into_iter()
            .map(|s| (s.key, s.shown))
            .collect();
        shown.sort();
        shown
    };
    let expected = vec![
        ("helm".to_owned(), true),
        ("pod".to_owned(), true),
        ("run".to_owned(), false),
    ];
    assert_eq!(shown(&*store), expected);
    let related = store.cooccurring("helm", 10).unwrap();
    let keys: Vec<&str> = related.topics.iter().map(|(k, _, _)| k.as_str()).collect();
    assert_eq!(keys, ["pod"], "{related:?}");
    // The label of a related topic is the one written in most uploads.
    let mut third = action("ada@example.com", None, 2, &[("helm", 1.0), ("pod", 1.0)]);
    third.topics[1].label = "pods".into();
    store.record(&third, &scoring).unwrap();
    let mut fourth = third.clone();
    fourth.id = Uuid::new_v4();
    store.record(&fourth, &scoring).unwrap();
    let related = store.cooccurring("helm", 10).unwrap();
    assert_eq!(related.topics, [("pod".to_owned(), "pods".to_owned(), 3)]);

    let edit = kenning_domain::ActionType::parse("edit").unwrap();
    let heavier = Scoring::new([(edit, 2.0)], 1.0, [1.5, 1.0, 0.5], Duration::days(365)).unwrap();
    assert!(store.rebuild_if_changed(&heavier).unwrap());
    assert_eq!(shown(&*store), expected, "after a rebuild");
    let evidence = store
        .evidence(&["run".into(), "helm".into()], 10, 10, &heavier)
        .unwrap();
    for standing in evidence.standings {
        assert_eq!(standing.shown, standing.key == "helm", "{standing:?}");
    }
}

/// A topic a person hid stays hidden, apart from what uploads teach,
/// until shown again; hiding twice or showing what is shown changes
/// nothing.
#[contract_check]
fn hidden_topics_are_kept_per_person(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    UserStore::insert(&*store, &bob, &by()).unwrap();
    let set = |user: &User, key: &str, hidden: bool| {
        store
            .set_hidden(user.id(), &[key], hidden, 10, &by())
            .unwrap()
    };
    assert_eq!(set(&ada, "vat", true), TopicListChange::Changed);
    assert_eq!(set(&ada, "vat", true), TopicListChange::Unchanged);
    assert_eq!(set(&ada, "helm", true), TopicListChange::Changed);
    assert_eq!(set(&bob, "helm", true), TopicListChange::Changed);
    store
        .record(
            &action("ada@example.com", None, 0, &[("helm", 1.0)]),
            &scoring,
        )
        .unwrap();
    assert_eq!(store.hidden_of(ada.id()).unwrap(), ["helm", "vat"]);
    let on = store
        .evidence(&["helm".into(), "rust".into()], 10, 10, &scoring)
        .unwrap()
        .hidden;
    let expected = [(ada.id(), "helm".to_owned()), (bob.id(), "helm".to_owned())];
    assert_eq!(on, expected.into_iter().collect());
    assert_eq!(set(&ada, "helm", false), TopicListChange::Changed);
    assert_eq!(set(&ada, "helm", false), TopicListChange::Unchanged);
    assert_eq!(store.hidden_of(ada.id()).unwrap(), ["vat"]);
    assert_eq!(store.hidden_of(bob.id()).unwrap(), ["helm"]);
}

/// A standing shows the label its uploads wrote most, by weight; a form
/// used less does not displace it, and a rebuild keeps it.
#[contract_check]
fn a_standing_shows_the_label_written_most(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    store.rebuild_if_changed(&scoring).unwrap();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    let labelled = |day: i64, label: &str, relevance: f64| {
        let mut a = action("ada@example.com", None, day, &[("helm", relevance)]);
        a.topics[0].label = label.to_owned();
        a
    };
    let label = |store: &dyn ExpertiseStore| store.standings_of(ada.id()).unwrap()[0].label.clone();
    for (day, (form, relevance)) in [("Helm", 1.0), ("Helm", 1.0), ("helm", 1.0), ("helm", 0.5)]
        .into_iter()
        .enumerate()
    {
        let day = i64::try_from(day).unwrap();
        store
            .record(&labelled(day, form, relevance), &scoring)
            .unwrap();
        assert_eq!(label(&*store), "Helm", "after upload {day}");
    }
    let edit = kenning_domain::ActionType::parse("edit").unwrap();
    let heavier = Scoring::new([(edit, 2.0)], 1.0, [1.5, 1.0, 0.5], Duration::days(365)).unwrap();
    assert!(store.rebuild_if_changed(&heavier).unwrap());
    assert_eq!(label(&*store), "Helm", "after a rebuild");
    store.record(&labelled(9, "helm", 5.0), &heavier).unwrap();
    assert_eq!(label(&*store), "helm", "outweighed");
}

/// Thirty learners under the default scoring, the `p`-th (`p@example.com`)
/// learning the topic `topic(p)` from `30 + p` actions: more actions than
/// one transaction of a rebuild reads.
fn learners(store: &impl Store, topic: impl Fn(usize) -> String) -> Vec<User> {
    let scoring = Scoring::default();
    store.rebuild_if_changed(&scoring).unwrap();
    let people: Vec<User> = (0..30)
        .map(|p| new_user(&format!("p{p}@example.com"), "P", &format!("n{p}"), None))
        .collect();
    for (p, person) in people.iter().enumerate() {
        UserStore::insert(store, person, &by()).unwrap();
        let key = topic(p);
        for _ in 0..(30 + p) {
            store
                .record(
                    &action(&format!("p{p}@example.com"), None, 0, &[(&key, 1.0)]),
                    &scoring,
                )
                .unwrap();
        }
    }
    people
}

/// Settings under which every action of [`learners`] counts twice (each
/// is an edit).
fn doubled() -> Scoring {
    let edit = kenning_domain::ActionType::parse("edit").unwrap();
    Scoring::new([(edit, 2.0)], 1.0, [1.5, 1.0, 0.5], Duration::days(365)).unwrap()
}

/// More actions than one transaction of a rebuild reads (store-diesel
/// rebuilds about a thousand at a time): every learner is rebuilt, each
/// once.
#[contract_check]
fn a_rebuild_reaches_every_learner(store: Arc<impl Store>) {
    let people = learners(&*store, |p| format!("topic{}", p % 5));
    let doubled = doubled();
    assert!(store.rebuild_if_changed(&doubled).unwrap());
    for (p, person) in people.iter().enumerate() {
        let standings = store.standings_of(person.id()).unwrap();
        assert_eq!(standings.len(), 1, "person {p}");
        let score = standings[0].standing.score_at(now(), &doubled);
        assert!(
            (score - 2.0 * (30 + p) as f64).abs() < 1e-9,
            "person {p}: {score}"
        );
    }
}

/// A rebuild may run while uploads are recorded (the server serves during
/// it): no upload is lost, whether its learner was rebuilt before it,
/// after it or while it was written, and every standing ends as the new
/// settings make it.
#[contract_check]
fn uploads_during_a_rebuild_are_not_lost(store: Arc<impl Store>) {
    let people = learners(&*store, |_| "rust".to_owned());
    let doubled = doubled();
    const DURING: usize = 4;
    std::thread::scope(|s| {
        let rebuild = {
            let store = store.clone();
            let doubled = doubled.clone();
            s.spawn(move || store.rebuild_if_changed(&doubled))
        };
        // Round after round over everyone, so that uploads fall before,
        // during and after each learner's batch.
        for _ in 0..DURING {
            for p in 0..people.len() {
                store
                    .record(
                        &action(&format!("p{p}@example.com"), None, 0, &[("rust", 1.0)]),
                        &doubled,
                    )
                    .unwrap();
            }
        }
        assert!(rebuild.join().unwrap().unwrap());
    });
    for (p, person) in people.iter().enumerate() {
        let score = score_of(&*store, person.id(), "rust").unwrap();
        let expected = 2.0 * (30 + p + DURING) as f64;
        assert!((score - expected).abs() < 1e-9, "person {p}: {score}");
    }
}

/// The relevances of the actions `best_actions_on` reads for `key`, in
/// the order read.
fn best_relevances(
    store: &dyn ExpertiseStore,
    key: &str,
    per_key: u32,
    scoring: &Scoring,
) -> Vec<f64> {
    store
        .best_actions_on(&[key.into()], per_key, scoring)
        .unwrap()
        .into_iter()
        .map(|a| {
            assert_eq!(a.key, key);
            a.relevance
        })
        .collect()
}

#[contract_check]
fn the_most_relevant_actions_on_a_topic_are_read_first(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    store.rebuild_if_changed(&scoring).unwrap();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    let cy = new_user("cy@example.com", "Cy", "Twombly", None);
    for user in [&ada, &bob, &cy] {
        UserStore::insert(&*store, user, &by()).unwrap();
    }
    let mut titled = action("ada@example.com", None, 0, &[]);
    // A title (primary, factor 1.5): 0.6 counts as 0.9.
    titled.topics.push(EntityTopic {
        key: "rust".into(),
        label: "Rust".into(),
        by_descriptor: [0.6, 0.0, 0.0],
        shown: true,
    });
    store.record(&titled, &scoring).unwrap();
    let mut read = vec![(titled.id, ada.id())];
    for (email, user, topics) in [
        ("ada@example.com", ada.id(), vec![("rust", 0.2)]),
        (
            "ada@example.com",
            ada.id(),
            vec![("rust", 0.5), ("go", 0.4)],
        ),
        ("bob@example.com", bob.id(), vec![("rust", 0.8)]),
        ("cy@example.com", cy.id(), vec![("rust", 2.0)]),
    ] {
        let done = action(email, None, 0, &topics);
        store.record(&done, &scoring).unwrap();
        read.push((done.id, user));
    }
    // Deactivated users are not read.
    store
        .modify(cy.id(), &by(), &mut |u| u.deactivate())
        .unwrap();

    let found = store
        .best_actions_on(&["rust".into(), "go".into(), "none".into()], 2, &scoring)
        .unwrap();
    let rust: Vec<(Uuid, UserId)> = found
        .iter()
        .filter(|a| a.key == "rust")
        .map(|a| (a.action, a.user))
        .collect();
    assert_eq!(rust, vec![read[0], read[3]]);
    let go: Vec<(Uuid, UserId)> = found
        .iter()
        .filter(|a| a.key == "go")
        .map(|a| (a.action, a.user))
        .collect();
    assert_eq!(go, vec![read[2]]);
    assert_eq!(found.len(), 3);
    // Ranking reads the same actions with the rest of its evidence.
    let evidence = store
        .evidence(&["rust".into(), "go".into()], 10, 2, &scoring)
        .unwrap();
    assert_eq!(
        evidence.actions,
        store
            .best_actions_on(&["rust".into(), "go".into()], 2, &scoring)
            .unwrap()
    );
    let relevances = best_relevances(&*store, "rust", 10, &scoring);
    assert_eq!(relevances.len(), 4);
    for (got, want) in relevances.iter().zip([0.9, 0.8, 0.5, 0.2]) {
        assert!((got - want).abs() < 1e-9, "{relevances:?}");
    }

    // Under settings that weigh titles less the order is rebuilt.
    let edit = kenning_domain::ActionType::parse("edit").unwrap();
    let plainer = Scoring::new([(edit, 1.0)], 1.0, [0.5, 1.0, 0.5], Duration::days(365)).unwrap();
    assert!(store.rebuild_if_changed(&plainer).unwrap());
    let relevances = best_relevances(&*store, "rust", 10, &plainer);
    assert_eq!(relevances.len(), 4);
    for (got, want) in relevances.iter().zip([0.8, 0.5, 0.3, 0.2]) {
        assert!((got - want).abs() < 1e-9, "{relevances:?}");
    }
}

#[contract_check]
fn the_best_standings_on_a_topic_are_read_first(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    store.rebuild_if_changed(&scoring).unwrap();
    // (e-mail, days before now, relevance): an old large standing can be
    // worth less now than a young small one.
    let people = [
        ("old@example.com", -1460, 8.0),
        ("young@example.com", 0, 1.0),
        ("mid@example.com", -365, 3.0),
        ("hidden@example.com", 0, 9.0),
        ("least@example.com", 0, 0.1),
    ];
    let mut ids = Vec::new();
    for (email, day, relevance) in people {
        let user = new_user(email, "Some", "One", None);
        let user = kenning_domain::User::from_parts(kenning_domain::UserParts {
            id: user.id(),
            created: now(),
            modified: now(),
            version: 1,
            is_system: false,
            is_hidden: email.starts_with("hidden"),
            is_federated: false,
            status: kenning_domain::Status::Active,
            profile: user.profile().cloned(),
        })
        .unwrap();
        UserStore::insert(&*store, &user, &by()).unwrap();
        store
            .record(
                &action(email, None, day, &[("rust", relevance), ("cargo", 1.0)]),
                &scoring,
            )
            .unwrap();
        ids.push(user.id());
    }
    let best = store
        .evidence(&["rust".into()], 2, 0, &Scoring::default())
        .unwrap()
        .standings;
    let order: Vec<UserId> = best.iter().map(|s| s.user).collect();
    // Now: mid 1.5, young 1.0, old 0.5, least 0.1.
    assert_eq!(order, [ids[2], ids[1]]);
    let both = store
        .evidence(
            &["rust".into(), "cargo".into(), "go".into()],
            10,
            0,
            &Scoring::default(),
        )
        .unwrap();
    assert_eq!(both.standings.len(), 8, "four visible users on each topic");
    assert_eq!(
        both.knowing,
        std::collections::HashMap::from([("rust".to_owned(), 5), ("cargo".to_owned(), 5)])
    );
    assert_eq!((both.population.people, both.population.actions), (5, 5));

    // Within a group: its visible members alone, the counts unchanged.
    let team = group_with("Team", &[ids[0], ids[3], ids[4]]);
    store.insert_group(&team, &by()).unwrap();
    let within = store
        .evidence_within(&["rust".into()], 1, 10, &Scoring::default(), team.id())
        .unwrap();
    let best: Vec<UserId> = within.standings.iter().map(|s| s.user).collect();
    assert_eq!(best, [ids[0]], "the best member, not the best of all");
    let mut acting: Vec<UserId> = within.actions.iter().map(|a| a.user).collect();
    acting.sort();
    let mut members = vec![ids[0], ids[4]];
    members.sort();
    assert_eq!(acting, members, "members' actions, the hidden one left out");
    assert_eq!(within.knowing.get("rust"), Some(&5));

    assert_eq!(
        store.people_on(&["rust".into(), "go".into()]).unwrap(),
        std::collections::HashMap::from([("rust".to_owned(), 5)])
    );
    let population = store.population().unwrap();
    assert_eq!((population.people, population.actions), (5, 5));
    store
        .record(
            &action("young@example.com", None, 0, &[("go", 1.0)]),
            &scoring,
        )
        .unwrap();
    let after = store
        .evidence(&["go".into()], 10, 0, &Scoring::default())
        .unwrap();
    assert_eq!(after.knowing.get("go"), Some(&1));
    assert_eq!((after.population.people, after.population.actions), (5, 6));

    let together = store.cooccurring("rust", 3).unwrap();
    assert_eq!(together.actions, 3);
    assert_eq!(
        together.topics,
        vec![("cargo".to_owned(), "CARGO".to_owned(), 3)]
    );
}

/// The number of people per topic and the population, as `people_on`,
/// `population` and `evidence` report them.
fn counts(
    store: &dyn ExpertiseStore,
    keys: &[&str],
) -> (std::collections::HashMap<String, u64>, (u64, u64)) {
    let keys: Vec<String> = keys.iter().map(|k| (*k).to_owned()).collect();
    let knowing = store.people_on(&keys).unwrap();
    let population = store.population().unwrap();
    let evidence = store.evidence(&keys, 10, 0, &Scoring::default()).unwrap();
    assert_eq!(evidence.knowing, knowing);
    assert_eq!(evidence.population, population);
    (knowing, (population.people, population.actions))
}

#[contract_check]
fn counts_follow_uploads_erasures_and_rebuilds(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    store.rebuild_if_changed(&scoring).unwrap();
    let keys = ["rust", "cargo", "go"];
    assert_eq!(counts(&*store, &keys), (Default::default(), (0, 0)));
    let people: Vec<User> = ["ada", "bob", "cy"]
        .iter()
        .map(|name| new_user(&format!("{name}@example.com"), "Some", name, None))
        .collect();
    for person in &people {
        UserStore::insert(&*store, person, &by()).unwrap();
    }
    let upload = |email: &str, topics: &[(&str, f64)]| {
        store
            .record(&action(email, None, 0, topics), &scoring)
            .unwrap();
    };
    upload("ada@example.com", &[("rust", 1.0), ("cargo", 0.5)]);
    upload("ada@example.com", &[("rust", 1.0)]);
    upload("bob@example.com", &[("rust", 1.0), ("go", 1.0)]);
    upload("cy@example.com", &[("go", 1.0)]);
    let map = |pairs: &[(&str, u64)]| {
        pairs
            .iter()
            .map(|(k, n)| ((*k).to_owned(), *n))
            .collect::<std::collections::HashMap<_, _>>()
    };
    assert_eq!(
        counts(&*store, &keys),
        (map(&[("rust", 2), ("cargo", 1), ("go", 2)]), (3, 4))
    );
    // A deactivated user still counts: she is not listed, but what she
    // learned is known.
    store
        .modify(people[2].id(), &by(), &mut |u| u.deactivate())
        .unwrap();
    assert_eq!(
        counts(&*store, &keys),
        (map(&[("rust", 2), ("cargo", 1), ("go", 2)]), (3, 4))
    );

    // Erasing a user takes her out of every count.
    store
        .modify(people[0].id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    store
        .modify(people[0].id(), &by(), &mut |u| {
            u.anonymize(now() + Duration::days(14))
        })
        .unwrap();
    assert_eq!(
        counts(&*store, &keys),
        (map(&[("rust", 1), ("go", 2)]), (2, 2))
    );

    // A rebuild under other settings leaves the counts as they were, and
    // uploads after it count on top of them.
    let edit = kenning_domain::ActionType::parse("edit").unwrap();
    let heavier = Scoring::new([(edit, 2.0)], 1.0, [1.5, 1.0, 0.5], Duration::days(365)).unwrap();
    assert!(store.rebuild_if_changed(&heavier).unwrap());
    assert_eq!(
        counts(&*store, &keys),
        (map(&[("rust", 1), ("go", 2)]), (2, 2))
    );
    store
        .record(
            &action("bob@example.com", None, 0, &[("cargo", 1.0), ("go", 1.0)]),
            &heavier,
        )
        .unwrap();
    assert_eq!(
        counts(&*store, &keys),
        (map(&[("rust", 1), ("cargo", 1), ("go", 2)]), (2, 3))
    );
}

/// Uploads of many people at once, some of them the first of their
/// uploader and many teaching the same topics for the first time: every
/// count ends exact.
#[contract_check]
fn counts_are_exact_when_uploads_race(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let people: Vec<User> = (0..12)
        .map(|p| new_user(&format!("r{p}@example.com"), "R", &format!("n{p}"), None))
        .collect();
    for person in &people {
        UserStore::insert(&*store, person, &by()).unwrap();
    }
    std::thread::scope(|s| {
        for p in 0..people.len() {
            let store = store.clone();
            let scoring = scoring.clone();
            s.spawn(move || {
                for n in 0..4 {
                    let topics: Vec<(String, f64)> = (0..6)
                        .map(|t| (format!("t{}", (t + n + p) % 9), 1.0))
                        .collect();
                    let topics: Vec<(&str, f64)> =
                        topics.iter().map(|(k, r)| (k.as_str(), *r)).collect();
                    store
                        .record(
                            &action(&format!("r{p}@example.com"), None, 0, &topics),
                            &scoring,
                        )
                        .unwrap();
                }
            });
        }
    });
    let keys: Vec<String> = (0..9).map(|t| format!("t{t}")).collect();
    let mut expected = std::collections::HashMap::new();
    for person in &people {
        for standing in store.standings_of(person.id()).unwrap() {
            *expected.entry(standing.key).or_insert(0u64) += 1;
        }
    }
    assert_eq!(store.people_on(&keys).unwrap(), expected);
    let population = store.population().unwrap();
    assert_eq!((population.people, population.actions), (12, 48));
}
