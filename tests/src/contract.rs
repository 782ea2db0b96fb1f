//! The storage contract every adapter keeps (see the docs of
//! [`UserRepository`] and [`CredentialStore`]). Each check takes a fresh,
//! empty store; its `#[contract_check]` runs it against the in-memory
//! store, SQLite and PostgreSQL (`adapters`) as the tests
//! `contract::<check>::memory`, `::sqlite` and `::postgres`. A function
//! here that no test calls is dead code, which this module denies, so a
//! check cannot be written and never run.

mod adapters;
mod audit;
mod cursor;
mod import;
mod learning;
mod plans;
mod privacy;
mod scores;
mod sessions;
mod webhooks;

use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};
use kenning_domain::{
    Actor, Attribution, Comparison, CredentialKind, Email, EntityTopic, ExternalId,
    FilterAttribute, FilterOperator, FilterValue, LanguageId, Limit, Location, NewUser,
    NewUserInput, Offset, Patch, Scope, Scoring, SearchText, Status, User, UserCursor, UserError,
    UserFilter, UserId, UserKey, UserPatch, UserPatchInput,
};
use kenning_ports::{
    AuditTrail, CredentialStore, ExpertiseStore, GroupRepository, ModifyError, ModifyGroupError,
    NewAction, PrivacyStore, RecordError, Recorded, SessionStore, StoreError, StoredCredential,
    UserRepository, WebhookStore,
};
use kenning_test_macros::contract_check;
use uuid::Uuid;

/// A store under test.
pub trait Store:
    UserRepository
    + CredentialStore
    + ExpertiseStore
    + GroupRepository
    + AuditTrail
    + WebhookStore
    + SessionStore
    + PrivacyStore
    + 'static
{
}
impl<T> Store for T where
    T: UserRepository
        + CredentialStore
        + ExpertiseStore
        + GroupRepository
        + AuditTrail
        + WebhookStore
        + SessionStore
        + PrivacyStore
        + 'static
{
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap()
}

/// A change made by the embedding program at [`now`].
fn by() -> Attribution {
    by_at(now())
}

/// A change made by the embedding program at `at`.
fn by_at(at: DateTime<Utc>) -> Attribution {
    Attribution::new(Actor::embedded(), at)
}

/// `users`, each made by the embedding program at [`now`].
fn attributed(users: &[User]) -> Vec<(User, Attribution)> {
    users.iter().map(|u| (u.clone(), by())).collect()
}

fn new_user(email: &str, first: &str, last: &str, external: Option<&str>) -> User {
    let input = NewUserInput {
        email: email.into(),
        firstname: first.into(),
        lastname: last.into(),
        external_id: external.map(Into::into),
        ..NewUserInput::default()
    };
    let new = NewUser::parse(input, &LanguageId::parse("en").unwrap()).unwrap();
    User::register(UserId::from_uuid(Uuid::new_v4()), new, now())
}

fn full_user() -> User {
    let input = NewUserInput {
        email: "Grace.Hopper@Example.com".into(),
        firstname: "Grace".into(),
        lastname: "Hopper".into(),
        external_id: Some("emp-1906".into()),
        user_name: Some("GHopper@Navy".into()),
        display_name: Some("Amazing Grace".into()),
        language_id: Some("de".into()),
        location: Some("Arlington".into()),
        about: Some("COBOL".into()),
        country_id: Some("us".into()),
        company: Some("US Navy".into()),
        department: Some("Computing".into()),
        position: Some("Rear Admiral".into()),
        employment_start: Some("1943-12-01".into()),
    };
    let new = NewUser::parse(input, &LanguageId::parse("en").unwrap()).unwrap();
    User::register(UserId::from_uuid(Uuid::new_v4()), new, now())
}

fn page(store: &dyn UserRepository, text: Option<&str>, offset: i64, limit: i64) -> Vec<User> {
    store
        .search(
            &SearchText::parse(text).unwrap(),
            Offset::parse(offset).unwrap(),
            Limit::parse(limit).unwrap(),
        )
        .unwrap()
}

fn names(users: &[User]) -> Vec<String> {
    users
        .iter()
        .map(|u| match u.profile() {
            Some(p) => format!("{} {}", p.firstname.as_str(), p.lastname.as_str()),
            None => "-".into(),
        })
        .collect()
}

fn set_location(value: String) -> UserPatch {
    UserPatch::parse(UserPatchInput {
        location: Patch::Set(value),
        ..UserPatchInput::default()
    })
    .unwrap()
}

#[contract_check]
fn a_user_round_trips_with_every_field(store: Arc<impl Store>) {
    let user = full_user();
    UserRepository::insert(&*store, &user, &by()).unwrap();
    assert_eq!(store.get(user.id()).unwrap(), Some(user));
    assert_eq!(store.get(UserId::from_uuid(Uuid::new_v4())).unwrap(), None);
    store.ping().unwrap();
}

#[contract_check]
fn email_and_external_id_are_unique_among_live_users(store: Arc<impl Store>) {
    UserRepository::insert(
        &*store,
        &new_user("ada@example.com", "Ada", "Lovelace", Some("e-1")),
        &by(),
    )
    .unwrap();
    assert_eq!(
        UserRepository::insert(
            &*store,
            &new_user("ADA@Example.COM", "Ada", "Byron", None),
            &by()
        ),
        Err(StoreError::Conflict { field: "email" })
    );
    assert_eq!(
        UserRepository::insert(
            &*store,
            &new_user("other@example.com", "Ada", "Byron", Some("e-1")),
            &by()
        ),
        Err(StoreError::Conflict {
            field: "externalId"
        })
    );
    let hopper = full_user();
    UserRepository::insert(&*store, &hopper, &by()).unwrap();
    let mut same_name = new_user("g2@example.com", "G", "H", None);
    let name = UserPatch::parse(UserPatchInput {
        user_name: Patch::Set("ghopper@NAVY".into()),
        ..UserPatchInput::default()
    })
    .unwrap();
    same_name.update(name).unwrap();
    assert_eq!(
        UserRepository::insert(&*store, &same_name, &by()),
        Err(StoreError::Conflict { field: "userName" })
    );
    assert_eq!(page(&*store, None, 0, 100).len(), 2);
}

