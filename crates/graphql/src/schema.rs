//! The root types and the schema.
//!
//! Every root field calls one use case of the [`Context`](crate::Context),
//! called by the request's token; the service refuses what its scopes do
//! not allow, and reaches the port named here (on the server, `Database`
//! implements them all):
//!
//! | fields | service | port |
//! |---|---|---|
//! | `users`, `usersConnection`, `user`, `userByEmail`, `userByExternalId` | `UserService` | `UserStore` |
//! | `experts`, `queryReading`, `userTopics`, `relatedTopics`, `hiddenTopics`, `declaredTopics` | `ExpertiseService` | `ExpertiseStore` |
//! | `learningRules`, `userLearning`, `userData`, `askedSubjects` | `PrivacyService` | `PrivacyStore` |
//! | `webhooks` | `WebhookService` | `WebhookStore` |
//! | `auditTrail` | `AuditService` | `AuditTrail` |
//! | `createUser`, `updateUser`, `updateUserEmail`, `deactivateUser`, `reactivateUser`, `deleteUser`, `cancelDelete` | `UserService` | `UserStore` |
//! | `hideTopic`, `showTopic` | `ExpertiseService::set_topic_hidden` | `ExpertiseStore::set_hidden` |
//! | `setLearningRule`, `setUserLearning`, `forgetUser` | `PrivacyService` | `PrivacyStore` |
//! | `createWebhook`, `deleteWebhook`, `resumeWebhook` | `WebhookService` | `WebhookStore`; `createWebhook` also asks `WebhookSender::check_url` |
//!
//! The first five rows are `Query`, the last four `Mutation`. `experts` and
//! `queryReading` also read the query through `TopicExtractor` and, with a
//! model, `Embedder`; `experts` reads the people it names through
//! `ExpertiseService::people`. `forgetUser` then asks
//! `UserStore::compact_after_erasure`. Groups are managed over SCIM and in
//! the admin console, not over GraphQL.

use chrono::{DateTime, Utc};
use juniper::{graphql_object, DefaultScalarValue, EmptySubscription, Executor, RootNode};
use kenning_domain::{
    self as domain, parse_audit_cursor, AskedSubject, AuditLimit, ChangeKind, Email, ExpertsLimit,
    ExternalId, FieldViolation, GroupId, RelatedTopicsLimit, ResourceKind, SearchText, User,
    UserCursor, UserId, UserKey, UserTopicsLimit,
};
use kenning_ports::AuditQuery;
use uuid::Uuid;

use crate::audit::AuditPageObject;
use crate::connection::UserConnection;
use crate::context::{asks_for, Context};
use crate::error::ApiError;
use crate::expertise::{
    DeclaredTopicObject, ExpertObject, ProfileTopicObject, QueryReadingObject, RelatedTopicObject,
};
use crate::inputs::{CreateUserInput, Limit, Offset, UpdateUserEmailInput, UpdateUserInput};
use crate::privacy::{AskedSubjectObject, LearningObject, LearningRulesObject};
use crate::user::UserObject;
use crate::webhook::{CreatedWebhookObject, WebhookObject};

type Result<T> = std::result::Result<T, ApiError>;

fn user_id(id: Uuid) -> UserId {
    UserId::from_uuid(id)
}

fn violation(v: FieldViolation) -> ApiError {
    domain::ValidationErrors::from(v).into()
}

/// A number argument parsed into its domain type, or the type's default
/// when the argument is absent or null.
fn parse_or_default<T: Default>(
    raw: Option<i32>,
    parse: fn(i64) -> std::result::Result<T, FieldViolation>,
) -> Result<T> {
    raw.map(|n| parse(n.into()))
        .transpose()
        .map(Option::unwrap_or_default)
        .map_err(violation)
}

/// The `expectedVersion` of a change: versions start at 1.
fn expected_version(raw: Option<i32>) -> Result<Option<u64>> {
    raw.map(|n| {
        u64::try_from(n).ok().filter(|v| *v >= 1).ok_or_else(|| {
            violation(FieldViolation::new(
                "expectedVersion",
                domain::Rule::TooSmall { min: 1 },
            ))
        })
    })
    .transpose()
}

/// Reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query;

#[graphql_object(context = Context, scalar = DefaultScalarValue)]
impl Query {
    /// Users whose e-mail, externalId, first name, last name or "first last"
    /// contains `searchText` (case-insensitive); null or "" lists all users.
    /// Ordered by last name, first name and id, so offset pages are stable.
    /// `offset` goes up to a maximum (10,000 unless configured); further
    /// pages are read by cursor with `usersConnection`.
    fn users(
        context: &Context,
        executor: &Executor<'_, '_, Context>,
        search_text: Option<String>,
        offset: Option<Offset>,
        limit: Option<Limit>,
    ) -> Result<Vec<UserObject>> {
        let offset = parse_or_default(offset.map(|o| o.0), domain::Offset::parse)?
            .at_most(context.max_offset)
            .map_err(violation)?;
        let limit = parse_or_default(limit.map(|l| l.0), domain::Limit::parse)?;
        let text = SearchText::parse(search_text.as_deref()).map_err(violation)?;
        let found = context.use_cases.users.search(&text, offset, limit)?;
        if asks_for(executor, &["groups"]) {
            context.read_groups_ahead(&found.iter().map(User::id).collect::<Vec<_>>())?;
        }
        Ok(found.into_iter().map(UserObject).collect())
    }

    /// The users `users` lists for `searchText`, in the same order, a page
    /// at a time: the `first` users (1 to 1000, default 100) after the
    /// cursor `after` (an edge's `cursor` or a page's `pageInfo.endCursor`,
    /// as returned; null starts at the first user). Every page costs about
    /// what the first does, however deep in the listing it lies.
    fn users_connection(
        context: &Context,
        executor: &Executor<'_, '_, Context>,
        search_text: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<UserConnection> {
        let text = SearchText::parse(search_text.as_deref()).map_err(violation)?;
        let first = parse_or_default(first, |n| {
            domain::Limit::parse(n).map_err(|v| FieldViolation::new(UserConnection::FIRST, v.rule))
        })?;
        let after = after
            .as_deref()
            .map(UserCursor::parse)
            .transpose()
            .map_err(violation)?;
        let page = context
            .use_cases
            .users
            .search_after(&text, after.as_ref(), first)?;
        if asks_for(executor, &["edges", "node", "groups"]) {
            context.read_groups_ahead(&page.users.iter().map(User::id).collect::<Vec<_>>())?;
        }
        Ok(UserConnection(page))
    }

    /// One user, whatever its status.
    fn user(context: &Context, global_user_id: Uuid) -> Result<UserObject> {
        Ok(UserObject(
            context.use_cases.users.get(user_id(global_user_id))?,
        ))
    }

    /// The user who holds this e-mail address (without regard to case),
    /// unless deleted: one read of the unique index, for sync scripts that
    /// know people by their address. `users(searchText:)` finds addresses
    /// that contain a text instead. `NotFound` when nobody holds it.
    fn user_by_email(context: &Context, email: String) -> Result<UserObject> {
        let key = UserKey::Email(Email::parse(&email).map_err(violation)?);
        Ok(UserObject(context.use_cases.users.get_by_key(&key)?))
    }

    /// The user who holds this externalId (compared exactly), unless
    /// deleted: one read of the unique index, for sync scripts that know
    /// people by their id in another system. `NotFound` when nobody
    /// holds it.
    fn user_by_external_id(context: &Context, external_id: String) -> Result<UserObject> {
        let key = UserKey::ExternalId(ExternalId::parse(&external_id).map_err(violation)?);
        Ok(UserObject(context.use_cases.users.get_by_key(&key)?))
    }

    /// Who knows about `query`, best first: the query is read for its
    /// words and key phrases, and each active, visible user is ranked by
    /// their expertise on them, rarer topics counting more and each
    /// standing saturating as BM25's term frequencies do, and by their
    /// actions that match the query best. Deactivated,
    /// hidden and deleted users are left out. `limit` 1 to 100, default 10.
    /// With `groupId`, only the group's members are ranked (`NotFound` for
    /// a group that does not exist).
    fn experts(
        context: &Context,
        executor: &Executor<'_, '_, Context>,
        query: String,
        limit: Option<i32>,
        group_id: Option<Uuid>,
    ) -> Result<Vec<ExpertObject>> {
        let limit = parse_or_default(limit, ExpertsLimit::parse)?;
        let group = group_id.map(GroupId::from_uuid);
        let experts = context
            .use_cases
            .expertise
            .experts_in(&query, limit, group)?;
        let ids: Vec<UserId> = experts.iter().map(|e| e.user).collect();
        if asks_for(executor, &["user"]) {
            context.read_people_ahead(&ids)?;
        }
        if asks_for(executor, &["user", "groups"]) {
            context.read_groups_ahead(&ids)?;
        }
        Ok(experts.into_iter().map(ExpertObject).collect())
    }

    /// How `query` is read for `experts`: the language, each topic it is
    /// matched on with its weight, how many people `experts` would rank on
    /// it and its share of the score, and the topics nobody holds (people
    /// who hid a topic count as not holding it). An empty or odd
    /// answer of `experts` is explained here.
    fn query_reading(context: &Context, query: String) -> Result<QueryReadingObject> {
        Ok(QueryReadingObject(
            context.use_cases.expertise.read_query(&query)?,
        ))
    }

    /// The topics most often learned together with `topic` (a topic key
    /// or a short text read as one), the most telling first: those that go
    /// with it more than with everything else, in the uploads of the people
    /// `experts` ranks, less the topics each of them hides. `limit` 1 to
    /// 100, default 10.
    fn related_topics(
        context: &Context,
        topic: String,
        limit: Option<i32>,
    ) -> Result<Vec<RelatedTopicObject>> {
        let limit = parse_or_default(limit, RelatedTopicsLimit::parse)?;
        Ok(context
            .use_cases
            .expertise
            .related_topics(&topic, limit)?
            .into_iter()
            .map(RelatedTopicObject)
            .collect())
    }

    /// The keys of the topics a user hid from their profile and ranking
    /// (`hideTopic`). Needs `users:read`.
    fn hidden_topics(context: &Context, global_user_id: Uuid) -> Result<Vec<String>> {
        let user = user_id(global_user_id);
        Ok(context.use_cases.expertise.hidden_topics(user)?)
    }

    /// The topics a user says they know (added by the person themselves,
    /// signed in to the web app; no token can add one), by key: `experts`
    /// ranks each as one upload about it, below anyone whose uploads
    /// taught the same. Empty while the user's profile shows nothing
    /// (as `userTopics`). Needs `expertise:read`.
    fn declared_topics(
        context: &Context,
        global_user_id: Uuid,
    ) -> Result<Vec<DeclaredTopicObject>> {
        let user = user_id(global_user_id);
        Ok(context
            .use_cases
            .expertise
            .declared_topics(user)?
            .into_iter()
            .map(DeclaredTopicObject)
            .collect())
    }

    /// The topics a user knows best, with their scores and the actions that
    /// taught them: what sets the user apart first (the standing times the
    /// share of the people who do not hold the topic), so that what nearly
    /// everybody holds comes last; never a topic the user hides. Empty for
    /// a user `experts` does not rank (not ACTIVE, hidden, or not learned
    /// about). `limit` 1 to 100, default 15.
    fn user_topics(
        context: &Context,
        global_user_id: Uuid,
        #[graphql(default = UserTopicsLimit::DEFAULT.get() as i32)] limit: Option<i32>,
    ) -> Result<Vec<ProfileTopicObject>> {
        let limit = parse_or_default(limit, UserTopicsLimit::parse)?;
        Ok(context
            .use_cases
            .expertise
            .user_topics(user_id(global_user_id), limit)?
            .into_iter()
            .map(ProfileTopicObject)
            .collect())
    }

    /// The organisation's rules on learning, with who set each and when.
    /// Needs `users:read`.
    fn learning_rules(context: &Context) -> Result<LearningRulesObject> {
        Ok(LearningRulesObject(context.use_cases.privacy.rules()?))
    }

    /// Whether a person is learned about, and their own choice. Needs
    /// `users:read`.
    fn user_learning(context: &Context, global_user_id: Uuid) -> Result<LearningObject> {
        let user = user_id(global_user_id);
        Ok(LearningObject(context.use_cases.privacy.learning_of(user)?))
    }

    /// Everything Kenning keeps about a person, as one JSON document (a
    /// string): the profile, groups, learning, topics with their scores
    /// and the actions behind each, hidden topics, every action, and the
    /// audit entries about them. The hand-out is recorded in the audit
    /// trail (`user.exported`). Needs `users:read`.
    fn user_data(context: &Context, global_user_id: Uuid) -> Result<String> {
        let user = user_id(global_user_id);
        Ok(context.use_cases.privacy.export(user)?.to_string())
    }

    /// The subjects asked in `experts` in the last `days` days (1 to 90,
    /// default 30) that nobody holds (no one scored 50 or more), or one
    /// person alone, the most asked first; at most 200. Only topics and
    /// counts are kept, never the query or who asked. Needs `users:read`.
    fn asked_subjects(
        context: &Context,
        #[graphql(default = AskedSubject::DEFAULT_DAYS as i32)] days: Option<i32>,
    ) -> Result<Vec<AskedSubjectObject>> {
        Ok(context
            .use_cases
            .privacy
            .asked(days.map_or(i64::from(AskedSubject::DEFAULT_DAYS), i64::from))?
            .into_iter()
            .map(AskedSubjectObject)
            .collect())
    }

    /// The webhook subscriptions, oldest first, with what waits for each.
    /// Needs `webhooks:manage`.
    fn webhooks(context: &Context) -> Result<Vec<WebhookObject>> {
        let counts = context.use_cases.webhooks.counts()?;
        Ok(context
            .use_cases
            .webhooks
            .subscriptions()?
            .into_iter()
            .map(|subscription| WebhookObject {
                counts: counts
                    .iter()
                    .find(|c| c.subscription == subscription.id)
                    .cloned(),
                subscription,
            })
            .collect())
    }

    /// Who changed what: the changes made to users, groups and
    /// credentials through GraphQL, SCIM, the command line and the purge,
    /// newest first, `limit` at a time (1 to 500, default 50); pass a
    /// page's `nextCursor` as `before` for the next. Each filter given
    /// must hold: the resource's id or type (`user`, `group`,
    /// `credential`), the credential that made it, the kinds of change,
    /// and the time range (`from` included, `until` not). Needs
    /// `audit:read`.
    #[allow(clippy::too_many_arguments)]
    fn audit_trail(
        context: &Context,
        #[graphql(default = AuditLimit::DEFAULT.get() as i32)] limit: Option<i32>,
        before: Option<String>,
        resource_id: Option<Uuid>,
        resource_type: Option<String>,
        credential_id: Option<Uuid>,
        kinds: Option<Vec<String>>,
        from: Option<DateTime<Utc>>,
        until: Option<DateTime<Utc>>,
    ) -> Result<AuditPageObject> {
        let limit = parse_or_default(limit, AuditLimit::parse)?;
        let mut problems = domain::Collector::default();
        let before = before.and_then(|raw| problems.take(parse_audit_cursor(&raw)));
        let resource_kind = resource_type.and_then(|raw| problems.take(ResourceKind::parse(&raw)));
        let kinds: Vec<ChangeKind> = kinds
            .unwrap_or_default()
            .iter()
            .filter_map(|raw| problems.take(ChangeKind::parse(raw)))
            .collect();
        if let Err(errors) = problems.finish() {
            return Err(errors.into());
        }
        let query = AuditQuery {
            before,
            resource_id,
            resource_kind,
            credential_id,
            kinds,
            from,
            until,
        };
        Ok(AuditPageObject(
            context.use_cases.audit.entries(query, limit)?,
        ))
    }
}

/// Changes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mutation;

#[graphql_object(context = Context)]
impl Mutation {
    /// Subscribes `url` to the changes of `kinds` (all kinds when none):
    /// each is posted as a signed CloudEvent (docs/events.md). The URL must
    /// use https and reach a public address unless the operator allows its
    /// network. The secret is shown this once. Needs `webhooks:manage`.
    fn create_webhook(
        context: &Context,
        url: String,
        kinds: Option<Vec<String>>,
    ) -> Result<CreatedWebhookObject> {
        let input = domain::SubscriptionInput {
            url,
            kinds: kinds.unwrap_or_default(),
        };
        Ok(CreatedWebhookObject(
            context.use_cases.webhooks.subscribe(&input)?,
        ))
    }

