//! Listings read by cursor ([`UserStore::search_after`]): page after
//! page, each starting right after the last user of the one before.

use std::sync::Arc;

use chrono::Duration;
use kenning_domain::{
    Limit, Offset, Patch, SearchText, User, UserCursor, UserId, UserPatch, UserPatchInput,
};
use kenning_ports::{UserPage, UserStore};
use kenning_test_macros::contract_check;

use super::{
    adapters, by, directory, matching, names, new_user, now, page, Store, SEARCHES_OF_EVERY_KIND,
};

fn page_after(
    store: &dyn UserStore,
    text: Option<&str>,
    after: Option<&UserCursor>,
    limit: i64,
) -> UserPage {
    store
        .search_after(
            &SearchText::parse(text).unwrap(),
            after,
            Limit::parse(limit).unwrap(),
        )
        .unwrap()
}

/// Every page of the listing of `text`, read by cursor from the start
/// until a page says nothing follows; every page but the last is full.
fn walk(store: &dyn UserStore, text: Option<&str>, limit: i64) -> Vec<UserId> {
    let mut after = None;
    let mut walked = Vec::new();
    loop {
        let page = page_after(store, text, after.as_ref(), limit);
        walked.extend(page.users.iter().map(User::id));
        if !page.more {
            return walked;
        }
        assert_eq!(page.users.len() as i64, limit, "{text:?}: a page short");
        after = page.users.last().map(UserCursor::of);
    }
}

/// The listing of `text` read by offset, page after page.
fn by_offset(store: &dyn UserStore, text: Option<&str>) -> Vec<UserId> {
    let search = SearchText::parse(text).unwrap();
    let mut listed = Vec::new();
    loop {
        let offset = Offset::parse(listed.len() as i64).unwrap();
        let page = store.search(&search, offset, Limit::DEFAULT).unwrap();
        if page.is_empty() {
            return listed;
        }
        listed.extend(page.iter().map(User::id));
    }
}

/// Walking by cursor lists exactly what the offset listing does, for every
/// way a store may answer a search, and the page after the last user is
/// empty.
#[contract_check]
fn cursor_pages_walk_the_whole_listing(store: Arc<impl Store>) {
    let listed = directory(&*store);
    let cases = SEARCHES_OF_EVERY_KIND
        .iter()
        .map(|(text, _, limit)| (Some(*text), *limit))
        .chain([(None, 7), (None, 1_000)]);
    for (text, limit) in cases {
        let want = matching(&listed, text);
        assert_eq!(walk(&*store, text, limit), want, "{text:?} by {limit}");
        assert_eq!(by_offset(&*store, text), want, "{text:?} by offset");
        let last = want
            .last()
            .and_then(|id| listed.iter().find(|u| u.id() == *id))
            .map(UserCursor::of);
        if let Some(last) = last {
            let end = page_after(&*store, text, Some(&last), limit);
            assert_eq!(
                (end.users.len(), end.more),
                (0, false),
                "{text:?} at the end"
            );
        }
    }
    assert!(matching(&listed, Some("zq")).is_empty());
    assert!(page_after(&*store, Some("zq"), None, 20).users.is_empty());
}

/// A search keeps the listing order after users are renamed (their place
/// in the listing moves) and erased (they leave every search), by offset
/// and by cursor, whichever way a store reads the text.
#[contract_check]
fn a_search_follows_renames_and_erasures(store: Arc<impl Store>) {
    let mut listed = directory(&*store);
    // Four users far apart take names holding "qqq", each moving to
    // another place in the listing; the one renamed Bqqq is then erased.
    // Nobody else holds "qqq", so it is read from the trigram index.
    let renames = [
        ("l0010", "Zqqq"),
        ("l0600", "Aqqq"),
        ("l0900", "Bqqq"),
        ("l1100", "Mqqq"),
    ];
    for (from, to) in renames {
        let at = listed
            .iter()
            .position(|u| u.profile().unwrap().lastname.as_str() == from)
            .unwrap();
        let patch = UserPatch::parse(UserPatchInput {
            lastname: Patch::Set(to.into()),
            ..UserPatchInput::default()
        })
        .unwrap();
        listed[at] = store
            .modify(listed[at].id(), &by(), &mut |u| u.update(patch.clone()))
            .unwrap();
    }
    let erased = listed
        .iter()
        .position(|u| u.profile().unwrap().lastname.as_str() == "Bqqq")
        .unwrap();
    let gone = listed.remove(erased).id();
    store.modify(gone, &by(), &mut |u| u.delete(now())).unwrap();
    let at = now() + Duration::days(15);
    store.modify(gone, &by(), &mut |u| u.anonymize(at)).unwrap();
    listed.sort_by_key(UserCursor::of);

    let qqq = matching(&listed, Some("qqq"));
    assert_eq!(
        names(&page(&*store, Some("qqq"), 0, 10)),
        ["Mia Aqqq", "Zoë Mqqq", "Eve Zqqq"]
    );
    for offset in 0..3 {
        let one = page(&*store, Some("qqq"), offset, 1);
        assert_eq!(
            one.iter().map(User::id).collect::<Vec<_>>(),
            [qqq[offset as usize]]
        );
    }
    let cases = SEARCHES_OF_EVERY_KIND
        .iter()
        .map(|(text, _, limit)| (*text, *limit))
        .chain([("qqq", 1), ("qqq", 2)]);
    for (text, limit) in cases {
        let want = matching(&listed, Some(text));
        assert_eq!(
            walk(&*store, Some(text), limit),
            want,
            "{text:?} by {limit}"
        );
        assert_eq!(by_offset(&*store, Some(text)), want, "{text:?} by offset");
    }
}