/// Users inserted together are answered each as if inserted one after
/// another: a refused one leaves nothing and stops nothing.
#[contract_check]
fn users_inserted_together_are_answered_each_in_order(store: Arc<impl Store>) {
    let ada = new_user("ada@example.com", "Ada", "Lovelace", Some("e-1"));
    UserRepository::insert(&*store, &ada, &by()).unwrap();
    let bob = new_user("bob@example.com", "Bob", "Byron", Some("e-2"));
    let carol = new_user("carol@example.com", "Carol", "Coder", None);
    let erin = new_user("erin@example.com", "Erin", "Engel", None);
    let batch = [
        bob.clone(),
        new_user("ADA@example.com", "Other", "Ada", None),
        carol.clone(),
        new_user("dan@example.com", "Dan", "Dee", Some("e-2")),
        new_user("carol@EXAMPLE.com", "Carol", "Again", None),
        erin.clone(),
    ];
    assert_eq!(
        store.insert_all(&attributed(&batch)).unwrap(),
        vec![
            Ok(()),
            Err(StoreError::Conflict { field: "email" }),
            Ok(()),
            Err(StoreError::Conflict {
                field: "externalId"
            }),
            Err(StoreError::Conflict { field: "email" }),
            Ok(()),
        ]
    );
    assert_eq!(store.insert_all(&[]).unwrap(), vec![]);
    for user in [&ada, &bob, &carol, &erin] {
        assert_eq!(store.get(user.id()).unwrap().as_ref(), Some(user));
    }
    for refused in [&batch[1], &batch[3], &batch[4]] {
        assert_eq!(store.get(refused.id()).unwrap(), None);
    }
    let found: Vec<String> = page(&*store, None, 0, 100)
        .iter()
        .map(|u| u.profile().unwrap().email.key())
        .collect();
    assert_eq!(found.len(), 4, "{found:?}");
    assert_eq!(page(&*store, Some("dan"), 0, 100).len(), 0);
}

