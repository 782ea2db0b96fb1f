//! What a person hides, and whom `experts` does not rank, stays out of
//! what the store reads for others: the topics that go with one
//! (`cooccurring`); and how many topics a person may hide, also when
//! several hide at once.

use std::sync::Arc;

use kenning_domain::User;
use kenning_ports::{TopicListChange, UserStore};
use kenning_test_macros::contract_check;

use super::{action, adapters, by, new_user, Store};

fn person(store: &impl Store, name: &str) -> User {
    let user = new_user(&format!("{name}@example.com"), name, "Example", None);
    UserStore::insert(store, &user, &by()).unwrap();
    user
}

fn teach(store: &impl Store, user: &User, day: i64, topics: &[&str]) {
    let email = user.profile().unwrap().email.as_str().to_owned();
    let topics: Vec<(&str, f64)> = topics.iter().map(|t| (*t, 1.0)).collect();
    store
        .record(
            &action(&email, None, day, &topics),
            &kenning_domain::Scoring::default(),
        )
        .unwrap();
}

fn hide(store: &impl Store, user: &User, key: &str) {
    let done = store
        .set_hidden(user.id(), &[key], true, 10, &by())
        .unwrap();
    assert_eq!(done, TopicListChange::Changed);
}

/// The topics that go with one are read from the uploads of people
/// `experts` ranks alone, each less the topics its person hides; an
/// upload of a person who hides the topic asked about is not read.
#[contract_check]
fn related_topics_leave_out_what_is_hidden_and_whom_experts_does_not_rank(store: Arc<impl Store>) {
    let ada = person(&*store, "ada");
    let bob = person(&*store, "bob");
    let cy = person(&*store, "cy");
    let dee = person(&*store, "dee");
    let eve = person(&*store, "eve");
    // Ada's niche topic: she alone teaches it, and she hides it.
    teach(&*store, &ada, 0, &["helm", "pod"]);
    teach(&*store, &ada, 1, &["helm", "niche"]);
    teach(&*store, &ada, 2, &["helm", "niche", "pod"]);
    hide(&*store, &ada, "niche");
    // Bob is deactivated, Cy no longer learned about, Dee hides helm.
    teach(&*store, &bob, 3, &["helm", "gone"]);
    store
        .modify(bob.id(), &by(), &mut |u| u.deactivate())
        .unwrap();
    teach(&*store, &cy, 4, &["helm", "private"]);
    store
        .set_learning_choice(cy.id(), Some(false), &by())
        .unwrap();
    teach(&*store, &dee, 5, &["helm", "other"]);
    hide(&*store, &dee, "helm");
    teach(&*store, &eve, 6, &["helm", "pod"]);

    let related = store.cooccurring("helm", 10).unwrap();
    assert_eq!(related.actions, 4, "Ada's three and Eve's: {related:?}");
    assert_eq!(related.topics, [("pod".to_owned(), "POD".to_owned(), 3)]);
    // The sample is the newest actions that count, not the newest of all.
    let newest = store.cooccurring("helm", 2).unwrap();
    assert_eq!(newest.actions, 2);
    assert_eq!(newest.topics, [("pod".to_owned(), "POD".to_owned(), 2)]);
    // Shown again, the niche topic goes with helm once more.
    let shown = store
        .set_hidden(ada.id(), &["niche"], false, 10, &by())
        .unwrap();
    assert_eq!(shown, TopicListChange::Changed);
    let mut topics = store.cooccurring("helm", 10).unwrap().topics;
    topics.sort();
    assert_eq!(
        topics,
        [
            ("niche".to_owned(), "NICHE".to_owned(), 2),
            ("pod".to_owned(), "POD".to_owned(), 3),
        ]
    );
}

/// A person hides at most `most` topics: one more changes nothing and
/// records nothing; a topic hidden already, or showing one, is never
/// refused; and hidings that race never pass the bound.
#[contract_check]
fn a_person_hides_no_more_topics_than_allowed(store: Arc<impl Store>) {
    let ada = person(&*store, "ada");
    let set = |key: &str, hidden: bool| {
        store
            .set_hidden(ada.id(), &[key], hidden, 3, &by())
            .unwrap()
    };
    for key in ["a", "b", "c"] {
        assert_eq!(set(key, true), TopicListChange::Changed);
    }
    let recorded = store.audit_entries(&Default::default(), 100).unwrap().len();
    assert_eq!(set("d", true), TopicListChange::Full);
    assert_eq!(set("a", true), TopicListChange::Unchanged);
    assert_eq!(store.hidden_of(ada.id()).unwrap(), ["a", "b", "c"]);
    assert_eq!(
        store.audit_entries(&Default::default(), 100).unwrap().len(),
        recorded,
        "a refusal records nothing"
    );
    assert_eq!(set("b", false), TopicListChange::Changed);
    assert_eq!(set("d", true), TopicListChange::Changed);
    assert_eq!(store.hidden_of(ada.id()).unwrap(), ["a", "c", "d"]);

    let bob = person(&*store, "bob").id();
    let changed = super::racing_additions(&store, move |store, n, by| {
        store
            .set_hidden(bob, &[format!("topic {n}").as_str()], true, 5, by)
            .unwrap()
    });
    assert_eq!(changed, 5);
    assert_eq!(store.hidden_of(bob).unwrap().len(), 5);
}

/// The keys a person hid come in bytewise order, as Rust compares them,
/// whatever the database's collation: on PostgreSQL's linguistic ones
/// "évaluation" sorts before "zoo" and "Zoo" beside "zoo", which a search
/// by Rust's order would miss.
#[contract_check]
fn hidden_keys_come_in_bytewise_order_whatever_the_collation(store: Arc<impl Store>) {
    let ada = person(&*store, "ada");
    let keys = ["zoo", "évaluation", "apple", "Zoo", "eval"];
    for key in keys {
        assert_eq!(
            store.set_hidden(ada.id(), &[key], true, 10, &by()).unwrap(),
            TopicListChange::Changed
        );
    }
    let mut bytewise = keys.map(str::to_owned).to_vec();
    bytewise.sort();
    assert_eq!(store.hidden_of(ada.id()).unwrap(), bytewise);
    for key in keys {
        let found = store
            .hidden_of(ada.id())
            .unwrap()
            .binary_search(&key.to_owned());
        assert!(found.is_ok(), "{key}");
    }
}

/// Keys hidden together (a subject and the topics that hold it) are
/// hidden whole or not at all, and recorded once.
#[contract_check]
fn keys_hidden_together_are_hidden_whole_or_not_at_all(store: Arc<impl Store>) {
    let ada = person(&*store, "ada");
    let set =
        |keys: &[&str], hidden: bool| store.set_hidden(ada.id(), keys, hidden, 3, &by()).unwrap();
    let entries = || store.audit_entries(&Default::default(), 100).unwrap().len();
    let before = entries();
    assert_eq!(set(&["a", "a b"], true), TopicListChange::Changed);
    assert_eq!(entries(), before + 1, "one change, one entry");
    assert_eq!(set(&["c", "c d"], true), TopicListChange::Full);
    assert_eq!(store.hidden_of(ada.id()).unwrap(), ["a", "a b"]);
    assert_eq!(entries(), before + 1, "a refusal records nothing");
    assert_eq!(set(&["a", "a b"], true), TopicListChange::Unchanged);
    assert_eq!(set(&["a", "a b", "c"], true), TopicListChange::Changed);
    assert_eq!(set(&["a", "a b", "x"], false), TopicListChange::Changed);
    assert_eq!(store.hidden_of(ada.id()).unwrap(), ["c"]);
    assert_eq!(entries(), before + 3);
}