/// Names that sort next to each other but differ only past a character a
/// store may read coarsely (an accent, a digit, punctuation, another
/// script), past a prefix, or in the first name, all holding one rare
/// text: every page of it, by offset one user at a time and by cursor,
/// is in listing order. SQLite reads its trigram index in groups of such
/// names (see store-diesel's `search` module); a group read in the wrong
/// order or left out shows here.
#[contract_check]
fn a_search_keeps_the_order_of_names_alike(store: Arc<impl Store>) {
    let mut listed = directory(&*store);
    let alike = [
        ("Aéz", "Bo"),
        ("Aêa", "Bo"),
        ("Ab1z", "Cy"),
        ("Ab2a", "Cy"),
        ("Ab!z", "Di"),
        ("Ab#a", "Di"),
        ("Smith", "Ada"),
        ("Smith", "Adam"),
        ("Smith", "Al"),
        ("Smith", "Zoë"),
        ("Smith", "Éva"),
        ("Smithson", "Ada"),
        ("Smit", "Zed"),
        ("Smit", "A"),
        ("O'Neil", "Ann"),
        ("ONeil", "Ann"),
        ("O Neil", "Ann"),
        ("O-Neil", "Ann"),
        ("de la Cruz", "Ana"),
        ("De la Cruz", "Ana"),
        ("DE", "X"),
        ("Zhang", "Wei"),
        ("张", "伟"),
        ("张", "伟伟"),
        ("Ærø", "A"),
        ("Çelik", "B"),
        ("Andersonn", "Abe"),
        ("Anderson", "Zed"),
        ("Wolfeschlegelsteinhausen", "A"),
        ("Wolfeschlegel", "Z"),
    ];
    for (n, (last, first)) in alike.iter().enumerate() {
        let user = new_user(&format!("t{n}@kqz.example"), first, last, None);
        UserStore::insert(&*store, &user, &by()).unwrap();
        listed.push(user);
    }
    listed.sort_by_key(UserCursor::of);
    // The domain alone is asked for whole, the address by its rarest
    // trigrams (a superset, tested).
    for text in ["kqz", "@kqz.example"] {
        let want = matching(&listed, Some(text));
        assert_eq!(want.len(), alike.len());
        for (offset, id) in want.iter().enumerate() {
            let one = page(&*store, Some(text), offset as i64, 1);
            assert_eq!(
                one.iter().map(User::id).collect::<Vec<_>>(),
                [*id],
                "{text:?} at {offset}"
            );
        }
        for limit in [1, 2, 3, 7] {
            assert_eq!(
                walk(&*store, Some(text), limit),
                want,
                "{text:?} by {limit}"
            );
        }
    }
}

/// A page that ends exactly at the last user says that nothing follows.
#[contract_check]
fn a_full_last_page_says_nothing_follows(store: Arc<impl Store>) {
    for (i, last) in ["Alpha", "Beta", "Gamma", "Delta"].iter().enumerate() {
        let user = new_user(&format!("u{i}@example.com"), "Al", last, None);
        UserStore::insert(&*store, &user, &by()).unwrap();
    }
    let first = page_after(&*store, None, None, 2);
    assert_eq!(names(&first.users), ["Al Alpha", "Al Beta"]);
    assert!(first.more);
    let cursor = first.users.last().map(UserCursor::of);
    let second = page_after(&*store, None, cursor.as_ref(), 2);
    assert_eq!(names(&second.users), ["Al Delta", "Al Gamma"]);
    assert!(!second.more);
    let all = page_after(&*store, None, None, 4);
    assert_eq!((all.users.len(), all.more), (4, false));
}

/// A cursor is a position, not a user: it still works once the user it
/// was taken from is gone from its place, and for a user never stored.
#[contract_check]
fn a_cursor_between_rows_still_works(store: Arc<impl Store>) {
    let users: Vec<User> = ["Adams", "Baker", "Clark", "Davis", "Evans"]
        .iter()
        .enumerate()
        .map(|(i, last)| new_user(&format!("u{i}@example.com"), "Jo", last, None))
        .collect();
    for user in &users {
        UserStore::insert(&*store, user, &by()).unwrap();
    }
    let first = page_after(&*store, Some("jo"), None, 2);
    assert_eq!(names(&first.users), ["Jo Adams", "Jo Baker"]);
    let cursor = UserCursor::of(&first.users[1]);

    // Baker is deleted and anonymized: the row moves to the front of the
    // listing (its names are empty) and out of every search.
    let baker = first.users[1].id();
    store
        .modify(baker, &by(), &mut |u| u.delete(now()))
        .unwrap();
    let at = now() + Duration::days(15);
    store
        .modify(baker, &by(), &mut |u| u.anonymize(at))
        .unwrap();
    let next = page_after(&*store, Some("jo"), Some(&cursor), 2);
    assert_eq!(names(&next.users), ["Jo Clark", "Jo Davis"]);
    assert!(next.more);
    let unfiltered = page_after(&*store, None, Some(&cursor), 10);
    assert_eq!(
        names(&unfiltered.users),
        ["Jo Clark", "Jo Davis", "Jo Evans"]
    );

    let never_stored = UserCursor::of(&new_user("x@example.com", "Zed", "Clark", None));
    let after_it = page_after(&*store, None, Some(&never_stored), 10);
    assert_eq!(names(&after_it.users), ["Jo Davis", "Jo Evans"]);
}
