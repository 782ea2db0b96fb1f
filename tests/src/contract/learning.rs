//! The learning rule stated once: whatever a store keeps, the standings
//! it reads back are what the domain's [`StandingChanges`] makes of the actions
//! in the order they were recorded, on every store alike.

use std::collections::HashMap;
use std::sync::Arc;

use kenning_domain::{LabelledStanding, Scoring, StandingChanges, StoredStanding, UserId};
use kenning_ports::{NewAction, UserStore};
use kenning_test_macros::contract_check;

use super::{action, adapters, by, new_user, now, Store};

/// Actions of several types, out of date order, voting for different
/// labels of one key, some showing it and some not.
fn history(email: &str) -> Vec<NewAction> {
    let mut history = vec![
        action(email, None, 10, &[("helm", 1.0), ("chart", 0.4)]),
        action(email, None, 2, &[("helm", 0.3)]),
        action(email, None, 40, &[("chart", 2.0), ("values", 0.7)]),
        action(email, None, 5, &[("helm", 0.9), ("values", 0.1)]),
    ];
    history[1].action_type = "view".into();
    history[2].action_type = "comment".into();
    history[1].topics[0].label = "helm".into();
    history[3].topics[0].label = "helm".into();
    history[3].topics[0].shown = false;
    history[0].topics[1].shown = false;
    history
}

/// The holdings the domain's rule learns from `actions`, in order.
fn learned(actions: &[NewAction], scoring: &Scoring) -> HashMap<String, LabelledStanding> {
    let mut held: HashMap<String, LabelledStanding> = HashMap::new();
    for action in actions {
        let before = action
            .topics
            .iter()
            .filter_map(|t| held.get(&t.key).map(|h| (t.key.clone(), h.clone())))
            .collect();
        let changes = StandingChanges::of(
            &action.action_type,
            action.action_date,
            &action.topics,
            before,
            scoring,
        );
        held.extend(changes.standings);
    }
    held
}

fn assert_holds(
    stored: &[StoredStanding],
    expected: &HashMap<String, LabelledStanding>,
    user: UserId,
) {
    assert_eq!(stored.len(), expected.len(), "{stored:?}");
    for standing in stored {
        let want = &expected[&standing.key];
        assert_eq!(standing.user, user);
        assert_eq!(standing.label, want.label.label, "{}", standing.key);
        assert_eq!(standing.shown, want.label.shown, "{}", standing.key);
        assert_eq!(
            standing.standing.as_of.timestamp_millis(),
            want.standing.as_of.timestamp_millis(),
            "{}",
            standing.key
        );
        let (got, want) = (standing.standing.score, want.standing.score);
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{}: stored {got}, learned {want}",
            standing.key
        );
    }
}

#[contract_check]
fn standings_are_what_the_domain_learns(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    let history = history("ada@example.com");
    for action in &history[..2] {
        store.record(action, &scoring).unwrap();
    }
    let results = store.record_all(&history[2..], &scoring).unwrap();
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_holds(
        &store.standings_of(ada.id()).unwrap(),
        &learned(&history, &scoring),
        ada.id(),
    );
}

#[contract_check]
fn the_learned_topics_are_listed_with_a_label_each(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    assert!(store.learned_keys().unwrap().is_empty());
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Builder", None);
    UserStore::insert(&*store, &ada, &by()).unwrap();
    UserStore::insert(&*store, &bob, &by()).unwrap();
    for action in history("ada@example.com") {
        store.record(&action, &scoring).unwrap();
    }
    store
        .record(
            &action(
                "bob@example.com",
                None,
                3,
                &[("kubernet", 1.0), ("helm", 0.5)],
            ),
            &scoring,
        )
        .unwrap();
    assert_eq!(
        store.learned_keys().unwrap(),
        ["chart", "helm", "kubernet", "values"]
    );
    let keys: Vec<String> = ["helm", "kubernet", "nobody"].map(Into::into).to_vec();
    let labels = store.labels_of(&keys).unwrap();
    assert_eq!(
        labels.len(),
        2,
        "a key nobody learned has no label: {labels:?}"
    );
    assert_eq!(labels["kubernet"], "KUBERNET");
    assert!(
        ["helm", "HELM"].contains(&labels["helm"].as_str()),
        "one of the labels people hold: {labels:?}"
    );

    // A topic nobody knows any more is no longer listed.
    let at = now() + chrono::Duration::days(60);
    store
        .modify(bob.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    store
        .modify(bob.id(), &by(), &mut |u| u.anonymize(at))
        .unwrap();
    assert_eq!(store.learned_keys().unwrap(), ["chart", "helm", "values"]);
}
