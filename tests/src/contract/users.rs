//! The user repository ([`UserStore`]) kept by every store alike: a
//! user is stored and read back whole; email, externalId and userName are
//! unique among live users, also when writes race; each write counts one
//! version and a refused one stores nothing; search, look-ups and filters
//! find what the domain's rules say, in listing order (reading by cursor
//! is `cursor`'s); an anonymized user frees what it held.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use kenning_domain::{
    Attribution, Comparison, Email, ExternalId, FilterAttribute, FilterOperator, FilterValue,
    LanguageId, Limit, Location, NewUser, NewUserInput, Patch, SearchText, Status, User,
    UserCursor, UserError, UserFilter, UserId, UserKey, UserPatch, UserPatchInput,
};
use kenning_ports::{ModifyError, StoreError, UserStore};
use kenning_test_macros::contract_check;
use uuid::Uuid;

use super::{
    adapters, by, directory, matching, names, new_user, now, page, Store, SEARCHES_OF_EVERY_KIND,
};

/// `users`, each made by the embedding program at [`now`].
fn attributed(users: &[User]) -> Vec<(User, Attribution)> {
    users.iter().map(|u| (u.clone(), by())).collect()
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
    UserStore::insert(&*store, &user, &by()).unwrap();
    assert_eq!(store.get(user.id()).unwrap(), Some(user));
    assert_eq!(store.get(UserId::from_uuid(Uuid::new_v4())).unwrap(), None);
    store.ping().unwrap();
}

#[contract_check]
fn email_and_external_id_are_unique_among_live_users(store: Arc<impl Store>) {
    UserStore::insert(
        &*store,
        &new_user("ada@example.com", "Ada", "Lovelace", Some("e-1")),
        &by(),
    )
    .unwrap();
    assert_eq!(
        UserStore::insert(
            &*store,
            &new_user("ADA@Example.COM", "Ada", "Byron", None),
            &by()
        ),
        Err(StoreError::Conflict { field: "email" })
    );
    assert_eq!(
        UserStore::insert(
            &*store,
            &new_user("other@example.com", "Ada", "Byron", Some("e-1")),
            &by()
        ),
        Err(StoreError::Conflict {
            field: "externalId"
        })
    );
    let hopper = full_user();
    UserStore::insert(&*store, &hopper, &by()).unwrap();
    let mut same_name = new_user("g2@example.com", "G", "H", None);
    let name = UserPatch::parse(UserPatchInput {
        user_name: Patch::Set("ghopper@NAVY".into()),
        ..UserPatchInput::default()
    })
    .unwrap();
    same_name.update(name).unwrap();
    assert_eq!(
        UserStore::insert(&*store, &same_name, &by()),
        Err(StoreError::Conflict { field: "userName" })
    );
    assert_eq!(page(&*store, None, 0, 100).len(), 2);
}

/// Users inserted together are answered each as if inserted one after
/// another: a refused one leaves nothing and stops nothing.
#[contract_check]
fn users_inserted_together_are_answered_each_in_order(store: Arc<impl Store>) {
    let ada = new_user("ada@example.com", "Ada", "Lovelace", Some("e-1"));
    UserStore::insert(&*store, &ada, &by()).unwrap();
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
                    UserStore::insert(
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
    UserStore::insert(&*store, &user, &by()).unwrap();

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
    UserStore::insert(&*store, &user, &by()).unwrap();
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
    UserStore::insert(&*store, &ada, &by()).unwrap();
    UserStore::insert(&*store, &bob, &by()).unwrap();
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
    UserStore::insert(&*store, &counted, &by()).unwrap();
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
    UserStore::insert(
        &*store,
        &new_user("ada@example.com", "Ada", "Lovelace", Some("EMP-7")),
        &by(),
    )
    .unwrap();
    UserStore::insert(
        &*store,
        &new_user("alan@turing.org", "Alan", "Turing", None),
        &by(),
    )
    .unwrap();
    UserStore::insert(
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
        UserStore::insert(&*store, user, &by()).unwrap();
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
        UserStore::insert(
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
        UserStore::insert(&*store, u, &by()).unwrap();
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
    UserStore::insert(&*store, &user, &by()).unwrap();
    store
        .modify(user.id(), &by(), &mut |u| u.delete(now()))
        .unwrap();
    // Pending deletion still holds the address.
    assert_eq!(
        UserStore::insert(
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

    UserStore::insert(
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

fn by_email(store: &dyn UserStore, email: &str) -> Option<UserId> {
    let key = UserKey::Email(Email::parse(email).unwrap());
    store.get_by_key(&key).unwrap().map(|u| u.id())
}

fn by_external_id(store: &dyn UserStore, id: &str) -> Option<UserId> {
    let key = UserKey::ExternalId(ExternalId::parse(id).unwrap());
    store.get_by_key(&key).unwrap().map(|u| u.id())
}

#[contract_check]
fn exact_look_ups_find_the_one_live_holder(store: Arc<impl Store>) {
    let ada = new_user("Ada@Example.com", "Ada", "Lovelace", Some("E-1"));
    let adam = new_user("adam@example.com", "Adam", "Smith", Some("E-10"));
    for user in [&ada, &adam] {
        UserStore::insert(&*store, user, &by()).unwrap();
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
    UserStore::insert(&*store, &heir, &by()).unwrap();
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
        UserStore::insert(&*store, user, &by()).unwrap();
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
        UserStore::insert(&*store, &user, &by()).unwrap();
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
