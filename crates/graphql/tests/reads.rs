//! A list's resolver reads what its items' fields need in one batch: the
//! users of `experts` and the groups of the users of a listing are read
//! once per request, not once per item. The schema runs here on the
//! in-memory store with every read of a user or of a user's groups
//! counted.

// Test helpers stop the test with a message when a step fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use juniper::http::{GraphQLBatchRequest, GraphQLRequest};
use kenning_app::{
    Administrators, AuditService, ConnectorService, CredentialService, DeliverySettings,
    ExpertiseService, Gate, GroupService, PrivacyService, SessionService, UseCases, UserService,
    WebhookService,
};
use kenning_clock::ManualClock;
use kenning_domain::{
    Attribution, CredentialKind, Group, GroupError, GroupFilter, GroupId, GroupInput, LanguageId,
    Limit, NewUserInput, Offset, Raw, Scope, Scoring, SearchText, SessionPolicy, UploadInput, User,
    UserCursor, UserError, UserFilter, UserId, UserKey,
};
use kenning_graphql::{Answer, Context, Limits, Outcome};
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::{
    FilteredGroups, FilteredUsers, GroupStore, Membership, ModifyError, ModifyGroupError,
    StoreError, UserPage, UserStore,
};
use kenning_store_memory::MemoryStore;
use kenning_webhook::{EventSource, NetworkPolicy, Webhooks};
use serde_json::{json, Value};

/// The in-memory store, counting the reads of single users, of users in
/// a batch and of groups of users.
#[derive(Default)]
struct Counted {
    inner: Arc<MemoryStore>,
    single_users: AtomicUsize,
    user_batches: AtomicUsize,
    group_reads: AtomicUsize,
}

impl Counted {
    fn reads(&self) -> (usize, usize, usize) {
        (
            self.single_users.load(Ordering::SeqCst),
            self.user_batches.load(Ordering::SeqCst),
            self.group_reads.load(Ordering::SeqCst),
        )
    }

    fn reset(&self) {
        for counter in [&self.single_users, &self.user_batches, &self.group_reads] {
            counter.store(0, Ordering::SeqCst);
        }
    }
}

impl UserStore for Counted {
    fn insert(&self, user: &User, by: &Attribution) -> Result<(), StoreError> {
        UserStore::insert(&*self.inner, user, by)
    }
    fn get(&self, id: UserId) -> Result<Option<User>, StoreError> {
        self.single_users.fetch_add(1, Ordering::SeqCst);
        self.inner.get(id)
    }
    fn get_many(&self, ids: &[UserId]) -> Result<Vec<User>, StoreError> {
        self.user_batches.fetch_add(1, Ordering::SeqCst);
        self.inner.get_many(ids)
    }
    fn get_by_key(&self, key: &UserKey) -> Result<Option<User>, StoreError> {
        self.inner.get_by_key(key)
    }
    fn search(
        &self,
        text: &SearchText,
        offset: Offset,
        limit: Limit,
    ) -> Result<Vec<User>, StoreError> {
        self.inner.search(text, offset, limit)
    }
    fn search_after(
        &self,
        text: &SearchText,
        after: Option<&UserCursor>,
        limit: Limit,
    ) -> Result<UserPage, StoreError> {
        self.inner.search_after(text, after, limit)
    }
    fn filter(
        &self,
        filter: Option<&UserFilter>,
        skip: u64,
        count: u32,
    ) -> Result<FilteredUsers, StoreError> {
        self.inner.filter(filter, skip, count)
    }
    fn live_users(&self, users: &[UserId]) -> Result<Vec<UserId>, StoreError> {
        self.inner.live_users(users)
    }
    fn modify(
        &self,
        id: UserId,
        by: &Attribution,
        change: &mut dyn FnMut(&mut User) -> Result<(), UserError>,
    ) -> Result<User, ModifyError> {
        self.inner.modify(id, by, change)
    }
    fn due_for_purge(&self, now: DateTime<Utc>, max: u32) -> Result<Vec<UserId>, StoreError> {
        self.inner.due_for_purge(now, max)
    }
    fn compact_after_erasure(&self) -> Result<(), StoreError> {
        self.inner.compact_after_erasure()
    }
    fn ping(&self) -> Result<(), StoreError> {
        self.inner.ping()
    }
}

