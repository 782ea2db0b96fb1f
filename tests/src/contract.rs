//! The storage contract every adapter keeps, one module per port, each
//! check stating a rule of its port's docs. Each check takes a fresh,
//! empty store; its `#[contract_check]` runs it against the in-memory
//! store, SQLite and PostgreSQL (`adapters`) as the tests
//! `contract::<module>::<check>::memory`, `::sqlite` and `::postgres`.
//! This module holds what the checks share: the [`Store`] they run on and
//! the helpers several modules build their data with. A function here or
//! in a module that no test calls is dead code, which this module denies,
//! so a check cannot be written and never run.

mod adapters;
mod audit;
mod credentials;
mod cursor;
mod declaring;
mod expertise;
mod groups;
mod hiding;
mod import;
mod learning;
mod plans;
mod privacy;
mod ranked;
mod runs;
mod scores;
mod sessions;
mod users;
mod webhooks;

use chrono::{DateTime, Duration, TimeZone, Utc};
use kenning_domain::{
    Actor, Attribution, CredentialKind, Email, EntityTopic, LanguageId, Limit, NewUser,
    NewUserInput, Offset, Scope, Scoring, SearchText, User, UserCursor, UserId,
};
use kenning_ports::{
    AuditTrail, ConnectorRunStore, CredentialStore, ExpertiseStore, GroupStore, NewAction,
    PrivacyStore, SessionStore, StoredCredential, UserStore, WebhookStore,
};
use uuid::Uuid;

/// A store under test.
pub trait Store:
    UserStore
    + CredentialStore
    + ExpertiseStore
    + GroupStore
    + AuditTrail
    + WebhookStore
    + SessionStore
    + PrivacyStore
    + ConnectorRunStore
    + 'static
{
}
impl<T> Store for T where
    T: UserStore
        + CredentialStore
        + ExpertiseStore
        + GroupStore
        + AuditTrail
        + WebhookStore
        + SessionStore
        + PrivacyStore
        + ConnectorRunStore
        + 'static
{
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap()
}

/// How many of eight threads, each adding its own topic `n` to one
/// person's list at once (`add`), changed it.
fn racing_additions<S, F>(store: &std::sync::Arc<S>, add: F) -> usize
where
    S: Store + Send + Sync,
    F: Fn(&S, usize, &Attribution) -> kenning_ports::TopicListChange + Clone + Send + 'static,
{
    let racing: Vec<_> = (0..8)
        .map(|n| {
            let (store, add) = (store.clone(), add.clone());
            std::thread::spawn(move || add(&store, n, &by()))
        })
        .collect();
    racing
        .into_iter()
        .map(|t| t.join().unwrap())
        .filter(|a| *a == kenning_ports::TopicListChange::Changed)
        .count()
}

/// A change made by the embedding program at [`now`].
fn by() -> Attribution {
    by_at(now())
}

/// A change made by the embedding program at `at`.
fn by_at(at: DateTime<Utc>) -> Attribution {
    Attribution::new(Actor::embedded(), at)
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

fn page(store: &dyn UserStore, text: Option<&str>, offset: i64, limit: i64) -> Vec<User> {
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

/// A directory larger than the head of the list a search tests first (see
/// store-diesel's `search` module), stored in `store`; the users in
/// listing order.
fn directory(store: &dyn UserStore) -> Vec<User> {
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
        issued_by: None,
        expires: None,
    }
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