    /// Ends a subscription; what waits for it is dropped. Needs
    /// `webhooks:manage`.
    fn delete_webhook(context: &Context, id: Uuid) -> Result<bool> {
        context.use_cases.webhooks.unsubscribe(id)?;
        Ok(true)
    }

    /// Delivers to a FAILING subscription again, what waits for it first.
    /// Needs `webhooks:manage`.
    fn resume_webhook(context: &Context, id: Uuid) -> Result<bool> {
        context.use_cases.webhooks.resume(id)?;
        Ok(true)
    }

    /// Creates an ACTIVE user.
    fn create_user(context: &Context, create_user_input: CreateUserInput) -> Result<UserObject> {
        Ok(UserObject(
            context.use_cases.users.create(create_user_input.into())?,
        ))
    }

    /// Changes the attributes sent; the others stay.
    fn update_user(context: &Context, update_user_input: UpdateUserInput) -> Result<UserObject> {
        let (id, changes, expected) = update_user_input.split();
        let expected = expected_version(expected)?;
        Ok(UserObject(context.use_cases.users.update(
            user_id(id),
            changes,
            expected,
        )?))
    }

    /// Changes a user's e-mail address; the only way to do so.
    fn update_user_email(
        context: &Context,
        update_user_email_input: UpdateUserEmailInput,
    ) -> Result<UserObject> {
        let input = update_user_email_input;
        let expected = expected_version(input.expected_version)?;
        Ok(UserObject(context.use_cases.users.update_email(
            user_id(input.global_user_id),
            &input.email,
            expected,
        )?))
    }