#[contract_check]
fn concurrent_inserts_of_one_email_leave_one_winner(store: Arc<impl Store>) {
    let results: Vec<Result<(), StoreError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..24)
            .map(|i| {
                let store = store.clone();
                s.spawn(move || {
                    UserRepository::insert(
                        &*store,
                        &new_user("race@example.com", "Racer", &format!("No{i}"), None),
                        &by(),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let won = results.iter().filter(|r| r.is_ok()).count();
    let conflicts = results
        .iter()
        .filter(|r| **r == Err(StoreError::Conflict { field: "email" }))
        .count();
    assert_eq!((won, conflicts), (1, 23), "{results:?}");
    assert_eq!(page(&*store, Some("race@"), 0, 100).len(), 1);
}

#[contract_check]
fn modify_stores_accepted_changes_only(store: Arc<impl Store>) {
    let user = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserRepository::insert(&*store, &user, &by()).unwrap();

    let changed = store
        .modify(user.id(), &by(), &mut |u| {
            u.update(set_location("London".into()))
        })
        .unwrap();
    assert_eq!(
        changed.profile().unwrap().location,
        Some(Location::parse("London").unwrap())
    );
    assert_eq!(store.get(user.id()).unwrap(), Some(changed.clone()));

    let refused = store.modify(user.id(), &by(), &mut |u| {
        u.update(set_location("Paris".into()))?;
        Err(UserError::Forbidden("no"))
    });
    assert_eq!(
        refused,
        Err(ModifyError::Rejected(UserError::Forbidden("no")))
    );
    assert_eq!(store.get(user.id()).unwrap(), Some(changed));

    let missing = store.modify(UserId::from_uuid(Uuid::new_v4()), &by(), &mut |_| Ok(()));
    assert_eq!(missing, Err(ModifyError::NotFound));
}

#[contract_check]
fn each_write_of_a_user_counts_one_version_and_keeps_its_last_change(store: Arc<impl Store>) {
    let user = new_user("ver@example.com", "Ver", "Sion", None);
    UserRepository::insert(&*store, &user, &by()).unwrap();
    assert_eq!(store.get(user.id()).unwrap().unwrap().version(), 1);
    let later = now() + Duration::seconds(90);
    let changed = store
        .modify(user.id(), &by(), &mut |u| {
            u.update(set_location("Leeds".into()))?;
            u.touch(later);
            Ok(())
        })
        .unwrap();
    assert_eq!((changed.version(), changed.modified()), (2, later));
    assert_eq!(store.get(user.id()).unwrap(), Some(changed.clone()));
    let stale = store.modify(user.id(), &by(), &mut |u| u.expect_version(1));
    assert_eq!(
        stale,
        Err(ModifyError::Rejected(UserError::StaleVersion {
            expected: 1,
            current: 2
        }))
    );
    store
        .modify(user.id(), &by(), &mut |u| u.expect_version(2))
        .unwrap();
    let stored = store.get(user.id()).unwrap().unwrap();
    assert_eq!(stored.version(), 3);
    assert_eq!(stored.modified(), later);
}

#[contract_check]
fn modify_refuses_a_taken_email(store: Arc<impl Store>) {
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    UserRepository::insert(&*store, &ada, &by()).unwrap();
    UserRepository::insert(&*store, &bob, &by()).unwrap();
    let taken = store.modify(bob.id(), &by(), &mut |u| {
        u.change_email(Email::parse("Ada@Example.com").unwrap())
    });
    assert_eq!(
        taken,
        Err(ModifyError::Store(StoreError::Conflict { field: "email" }))
    );
    assert_eq!(store.get(bob.id()).unwrap(), Some(bob));
}

#[contract_check]
fn concurrent_modifications_are_not_lost(store: Arc<impl Store>) {
    let user = new_user("count@example.com", "Count", "Er", None);
    let id = user.id();
    let mut counted = user;
    counted.update(set_location("0".into())).unwrap();
    UserRepository::insert(&*store, &counted, &by()).unwrap();
    std::thread::scope(|s| {
        for _ in 0..8 {
            let store = store.clone();
            s.spawn(move || {
                for _ in 0..5 {
                    store
                        .modify(id, &by(), &mut |u| {
                            let n: u32 = u
                                .profile()
                                .unwrap()
                                .location
                                .as_ref()
                                .unwrap()
                                .as_str()
                                .parse()
                                .unwrap();
                            u.update(set_location((n + 1).to_string()))
                        })
                        .unwrap();
                }
            });
        }
    });
    let stored = store.get(id).unwrap().unwrap();
    assert_eq!(
        stored.profile().unwrap().location,
        Some(Location::parse("40").unwrap())
    );
}

#[contract_check]
fn search_matches_folded_text_in_the_searchable_fields(store: Arc<impl Store>) {
    UserRepository::insert(
        &*store,
        &new_user("ada@example.com", "Ada", "Lovelace", Some("EMP-7")),
        &by(),
    )
    .unwrap();
    UserRepository::insert(
        &*store,
        &new_user("alan@turing.org", "Alan", "Turing", None),
        &by(),
    )
    .unwrap();
    UserRepository::insert(
        &*store,
        &new_user("grace_100%@navy.mil", "Grace", "Hopper", None),
        &by(),
    )
    .unwrap();

    let found = |text: &str| names(&page(&*store, Some(text), 0, 100));
    assert_eq!(names(&page(&*store, None, 0, 100)).len(), 3);
    assert_eq!(names(&page(&*store, Some(""), 0, 100)).len(), 3);
    assert_eq!(found("LOVE"), vec!["Ada Lovelace"]);
    assert_eq!(found("emp-7"), vec!["Ada Lovelace"]);
    assert_eq!(found("ada lovelace"), vec!["Ada Lovelace"]);
    assert_eq!(found("TURING.ORG"), vec!["Alan Turing"]);
    assert_eq!(
        found("a"),
        vec!["Grace Hopper", "Ada Lovelace", "Alan Turing"]
    );
    // Wildcards of SQL LIKE match only themselves.
    assert_eq!(found("_100%"), vec!["Grace Hopper"]);
    assert!(found("%").len() == 1 && found("_").len() == 1);
    // Fields are not glued together: the end of one and the start of the
    // next do not match.
    assert!(found("lovelaceemp").is_empty());
    assert!(found("nobody").is_empty());
}

/// A directory larger than the head of the list a search tests first (see
/// store-diesel's `search` module), stored in `store`; the users in
/// listing order.
fn directory(store: &dyn UserRepository) -> Vec<User> {
    const FIRST: [&str; 7] = ["Ada", "Zoë", "Bob", "Eve", "Kai", "Mia", "Noor"];
    let mut users: Vec<User> = (0..1_200)
        .map(|n| {
            let first = FIRST[n % FIRST.len()];
            let external = if n % 97 == 0 {
                format!("x_%{n}")
            } else {
                format!("e{n}")
            };
            let email = format!("{}.{n}@example.com", first.replace('ë', "e"));
            new_user(&email, first, &format!("l{n:04}"), Some(&external))
        })
        .collect();
    for user in &users {
        store.insert(user, &by()).unwrap();
    }
    users.sort_by_key(UserCursor::of);
    users
}

/// The ids of the users of `listed` (in listing order) that `text`
/// matches by the rule itself.
fn matching(listed: &[User], text: Option<&str>) -> Vec<UserId> {
    let search = SearchText::parse(text).unwrap();
    listed
        .iter()
        .filter(|u| {
            let p = u.profile().unwrap();
            search.matches(&SearchText::haystack(
                p.email.as_str(),
                p.external_id.as_ref().map(|e| e.as_str()),
                p.firstname.as_str(),
                p.lastname.as_str(),
            ))
        })
        .map(User::id)
        .collect()
}

/// Texts that take every way a store may answer a search (the head of
/// the list, an index, a scan) on the [`directory`].
const SEARCHES_OF_EVERY_KIND: [(&str, i64, i64); 14] = [
    ("ada", 0, 20),   // common: the head of the list holds the page
    ("ada", 160, 20), // a later page of it
    ("ZOË", 40, 20),  // folded, accented
    ("l1150", 0, 20), // one user, past the head of the list
    ("e11", 0, 100),  // some in the head, the rest past it
    ("x_%", 0, 100),  // wildcards match only themselves
    ("x_%1", 0, 100),
    ("xa%", 0, 100), // ... so this matches nobody
    ("l1", 0, 50),   // two characters, all past the head
    ("l1", 150, 100),
    ("zq", 0, 20),               // two characters, nobody
    ("a", 0, 1_000),             // one character, nearly everyone
    ("example.com", 500, 1_000), // past the head, every trigram common
    ("l11", 20, 1_000),          // past the head, one trigram
];

/// Every way a store may answer a search is taken by one of
/// [`SEARCHES_OF_EVERY_KIND`]; each answer must be what the matching rule
/// gives.
#[contract_check]
fn search_answers_exactly_whichever_way_it_reads(store: Arc<impl Store>) {
    let listed = directory(&*store);
    let expected = |text: &str, offset: usize, limit: usize| -> Vec<UserId> {
        matching(&listed, Some(text))
            .into_iter()
            .skip(offset)
            .take(limit)
            .collect()
    };
    let ids = |users: Vec<User>| users.iter().map(User::id).collect::<Vec<_>>();
    for (text, offset, limit) in SEARCHES_OF_EVERY_KIND {
        let want = expected(text, offset as usize, limit as usize);
        assert_eq!(
            ids(page(&*store, Some(text), offset, limit)),
            want,
            "search {text:?} at offset {offset}, limit {limit}"
        );
    }
    assert_eq!(expected("l1150", 0, 20).len(), 1, "the cases find someone");
    assert_eq!(expected("x_%1", 0, 100).len(), 3);
    assert!(expected("xa%", 0, 100).is_empty());
}

/// A whole e-mail address, externalId or id as the text is still a
/// substring: every user whose text holds it is found with the one it
/// names, in listing order, by offset and by cursor, whichever steps read
/// them (a text of rare digits and a common domain is looked up by its
/// rarest trigrams).
#[contract_check]
fn a_whole_address_finds_every_user_holding_it(store: Arc<impl Store>) {
    let mut listed = directory(&*store);
    let holders = [
        // At the head of the list, past it, and at its very end.
        new_user("x.noor.1000@example.com", "Ann", "Aa", None),
        new_user("y@example.org", "Ben", "l1150", Some("e1150-b")),
        new_user("z@example.org", "Cy", "Zz", Some("NOOR.1000@example.com")),
    ];
    for user in &holders {
        UserRepository::insert(&*store, user, &by()).unwrap();
    }
    listed.extend(holders);
    listed.sort_by_key(UserCursor::of);
    let someone = listed[1_100].id().to_string();
    let texts = [
        "noor.1000@example.com",
        "NOOR.1000@EXAMPLE.COM",
        "x.noor.1000@example.com",
        "ada.7@example.com",
        "e1150",
        "e1150-b",
        someone.as_str(),
    ];
    let ids = |users: &[User]| users.iter().map(User::id).collect::<Vec<_>>();
    for text in texts {
        let want = matching(&listed, Some(text));
        for (offset, limit) in [(0, 20), (0, 1), (1, 1), (2, 20)] {
            let got = ids(&page(&*store, Some(text), offset, limit));
            let expected: Vec<_> = want
                .iter()
                .copied()
                .skip(offset as usize)
                .take(limit as usize)
                .collect();
            assert_eq!(got, expected, "{text:?} at offset {offset}, limit {limit}");
        }
        let mut after = None;
        let mut walked = Vec::new();
        loop {
            let page = store
                .search_after(
                    &SearchText::parse(Some(text)).unwrap(),
                    after.as_ref(),
                    Limit::parse(1).unwrap(),
                )
                .unwrap();
            walked.extend(ids(&page.users));
            after = page.users.last().map(UserCursor::of);
            if !page.more {
                break;
            }
        }
        assert_eq!(walked, want, "{text:?} by cursor");
    }
    let found = |text: &str| matching(&listed, Some(text)).len();
    assert_eq!(found("noor.1000@example.com"), 3, "the cases find several");
    assert_eq!(found("e1150"), 2);
    assert_eq!(found(&someone), 0);
}

#[contract_check]
fn pages_are_ordered_disjoint_and_complete(store: Arc<impl Store>) {
    let lasts = ["Zeta", "alpha", "Beta", "Beta", "Émile", "beta"];
    for (i, last) in lasts.iter().enumerate() {
        let first = if i % 2 == 0 { "Bo" } else { "Al" };
        UserRepository::insert(
            &*store,
            &new_user(&format!("u{i}@example.com"), first, last, None),
            &by(),
        )
        .unwrap();
    }
    let all = page(&*store, None, 0, 1000);
    let keys: Vec<(String, String, UserId)> = all
        .iter()
        .map(|u| {
            let p = u.profile().unwrap();
            (
                p.lastname.as_str().to_owned(),
                p.firstname.as_str().to_owned(),
                u.id(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(
        keys, sorted,
        "ordered by last name, first name, id (byte-wise)"
    );

    let mut paged = Vec::new();
    for offset in (0..8).step_by(2) {
        paged.extend(page(&*store, None, offset, 2));
    }
    assert_eq!(paged, all);
    assert!(page(&*store, None, 6, 2).is_empty());
}

#[contract_check]
fn only_due_pending_deletions_are_listed_for_purge(store: Arc<impl Store>) {
    let early = new_user("early@example.com", "Early", "One", None);
    let later = new_user("later@example.com", "Later", "One", None);
    let active = new_user("active@example.com", "Active", "One", None);
    for u in [&early, &later, &active] {
        UserRepository::insert(&*store, u, &by()).unwrap();
    }
    store
        .modify(early.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    store
        .modify(later.id(), &by(), &mut |u| {
            u.delete(now() + Duration::days(1))
        })
        .unwrap();

    let moment = now() + Duration::days(14);
    assert_eq!(
        store
            .due_for_purge(moment - Duration::seconds(1), 10)
            .unwrap(),
        vec![]
    );
    assert_eq!(store.due_for_purge(moment, 10).unwrap(), vec![early.id()]);
    let both = store.due_for_purge(moment + Duration::days(2), 10).unwrap();
    assert_eq!(both, vec![early.id(), later.id()]);
    assert_eq!(
        store.due_for_purge(moment + Duration::days(2), 1).unwrap(),
        vec![early.id()]
    );
}

#[contract_check]
fn anonymized_users_free_their_email_and_external_id(store: Arc<impl Store>) {
    let user = new_user("gone@example.com", "Gone", "Soon", Some("ext-9"));
    UserRepository::insert(&*store, &user, &by()).unwrap();
    store
        .modify(user.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    // Pending deletion still holds the address.
    assert_eq!(
        UserRepository::insert(
            &*store,
            &new_user("gone@example.com", "New", "Comer", None),
            &by()
        ),
        Err(StoreError::Conflict { field: "email" })
    );
    let at = now() + Duration::days(15);
    let purged = store
        .modify(user.id(), &by(), &mut |u| u.anonymize(at))
        .unwrap();
    assert_eq!(
        purged.status(),
        Status::Deleted {
            at: store
                .get(user.id())
                .unwrap()
                .unwrap()
                .date_deleted()
                .unwrap()
        }
    );
    assert!(purged.profile().is_none());

    UserRepository::insert(
        &*store,
        &new_user("GONE@example.com", "New", "Comer", Some("ext-9")),
        &by(),
    )
    .unwrap();
    // The deleted user shows only in the unfiltered listing.
    assert_eq!(page(&*store, None, 0, 100).len(), 2);
    assert_eq!(
        names(&page(&*store, Some("gone"), 0, 100)),
        vec!["New Comer"]
    );
    assert_eq!(store.due_for_purge(at, 10).unwrap(), vec![]);
}

fn by_email(store: &dyn UserRepository, email: &str) -> Option<UserId> {
    let key = UserKey::Email(Email::parse(email).unwrap());
    store.get_by_key(&key).unwrap().map(|u| u.id())
}

fn by_external_id(store: &dyn UserRepository, id: &str) -> Option<UserId> {
    let key = UserKey::ExternalId(ExternalId::parse(id).unwrap());
    store.get_by_key(&key).unwrap().map(|u| u.id())
}

#[contract_check]
fn exact_look_ups_find_the_one_live_holder(store: Arc<impl Store>) {
    let ada = new_user("Ada@Example.com", "Ada", "Lovelace", Some("E-1"));
    let adam = new_user("adam@example.com", "Adam", "Smith", Some("E-10"));
    for user in [&ada, &adam] {
        UserRepository::insert(&*store, user, &by()).unwrap();
    }
    // Whole values only: the address without regard to case, the
    // externalId exactly.
    assert_eq!(by_email(&*store, " ADA@example.COM "), Some(ada.id()));
    assert_eq!(by_email(&*store, "da@example.com"), None);
    assert_eq!(by_external_id(&*store, "E-1"), Some(ada.id()));
    assert_eq!(by_external_id(&*store, "e-1"), None);
    assert_eq!(by_external_id(&*store, "E-"), None);

    // A user pending deletion still holds its values; an anonymized one
    // holds none, and a newcomer may take them.
    store
        .modify(ada.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    assert_eq!(by_email(&*store, "ada@example.com"), Some(ada.id()));
    let at = now() + Duration::days(15);
    store
        .modify(ada.id(), &by(), &mut |u| u.anonymize(at))
        .unwrap();
    assert_eq!(by_email(&*store, "ada@example.com"), None);
    assert_eq!(by_external_id(&*store, "E-1"), None);
    let heir = new_user("ada@example.com", "Ada", "Heir", Some("E-1"));
    UserRepository::insert(&*store, &heir, &by()).unwrap();
    assert_eq!(by_email(&*store, "ada@example.com"), Some(heir.id()));
    assert_eq!(by_external_id(&*store, "E-1"), Some(heir.id()));

    // Several users in one read, whatever their status; unknown ids left
    // out.
    let stranger = UserId::from_uuid(Uuid::new_v4());
    let mut many: Vec<UserId> = store
        .get_many(&[ada.id(), stranger, adam.id(), heir.id()])
        .unwrap()
        .iter()
        .map(User::id)
        .collect();
    many.sort();
    let mut wanted = vec![ada.id(), adam.id(), heir.id()];
    wanted.sort();
    assert_eq!(many, wanted);
    assert_eq!(store.get_many(&[]).unwrap(), vec![]);
}

#[contract_check]
fn compacting_after_an_erasure_keeps_what_is_stored(store: Arc<impl Store>) {
    // Nothing erased yet: compacting is harmless.
    store.compact_after_erasure().unwrap();
    let stays = full_user();
    let gone = new_user("gone@example.com", "Gone", "Soon", Some("ext-9"));
    for user in [&stays, &gone] {
        UserRepository::insert(&*store, user, &by()).unwrap();
    }
    store
        .modify(gone.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    let at = now() + Duration::days(15);
    let purged = store
        .modify(gone.id(), &by(), &mut |u| u.anonymize(at))
        .unwrap();
    store.compact_after_erasure().unwrap();
    assert_eq!(store.get(stays.id()).unwrap(), Some(stays));
    assert_eq!(store.get(gone.id()).unwrap(), Some(purged));
}

pub(crate) fn credential(kind: CredentialKind, name: &str, minute: i64) -> StoredCredential {
    StoredCredential {
        id: Uuid::new_v4(),
        kind,
        name: name.into(),
        scopes: match kind {
            CredentialKind::AccessToken => vec![Scope::UsersRead, Scope::ExpertiseRead],
            CredentialKind::ApiKey => vec![],
        },
        secret_hash: format!("{:064x}", minute),
        created: now() + Duration::minutes(minute),
        revoked: None,
    }
}

#[contract_check]
fn credentials_are_stored_listed_and_revoked(store: Arc<impl Store>) {
    let second = credential(CredentialKind::AccessToken, "second", 2);
    let first = credential(CredentialKind::AccessToken, "first", 1);
    let key = credential(CredentialKind::ApiKey, "crm", 3);
    for c in [&second, &first, &key] {
        CredentialStore::insert(&*store, c, &by()).unwrap();
    }
    assert_eq!(
        store.find(CredentialKind::AccessToken, first.id).unwrap(),
        Some(first.clone())
    );
    // A secret of one kind is never found as the other.
    assert_eq!(store.find(CredentialKind::ApiKey, first.id).unwrap(), None);
    assert_eq!(
        store.list(CredentialKind::AccessToken).unwrap(),
        vec![first.clone(), second.clone()]
    );
    assert_eq!(
        store.list(CredentialKind::ApiKey).unwrap(),
        vec![key.clone()]
    );

    let at = now() + Duration::hours(1);
    assert!(store
        .revoke(CredentialKind::AccessToken, first.id, &by_at(at))
        .unwrap());
    assert!(!store
        .revoke(CredentialKind::AccessToken, first.id, &by_at(at))
        .unwrap());
    assert!(!store
        .revoke(CredentialKind::ApiKey, second.id, &by_at(at))
        .unwrap());
    assert_eq!(
        store
            .find(CredentialKind::AccessToken, first.id)
            .unwrap()
            .unwrap()
            .revoked,
        Some(at)
    );
}

#[contract_check]
fn only_one_first_credential_is_ever_stored(store: Arc<impl Store>) {
    let results: Vec<bool> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let store = store.clone();
                s.spawn(move || {
                    store
                        .insert_first(&credential(CredentialKind::AccessToken, "admin", i), &by())
                        .unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        results.iter().filter(|stored| **stored).count(),
        1,
        "{results:?}"
    );
    assert_eq!(store.list(CredentialKind::AccessToken).unwrap().len(), 1);
    // Other kinds are counted on their own.
    assert!(store
        .insert_first(&credential(CredentialKind::ApiKey, "k", 0), &by())
        .unwrap());

    let revoked_all = store.list(CredentialKind::AccessToken).unwrap();
    for c in revoked_all {
        store.revoke(c.kind, c.id, &by_at(now())).unwrap();
    }
    assert!(!store
        .insert_first(&credential(CredentialKind::AccessToken, "again", 9), &by())
        .unwrap());
}

fn action(email: &str, alias: Option<&str>, day: i64, topics: &[(&str, f64)]) -> NewAction {
    NewAction {
        id: Uuid::new_v4(),
        user_email_key: Email::fold(email),
        entity_type: "document".into(),
        action_type: "edit".into(),
        action_date: now() + Duration::days(day),
        alias: alias.map(Into::into),
        received: now(),
        topics: topics
            .iter()
            .map(|(key, relevance)| EntityTopic {
                key: (*key).into(),
                label: key.to_uppercase(),
                by_descriptor: [0.0, *relevance, 0.0],
                shown: true,
            })
            .collect(),
    }
}

fn score_of(store: &dyn ExpertiseStore, user: UserId, key: &str) -> Option<f64> {
    store
        .standings_of(user)
        .unwrap()
        .into_iter()
        .find(|s| s.key == key)
        .map(|s| s.standing.score_at(now(), &Scoring::default()))
}

#[contract_check]
fn actions_teach_their_user(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    assert!(store.rebuild_if_changed(&scoring).unwrap());
    assert!(!store.rebuild_if_changed(&scoring).unwrap());
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserRepository::insert(&*store, &ada, &by()).unwrap();

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
    UserRepository::insert(&*store, &ada, &by()).unwrap();
    UserRepository::insert(&*store, &bob, &by()).unwrap();
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
    UserRepository::insert(&*store, &ada, &by()).unwrap();
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
    UserRepository::insert(&*store, &bob, &by()).unwrap();
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
    UserRepository::insert(&*store, &ada, &by()).unwrap();
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
    UserRepository::insert(&*store, &ada, &by()).unwrap();
    UserRepository::insert(&*store, &bob, &by()).unwrap();
    for email in ["ada@example.com", "bob@example.com"] {
        store
            .record(&action(email, Some(email), 0, &[("rust", 1.0)]), &scoring)
            .unwrap();
    }
    assert!(store.set_hidden(ada.id(), "rust", true, &by()).unwrap());
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
    UserRepository::insert(&*store, &ada, &by()).unwrap();
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
    UserRepository::insert(&*store, &ada, &by()).unwrap();
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
    UserRepository::insert(&*store, &ada, &by()).unwrap();
    UserRepository::insert(&*store, &bob, &by()).unwrap();
    assert!(store.set_hidden(ada.id(), "vat", true, &by()).unwrap());
    assert!(!store.set_hidden(ada.id(), "vat", true, &by()).unwrap());
    assert!(store.set_hidden(ada.id(), "helm", true, &by()).unwrap());
    assert!(store.set_hidden(bob.id(), "helm", true, &by()).unwrap());
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
    assert!(store.set_hidden(ada.id(), "helm", false, &by()).unwrap());
    assert!(!store.set_hidden(ada.id(), "helm", false, &by()).unwrap());
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
    UserRepository::insert(&*store, &ada, &by()).unwrap();
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

/// More actions than one transaction of a rebuild reads (store-diesel
/// rebuilds about a thousand at a time): every learner is rebuilt, each
/// once.
#[contract_check]
fn a_rebuild_reaches_every_learner(store: Arc<impl Store>) {
    let scoring = Scoring::default();
    store.rebuild_if_changed(&scoring).unwrap();
    let people: Vec<User> = (0..30)
        .map(|p| new_user(&format!("p{p}@example.com"), "P", &format!("n{p}"), None))
        .collect();
    for (p, person) in people.iter().enumerate() {
        UserRepository::insert(&*store, person, &by()).unwrap();
        let key = format!("topic{}", p % 5);
        for _ in 0..(30 + p) {
            store
                .record(
                    &action(&format!("p{p}@example.com"), None, 0, &[(&key, 1.0)]),
                    &scoring,
                )
                .unwrap();
        }
    }
    let edit = kenning_domain::ActionType::parse("edit").unwrap();
    let doubled = Scoring::new([(edit, 2.0)], 1.0, [1.5, 1.0, 0.5], Duration::days(365)).unwrap();
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
    let scoring = Scoring::default();
    store.rebuild_if_changed(&scoring).unwrap();
    let people: Vec<User> = (0..30)
        .map(|p| new_user(&format!("p{p}@example.com"), "P", &format!("n{p}"), None))
        .collect();
    for (p, person) in people.iter().enumerate() {
        UserRepository::insert(&*store, person, &by()).unwrap();
        for _ in 0..(30 + p) {
            store
                .record(
                    &action(&format!("p{p}@example.com"), None, 0, &[("rust", 1.0)]),
                    &scoring,
                )
                .unwrap();
        }
    }
    let edit = kenning_domain::ActionType::parse("edit").unwrap();
    let doubled = Scoring::new([(edit, 2.0)], 1.0, [1.5, 1.0, 0.5], Duration::days(365)).unwrap();
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
        UserRepository::insert(&*store, user, &by()).unwrap();
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
        UserRepository::insert(&*store, &user, &by()).unwrap();
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
    assert_eq!(both.activity.len(), 4, "the visible users read");
    assert!(both.activity.values().all(|n| *n == 1));

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
    assert_eq!(after.activity.get(&ids[1]), Some(&2));
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
        UserRepository::insert(&*store, person, &by()).unwrap();
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
        UserRepository::insert(&*store, person, &by()).unwrap();
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

/// The filters of the filter contract check: every attribute and
/// operator, absent values, logic, `%` and `_`, case.
fn filters(at: DateTime<Utc>) -> Vec<UserFilter> {
    use FilterAttribute::*;
    use FilterOperator::*;
    let text = |a, op, v: &str| {
        UserFilter::Compare(Comparison::new(a, op, FilterValue::Text(v.into())).unwrap())
    };
    let moment = |op, m| {
        UserFilter::Compare(Comparison::new(LastModified, op, FilterValue::Moment(m)).unwrap())
    };
    let active =
        |op, b| UserFilter::Compare(Comparison::new(Active, op, FilterValue::Bool(b)).unwrap());
    let not = |f| UserFilter::Not(Box::new(f));
    let and = |a, b| UserFilter::And(Box::new(a), Box::new(b));
    let or = |a, b| UserFilter::Or(Box::new(a), Box::new(b));
    vec![
        text(Email, Equal, "ADA@example.com"),
        text(UserName, Equal, "ADA@example.com"),
        text(UserName, Equal, "dora\\sso"),
        text(UserName, Equal, "dora@example.com"),
        text(UserName, NotEqual, "DORA\\SSO"),
        text(UserName, StartsWith, "dora"),
        text(UserName, EndsWith, ".org"),
        text(UserName, Contains, "\\"),
        text(Email, NotEqual, "ada@example.com"),
        text(Email, Contains, "_"),
        text(Email, StartsWith, "B"),
        text(Email, EndsWith, "EXAMPLE.org"),
        text(ExternalId, Equal, "E-1"),
        text(ExternalId, Equal, "e-1"),
        text(ExternalId, NotEqual, "E-1"),
        text(ExternalId, Contains, "%"),
        text(ExternalId, EndsWith, ""),
        text(FamilyName, Equal, "lovelace"),
        text(FamilyName, StartsWith, "LO"),
        text(FamilyName, EndsWith, "ACE"),
        text(FamilyName, EndsWith, "much longer than any name"),
        text(GivenName, Contains, "o"),
        text(GivenName, StartsWith, ""),
        UserFilter::Present(ExternalId),
        UserFilter::Present(GivenName),
        not(UserFilter::Present(ExternalId)),
        active(Equal, true),
        active(Equal, false),
        active(NotEqual, true),
        moment(GreaterThan, at),
        moment(GreaterOrEqual, at),
        moment(LessThan, at),
        moment(LessOrEqual, at),
        moment(Equal, at),
        moment(NotEqual, at),
        and(text(Email, EndsWith, ".com"), active(Equal, true)),
        or(
            text(FamilyName, Equal, "Byron"),
            not(text(ExternalId, Equal, "E-1")),
        ),
        not(and(
            UserFilter::Present(ExternalId),
            or(text(GivenName, Equal, "ada"), moment(LessThan, at)),
        )),
    ]
}

#[contract_check]
fn a_filter_finds_what_the_domain_rule_says_in_listing_order(store: Arc<impl Store>) {
    let at = now() + Duration::hours(1);
    let people = [
        ("ada@example.com", "Ada", "Lovelace", Some("E-1")),
        ("bob_b@example.org", "Bob", "Byron", Some("x%y")),
        ("carl@example.com", "Carl", "Lovelace", None),
        ("dora@example.com", "Dora", "Loveless", Some("E-2")),
        ("erin@example.com", "Erin", "Zed", None),
        ("gone@example.com", "Gone", "Lovelace", Some("E-9")),
    ];
    let mut users = Vec::new();
    for (email, first, last, external) in people {
        let user = new_user(email, first, last, external);
        UserRepository::insert(&*store, &user, &by()).unwrap();
        users.push(user.id());
    }
    // Bob deactivated an hour later, Carl changed at the hour, Gone
    // pending deletion.
    store
        .modify(users[1], &by(), &mut |u| {
            u.deactivate()?;
            u.touch(at + Duration::hours(1));
            Ok(())
        })
        .unwrap();
    store
        .modify(users[2], &by(), &mut |u| {
            u.touch(at);
            Ok(())
        })
        .unwrap();
    store
        .modify(users[5], &by(), &mut |u| u.delete(now()))
        .unwrap();
    store
        .modify(users[3], &by(), &mut |u| {
            u.update(
                UserPatch::parse(UserPatchInput {
                    user_name: Patch::Set("Dora\\SSO".into()),
                    ..UserPatchInput::default()
                })
                .unwrap(),
            )
        })
        .unwrap();

    let mut everyone: Vec<User> = users
        .iter()
        .map(|id| store.get(*id).unwrap().unwrap())
        .collect();
    everyone.sort_by_key(UserCursor::of);
    for filter in filters(at) {
        let expected: Vec<UserId> = everyone
            .iter()
            .filter(|u| filter.matches(u))
            .map(User::id)
            .collect();
        let found = store.filter(Some(&filter), 0, 100).unwrap();
        let ids: Vec<UserId> = found.users.iter().map(User::id).collect();
        assert_eq!(ids, expected, "{filter:?}");
        assert_eq!(found.total, expected.len() as u64, "{filter:?}");
    }

    let ada = store.filter(Some(&filters(at)[0]), 0, 100).unwrap();
    assert_eq!(
        ada.users.iter().map(User::id).collect::<Vec<_>>(),
        [users[0]]
    );
    let all = store.filter(None, 0, 100).unwrap();
    assert_eq!(all.total, 5, "the user pending deletion is not listed");
    let page = store.filter(None, 1, 2).unwrap();
    assert_eq!(page.total, 5);
    assert_eq!(page.users, all.users[1..3]);
    assert!(store.filter(None, 5, 2).unwrap().users.is_empty());
    assert!(store.filter(None, 0, 0).unwrap().users.is_empty());
}

fn group_of(name: &str, external: Option<&str>, members: &[&User]) -> kenning_domain::Group {
    let ids: Vec<UserId> = members.iter().map(|u| u.id()).collect();
    let mut group = group_with(name, &ids);
    let mut attributes = group.attributes().clone();
    attributes.external_id = external.map(|e| kenning_domain::ExternalId::parse(e).unwrap());
    group.replace(attributes, now());
    group
}

fn group_with(name: &str, members: &[UserId]) -> kenning_domain::Group {
    let attributes = kenning_domain::GroupAttributes::parse(kenning_domain::GroupInput {
        display_name: name.into(),
        external_id: None,
        members: members.iter().map(UserId::to_string).collect(),
    })
    .unwrap();
    kenning_domain::Group::create(
        kenning_domain::GroupId::from_uuid(Uuid::new_v4()),
        attributes,
        now(),
    )
}

#[contract_check]
fn groups_keep_their_members_versions_and_unique_external_ids(store: Arc<impl Store>) {
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    for u in [&ada, &bob] {
        UserRepository::insert(&*store, u, &by()).unwrap();
    }
    let sales = group_of("Sales", Some("g-1"), &[&ada, &bob]);
    store.insert_group(&sales, &by()).unwrap();
    assert_eq!(store.group(sales.id()).unwrap(), Some(sales.clone()));
    assert_eq!(
        store.insert_group(&group_of("Other", Some("g-1"), &[]), &by()),
        Err(StoreError::Conflict {
            field: "externalId"
        })
    );
    let rnd = group_of("R&D", None, &[&ada]);
    store.insert_group(&rnd, &by()).unwrap();
    store
        .insert_group(&group_of("r&d", None, &[]), &by())
        .unwrap();

    let later = now() + Duration::minutes(5);
    let renamed = store
        .modify_group(sales.id(), &by(), &mut |g| {
            g.expect_version(1)?;
            let mut a = g.attributes().clone();
            a.members.remove(&bob.id());
            g.replace(a, later);
            Ok(())
        })
        .unwrap();
    assert_eq!((renamed.version(), renamed.modified()), (2, later));
    assert_eq!(store.group(sales.id()).unwrap(), Some(renamed.clone()));
    assert_eq!(
        store.modify_group(sales.id(), &by(), &mut |g| g.expect_version(1)),
        Err(ModifyGroupError::Rejected(
            kenning_domain::GroupError::StaleVersion {
                expected: 1,
                current: 2
            }
        ))
    );
    let missing = kenning_domain::GroupId::from_uuid(Uuid::new_v4());
    assert_eq!(
        store.modify_group(missing, &by(), &mut |_| Ok(())),
        Err(ModifyGroupError::NotFound)
    );

    let by_name = |name: &str| kenning_domain::GroupFilter {
        display_name: Some(name.into()),
        external_id: None,
    };
    let named = store.groups(&by_name("R&D"), 0, 10).unwrap();
    assert_eq!(named.total, 2);
    assert_eq!(
        named.groups[0].id().min(named.groups[1].id()),
        named.groups[0].id()
    );
    let by_external = kenning_domain::GroupFilter {
        display_name: None,
        external_id: Some("g-1".into()),
    };
    assert_eq!(store.groups(&by_external, 0, 10).unwrap().groups, [renamed]);
    let all = store
        .groups(&kenning_domain::GroupFilter::default(), 1, 1)
        .unwrap();
    assert_eq!(all.total, 3);
    assert_eq!(all.groups.len(), 1);

    assert_eq!(
        store.delete_group(rnd.id(), Some(2), &by()),
        Err(ModifyGroupError::Rejected(
            kenning_domain::GroupError::StaleVersion {
                expected: 2,
                current: 1
            }
        ))
    );
    store.delete_group(rnd.id(), Some(1), &by()).unwrap();
    assert_eq!(
        store.delete_group(rnd.id(), None, &by()),
        Err(ModifyGroupError::NotFound)
    );
    assert_eq!(store.group(rnd.id()).unwrap(), None);

    let stranger = UserId::from_uuid(Uuid::new_v4());
    let mut live = store.live_users(&[ada.id(), stranger, bob.id()]).unwrap();
    live.sort();
    let mut expected = vec![ada.id(), bob.id()];
    expected.sort();
    assert_eq!(live, expected);
}

#[contract_check]
fn an_anonymized_user_leaves_every_group(store: Arc<impl Store>) {
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    let bob = new_user("bob@example.com", "Bob", "Byron", None);
    for u in [&ada, &bob] {
        UserRepository::insert(&*store, u, &by()).unwrap();
    }
    let team = group_of("Team", None, &[&ada, &bob]);
    let solo = group_of("Solo", None, &[&bob]);
    store.insert_group(&team, &by()).unwrap();
    store.insert_group(&solo, &by()).unwrap();
    store
        .modify(ada.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    let due = now() + Duration::days(30);
    store
        .modify(ada.id(), &by(), &mut |u| {
            u.anonymize(due)?;
            u.touch(due);
            Ok(())
        })
        .unwrap();
    let team = store.group(team.id()).unwrap().unwrap();
    assert_eq!(
        team.attributes()
            .members
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        [bob.id()]
    );
    assert_eq!((team.version(), team.modified()), (2, due));
    assert_eq!(store.group(solo.id()).unwrap().unwrap().version(), 1);
    assert_eq!(store.live_users(&[ada.id()]).unwrap(), []);
}