impl GroupStore for Counted {
    fn insert_group(&self, group: &Group, by: &Attribution) -> Result<(), StoreError> {
        self.inner.insert_group(group, by)
    }
    fn group(&self, id: GroupId) -> Result<Option<Group>, StoreError> {
        self.inner.group(id)
    }
    fn modify_group(
        &self,
        id: GroupId,
        by: &Attribution,
        change: &mut dyn FnMut(&mut Group) -> Result<(), GroupError>,
    ) -> Result<Group, ModifyGroupError> {
        self.inner.modify_group(id, by, change)
    }
    fn delete_group(
        &self,
        id: GroupId,
        expected: Option<u64>,
        by: &Attribution,
    ) -> Result<(), ModifyGroupError> {
        self.inner.delete_group(id, expected, by)
    }
    fn groups(
        &self,
        filter: &GroupFilter,
        skip: u64,
        count: u32,
    ) -> Result<FilteredGroups, StoreError> {
        self.inner.groups(filter, skip, count)
    }
    fn group_names(&self, count: u32) -> Result<Vec<Membership>, StoreError> {
        self.inner.group_names(count)
    }
    fn groups_of(&self, users: &[UserId]) -> Result<HashMap<UserId, Vec<Membership>>, StoreError> {
        self.group_reads.fetch_add(1, Ordering::SeqCst);
        self.inner.groups_of(users)
    }
}

struct World {
    store: Arc<Counted>,
    context: Context,
    schema: kenning_graphql::Schema,
}

/// Twelve people who each uploaded a note on compilers, half of them in
/// one group, read by a caller holding `scopes`.
fn world(scopes: Vec<Scope>) -> World {
    let store = Arc::new(Counted::default());
    let clock = Arc::new(ManualClock::new(
        Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap(),
    ));
    let users = UserService::new(
        store.clone(),
        clock.clone(),
        LanguageId::parse("en").unwrap(),
    );
    let groups = GroupService::new(store.clone(), store.clone(), clock.clone());
    let expertise = ExpertiseService::new(
        store.inner.clone(),
        store.clone(),
        store.clone(),
        Arc::new(KeyphraseExtractor::new()),
        clock.clone(),
        Scoring::default(),
    );
    let mut members = Vec::new();
    for n in 0..12 {
        let email = format!("p{n}@example.com");
        let user = users
            .create(NewUserInput {
                email: email.clone(),
                firstname: "Compiler".into(),
                lastname: format!("Writer {n}"),
                ..NewUserInput::default()
            })
            .unwrap();
        if n % 2 == 0 {
            members.push(user.id().to_string());
        }
        expertise
            .upload(UploadInput {
                entity_type: Raw::Value("document".into()),
                action_type: Raw::Value("create".into()),
                action_date: Raw::Value("2026-03-01T10:00:00.000Z".into()),
                user_email: Raw::Value(email),
                text: Raw::Value(format!(
                    "Register allocation in the compiler backend, part {n}: \
                     graph colouring and spilling."
                )),
                ..UploadInput::default()
            })
            .unwrap();
    }
    groups
        .create(GroupInput {
            display_name: "Compilers".into(),
            external_id: None,
            members,
        })
        .unwrap();
    let clock_for_webhooks = clock.clone();
    let clock_for_privacy = clock.clone();
    let audit = AuditService::new(store.inner.clone(), clock);
    let webhooks = WebhookService::new(
        store.inner.clone(),
        Arc::new(Webhooks::new(
            NetworkPolicy::default(),
            std::time::Duration::from_secs(1),
            EventSource::default(),
        )),
        clock_for_webhooks,
        DeliverySettings::default(),
    );
    let privacy = PrivacyService::new(
        store.inner.clone(),
        store.inner.clone(),
        store.inner.clone(),
        store.inner.clone(),
        expertise.clone(),
        clock_for_privacy.clone(),
    );
    let use_cases = UseCases {
        credentials: CredentialService::new(store.inner.clone(), clock_for_privacy.clone()),
        connectors: ConnectorService::new(
            store.inner.clone(),
            store.inner.clone(),
            clock_for_privacy.clone(),
        ),
        sessions: SessionService::new(
            store.inner.clone(),
            store.inner.clone(),
            clock_for_privacy,
            SessionPolicy::default(),
        ),
        users,
        groups,
        expertise,
        audit,
        webhooks,
        privacy,
    };
    let issued = use_cases
        .credentials
        .issue(CredentialKind::AccessToken, "reader", &scopes, None)
        .unwrap();
    let gate = Gate::new(use_cases, Administrators::nobody());
    let machine = gate
        .authenticate(CredentialKind::AccessToken, &issued.secret)
        .unwrap();
    let context = Context::new(machine, &gate, 10_000).unwrap();
    World {
        store,
        context,
        schema: kenning_graphql::schema(Limits::default()),
    }
}