    /// Hides `topic` (a topic key, or a short text read as one) from the
    /// user's profile (`userTopics`) and from ranking them in `experts`,
    /// so that a wrong or private topic stops following them, with every
    /// topic of theirs that holds it (hiding "divorce" hides "divorce
    /// proceedings" too); new uploads go on teaching it but do not bring
    /// it back. Returns the keys of every topic the user hides now. A user hides a bounded number of
    /// topics (`hiddenTopics`, `TooMany`, when one more would exceed it).
    /// Needs `users:write`.
    fn hide_topic(context: &Context, global_user_id: Uuid, topic: String) -> Result<Vec<String>> {
        let user = user_id(global_user_id);
        Ok(context
            .use_cases
            .expertise
            .set_topic_hidden(user, &topic, true)?
            .now)
    }

    /// Shows a topic hidden with `hideTopic` again, in the profile and in
    /// ranking, with everything learned meanwhile, and the hidden topics
    /// that hold it. Returns the keys of the
    /// topics the user still hides. Needs `users:write`.
    fn show_topic(context: &Context, global_user_id: Uuid, topic: String) -> Result<Vec<String>> {
        let user = user_id(global_user_id);
        Ok(context
            .use_cases
            .expertise
            .set_topic_hidden(user, &topic, false)?
            .now)
    }

    /// Sets (`set` true) or lifts a rule of the organisation's on learning,
    /// and returns the rules in force: `learning_off` (nobody is learned
    /// about), `new_people_opted_out` (people who never chose are not),
    /// `group_off` with a group's id as `value` (its members are not),
    /// `excluded_entity_type` or `excluded_action_type` with the type
    /// (uploads of it teach nothing from then on), `retention_days` with
    /// the number of days (1 to 36500; actions older are forgotten).
    /// Takes effect at once. Needs `users:write`.
    fn set_learning_rule(
        context: &Context,
        kind: String,
        value: Option<String>,
        set: bool,
    ) -> Result<LearningRulesObject> {
        Ok(LearningRulesObject(context.use_cases.privacy.set_rule(
            &kind,
            value.as_deref(),
            set,
        )?))
    }

    /// Sets a person's own choice of being learned about: false stops
    /// learning from their activity (uploads naming them are accepted and
    /// teach nothing, and `experts` does not offer them), true learns from
    /// later uploads again, null returns to the organisation's default.
    /// Needs `users:write`.
    fn set_user_learning(
        context: &Context,
        global_user_id: Uuid,
        learning: Option<bool>,
    ) -> Result<LearningObject> {
        let user = user_id(global_user_id);
        Ok(LearningObject(
            context.use_cases.privacy.set_learning(user, learning)?,
        ))
    }