impl World {
    /// Runs `query`; its data, after checking no field failed.
    fn run(&self, query: &str) -> Value {
        self.store.reset();
        let request = GraphQLBatchRequest::Single(GraphQLRequest::new(query.into(), None, None));
        match self.schema.execute(&request, &self.context) {
            Answer::Single(Outcome::Executed { data, errors }) => {
                assert!(errors.is_empty(), "{errors:?}");
                serde_json::to_value(&data).unwrap()
            }
            _ => panic!("{query} did not run"),
        }
    }
}

#[test]
fn experts_read_their_users_and_groups_in_one_batch_each() {
    let w = world(vec![Scope::ExpertiseRead, Scope::UsersRead]);
    let data = w.run(
        "{ experts(query: \"register allocation\", limit: 10) \
         { score user { email groups { displayName } } } }",
    );
    let experts = data["experts"].as_array().unwrap();
    assert_eq!(experts.len(), 10);
    let in_group = experts
        .iter()
        .filter(|e| e["user"]["groups"] == json!([{ "displayName": "Compilers" }]))
        .count();
    let alone = experts
        .iter()
        .filter(|e| e["user"]["groups"] == json!([]))
        .count();
    assert_eq!(in_group + alone, 10, "{data}");
    assert!(in_group > 0 && alone > 0, "{data}");
    assert_eq!(w.store.reads(), (0, 1, 1));

    // Nothing read ahead that the document does not ask for.
    w.run("{ experts(query: \"register allocation\") { score } }");
    assert_eq!(w.store.reads(), (0, 0, 0));
    w.run("{ experts(query: \"register allocation\") { mine: user { email } } }");
    assert_eq!(w.store.reads(), (0, 1, 0));
}

#[test]
fn listings_read_their_users_groups_in_one_batch() {
    let w = world(vec![Scope::UsersRead]);
    let data = w.run("{ users(limit: 12) { email groups { displayName } } }");
    assert_eq!(data["users"].as_array().unwrap().len(), 12);
    assert_eq!(w.store.reads(), (0, 0, 1));
    let data = w.run(
        "{ usersConnection(first: 12) { edges { node { email again: groups { displayName } } } } }",
    );
    assert_eq!(
        data["usersConnection"]["edges"].as_array().unwrap().len(),
        12
    );
    assert_eq!(w.store.reads(), (0, 0, 1));
    w.run("{ users(limit: 12) { email } }");
    assert_eq!(w.store.reads(), (0, 0, 0));
}

#[test]
fn groups_are_not_read_ahead_for_a_caller_who_may_not_read_them() {
    let w = world(vec![Scope::ExpertiseRead]);
    let reply = w.schema.execute(
        &GraphQLBatchRequest::Single(GraphQLRequest::new(
            "{ experts(query: \"register allocation\") { user { groups { displayName } } } }"
                .into(),
            None,
            None,
        )),
        &w.context,
    );
    let Answer::Single(Outcome::Executed { errors, .. }) = reply else {
        panic!("the query did not run");
    };
    assert!(!errors.is_empty());
    assert_eq!(w.store.reads().2, 0);
}