    /// Erases what Kenning learned about a person: every action and
    /// topic (the account and its profile stay). Cannot be undone. Needs
    /// `users:write`.
    fn forget_user(context: &Context, global_user_id: Uuid) -> Result<bool> {
        let user = user_id(global_user_id);
        context.use_cases.privacy.forget(user)?;
        Ok(true)
    }

    /// ACTIVE -> DEACTIVATED (no change if already deactivated).
    fn deactivate_user(context: &Context, global_user_id: Uuid) -> Result<UserObject> {
        Ok(UserObject(
            context
                .use_cases
                .users
                .deactivate(user_id(global_user_id))?,
        ))
    }

    /// DEACTIVATED -> ACTIVE (no change if already active).
    fn reactivate_user(context: &Context, global_user_id: Uuid) -> Result<UserObject> {
        Ok(UserObject(
            context
                .use_cases
                .users
                .reactivate(user_id(global_user_id))?,
        ))
    }

    /// Deactivates the user and schedules its anonymization 14 days later.
    fn delete_user(context: &Context, global_user_id: Uuid) -> Result<UserObject> {
        Ok(UserObject(
            context.use_cases.users.delete(user_id(global_user_id))?,
        ))
    }

    /// Cancels a pending deletion while the grace period lasts; the user
    /// stays DEACTIVATED.
    fn cancel_delete(context: &Context, global_user_id: Uuid) -> Result<UserObject> {
        Ok(UserObject(
            context
                .use_cases
                .users
                .cancel_delete(user_id(global_user_id))?,
        ))
    }
}

pub(crate) type Root = RootNode<Query, Mutation, EmptySubscription<Context>>;

/// The schema, with the limits its documents are held to; run requests
/// with [`Schema::execute`].
pub struct Schema {
    root: Root,
    limits: Limits,
}

impl Schema {
    pub(crate) fn root(&self) -> &Root {
        &self.root
    }

    /// The limits the schema holds documents and arguments to.
    pub fn limits(&self) -> Limits {
        self.limits
    }
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schema").finish_non_exhaustive()
    }
}

/// Bounds on a document, checked before anything runs.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Nesting of selection sets, fragments, input values and list types.
    pub depth: usize,
    /// Tokens in the document.
    pub tokens: usize,
    /// Fields in the operation, counting a fragment once per spread.
    pub fields: usize,
    /// The highest cost of one operation: each field costs 1 plus its
    /// selections, times the items a list field may return (see
    /// `cost.rs`).
    pub cost: u64,
    /// The highest cost of all the operations of one batch together.
    pub batch_cost: u64,
    /// The largest `offset` of `users`: skipping costs as many rows as it
    /// skips, so a listing read further than this is read by cursor
    /// (`usersConnection`), whose pages cost the same at any depth.
    pub max_offset: u32,
}

impl Default for Limits {
    /// Room for the deepest legitimate document (GraphiQL's introspection
    /// query) and for a full page of 1,000 users with every field twice
    /// over, far below what would make parsing, execution or the answer
    /// costly.
    fn default() -> Self {
        Self {
            depth: 32,
            tokens: 10_000,
            fields: 1_000,
            cost: 50_000,
            batch_cost: 100_000,
            max_offset: 10_000,
        }
    }
}

/// Builds the schema with the given document limits.
pub fn schema(limits: Limits) -> Schema {
    let root = Root::new(Query, Mutation, EmptySubscription::new())
        .limit_depth(limits.depth)
        .limit_tokens(limits.tokens)
        .limit_fields(limits.fields);
    Schema { root, limits }
}
